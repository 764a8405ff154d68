#pragma once
// LdaTrainer: latent Dirichlet allocation on CountData (documents × words), fitted by SVI
// (Hoffman et al. 2013, Fig. 6: minibatches of training documents, ρ_t = (t + τ0)^(−κ)), by
// batch variational Bayes (the same step with the whole training set and ρ = 1), by
// streaming variational Bayes (Broderick et al. 2013; paper 004 §2.6), or by Mimno-SVI: SVI's
// step with each document's local step a Gibbs chain over its tokens' topics (lda_gibbs.h), the
// statistic S_wk its kept sweeps' counts, or by Gibbs-SSVI: the same chains under β drawn from
// q(β) at the step's words instead of exp E[log β].
//
// Streaming VB takes the training documents once, in a seeded order, in minibatches. The
// posterior after minibatch b is the batch variational posterior of that minibatch with the
// posterior after b − 1 as its prior: minibatch_iters rounds of the documents' local steps under
// λ* = λ_{b−1} + S (S the minibatch's statistic of the previous round; 0 at first), then
// λ_b = λ_{b−1} + (λ*_b − λ_{b−1}) = λ_{b−1} + S. There is no D and no step size; the run ends
// when the documents do (Trainer::exhausted). The prior before any data is η at every word,
// which would give every topic the same φ: the first round of the first minibatch uses the
// seeded random λ instead (as batch VB's first step does), so that one minibatch holding every
// document gives exactly batch VB's steps.
//
// Evaluation (document completion, as in Hoffman et al. 2013): for each test document, γ is
// fitted to its observed half (`train` row) with E[log β] fixed, and each held-out word w is
// scored by log Σ_k E[θ_k] E[β_kw] = log Σ_k (γ_k / Σγ) (λ_kw / Σ_v λ_kv).
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across documents. Every
// document's local step is deterministic, its results are stored by position, and every sum
// runs in a fixed order, so results do not depend on the thread count.

#include "core/inference/schedule.h"
#include "core/models/lda/lda.h"
#include "core/models/lda/lda_gibbs.h"
#include "core/models/topics/topic_model.h"
#include "core/models/topics/topic_parts.h"

#include <memory>
#include <vector>

namespace svi {

// The settings of LDA. The defaults and ranges are those declared by params (lda_registry.cpp),
// the only place that states them.
struct LdaOptions : DeclaredOptions<LdaOptions>
{
    // The declared defaults.
    LdaOptions() { readDefaults(); }

    int K{};
    double alpha{}; // Dirichlet parameter of θ_d; 0 means 1/K
    double eta{};   // Dirichlet parameter of β_k
    double kappa{}; // SVI: ρ_t = (t + τ0)^(−κ)
    double tau0{};
    StepSchedule schedule{}; // SVI
    int adaptiveInit{};
    std::int64_t minibatch{}; // SVI: documents per step; streaming: per minibatch
    int streamIters{};        // streaming: batch VB rounds on each minibatch
    std::string distribute{}; // streaming on several ranks: "sync" or "async"
    int burnin{};             // Mimno-SVI: a document's sweeps discarded
    int samples{};            // Mimno-SVI: its sweeps counted into the statistic
    int localIters{};         // γ updates per document at most
    double localTol{};        // stop a document's updates once mean |Δγ| < tol
    int evalDocs{};           // documents a cheap evaluation scores (test and training)
    int topWords{};           // words listed per topic in the preview

    double alphaValue() const { return alpha > 0.0 ? alpha : 1.0 / double(K); }
    // The declarations of `algorithm`'s parameters (its registry entry) bound to the fields;
    // batch VB declares neither the minibatch nor the step size.
    static ParamFields<LdaOptions> declare(LdaAlgorithm algorithm);
    // Every key: those of SVI and streaming VB.
    static const ParamFields<LdaOptions>& fields();
};

// Streaming VB's rounds on a minibatch by default: on 20 Newsgroups (K = 100, one pass) more
// rounds made the held-out perplexity worse at 1,024 documents a minibatch (2,660 with one,
// 2,786 with three or ten): they fit the first minibatches' topics harder, and a stream never
// revisits them; only at 4,096 (three minibatches in the pass) did three rounds help
// (docs/results.md).
inline constexpr int kStreamItersDefault = 1;

class LdaTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field ("K = 0, but must be in [1, 100000]") on
    // options outside their declared ranges, or on bad data. λ starts from a seeded Gamma(100,
    // 1/100) draw (mean 1), as in Hoffman's code.
    LdaTrainer(CountDataPtr data, LdaAlgorithm algorithm, const LdaOptions& options,
               std::uint64_t seed);
    ~LdaTrainer() override;

