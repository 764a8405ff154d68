#include "core/models/gmf/gmf.h"
#include "core/models/gmf/gmf_trainer.h"
#include "core/models/pf/pf.h" // recommenderEvaluationParams

#include <limits>

namespace svi {
namespace {

} // namespace

std::vector<ParamSpec> GmfOptions::params()
{
    std::vector<ParamSpec> p;
    // K³ per user and item per sweep and K² doubles stored for each: 20 keeps a MovieLens 1M
    // sweep at seconds; paper 004 ran K = 100 and 200.
    p.push_back(intParam("K", "Factors K", "number of latent factors", 20, 1, kHuge));
    const auto priors = gmf::Priors::params();
    p.insert(p.end(), priors.begin(), priors.end());
    const auto eval = recommenderEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

const ParamFields<GmfOptions>& GmfOptions::fields()
{
    static const ParamFields<GmfOptions> f = ParamFields<GmfOptions>()
                                                 .add("K", &GmfOptions::K)
                                                 .add(&GmfOptions::priors, gmf::Priors::fields())
                                                 .add("eval_users", &GmfOptions::evalUsers)
                                                 .add("top_n", &GmfOptions::topN);
    return f;
}

void registerGaussianMf(Registry& r)
{
    AlgorithmEntry e;
    e.model = "gmf";
    e.modelLabel = "Gaussian matrix factorization";
    e.algorithm = "batch";
    e.label = "Batch variational Bayes";
    e.help = "coordinate ascent over the observed ratings: users, items, noise precision each step";
    e.dataKinds = {"ratings"};
    e.metrics = recommenderMetrics();
    e.compareRank = 1;
    e.params = GmfOptions::params();
    e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<GmfTrainer>(data.requireCounts("GMF"),
                                            GmfOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace svi
