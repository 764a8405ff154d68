#pragma once
// The algorithms of paper 002 for a Gaussian q(w) = N(m, S) (Sec. 3.3, App. A.1), as one rule
// each that turns the minibatch's scaled derivatives g, Γ (LgmGradients) into a new q: what the
// GLM, GME and the sparse GP apply to their one q(w), and generalized PMF to each column of U
// and V in turn.
//
// Thread-safety: lgmUpdate changes only its arguments; call it on one q from one thread.

#include "core/inference/gaussian_q.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"

#include <vector>

namespace svi {

enum class LgmAlgorithm {
    McSsvi,       // natural-gradient steps of mean and covariance, eq. 24–25
    HybridMcSsvi, // covariance by eq. 24, mean by the gradient eq. 63 (AdaGrad)
    SDsvi,        // mean by eq. 63, Cholesky factor by eq. 64 (AdaGrad)
    BatchHybrid,  // H-MC-SSVI on every training row each step
    FixedPoint    // MC-SSVI on every training row with a constant ρ (the damping): with exact
                  // estimates and ρ = 1, the fixed-point (closed-form) solution of Sec. 2.3
};

// Whether the algorithm's steps see every training row.
inline bool batchSteps(LgmAlgorithm a)
{
    return a == LgmAlgorithm::BatchHybrid || a == LgmAlgorithm::FixedPoint;
}

// Whether the algorithm takes natural-gradient steps (its extra globals then follow theirs too).
inline bool naturalSteps(LgmAlgorithm a)
{
    return a != LgmAlgorithm::SDsvi;
}

// One update of q by the algorithm's rule from the scaled derivatives `grads`:
//   - McSsvi, FixedPoint: the natural step of mean and covariance with step size ρ;
//   - HybridMcSsvi, BatchHybrid: the mean by AdaGrad along eq. 63 (at the current q), then the
//     covariance by the natural step with ρ;
//   - SDsvi: the mean (eq. 63) and the Cholesky factor (eq. 64) by AdaGrad.
// `meanOpt` and `rootOpt` hold AdaGrad's state (rootOpt is read by SDsvi only). Returns the
// step size used: the ρ of the natural step after any halving (0 when q could not move), or
// AdaGrad's rate for SDsvi.
double lgmUpdate(LgmAlgorithm algorithm, GaussianQ& q, const LgmGradients& grads,
                 const GaussianPrior& prior, double rho, AdaGrad& meanOpt, AdaGrad& rootOpt);

// The natural steps' sizes of a model's Gaussian q's: its one q (the GLM's q(w)), or many, each
// stepped at its own visits (a correlated topic model's q(η_d), a generalized PMF column's q):
// ρ = (n + τ0)^−κ at a q's n-th visit (or step), or the adaptive rate (Ranganath et al. 2013)
// of that q alone — averages of its own
// natural gradients (GaussianQ::naturalGradient, the direction of lgmUpdate's natural step),
// started at its first visit from adaptive_init gradients at its initial value. The averages
// cost one natural gradient per q (diagonal: 2D doubles; full: D² + D).
// Thread-safety: a value, driven by the trainer's thread.
class QStepSizes
{
public:
    QStepSizes() = default;
    QStepSizes(const StepSizeOptions& options, std::size_t count);
    bool adaptive() const { return m_options.schedule == StepSchedule::Adaptive; }
    // Whether q `i` still needs warm-up gradients before its first step.
    bool needsWarmUp(std::size_t i) const;
    // A stream key for the next warm-up draw, apart from every step's t (< 2⁶²).
    std::uint64_t nextWarmUpKey() { return (std::uint64_t(1) << 62) + std::uint64_t(++m_warmUps); }
    // Adds the natural gradient of `algorithm`'s step of q `i` (`q`) from `grads` to its
    // warm-up averages; q does not move.
    void warmUp(std::size_t i, LgmAlgorithm algorithm, GaussianQ& q, const LgmGradients& grads,
                const GaussianPrior& prior);
    // Robbins–Monro's ρ at a q's n-th visit.
    double scheduled(std::int64_t n) const
    {
        return RobbinsMonro{m_options.kappa, m_options.tau0}.rho(n);
    }
    // Adaptive: q `i`'s rate after adding the natural gradient of this step (as warmUp's) to its
    // averages.
    double rho(std::size_t i, LgmAlgorithm algorithm, GaussianQ& q, const LgmGradients& grads,
               const GaussianPrior& prior);
    // Checkpoints: every q's averages and the warm-up count (the settings come from the run).
    void visitState(StateArchive& a);

private:
    StepSizeOptions m_options;
    std::vector<AdaptiveRate> m_rates; // adaptive only
    std::uint64_t m_warmUps = 0;
    Eigen::VectorXd m_natural; // scratch
};

} // namespace svi
