#pragma once
// Latent Dirichlet allocation (Blei, Ng & Jordan 2003) fitted by stochastic variational
// inference (Hoffman, Blei, Wang & Paisley 2013, Fig. 6) or by batch variational Bayes.

#include "core/base/param_fields.h"
#include "core/run/registry.h"

#include <vector>

namespace svi {

enum class LdaAlgorithm { Svi, Batch };

// Registers model "lda" with algorithms "svi" and "batch"; both accept count data only.
void registerLda(Registry& registry);

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
