#pragma once
// A corpus drawn from the LDA generative process (β_k ~ Dir(η), θ_d ~ Dir(α), z ~ θ_d,
// w ~ β_z), with a seeded set of test documents split for document completion: the first half
// of a test document's tokens conditions its topic proportions, the second half is scored.
// The tokens of a document are exchangeable given θ_d, so the first half is a random half.

#include "core/data/count_data.h"
#include "core/models/topics/topic_model.h"

#include <cstdint>

namespace svi {

struct LdaSyntheticOptions
{
    std::int64_t documents = 2000;
    int V = 300;
    int K = 8;
    int wordsPerDocument = 100; // lengths uniform in [n/2, 3n/2]
    double alpha = 0.1;         // θ_d ~ Dir(α)
    double eta = 0.05;          // β_k ~ Dir(η); small values give sparse, well-separated topics
    double testFraction = 0.1;  // documents held out for document completion, in [0, 1)
    std::uint64_t seed = 1;
};

struct LdaSynthetic
{
    CountDataPtr data;
    lda::MatrixRD betaT; // V×K: the true topics, word-major (columns sum to 1)
    lda::MatrixRD theta; // D×K: the true topic proportions
};

// Throws std::invalid_argument naming the field on bad options.
LdaSynthetic makeLdaSynthetic(const LdaSyntheticOptions& options);

} // namespace svi
