#pragma once
// What the topic-model trainers (LdaTrainer, HdpTrainer) share: the corpus check, λ's starting
// point, the documents their evaluations use, the local phase of a minibatch, document
// completion's scoring and metrics, and the preview of the topics in use.
//
// Threading: the functions that loop over documents use OpenMP; every document's result is
// stored by position and every sum runs in a fixed order, so results do not depend on the
// thread count.

#include "core/base/parallel.h"
#include "core/data/count_data.h"
#include "core/models/topics/topic_model.h"
#include "core/run/trainer.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace svi::lda {

// Wall-clock seconds of a step's phases: the local steps of the minibatch, the global update
// (regrouping by word, λ and the model's other globals) and the recomputation of the topics'
// expectations.
struct StepTimes
{
    double local = 0.0, update = 0.0, expectation = 0.0;
};

// Throws std::invalid_argument ("data: …", naming the source) unless `data` is a corpus a
// topic model can fit: some words and documents, one held-out row per row, a training
// document, word indices within the vocabulary and counts positive and finite.
// A corpus read out of core (CountData::stream) is refused unless the caller `readsStream`.
void checkCorpus(const CountDataPtr& data, bool readsStream = false);

// λ's starting point, word-major (V×K): Gamma(100, 1/100) elementwise (mean 1, sd 0.1), nearly
// flat topics with enough asymmetry to break the symmetry between them. Word w draws from the
// stream (seed, streamId, w), so the start does not depend on the thread count.
MatrixRD initialTopics(std::int64_t V, int K, std::uint64_t seed, std::uint64_t streamId);

// The documents of a topic model's evaluations: `scored`, the rows among `candidates` with
// held-out words (a full evaluation scores them all); the cheap evaluation's fixed seeded
// subsets of evalDocs training documents (for the ELBO) and of `scored`, so that its trace is
// smooth. The subsets draw from the streams (seed, pick, 0) and (seed, pick, 1).
struct EvaluationDocs
{
    EvaluationDocs() = default;
    EvaluationDocs(const CountData& data, const std::vector<std::int64_t>& candidates, int evalDocs,
                   std::uint64_t seed, std::uint64_t pick);

    std::vector<std::int64_t> scored, cheapElbo, cheapScored;
};

// The local steps of the documents of `batch` (rows of `rows`), in parallel: fit(row) runs a
// document's local step and returns the calling thread's workspace, which stats.record keeps
// at the document's position in the batch. `stats` must be laid out for the batch.
template <typename Stats, typename Fit>
void recordLocalSteps(const SparseRows& rows, const std::vector<std::int64_t>& batch, Stats& stats,
                      Fit&& fit)
{
    const std::int64_t B = std::int64_t(batch.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t row = batch[std::size_t(j)];
        stats.record(j, rows.rowCols(row), fit(row));
    }
}

// Document completion's totals: Σ over held-out words of n_w log p(w), and Σ n_w.
struct HeldOutScore
{
    double logLik = 0.0, words = 0.0;
};

// Scores the held-out words of `rows`: thetaT(row) returns the document's weights ω (K, from
// its observed half; it may use the calling thread's workspace) and each held-out word w
// counts log Σ_k topicsT(w, k) ω_k. Parallel over documents; stop() is asked before each
// document, and once it is true the remaining ones are skipped. With a blend the topics are
// blend(topicsT).
template <typename Weights, typename Stop>
HeldOutScore scoreHeldOut(const MatrixRD& topicsT, const SparseRows& heldOut,
                          const std::vector<std::int64_t>& rows, Weights&& weights, Stop&& stop,
                          Blend blend = {})
{
    std::vector<double> cLl(kChunks, 0.0), cWords(kChunks, 0.0);
    forChunks(std::int64_t(rows.size()), [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stop())
                return;
            const std::int64_t row = rows[std::size_t(j)];
            const Eigen::VectorXd& omega = weights(row);
            const double floor = blend.offset * omega.sum();
            const auto words = heldOut.rowCols(row);
            const auto counts = heldOut.rowCounts(row);
            double ll = 0.0, total = 0.0;
            for (std::size_t i = 0; i < words.size(); ++i) {
                const double p =
                    blend.identity()
                        ? topicsT.row(words[i]).dot(omega.transpose())
                        : blend.scale * topicsT.row(words[i]).dot(omega.transpose()) + floor;
                ll += double(counts[i]) * std::log(p);
                total += double(counts[i]);
            }
            cLl[std::size_t(c)] += ll;
            cWords[std::size_t(c)] += total;
        }
    });
    return {std::accumulate(cLl.begin(), cLl.end(), 0.0),
            std::accumulate(cWords.begin(), cWords.end(), 0.0)};
}

// heldout_loglik_per_word and perplexity = exp(−that); nothing when no word was scored.
void addHeldOutMetrics(std::map<std::string, double>& metrics, const HeldOutScore& score);

// "topics_used", the topics whose weight (their share of the corpus, summing to 1) exceeds a
// tenth of an even share, 1/(10K); and the preview: those topics by decreasing weight, each
// with its topWords most probable words, E[β_kw] = λ_kw / totals_k. `names` names the words
// (their indices where it is short).
// With a blend λ is blend(lambdaT) and `totals` are λ's.
void addTopicsInUse(Evaluation& ev, const Eigen::VectorXd& weight, const MatrixRD& lambdaT,
                    const Eigen::VectorXd& totals, const std::vector<std::string>& names,
                    int topWords, Blend blend = {});

} // namespace svi::lda
