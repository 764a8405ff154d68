#pragma once
// Latent Dirichlet allocation (Blei, Ng & Jordan 2003) fitted by stochastic variational
// inference (Hoffman, Blei, Wang & Paisley 2013, Fig. 6) or by batch variational Bayes.

#include "core/run/registry.h"

#include <vector>

namespace svi {

enum class LdaAlgorithm { Svi, Batch };

// Registers model "lda" with algorithms "svi" and "batch"; both accept count data only.
void registerLda(Registry& registry);

} // namespace svi
