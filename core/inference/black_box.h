#pragma once
// Black-box variational inference (paper 004, §2.5, Algorithm 2; Ranganath, Gerrish & Blei,
// AISTATS 2014): the gradient of the bound L(λ) = E_q[log p(x, z) − log q(z | λ)] estimated
// from S draws of q by the score function,
//
//   ∇_λ L = E_q[∇_λ log q(z | λ) (log p(x, z) − log q(z | λ))],
//
// which needs nothing of the model but its log joint at a draw: no conjugacy, no expectations,
// discrete latent variables too. Two devices make it usable (the paper's §3):
//   - Rao-Blackwellisation: the gradient of variable i's λ_i uses only the factors of its
//     Markov blanket, log p_i(x, z_(i)) = the sum of the factors that hold z_i, and its own
//     log q_i (the other terms have zero mean against ∇ log q_i; they only add noise). Off, every
//     variable's weight is the whole log p − log q: the plain Algorithm 2.
//   - Control variates: with f_d = ∇_d log q_i · (log p_i − log q_i) and h_d = ∇_d log q_i
//     (E[h] = 0) for the entries d of λ_i, the estimate is mean_s(f_d − a*_i h_d), with
//     a*_i = Σ_d Cov(f_d, h_d) / Σ_d Var(h_d) estimated from the same S draws (the paper's
//     eq. 9, one scale per variable pooled over its entries).
// Steps are taken by the SGVB engine's optimizers (RMSprop by default, the paper's AdaGrad a
// choice: see BbviOptions::declare).
//
// A model with local variables (one set per item: a subject's random effect, a user's
// factors) is fitted as the paper's stochastic version: each step draws a minibatch B of the N
// items, takes `local_steps` score-function steps of each item's local λ (AdaGrad, kept across
// visits), then one step of the global λ, whose item factors are scaled by N/|B|.
//
// Draws come from the streams (seed, purpose, step, draw), so a run is the same whatever the
// thread count (the draws of a step are spread over threads). Thread-safety: an engine is driven
// by its trainer's thread; it calls the model's factors() from several threads at once.

