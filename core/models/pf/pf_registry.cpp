#include "core/models/pf/pf.h"
#include "core/models/pf/pf_trainer.h"

#include <limits>

namespace svi {
namespace {

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
    e.readsParts = true; // its trainer holds to its rank's rows (heldRows)
    e.params = PfOptions::params(hierarchical, algorithm);
    e.make = [hierarchical, algorithm](const DataSet& data, const ParamValues& values,
                                       std::uint64_t seed) {
        return std::make_unique<PfTrainer>(data.requireCounts(hierarchical ? "HPF" : "PMF"),
                                           algorithm, PfOptions::fromParams(values, hierarchical),
                                           seed);
    };
    r.add(std::move(e));
}

} // namespace

std::vector<ParamSpec> PfOptions::params(bool hierarchical, PfAlgorithm algorithm)
{
    std::vector<ParamSpec> p;
    p.push_back(intParam("K", "Factors K", "number of latent factors", 100, 1, kHuge));
    if (algorithm == PfAlgorithm::Svi) {
        p.push_back(intParam("minibatch", "Minibatch", "users per stochastic step", 100, 1, kHuge));
        const auto step = StepSizeOptions::params(0.75, 1.0);
        p.insert(p.end(), step.begin(), step.end());
        p.push_back(intParam("local_iters", "Local iterations", "φ → γ → κ rounds per user at most",
                             100, 1, 100000));
        p.push_back(realParam("local_tol", "Local tolerance",
                              "stop a user's rounds once the mean |Δγshp| < tol", 1e-3, 0.0,
                              kHuge));
    }
    const auto priors = pf::Priors::params(hierarchical);
    p.insert(p.end(), priors.begin(), priors.end());
    const auto eval = recommenderEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

std::vector<ParamSpec> PfOptions::allParams()
{
    return mergeParams({params(true, PfAlgorithm::Svi), params(false, PfAlgorithm::Svi)});
}

const ParamFields<PfOptions>& PfOptions::fields()
{
    static const ParamFields<PfOptions> f =
        ParamFields<PfOptions>()
            .add("K", &PfOptions::K)
            .add("minibatch", &PfOptions::minibatch)
            .add(&PfOptions::stepSize, StepSizeOptions::fields())
            .add("local_iters", &PfOptions::localIters)
            .add("local_tol", &PfOptions::localTol)
            .add(&PfOptions::priors, pf::Priors::fields())
            .add("eval_users", &PfOptions::evalUsers)
            .add("top_n", &PfOptions::topN);
    return f;
}

PfOptions PfOptions::fromParams(const ParamValues& values, bool hierarchical)
{
    PfOptions o = DeclaredOptions::fromParams(values);
    o.priors.hierarchical = hierarchical;
    return o;
}

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
                     1000, 1, kHuge),
            intParam("top_n", "Top n", "n of precision@n and recall@n", 20, 1, kHuge)};
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
