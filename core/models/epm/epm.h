#pragma once
// The infinite edge partition model of Zhou (2015) for link prediction on graphs, fitted as
// paper 003 does (Sec. 3.1, 4.1): gamma SGVB, NormSGVB and MAP through the positive-variable
// SGVB engine, beside Zhou's Gibbs sampler with its data augmentation, the carefully
// engineered reference of the paper's Figure 3. The mathematics is in epm_model.h (the log
// joint) and epm_gibbs.h (the conditionals).

#include "core/run/registry.h"

namespace svi {

// Registers model "epm" with algorithms gamma-sgvb, gibbs, map and norm-sgvb (Compare's order:
// Figure 3's legend); graph data only.
void registerEpm(Registry& registry);

} // namespace svi
