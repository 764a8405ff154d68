#include "core/models/topics/topic_parts.h"

#include "core/base/params.h"
#include "core/math/random.h"
#include "core/models/topics/topics.h"

#include <algorithm>
#include <stdexcept>

namespace svi::lda {

void checkCorpus(const CountDataPtr& data, bool readsStream)
{
    if (!data || data->vocabularySize < 1 || data->rows() < 1)
        throw std::invalid_argument("data: the corpus is empty");
    const CountData& d = *data;
    if (d.stream && !readsStream)
        throw std::invalid_argument("data: '" + d.source +
                                    "' is read out of core, as a stream: this model needs the "
                                    "corpus in memory (out_of_core = false); LDA's streaming VB "
                                    "reads a stream");
    if (d.heldOut.rows() != d.rows())
        throw std::invalid_argument("data: '" + d.source + "' has " + std::to_string(d.rows()) +
                                    " rows but " + std::to_string(d.heldOut.rows()) +
                                    " held-out rows");
    if (d.trainingRowCount() < 1)
        throw std::invalid_argument("data: '" + d.source + "' has no training documents");
    for (const SparseRows* rows : {&d.train, &d.heldOut}) {
        for (std::int32_t c : rows->cols)
            if (c < 0 || c >= d.vocabularySize)
                throw std::invalid_argument("data: '" + d.source + "' has word index " +
                                            std::to_string(c) + " outside the vocabulary of " +
                                            std::to_string(d.vocabularySize) + " words");
        for (float c : rows->counts)
            if (!(c > 0.0f) || !std::isfinite(c))
                throw std::invalid_argument("data: '" + d.source + "' has a count of " +
                                            formatNumber(c) +
                                            "; counts must be positive and finite");
    }
}

MatrixRD initialTopics(std::int64_t V, int K, std::uint64_t seed, std::uint64_t streamId)
{
    MatrixRD lambdaT(V, K);
    for (std::int64_t w = 0; w < V; ++w) {
        Rng rng = Rng::stream(seed, streamId, std::uint64_t(w));
        for (int k = 0; k < K; ++k)
            lambdaT(w, k) = rng.gamma(100.0, 100.0);
    }
    return lambdaT;
}

EvaluationDocs::EvaluationDocs(const CountData& data, const std::vector<std::int64_t>& candidates,
                               int evalDocs, std::uint64_t seed, std::uint64_t pick)
{
    // A test document held by another rank (data read in parts) has held-out words there: the
    // split gives every test document at least one.
    for (std::int64_t r : candidates)
        if (data.heldRows && !data.heldRows->contains(r) ? data.isTestRow(r)
                                                         : data.heldOut.rowNonZeros(r) > 0)
            scored.push_back(r);
    cheapElbo =
        seededSubset(data.trainingRows(), std::size_t(evalDocs), Rng::stream(seed, pick, 0));
    cheapScored = seededSubset(scored, std::size_t(evalDocs), Rng::stream(seed, pick, 1));
}

void addHeldOutMetrics(std::map<std::string, double>& metrics, const HeldOutScore& score)
{
    if (score.words > 0) {
        const double perWord = score.logLik / score.words;
        metrics["heldout_loglik_per_word"] = perWord;
        metrics["perplexity"] = std::exp(-perWord);
    }
}

void addTopicsInUse(Evaluation& ev, const Eigen::VectorXd& weight, const MatrixRD& lambdaT,
                    const Eigen::VectorXd& totals, const std::vector<std::string>& names,
                    int topWords, Blend blend)
{
    // A dead topic keeps about α per document (LDA) or a vanishing stick (HDP), far below a
    // tenth of an even share.
    const int K = int(weight.size());
    const double threshold = 0.1 / double(K);
    ev.metrics["topics_used"] = double((weight.array() > threshold).count());

    auto preview = std::make_shared<Preview>();
    // λ_kw / T_k = L_kw / (T_k / scale) + offset / T_k; a positive scale keeps the order.
    preview->topics = topicSummaries(weight, lambdaT, totals / blend.scale, names, topWords);
    if (!blend.identity())
        for (TopicSummary& t : preview->topics)
            for (double& p : t.probs)
                p += blend.offset / totals[t.index];
    ev.preview = std::move(preview);
}

} // namespace svi::lda
