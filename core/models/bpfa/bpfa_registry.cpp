#include "core/models/bpfa/bpfa.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "core/models/memory_terms.h"
#include "core/run/no_bound.h"

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

using BpfaFields = ParamFields<BpfaOptions>;

void addGibbsFields(BpfaFields& f)
{
    f.add(
         intParam("burnin", "Burn-in sweeps", "local Gibbs sweeps discarded per item", 3, 0, 10000),
         &BpfaOptions::burnin)
        .add(
            intParam("samples", "Kept sweeps", "local Gibbs sweeps averaged per item", 3, 1, 10000),
            &BpfaOptions::samples)
        .add(intParam("eval_burnin", "Evaluation burn-in",
                      "local Gibbs sweeps discarded per item when scoring / reconstructing", 3, 0,
                      10000),
             &BpfaOptions::evalBurnin)
        .add(intParam("eval_kept", "Evaluation kept sweeps",
                      "local Gibbs sweeps averaged per item when scoring / reconstructing", 3, 1,
                      10000),
             &BpfaOptions::evalKept);
}

void addAscentFields(BpfaFields& f)
{
    f.add(intParam("local_iters", "Local sweeps", "coordinate-ascent sweeps per item at most", 20,
                   1, 10000),
          &BpfaOptions::localIters)
        .add(realParam("local_tol", "Local tolerance",
                       "stop the local sweeps when no θ_k and no E[z_k w_k]·‖φ_k‖ moved by tol",
                       1e-3, 0.0, 1.0),
             &BpfaOptions::localTol);
}

// Image metrics lead on images; the held-out log-likelihood (eq. 12) leads on tables. The
// running PSNR comes first, as the one a live chart of an image run shows (every snapshot
// has it; the full-pass PSNR only the full passes).
std::vector<MetricSpec> bpfaMetrics()
{
    const std::vector<std::string> images = {"image"};
    return {
        {.key = "psnr_running",
         .label = "PSNR, running reconstruction",
         .unit = "dB",
         .dataKinds = images,
         .shortLabel = "PSNR, running"},
        {.key = "psnr",
         .label = "PSNR, full pass",
         .unit = "dB",
         .headline = true,
         .dataKinds = images,
         .shortLabel = "PSNR"},
        {.key = "psnr_missing",
         .label = "PSNR on missing pixels",
         .unit = "dB",
         .dataKinds = images,
         .shortLabel = "PSNR, missing"},
        {.key = "psnr_observed",
         .label = "PSNR of the fit to the observed pixels",
         .unit = "dB",
         .compared = false,
         .dataKinds = images,
         .shortLabel = "PSNR, observed"},
        {.key = "heldout_loglik",
         .label = "Held-out log-likelihood per entry",
         .unit = "nats",
         .headline = true,
         .shortLabel = "Held-out LL"},
        {.key = "heldout_loglik_total",
         .label = "Held-out log-likelihood, test-set total",
         .unit = "nats",
         .compared = false,
         .shortLabel = "Held-out LL, total"},
        {"mse", "Held-out MSE", "normalised units", false},
        {"atoms_per_item", "Atoms per item", "", true, false, false},
        {"features_used", "Features in use", "", true, false, false},
        {"noise_sd", "Learned noise σ", "data units", true, false, false},
    };
}