    std::int64_t itemsPerStep() const override;
    // Out of core: the documents given so far (the stream's length is not known before its end).
    std::int64_t itemCount() const override;
    // Streaming VB with distribute = async.
    bool asynchronous() const override;
    // The ELBO over a fixed seeded subset of eval_docs training documents scaled by D/|S|
    // (all training documents, exactly, when `full`); the held-out per-word log-likelihood
    // ("heldout_loglik_per_word") and "perplexity" = exp(−that) over eval_docs of the rows
    // with held-out words (all of them when `full`); "topics_used", the topics holding more
    // than 1/(10K) of the expected word assignments Σ_d (γ_dk − α) of the ELBO's documents;
    // and the preview: those topics by decreasing share, with their top words.
    // An interrupted full evaluation returns the cheap one.
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // Streaming VB held in memory: its minibatches.
    std::int64_t plannedSteps() const override;
    // Not out of core: a stream cannot be rewound to a checkpoint's position.
    bool resumable() const override { return !m_stream; }
    // λ, the step sizer and the minibatch sampler (streaming: the stream's position and whether
    // any data was seen); exp(E[log β]) is recomputed.
    void visitState(StateArchive& archive) override;

    // λ word-major: lambdaT()(w, k) = λ_kw (V×K), written out (SVI holds it lazily).
    lda::MatrixRD lambdaT() const;
    // exp(E[log β]) word-major under the current λ (refreshed whole when a step left only the
    // rows of its documents' words fresh).
    const lda::MatrixRD& expElogBetaT();
    // Replaces λ (V×K) and refreshes the expectations; for tests and checkpoints.
    void setLambdaT(const lda::MatrixRD& lambdaT);
    double alpha() const { return m_alpha; }
    // The documents (rows) of the last step, in minibatch order.
    const std::vector<std::int64_t>& lastBatch() const { return m_rows.rows(); }

    // Wall-clock seconds of the last step's phases: the local steps of the minibatch, the
    // regrouping and λ update, and the recomputation of exp(E[log β]) (digamma and exp).
    using StepTimes = lda::StepTimes;
    const StepTimes& lastStepTimes() const { return m_times; }

protected:
    // The minibatch (every rank draws the same), the local steps of this rank's documents of
    // it, and their word statistics S_w· (the statistic summed over the ranks).
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // λ from the summed statistic (ρ_t, or the adaptive rate), then exp(E[log β]).
    double globalUpdate(std::int64_t t) override;
    void warmUp() override;
    // Streaming VB: its documents are all used; those used so far.
    bool streamEnded() const override;
    std::int64_t streamGiven(std::int64_t steps) const noexcept override;
    // Asynchronous streaming: minibatches of the stream; λ and whether no data has been seen
    // (as one dense buffer each), the statistic's buffer.
    std::int64_t streamMinibatches() const override { return m_rows.minibatches(); }
    void seekMinibatch(std::int64_t b) override { m_rows.seek(b); }
    void listPosterior(GlobalStatistic& out) override;
    void posteriorReplaced() override;
    void listStatistic() override;
    // By rows: the words of minibatch b; those rows of λ, the topics' totals and whether no
    // data has been seen.
    void minibatchRows(std::int64_t b, std::vector<std::int32_t>& rows) override;
    void listPosteriorRows(GlobalStatistic& out, const std::vector<std::int32_t>* rows) override;
    void posteriorRowsReplaced() override;

private:
    // The documents of the step: rows of `stepSource()` (the data's, or out of core the
    // minibatch read from the stream).
    const SparseRows& stepSource() const { return m_stream ? m_streamDocs : m_data->train; }
    const std::vector<std::int64_t>& stepBatch() const
    {
        return m_stream ? m_streamBatch : m_rows.mine();
    }
    // Out of core: the next minibatch into m_streamDocs.
    void readStreamBatch();
    // Streaming VB's rounds on the step's documents: m_wordStats is then λ*_b − λ_{b−1}.
    void streamRounds();
    // The rows this rank trains on and evaluates (Communicator::ownedRows).
    Shard ownedRows() const { return communicator().ownedRows(m_data->rows(), m_data->heldRows); }
    // λ = m_lambdaT itself: the lazy blend written out (SVI's steps keep it lazy; everything
    // that reads or replaces λ as a whole calls this first). Also when the blend's scale has
    // shrunk so far that L would lose precision: a rule of the step count alone, so a run's
    // numbers do not depend on when it was evaluated or saved.
    void settleBlend();
    // m_totals = λ's topic totals, from m_rawTotals and the blend.
    void blendTotals();
    // exp(E[log β]) of every word, from λ; or the words of this rank's documents of the step
    // (m_stepWords) and, unless every row is current, their eβ (all a step reads), after the
    // totals.
    void refreshExpectations();
    void refreshStepWords();
    // Local steps of this rank's documents of the minibatch under the current eβ; fills m_stats.
    void localPhase();
    // Mimno-SVI: the Gibbs chains of this rank's documents of step t under the current eβ
    // (Gibbs-SSVI: under β drawn from q(β) at the minibatch's words)
    // (lda_gibbs.h), their kept sweeps counted into m_wordStats.
    void samplePhase(std::int64_t t);
    void ensureWorkspaces(); // one per OpenMP thread, sized for the longest document
    // Fits γ to `row` of `rows` in the calling thread's workspace with eβ fixed.
    lda::LocalWorkspace& fitDocument(const SparseRows& rows, std::int64_t row);
    Evaluation evaluateOn(const std::vector<std::int64_t>& elboRows,
                          const std::vector<std::int64_t>& scoredRows, bool stopOnInterrupt);

