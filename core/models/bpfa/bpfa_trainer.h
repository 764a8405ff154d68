#pragma once
// BpfaTrainer: beta process factor analysis on DenseData, fitted by one of the five SVI
// algorithms of paper 000 (Algorithm 1 with the global updates of eq. 7), by the uncollapsed
// batch Gibbs sampler, or by streaming VB (Broderick et al. 2013; paper 004 §2.6): one pass over
// the training items in a seeded order, minibatch by minibatch; each minibatch's batch VB with the
// posterior so far as its prior (minibatch_iters rounds of mean-field local steps under λ*, then
// λ* = λ_{b−1} + Σ_i η̂_i), λ_b = λ*; the first minibatch's local steps see the initial globals
// (random or Gibbs-initialised), its posterior adds to the prior η. The run ends with the items.
//
// On several ranks the SVI algorithms process, of each minibatch (the same on every rank) and of
// the items scored at each snapshot, the rows their rank owns (Communicator::ownedRows): the
// rows it holds when the data were read in parts (DenseData::heldRows), else its shard of the
// rows. Read in parts, the Gibbs initialisation gathers its subset's rows from the ranks that
// hold them, so that every rank runs the chain the whole data set gives.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across the minibatch.
// Work is split into a fixed number of chunks reduced in a fixed order and every item draws
// from its own (seed, step, item) stream, so results do not depend on the thread count.

#include "core/inference/schedule.h"
#include "core/models/bpfa/bpfa.h"
#include "core/models/bpfa/bpfa_model.h"
#include "core/models/bpfa/bpfa_spatial.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

namespace bpfa {
// Stream ids (the first id of Rng::stream) of the trainer and its Gibbs chains, so that no two
// uses share random numbers.
enum StreamId : std::uint64_t {
    kStreamLocal = 1,
    kStreamGlobal,
    kStreamEval,
    kStreamEvalView,
    kStreamFull,
    kStreamInit,
    kStreamChainLocal,
    kStreamChainGlobal,
    kStreamSampler,
    kStreamEvalPick,
};
} // namespace bpfa

// The settings of every BPFA algorithm. The defaults and ranges are those declared by params
// (bpfa_registry.cpp), the only place that states them.
struct BpfaOptions : DeclaredOptions<BpfaOptions>
{
    // The declared defaults.
    BpfaOptions() { readDefaults(); }

    int K{};
    std::int64_t minibatch{};
    double kappa{};
    double tau0{};
    StepSchedule schedule{};
    int adaptiveInit{};
    int burnin{};      // Gibbs-SSVI, Mimno-SVI: sweeps discarded
    int samples{};     // Gibbs-SSVI, Mimno-SVI: sweeps kept
    int localIters{};  // MF and spike-and-slab: coordinate-ascent sweeps at most
    int streamIters{}; // streaming: batch VB rounds on each minibatch
    double localTol{};
    std::string init; // "random" | "gibbs"
    // "model": γ_obs from the residuals of every observed entry (eq. 7); "predictive": from
    // one observed entry per item left out of its local step.
    std::string noiseFit;
    // Images: the weight α of each patch's non-observed pixels seen at the overlap consensus
    // (bpfa_overlap.h); 0 = patches independent, as in paper 000.
    double overlapWeight{};
    // Images: the pseudo-observations a patch's training step draws from its non-observed
    // pixels (0 = all of them).
    int overlapPixels{};
    // Images: the visits over which a patch's pseudo-observations ramp up to overlapWeight
    // (ImageStructure::apply; 0 = the full weight from the first visit).
    int overlapRamp{};
    // Images: the coupling β of each patch's features to its four neighbours' (bpfa_spatial.h);
    // 0 = independent, as in paper 000.
    double neighbourCoupling{};
    int initItems{};  // Gibbs initialisation: patches in the random subset
    int initSweeps{}; // Gibbs initialisation: batch Gibbs iterations
    bpfa::Prior prior;
    int evalItems{};   // items whose held-out entries are scored at each snapshot
    int evalSamples{}; // M of eq. 12
    // Gibbs-type local inference at evaluation (held-out scores, reconstruction): longer
    // chains than in training, so that the scores measure the fit, not the chain's noise.
    int evalBurnin{};
    int evalKept{};

    // The declarations of `algorithm`'s parameters (its registry entry: only the keys it uses),
    // each bound to its field.
    static ParamFields<BpfaOptions> declare(BpfaAlgorithm algorithm);
    // Every algorithm's declarations, each key once: one for every field.
    static const ParamFields<BpfaOptions>& fields();
};

