#include "core/models/gpfa/gpfa_trainer.h"

#include "core/base/parallel.h"
#include "core/math/constants.h"
#include "core/math/random.h"
#include "core/metrics/factor_metrics.h"
#include "core/models/bbvi/positive_black_box.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// The cap's order of the training rows: a fixed stream, apart from the run's seed, so that every
// algorithm and seed sees the same rows at a cap.
constexpr std::uint64_t kCapSeed = 0x6770666163ULL; // "gpfac"
constexpr std::uint64_t kInitStream = 0x6770666169ULL;
constexpr std::uint64_t kDrawStream = 0x6770666164ULL; // BBVI's evaluation draws
// Minibatch keys of the incomplete rows: a step's and an evaluation's apart.
constexpr std::uint64_t kStepKeys = 0;
constexpr std::uint64_t kEvaluationKeys = std::uint64_t(1) << 62;
// A factor is in use when its share of Σ_k ‖E W_k‖² reaches this (the Loadings view's floor).
constexpr double kFactorInUse = 1e-3;

// The algorithms that fit a q (SGVB's or BBVI's) to the collapsed log joint.
bool fitsQ(GpfaAlgorithm a)
{
    return a != GpfaAlgorithm::Empirical && a != GpfaAlgorithm::LedoitWolf;
}

SgvbMethod methodOf(GpfaAlgorithm a)
{
    return a == GpfaAlgorithm::GammaSgvb  ? SgvbMethod::Gamma
           : a == GpfaAlgorithm::NormSgvb ? SgvbMethod::Normal
                                          : SgvbMethod::Map;
}

bool complete(const DenseData& d, std::int64_t i)
{
    for (int c = 0; c < d.cols(); ++c)
        if (!d.observed(i, c))
            return false;
    return true;
}

} // namespace

GpfaTrainer::GpfaTrainer(DenseDataPtr data, GpfaAlgorithm algorithm, const GpfaOptions& options,
                         std::uint64_t seed)
    : GpfaTrainer(std::move(data), algorithm, options, nullptr, seed)
{
}

GpfaTrainer::GpfaTrainer(DenseDataPtr data, const GpfaBbviOptions& options, std::uint64_t seed)
    : GpfaTrainer(std::move(data), GpfaAlgorithm::Bbvi, options.checked().common(), &options.bbvi,
                  seed)
{
}

