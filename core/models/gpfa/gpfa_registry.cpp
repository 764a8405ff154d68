#include "core/models/bbvi/black_box_trainer.h"
#include "core/models/gpfa/gpfa.h"
#include "core/models/gpfa/gpfa_synthetic.h"
#include "core/models/gpfa/gpfa_trainer.h"
#include "core/models/memory_terms.h"

#include <limits>

namespace svi {
namespace {

// Perplexity leads on row splits (paper 003's Figure 5), the held-out log-likelihood on entry
// splits (the tables' protocol, as BPFA's), where there are no test rows.
std::vector<MetricSpec> gpfaMetrics()
{
    return {
        {.key = "perplexity",
         .label = "Held-out perplexity (NLL per test row)",
         .unit = "nats",
         .higherIsBetter = false,
         .headline = true,
         .shortLabel = "Perplexity"},
        {.key = "heldout_loglik",
         .label = "Held-out log-likelihood per entry",
         .unit = "nats",
         .headline = true,
         .shortLabel = "Held-out LL"},
        {"mse", "Held-out MSE", "normalised units", false},
        {.key = "amari_error",
         .label = "Amari error of the loadings",
         .higherIsBetter = false,
         .dataKinds = {"synthetic"},
         .shortLabel = "Amari error"},
        {"factors_used", "Factors in use", "", true, false, false},
        {"noise_sd", "Learned noise σ", "data units", true, false, false},
        {.key = "shrinkage",
         .label = "Ledoit–Wolf shrinkage intensity",
         .compared = false,
         .shortLabel = "Shrinkage"},
        gradientVarianceMetric(),
    };
}

std::string bound(GpfaAlgorithm a)
{
    switch (a) {
    case GpfaAlgorithm::GammaSgvb:
    case GpfaAlgorithm::NormSgvb:
    case GpfaAlgorithm::Bbvi:
        return "the evidence lower bound of the collapsed model (eq. 16, 19) under q, from "
               "elbo_samples draws (Monte Carlo); incomplete rows enter through a minibatch";
    case GpfaAlgorithm::Map:
        return "not a bound: the log joint (eq. 16, 19) at the MAP point";
    case GpfaAlgorithm::Empirical:
    case GpfaAlgorithm::LedoitWolf:
        return "none: a closed-form covariance estimate has no bound";
    }
    return {};
}

ParamSpec trainRowsParam()
{
    return intParam("train_rows", "Training rows",
                    "use at most this many training rows, the same ones for every algorithm and "
                    "seed (nested as it grows); 0 = every one",
                    0, 0, kHuge);
}

void add(Registry& r, GpfaAlgorithm algorithm, int rank, std::string key, std::string label,
         std::string help)
{
    AlgorithmEntry e;
    e.model = "gpfa";
    e.modelLabel = "Gamma process factor analysis";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"table", "synthetic"};
    e.metrics = gpfaMetrics();
    e.bound = bound(algorithm);
    e.compareRank = rank;
    if (algorithm == GpfaAlgorithm::Bbvi) {
        e.params = GpfaBbviOptions::declare().specs();
        e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
            return std::make_unique<GpfaTrainer>(data.requireDense("GPFA"),
                                                 GpfaBbviOptions::fromParams(values), seed);
        };
        e.readOptions = optionsReader<GpfaBbviOptions>();
    } else {
        e.params = GpfaOptions::declare(algorithm).specs();
        e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
            return std::make_unique<GpfaTrainer>(data.requireDense("GPFA"), algorithm,
                                                 GpfaOptions::fromParams(values), seed);
        };
        e.readOptions = optionsReader<GpfaOptions>();
    }
    // GPFA's D × D matrices (D: the table's columns), which no setting but the data's shape
    // changes: the scatter's per-chunk partials, the likelihood's scratch and each
    // evaluation's draws and scorer (about 80 at once, at most); the loadings besides.
    e.memory = [bbvi = algorithm == GpfaAlgorithm::Bbvi](const DataSet& data,
                                                         const ParamValues& v) {
        using namespace memory;
        const double D = double(data.cols()), K = number(v, "K");
        std::vector<MemoryTerm> terms{
            {"the D × D matrices of the scatter, the likelihood and an evaluation: about 80 × "
             "columns² doubles",
             80 * kDouble * D * D,
             "the table's columns (" + settingRef("channels") + ", or " + settingRef("transpose") +
                 ")"},
            {"the loadings' q and the optimizer", 15 * kDouble * (D * K + K + 4), "K"},
        };
        // BBVI: S draws of q with their scores, and per draw the blankets or gradients.
        if (bbvi)
            terms.push_back({"S draws of q: about 10 × draws × columns × K doubles",
                             10 * kDouble * number(v, "draws") * (D * K + K + 4), "draws"});
        return terms;
    };
    e.smallSettings = {{"K", std::int64_t(3)},
                       {"cov_draws", std::int64_t(5)},
                       {"elbo_samples", std::int64_t(2)},
                       {"draws", std::int64_t(4)},
                       {"variance_repeats", std::int64_t(2)}};
    // A noise prior shape of 1e308: log Γ(a_τ) overflows the log joint (the SGVB algorithms);
    // one training row: the baselines' estimate is singular (rank 1), its precision infinite.
    e.divergentSettings = {{"noise_a", 1e308}, {"train_rows", std::int64_t(1)}};
    r.add(std::move(e));
}

} // namespace

