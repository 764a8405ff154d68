#pragma once
// Stochastic gradient variational Bayes over positive latent variables (paper 003): a model
// gives its log joint log f(x) and gradient ∂ log f/∂x at any x ∈ (0, ∞)^P; this fits a fully
// factorised q by gradient ascent on the evidence lower bound E_q[log f(x)] + H[q], one
// reparameterised draw per step (eq. 4 with S = 1, Algorithm 1), or maximises log f itself.
//
//   Gamma  q(x_i) = Gamma(a_i, b_i), a = r(α), b = r(β) with r the softplus (Sec. 2.4), x drawn
//          through the inverse CDF (core/inference/gamma_reparam.h): "gamma SGVB".
//   Normal q(θ_i) = N(m_i, s_i²), s = r(σ), x = r(θ): the factorised normal on the softplus of
//          the variables that the paper calls NormSGVB (the ADVI-style baseline); the bound
//          then carries the map's log Jacobian, Σ log σ(θ_i).
//   Map    x = r(θ) by gradient ascent on log f(x): the MAP baseline.
//
// The entropy's part of the gradient is either the path derivative of −log q at the draw, as
// Algorithm 1 prints it (g = ∇ₓ[log f − log q] times ∂x/∂θ; the score term, zero in
// expectation, dropped), or its closed form (∂H/∂a = 1 + (1 − a) ψ′(a), ∂H/∂b = −1/b). Both are
// unbiased (the tests check it). The path form is the default: its noise vanishes as q nears
// the posterior (exactly at a gamma posterior), so a Poisson–gamma posterior is recovered to
// four digits in 20,000 AdaDelta steps where the closed form is still 9 % off.
//
// The draws of a step come from the streams (seed, step, chunk), so a run is the same whatever
// the thread count. Thread-safety: a value driven by its trainer's thread; step() and elbo()
// use OpenMP inside and call the model from that thread only.
//
// On several ranks a trainer takes a step in parts (StagedTrainer): every rank draws the same x
// (drawStep), the model sums the terms of its share of its items (PositiveModel::itemTerms),
// those sums are summed over the ranks, and every rank finishes log f and its gradient from
// them (fromItemTerms) and takes the same optimizer step (ascend).

#include "core/base/communicator.h"
#include "core/inference/optimizers.h"
#include "core/math/logistic.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <string>

