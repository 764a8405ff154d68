#include "core/models/recommender/recommender.h"

namespace svi {

std::vector<MetricSpec> recommenderMetrics(const std::string& meanCaveat)
{
    std::vector<MetricSpec> metrics = {
        {.key = "precision_at_20",
         .label = "Precision@20, held-out ratings",
         .headline = true,
         .shortLabel = "Precision@20"},
        {.key = "recall_at_20", .label = "Recall@20, held-out ratings", .shortLabel = "Recall@20"},
        {.key = "normalized_precision_at_20",
         .label = "Normalized precision@20",
         .shortLabel = "Norm. precision@20"},
        {.key = "heldout_loglik",
         .label = "Held-out log-likelihood per rating",
         .unit = "nats",
         .shortLabel = "Held-out LL"},
        {.key = "rmse",
         .label = "RMSE, held-out ratings",
         .higherIsBetter = false,
         .shortLabel = "RMSE"},
        {.key = "accuracy",
         .label = "Accuracy (rounded prediction = rating)",
         .shortLabel = "Accuracy"},
        {.key = "validation_loglik",
         .label = "Validation log-likelihood per rating",
         .unit = "nats",
         .compared = false,
         .shortLabel = "Validation LL"},
        {.key = "popularity_precision_at_20",
         .label = "Popularity baseline: precision@20",
         .compared = false,
         .shortLabel = "Popularity P@20"},
        {.key = "popularity_recall_at_20",
         .label = "Popularity baseline: recall@20",
         .compared = false,
         .shortLabel = "Popularity R@20"},
    };
    for (MetricSpec& m : metrics)
        if (m.key == "rmse" || m.key == "accuracy")
            m.caveat = meanCaveat;
    return metrics;
}

ParamSpec evalUsersParam()
{
    return intParam("eval_users", "Evaluation users",
                    "users scored (and in the ELBO estimate) at each snapshot; a full evaluation "
                    "uses all",
                    1000, 1, kHuge);
}

ParamSpec topNParam()
{
    return intParam("top_n", "Top n", "n of precision@n and recall@n", 20, 1, kHuge);
}

} // namespace svi
