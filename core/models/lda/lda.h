#pragma once
// Latent Dirichlet allocation (Blei, Ng & Jordan 2003) fitted by stochastic variational
// inference (Hoffman, Blei, Wang & Paisley 2013, Fig. 6) or by batch variational Bayes.

#include "core/run/registry.h"

#include <vector>

namespace svi {

// Streaming: streaming variational Bayes (Broderick et al. 2013, paper 004 §2.6), one pass.
// MimnoSvi: SVI with each token's topic Gibbs-sampled (paper 000; Mimno et al. 2012; lda_gibbs.h).
// GibbsSsvi: the same sampler under β drawn from q(β) at every step (paper 000; Hoffman & Blei
// 2014's structured SVI, its local posterior exact given that β).
enum class LdaAlgorithm { Svi, Batch, Streaming, MimnoSvi, GibbsSsvi };

// Gibbs-sampled local steps: Mimno-SVI and Gibbs-SSVI.
inline bool sampledLocalStep(LdaAlgorithm a)
{
    return a == LdaAlgorithm::MimnoSvi || a == LdaAlgorithm::GibbsSsvi;
}

// Registers model "lda" with algorithms "svi", "batch", "streaming", "mimno-svi" and
// "gibbs-ssvi"; all accept count data only.
void registerLda(Registry& registry);

} // namespace svi
