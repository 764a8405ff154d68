#include "core/models/recommender/recommender.h"

namespace svi {

std::vector<MetricSpec> recommenderMetrics(const std::string& meanCaveat)
{
    std::vector<MetricSpec> metrics = {
        {"precision_at_20", "Precision@20, held-out ratings", "", true, true},
        {"recall_at_20", "Recall@20, held-out ratings"},
        {"normalized_precision_at_20", "Normalized precision@20"},
        {"heldout_loglik", "Held-out log-likelihood per rating", "nats"},
        {"rmse", "RMSE, held-out ratings", "", false},
        {"accuracy", "Accuracy (rounded prediction = rating)"},
        {"validation_loglik", "Validation log-likelihood per rating", "nats", true, false, false},
        {"popularity_precision_at_20", "Popularity baseline: precision@20", "", true, false, false},
        {"popularity_recall_at_20", "Popularity baseline: recall@20", "", true, false, false},
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
