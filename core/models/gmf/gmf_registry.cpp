#include "core/models/gmf/gmf.h"
#include "core/models/gmf/gmf_trainer.h"
#include "core/models/memory_terms.h"
#include "core/models/recommender/recommender.h"

#include <limits>

namespace svi {

ParamFields<GmfOptions> GmfOptions::declare()
{
    ParamFields<GmfOptions> f;
    // K³ per user and item per sweep and K² doubles stored for each: 20 keeps a MovieLens 1M
    // sweep at seconds; paper 004 ran K = 100 and 200.
    f.add(intParam("K", "Factors K", "number of latent factors", 20, 1, kHuge), &GmfOptions::K)
        .add(&GmfOptions::priors, gmf::Priors::declare());
    addRecommenderEvaluationFields(f);
    return f;
}

const ParamFields<GmfOptions>& GmfOptions::fields()
{
    static const ParamFields<GmfOptions> f = declare();
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
    e.params = GmfOptions::declare().specs();
    e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<GmfTrainer>(data.requireCounts("GMF"),
                                            GmfOptions::fromParams(values), seed);
    };
    e.readOptions = optionsReader<GmfOptions>();
    // A mean and a full K × K covariance for every user and item, the residuals indexed both
    // ways, each thread's K × K workspaces, the evaluation.
    e.memory = [](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        const CountData& c = *data.counts;
        const double N = double(c.rows()), M = double(c.cols()), K = number(v, "K");
        return std::vector<MemoryTerm>{
            {"each user's and item's mean and covariance: (users + items) × (K + K²) doubles",
             kDouble * (N + M) * (K + K * K), "K"},
            {"the residuals, by user and by item",
             24 * double(c.train.nonZeros()) + kDouble * (N + M), "data"},
            {"the threads' K × K workspaces", (threads() + 16) * 24 * K * K, "K"},
            recommenderEvaluation(c, K),
        };
    };
    e.smallSettings = {{"K", std::int64_t(3)}, {"eval_users", std::int64_t(20)}};
    e.divergentSettings = {{"a0", 1e308}};
    r.add(std::move(e));
}

} // namespace svi
