#pragma once
// The Bayesian generalized linear model of paper 002 (Sheth & Khardon, Sec. 3.3, experiment
// 4.1): w ~ N(0, σ_p² I), f_i = x_iᵀw, y_i ~ p(y | f_i) (logistic, probit, Poisson or
// Gaussian), fitted by MC-SSVI, H-MC-SSVI, S-DSVI (minibatches scaled by N/|M|) and batch
// H-MC-SSVI, on labelled data. The bound (3) is optimal for a GLM (the model is in 2L-LVMd).

#include "core/run/registry.h"

namespace svi {

enum class GlmAlgorithm {
    McSsvi,       // natural-gradient steps of mean and covariance, eq. 24–25
    HybridMcSsvi, // covariance by eq. 24, mean by the gradient eq. 63 (AdaGrad)
    SDsvi,        // mean by eq. 63, Cholesky factor by eq. 64 (AdaGrad)
    BatchHybrid   // H-MC-SSVI on every training row each step
};

// Registers model "glm" with algorithms "h-mc-ssvi", "mc-ssvi", "s-dsvi" and
// "h-mc-ssvi-batch"; labelled data only.
void registerGlm(Registry& registry);

// The metrics of a supervised model: test NLL per example (the headline), the zero-one error
// for class labels, the RMSE for values.
std::vector<MetricSpec> supervisedMetrics();

} // namespace svi
