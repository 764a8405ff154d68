#include "core/inference/black_box.h"

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/math/random.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// Stream purposes: Rng::stream(seed, purpose·2 + (local ? 1 : 0), id,
// round·2⁴⁸ + chunk·2³² + draw), a chunk being a fixed range of variables (or items).
enum Purpose : std::uint64_t {
    kStep = 1,
    kBound = 2,
    kVarianceDraws = 3,
    kVarianceItems = 4,
    kEvalItems = 5
};
constexpr double kAdaGradEpsilon = 1e-6; // as the Optimizer's adagrad (paper 003's constant)
// A draw's work (model and q) below which the draws of a step run on the calling thread: a
// parallel region costs microseconds, and a time slice (milliseconds) on a loaded machine.
constexpr double kParallelSeconds = 50e-6;
// Local steps of fewer parameter entries × draws than this run on the calling thread.
constexpr Eigen::Index kParallelLocalWork = 1 << 16;
// Draws of fewer variables × draws than this are taken on the calling thread.
constexpr Eigen::Index kParallelDrawWork = 2048;

} // namespace

std::string bbviEstimatorName(BbviEstimator e)
{
    return e == BbviEstimator::Reparam ? "reparam" : "score";
}

BbviEstimator bbviEstimatorFromName(const std::string& name)
{
    if (name == "score")
        return BbviEstimator::Score;
    if (name == "reparam")
        return BbviEstimator::Reparam;
    throw std::invalid_argument(fieldError("estimator", name, "must be score or reparam"));
}

const QLayout& BlackBoxModel::locals() const
{
    static const QLayout none;
    return none;
}

ParamFields<BbviOptions> BbviOptions::declare(bool hasLocals, std::int64_t minibatch,
                                              int localSteps, int samples, double rateKappa,
                                              bool reparam)
{
    using O = BbviOptions;
    ParamFields<O> f;
    if (reparam)
        f.add(choiceParam("estimator", "Gradient estimator",
                          "score: the score-function gradient of black-box VI (paper 004 §2.5), "
                          "with the Rao-Blackwellisation and control variate below; reparam: "
                          "reparameterised draws and the model's ∂ log p/∂z, the entropy's "
                          "gradient in closed form (the two ignore those settings)",
                          {"score", "reparam"}, "score"),
              &O::estimator, bbviEstimatorName, bbviEstimatorFromName);
    f.add(intParam("draws", "Draws S",
                   "draws of q per gradient estimate (the score-function gradient's S)", samples, 1,
                   100000),
          &O::draws)
        .add(boolParam("rao_blackwell", "Rao-Blackwellise",
                       "each variable's gradient from the factors of its Markov blanket and its "
                       "own log q (paper 004 §2.5)",
                       true, "every variable's weight is the whole log p − log q (Algorithm 2)"),
             &O::raoBlackwell)
        .add(boolParam("control_variate", "Control variate",
                       "the score as its own control variate, scaled per variable by "
                       "a* = Σ Cov(f, h) / Σ Var(h) from the same draws",
                       true, "no control variate"),
             &O::controlVariate)
        .add(intParam("minibatch", "Minibatch", "items per step (≥ the items: every item)",
                      double(minibatch), 1, kHuge),
             &O::minibatch);
    if (hasLocals)
        f.add(intParam("local_steps", "Local steps",
                       "score-function steps of each minibatch item's local q per visit (kept "
                       "across visits)",
                       localSteps, 0, 10000),
              &O::localSteps)
            .add(
                positiveParam("local_rate", "Local rate", "AdaGrad's rate of the local steps", 1.0),
                &O::localRate);
    // RMSprop at 0.1 rather than the paper's AdaGrad: AdaGrad's sums keep the first, largest
    // score-function gradients, and its steps shrink before q is near the optimum (PMF on
    // planted ratings, 10,000 steps: AdaGrad at rates 0.5–2 ended 1.0–3.0 % below coordinate
    // ascent's bound, RMSprop at 0.1 within 0.3 %). A constant rate leaves q wandering where
    // the gradient's noise is large (the GLMM on epil: bound −599 to −671 over 4,000 steps,
    // against −583 with κ = 0.6): the model chooses κ.
    f.add(&O::optimizer, OptimizerOptions::declare(OptimizerKind::RmsProp, 0.0, 0.1, rateKappa))
        .add(intParam("elbo_samples", "Bound draws",
                      "draws of q per estimate of the bound at an evaluation", 20, 1, 100000),
             &O::elboSamples)
        .add(intParam("eval_items", "Bound items",
                      "items of the bound's estimate, scaled by N/n (0: every item)", 0, 0, kHuge),
             &O::evalItems)
        .add(intParam("variance_repeats", "Variance repeats",
                      "independent gradient estimates at each evaluation whose spread is the "
                      "gradient-variance metric (0: not measured)",
                      10, 0, 1000),
             &O::varianceRepeats);
    return f;
}