namespace svi {

// r(θ) = softplus(θ) of a shape, a rate or a standard deviation, floored: r of a very negative θ
// would otherwise reach 0, where the gamma is no distribution (the paper's code floors them at
// 10⁻⁶).
inline constexpr double kPositiveFloor = 1e-8;
inline double flooredSoftplus(double theta)
{
    return std::max(softplus(theta), kPositiveFloor);
}

// A model over positive latent variables, as SGVB sees it.
class PositiveModel
{
public:
    virtual ~PositiveModel() = default;
    virtual Eigen::Index size() const = 0;
    // log f(x) and ∂ log f/∂x into grad (sized P by the caller), at x > 0 elementwise.
    virtual double logJoint(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const = 0;

    // The log joint in two parts, for a run on several ranks: the terms that sum over the
    // model's itemCount() items (the EPM's nodes, GPFA's incomplete rows), of the items of
    // `part` only, into buffers listed in `statistic` (zero for the other items' parts), so
    // that their sums over the ranks' parts are the whole's; then log f and its gradient from
    // those sums. logJoint(x, grad) is the two over every item. By default there is no item
    // term: everything is computed from x alone, on every rank.
    virtual std::int64_t itemCount() const { return 0; }
    virtual void itemTerms(const Eigen::ArrayXd& x, Shard part, GlobalStatistic& statistic) const
    {
        (void)x, (void)part, (void)statistic;
    }
    virtual double fromItemTerms(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const
    {
        return logJoint(x, grad);
    }

    // For black-box VI's Rao-Blackwellisation (core/inference/black_box.h): the Markov blanket
    // of each variable at x, the sum of the factors of log f that hold x_i, written into
    // blanket (sized size()); returns log f(x). By default every variable's blanket is the
    // whole log f (which Rao-Blackwellises nothing).
    virtual double blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const;
};

enum class SgvbMethod { Gamma, Normal, Map };
enum class EntropyGradient { Analytic, Sampled };

// "analytic" / "sampled" (the registry's choice names); fromName throws std::invalid_argument
// naming the field "entropy" for anything else.
std::string entropyGradientName(EntropyGradient e);
EntropyGradient entropyGradientFromName(const std::string& name);

// The settings every model fitted by PositiveSgvb declares: the optimizer's (optimizers.h), how
// the entropy's gradient is taken (gamma only) and how many draws estimate the bound at an
// evaluation. One declaration for every such model (the window's form, `--set`, run.json).
struct SgvbOptions : DeclaredOptions<SgvbOptions>
{
    SgvbOptions() { readDefaults(); }

    OptimizerOptions optimizer;
    EntropyGradient entropy{};
    int elboSamples{};     // draws of q per bound estimate at an evaluation
    int varianceRepeats{}; // one-draw gradients whose spread is the variance metric; 0: off

    // The declarations for `method` (entropy only for the gamma), with paper 003's default
    // optimizer: AdaDelta with momentum λ = 0.9 (its Figures 1–2).
    static ParamFields<SgvbOptions> declare(SgvbMethod method);
    static const ParamFields<SgvbOptions>& fields();
};

class PositiveSgvb
{
public:
    // q starts with the given means and variances per variable (moment-matched: a = m²/v,
    // b = m/v; the normal's θ at r⁻¹(m) with sd √v/σ(θ); MAP at x = m). Throws
    // std::invalid_argument on sizes that differ or values not positive.
    PositiveSgvb(SgvbMethod method, const Eigen::ArrayXd& mean, const Eigen::ArrayXd& variance,
                 const OptimizerOptions& optimizer, std::uint64_t seed,
                 EntropyGradient entropy = EntropyGradient::Sampled);

    // One draw, its gradient and one optimizer step (t counts from 1). Returns the one-draw
    // estimate of the bound at q before the step (MAP: log f(x)).
    double step(const PositiveModel& model, std::int64_t t);
    // step() in parts: drawStep(t) draws x of step t (the same on every rank) and returns it
    // (drawn() until the next draw); the caller puts ∂ log f/∂x at x into gradient(), and
    // ascend(log f(x)) takes the optimizer step and returns what step() does.
    const Eigen::ArrayXd& drawStep(std::int64_t t);
    const Eigen::ArrayXd& drawn() const { return m_x; }
    Eigen::ArrayXd& gradient() { return m_grad; }
    double ascend(double logF);
    // The bound estimated from `samples` draws of the streams (seed, evaluation id); MAP: log f
    // at its point, whatever `samples`. On several ranks (`ranks`) each draw's item terms are
    // split over them (PositiveModel::itemTerms) and summed: a collective.
    double elbo(const PositiveModel& model, int samples, std::uint64_t evaluation,
                Communicator& ranks = localCommunicator()) const;
    // The trace of the covariance of the one-draw gradient estimate of q's parameters (what
    // the optimizer is given) at the current q, from `repeats` draws of the streams of
    // `evaluation`, each with the model's log joint over all its items (GPFA: at the minibatch
    // its key holds): the gradient-variance metric beside black-box VI's. NaN when repeats < 2
    // and for MAP (no draw).
    double gradientVariance(const PositiveModel& model, int repeats,
                            std::uint64_t evaluation) const;
    // A draw of x from q (the point, for MAP), from the stream (seed, id, draw).
    void draw(std::uint64_t id, std::uint64_t drawIndex, Eigen::ArrayXd& x) const;
    // E_q[x] (the normal's by 20-point Gauss–Hermite; MAP: the point).
    Eigen::ArrayXd mean() const;
    // The gamma's shapes and rates (Gamma only; empty otherwise).
    Eigen::ArrayXd shapes() const;
    Eigen::ArrayXd rates() const;
    // H[q] (with the normal's log Jacobian folded into the bound, not here); 0 for MAP.
    double entropy() const;

    // The unconstrained parameters the optimizer steps: [α; β] with a = r(α), b = r(β) (gamma),
    // [m; σ] with s = r(σ) (normal), θ with x = r(θ) (MAP).
    const Eigen::ArrayXd& parameters() const { return m_theta; }
    SgvbMethod method() const { return m_method; }
    Eigen::Index size() const { return m_size; }
    bool diverged() const { return !m_theta.allFinite(); }
    const Optimizer& optimizer() const { return m_optimizer; }
    // Checkpoints: q's parameters and the optimizer's state.
    void visitState(StateArchive& a);

private:
    // x (and what the gradient needs) of one draw from the streams (seed, a, b, chunk).
    void drawInto(std::uint64_t a, std::uint64_t b);
    double boundAtDraw(double logF) const;
    // The gradient of q's parameters at a draw (x, aux, dLog) whose ∂ log f/∂x is gradX.
    void parameterGradient(const Eigen::ArrayXd& x, const Eigen::ArrayXd& aux,
                           const Eigen::ArrayXd& dLog, const Eigen::ArrayXd& gradX,
                           Eigen::ArrayXd& g) const;

    SgvbMethod m_method;
    EntropyGradient m_entropy;
    Eigen::Index m_size;
    std::uint64_t m_seed;
    Eigen::ArrayXd m_theta; // unconstrained: [α; β] (gamma), [m; σ] (normal), θ (MAP)
    Optimizer m_optimizer;
    // Scratch of a draw, sized once.
    Eigen::ArrayXd m_x, m_aux, m_dLog, m_grad, m_g;
};

} // namespace svi
