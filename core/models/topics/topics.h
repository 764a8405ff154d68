#pragma once
// What the topic models (LDA, HDP, CTM) declare alike: their metrics and evaluation settings.

#include "core/base/metric_spec.h"
#include "core/base/param_fields.h"
#include "core/data/preview.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace svi {

// The metrics every topic model reports: perplexity (the headline), per-word log-likelihood.
std::vector<MetricSpec> topicMetrics();

// The evaluation settings every topic model declares, eval_docs and top_words, bound to the
// fields evalDocs and topWords of its options. Each model sizes its default eval_docs so that a
// snapshot costs about 0.3 s on a corpus like AP (2,246 documents, 10,473 words, defaults), and
// the automatic cadence can take 30 snapshots a minute at 15 % of the wall time.
ParamSpec evalDocsParam(int defaultDocs);
// The held-out metrics of document completion (perplexity, heldout_loglik_per_word), for a
// model that is not a topic model but scores held-out words alike (Poisson factorization of
// text): the same keys, so that Compare puts them in one column; not its headline.
std::vector<MetricSpec> wordMetrics();
ParamSpec topWordsParam();
template <typename Options>
void addTopicEvaluationFields(ParamFields<Options>& fields, int defaultDocs)
{
    fields.add(evalDocsParam(defaultDocs), &Options::evalDocs)
        .add(topWordsParam(), &Options::topWords);
}

// The topics (or a factor model's factors over words) whose weight exceeds a tenth of an even
// share, 1/(10K), by decreasing weight, each with its topWords most probable words: column k of
// `wordsT` (V×K, word-major; λ or E[β]) divided by totals_k. `weight` sums to 1; `names` names
// the words (their indices where it is short).
std::vector<TopicSummary>
topicSummaries(const Eigen::VectorXd& weight,
               const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& wordsT,
               const Eigen::VectorXd& totals, const std::vector<std::string>& names, int topWords);

} // namespace svi
