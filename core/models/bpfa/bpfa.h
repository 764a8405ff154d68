#pragma once
// Beta process factor analysis (paper 000, eq. 5) fitted by stochastic variational inference
// with five local approximations, plus the uncollapsed batch Gibbs sampler baseline, and by
// streaming variational Bayes (Broderick et al. 2013; paper 004 §2.6) with the mean-field local
// step: one pass over the items, the posterior so far the prior of each minibatch.

#include "core/base/params.h"
#include "core/data/dense_data.h"
#include "core/run/registry.h"
#include "core/run/trainer.h"

#include <memory>

namespace svi {

enum class BpfaAlgorithm { MfSvi, MimnoSvi, MfSsvi, TitsiasSsvi, GibbsSsvi, BatchGibbs, Streaming };

// Registers the seven BPFA algorithms (model key "bpfa").
void registerBpfa(Registry& registry);

} // namespace svi
