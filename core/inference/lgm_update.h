#pragma once
// The algorithms of paper 002 for a Gaussian q(w) = N(m, S) (Sec. 3.3, App. A.1), as one rule
// each that turns the minibatch's scaled derivatives g, Γ (LgmGradients) into a new q: what the
// GLM, GME and the sparse GP apply to their one q(w), and generalized PMF to each column of U
// and V in turn.
//
// Thread-safety: lgmUpdate changes only its arguments; call it on one q from one thread.

#include "core/inference/gaussian_q.h"
#include "core/inference/optimizers.h"

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

} // namespace svi