const ParamFields<BbviOptions>& BbviOptions::fields()
{
    static const ParamFields<BbviOptions> f = declare(true, 100, 5, 16, 0.0, true);
    return f;
}

void scoreGradient(const QLayout& layout, const Eigen::Ref<const Eigen::MatrixXd>& scores,
                   const Eigen::Ref<const Eigen::MatrixXd>& weights, bool controlVariate,
                   Eigen::Ref<Eigen::ArrayXd> gradient, Eigen::ArrayXd* aStar)
{
    const Eigen::Index S = scores.cols();
    if (aStar)
        aStar->setZero(layout.variables());
    for (int b = 0; b < int(layout.blocks().size()); ++b) {
        const int w = layout.width(b);
        for (Eigen::Index j = 0; j < layout.blocks()[std::size_t(b)].count; ++j) {
            const Eigen::Index v = layout.firstVariable(b) + j;
            const Eigen::Index p0 = layout.firstParameter(b) + j * w;
            const auto weight = weights.row(v).array();
            double a = 0.0;
            if (controlVariate && S >= 2) {
                // a* = Σ_d Cov(f_d, h_d) / Σ_d Var(h_d), f_d = h_d · weight.
                double cov = 0.0, var = 0.0;
                for (Eigen::Index d = p0; d < p0 + w; ++d) {
                    const auto h = scores.row(d).array();
                    const auto f = h * weight;
                    const double hMean = h.mean(), fMean = f.mean();
                    cov += ((f - fMean) * (h - hMean)).sum();
                    var += (h - hMean).square().sum();
                }
                a = var > 0.0 ? cov / var : 0.0;
            }
            if (aStar)
                (*aStar)[v] = a;
            for (Eigen::Index d = p0; d < p0 + w; ++d)
                gradient[d] = (scores.row(d).array() * (weight - a)).mean();
        }
    }
}

void pathGradient(const QLayout& layout, const Eigen::Ref<const Eigen::MatrixXd>& paths,
                  const Eigen::Ref<const Eigen::MatrixXd>& dLogP,
                  const Eigen::Ref<const Eigen::ArrayXd>& entropy,
                  Eigen::Ref<Eigen::ArrayXd> gradient)
{
    for (int b = 0; b < int(layout.blocks().size()); ++b) {
        const int w = layout.width(b);
        for (Eigen::Index j = 0; j < layout.blocks()[std::size_t(b)].count; ++j) {
            const Eigen::Index v = layout.firstVariable(b) + j;
            const Eigen::Index p0 = layout.firstParameter(b) + j * w;
            for (Eigen::Index d = p0; d < p0 + w; ++d)
                gradient[d] = (paths.row(d).array() * dLogP.row(v).array()).mean() + entropy[d];
        }
    }
}

