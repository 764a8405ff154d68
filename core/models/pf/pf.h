#pragma once
// Poisson factorization of ratings or counts (users × items): hierarchical Poisson
// factorization (Gopalan, Hofman & Blei 2015) and Poisson matrix factorization (paper 004
// §2.7), fitted by batch coordinate-ascent variational Bayes or by SVI with users local and
// items global (paper 004 §3.2).

#include "core/base/param_fields.h"
#include "core/run/registry.h"

namespace svi {

enum class PfAlgorithm { Svi, Batch };

// Registers models "hpf" and "pmf", each with algorithms "svi" and "batch"; count data only.
void registerPoissonFactorization(Registry& registry);

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
