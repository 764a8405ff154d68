#pragma once
// What the topic-model tests (LDA, HDP) share: a small corpus with arbitrary counts, λ with
// spread-out values, a corpus drawn from planted topics and the LDA options it is fitted with,
// and the distance of fitted topics to the planted ones.

#include "core/math/assignment.h"
#include "core/math/random.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/models/lda/lda_trainer.h"
#include "core/models/topics/topic_model.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace topic_testing {

using namespace svi;
using lda::MatrixRD;

// A small corpus with arbitrary counts (not drawn from a topic model), every row a training row,
// each word in a document with probability `density`.
inline CountDataPtr smallCorpus(std::int64_t D, int V, std::uint64_t seed, double density = 0.4)
{
    auto data = std::make_shared<CountData>();
    data->vocabularySize = V;
    Rng rng(seed);
    for (std::int64_t d = 0; d < D; ++d) {
        std::vector<std::int32_t> cols;
        std::vector<float> counts;
        for (int w = 0; w < V; ++w)
            if (rng.uniform() < density) {
                cols.push_back(w);
                counts.push_back(float(1 + rng.below(4)));
            }
        data->train.appendRow(cols, counts);
        data->heldOut.appendRow({}, {});
    }
    data->source = "small test corpus";
    data->finalise();
    return data;
}

// λ with spread-out values, word-major V×K.
inline MatrixRD someLambda(int V, int K, std::uint64_t seed, double lo = 0.3, double hi = 6.0)
{
    Rng rng(seed);
    MatrixRD l(V, K);
    for (int w = 0; w < V; ++w)
        for (int k = 0; k < K; ++k)
            l(w, k) = lo + (hi - lo) * rng.uniform();
    return l;
}

// K topics from Dir(0.05) over 300 words, documents of ~100 words with θ ~ Dir(0.1), a tenth
// of them test documents.
inline LdaSynthetic plantedCorpus(std::uint64_t seed, int K = 8, std::int64_t documents = 2000)
{
    LdaSyntheticOptions so;
    so.documents = documents;
    so.V = 300;
    so.K = K;
    so.wordsPerDocument = 100;
    so.alpha = 0.1;
    so.eta = 0.05;
    so.testFraction = 0.1;
    so.seed = seed;
    return makeLdaSynthetic(so);
}

// LDA fitted to plantedCorpus with more topics than planted (see
// TestLdaFit::recoversPlantedTopics).
inline LdaOptions plantedLdaOptions()
{
    LdaOptions o;
    o.K = 12;
    o.minibatch = 100;
    o.kappa = 0.7;
    o.tau0 = 1.0;
    o.evalDocs = 200;
    return o;
}

// L1 distance between each true topic and the fitted topic matched to it (columns of V×K
// word-major matrices; fitted may have more topics) by minimum-cost one-to-one assignment.
inline std::vector<double> matchedL1(const MatrixRD& trueT, const MatrixRD& fittedT)
{
    const Eigen::Index K = trueT.cols();
    Eigen::MatrixXd cost(K, fittedT.cols());
    for (Eigen::Index a = 0; a < K; ++a)
        for (Eigen::Index b = 0; b < fittedT.cols(); ++b)
            cost(a, b) = (trueT.col(a) - fittedT.col(b)).cwiseAbs().sum();
    const std::vector<int> match = minCostAssignment(cost);
    std::vector<double> out;
    for (Eigen::Index a = 0; a < K; ++a)
        out.push_back(cost(a, match[std::size_t(a)]));
    return out;
}

// The topics E[β_k] = λ_k / Σ_w λ_wk, as columns.
inline MatrixRD normalisedTopics(const MatrixRD& lambdaT)
{
    const Eigen::VectorXd t = lda::topicTotals(lambdaT);
    MatrixRD b = lambdaT;
    for (Eigen::Index k = 0; k < b.cols(); ++k)
        b.col(k) /= t[k];
    return b;
}

} // namespace topic_testing