// Compare's order, the paper's: MF-SVI, MF-SSVI, Titsias-SSVI, Mimno-SVI, Gibbs-SSVI; the batch
// sampler is its baseline and streaming VB another method beside them, not of the compared five.
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
    case BpfaAlgorithm::Streaming: // paper 004's, offered beside them as the baseline is
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
    case BpfaAlgorithm::Streaming:
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
        return noBound("a sampler has no bound");
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
    e.params = BpfaOptions::declare(algorithm).specs();
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<BpfaTrainer>(data.requireDense("BPFA"), algorithm,
                                             BpfaOptions::fromParams(values), seed);
    };
    e.readOptions = optionsReader<BpfaOptions>();
    // K × D arrays (the dictionary's q, each chunk's workspaces and statistics, the targets and
    // the evaluation's draws), the Gibbs initialisation's chain, the batch sampler's chain over
    // every row, and an image's reconstruction and live preview.
    e.memory = [algorithm](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        const DenseData& d = *data.dense;
        const double N = double(d.rows()), D = double(d.cols()), K = number(v, "K");
        const double Ntr = double(data.trainingRowCount());
        const double arrays = 64 + 10 + 2 * (1 + number(v, "eval_samples", 1));
        std::vector<MemoryTerm> terms = {
            {"the dictionary's arrays: about " + std::to_string(int(arrays)) + " × K × D doubles",
             arrays * kDouble * K * D, "K"},
        };
        if (algorithm == BpfaAlgorithm::BatchGibbs)
            terms.push_back({"the chain's factors: rows × K doubles", kDouble * Ntr * K, "K"});
        else if (choice(v, "init") == "gibbs")
            terms.push_back({"the initialisation's chain",
                             kDouble * std::min(number(v, "init_items"), Ntr) * K +
                                 12 * std::min(number(v, "init_items"), Ntr) * D,
                             "init_items"});
        if (d.image) {
            terms.push_back({"the image's reconstruction and live preview: 2 × patches × D "
                             "floats",
                             2 * kFloat * N * D, "data"});
            // The image's structure (bpfa_spatial.h; its keys are absent, so 0, for the
            // batch sampler).
            if (number(v, "overlap_weight") > 0.0)
                terms.push_back(
                    {"the overlap's predictions and image: patches × D floats, pixels "
                     "doubles",
                     kFloat * N * D + kDouble * double(d.image->width) * double(d.image->height),
                     "overlap_weight"});
            if (number(v, "neighbour_coupling") > 0.0)
                terms.push_back({"the neighbour coupling's expectations: patches × K bytes",
                                 N * (K + 1), "neighbour_coupling"});
        }
        return terms;
    };
    e.smallSettings = {{"K", std::int64_t(8)},           {"minibatch", std::int64_t(40)},
                       {"init", std::string("random")},  {"eval_items", std::int64_t(40)},
                       {"eval_burnin", std::int64_t(1)}, {"eval_kept", std::int64_t(1)},
                       {"eval_samples", std::int64_t(2)}};
    // γ_obs ~ Gamma(c, d): lgamma(c) overflows the bound.
    e.divergentSettings = {{"c", 1e308}};
    r.add(std::move(e));
}

} // namespace

