#include "core/models/glm/glm.h"
#include "core/models/glm/gme.h"
#include "core/models/lgm/lgm_entries.h"

namespace svi {

ParamFields<GmeOptions> GmeOptions::declare(LgmAlgorithm algorithm)
{
    using O = GmeOptions;
    ParamFields<O> f;
    f.add(likelihoodParam(), &O::likelihood)
        .add(choiceParam("bound", "Bound",
                         "optimal: (8), log E_p(f|w)[p(y | f)] under q(w); simple: (3), "
                         "E_q(w)p(f|w)[log p(y | f)], Jensen's step below it; mean-field: "
                         "q(w) Π q(f_i), each q(f_i) fitted in the local step (App. A.4)",
                         {"optimal", "simple", "mean-field"}, "optimal"),
             &O::bound, gmeBoundName, gmeBoundFromName);
    addLgmHead(f, algorithm);
    f.add(intParam("samples", "Samples per row",
                   "draws of (x_iᵀw1, w2) per row (quadrature: nodes of each) (paper: 10)", 10, 1,
                   100),
          &O::samples)
        .add(intParam("inner_nodes", "Inner nodes",
                      "Gauss–Hermite nodes of the expectation over f given w (the paper drew "
                      "100 samples)",
                      20, 2, 200),
             &O::innerNodes)
        .add(choiceParam("estimator", "Estimator",
                         "monte-carlo: draws of (x_iᵀw1, w2), the paper's; quadrature: "
                         "Gauss–Hermite × Rayleigh quantiles, deterministic",
                         {"monte-carlo", "quadrature"}, "monte-carlo"),
             &O::estimator, estimatorName, estimatorFromName);
    addLgmTail(f, algorithm);
    f.add(positiveParam("tau", "Prior scale τ", "w2 ~ Rayleigh(τ) (paper: 5)", 5.0), &O::tau)
        .add(
            positiveParam("init_sigma", "Initial σ", "q(w2) starts at Rayleigh(σ) (paper: 1)", 1.0),
            &O::initSigma)
        .add(positiveParam("noise_sd", "Noise σ",
                           "gaussian likelihood: y ~ N(f, σ²), on the standardised label", 1.0),
             &O::noiseSd);
    addLgmEvalRows(f, 150); // 2 ms a row: inner quadrature over w2
    return f;
}

const ParamFields<GmeOptions>& GmeOptions::fields()
{
    static const ParamFields<GmeOptions> f = [] {
        ParamFields<GmeOptions> all;
        all.merge(declare(LgmAlgorithm::HybridMcSsvi)).merge(declare(LgmAlgorithm::McSsvi));
        return all;
    }();
    return f;
}

void registerGme(Registry& r)
{
    LgmModelEntry m{
        "gme", "GLM with Rayleigh-variance noise (GME)",
        "the bound chosen (optimal (8), simple (3) or mean-field (92)) less KL(q(w1) ‖ p(w1)) "
        "and KL(q(w2) ‖ p(w2)), by Gauss–Hermite quadrature over x_iᵀw1 and f and 16-node "
        "Gauss–Rayleigh quadrature over w2, on eval_rows training rows scaled by N/n"};
    m.smallSettings = {{"minibatch", std::int64_t(50)},
                       {"eval_rows", std::int64_t(50)},
                       {"samples", std::int64_t(2)},
                       {"inner_nodes", std::int64_t(4)}};
    m.divergentSettings = {{"tau", 1e-300}}; // σ²/τ² overflows in KL(q(w2) ‖ p(w2))
    m.memory = [](const DataSet& data, const ParamValues& values, LgmAlgorithm a) {
        // q(w1) and q(w2), each over the D features.
        std::vector<MemoryTerm> terms =
            linearLgmMemory(double(data.cols()), double(data.trainingRowCount()), values, a);
        for (MemoryTerm t : linearLgmMemory(double(data.cols()), 0.0, values, a)) {
            t.what += " (of w2)";
            terms.push_back(std::move(t));
        }
        return terms;
    };
    addLgmEntries<GmeOptions, GmeTrainer>(
        r, m,
        {{LgmAlgorithm::HybridMcSsvi,
          "natural-gradient steps of S and of q(w2), AdaGrad on the mean: the paper's best"},
         {LgmAlgorithm::McSsvi,
          "natural-gradient steps of precision, mean and q(w2) with ρ_t = 1/t"},
         {LgmAlgorithm::SDsvi,
          "AdaGrad on the mean, the Cholesky factor and σ: standard gradients"}});
}

} // namespace svi