// The scratch of S draws of the globals and of the locals of some items: column s is draw s.
struct BlackBoxVi::Draws
{
    // variables, variables, λ entries × S; the score holds ∂z/∂λ under the reparameterised
    // estimator.
    Eigen::MatrixXd zGlobal, logQGlobal, scoreGlobal;
    Eigen::MatrixXd zLocal, logQLocal, scoreLocal; // (items × local ...) × S, likewise
    std::vector<FactorSums> sums;
    Eigen::MatrixXd weights;  // global variables × S
    Eigen::ArrayXd whole;     // S: the plain local weight of each draw
    Eigen::ArrayXd entropy;   // ∇_λ H[q] of the globals (reparameterised)
    std::vector<Rng> streams; // kChunks × S: one stream per chunk of variables and draw
    std::int64_t items = -1;

    void prepare(const QLayout& g, const QLayout& l, int S, std::int64_t n)
    {
        if (items == n && int(sums.size()) == S)
            return;
        items = n;
        zGlobal.resize(g.variables(), S);
        logQGlobal.resize(g.variables(), S);
        scoreGlobal.resize(g.parameters(), S);
        zLocal.resize(l.variables() * n, S);
        logQLocal.resize(l.variables() * n, S);
        scoreLocal.resize(l.parameters() * n, S);
        weights.resize(g.variables(), S);
        whole.resize(S);
        streams.assign(std::size_t(kChunks) * std::size_t(S), Rng());
        sums.assign(std::size_t(S), FactorSums{});
        for (FactorSums& f : sums) {
            f.globalBlanket.resize(g.variables());
            f.itemBlanket.resize(g.variables());
            f.localBlanket.resize(l.variables() * n);
            f.globalGradient.resize(g.variables());
            f.itemGradient.resize(g.variables());
            f.localGradient.resize(l.variables() * n);
        }
    }
    // Chunk c's S streams, seeded from (seed, a, b, c·2³² + s).
    std::span<Rng> chunkStreams(int c, std::uint64_t seed, std::uint64_t a, std::uint64_t b,
                                std::uint64_t tag)
    {
        const std::size_t S = sums.size();
        const std::span<Rng> out(streams.data() + std::size_t(c) * S, S);
        for (std::size_t s = 0; s < S; ++s)
            out[s] = Rng::stream(seed, a, b, tag + (std::uint64_t(c) << 32) + s);
        return out;
    }
};

// Per-thread scratch of the local steps.
struct LocalScratch
{
    Eigen::MatrixXd weights;
    Eigen::ArrayXd gradient, entropy;
};

BlackBoxVi::BlackBoxVi(const BlackBoxModel& model, const BbviOptions& options, std::uint64_t seed)
    : m_model(model), m_options(options.checked()), m_seed(seed),
      m_sampler(std::max<std::int64_t>(model.itemCount(), 1), options.minibatch, seed),
      m_optimizer(options.optimizer), m_draws(std::make_unique<Draws>())
{
    if (model.itemCount() < 1)
        throw std::invalid_argument("black-box VI: the model has no items to fit");
    if (model.globals().empty() && model.locals().empty())
        throw std::invalid_argument("black-box VI: the model has no latent variables");
    if (m_options.estimator == BbviEstimator::Reparam &&
        (!model.hasGradient() || !model.globals().reparameterisable() ||
         !model.locals().reparameterisable()))
        throw std::invalid_argument(fieldError(
            "estimator", "reparam",
            "needs a model with gradients and a normal, log-normal or gamma q of every variable"));
    m_global.resize(model.globals().parameters());
    m_local.resize(model.locals().parameters(), model.itemCount());
    m_localSquares = Eigen::MatrixXd::Zero(m_local.rows(), m_local.cols());
    model.start(m_global, m_local, seed);
    m_gradient = Eigen::ArrayXd::Zero(m_global.size());
}

BlackBoxVi::~BlackBoxVi() = default;

