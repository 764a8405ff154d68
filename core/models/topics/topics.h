#pragma once
// What the topic models (LDA, HDP, CTM) declare alike: their metrics and evaluation settings.

#include "core/base/metric_spec.h"
#include "core/base/param_fields.h"

#include <vector>

namespace svi {

// The metrics every topic model reports: perplexity (the headline), per-word log-likelihood.
std::vector<MetricSpec> topicMetrics();

// The evaluation settings every topic model declares, eval_docs and top_words, bound to the
// fields evalDocs and topWords of its options.
ParamSpec evalDocsParam();
ParamSpec topWordsParam();
template <typename Options> void addTopicEvaluationFields(ParamFields<Options>& fields)
{
    fields.add(evalDocsParam(), &Options::evalDocs).add(topWordsParam(), &Options::topWords);
}

} // namespace svi
