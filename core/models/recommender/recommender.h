#pragma once
// What the recommenders (HPF, PMF, GMF, generalized PMF) declare alike: their metrics and
// evaluation settings.

#include "core/base/metric_spec.h"
#include "core/base/param_fields.h"

#include <vector>

namespace svi {

// The metrics every recommender reports: precision@20 (the headline), recall, the rating
// likelihood and the popularity baseline.
std::vector<MetricSpec> recommenderMetrics();

// The evaluation settings every recommender declares, eval_users and top_n, bound to the fields
// evalUsers and topN of its options.
ParamSpec evalUsersParam();
ParamSpec topNParam();
template <typename Options> void addRecommenderEvaluationFields(ParamFields<Options>& fields)
{
    fields.add(evalUsersParam(), &Options::evalUsers).add(topNParam(), &Options::topN);
}

} // namespace svi
