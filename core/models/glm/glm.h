#pragma once
// The Bayesian generalized linear model of paper 002 (Sheth & Khardon, Sec. 3.3, experiment
// 4.1): w ~ N(0, σ_p² I), f_i = x_iᵀw, y_i ~ p(y | f_i) (logistic, probit, Poisson or
// Gaussian), fitted by MC-SSVI, H-MC-SSVI, S-DSVI (minibatches scaled by N/|M|) and batch
// H-MC-SSVI, on labelled data. The bound (3) is optimal for a GLM (the model is in 2L-LVMd).

#include "core/run/registry.h"

namespace svi {

// Registers model "glm" with algorithms "h-mc-ssvi", "mc-ssvi", "s-dsvi" and
// "h-mc-ssvi-batch"; labelled data only.
void registerGlm(Registry& registry);

} // namespace svi
