#include "core/models/lgm/linear_lgm.h"

#include "core/inference/likelihoods.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace svi {
namespace {

// Streams apart from the steps' (seed, t ≥ 1, row).
constexpr std::uint64_t kStreamSampler = 0x5a3b1e;
constexpr std::uint64_t kStreamEvalPick = 0xe7a1;

const LabelledData& checked(const LabelledDataPtr& data)
{
    if (!data || data->trainingRows.empty())
        throw std::invalid_argument("data: no training rows");
    return *data;
}

} // namespace

ParamSpec lgmCovarianceParam()
{
    return choiceParam("covariance", "Covariance of q(w)",
                       "full: N(m, S) with D² parameters; diagonal: for many features",
                       {"full", "diagonal"}, "full");
}

ParamSpec lgmMinibatchParam()
{
    return intParam("minibatch", "Minibatch", "training rows per step (paper: 2,000)", 2000, 1,
                    kHuge);
}

ParamSpec lgmDampingParam()
{
    return realParam("damping", "Damping ρ",
                     "each step moves q(w)'s natural parameters this share of the way to the "
                     "fixed point; 1 solves a Gaussian likelihood in one step",
                     1.0, 1e-3, 1.0);
}

ParamSpec lgmAdagradRateParam()
{
    return positiveParam("adagrad_rate", "AdaGrad rate",
                         "gradient steps (eq. 63, 64): AdaGrad's global rate (paper: 1.0)", 1.0);
}

ParamSpec lgmPriorVarianceParam()
{
    return positiveParam("prior_variance", "Prior variance σ_p²", "w ~ N(0, σ_p² I) (paper: 1)",
                         1.0);
}

ParamSpec lgmInitVarianceParam(bool whitened)
{
    if (whitened)
        return positiveParam("init_variance", "Initial variance",
                             "q(w) starts at N(0, init_variance · I); 1 is the prior", 1.0);
    return positiveParam("init_variance", "Initial variance",
                         "q(w) starts at N(0, init_variance · I) (paper: 10)", 10.0);
}

bool adagradSteps(LgmAlgorithm algorithm)
{
    return !naturalSteps(algorithm) || algorithm == LgmAlgorithm::HybridMcSsvi ||
           algorithm == LgmAlgorithm::BatchHybrid;
}

ParamSpec lgmEvalRowsParam(int defaultRows)
{
    return intParam("eval_rows", "Evaluation rows",
                    "rows (training, test) a live evaluation uses; a full pass uses all",
                    defaultRows, 1, kHuge);
}

ParamSpec likelihoodParam()
{
    std::vector<std::string> names = unparameterisedLikelihoodNames();
    names.insert(names.begin(), "auto");
    return choiceParam("likelihood", "Likelihood",
                       "p(y | f): auto takes logistic for two classes, poisson for counts, "
                       "gaussian for values",
                       names, "auto");
}

LikelihoodKind likelihoodFor(const std::string& name, const LabelledDataPtr& data)
{
    if (name != "auto")
        return likelihoodFromName(name);
    if (!data)
        throw std::invalid_argument("data: none");
    switch (data->labelKind) {
    case LabelKind::Binary:
        return LikelihoodKind::Logistic;
    case LabelKind::Count:
        return LikelihoodKind::Poisson;
    case LabelKind::Real:
        break;
    }
    return LikelihoodKind::Gaussian;
}