// A Gibbs chain over a set of items: per-item state x_i = z_i ∘ w_i and point values of the
// globals, each sampled from its exact conditional. Used by the batch Gibbs sampler (all
// items) and by the Gibbs initialisation (a random subset).
class GibbsChain
{
public:
    // `items` are rows of `data`; `keys` (empty: the items themselves) key their random streams,
    // so that a chain over rows gathered from several ranks into a data set of their own draws
    // what the chain over the same rows of the whole data set draws.
    GibbsChain(DenseDataPtr data, std::vector<std::int64_t> items, int K, const bpfa::Prior& prior,
               std::uint64_t seed, std::vector<std::int64_t> keys = {});
    // One scan: every item's local variables, then π, Φ (jointly per dimension), γ_obs, γ_w.
    void sweep(std::int64_t iteration);
    const bpfa::MatrixRD& phi() const { return m_phi; }
    const Eigen::VectorXd& pi() const { return m_pi; }
    double gamma() const { return m_gamma; }
    double gammaW() const { return m_gammaW; }
    bpfa::GlobalView view() const;
    // Global variational parameters λ = η + (N / n) Σ η̂_i from the current state, as if the
    // chain's items were one minibatch (the paper's "Gibbs initialisation").
    bpfa::Globals toGlobals(std::int64_t totalItems) const;
    // Checkpoints: every item's x_i, the globals' point values and the last sweep's number.
    void visitState(StateArchive& a);

private:
    DenseDataPtr m_data;
    std::vector<std::int64_t> m_items, m_keys;
    int m_K, m_D;
    bpfa::Prior m_prior;
    std::uint64_t m_seed;
    bpfa::MatrixRD m_x; // n×K state
    bpfa::MatrixRD m_phi;
    Eigen::VectorXd m_pi;
    double m_gamma = 10.0, m_gammaW = 1.0;
    std::int64_t m_iteration = 0;
};

// Streaming VB's rounds on a minibatch by default: on house, peppers and cameraman (80 % missing,
// one pass) a second round gave +0.67, −0.12 and +0.15 dB over one, at 1.5–1.9 × the time; a
// third, +0.08, +0.13 and +0.05 more at 1.5–2.4 × again (docs/results.md).
inline constexpr int kBpfaStreamItersDefault = 2;

class BpfaTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field when the options do not fit the data.
    BpfaTrainer(DenseDataPtr data, BpfaAlgorithm algorithm, const BpfaOptions& options,
                std::uint64_t seed);
    ~BpfaTrainer() override;

    std::int64_t itemsPerStep() const override;
    // The SVI algorithms run on several ranks; the batch Gibbs sampler does not.
    bool distributes() const override { return m_algorithm != BpfaAlgorithm::BatchGibbs; }
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    // Streaming VB: its minibatches.
    std::int64_t plannedSteps() const override
    {
        return m_algorithm == BpfaAlgorithm::Streaming ? m_stream.minibatches() : 0;
    }
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // Globals, step sizer, sampler (batch Gibbs: the chain), last step, live preview; none derived.
    void visitState(StateArchive& archive) override;
    void setLivePreview(bool on) override;

    const bpfa::Globals& globals() const { return m_globals; }
    // This rank's items of the last minibatch (tests).
    const std::vector<std::int64_t>& lastBatch() const { return m_batchRows; }
    void setGlobals(const bpfa::Globals& g) { m_globals = g; }
    // The overlap consensus and the neighbour coupling (empty when off; tests).
    const bpfa::OverlapConsensus& overlap() const { return m_structure.overlap(); }
    const bpfa::NeighbourCoupling& coupling() const { return m_structure.coupling(); }

    // E[y_i] for every item over all D entries (normalised units), from the algorithm's own
    // local inference under the current globals: the full reconstruction pass.
    MatrixRF predictAll();

    // The local-statistics pass of one SVI step over `items` under `view` (exposed for tests).
    bpfa::Stats localStats(const std::vector<std::int64_t>& items, const bpfa::GlobalView& view,
                           std::int64_t streamId);

protected:
    // The minibatch (every rank draws the same), the view of the globals it is seen under (a
    // draw from the step's stream for the structured algorithms: the same on every rank), and
    // the sufficient statistics of this rank's items of it. Batch Gibbs: one sweep.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // λ ← (1 − ρ)λ + ρλ̂ from the summed statistics (ρ_t, or the adaptive rate).
    double globalUpdate(std::int64_t t) override;
    void warmUp() override;
    // Streaming VB: its items are all used; those used so far.
    bool streamEnded() const override { return m_stream.exhausted(); }
    std::int64_t streamGiven(std::int64_t steps) const noexcept override;