    CountDataPtr m_data;
    LdaAlgorithm m_algorithm;
    LdaOptions m_options;
    std::uint64_t m_seed;
    int m_K;
    std::int64_t m_V;
    double m_alpha;
    lda::MatrixRD m_lambdaT;      // V×K: L, with λ = m_blend(L)
    lda::Blend m_blend;           // SVI: the lazy blend; the identity otherwise
    Eigen::VectorXd m_rawTotals;  // K: Σ_w L_kw
    Eigen::VectorXd m_totals;     // K: Σ_w λ_kw
    lda::MatrixRD m_expElogBetaT; // V×K
    StepSizer m_stepSizer;
    Eigen::VectorXd m_gradient; // adaptive schedule: λ̂ − λ of the minibatch (V·K)
    StepRows m_rows;            // the documents of each step
    lda::MinibatchStats m_stats;
    SparseRowSum m_wordStats; // S of the minibatch's words (this rank's, then summed)
    GlobalStatistic m_statistic;
    bool m_sharded = false;  // the communicator's shard is set on m_rows
    bool m_expFresh = false; // every row of m_expElogBetaT is that of the current λ
    // Streaming: no data seen yet, so the posterior is the prior η (λ holds the random start
    // that the first round's local steps use).
    bool m_atPrior = true;
    double m_atPriorValue = 1.0;           // m_atPrior as the posterior's buffer sends it
    lda::MatrixRD m_posteriorRows;         // streaming: scratch of λ* at the minibatch's words
    SparseRowSum m_exchangeRows;           // asynchronous: rows of λ sent or received
    std::vector<std::int64_t> m_aheadDocs; // asynchronous: scratch of minibatchRows
    std::vector<std::int32_t> m_stepWords; // the words of this rank's documents of the step
    std::vector<std::int32_t> m_drawWords; // Gibbs-SSVI: the words of the whole minibatch
    std::vector<unsigned char> m_wordSeen; // V: scratch of refreshStepWords
    PerThread<lda::LocalWorkspace> m_workspaces;
    // Mimno-SVI: the smoothing buckets of the step's words (in m_wordStats' row order), each
    // thread's chain and each document's kept assignments (in minibatch order).
    lda::WordBuckets m_buckets;
    PerThread<lda::GibbsWorkspace> m_chains;
    std::vector<std::vector<lda::WordTopic>> m_assignments;
    Eigen::Index m_maxWords = 0; // distinct words of the longest document
    // Out of core (CountData::stream): the head's training documents first (in file order),
    // then the stream's, each minibatch copied into m_streamDocs (rows 0… of m_streamBatch).
    std::shared_ptr<DocumentStream> m_stream;
    SparseRows m_streamDocs;
    std::vector<std::int64_t> m_streamBatch;
    std::size_t m_headNext = 0; // the next of the head's training documents
    std::int64_t m_given = 0;   // documents given to minibatches so far
    // Rows with held-out entries (the test documents of document completion; for ratings, also
    // training rows whose held-out entries were never seen) and the cheap evaluation's subsets.
    lda::EvaluationDocs m_evalDocs;
    StepTimes m_times;
};

} // namespace svi
