#include "core/models/pf/pf_black_box.h"

#include "core/inference/gamma_reparam.h"
#include "core/math/random.h"
#include "core/models/memory_terms.h"
#include "core/models/recommender/recommender.h"
#include "core/models/recommender/recommender_parts.h"

#include <cmath>
#include <stdexcept>

namespace svi {
namespace {

constexpr std::uint64_t kStartStream = 0x62627669; // "bbvi"

// log Gamma(x; shape, rate) with log x and log Γ(shape) given.
double gammaLog(double x, double logX, double shape, double logRate, double lgammaShape,
                double rate)
{
    return shape * logRate - lgammaShape + (shape - 1.0) * logX - rate * x;
}

} // namespace

ParamFields<PfBbviOptions> PfBbviOptions::declare(bool hierarchical)
{
    using O = PfBbviOptions;
    ParamFields<O> f;
    f.add(intParam("K", "Factors K", "number of latent factors", 20, 1, kHuge), &O::K)
        .add(&O::priors, pf::Priors::declare(hierarchical))
        .add(&O::bbvi, BbviOptions::declare(true, 100, 5, 16, 0.0, true));
    addRecommenderEvaluationFields(f);
    return f;
}

const ParamFields<PfBbviOptions>& PfBbviOptions::fields()
{
    static const ParamFields<PfBbviOptions> f = [] {
        ParamFields<PfBbviOptions> all;
        all.merge(declare(true)).merge(declare(false));
        return all;
    }();
    return f;
}

PfBbviOptions PfBbviOptions::fromParams(const ParamValues& values, bool hierarchical)
{
    PfBbviOptions o = DeclaredOptions::fromParams(values);
    o.priors.hierarchical = hierarchical;
    return o;
}

PfBlackBoxModel::PfBlackBoxModel(CountDataPtr data, int K, const pf::Priors& priors)
    : m_data(std::move(data)), m_K(K), m_priors(priors)
{
    if (!m_data || m_data->trainingRowCount() == 0)
        throw std::invalid_argument("data: no training ratings");
    if (K < 1)
        throw std::invalid_argument(fieldError("K", std::to_string(K), "must be ≥ 1"));
    const Eigen::Index M = m_data->cols();
    std::vector<QBlock> globals = {{"beta", QFamily::Gamma, M * K}};
    std::vector<QBlock> locals = {{"theta", QFamily::Gamma, K}};
    if (priors.hierarchical) {
        globals.push_back({"eta", QFamily::Gamma, M});
        locals.push_back({"xi", QFamily::Gamma, 1});
    }
    m_globals = QLayout(std::move(globals));
    m_locals = QLayout(std::move(locals));
    m_logFactorial.reserve(m_data->train.counts.size());
    for (const float y : m_data->train.counts)
        m_logFactorial.push_back(std::lgamma(double(y) + 1.0));
}

void PfBlackBoxModel::factors(std::span<const std::int64_t> items,
                              const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                              const Eigen::Ref<const Eigen::ArrayXd>& zLocal, FactorSums& out) const
{
    const CountData& d = *m_data;
    const int K = m_K;
    const Eigen::Index M = d.cols();
    const bool hier = m_priors.hierarchical;
    const pf::SidePrior up = pf::userPrior(m_priors), ip = pf::itemPrior(m_priors);
    const double lgC = std::lgamma(ip.shape), lgA = std::lgamma(up.shape);
    const double lgC1 = std::lgamma(ip.levelShape), lgA1 = std::lgamma(up.levelShape);
    const Eigen::Map<const Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        beta(zGlobal.data(), M, K);
    // The items' priors: η_i, then β_ik given η_i (M·K logs: only when wanted).
    const Eigen::ArrayXd columnSum = beta.colwise().sum().transpose(); // the zeros' rates
    for (Eigen::Index i = 0; i < M && out.wantGlobal; ++i) {
        const double eta = hier ? zGlobal[M * K + i] : ip.fixedRate, logEta = std::log(eta);
        double level = 0.0;
        if (hier) {
            level =
                gammaLog(eta, logEta, ip.levelShape, std::log(ip.levelRate), lgC1, ip.levelRate);
            out.global += level;
            out.globalBlanket[M * K + i] += level;
        }
        for (int k = 0; k < K; ++k) {
            const double b = beta(i, k);
            const double f = gammaLog(b, std::log(b), ip.shape, logEta, lgC, eta);
            out.global += f;
            out.globalBlanket[i * K + k] += f;
            if (hier)
                out.globalBlanket[M * K + i] += f;
        }
        if (out.wantGradient) {
            // ∂/∂x of log G(x; shape, rate) is (shape − 1)/x − rate; ∂/∂rate, shape/rate − x.
            const auto row = beta.row(i).transpose();
            out.globalGradient.segment(i * K, K) += (ip.shape - 1.0) / row - eta;
            if (hier)
                out.globalGradient[M * K + i] +=
                    (ip.levelShape - 1.0) / eta - ip.levelRate + K * ip.shape / eta - row.sum();
        }
    }
    // Each user of the minibatch: ξ_u, θ_u given ξ_u, and the Poisson terms of the whole row.
    const Eigen::Index width = m_locals.variables();
    Eigen::ArrayXd thetaSum = Eigen::ArrayXd::Zero(K); // Σ_{u∈B} θ_u
    for (std::size_t j = 0; j < items.size(); ++j) {
        const std::int64_t u = d.trainingRows()[std::size_t(items[j])];
        const Eigen::Index at = Eigen::Index(j) * width;
        const auto theta = zLocal.segment(at, K);
        const double xi = hier ? zLocal[at + K] : up.fixedRate, logXi = std::log(xi);
        double priors = 0.0;
        if (hier) {
            const double level =
                gammaLog(xi, logXi, up.levelShape, std::log(up.levelRate), lgA1, up.levelRate);
            out.localBlanket[at + K] += level;
            priors += level;
        }
        double thetaPriors = 0.0;
        for (int k = 0; k < K; ++k) {
            const double f = gammaLog(theta[k], std::log(theta[k]), up.shape, logXi, lgA, xi);
            out.localBlanket[at + k] += f;
            thetaPriors += f;
        }
        if (hier)
            out.localBlanket[at + K] += thetaPriors;
        priors += thetaPriors;
        const bool grad = out.wantGradient;
        if (grad) {
            out.localGradient.segment(at, K) += (up.shape - 1.0) / theta - xi - columnSum;
            if (hier)
                out.localGradient[at + K] +=
                    (up.levelShape - 1.0) / xi - up.levelRate + K * up.shape / xi - theta.sum();
        }
        // Σ_{i rated} (y log θᵀβ_i − log y!) − θᵀ Σ_i β_i (the zeros' terms and the rated ones'
        // rates alike).
        double lik = -(theta * columnSum).sum();
        const std::span<const std::int32_t> cols = d.train.rowCols(u);
        const std::span<const float> counts = d.train.rowCounts(u);
        for (std::size_t e = 0; e < cols.size(); ++e) {
            const double y = counts[e];
            const double rate = (theta * beta.row(cols[e]).transpose()).sum();
            const double term = y * std::log(rate) -
                                m_logFactorial[std::size_t(d.train.rowStart[std::size_t(u)]) + e];
            lik += term;
            if (out.wantItemBlanket)
                out.itemBlanket.segment(Eigen::Index(cols[e]) * K, K) += term;
            if (grad) {
                // ∂(y log θᵀβ_i)/∂θ = y β_i/rate, and /∂β_i = y θ/rate.
                const double scale = y / rate;
                out.localGradient.segment(at, K) += scale * beta.row(cols[e]).transpose();
                if (out.wantItemBlanket)
                    out.itemGradient.segment(Eigen::Index(cols[e]) * K, K) += scale * theta;
            }
        }
        out.localBlanket.segment(at, K) += lik;
        out.items += priors + lik;
        thetaSum += theta;
    }
    // Every item's rates over the minibatch's users, rated or not: −β_iᵀ Σ_u θ_u.
    if (out.wantItemBlanket)
        for (Eigen::Index i = 0; i < M; ++i)
            out.itemBlanket.segment(i * K, K) -= (beta.row(i).transpose() * thetaSum).sum();
    if (out.wantItemBlanket && out.wantGradient)
        for (Eigen::Index i = 0; i < M; ++i)
            out.itemGradient.segment(i * K, K) -= thetaSum;
}

void PfBlackBoxModel::start(Eigen::ArrayXd& global, Eigen::MatrixXd& local,
                            std::uint64_t seed) const
{
    const Eigen::Index M = m_data->cols();
    const int K = m_K;
    const pf::SidePrior up = pf::userPrior(m_priors), ip = pf::itemPrior(m_priors);
    const bool hier = m_priors.hierarchical;
    // A factor's start: shape + 0.1 u, the prior mean rate + 0.1 u′ (as coordinate ascent).
    const auto set = [](double* lambda, double shape, double rate) {
        lambda[0] = softplusInverse(shape);
        lambda[1] = softplusInverse(rate);
    };
    const double itemRate = hier ? ip.levelShape / ip.levelRate : ip.fixedRate;
    for (Eigen::Index i = 0; i < M; ++i) {
        Rng rng = Rng::stream(seed, kStartStream, 1, std::uint64_t(i));
        for (int k = 0; k < K; ++k)
            set(global.data() + m_globals.parameterOf(i * K + k), ip.shape + 0.1 * rng.uniform(),
                itemRate + 0.1 * rng.uniform());
        if (hier)
            set(global.data() + m_globals.parameterOf(M * K + i), ip.levelShape, ip.levelRate);
    }
    const double userRate = hier ? up.levelShape / up.levelRate : up.fixedRate;
    Eigen::ArrayXd column(m_locals.parameters());
    for (Eigen::Index p = 0; p < local.cols(); ++p) {
        Rng rng = Rng::stream(seed, kStartStream, 2, std::uint64_t(p));
        for (int k = 0; k < K; ++k)
            set(column.data() + m_locals.parameterOf(k), up.shape + 0.1 * rng.uniform(),
                userRate + 0.1 * rng.uniform());
        if (hier)
            set(column.data() + m_locals.parameterOf(K), up.levelShape, up.levelRate);
        local.col(p) = column.matrix();
    }
}

PfBlackBoxTrainer::PfBlackBoxTrainer(const CountDataPtr& data, const PfBbviOptions& options,
                                     std::uint64_t seed)
    : BlackBoxTrainer(std::make_unique<PfBlackBoxModel>(data, options.K, options.priors),
                      options.bbvi, seed),
      m_options(options.checked()),
      m_eval(*data, options.evalUsers, options.topN, seed, pf::kEvaluationPickStream)
{
}

void PfBlackBoxTrainer::report(Evaluation& ev, bool full, std::uint64_t id) const
{
    (void)id;
    const PfBlackBoxModel& m = pf();
    const CountData& d = m.data();
    const int K = m.K();
    const Eigen::Index M = d.cols();
    // E[β] from q; E[θ] of every user, the prior mean for one without training ratings.
    pf::MatrixRD items(M, K), users(d.rows(), K);
    {
        Eigen::ArrayXd mean(m.globals().variables()), variance(m.globals().variables());
        m.globals().moments(engine().global(), mean, variance);
        items = Eigen::Map<const pf::MatrixRD>(mean.data(), M, K);
    }
    const pf::SidePrior up = pf::userPrior(m_options.priors);
    users.setConstant(up.shape / (up.hierarchical ? up.levelShape / up.levelRate : up.fixedRate));
    Eigen::ArrayXd mean(m.locals().variables()), variance(m.locals().variables());
    for (std::int64_t p = 0; p < m.itemCount(); ++p) {
        m.locals().moments(engine().local().col(p).array(), mean, variance);
        users.row(d.trainingRows()[std::size_t(p)]) = mean.head(K).matrix().transpose();
    }
    addRecommenderMetrics(
        ev.metrics, m_eval, d, full ? m_eval.scoredUsers : m_eval.cheapScoredUsers, full,
        m_options.topN,
        [&](std::int64_t u, std::int32_t i) { return users.row(u).dot(items.row(i)); },
        [](double y, double pred) { return y * std::log(pred) - pred - std::lgamma(y + 1.0); },
        [&](std::int64_t u, Eigen::VectorXd& out) {
            out.noalias() = items * users.row(u).transpose();
        });
    ev.preview = factorsPreview(users, items, 0.0, m_options.topN);
}

void addPfBbviEntry(Registry& r, bool hierarchical, const std::vector<MetricSpec>& metrics)
{
    AlgorithmEntry e;
    e.model = hierarchical ? "hpf" : "pmf";
    e.modelLabel =
        hierarchical ? "Hierarchical Poisson factorization" : "Poisson matrix factorization";
    e.algorithm = "bbvi";
    e.label = "BBVI";
    e.help = "black-box VI (paper 004 §2.5): score-function gradients of the gamma q's, "
             "Rao-Blackwellised over each factor's blanket, with control variates; users local";
    e.dataKinds = {"ratings"};
    e.compareRank = 0; // outside the paper's comparison: Compare runs it when ticked
    e.params = PfBbviOptions::declare(hierarchical).specs();
    e.metrics = metrics;
    e.bound = "a Monte Carlo estimate of the evidence lower bound from elbo_samples draws of q, "
              "over eval_items users scaled by N/n (0: all)";
    e.make = [hierarchical](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<PfBlackBoxTrainer>(data.requireCounts(hierarchical ? "HPF" : "PMF"),
                                                   PfBbviOptions::fromParams(values, hierarchical),
                                                   seed);
    };
    e.readOptions = [hierarchical](const ParamValues& values) {
        return PfBbviOptions::fromParams(values, hierarchical).checked().toParams();
    };
    // S draws of every item's factors with their scores and blankets, the users' q and their
    // AdaGrad sums, the evaluation's factors.
    e.memory = [](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        const CountData& c = *data.counts;
        const double N = double(c.rows()), M = double(c.cols()), K = number(v, "K");
        const double S = number(v, "draws"), B = std::min(number(v, "minibatch", N), N);
        return std::vector<MemoryTerm>{
            {"S draws of the items' factors: about 7 × draws × items × K doubles",
             7 * kDouble * S * M * (K + 1), "draws"},
            {"the minibatch's draws: about 7 × draws × minibatch × K doubles",
             7 * kDouble * S * B * (K + 1), "minibatch"},
            {"the users' q and AdaGrad sums: 4 × users × K doubles", 4 * kDouble * N * (K + 1),
             "K"},
            {"the items' q and optimizer: 6 × items × K doubles", 6 * kDouble * M * (K + 1), "K"},
            recommenderEvaluation(c, K),
        };
    };
    e.smallSettings = {{"K", std::int64_t(4)},
                       {"minibatch", std::int64_t(10)},
                       {"eval_users", std::int64_t(20)},
                       {"draws", std::int64_t(4)},
                       {"local_steps", std::int64_t(1)},
                       {"elbo_samples", std::int64_t(2)},
                       {"variance_repeats", std::int64_t(2)}};
    e.divergentSettings = {{hierarchical ? "a" : "c", 1e308}};
    r.add(std::move(e));
}

} // namespace svi