private:
    // What needs the data of every rank when the data were read in parts (the items scored at
    // each snapshot, the initial globals): done at construction when the data were read whole,
    // else collectively at the first step, evaluation or checkpoint (a checkpoint being loaded
    // replaces the initial globals: then they are not made). The first step's clock then
    // includes the Gibbs initialisation, which a whole reading does at construction.
    void prepare(bool initialise);
    void pickEvalItems();
    void initialiseGlobals();
    // The rows of the initialisation subset (rows of the data set, in the chain's order) as a
    // data set of their own, gathered from the ranks that hold them.
    DenseDataPtr gatherRows(const std::vector<std::int64_t>& rows);
    // The rows this rank trains on and evaluates (Communicator::ownedRows).
    Shard ownedRows() const { return communicator().ownedRows(m_data->rows(), m_data->heldRows); }
    // λ̂ of the summed statistics into m_target, with N/|B| as its scale (streaming: 1).
    void summedTarget(double scale);
    // λ̂ − λ of the summed statistics (λ̂ kept in m_target).
    Eigen::VectorXd summedGradient();
    // Streaming: λ* = λ_{b−1} + (λ̂ − η) of the summed statistics, λ_{b−1} being η before the
    // first minibatch.
    bpfa::Globals streamPosterior();
    // Streaming: rounds 2… of the minibatch's batch VB, each under E_q[β] of the last round's
    // λ* (on several ranks the statistic is summed over them first: every rank sees the whole
    // minibatch's λ*).
    void streamRounds();
    // Lists the step's statistic (m_stats and its scalars) in statistic(), for the reduction.
    void listStatistic() override;
    struct Chunked;
    void runLocal(bpfa::Workspace& ws, const bpfa::GlobalView& view, Rng& rng,
                  bool evaluation = false) const;
    // The algorithm's local bound of the item in `ws` under `view` (see evaluate()).
    double localBound(bpfa::Workspace& ws, const bpfa::GlobalView& view) const;
    void drawLocal(bpfa::Workspace& ws, const bpfa::GlobalView& view, Rng& rng, bool first) const;
    bool structured() const;
    bool samplingLocal() const;            // Gibbs sampling of the locals (else coordinate ascent)
    bpfa::GlobalView estimateView() const; // the view used for point predictions
    std::shared_ptr<Preview> makePreview(std::optional<Eigen::ArrayXXf> image) const;
    // E[y] = Σ_k E[x_k] φ_k of the item in `ws` (normalised units) into `row` (D floats).
    void predictItem(const bpfa::Workspace& ws, const bpfa::GlobalView& view, float* row) const;
    // Item i gathered under `view`, with the image's structure applied (its pseudo-observations,
    // its prior's shift) when on.
    void gatherItem(bpfa::Workspace& ws, std::int64_t i, const bpfa::GlobalView& view) const;
    // The image's structure after the local steps of `items` (their records in m_batchRecords):
    // every record of the minibatch applied in the minibatch's order, on every rank. Items
    // other than the step's minibatch (tests) are applied in their order, on one rank.
    void updateStructure(const std::vector<std::int64_t>& items);

    DenseDataPtr m_data;
    BpfaAlgorithm m_algorithm;
    BpfaOptions m_options;
    std::uint64_t m_seed;
    int m_K, m_D;
    bpfa::Globals m_globals;
    StepSizer m_stepSizer;
    bpfa::Globals m_target; // λ̂ of the last minibatch
    std::unique_ptr<MinibatchSampler> m_sampler;
    std::vector<std::int64_t> m_trainingRows; // streaming: every training row, ascending
    StepRows m_stream;                        // streaming: the pass's order and position
    bool m_atPrior = true;                    // streaming: no minibatch added yet
    std::unique_ptr<GibbsChain> m_chain;      // batch Gibbs only
    std::vector<std::int64_t> m_evalItems;    // those of the rows held here (all when read whole)
    std::int64_t m_evalCount = 0;             // items scored at each snapshot, on every rank
    bool m_prepared = false;
    std::vector<std::int64_t> m_batchRows; // a minibatch mapped to training rows (row splits)
    double m_heldOutEntries = 0;           // held-out entries in the whole data set
    std::int64_t m_lastStep = 0;           // the last step taken; keys the evaluation streams
    // The step's statistic: this rank's, then (after the reduction) the minibatch's; its
    // scalars (r2, w2, obsCount, items) travel in m_scalars.
    bpfa::Stats m_stats;
    Eigen::VectorXd m_scalars;
    bpfa::GlobalView m_view;
    std::int64_t m_warmUps = 0; // warm-up draws so far (they key their own streams)
    GlobalStatistic m_statistic;
    std::unique_ptr<Chunked> m_chunks;
    // Live preview: the latest estimate of every item (N×D), refreshed by each minibatch and
    // replaced by each full pass; empty when off.
    MatrixRF m_live;
    // The image's structure (empty when off), the minibatch's rows on every rank and the
    // positions of this rank's among them, and the records of this rank's items.
    bpfa::ImageStructure m_structure;
    std::vector<std::int64_t> m_fullBatch, m_batchPos;
    MatrixRF m_batchRecords;
};

} // namespace svi
