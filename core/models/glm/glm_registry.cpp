#include "core/models/glm/glm.h"
#include "core/models/glm/glm_trainer.h"

#include <limits>

namespace svi {
std::vector<ParamSpec> GlmOptions::params(LgmAlgorithm algorithm)
{
    std::vector<ParamSpec> p{likelihoodParam()};
    for (ParamSpec& s : lgmHeadParams(algorithm))
        p.push_back(std::move(s));
    p.push_back(intParam("samples", "Samples per row",
                         "Monte Carlo draws of f_i (or quadrature nodes) for α̂_i, γ̂_i (paper: 10)",
                         10, 1, 200));
    p.push_back(choiceParam("estimator", "Estimator",
                            "monte-carlo: ℓ′ and ℓ″ at draws (the paper's); reparameterised: "
                            "γ̂ from ℓ′ alone; quadrature: Gauss–Hermite, deterministic",
                            estimatorNames(), "monte-carlo"));
    for (ParamSpec& s : lgmTailParams(algorithm))
        p.push_back(std::move(s));
    p.push_back(positiveParam(
        "noise_sd", "Noise σ",
        "gaussian likelihood: y ~ N(f, σ²), on the standardised label (the start when learnt)",
        1.0));
    p.push_back(boolParam("learn_noise", "Learn the noise",
                          "gaussian likelihood: σ² by its stochastic M-step after each update",
                          true));
    p.push_back(lgmEvalRowsParam());
    return p;
}

std::vector<ParamSpec> GlmOptions::allParams()
{
    return mergeParams({params(LgmAlgorithm::HybridMcSsvi), params(LgmAlgorithm::McSsvi)});
}

const ParamFields<GlmOptions>& GlmOptions::fields()
{
    static const ParamFields<GlmOptions> f = [] {
        ParamFields<GlmOptions> fields;
        fields.add("likelihood", &GlmOptions::likelihood)
            .add("samples", &GlmOptions::samples)
            .add("estimator", &GlmOptions::estimator, estimatorName, estimatorFromName)
            .add("noise_sd", &GlmOptions::noiseSd)
            .add("learn_noise", &GlmOptions::learnNoise);
        addLgmFields(fields);
        return fields;
    }();
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
    addLgmEntries<GlmOptions, GlmTrainer>(
        r, "glm", "Bayesian GLM",
        "the bound (3), −KL(q(w) ‖ p(w)) + Σ_i E_q[log p(y_i | f_i)] (optimal for a GLM), the "
        "expectations by 32-node Gauss–Hermite quadrature, over eval_rows training rows scaled "
        "by N/n unless a full pass",
        {{LgmAlgorithm::HybridMcSsvi, "h-mc-ssvi", "H-MC-SSVI",
          "covariance by the natural-gradient step (eq. 24), mean by AdaGrad on its gradient "
          "(eq. 63): the paper's best"},
         {LgmAlgorithm::McSsvi, "mc-ssvi", "MC-SSVI",
          "natural-gradient steps of precision and mean (eq. 24–25) with ρ_t = 1/t"},
         {LgmAlgorithm::SDsvi, "s-dsvi", "S-DSVI",
          "AdaGrad on the mean (eq. 63) and the Cholesky factor (eq. 64): standard gradients"},
         {LgmAlgorithm::BatchHybrid, "h-mc-ssvi-batch", "Batch H-MC-SSVI",
          "H-MC-SSVI on every training row each step (still Monte Carlo, ρ_t = 1/t)"}});
}

} // namespace svi
