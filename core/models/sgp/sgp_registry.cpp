#include "core/models/glm/glm.h"
#include "core/models/sgp/sgp.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

} // namespace

std::string sgpBoundName(SgpBound b)
{
    switch (b) {
    case SgpBound::Standard:
        return "standard";
    case SgpBound::Optimal:
        return "optimal";
    case SgpBound::V1:
        return "v1";
    case SgpBound::V2:
        return "v2";
    }
    return "standard";
}

SgpBound sgpBoundFromName(const std::string& name)
{
    for (SgpBound b : {SgpBound::Standard, SgpBound::Optimal, SgpBound::V1, SgpBound::V2})
        if (sgpBoundName(b) == name)
            return b;
    throw std::invalid_argument("bound: '" + name + "' is not standard, optimal, v1 or v2");
}

std::vector<ParamSpec> SgpOptions::params(LgmAlgorithm algorithm)
{
    std::vector<ParamSpec> p;
    p.push_back(choiceParam(
        "bound", "Objective",
        algorithm == LgmAlgorithm::FixedPoint
            ? "standard: (3), Titsias'; optimal: (6), cubic in the training rows; v1, v2: the "
              "paper's variants (not bounds)"
            : "standard: (3), Titsias'; v1, v2: the paper's variants (not bounds); optimal (6) "
              "needs the closed form",
        {"standard", "optimal", "v1", "v2"}, "standard"));
    p.push_back(intParam("inducing", "Inducing points",
                         "M, drawn from the training rows; 0 = 1 % of the data set's rows (206 "
                         "on California housing, the paper's)",
                         0, 0, kHuge));
    p.push_back(intParam("train_rows", "Training rows",
                         "rows fitted, drawn from the training rows by the run's seed (Figure 3's "
                         "training-set size); 0 = all",
                         0, 0, kHuge));
    p.push_back(intParam("setup_seed", "Setup seed",
                         "seed of the inducing set and of the grid search's rows, fixed across "
                         "runs as in the paper",
                         1, 0, 2147483647.0));
    p.push_back(choiceParam("hyperparameters", "Hyperparameters",
                            "grid: the paper's search of the exact GP's marginal likelihood on "
                            "grid_rows training rows; given: the three values below",
                            {"grid", "given"}, "grid"));
    p.push_back(positiveParam("length_scale", "Length scale ℓ",
                              "given: k(x, x') = s² exp(−|x − x'|² / 2ℓ²), on the features as "
                              "the model sees them (z-scored by default)",
                              1.0));
    p.push_back(
        positiveParam("kernel_variance", "Kernel variance s²", "given: the kernel's scale", 1.0));
    p.push_back(positiveParam("noise_variance", "Noise variance σ²",
                              "given: y ~ N(f, σ²), on the (standardised) label", 0.1));
    p.push_back(intParam("grid_rows", "Grid rows",
                         "grid: training rows whose marginal likelihood is maximised (paper: 100)",
                         100, 2, 5000));
    p.push_back(intParam("grid_points", "Grid points",
                         "grid: log-spaced values per hyperparameter (paper: 20)", 20, 2, 100));
    for (ParamSpec& s : lgmHeadParams(algorithm))
        p.push_back(std::move(s));
    for (ParamSpec& s : lgmTailParams(algorithm)) {
        if (s.key == "prior_variance")
            continue; // the whitened prior is N(0, I)
        if (s.key == "init_variance")
            s = positiveParam("init_variance", "Initial variance",
                              "q(w) starts at N(0, init_variance · I); 1 is the prior", 1.0);
        p.push_back(std::move(s));
    }
    if (algorithm == LgmAlgorithm::FixedPoint)
        p.push_back(realParam("tolerance", "Tolerance",
                              "v2's coordinate ascent ends when a round raises the objective by "
                              "less than this share of it",
                              1e-9, 0.0, 1.0));
    p.push_back(textParam("slice_feature", "Slice feature",
                          "the window's predictive slice: a feature's name; empty = the one most "
                          "correlated with the label"));
    p.push_back(lgmEvalRowsParam());
    return p;
}

std::vector<ParamSpec> SgpOptions::allParams()
{
    return mergeParams({params(LgmAlgorithm::FixedPoint), params(LgmAlgorithm::HybridMcSsvi),
                        params(LgmAlgorithm::McSsvi)});
}

const ParamFields<SgpOptions>& SgpOptions::fields()
{
    static const ParamFields<SgpOptions> f = [] {
        ParamFields<SgpOptions> fields;
        fields.add("bound", &SgpOptions::bound, sgpBoundName, sgpBoundFromName)
            .add("inducing", &SgpOptions::inducing)
            .add("train_rows", &SgpOptions::trainRows)
            .add("setup_seed", &SgpOptions::setupSeed)
            .add("hyperparameters", &SgpOptions::hyperparameters)
            .add("length_scale", &SgpOptions::lengthScale)
            .add("kernel_variance", &SgpOptions::kernelVariance)
            .add("noise_variance", &SgpOptions::noiseVariance)
            .add("grid_rows", &SgpOptions::gridRows)
            .add("grid_points", &SgpOptions::gridPoints)
            .add("slice_feature", &SgpOptions::sliceFeature)
            .add("tolerance", &SgpOptions::tolerance);
        addLgmFields(fields, LgmKeys{false, true});
        return fields;
    }();
    return f;
}

void registerSgp(Registry& r)
{
    addLgmEntries<SgpOptions, SgpTrainer>(
        r, "sgp", "Sparse GP regression",
        "the objective chosen over the training rows (eval_rows of them scaled by N/n in a live "
        "evaluation): standard (3) and optimal (6) are lower bounds on log p(y), optimal exact; "
        "v1 and v2 are not bounds",
        {{LgmAlgorithm::FixedPoint, "closed-form", "Closed form",
          "every training row each step: the fixed point (ρ = 1 solves standard and v1 in one "
          "step, v2 iterates: the paper's coordinate ascent); optimal by its n × n solve"},
         {LgmAlgorithm::McSsvi, "mc-ssvi", "MC-SSVI",
          "minibatch natural-gradient steps of precision and mean, ρ_t = 1/t (SVGP's)"},
         {LgmAlgorithm::HybridMcSsvi, "h-mc-ssvi", "H-MC-SSVI",
          "natural-gradient steps of S, AdaGrad on the mean"},
         {LgmAlgorithm::SDsvi, "s-dsvi", "S-DSVI", "AdaGrad on the mean and the Cholesky factor"}},
        {{"length_scale", "Kernel length scale", "", false, false, false},
         {"kernel_variance", "Kernel variance", "", false, false, false},
         {"noise_variance", "Noise variance", "", false, false, false}});
}

} // namespace svi
