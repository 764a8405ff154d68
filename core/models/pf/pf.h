#pragma once
// Poisson factorization of ratings or counts (users × items): hierarchical Poisson
// factorization (Gopalan, Hofman & Blei 2015) and Poisson matrix factorization (paper 004
// §2.7), fitted by batch coordinate-ascent variational Bayes or by SVI with users local and
// items global (paper 004 §3.2).

#include "core/run/registry.h"

namespace svi {

// Streaming: streaming variational Bayes of the items (paper 004 §2.6), one pass over the users.
enum class PfAlgorithm { Svi, Batch, Streaming };

// Registers models "hpf" and "pmf", each with algorithms "svi", "batch", "streaming" and "bbvi";
// count data only.
void registerPoissonFactorization(Registry& registry);

} // namespace svi
