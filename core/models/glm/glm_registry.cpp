#include "core/models/glm/glm.h"
#include "core/models/glm/glm_trainer.h"

#include <limits>

namespace svi {
namespace {

constexpr double kHuge = std::numeric_limits<double>::max();

std::vector<std::string> withAuto(std::vector<std::string> names)
{
    names.insert(names.begin(), "auto");
    return names;
}

} // namespace

std::vector<ParamSpec> GlmOptions::params(GlmAlgorithm algorithm)
{
    const bool natural = algorithm != GlmAlgorithm::SDsvi;
    const bool gradient = algorithm != GlmAlgorithm::McSsvi;
    std::vector<ParamSpec> p;
    p.push_back(choiceParam("likelihood", "Likelihood",
                            "p(y | f): auto takes logistic for two classes, poisson for counts, "
                            "gaussian for values",
                            withAuto(likelihoodNames()), "auto"));
    p.push_back(choiceParam("covariance", "Covariance of q(w)",
                            "full: N(m, S) with D² parameters; diagonal: for many features",
                            {"full", "diagonal"}, "full"));
    if (algorithm != GlmAlgorithm::BatchHybrid)
        p.push_back(intParam("minibatch", "Minibatch", "training rows per step (paper: 2,000)",
                             2000, 1, kHuge));
    p.push_back(intParam("samples", "Samples per row",
                         "Monte Carlo draws of f_i (or quadrature nodes) for α̂_i, γ̂_i (paper: 10)",
                         10, 1, 200));
    p.push_back(choiceParam("estimator", "Estimator",
                            "monte-carlo: ℓ′ and ℓ″ at draws (the paper's); reparameterised: "
                            "γ̂ from ℓ′ alone; quadrature: Gauss–Hermite, deterministic",
                            estimatorNames(), "monte-carlo"));
    if (natural) {
        const auto rate = StepSizeOptions::robbinsMonroParams(1.0, 0.0);
        p.insert(p.end(), rate.begin(), rate.end()); // 1/t, the paper's schedule
    }
    if (gradient)
        p.push_back(positiveParam("adagrad_rate", "AdaGrad rate",
                                  "gradient steps (eq. 63, 64): AdaGrad's global rate (paper: 1.0)",
                                  1.0));
    p.push_back(
        positiveParam("prior_variance", "Prior variance σ_p²", "w ~ N(0, σ_p² I) (paper: 1)", 1.0));
    p.push_back(positiveParam("init_variance", "Initial variance",
                              "q(w) starts at N(0, init_variance · I) (paper: 10)", 10.0));
    p.push_back(positiveParam(
        "noise_sd", "Noise σ",
        "gaussian likelihood: y ~ N(f, σ²), on the standardised label (the start when learnt)",
        1.0));
    p.push_back(boolParam("learn_noise", "Learn the noise",
                          "gaussian likelihood: σ² by its stochastic M-step after each update",
                          true));
    p.push_back(intParam("eval_rows", "Evaluation rows",
                         "rows (training, test) a live evaluation uses; a full pass uses all", 5000,
                         1, kHuge));
    return p;
}

std::vector<ParamSpec> GlmOptions::allParams()
{
    return mergeParams({params(GlmAlgorithm::HybridMcSsvi), params(GlmAlgorithm::McSsvi)});
}

const ParamFields<GlmOptions>& GlmOptions::fields()
{
    static const ParamFields<GlmOptions> f =
        ParamFields<GlmOptions>()
            .add("likelihood", &GlmOptions::likelihood)
            .add(
                "covariance", [](auto& o) -> auto& { return o.lgm.covariance; }, covarianceName,
                covarianceFromName)
            .add(
                "minibatch", [](auto& o) -> auto& { return o.lgm.minibatch; })
            .add("samples", &GlmOptions::samples)
            .add("estimator", &GlmOptions::estimator, estimatorName, estimatorFromName)
            .add(
                "kappa", [](auto& o) -> auto& { return o.lgm.kappa; })
            .add(
                "tau0", [](auto& o) -> auto& { return o.lgm.tau0; })
            .add(
                "adagrad_rate", [](auto& o) -> auto& { return o.lgm.adagradRate; })
            .add(
                "prior_variance", [](auto& o) -> auto& { return o.lgm.priorVariance; })
            .add(
                "init_variance", [](auto& o) -> auto& { return o.lgm.initVariance; })
            .add("noise_sd", &GlmOptions::noiseSd)
            .add("learn_noise", &GlmOptions::learnNoise)
            .add(
                "eval_rows", [](auto& o) -> auto& { return o.lgm.evalRows; });
    return f;
}

std::vector<MetricSpec> supervisedMetrics()
{
    return {
        {"test_nll", "Test NLL per example", "nats", false, true},
        {"test_error", "Test error", "%", false, false},
        {"test_rmse", "Test RMSE", "", false, false},
    };
}

void registerGlm(Registry& r)
{
    struct Algo
    {
        GlmAlgorithm algorithm;
        const char* key;
        const char* label;
        const char* help;
    };
    const Algo algos[] = {
        {GlmAlgorithm::HybridMcSsvi, "h-mc-ssvi", "H-MC-SSVI",
         "covariance by the natural-gradient step (eq. 24), mean by AdaGrad on its gradient "
         "(eq. 63): the paper's best"},
        {GlmAlgorithm::McSsvi, "mc-ssvi", "MC-SSVI",
         "natural-gradient steps of precision and mean (eq. 24–25) with ρ_t = 1/t"},
        {GlmAlgorithm::SDsvi, "s-dsvi", "S-DSVI",
         "AdaGrad on the mean (eq. 63) and the Cholesky factor (eq. 64): standard gradients"},
        {GlmAlgorithm::BatchHybrid, "h-mc-ssvi-batch", "Batch H-MC-SSVI",
         "H-MC-SSVI on every training row each step (still Monte Carlo, ρ_t = 1/t)"},
    };
    int rank = 1;
    for (const Algo& a : algos) {
        AlgorithmEntry e;
        e.model = "glm";
        e.modelLabel = "Bayesian GLM";
        e.algorithm = a.key;
        e.label = a.label;
        e.help = a.help;
        e.dataKinds = {"labelled"};
        e.compareRank = rank++;
        e.params = GlmOptions::params(a.algorithm);
        e.metrics = supervisedMetrics();
        e.bound = "the bound (3), −KL(q(w) ‖ p(w)) + Σ_i E_q[log p(y_i | f_i)] (optimal for a "
                  "GLM), the expectations by 32-node Gauss–Hermite quadrature, over eval_rows "
                  "training rows scaled by N/n unless a full pass";
        const GlmAlgorithm algorithm = a.algorithm;
        e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
            return std::make_unique<GlmTrainer>(data.requireLabelled("the Bayesian GLM"), algorithm,
                                                GlmOptions::fromParams(values), seed);
        };
        r.add(std::move(e));
    }
}

} // namespace svi
