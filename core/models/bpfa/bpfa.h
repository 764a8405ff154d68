#pragma once
// Beta process factor analysis (paper 000, eq. 5) fitted by stochastic variational inference
// with five local approximations, plus the uncollapsed batch Gibbs sampler baseline.

#include "core/base/params.h"
#include "core/data/dense_data.h"
#include "core/run/registry.h"
#include "core/run/trainer.h"

#include <memory>

namespace svi {

enum class BpfaAlgorithm { MfSvi, MimnoSvi, MfSsvi, TitsiasSsvi, GibbsSsvi, BatchGibbs };

// Registers the six BPFA algorithms (model key "bpfa").
void registerBpfa(Registry& registry);

} // namespace svi