void BlackBoxVi::drawAll(std::span<const std::int64_t> items, std::uint64_t purpose,
                         std::uint64_t id, int round, bool wantGlobal, bool wantItems,
                         bool wantGradient, Draws& d) const
{
    const QLayout& g = m_model.globals();
    const QLayout& l = m_model.locals();
    const Eigen::Index vl = l.variables(), pl = l.parameters();
    const int S = int(d.sums.size());
    const bool reparam = wantGradient && m_options.estimator == BbviEstimator::Reparam;
    // The draws, variable by variable (what a variable's S draws share is computed once), in
    // fixed chunks of variables (or items) with a stream per chunk and draw: the same draws
    // whatever the thread count.
    if (round == 0)
        forChunks(
            g.variables(),
            [&](int c, std::int64_t begin, std::int64_t end) {
                const std::span<Rng> streams = d.chunkStreams(c, m_seed, purpose * 2, id, 0);
                if (reparam)
                    g.pathMany(m_global, begin, end, streams, d.zGlobal, d.logQGlobal,
                               d.scoreGlobal);
                else
                    g.drawMany(m_global, begin, end, streams, d.zGlobal, d.logQGlobal,
                               d.scoreGlobal);
            },
            g.variables() * S >= kParallelDrawWork);
    if (vl > 0)
        forChunks(
            std::int64_t(items.size()),
            [&](int c, std::int64_t begin, std::int64_t end) {
                const std::span<Rng> streams =
                    d.chunkStreams(c, m_seed, purpose * 2 + 1, id, std::uint64_t(round) << 48);
                for (std::int64_t j = begin; j < end; ++j) {
                    const auto lambda = m_local.col(items[std::size_t(j)]).array();
                    auto z = d.zLocal.middleRows(j * vl, vl);
                    auto logQ = d.logQLocal.middleRows(j * vl, vl);
                    auto score = d.scoreLocal.middleRows(j * pl, pl);
                    if (reparam)
                        l.pathMany(lambda, 0, vl, streams, z, logQ, score);
                    else
                        l.drawMany(lambda, 0, vl, streams, z, logQ, score);
                }
            },
            vl * S * Eigen::Index(items.size()) >= kParallelDrawWork);
    // The model's factors at each draw: spread over threads when a draw's work is worth it
    // (measured at the first call, serially).
    const bool measure = m_drawSeconds < 0.0;
    const double perItem = double(std::max<std::size_t>(items.size(), 1));
    const bool parallel =
        !measure && m_model.concurrentFactors() && m_drawSeconds * perItem > kParallelSeconds;
    const Clock::time_point t0 = Clock::now();
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (int s = 0; s < S; ++s) {
        FactorSums& f = d.sums[std::size_t(s)];
        f.global = f.items = 0.0;
        f.wantGlobal = wantGlobal;
        if (wantGlobal)
            f.globalBlanket.setZero();
        f.wantItemBlanket = wantItems;
        if (wantItems)
            f.itemBlanket.setZero();
        f.localBlanket.setZero();
        f.wantGradient = reparam;
        if (reparam) {
            f.globalGradient.setZero();
            f.itemGradient.setZero();
            f.localGradient.setZero();
        }
        m_model.factors(items, d.zGlobal.col(s).array(), d.zLocal.col(s).array(), f);
    }
    if (measure)
        m_drawSeconds = secondsSince(t0) / (S * perItem);
}