namespace {

ParamSpec minibatchParam()
{
    return intParam("minibatch", "Incomplete rows per step",
                    "training rows with a held-out or missing entry, drawn per step (their "
                    "marginal likelihood); complete rows are always used; 0 = every one",
                    256, 0, kHuge);
}

ParamSpec kParam()
{
    return intParam("K", "Factors K",
                    "truncation level of the gamma process: factors fitted (paper 003: 40 on "
                    "CyTOF, 10 on its synthetic data)",
                    40, 1, 4096);
}

ParamSpec covDrawsParam()
{
    return intParam("cov_draws", "Covariance draws S",
                    "draws of q averaged into the covariance that scores rows (eq. 20)", 100, 1,
                    100000);
}

} // namespace

ParamFields<GpfaBbviOptions> GpfaBbviOptions::declare()
{
    using O = GpfaBbviOptions;
    // One item (the complete rows' scatter and the step's minibatch of incomplete rows); the
    // optimizer RMSprop at 0.1 decaying with κ = 0.6, as on the GLMM.
    return ParamFields<O>()
        .add(kParam(), &O::K)
        .add(&O::bbvi, BbviOptions::declare(false, 1, 0, 16, 0.6, true))
        .add(&O::prior, gpfa::Prior::declare())
        .add(covDrawsParam(), &O::covDraws)
        .add(minibatchParam(), &O::minibatch)
        .add(trainRowsParam(), &O::trainRows);
}

const ParamFields<GpfaBbviOptions>& GpfaBbviOptions::fields()
{
    static const ParamFields<GpfaBbviOptions> f = declare();
    return f;
}

GpfaOptions GpfaBbviOptions::common() const
{
    GpfaOptions o;
    o.K = K;
    o.prior = prior;
    o.covDraws = covDraws;
    o.minibatch = minibatch;
    o.trainRows = trainRows;
    return o;
}

ParamFields<GpfaOptions> GpfaOptions::declare(GpfaAlgorithm algorithm)
{
    using O = GpfaOptions;
    ParamFields<O> f;
    if (algorithm == GpfaAlgorithm::Empirical || algorithm == GpfaAlgorithm::LedoitWolf) {
        f.add(trainRowsParam(), &O::trainRows);
        return f;
    }
    const SgvbMethod method = algorithm == GpfaAlgorithm::GammaSgvb  ? SgvbMethod::Gamma
                              : algorithm == GpfaAlgorithm::NormSgvb ? SgvbMethod::Normal
                                                                     : SgvbMethod::Map;
    f.add(kParam(), &O::K)
        .add(&O::sgvb, SgvbOptions::declare(method))
        .add(&O::prior, gpfa::Prior::declare());
    if (method != SgvbMethod::Map)
        f.add(covDrawsParam(), &O::covDraws);
    f.add(minibatchParam(), &O::minibatch).add(trainRowsParam(), &O::trainRows);
    return f;
}

const ParamFields<GpfaOptions>& GpfaOptions::fields()
{
    static const ParamFields<GpfaOptions> f = [] {
        ParamFields<GpfaOptions> all;
        for (GpfaAlgorithm a :
             {GpfaAlgorithm::GammaSgvb, GpfaAlgorithm::NormSgvb, GpfaAlgorithm::Map,
              GpfaAlgorithm::Empirical, GpfaAlgorithm::LedoitWolf})
            all.merge(declare(a));
        return all;
    }();
    return f;
}

void registerGpfa(Registry& r)
{
    add(r, GpfaAlgorithm::GammaSgvb, 1, "gamma-sgvb", "Gamma SGVB",
        "q a product of gammas over W, r, γ, γ0, c0 and 1/σ², fitted by SGVB through the inverse "
        "CDF (paper 003), factors integrated out");
    add(r, GpfaAlgorithm::NormSgvb, 2, "norm-sgvb", "NormSGVB",
        "q a factorised normal on the softplus-inverse of each variable (the ADVI-style baseline)");
    add(r, GpfaAlgorithm::Map, 3, "map", "MAP",
        "gradient ascent on the log joint, each variable through the softplus");
    add(r, GpfaAlgorithm::Empirical, 4, "empirical", "Empirical covariance",
        "the complete training rows' maximum-likelihood covariance S/n (zero mean)");
    add(r, GpfaAlgorithm::LedoitWolf, 5, "ledoit-wolf", "Ledoit–Wolf shrinkage",
        "the empirical covariance shrunk towards μI with Ledoit & Wolf's optimal intensity");
    add(r, GpfaAlgorithm::Bbvi, 0, "bbvi", "BBVI",
        "black-box VI (paper 004 §2.5): score-function gradients of gamma SGVB's q from S draws, "
        "Rao-Blackwellised over each variable's blanket, with control variates (or, estimator "
        "= reparam, its reparameterised gradient at S draws)");
    // Paper 003's Sec. 4.2 data for the synthetic table, with their true loadings, which the
    // fit's Amari error is scored against.
    r.addGenerator({
        .key = "gpfa",
        .help = "paper 003's GPFA data, y = W x + ε, W_dk ~ 0.8 δ₀ + 0.2 U[0, 1], x ~ N(0, I), "
                "noise variance 0.1, left as drawn (the paper: cols 50, true_k 10)",
        .drawn = "drawn as paper 003's GPFA data",
        .ignoredSettings = {"loading_var"}, // its loadings have no variance setting
        .draw =
            [](const SyntheticTableOptions& o) {
                GpfaSyntheticOptions go;
                go.N = o.rows;
                go.D = o.cols;
                go.K = o.trueK;
                go.seed = o.seed;
                return makeGpfaSynthetic(go);
            },
    });
}

} // namespace svi
