#include "core/models/lgm/lgm_entries.h"
#include "core/models/sgp/sgp.h"

#include <limits>
#include <stdexcept>

namespace svi {

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

ParamFields<SgpOptions> SgpOptions::declare(LgmAlgorithm algorithm)
{
    using O = SgpOptions;
    ParamFields<O> f;
    f.add(choiceParam("bound", "Objective",
                      algorithm == LgmAlgorithm::FixedPoint
                          ? "standard: (3), Titsias'; optimal: (6), cubic in the training rows; "
                            "v1, v2: the paper's variants (not bounds)"
                          : "standard: (3), Titsias'; v1, v2: the paper's variants (not bounds); "
                            "optimal (6) needs the closed form",
                      {"standard", "optimal", "v1", "v2"}, "standard"),
          &O::bound, sgpBoundName, sgpBoundFromName)
        .add(intParam("inducing", "Inducing points",
                      "M, drawn from the training rows; 0 = 1 % of the data set's rows (206 "
                      "on California housing, the paper's)",
                      0, 0, kHuge),
             &O::inducing)
        .add(intParam("train_rows", "Training rows",
                      "rows fitted, drawn from the training rows by the run's seed (Figure 3's "
                      "training-set size); 0 = all",
                      0, 0, kHuge),
             &O::trainRows)
        .add(intParam("setup_seed", "Setup seed",
                      "seed of the inducing set and of the grid search's rows, fixed across "
                      "runs as in the paper",
                      1, 0, 2147483647.0),
             &O::setupSeed)
        .add(choiceParam("hyperparameters", "Hyperparameters",
                         "grid: the paper's search of the exact GP's marginal likelihood on "
                         "grid_rows training rows; given: the three values below",
                         {"grid", "given"}, "grid"),
             &O::hyperparameters)
        .add(positiveParam("length_scale", "Length scale ℓ",
                           "given: k(x, x') = s² exp(−|x − x'|² / 2ℓ²), on the features as "
                           "the model sees them (z-scored by default)",
                           1.0),
             &O::lengthScale)
        .add(positiveParam("kernel_variance", "Kernel variance s²", "given: the kernel's scale",
                           1.0),
             &O::kernelVariance)
        .add(positiveParam("noise_variance", "Noise variance σ²",
                           "given: y ~ N(f, σ²), on the (standardised) label", 0.1),
             &O::noiseVariance)
        .add(intParam("grid_rows", "Grid rows",
                      "grid: training rows whose marginal likelihood is maximised (paper: 100)",
                      100, 2, 5000),
             &O::gridRows)
        .add(intParam("grid_points", "Grid points",
                      "grid: log-spaced values per hyperparameter (paper: 20)", 20, 2, 100),
             &O::gridPoints);
    addLgmHead(f, algorithm);
    addLgmTail(f, algorithm, true); // whitened: the prior is N(0, I)
    if (algorithm == LgmAlgorithm::FixedPoint)
        f.add(realParam("tolerance", "Tolerance",
                        "v2's coordinate ascent ends when a round raises the objective by "
                        "less than this share of it",
                        1e-9, 0.0, 1.0),
              &O::tolerance);
    f.add(textParam("slice_feature", "Slice feature",
                    "the window's predictive slice: a feature's name; empty = the one most "
                    "correlated with the label"),
          &O::sliceFeature);
    addLgmEvalRows(f, 5000);
    return f;
}

const ParamFields<SgpOptions>& SgpOptions::fields()
{
    static const ParamFields<SgpOptions> f = [] {
        ParamFields<SgpOptions> all;
        all.merge(declare(LgmAlgorithm::FixedPoint))
            .merge(declare(LgmAlgorithm::HybridMcSsvi))
            .merge(declare(LgmAlgorithm::McSsvi));
        return all;
    }();
    return f;
}

void registerSgp(Registry& r)
{
    LgmModelEntry m{
        "sgp",
        "Sparse GP regression",
        "the objective chosen over the training rows (eval_rows of them scaled by N/n in a live "
        "evaluation): standard (3) and optimal (6) are lower bounds on log p(y), optimal exact; "
        "v1 and v2 are not bounds",
        {},
        {{.key = "length_scale",
          .label = "Kernel length scale",
          .higherIsBetter = false,
          .compared = false,
          .shortLabel = "Length scale"},
         {"kernel_variance", "Kernel variance", "", false, false, false},
         {"noise_variance", "Noise variance", "", false, false, false}}};
    m.smallSettings = {{"minibatch", std::int64_t(50)},
                       {"eval_rows", std::int64_t(50)},
                       {"inducing", std::int64_t(5)},
                       {"hyperparameters", std::string("given")}};
    m.divergentSettings = {{"noise_variance", 1e-310}}; // subnormal: 1/σ² overflows
    // The rows' features over the M inducing points (n × M, with the kernel's temporaries while
    // they are made), the rows themselves, the optimal bound's n × n solve, and the linear LGM's
    // matrices over M weights.
    m.memory = [](const DataSet& data, const ParamValues& v, LgmAlgorithm a) {
        using namespace memory;
        const double N = double(data.rows()), Ntr = double(data.trainingRowCount());
        const double D = double(data.cols()), given = number(v, "train_rows");
        const double n = (given > 0 ? std::min(given, Ntr) : Ntr) + (N - Ntr);
        const double inducing = number(v, "inducing");
        const double M = inducing > 0 ? inducing : std::max(1.0, std::floor(N / 100));
        std::vector<MemoryTerm> terms = {
            {"the rows' kernel features: 3 × rows × M doubles", 3 * kDouble * n * M, "inducing"},
            {"copies of the rows: 2 × rows × features doubles", 2 * kDouble * n * D, "train_rows"},
        };
        if (choice(v, "bound") == "optimal") {
            const double m = std::min(n, 5000.0);
            terms.push_back({"the optimal bound's n × n solve", 3 * kDouble * m * m, "train_rows"});
        }
        for (MemoryTerm t :
             linearLgmMemory(M, a == LgmAlgorithm::FixedPoint ? n : 0.0, v, a, "M")) {
            t.setting = t.setting == "data" ? "inducing" : t.setting;
            terms.push_back(std::move(t));
        }
        return terms;
    };
    addLgmEntries<SgpOptions, SgpTrainer>(
        r, m,
        {{LgmAlgorithm::FixedPoint,
          "every training row each step: the fixed point (ρ = 1 solves standard and v1 in one "
          "step, v2 iterates: the paper's coordinate ascent); optimal by its n × n solve"},
         {LgmAlgorithm::McSsvi,
          "minibatch natural-gradient steps of precision and mean, ρ_t = 1/t (SVGP's)"},
         {LgmAlgorithm::HybridMcSsvi, "natural-gradient steps of S, AdaGrad on the mean"},
         {LgmAlgorithm::SDsvi, "AdaGrad on the mean and the Cholesky factor"}});
}

} // namespace svi
