#pragma once
// What the topic models (LDA, HDP, CTM) declare alike: their metrics and evaluation settings.

#include "core/base/metric_spec.h"
#include "core/base/param_fields.h"

#include <vector>

namespace svi {

// The metrics every topic model reports: perplexity (the headline), per-word log-likelihood.
std::vector<MetricSpec> topicMetrics();

// The evaluation settings every topic model declares, eval_docs and top_words, bound to the
// fields evalDocs and topWords of its options. Each model sizes its default eval_docs so that a
// snapshot costs about 0.3 s on a corpus like AP (2,246 documents, 10,473 words, defaults), and
// the automatic cadence can take 30 snapshots a minute at 15 % of the wall time.
ParamSpec evalDocsParam(int defaultDocs);
ParamSpec topWordsParam();
template <typename Options>
void addTopicEvaluationFields(ParamFields<Options>& fields, int defaultDocs)
{
    fields.add(evalDocsParam(defaultDocs), &Options::evalDocs)
        .add(topWordsParam(), &Options::topWords);
}

} // namespace svi
