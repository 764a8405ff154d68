#pragma once
// Gaussian matrix factorization of ratings (users × items), fitted by batch variational Bayes:
// the Gaussian baseline that paper 004 (§2.7, Table 1) compares Poisson factorization with.

#include "core/run/registry.h"

namespace svi {

// Registers model "gmf" with algorithm "batch"; count (ratings) data only.
void registerGaussianMf(Registry& registry);

} // namespace svi