LinearLgmTrainer::LinearLgmTrainer(LabelledDataPtr data, LgmAlgorithm algorithm,
                                   const LgmOptions& options, std::unique_ptr<LocalModel> local,
                                   std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(options), m_seed(seed),
      m_local(std::move(local)),
      m_prior(GaussianPrior::isotropic(checked(m_data).cols(), options.priorVariance)),
      m_q(m_data->cols(), options.covariance, options.initVariance),
      m_steps(
          [&] {
              StepSizeOptions s = stepSizeOf(options);
              if (batchSteps(algorithm)) // every row each step: no gradient noise to adapt to
                  s.schedule = StepSchedule::RobbinsMonro;
              return s;
          }(),
          1),
      m_meanOpt(options.adagradRate), m_rootOpt(options.adagradRate)
{
    const LabelledData& d = *m_data;
    for (std::int64_t i = 0; i < d.rows(); ++i)
        if (const auto why = m_local->outsideSupport(d.y[i]))
            throw std::invalid_argument("cannot fit " + d.where(i) + ", label: " +
                                        (d.labelKind == LabelKind::Real
                                             ? formatNumber(d.y[i] * d.labelScale + d.labelMean) +
                                                   " (standardised " + *why + ")"
                                             : *why) +
                                        " (" + m_local->describe() + ")");
    if (!d.x.allFinite())
        throw std::invalid_argument("data: a feature of '" + d.source + "' is not finite");
    const bool stochastic = !batchSteps(algorithm);
    m_rows = StepRows(d.trainingRows, stochastic, options.minibatch,
                      Rng::stream(seed, kStreamSampler)());
    const Rng pick = Rng::stream(seed, kStreamEvalPick);
    m_evalTrain = seededSubset(d.trainingRows, std::size_t(options.evalRows), pick);
    m_evalTest = seededSubset(d.testRows, std::size_t(options.evalRows), pick);
}

LinearLgmTrainer::~LinearLgmTrainer() = default;

void LinearLgmTrainer::visitState(StateArchive& a)
{
    a.field("q", m_q); // with the precision FixedPoint's natural steps keep between them
    // lgmUpdate's AdaGrad states: the mean's for the hybrids and S-DSVI, the root's for S-DSVI.
    if (m_algorithm == LgmAlgorithm::HybridMcSsvi || m_algorithm == LgmAlgorithm::BatchHybrid ||
        m_algorithm == LgmAlgorithm::SDsvi)
        a.field("mean_opt", m_meanOpt);
    if (m_algorithm == LgmAlgorithm::SDsvi)
        a.field("root_opt", m_rootOpt);
    a.field("rows", m_rows);
    if (m_steps.adaptive())
        a.field("step_sizes", m_steps);
    if (m_algorithm == LgmAlgorithm::FixedPoint)
        a.field("converged", m_converged);
    a.field("local", *m_local);
    visitModelState(a);
}

void LinearLgmTrainer::gather(Chunk& c, const std::vector<std::int64_t>& rows, std::int64_t begin,
                              std::int64_t end) const
{
    const LabelledData& d = *m_data;
    const Eigen::Index n = end - begin;
    c.x.resize(n, d.cols());
    c.y.resize(n);
    c.rows.assign(rows.begin() + begin, rows.begin() + end);
    for (Eigen::Index r = 0; r < n; ++r) {
        const std::int64_t i = c.rows[std::size_t(r)];
        c.x.row(r) = d.x.row(i);
        c.y[r] = d.y[i];
    }
    c.m.noalias() = c.x * m_q.mean();
    c.v.resize(n);
    m_q.marginalVariances(c.x, c.v, c.work);
}

StagedTrainer::Round LinearLgmTrainer::localStep(std::int64_t t)
{
    if (!m_sharded) {
        m_rows.setShard(communicator().shardOf(m_data->trainingRowCount()));
        m_sharded = true;
    }
    m_rows.next();
    const std::vector<std::int64_t>& rows = m_rows.mine();
    const std::int64_t n = std::int64_t(rows.size());
    const CovarianceForm form = m_q.form();
    const int D = m_q.dim();
    forChunks(n, [&](int ci, std::int64_t begin, std::int64_t end) {
        Chunk& c = m_chunks[std::size_t(ci)];
        gather(c, rows, begin, end);
        c.alpha.resize(end - begin);
        c.gamma.resize(end - begin);
        c.extra.resize(end - begin);
        for (Eigen::Index r = 0; r < c.y.size(); ++r) {
            const std::int64_t i = c.rows[std::size_t(r)];
            Rng rng = Rng::stream(m_seed, std::uint64_t(t), std::uint64_t(i));
            m_local->estimate(i, c.y[r], c.m[r], c.v[r], rng, c.alpha[r], c.gamma[r], c.extra[r]);
        }
        c.grads.reset(D, form);
        c.grads.addRows(c.x, c.alpha, c.gamma, form);
    });
    m_grads.reset(D, form);
    m_extra = 0.0;
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
    for (int ci = 0; ci < chunks; ++ci) {
        m_grads.add(m_chunks[std::size_t(ci)].grads, form);
        m_extra += m_chunks[std::size_t(ci)].extra.sum();
    }
    m_statistic.clear();
    m_statistic.dense(m_grads.g);
    if (form == CovarianceForm::Full)
        m_statistic.dense(m_grads.gammaFull);
    else
        m_statistic.dense(m_grads.gammaDiag);
    m_statistic.dense(&m_extra, 1);
    return naturalSteps(m_algorithm) && m_steps.needsWarmUp(0) ? Round::WarmUp : Round::Update;
}

void LinearLgmTrainer::warmUp()
{
    const std::int64_t n = std::int64_t(m_rows.rows().size());
    m_grads.scale(double(m_data->trainingRowCount()) / double(n), m_q.form());
    m_steps.warmUp(0, m_algorithm, m_q, m_grads, m_prior);
}

double LinearLgmTrainer::globalUpdate(std::int64_t t)
{
    const std::int64_t n = std::int64_t(m_rows.rows().size()); // every rank's rows
    const CovarianceForm form = m_q.form();
    const double scale = double(m_data->trainingRowCount()) / double(n);
    m_grads.scale(scale, form);

    // The adaptive rate from the natural gradient of the step about to be taken (H-MC-SSVI: the
    // covariance's); ρ is then halved by the step as needed.
    double rho = m_options.damping; // FixedPoint
    if (m_algorithm != LgmAlgorithm::FixedPoint)
        rho = m_steps.adaptive() && naturalSteps(m_algorithm)
                  ? m_steps.rho(0, m_algorithm, m_q, m_grads, m_prior)
                  : m_steps.scheduled(t);
    m_local->updateExtra(t, rho, naturalSteps(m_algorithm), m_extra / double(n), scale * m_extra);
    if (m_algorithm != LgmAlgorithm::FixedPoint)
        return lgmUpdate(m_algorithm, m_q, m_grads, m_prior, rho, m_meanOpt, m_rootOpt);
    const Eigen::VectorXd m = m_q.mean();
    const Eigen::MatrixXd root = m_q.root();
    const double used = lgmUpdate(m_algorithm, m_q, m_grads, m_prior, rho, m_meanOpt, m_rootOpt);
    m_converged = used == rho && unmoved(m, root);
    return used;
}

bool LinearLgmTrainer::unmoved(const Eigen::VectorXd& m, const Eigen::MatrixXd& root) const
{
    const auto near = [](const auto& before, const auto& after) {
        return (after - before).cwiseAbs().maxCoeff() <=
               1e-10 * (1.0 + before.cwiseAbs().maxCoeff());
    };
    return near(m, m_q.mean()) && near(root, m_q.root());
}

double LinearLgmTrainer::expectedTerms(const std::vector<std::int64_t>& rows) const
{
    // This rank's share of the rows; the partial sums added in chunk order, then over the ranks.
    const Shard mine = communicator().shardOf(std::int64_t(rows.size()));
    std::vector<double> partial(kChunks, 0.0);
    forChunks(mine.size(), [&](int ci, std::int64_t begin, std::int64_t end) {
        Chunk& c = m_chunks[std::size_t(ci)];
        gather(c, rows, mine.begin + begin, mine.begin + end);
        double s = 0.0;
        for (Eigen::Index r = 0; r < c.y.size(); ++r)
            s += m_local->expectedTerm(c.rows[std::size_t(r)], c.y[r], c.m[r], c.v[r]);
        partial[std::size_t(ci)] = s;
    });
    double total = 0.0;
    for (double p : partial)
        total += p;
    communicator().sum({&total, 1});
    return total;
}

double LinearLgmTrainer::bound() const
{
    return -m_q.kl(m_prior) - m_local->extraKl() + expectedTerms(m_data->trainingRows);
}

Evaluation LinearLgmTrainer::evaluate(bool full)
{
    const LabelledData& d = *m_data;
    Evaluation ev;
    const std::vector<std::int64_t>& trainRows = full ? d.trainingRows : m_evalTrain;
    setSubsetElbo(ev, -m_q.kl(m_prior) - m_local->extraKl(), expectedTerms(trainRows),
                  std::int64_t(trainRows.size()), d.trainingRowCount());

    const std::vector<std::int64_t>& testRows = full ? d.testRows : m_evalTest;
    struct Sums
    {
        double nll = 0.0, wrong = 0.0, sq = 0.0;
    };
    std::vector<Sums> partial(kChunks);
    const bool classes = m_local->classifies();
    const Shard mine = communicator().shardOf(std::int64_t(testRows.size()));
    forChunks(mine.size(), [&](int ci, std::int64_t begin, std::int64_t end) {
        Chunk& c = m_chunks[std::size_t(ci)];
        gather(c, testRows, mine.begin + begin, mine.begin + end);
        Sums s;
        for (Eigen::Index r = 0; r < c.y.size(); ++r) {
            const std::int64_t i = c.rows[std::size_t(r)];
            s.nll -= m_local->logPredictive(i, c.y[r], c.m[r], c.v[r]);
            const double mean = m_local->predictiveMean(i, c.m[r], c.v[r]);
            if (classes)
                s.wrong += (mean > 0.5) != (c.y[r] > 0.5) ? 1.0 : 0.0;
            else
                s.sq += (mean - c.y[r]) * (mean - c.y[r]);
        }
        partial[std::size_t(ci)] = s;
    });
    if (!testRows.empty()) {
        Sums t;
        for (const Sums& s : partial) {
            t.nll += s.nll;
            t.wrong += s.wrong;
            t.sq += s.sq;
        }
        double sums[3] = {t.nll, t.wrong, t.sq}; // over the ranks' shares
        communicator().sum(sums);
        t = {sums[0], sums[1], sums[2]};
        const double n = double(testRows.size());
        // A standardised label's density is labelScale times the original's.
        ev.metrics["test_nll"] = t.nll / n + std::log(d.labelScale);
        if (classes)
            ev.metrics["test_error"] = 100.0 * t.wrong / n;
        else
            ev.metrics["test_rmse"] = std::sqrt(t.sq / n) * d.labelScale;
    }

    auto weights = std::make_shared<WeightSummary>();
    weights->names = d.featureNames;
    weights->names.resize(std::size_t(d.cols()));
    for (int j = 0; j < d.cols(); ++j)
        if (weights->names[std::size_t(j)].empty())
            weights->names[std::size_t(j)] = "x" + std::to_string(j + 1);
    weights->mean = m_q.mean();
    weights->sd = m_q.variances().cwiseSqrt();
    auto preview = std::make_shared<Preview>();
    preview->weights = std::move(weights);
    ev.preview = std::move(preview);
    return ev;
}

bool LinearLgmTrainer::diverged() const
{
    return !m_q.mean().allFinite() || !m_q.root().allFinite() || !m_local->extraFinite();
}

} // namespace svi
