#pragma once
// What the recommenders (HPF, PMF, GMF, generalized PMF) declare alike: their metrics and
// evaluation settings.

#include "core/base/metric_spec.h"
#include "core/base/param_fields.h"

#include <string>
#include <vector>

namespace svi {

// The metrics every recommender reports: precision@20 (the headline), recall, the rating
// likelihood, the error of the predicted mean as a rating (rmse, accuracy) and the popularity
// baseline. `meanCaveat` is the caveat (MetricSpec::caveat) of rmse and accuracy, for a model
// whose mean is not on the ratings' scale.
std::vector<MetricSpec> recommenderMetrics(const std::string& meanCaveat = {});

// The evaluation settings every recommender declares, eval_users and top_n, bound to the fields
// evalUsers and topN of its options.
ParamSpec evalUsersParam();
ParamSpec topNParam();
template <typename Options> void addRecommenderEvaluationFields(ParamFields<Options>& fields)
{
    fields.add(evalUsersParam(), &Options::evalUsers).add(topNParam(), &Options::topN);
}

} // namespace svi