#include "core/base/param_fields.h"
#include "core/base/state_archive.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"
#include "core/inference/score_families.h"

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace svi {

// The log joint at one draw, in the parts BBVI takes apart. The engine zeroes every field
// before a call; the model adds.
struct FactorSums
{
    // The factors that hold global variables only (their priors), and per global variable the
    // sum of those that hold it. Only when wanted: a Rao-Blackwellised local step's draws need
    // neither, and a model may then skip them (the items' priors of a factorization, M·K logs).
    double global = 0.0;
    Eigen::ArrayXd globalBlanket;
    bool wantGlobal = true;
    double items = 0.0; // the factors of the items given, unscaled
    // Per global variable: the sum of the given items' factors that hold it (unscaled). Only
    // when wanted (a local step's draws need none).
    Eigen::ArrayXd itemBlanket;
    bool wantItemBlanket = true;
    // Per local variable of the given items (item-major: item j's variables at j·V_local): the
    // sum of the factors that hold it.
    Eigen::ArrayXd localBlanket;
    // The reparameterised estimator's: the gradients ∂/∂z of the global factors (globals, when
    // wantGlobal), of the given items' factors (globals, when wantItemBlanket) and of all
    // factors (the items' locals). Only when wanted, of a model with hasGradient().
    bool wantGradient = false;
    Eigen::ArrayXd globalGradient, itemGradient, localGradient;
};

// A model as BBVI sees it. Thread-safety: factors() is called from several threads at once.
class BlackBoxModel
{
public:
    virtual ~BlackBoxModel() = default;
    // The global variables, and the local variables of one item (the same layout for every
    // item; empty when the model has none).
    virtual const QLayout& globals() const = 0;
    virtual const QLayout& locals() const;
    // N: the items a minibatch is drawn from (rows, subjects, users); ≥ 1.
    virtual std::int64_t itemCount() const = 0;
    // The log joint's factors at a draw: zGlobal (globals().variables()) and zLocal (the
    // locals of `items`, item-major). Adds into `out` (see FactorSums).
    virtual void factors(std::span<const std::int64_t> items,
                         const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                         const Eigen::Ref<const Eigen::ArrayXd>& zLocal, FactorSums& out) const = 0;
    // The start of q: λ of the globals (globals().parameters()) and of every item's locals
    // (a column per item, locals().parameters() rows), both already sized. `seed` for a random
    // start.
    virtual void start(Eigen::ArrayXd& global, Eigen::MatrixXd& local,
                       std::uint64_t seed) const = 0;
    // Whether factors() writes the gradients ∂/∂z when asked (FactorSums::wantGradient): what
    // the reparameterised estimator needs.
    virtual bool hasGradient() const { return false; }
    // Whether factors() may be called from several threads at once (else the engine calls it
    // from its own thread, and the model may parallelise inside).
    virtual bool concurrentFactors() const { return true; }
};

// How the gradient of the bound is estimated: the score function (paper 004's black-box
// gradient, with Rao-Blackwellisation and the control variate as set), or reparameterised
// draws z = T(ε; λ) and the model's ∂ log p/∂z, with the entropy's gradient in closed form
// (the SGVB of papers 002–003; continuous q families only).
enum class BbviEstimator { Score, Reparam };
// "score" / "reparam"; fromName throws std::invalid_argument naming the field "estimator".
std::string bbviEstimatorName(BbviEstimator e);
BbviEstimator bbviEstimatorFromName(const std::string& name);

// The settings of BBVI, declared once for every model it fits (the window's form, `--set`,
// run.json). Defaults of the minibatch and the local steps are the model's.
struct BbviOptions : DeclaredOptions<BbviOptions>
{
    BbviOptions() { readDefaults(); }

    BbviEstimator estimator{};
    int draws{};              // S: draws of q per gradient
    bool raoBlackwell{};      // the Markov blanket of each variable, not the whole joint
    bool controlVariate{};    // the score as its own control variate, scaled by a*
    std::int64_t minibatch{}; // items per step (≥ N: every item)
    int localSteps{};         // score-function steps of an item's local λ per visit
    double localRate{};       // AdaGrad's rate of the local steps
    OptimizerOptions optimizer;
    int elboSamples{};        // draws of q per bound estimate at an evaluation
    std::int64_t evalItems{}; // items of the bound's estimate (0: every item)
    int varianceRepeats{};    // gradient estimates whose spread is the variance metric; 0: off

    // The declarations, with a model's defaults for the minibatch, the local steps (none
    // declared when `hasLocals` is false) and S.
    // `rateKappa` is the decay κ of the optimizer's rate (RMSprop at 0.1): 0 keeps it constant.
    // `reparam`: the model has gradients and continuous q, and the estimator is a choice.
    static ParamFields<BbviOptions> declare(bool hasLocals, std::int64_t minibatch = 100,
                                            int localSteps = 5, int samples = 16,
                                            double rateKappa = 0.0, bool reparam = false);
    static const ParamFields<BbviOptions>& fields();
};

// The score-function gradient of `layout`'s λ from S draws: scores (parameters() × S: column s
// is ∇_λ log q at draw s) and weights (variables() × S: the weight of variable i at draw s,
// log p_i − log q_i with Rao-Blackwellisation, else the whole log p − log q). Writes the
// gradient (parameters()); with `controlVariate`, a* per variable into aStar (if given; 0
// without).
void scoreGradient(const QLayout& layout, const Eigen::Ref<const Eigen::MatrixXd>& scores,
                   const Eigen::Ref<const Eigen::MatrixXd>& weights, bool controlVariate,
                   Eigen::Ref<Eigen::ArrayXd> gradient, Eigen::ArrayXd* aStar = nullptr);

// The reparameterised gradient of `layout`'s λ from S draws: paths (parameters() × S: column s
// is ∂z/∂λ at draw s, QLayout::pathMany), dLogP (variables() × S: ∂ log p/∂z_i at draw s) and
// entropy (∇_λ H[q]): gradient_p = mean_s(dLogP_{i(p), s} · path_{p, s}) + entropy_p.
void pathGradient(const QLayout& layout, const Eigen::Ref<const Eigen::MatrixXd>& paths,
                  const Eigen::Ref<const Eigen::MatrixXd>& dLogP,
                  const Eigen::Ref<const Eigen::ArrayXd>& entropy,
                  Eigen::Ref<Eigen::ArrayXd> gradient);

class BlackBoxVi
{
public:
    // `model` must outlive the engine. Throws std::invalid_argument naming the field of bad
    // options (estimator = reparam of a model without gradients or with a discrete q), or when
    // the model has no items or no variables.
    BlackBoxVi(const BlackBoxModel& model, const BbviOptions& options, std::uint64_t seed);
    ~BlackBoxVi();

    // One step t (t counts from 1): a minibatch, its local steps, one global step. Returns the
    // optimizer's rate γ_t.
    double step(std::int64_t t);
    // The bound estimated from `samples` draws over `items` items (0 or ≥ N: every item; else
    // the first of a fixed order), the local terms scaled by N/n: global terms, then local.
    struct Bound
    {
        double global = 0.0, local = 0.0;
        std::int64_t items = 0;
    };
    Bound bound(int samples, std::int64_t items, std::uint64_t evaluation) const;
    // The trace of the covariance of the global gradient estimate at the current q (a
    // minibatch, S draws, as a step takes it, without its local steps), from `repeats`
    // independent estimates (streams of `evaluation`). NaN when repeats < 2.
    double gradientVariance(int repeats, std::uint64_t evaluation) const;

    const Eigen::ArrayXd& global() const { return m_global; }
    const Eigen::MatrixXd& local() const { return m_local; }
    // The global gradient at the current q over `items` with draws of the stream `id`, without
    // a step: what step() ascends along when `items` is its minibatch and there are no local
    // steps. For the tests (unbiasedness) and the variance metric.
    void globalGradient(std::span<const std::int64_t> items, std::uint64_t id,
                        Eigen::Ref<Eigen::ArrayXd> gradient) const;
    const BbviOptions& options() const { return m_options; }
    std::int64_t epoch() const { return m_sampler.epoch(); }
    bool diverged() const { return !m_global.allFinite(); }
    // Checkpoints: both λs, the optimizers' state, the sampler's position.
    void visitState(StateArchive& a);

private:
    struct Draws; // the scratch of S draws (global and the items' locals)
    // S draws of the globals (at round 0; later rounds of a step keep them) and of the items'
    // locals, and the model's factors at each, the global ones and the items' blankets of the
    // globals only when asked for.
    void drawAll(std::span<const std::int64_t> items, std::uint64_t purpose, std::uint64_t id,
                 int round, bool wantGlobal, bool wantItems, bool wantGradient, Draws& d) const;
    void localStep(std::span<const std::int64_t> items, Draws& d);
    void globalGradient(std::span<const std::int64_t> items, std::uint64_t id,
                        Eigen::Ref<Eigen::ArrayXd> gradient, Draws& d) const;
    void globalWeights(std::int64_t batch, Draws& d) const;
    // The gradient of `layout`'s λ from the draws' scores (or paths) and weights (or ∂ log
    // p/∂z), by the estimator set.
    void estimate(const QLayout& layout, const Eigen::Ref<const Eigen::ArrayXd>& lambda,
                  const Eigen::Ref<const Eigen::MatrixXd>& scores,
                  const Eigen::Ref<const Eigen::MatrixXd>& weights,
                  Eigen::Ref<Eigen::ArrayXd> gradient, Eigen::ArrayXd& entropy) const;

    const BlackBoxModel& m_model;
    BbviOptions m_options;
    std::uint64_t m_seed;
    MinibatchSampler m_sampler;
    Eigen::ArrayXd m_global;
    Eigen::MatrixXd m_local, m_localSquares; // a column per item
    Optimizer m_optimizer;
    std::unique_ptr<Draws> m_draws;
    Eigen::ArrayXd m_gradient;
    // Seconds of one draw (q and the model's factors) per item, measured at the first; −1
    // before.
    mutable double m_drawSeconds = -1.0;
};

} // namespace svi
