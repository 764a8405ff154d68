#include "core/models/bpfa/bpfa.h"
#include "core/models/bpfa/bpfa_trainer.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

// Every algorithm but the batch sampler is stochastic.
bool stochastic(BpfaAlgorithm a)
{
    return a != BpfaAlgorithm::BatchGibbs;
}

// Gibbs-SSVI and Mimno-SVI sample their local factors; the others run coordinate ascent.
bool gibbsLocal(BpfaAlgorithm a)
{
    return a == BpfaAlgorithm::GibbsSsvi || a == BpfaAlgorithm::MimnoSvi;
}

std::vector<ParamSpec> bpfaGibbsParams()
{
    return {
        intParam("burnin", "Burn-in sweeps", "local Gibbs sweeps discarded per item", 3, 0, 10000),
        intParam("samples", "Kept sweeps", "local Gibbs sweeps averaged per item", 3, 1, 10000),
        intParam("eval_burnin", "Evaluation burn-in",
                 "local Gibbs sweeps discarded per item when scoring / reconstructing", 3, 0,
                 10000),
        intParam("eval_kept", "Evaluation kept sweeps",
                 "local Gibbs sweeps averaged per item when scoring / reconstructing", 3, 1,
                 10000)};
}

std::vector<ParamSpec> ascentParams()
{
    return {intParam("local_iters", "Local sweeps", "coordinate-ascent sweeps per item at most", 20,
                     1, 10000),
            realParam("local_tol", "Local tolerance",
                      "stop the local sweeps when no θ_k and no E[z_k w_k]·‖φ_k‖ moved by tol",
                      1e-3, 0.0, 1.0)};
}

// Image metrics lead on images; the held-out log-likelihood (eq. 12) leads on tables. The
// running PSNR comes first, as the one a live chart of an image run shows (every snapshot
// has it; the full-pass PSNR only the full passes).
std::vector<MetricSpec> bpfaMetrics()
{
    const std::vector<std::string> images = {"image"};
    return {
        {"psnr_running", "PSNR, running reconstruction", "dB", true, false, true, images},
        {"psnr", "PSNR, full pass", "dB", true, true, true, images},
        {"psnr_missing", "PSNR on missing pixels", "dB", true, false, true, images},
        {"psnr_observed", "PSNR of the fit to the observed pixels", "dB", true, false, false,
         images},
        {"heldout_loglik", "Held-out log-likelihood per entry", "nats", true, true},
        {"heldout_loglik_total", "Held-out log-likelihood, test-set total", "nats", true, false,
         false},
        {"mse", "Held-out MSE", "normalised units", false},
        {"atoms_per_item", "Atoms per item", "", true, false, false},
        {"features_used", "Features in use", "", true, false, false},
        {"noise_sd", "Learned noise σ", "data units", true, false, false},
    };
}

// Compare's order, the paper's: MF-SVI, MF-SSVI, Titsias-SSVI, Mimno-SVI, Gibbs-SSVI; the batch
// sampler is its baseline, not one of the compared five.
int compareRank(BpfaAlgorithm a)
{
    switch (a) {
    case BpfaAlgorithm::MfSvi:
        return 1;
    case BpfaAlgorithm::MfSsvi:
        return 2;
    case BpfaAlgorithm::TitsiasSsvi:
        return 3;
    case BpfaAlgorithm::MimnoSvi:
        return 4;
    case BpfaAlgorithm::GibbsSsvi:
        return 5;
    case BpfaAlgorithm::BatchGibbs:
        return 0;
    }
    return 0;
}

// What each algorithm's ELBO trace is (see BpfaTrainer::evaluate). Mean-field methods optimise
// their own bound and are scored by it; the sampling methods' bounds have no closed form and are
// bounded below by the best spike-and-slab factors.
std::string bound(BpfaAlgorithm a)
{
    const std::string mc = " at each of eval_samples draws β ~ q(β), averaged (Monte Carlo)";
    auto structuredBound = [&](const std::string& family) {
        return "structured ELBO E_q(β)[local bound] − KL(q(β)‖p(β)), the local bound of the "
               "optimised " +
               family + " factors" + mc;
    };
    switch (a) {
    case BpfaAlgorithm::MfSvi:
        return "mean-field ELBO: the optimised q(z_k)q(w_k) of each item under E_q(β)";
    case BpfaAlgorithm::MfSsvi:
        return structuredBound("mean-field");
    case BpfaAlgorithm::TitsiasSsvi:
        return structuredBound("spike-and-slab");
    case BpfaAlgorithm::MimnoSvi:
        return "lower bound of its ELBO: the local optimum exp(E_q(β) log p) replaced by the best "
               "spike-and-slab factors under E_q(β)";
    case BpfaAlgorithm::GibbsSsvi:
        return "lower bound of its structured ELBO E_q(β)[log p(y_i | β)] − KL: log p(y_i | β) "
               "bounded by the best spike-and-slab factors" +
               mc;
    case BpfaAlgorithm::BatchGibbs:
        return "none: a sampler has no bound";
    }
    return {};
}