GpfaTrainer::GpfaTrainer(DenseDataPtr data, GpfaAlgorithm algorithm, const GpfaOptions& options,
                         const BbviOptions* bbvi, std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(options.checked()),
      m_shrinkage(kNaN)
{
    m_seed = seed;
    if (bbvi)
        m_bbviOptions = *bbvi;
    if (!m_data)
        throw std::invalid_argument("data: GPFA has no data");
    const DenseData& d = *m_data;
    if (d.rows() < 1 || d.cols() < 1)
        throw std::invalid_argument("data: '" + d.source + "' has no rows or no columns");

    std::vector<std::int64_t> rows(static_cast<std::size_t>(d.trainingRowCount()));
    for (std::int64_t j = 0; j < d.trainingRowCount(); ++j)
        rows[std::size_t(j)] = d.trainingRow(j);
    if (m_options.trainRows > 0 && std::size_t(m_options.trainRows) < rows.size())
        rows = seededSubset(std::move(rows), std::size_t(m_options.trainRows),
                            Rng::stream(kCapSeed, 0));
    m_rows = std::move(rows);
    if (!d.trainingRows.empty()) {
        std::vector<std::uint8_t> training(std::size_t(d.rows()), 0);
        for (std::int64_t i : d.trainingRows)
            training[std::size_t(i)] = 1;
        for (std::int64_t i = 0; i < d.rows(); ++i)
            if (!training[std::size_t(i)])
                m_testRows.push_back(i);
    }
    for (std::int64_t i = 0; i < d.rows(); ++i)
        for (int c = 0; c < d.cols(); ++c)
            if (d.heldOut(i, c)) {
                m_heldRows.push_back(i);
                break;
            }

    if (svi::fitsQ(algorithm)) {
        m_likelihood = std::make_unique<gpfa::CollapsedLikelihood>(
            m_data, m_rows, m_options.minibatch, seed ^ 0x6d696e6962617463ULL);
        m_completeCount = m_likelihood->completeCount();
        if (m_completeCount > 0)
            m_empirical = m_likelihood->completeScatter() / double(m_completeCount);
        m_model = std::make_unique<gpfa::Model>(*m_likelihood, m_options.K, m_options.prior);
        initialiseQ(seed);
        return;
    }
    std::vector<std::int64_t> full;
    for (std::int64_t i : m_rows)
        if (complete(d, i))
            full.push_back(i);
    if (full.empty())
        throw std::invalid_argument(
            "data: '" + d.source +
            "' has no complete training row (every one has a held-out or "
            "missing entry); the empirical covariance needs complete rows: set split = rows");
    m_moments = gpfa::secondMoments(d, full);
    m_completeCount = m_moments->n;
    m_empirical = gpfa::empiricalCovariance(*m_moments);
}

GpfaTrainer::~GpfaTrainer() = default;

void GpfaTrainer::initialiseQ(std::uint64_t seed)
{
    // The scale of the data: v, the mean square of the observed training entries (1 for
    // standardised columns). q starts with small loadings, E[Σ_k W_dk²] ≈ 0.14 v (means
    // m0 (0.5 + U), U ~ U[0, 1], shape 4), and the noise at σ² = v/2: the loadings grow where
    // the data support them. Starting them at the data's scale instead (half of v, shape 1) left
    // Ĉ 1.5–1.7 times too large for thousands of AdaDelta steps on 40 rows of planted data
    // (their expected test NLL behind Ledoit–Wolf's after 2,000 steps, ahead of it after 500
    // with this start). The jitter sets the factors apart: identical ones would get identical
    // gradients in expectation.
    const DenseData& d = *m_data;
    double sum = 0.0, count = 0.0;
    for (std::int64_t i : m_rows)
        for (int c = 0; c < d.cols(); ++c)
            if (d.observed(i, c)) {
                sum += double(d.values(i, c)) * double(d.values(i, c));
                count += 1.0;
            }
    const double v = count > 0 && sum > 0 ? sum / count : 1.0;
    const gpfa::Layout& l = m_model->layout();
    const double m0 = std::sqrt(0.1 * v / l.K);
    Eigen::ArrayXd mean(l.size()), var(l.size());
    Rng rng = Rng::stream(seed, kInitStream);
    for (int k = 0; k < l.K; ++k) {
        for (int c = 0; c < l.D; ++c) {
            mean[l.w(c, k)] = m0 * (0.5 + rng.uniform());
            var[l.w(c, k)] = mean[l.w(c, k)] * mean[l.w(c, k)] / 4.0;
        }
        mean[l.r(k)] = m0;
        var[l.r(k)] = m0 * m0;
    }
    for (Eigen::Index i : {l.gamma(), l.gamma0(), l.c0()}) {
        mean[i] = 1.0;
        var[i] = 1.0;
    }
    mean[l.tau()] = 2.0 / v;
    var[l.tau()] = 0.1 * mean[l.tau()] * mean[l.tau()];
    if (m_algorithm != GpfaAlgorithm::Bbvi) {
        m_sgvb =
            std::make_unique<PositiveSgvb>(methodOf(m_algorithm), mean, var,
                                           m_options.sgvb.optimizer, seed, m_options.sgvb.entropy);
        return;
    }
    // The model is the trainer's: the engine's view of it does not own it.
    m_bbviModel = std::make_unique<PositiveBlackBoxModel>(
        std::shared_ptr<const PositiveModel>(m_model.get(), [](const PositiveModel*) {}), mean,
        var);
    m_bbvi = std::make_unique<BlackBoxVi>(*m_bbviModel, *m_bbviOptions, seed);
}

void GpfaTrainer::drawQ(std::uint64_t key, std::uint64_t draw, Eigen::ArrayXd& x) const
{
    if (m_sgvb) {
        m_sgvb->draw(key, draw, x);
        return;
    }
    const QLayout& q = m_bbviModel->globals();
    Eigen::MatrixXd z(q.variables(), 1), logQ(q.variables(), 1), score(q.parameters(), 1);
    Rng rng = Rng::stream(m_seed, kDrawStream, key, draw);
    q.drawMany(m_bbvi->global(), 0, q.variables(), std::span(&rng, 1), z, logQ, score);
    x = z.col(0).array();
}

Eigen::ArrayXd GpfaTrainer::meanQ() const
{
    if (m_sgvb)
        return m_sgvb->mean();
    const QLayout& q = m_bbviModel->globals();
    Eigen::ArrayXd mean(q.variables()), variance(q.variables());
    q.moments(m_bbvi->global(), mean, variance);
    return mean;
}

StagedTrainer::Round GpfaTrainer::localStep(std::int64_t t)
{
    m_statistic.clear();
    if (m_bbvi) {
        // The whole step on every rank alike: BBVI's draws are not split over ranks.
        m_model->setKey(kStepKeys + std::uint64_t(t));
        m_rate = m_bbvi->step(t);
        return Round::Update;
    }
    if (sgvb()) {
        m_rate = m_sgvb->optimizer().rate();
        m_model->setKey(kStepKeys + std::uint64_t(t));
        const Eigen::ArrayXd& x = m_sgvb->drawStep(t);
        m_model->itemTerms(x, communicator().shardOf(m_model->itemCount()), m_statistic);
        return Round::Update;
    }
    if (!m_estimated)
        estimateCovariance();
    return Round::Update;
}

double GpfaTrainer::globalUpdate(std::int64_t t)
{
    m_lastStep = t;
    if (m_bbvi)
        return m_rate;
    if (!sgvb())
        return 1.0;
    m_sgvb->ascend(m_model->fromItemTerms(m_sgvb->drawn(), m_sgvb->gradient()));
    return m_rate;
}

void GpfaTrainer::estimateCovariance()
{
    if (m_algorithm == GpfaAlgorithm::LedoitWolf) {
        gpfa::Shrinkage s = gpfa::ledoitWolf(*m_moments);
        m_estimate = std::move(s.covariance);
        m_shrinkage = s.intensity;
    } else {
        m_estimate = m_empirical;
    }
    m_singular = !gpfa::GaussianScorer(m_estimate).valid();
    m_estimated = true;
}

void GpfaTrainer::visitState(StateArchive& a)
{
    if (m_bbvi) {
        a.field("bbvi", *m_bbvi);
        a.field("last_step", m_lastStep);
        return;
    }
    if (sgvb()) {
        a.field("sgvb", *m_sgvb);
        a.field("last_step", m_lastStep);
        return;
    }
    // The estimate is a function of the complete rows alone (built with the trainer): only
    // whether the step made it is state. The baselines' evaluations draw nothing, so the
    // last step is not read.
    a.field("estimated", m_estimated);
    if (a.loading() && m_estimated)
        estimateCovariance();
}

std::int64_t GpfaTrainer::itemsPerStep() const
{
    return fitsQ() ? m_likelihood->rowsPerEvaluation() : m_completeCount;
}

std::int64_t GpfaTrainer::itemCount() const
{
    return fitsQ() ? m_likelihood->completeCount() + m_likelihood->incompleteCount()
                   : m_completeCount;
}

bool GpfaTrainer::diverged() const
{
    return m_bbvi ? m_bbvi->diverged() : sgvb() ? m_sgvb->diverged() : m_singular;
}

Eigen::MatrixXd GpfaTrainer::drawnCovariance(std::uint64_t key, double* noiseVariance) const
{
    const gpfa::Layout& l = m_model->layout();
    const int draws = m_algorithm == GpfaAlgorithm::Map ? 1 : std::max(m_options.covDraws, 1);
    std::vector<Eigen::MatrixXd> partial(kChunks, Eigen::MatrixXd::Zero(l.D, l.D));
    std::vector<double> noise(kChunks, 0.0);
    // Eq. 20: Ĉ = (1/S) Σ_s W⁽ˢ⁾W⁽ˢ⁾ᵀ + σ²₍ₛ₎ I, each draw from its own stream.
    forChunks(draws, [&](int c, std::int64_t begin, std::int64_t end) {
        Eigen::ArrayXd x;
        for (std::int64_t s = begin; s < end; ++s) {
            drawQ(key, std::uint64_t(s), x);
            partial[std::size_t(c)].selfadjointView<Eigen::Lower>().rankUpdate(l.loadings(x));
            noise[std::size_t(c)] += 1.0 / x[l.tau()];
        }
    });
    Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(l.D, l.D);
    double sigma2 = 0.0;
    for (int c = 0; c < kChunks; ++c) {
        cov += partial[std::size_t(c)];
        sigma2 += noise[std::size_t(c)];
    }
    cov = cov.selfadjointView<Eigen::Lower>();
    cov /= double(draws);
    sigma2 /= double(draws);
    cov.diagonal().array() += sigma2;
    if (noiseVariance)
        *noiseVariance = sigma2;
    return cov;
}

Eigen::MatrixXd GpfaTrainer::covariance(std::uint64_t key) const
{
    return fitsQ() ? drawnCovariance(key, nullptr) : m_estimate;
}

Eigen::MatrixXd GpfaTrainer::meanLoadings() const
{
    if (!fitsQ())
        return {};
    const Eigen::ArrayXd mean = meanQ();
    return m_model->layout().loadings(mean);
}

void GpfaTrainer::score(const gpfa::GaussianScorer& scorer, Evaluation& ev) const
{
    const DenseData& d = *m_data;
    std::vector<gpfa::GaussianScorer::Workspace> ws(kChunks,
                                                    gpfa::GaussianScorer::Workspace(d.cols()));
    // Each rank its share of the rows; the partial sums then over the ranks.
    if (!m_testRows.empty()) {
        const Shard mine = communicator().shardOf(std::int64_t(m_testRows.size()));
        std::vector<double> nll(kChunks, 0.0);
        forChunks(mine.size(), [&](int c, std::int64_t begin, std::int64_t end) {
            for (std::int64_t j = mine.begin + begin; j < mine.begin + end; ++j)
                nll[std::size_t(c)] -=
                    scorer.logDensity(d, m_testRows[std::size_t(j)], ws[std::size_t(c)]);
        });
        double total = std::accumulate(nll.begin(), nll.end(), 0.0);
        communicator().sum({&total, 1});
        ev.metrics["perplexity"] = scorer.valid() ? total / double(m_testRows.size())
                                                  : std::numeric_limits<double>::infinity();
    }
    if (!m_heldRows.empty()) {
        const Shard mine = communicator().shardOf(std::int64_t(m_heldRows.size()));
        std::vector<double> ll(kChunks, 0.0), se(kChunks, 0.0), count(kChunks, 0.0);
        forChunks(mine.size(), [&](int c, std::int64_t begin, std::int64_t end) {
            for (std::int64_t j = mine.begin + begin; j < mine.begin + end; ++j) {
                const auto r =
                    scorer.heldOutGivenObserved(d, m_heldRows[std::size_t(j)], ws[std::size_t(c)]);
                ll[std::size_t(c)] += r.logLik;
                se[std::size_t(c)] += r.squaredError;
                count[std::size_t(c)] += r.count;
            }
        });
        double sums[3] = {std::accumulate(ll.begin(), ll.end(), 0.0),
                          std::accumulate(se.begin(), se.end(), 0.0),
                          std::accumulate(count.begin(), count.end(), 0.0)};
        communicator().sum(sums);
        const double n = sums[2];
        if (n > 0) {
            ev.metrics["heldout_loglik"] =
                scorer.valid() ? sums[0] / n : -std::numeric_limits<double>::infinity();
            ev.metrics["mse"] = sums[1] / n;
        }
    }
}

std::shared_ptr<Preview> GpfaTrainer::makePreview(const Eigen::MatrixXd& estimate) const
{
    auto preview = std::make_shared<Preview>();
    // Atoms are the factors' mean loadings E[W_·k]ᵀ, weighted by their share of Σ_k ‖E[W_·k]‖².
    preview->atomName = "E[W_k]";
    preview->atomWeightName = "share";
    if (estimate.size() > 0) {
        auto summary = std::make_shared<CovarianceSummary>();
        summary->model = estimate;
        summary->empirical = m_empirical;
        preview->covariance = std::move(summary);
    }
    const Eigen::MatrixXd w = meanLoadings();
    if (w.size() == 0)
        return preview;
    const Eigen::VectorXd mass = w.colwise().squaredNorm().transpose();
    const double total = mass.sum();
    std::vector<Eigen::Index> order(static_cast<std::size_t>(w.cols()));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return mass[a] > mass[b]; });
    preview->atoms.resize(w.cols(), w.rows());
    preview->atomWeights.resize(w.cols());
    for (std::size_t j = 0; j < order.size(); ++j) {
        preview->atoms.row(Eigen::Index(j)) = w.col(order[j]).transpose();
        preview->atomWeights[Eigen::Index(j)] = total > 0 ? mass[order[j]] / total : 0.0;
    }
    return preview;
}

