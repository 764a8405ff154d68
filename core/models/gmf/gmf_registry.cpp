#include "core/models/gmf/gmf.h"
#include "core/models/gmf/gmf_trainer.h"
#include "core/models/pf/pf.h" // recommenderEvaluationParams

#include <limits>

namespace svi {
namespace {

constexpr double kHuge = std::numeric_limits<double>::max();

std::vector<ParamSpec> gmfParams()
{
    std::vector<ParamSpec> p;
    // K³ per user and item per sweep and K² doubles stored for each: 20 keeps a MovieLens 1M
    // sweep at seconds; paper 004 ran K = 100 and 200.
    p.push_back(intParam("K", "Factors K", "number of latent factors", 20, 1, 100000));
    p.push_back(realParam("lambda_u", "Precision λ_u",
                          "u_u ~ N(0, I/λ_u): user factors' prior precision", 10.0, 1e-12, kHuge));
    p.push_back(realParam("lambda_v", "Precision λ_v",
                          "v_i ~ N(0, I/λ_v): item factors' prior precision", 10.0, 1e-12, kHuge));
    p.push_back(
        realParam("a0", "Shape a0", "noise precision β ~ Gamma(a0, b0)", 1.0, 1e-12, kHuge));
    p.push_back(realParam("b0", "Rate b0", "noise precision β ~ Gamma(a0, b0)", 1.0, 1e-12, kHuge));
    const auto eval = recommenderEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

} // namespace

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
    e.params = gmfParams();
    e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<GmfTrainer>(data.requireCounts("GMF"),
                                            GmfOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace svi
