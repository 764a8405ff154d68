#include "core/models/topics/topics.h"

namespace svi {

std::vector<MetricSpec> topicMetrics()
{
    return {
        {.key = "perplexity",
         .label = "Perplexity, held-out words",
         .higherIsBetter = false,
         .headline = true,
         .shortLabel = "Perplexity"},
        {.key = "heldout_loglik_per_word",
         .label = "Held-out log-likelihood per word",
         .unit = "nats",
         .shortLabel = "Held-out LL per word"},
        {"topics_used", "Topics in use", "", true, false, false},
    };
}

ParamSpec evalDocsParam(int defaultDocs)
{
    return intParam("eval_docs", "Evaluation documents",
                    "test documents scored (and training documents in the ELBO estimate) at each "
                    "snapshot; a full evaluation uses all",
                    defaultDocs, 1, kHuge);
}

ParamSpec topWordsParam()
{
    return intParam("top_words", "Top words", "words listed per topic", 10, 1, 1000);
}

} // namespace svi