void BlackBoxVi::localStep(std::span<const std::int64_t> items, Draws& d)
{
    const QLayout& l = m_model.locals();
    const Eigen::Index vl = l.variables(), pl = l.parameters();
    const int S = int(d.sums.size());
    // The plain weight of a local variable: the whole log joint of the minibatch as if it
    // were the data (unscaled: an item's own terms enter once), less the whole log q.
    Eigen::ArrayXd& whole = d.whole;
    if (!m_options.raoBlackwell && m_options.estimator == BbviEstimator::Score)
        for (int s = 0; s < S; ++s)
            whole[s] = d.sums[std::size_t(s)].global + d.sums[std::size_t(s)].items -
                       d.logQGlobal.col(s).sum() - d.logQLocal.col(s).sum();
    static thread_local LocalScratch scratch;
    const double rate = m_options.localRate;
    const bool reparam = m_options.estimator == BbviEstimator::Reparam;
#pragma omp parallel for schedule(static) if (pl * S * Eigen::Index(items.size()) >=               \
                                              kParallelLocalWork)
    for (std::int64_t j = 0; j < std::int64_t(items.size()); ++j) {
        LocalScratch& ws = scratch;
        ws.weights.resize(vl, S);
        ws.gradient.resize(pl);
        for (int s = 0; s < S; ++s)
            for (Eigen::Index v = 0; v < vl; ++v)
                ws.weights(v, s) = reparam ? d.sums[std::size_t(s)].localGradient[j * vl + v]
                                   : m_options.raoBlackwell
                                       ? d.sums[std::size_t(s)].localBlanket[j * vl + v] -
                                             d.logQLocal(j * vl + v, s)
                                       : whole[s];
        const Eigen::Index i = items[std::size_t(j)];
        estimate(l, m_local.col(i).array(), d.scoreLocal.middleRows(j * pl, pl), ws.weights,
                 ws.gradient, ws.entropy);
        // AdaGrad, the item's own sums of squares kept across its visits.
        auto squares = m_localSquares.col(i).array();
        squares += ws.gradient.square();
        m_local.col(i).array() += rate * ws.gradient / (kAdaGradEpsilon + squares.sqrt());
    }
}

void BlackBoxVi::globalWeights(std::int64_t batch, Draws& d) const
{
    const double scale = double(m_model.itemCount()) / double(std::max<std::int64_t>(batch, 1));
    const int S = int(d.sums.size());
    for (int s = 0; s < S; ++s) {
        const FactorSums& f = d.sums[std::size_t(s)];
        if (m_options.estimator == BbviEstimator::Reparam) {
            d.weights.col(s) = (f.globalGradient + scale * f.itemGradient).matrix();
        } else if (m_options.raoBlackwell) {
            d.weights.col(s) =
                (f.globalBlanket + scale * f.itemBlanket - d.logQGlobal.col(s).array()).matrix();
        } else {
            const double whole = f.global + scale * f.items - d.logQGlobal.col(s).sum() -
                                 scale * d.logQLocal.col(s).sum();
            d.weights.col(s).setConstant(whole);
        }
    }
}

void BlackBoxVi::estimate(
    const QLayout& layout, const Eigen::Ref<const Eigen::ArrayXd>& lambda,
    const Eigen::Ref<const Eigen::MatrixXd>& scores,
    const Eigen::Ref<const Eigen::MatrixXd>& weights,
    Eigen::Ref<Eigen::ArrayXd> gradient, // NOLINT(performance-unnecessary-value-param)
    Eigen::ArrayXd& entropy) const
{
    if (m_options.estimator == BbviEstimator::Score) {
        scoreGradient(layout, scores, weights, m_options.controlVariate, gradient);
        return;
    }
    entropy.resize(layout.parameters());
    layout.entropyGradient(lambda, entropy);
    pathGradient(layout, scores, weights, entropy, gradient);
}

double BlackBoxVi::step(std::int64_t t)
{
    const std::vector<std::int64_t>& batch = m_sampler.next();
    const std::span<const std::int64_t> items(batch);
    Draws& d = *m_draws;
    d.prepare(m_model.globals(), m_model.locals(), m_options.draws, std::int64_t(items.size()));
    const int rounds = m_model.locals().empty() ? 0 : m_options.localSteps;
    for (int r = 0; r <= rounds; ++r) {
        // The last round's draws feed the global step; a local round needs the global factors
        // only for the score function's plain weight.
        const bool last = r == rounds;
        const bool plain = !m_options.raoBlackwell && m_options.estimator == BbviEstimator::Score;
        drawAll(items, kStep, std::uint64_t(t), r, last || plain, last, true, d);
        if (r < rounds)
            localStep(items, d);
    }
    globalWeights(std::int64_t(items.size()), d);
    estimate(m_model.globals(), m_global, d.scoreGlobal, d.weights, m_gradient, d.entropy);
    const double rate = m_optimizer.rate();
    if (m_global.size() > 0)
        m_optimizer.ascend(m_global, m_gradient);
    return rate;
}

