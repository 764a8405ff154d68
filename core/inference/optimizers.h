#pragma once
// Gradient-ascent update rules, as small pieces a trainer owns one of per parameter block (the
// shape of ensmallen's update policies).
//
// Paper 002 uses AdaGrad with a global rate of 1.0 for every update that is not a
// natural-gradient one (class AdaGrad). Paper 003 (Sec. 2.4) tunes its SGVB steps with plain
// SGD, momentum, AdaGrad, RMSprop and AdaDelta; Adam is added as the default people expect
// today. Those are class Optimizer, configured by OptimizerOptions, whose keys every model
// fitted by gradient ascent declares (the window's picker, `--set optimizer=…`).
//
// Thread-safety: values; driven by the trainer's thread. Nothing allocates after the first call.

#include "core/base/param_fields.h"
#include "core/base/state_archive.h"

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace svi {

// AdaGrad (Duchi, Hazan & Singer 2011), ascent: x ← x + η g / (√(Σ_t g_t²) + ε), elementwise,
// the sum over every gradient seen so far. Coordinates whose gradients have always been zero do
// not move. The first call fixes the size.
class AdaGrad
{
public:
    explicit AdaGrad(double rate = 1.0, double epsilon = 1e-8) : m_rate(rate), m_eps(epsilon) {}
    // Throws std::invalid_argument when g's size differs from x's or from earlier calls'.
    void ascend(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g);
    // The same for a matrix parameter (its entries in storage order).
    void ascend(Eigen::MatrixXd& x, const Eigen::MatrixXd& g);
    double rate() const { return m_rate; }
    std::int64_t steps() const { return m_steps; }
    // Checkpoints: the step count and the sums of squares.
    void visitState(StateArchive& a);

private:
    double m_rate;
    double m_eps;
    std::int64_t m_steps = 0;
    Eigen::ArrayXd m_sumSq;
};

enum class OptimizerKind { Sgd, AdaGrad, RmsProp, AdaDelta, Adam };

// "sgd" / "adagrad" / "rmsprop" / "adadelta" / "adam" (the registry's choice names); fromName
// throws std::invalid_argument naming the field "optimizer" for anything else.
std::string optimizerName(OptimizerKind kind);
OptimizerKind optimizerFromName(const std::string& name);

// The settings of class Optimizer. With v the gradient after momentum (v ← λ v + (1 − λ) g;
// λ = 0: v = g) and γ_t = rate · (1 + t/τ)^(−κ) at the t-th step (t = 0, 1, …):
//   sgd       x ← x + γ_t v
//   adagrad   S ← S + v²;                 x ← x + γ_t v / (10⁻⁶ + √S)
//   rmsprop   m ← d m + (1 − d) v²;       x ← x + γ_t v / (10⁻⁶ + √m)
//   adadelta  m_g ← ρ v² + (1 − ρ) m_g;   Δ = γ_t v √(m_x + ε) / √(m_g + ε);   x ← x + Δ;
//             m_x ← ρ Δ² + (1 − ρ) m_x
//   adam      (Kingma & Ba 2015) on g, momentum unused: m ← β1 m + (1 − β1) g,
//             s ← β2 s + (1 − β2) g², x ← x + γ_t m̂ / (√ŝ + 10⁻⁸) with the bias corrections.
// Paper 003's constants are the defaults: AdaGrad's 0.1 and 10⁻⁶, RMSprop's 0.01, 0.9 and
// 10⁻⁶, AdaDelta's ε = 10⁻⁴. Its ρ is the weight of the newest square, as it writes it (Zeiler
// and most libraries call 1 − ρ the decay). Its text writes momentum as v ← λ g + (1 − λ) v,
// but its Figure 2 reads 1 − λ as the new gradient's weight ("1 − λ = 1 means that only the
// current gradient is used"), which is the form above, and that of its code.
struct OptimizerOptions : DeclaredOptions<OptimizerOptions>
{
    OptimizerOptions() { readDefaults(); }

    OptimizerKind kind{};
    double rate{};      // γ_0; 0 = the optimizer's own (ownRate)
    double rateKappa{}; // κ ≥ 0; 0 = a constant rate
    double rateTau{};   // τ > 0, in steps
    double momentum{};  // λ in [0, 1)
    double rmspropDecay{};
    double adadeltaRho{};
    double adadeltaEpsilon{};
    double adamBeta1{};
    double adamBeta2{};

    // The declarations, with a model's default optimizer, momentum (paper 003's EPM and GPFA
    // runs: AdaDelta with λ = 0.9), rate (0: the optimizer's own) and its decay κ.
    static ParamFields<OptimizerOptions> declare(OptimizerKind kind = OptimizerKind::AdaDelta,
                                                 double momentum = 0.0, double rate = 0.0,
                                                 double kappa = 0.0);
    static const ParamFields<OptimizerOptions>& fields();
    // The rate `kind` uses when `rate` is 0: sgd 0.001, adagrad 0.1, rmsprop 0.01 and adadelta
    // 1 (paper 003 and its code), adam 0.01.
    static double ownRate(OptimizerKind kind);
    double baseRate() const { return rate > 0.0 ? rate : ownRate(kind); }
};

// One optimizer's state for one parameter vector (whose size the first call fixes).
class Optimizer
{
public:
    // Throws std::invalid_argument naming the field of an option out of range.
    explicit Optimizer(const OptimizerOptions& options = {});
    // One ascent step along g. Throws std::invalid_argument when g's size differs from x's or
    // from earlier calls'.
    void ascend(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g);
    // γ_t of the next step.
    double rate() const;
    std::int64_t steps() const { return m_steps; }
    const OptimizerOptions& options() const { return m_options; }
    // Checkpoints: the step count and the running moments.
    void visitState(StateArchive& a);

private:
    OptimizerOptions m_options;
    std::int64_t m_steps = 0;
    Eigen::ArrayXd m_velocity; // momentum's v
    Eigen::ArrayXd m_first;    // adagrad S, rmsprop m, adadelta m_g, adam s
    Eigen::ArrayXd m_second;   // adadelta m_x, adam m
    Eigen::ArrayXd m_step;     // scratch
};

} // namespace svi
