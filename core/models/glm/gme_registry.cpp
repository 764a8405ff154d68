#include "core/models/glm/glm.h"
#include "core/models/glm/gme.h"

namespace svi {

std::vector<ParamSpec> GmeOptions::params(LgmAlgorithm algorithm)
{
    std::vector<ParamSpec> p{likelihoodParam()};
    p.push_back(choiceParam("bound", "Bound",
                            "optimal: (8), log E_p(f|w)[p(y | f)] under q(w); simple: (3), "
                            "E_q(w)p(f|w)[log p(y | f)], Jensen's step below it; mean-field: "
                            "q(w) Π q(f_i), each q(f_i) fitted in the local step (App. A.4)",
                            {"optimal", "simple", "mean-field"}, "optimal"));
    for (ParamSpec& s : lgmHeadParams(algorithm))
        p.push_back(std::move(s));
    p.push_back(intParam("samples", "Samples per row",
                         "draws of (x_iᵀw1, w2) per row (quadrature: nodes of each) (paper: 10)",
                         10, 1, 100));
    p.push_back(intParam("inner_nodes", "Inner nodes",
                         "Gauss–Hermite nodes of the expectation over f given w (the paper drew "
                         "100 samples)",
                         20, 2, 200));
    p.push_back(choiceParam("estimator", "Estimator",
                            "monte-carlo: draws of (x_iᵀw1, w2), the paper's; quadrature: "
                            "Gauss–Hermite × Rayleigh quantiles, deterministic",
                            {"monte-carlo", "quadrature"}, "monte-carlo"));
    for (ParamSpec& s : lgmTailParams(algorithm))
        p.push_back(std::move(s));
    p.push_back(positiveParam("tau", "Prior scale τ", "w2 ~ Rayleigh(τ) (paper: 5)", 5.0));
    p.push_back(
        positiveParam("init_sigma", "Initial σ", "q(w2) starts at Rayleigh(σ) (paper: 1)", 1.0));
    p.push_back(positiveParam("noise_sd", "Noise σ",
                              "gaussian likelihood: y ~ N(f, σ²), on the standardised label", 1.0));
    p.push_back(lgmEvalRowsParam());
    return p;
}

std::vector<ParamSpec> GmeOptions::allParams()
{
    return mergeParams({params(LgmAlgorithm::HybridMcSsvi), params(LgmAlgorithm::McSsvi)});
}

const ParamFields<GmeOptions>& GmeOptions::fields()
{
    static const ParamFields<GmeOptions> f = [] {
        ParamFields<GmeOptions> fields;
        fields.add("likelihood", &GmeOptions::likelihood)
            .add("bound", &GmeOptions::bound, gmeBoundName, gmeBoundFromName)
            .add("samples", &GmeOptions::samples)
            .add("inner_nodes", &GmeOptions::innerNodes)
            .add("estimator", &GmeOptions::estimator, estimatorName, estimatorFromName)
            .add("tau", &GmeOptions::tau)
            .add("init_sigma", &GmeOptions::initSigma)
            .add("noise_sd", &GmeOptions::noiseSd);
        addLgmFields(fields);
        return fields;
    }();
    return f;
}

void registerGme(Registry& r)
{
    addLgmEntries<GmeOptions, GmeTrainer>(
        r, "gme", "GLM with Rayleigh-variance noise (GME)",
        "the bound chosen (optimal (8), simple (3) or mean-field (92)) less KL(q(w1) ‖ p(w1)) "
        "and KL(q(w2) ‖ p(w2)), by Gauss–Hermite quadrature over x_iᵀw1 and f and 16-node "
        "Gauss–Rayleigh quadrature over w2, on eval_rows training rows scaled by N/n",
        {{LgmAlgorithm::HybridMcSsvi, "h-mc-ssvi", "H-MC-SSVI",
          "natural-gradient steps of S and of q(w2), AdaGrad on the mean: the paper's best"},
         {LgmAlgorithm::McSsvi, "mc-ssvi", "MC-SSVI",
          "natural-gradient steps of precision, mean and q(w2) with ρ_t = 1/t"},
         {LgmAlgorithm::SDsvi, "s-dsvi", "S-DSVI",
          "AdaGrad on the mean, the Cholesky factor and σ: standard gradients"}});
}

} // namespace svi
