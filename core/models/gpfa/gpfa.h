#pragma once
// Gamma process factor analysis (paper 003, Sec. 3.2 and 4.2): non-negative loadings under a
// gamma process prior, Gaussian factors integrated out, fitted by gamma SGVB (and, as the
// paper's baselines, NormSGVB and MAP) on any dense table; with the empirical covariance and
// Ledoit–Wolf shrinkage as algorithms of the same model, so that Compare scores all five on
// the same rows (Figure 5).

#include "core/run/registry.h"

namespace svi {

enum class GpfaAlgorithm { GammaSgvb, NormSgvb, Map, Empirical, LedoitWolf, Bbvi };

// Registers model "gpfa" with algorithms gamma-sgvb, norm-sgvb, map, empirical and
// ledoit-wolf; table and synthetic data.
void registerGpfa(Registry& registry);

} // namespace svi
