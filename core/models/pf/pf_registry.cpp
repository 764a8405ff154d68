#include "core/models/pf/pf.h"
#include "core/models/pf/pf_trainer.h"

#include <limits>

namespace svi {
namespace {

constexpr double kHuge = std::numeric_limits<double>::max();

std::vector<ParamSpec> pfParams(bool hierarchical, bool svi)
{
    std::vector<ParamSpec> p;
    p.push_back(intParam("K", "Factors K", "number of latent factors", 100, 1, 100000));
    if (svi) {
        p.push_back(intParam("minibatch", "Minibatch", "users per stochastic step", 100, 1, 1e9));
        const auto step = StepSizeOptions::params(0.75, 1.0);
        p.insert(p.end(), step.begin(), step.end());
        p.push_back(intParam("local_iters", "Local iterations", "φ → γ → κ rounds per user at most",
                             100, 1, 100000));
        p.push_back(realParam("local_tol", "Local tolerance",
                              "stop a user's rounds once the mean |Δγshp| < tol", 1e-3, 0.0,
                              kHuge));
    }
    p.push_back(
        realParam("a", "Shape a", "θ_uk ~ Gamma(a, ·): user preferences", 0.3, 1e-12, kHuge));
    if (hierarchical) {
        p.push_back(realParam("a_prime", "Shape a′", "user activity ξ_u ~ Gamma(a′, a′/b′)", 0.3,
                              1e-12, kHuge));
        p.push_back(realParam("b_prime", "Mean b′", "prior mean of the user activity ξ_u", 1.0,
                              1e-12, kHuge));
    } else {
        p.push_back(realParam("b", "Rate b", "θ_uk ~ Gamma(a, b)", 1.0, 1e-12, kHuge));
    }
    p.push_back(
        realParam("c", "Shape c", "β_ik ~ Gamma(c, ·): item attributes", 0.3, 1e-12, kHuge));
    if (hierarchical) {
        p.push_back(realParam("c_prime", "Shape c′", "item popularity η_i ~ Gamma(c′, c′/d′)", 0.3,
                              1e-12, kHuge));
        p.push_back(realParam("d_prime", "Mean d′", "prior mean of the item popularity η_i", 1.0,
                              1e-12, kHuge));
    } else {
        p.push_back(realParam("d", "Rate d", "β_ik ~ Gamma(c, d)", 1.0, 1e-12, kHuge));
    }
    const auto eval = recommenderEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

void add(Registry& r, bool hierarchical, PfAlgorithm algorithm, std::string key, std::string label,
         std::string help)
{
    AlgorithmEntry e;
    e.model = hierarchical ? "hpf" : "pmf";
    e.modelLabel =
        hierarchical ? "Hierarchical Poisson factorization" : "Poisson matrix factorization";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"ratings"};
    e.metrics = recommenderMetrics();
    e.compareRank = algorithm == PfAlgorithm::Svi ? 1 : 2;
    e.params = pfParams(hierarchical, algorithm == PfAlgorithm::Svi);
    e.make = [hierarchical, algorithm](const DataSet& data, const ParamValues& values,
                                       std::uint64_t seed) {
        return std::make_unique<PfTrainer>(data.requireCounts(hierarchical ? "HPF" : "PMF"),
                                           algorithm, PfOptions::fromParams(values, hierarchical),
                                           seed);
    };
    r.add(std::move(e));
}

} // namespace

std::vector<MetricSpec> recommenderMetrics()
{
    return {
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
}

std::vector<ParamSpec> recommenderEvaluationParams()
{
    return {intParam("eval_users", "Evaluation users",
                     "users scored (and in the ELBO estimate) at each snapshot; a full evaluation "
                     "uses all",
                     1000, 1, 1e9),
            intParam("top_n", "Top n", "n of precision@n and recall@n", 20, 1, 100000)};
}

void registerPoissonFactorization(Registry& r)
{
    for (bool hierarchical : {true, false}) {
        add(r, hierarchical, PfAlgorithm::Svi, "svi", "SVI (users local, items global)",
            "minibatches of users; λ ← (1 − ρ_t)λ + ρ_t λ̂ with scale N/|B|");
        add(r, hierarchical, PfAlgorithm::Batch, "batch", "Batch variational Bayes",
            "coordinate ascent over the non-zero ratings: φ, users, items each step");
    }
}

} // namespace svi
