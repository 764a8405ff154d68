#pragma once
// Latent Dirichlet allocation (Blei, Ng & Jordan 2003) fitted by stochastic variational
// inference (Hoffman, Blei, Wang & Paisley 2013, Fig. 6) or by batch variational Bayes.

#include "core/run/registry.h"

#include <vector>

namespace svi {

// Streaming: streaming variational Bayes (Broderick et al. 2013, paper 004 §2.6), one pass.
// MimnoSvi: SVI with each token's topic Gibbs-sampled (paper 000; Mimno et al. 2012; lda_gibbs.h).
enum class LdaAlgorithm { Svi, Batch, Streaming, MimnoSvi };

// Registers model "lda" with algorithms "svi", "batch", "streaming" and "mimno-svi"; all accept
// count data only.
void registerLda(Registry& registry);

} // namespace svi
