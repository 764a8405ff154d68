#include "core/models/topics/topics.h"

#include <algorithm>
#include <numeric>

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

std::vector<MetricSpec> wordMetrics()
{
    std::vector<MetricSpec> metrics = topicMetrics();
    metrics.pop_back(); // topics_used
    for (MetricSpec& m : metrics)
        m.headline = false;
    return metrics;
}

std::vector<TopicSummary>
topicSummaries(const Eigen::VectorXd& weight,
               const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& wordsT,
               const Eigen::VectorXd& totals, const std::vector<std::string>& names, int topWords)
{
    const int K = int(weight.size());
    const double threshold = 0.1 / double(K);
    std::vector<int> order;
    for (int k = 0; k < K; ++k)
        if (weight[k] > threshold)
            order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return weight[x] > weight[y]; });
    const std::int64_t V = wordsT.rows();
    const std::size_t top = std::min<std::size_t>(std::size_t(topWords), std::size_t(V));
    std::vector<std::int32_t> words(static_cast<std::size_t>(V));
    std::vector<TopicSummary> out;
    for (int k : order) {
        TopicSummary s;
        s.index = k;
        s.weight = weight[k];
        std::iota(words.begin(), words.end(), 0);
        std::partial_sort(words.begin(), words.begin() + std::ptrdiff_t(top), words.end(),
                          [&](std::int32_t a, std::int32_t b) {
                              const double la = wordsT(a, k), lb = wordsT(b, k);
                              return la > lb || (la == lb && a < b);
                          });
        for (std::size_t i = 0; i < top; ++i) {
            const std::int32_t w = words[i];
            s.words.push_back(std::size_t(w) < names.size() ? names[std::size_t(w)]
                                                            : std::to_string(w));
            s.probs.push_back(wordsT(w, k) / totals[k]);
        }
        out.push_back(std::move(s));
    }
    return out;
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