void add(Registry& r, BpfaAlgorithm algorithm, std::string key, std::string label, std::string help)
{
    AlgorithmEntry e;
    e.model = "bpfa";
    e.modelLabel = "Beta process factor analysis";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"image", "table", "synthetic"};
    e.metrics = bpfaMetrics();
    e.bound = bound(algorithm);
    e.compareRank = compareRank(algorithm);
    e.readsParts = stochastic(algorithm);
    e.params = BpfaOptions::params(algorithm);
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<BpfaTrainer>(data.requireDense("BPFA"), algorithm,
                                             BpfaOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace

std::vector<ParamSpec> BpfaOptions::params(BpfaAlgorithm algorithm)
{
    const bool svi = stochastic(algorithm);
    std::vector<ParamSpec> p;
    p.push_back(
        intParam("K", "Features K", "truncation level: number of dictionary atoms", 256, 1, 4096));
    if (svi)
        p.push_back(intParam("minibatch", "Minibatch", "items per stochastic step", 256, 1, kHuge));
    const auto local = !svi                    ? std::vector<ParamSpec>{}
                       : gibbsLocal(algorithm) ? bpfaGibbsParams()
                                               : ascentParams();
    p.insert(p.end(), local.begin(), local.end());
    if (svi) {
        const auto step = StepSizeOptions::params(0.75, 0.0);
        p.insert(p.end(), step.begin(), step.end());
        p.push_back(choiceParam("init", "Initialisation",
                                "random atoms, or a short batch Gibbs run on a random subset",
                                {"gibbs", "random"}, "gibbs"));
        p.push_back(intParam("init_items", "Gibbs init items",
                             "items in the Gibbs initialisation subset", 2000, 1, kHuge));
        p.push_back(intParam("init_sweeps", "Gibbs init sweeps",
                             "batch Gibbs iterations of the initialisation", 20, 0, 100000));
        p.push_back(choiceParam(
            "noise_fit", "Noise fit",
            "model: q(γ_obs) from every observed entry's residual (eq. 7); predictive: from one "
            "observed entry per item left out of its local step (the error on unseen entries)",
            {"predictive", "model"}, "predictive"));
    }
    const auto prior = bpfa::Prior::params();
    p.insert(p.end(), prior.begin(), prior.end());
    p.push_back(intParam("eval_items", "Evaluation items",
                         "items whose held-out entries are scored at each snapshot", 1000, 1,
                         kHuge));
    p.push_back(intParam("eval_samples", "Evaluation samples",
                         "Monte Carlo draws M of the held-out likelihood (eq. 12)", 5, 1, 1000));
    return p;
}

std::vector<ParamSpec> BpfaOptions::allParams()
{
    std::vector<std::vector<ParamSpec>> lists;
    for (BpfaAlgorithm a :
         {BpfaAlgorithm::GibbsSsvi, BpfaAlgorithm::MimnoSvi, BpfaAlgorithm::MfSvi,
          BpfaAlgorithm::MfSsvi, BpfaAlgorithm::TitsiasSsvi, BpfaAlgorithm::BatchGibbs})
        lists.push_back(params(a));
    return mergeParams(lists);
}

const ParamFields<BpfaOptions>& BpfaOptions::fields()
{
    static const ParamFields<BpfaOptions> f = [] {
        ParamFields<BpfaOptions> b;
        b.add("K", &BpfaOptions::K)
            .add("minibatch", &BpfaOptions::minibatch)
            .add("burnin", &BpfaOptions::burnin)
            .add("samples", &BpfaOptions::samples)
            .add("eval_burnin", &BpfaOptions::evalBurnin)
            .add("eval_kept", &BpfaOptions::evalKept)
            .add("local_iters", &BpfaOptions::localIters)
            .add("local_tol", &BpfaOptions::localTol);
        addStepSizeFields(b);
        b.add("init", &BpfaOptions::init)
            .add("init_items", &BpfaOptions::initItems)
            .add("init_sweeps", &BpfaOptions::initSweeps)
            .add("noise_fit", &BpfaOptions::noiseFit)
            .add(&BpfaOptions::prior, bpfa::Prior::fields())
            .add("eval_items", &BpfaOptions::evalItems)
            .add("eval_samples", &BpfaOptions::evalSamples);
        return b;
    }();
    return f;
}

void registerBpfa(Registry& r)
{
    add(r, BpfaAlgorithm::GibbsSsvi, "gibbs-ssvi", "Gibbs-SSVI",
        "β sampled from q(β); exact local conditional by Gibbs sampling");
    add(r, BpfaAlgorithm::MimnoSvi, "mimno-svi", "Mimno-SVI",
        "local Gibbs sampling from exp(E_q(β)[log p(ψ_i | y_i, β)])");
    add(r, BpfaAlgorithm::MfSvi, "mf-svi", "MF-SVI",
        "mean-field local factors, expectations under q(β) (Hoffman et al. 2013)");
    add(r, BpfaAlgorithm::MfSsvi, "mf-ssvi", "MF-SSVI",
        "β sampled from q(β); mean-field local factors given it");
    add(r, BpfaAlgorithm::TitsiasSsvi, "titsias-ssvi", "Titsias-SSVI",
        "β sampled from q(β); spike-and-slab local factors (Titsias & Lázaro-Gredilla)");
    add(r, BpfaAlgorithm::BatchGibbs, "gibbs", "Batch Gibbs",
        "uncollapsed Gibbs sampler over all items (the paper's baseline)");
}

} // namespace svi