// A writable Eigen::Ref is a view, passed by value as Eigen advises.
void BlackBoxVi::globalGradient(
    std::span<const std::int64_t> items, std::uint64_t id,
    Eigen::Ref<Eigen::ArrayXd> gradient) const // NOLINT(performance-unnecessary-value-param)
{
    Draws d;
    globalGradient(items, id, gradient, d);
}

void BlackBoxVi::globalGradient(
    std::span<const std::int64_t> items, std::uint64_t id,
    Eigen::Ref<Eigen::ArrayXd> gradient, // NOLINT(performance-unnecessary-value-param)
    Draws& d) const
{
    d.prepare(m_model.globals(), m_model.locals(), m_options.draws, std::int64_t(items.size()));
    drawAll(items, kVarianceDraws, id, 0, true, true, true, d);
    globalWeights(std::int64_t(items.size()), d);
    estimate(m_model.globals(), m_global, d.scoreGlobal, d.weights, gradient, d.entropy);
}

double BlackBoxVi::gradientVariance(int repeats, std::uint64_t evaluation) const
{
    if (repeats < 2 || m_global.size() == 0)
        return std::numeric_limits<double>::quiet_NaN();
    std::vector<std::int64_t> all(std::size_t(m_model.itemCount()));
    std::iota(all.begin(), all.end(), std::int64_t(0));
    Eigen::MatrixXd g(m_global.size(), repeats);
    Draws d; // one scratch for every repeat: their minibatches are of one size
    for (int r = 0; r < repeats; ++r) {
        const std::vector<std::int64_t> items =
            seededSubset(all, std::size_t(m_options.minibatch),
                         Rng::stream(m_seed, kVarianceItems, evaluation, std::uint64_t(r)));
        globalGradient(items, (evaluation << 16) + std::uint64_t(r), g.col(r).array(), d);
    }
    const Eigen::VectorXd mean = g.rowwise().mean();
    return (g.colwise() - mean).squaredNorm() / double(repeats - 1);
}

BlackBoxVi::Bound BlackBoxVi::bound(int samples, std::int64_t items, std::uint64_t evaluation) const
{
    const std::int64_t N = m_model.itemCount();
    std::vector<std::int64_t> chosen(static_cast<std::size_t>(N));
    std::iota(chosen.begin(), chosen.end(), std::int64_t(0));
    if (items > 0 && items < N)
        chosen = seededSubset(chosen, std::size_t(items), Rng::stream(m_seed, kEvalItems));
    Draws d;
    d.prepare(m_model.globals(), m_model.locals(), std::max(samples, 1),
              std::int64_t(chosen.size()));
    drawAll(chosen, kBound, evaluation, 0, true, false, false, d);
    Bound b;
    b.items = std::int64_t(chosen.size());
    for (std::size_t s = 0; s < d.sums.size(); ++s) {
        const Eigen::Index c = Eigen::Index(s);
        b.global += d.sums[s].global - d.logQGlobal.col(c).sum();
        b.local += d.sums[s].items - d.logQLocal.col(c).sum();
    }
    b.global /= double(d.sums.size());
    b.local /= double(d.sums.size());
    return b;
}

void BlackBoxVi::visitState(StateArchive& a)
{
    a.field("global", m_global);
    a.field("local", m_local);
    a.field("local_squares", m_localSquares);
    a.field("optimizer", m_optimizer);
    a.field("sampler", m_sampler);
}

} // namespace svi
