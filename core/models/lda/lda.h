#pragma once
// Latent Dirichlet allocation (Blei, Ng & Jordan 2003) fitted by stochastic variational
// inference (Hoffman, Blei, Wang & Paisley 2013, Fig. 6) or by batch variational Bayes.

#include "core/run/registry.h"

#include <vector>

namespace svi {

// Streaming: streaming variational Bayes (Broderick et al. 2013, paper 004 §2.6), one pass.
enum class LdaAlgorithm { Svi, Batch, Streaming };

// Registers model "lda" with algorithms "svi", "batch" and "streaming"; all accept count data
// only.
void registerLda(Registry& registry);

} // namespace svi