ParamFields<BpfaOptions> BpfaOptions::declare(BpfaAlgorithm algorithm)
{
    using O = BpfaOptions;
    const bool svi = stochastic(algorithm);
    BpfaFields f;
    f.add(intParam("K", "Features K", "truncation level: number of dictionary atoms", 256, 1, 4096),
          &O::K);
    const bool streaming = algorithm == BpfaAlgorithm::Streaming;
    if (svi && !streaming)
        f.add(intParam("minibatch", "Minibatch", "items per stochastic step", 256, 1, kHuge),
              &O::minibatch);
    if (streaming)
        f.add(
             intParam("minibatch", "Minibatch", "items per minibatch of the stream", 256, 1, kHuge),
             &O::minibatch)
            .add(intParam("minibatch_iters", "Minibatch iterations",
                          "batch VB iterations on each minibatch (local steps, then λ* = the "
                          "posterior so far + the minibatch's statistics)",
                          kBpfaStreamItersDefault, 1, 10000),
                 &O::streamIters);
    if (svi && gibbsLocal(algorithm))
        addGibbsFields(f);
    else if (svi)
        addAscentFields(f);
    if (svi && !streaming)
        addStepSizeFields(f, 0.75, 0.0);
    if (svi) {
        f.add(choiceParam("init", "Initialisation",
                          "random atoms, or a short batch Gibbs run on a random subset",
                          {"gibbs", "random"}, "gibbs"),
              &O::init)
            .add(intParam("init_items", "Gibbs init items",
                          "items in the Gibbs initialisation subset", 2000, 1, kHuge),
                 &O::initItems)
            .add(intParam("init_sweeps", "Gibbs init sweeps",
                          "batch Gibbs iterations of the initialisation", 20, 0, 100000),
                 &O::initSweeps)
            .add(choiceParam("noise_fit", "Noise fit",
                             "model: q(γ_obs) from every observed entry's residual (eq. 7); "
                             "predictive: from one observed entry per item left out of its local "
                             "step (the error on unseen entries)",
                             {"predictive", "model"}, "predictive"),
                 &O::noiseFit)
            .add(realParam("overlap_weight", "Overlap weight",
                           "images: each patch also sees its missing pixels at the current "
                           "estimate of the image (the overlapping patches' predictions), "
                           "weighted by this fraction of an observed pixel; 0 = patches "
                           "independent, as in paper 000",
                           0.25, 0.0, 1.0),
                 &O::overlapWeight)
            .add(intParam("overlap_pixels", "Overlap pixels",
                          "images, with overlap_weight: the missing pixels a patch sees at each "
                          "training visit, drawn anew each time and weighted to stand for all "
                          "of them; 0 = all (the reconstruction always sees all)",
                          0, 0, 1024),
                 &O::overlapPixels)
            .add(intParam("overlap_ramp", "Overlap ramp",
                          "images, with overlap_weight: a patch's missing pixels weigh "
                          "overlap_weight × min(1, v / overlap_ramp) at its visit v (0 = the "
                          "first), so that a patch fits the estimate once its neighbours have "
                          "predicted it rather than at its start; 0 = the full weight at once",
                          3, 0, 255),
                 &O::overlapRamp)
            .add(realParam("neighbour_coupling", "Neighbour coupling",
                           "images: β of a prior that ties each patch's atoms to those of the "
                           "four patches one pixel away (logit π_k + β Σ (E[z_jk] − π_k)); "
                           "0 = patches independent, as in paper 000",
                           1.0, 0.0, 10.0),
                 &O::neighbourCoupling);
    }
    f.add(&O::prior, bpfa::Prior::declare())
        .add(intParam("eval_items", "Evaluation items",
                      "items whose held-out entries are scored at each snapshot (5 ms each "
                      "with the defaults and K = 256)",
                      50, 1, kHuge),
             &O::evalItems)
        .add(intParam("eval_samples", "Evaluation samples",
                      "Monte Carlo draws M of the held-out likelihood (eq. 12)", 5, 1, 1000),
             &O::evalSamples);
    return f;
}

const ParamFields<BpfaOptions>& BpfaOptions::fields()
{
    static const BpfaFields f = [] {
        BpfaFields all;
        for (BpfaAlgorithm a :
             {BpfaAlgorithm::GibbsSsvi, BpfaAlgorithm::MimnoSvi, BpfaAlgorithm::MfSvi,
              BpfaAlgorithm::MfSsvi, BpfaAlgorithm::TitsiasSsvi, BpfaAlgorithm::BatchGibbs,
              BpfaAlgorithm::Streaming})
            all.merge(declare(a));
        return all;
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
    add(r, BpfaAlgorithm::Streaming, "streaming", "Streaming VB",
        "one pass, mean-field local factors; each minibatch's posterior is the prior of the next "
        "(Broderick et al. 2013)");
    // The synthetic table's default: paper 000's Sec. 5.1 data, drawn from the prior.
    r.addGenerator({
        .key = "bpfa",
        .help = "the BPFA prior (paper 000, Sec. 5.1), standardised",
        .drawn = "drawn from the BPFA prior",
        .ignoredSettings = {},
        .draw =
            [](const SyntheticTableOptions& o) {
                BpfaSyntheticOptions so;
                so.N = o.rows;
                so.D = o.cols;
                so.K = o.trueK;
                so.loadingVariance = o.loadingVariance;
                so.heldOut = 0.0; // split when built, like any table, so rows can be held out
                so.seed = o.seed;
                return makeBpfaSynthetic(so).data; // standardised as a whole
            },
    });
    r.addPreset(
        {"paper-000-table1",
         "bpfa",
         "paper 000, Table 1: K = 250 atoms and minibatches of 250 patches (the defaults "
         "are 256 and 256), patches independent (neighbour_coupling = 0, overlap_weight = 0)",
         {{"K", std::int64_t(250)},
          {"minibatch", std::int64_t(250)},
          {"neighbour_coupling", 0.0},
          {"overlap_weight", 0.0}},
         {}});
}

} // namespace svi