Evaluation GpfaTrainer::evaluate(bool full)
{
    (void)full; // every score is cheap: each evaluation scores every row
    Evaluation ev;
    Eigen::MatrixXd estimate;
    const std::uint64_t key = std::uint64_t(m_lastStep);
    if (fitsQ()) {
        // The bound and the gradient's variance at the evaluation's minibatch.
        m_model->setKey(kEvaluationKeys + key);
        if (m_bbvi) {
            const BbviOptions& o = *m_bbviOptions;
            ev.elbo = m_bbvi->bound(o.elboSamples, 0, key).global;
            if (o.varianceRepeats >= 2)
                ev.metrics["grad_variance"] = m_bbvi->gradientVariance(o.varianceRepeats, key);
        } else {
            const SgvbOptions& o = m_options.sgvb;
            ev.elbo = m_sgvb->elbo(*m_model, o.elboSamples, key, communicator());
            if (m_sgvb->method() != SgvbMethod::Map && o.varianceRepeats >= 2)
                ev.metrics["grad_variance"] =
                    m_sgvb->gradientVariance(*m_model, o.varianceRepeats, key);
        }
        double noiseVariance = kNaN;
        estimate = drawnCovariance(key, &noiseVariance);
        ev.metrics["noise_sd"] = std::sqrt(noiseVariance);
    } else {
        ev.hasBound = false;
        ev.elbo = kNaN;
        estimate = m_estimate;
        if (m_algorithm == GpfaAlgorithm::LedoitWolf && m_estimated)
            ev.metrics["shrinkage"] = m_shrinkage;
    }
    if (estimate.size() > 0)
        score(gpfa::GaussianScorer(estimate), ev);
    auto preview = makePreview(estimate);
    if (preview->atomWeights.size() > 0) {
        ev.metrics["factors_used"] = double((preview->atomWeights.array() >= kFactorInUse).count());
        const Eigen::MatrixXd& truth = m_data->trueLoadings;
        if (truth.size() > 0 && truth.rows() == m_data->cols() && truth.cols() <= truth.rows() &&
            preview->atoms.allFinite())
            ev.metrics["amari_error"] =
                amariError(heaviestColumns(meanLoadings(), truth.cols()), truth);
    }
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
