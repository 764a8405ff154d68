#pragma once
// The hierarchical Dirichlet process topic model (Teh et al. 2006) fitted by online variational
// inference (Wang, Paisley & Blei 2011; Hoffman et al. 2013, Fig. 9) or by batch variational
// Bayes over the same truncated two-level stick-breaking family.

#include "core/run/registry.h"

namespace svi {

enum class HdpAlgorithm { Svi, Batch };

// Registers model "hdp" with algorithms "svi" and "batch"; both accept count data only.
void registerHdp(Registry& registry);

} // namespace svi
