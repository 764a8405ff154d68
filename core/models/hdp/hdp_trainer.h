#pragma once
// HdpTrainer: the HDP topic model on CountData (documents × words), fitted by online
// variational inference (Wang, Paisley & Blei 2011: minibatches of training documents,
// ρ_t = (t + τ0)^(−κ)) or by batch variational Bayes (the same step with the whole training
// set and ρ = 1). The mathematics is in hdp_model.h.
//
// After every global step the topics are sorted by decreasing stick statistic (Wang et al.'s
// ordering; option `sortTopics`), so topic 0 is always the heaviest.
//
// Evaluation (document completion, comparable with LdaTrainer's): the fit is read as an LDA
// model as Wang et al. (2011, Sec. 4) do — α_k = α·E[σ_k] with E[σ_k] the expected corpus stick
// weight of topic k and β̄_k = λ_k / Σ_w λ_kw — γ is fitted to each test document's observed
// half with that per-topic α and β̄ (hdp::fitProportions), and each held-out word is scored by
// log Σ_k (γ_k / Σγ) β̄_kw.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across documents. Every
// document's local step is deterministic, its results are stored by position, and every sum
// runs in a fixed order, so results do not depend on the thread count.

#include "core/inference/schedule.h"
#include "core/models/hdp/hdp.h"
#include "core/models/hdp/hdp_model.h"
#include "core/models/topics/topic_parts.h"

#include <memory>
#include <vector>

namespace svi {

// The settings of the HDP. The defaults and ranges are those declared in declare()
// (hdp_registry.cpp), the only place that states them.
struct HdpOptions : DeclaredOptions<HdpOptions>
{
    // The declared defaults.
    HdpOptions() { readDefaults(); }

    int T{};        // corpus-level truncation (topics)
    int K{};        // document-level truncation (atoms per document)
    double alpha{}; // document concentration: π'_jt ~ Beta(1, α)
    double gamma{}; // corpus concentration: β'_k ~ Beta(1, γ)
    double eta{};   // β_k ~ Dir(η)
    double kappa{}; // SVI: ρ_t = (t + τ0)^(−κ)
    double tau0{};
    StepSchedule schedule{}; // SVI: Robbins–Monro or adaptive (Ranganath et al. 2013)
    int adaptiveInit{};
    std::int64_t minibatch{}; // SVI: documents per step
    int localIters{};         // local iterations per document at most
    double localTol{};        // stop once the document ELBO rises by less than tol·|ELBO|
    bool sortTopics{};        // sort topics by decreasing stick statistic after each step
    int evalDocs{};           // documents a cheap evaluation scores (test and training)
    int topWords{};           // words listed per topic in the preview

    // The declarations of `algorithm`'s parameters (its registry entry) bound to the fields;
    // batch VB declares neither the minibatch nor the step size.
    static ParamFields<HdpOptions> declare(HdpAlgorithm algorithm);
    // Every key: those of SVI.
    static const ParamFields<HdpOptions>& fields();
};

class HdpTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field ("T = 0, but must be in [1, 100000]") on
    // options outside their declared ranges, or on bad data. λ starts from a seeded Gamma(100,
    // 1/100) draw (mean 1, as LdaTrainer), the stick statistic at s_k = 1 (one atom's worth per
    // topic, so that E[log σ_k] falls slowly with k and the first minibatch is not pushed onto the
    // first few topics).
    HdpTrainer(CountDataPtr data, HdpAlgorithm algorithm, const HdpOptions& options,
               std::uint64_t seed);
    ~HdpTrainer() override;

    std::int64_t itemsPerStep() const override;
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    // The ELBO over a fixed seeded subset of eval_docs training documents scaled by D/|S| plus
    // the global terms (all training documents, exactly, when `full`); the held-out per-word
    // log-likelihood and perplexity over eval_docs test documents (all when `full`); and
    // topics_used, the topics whose expected stick weight E[σ_k] exceeds 1/(10T).
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // λ, the stick statistic and the minibatch sampler; the expectations (E[log β], the
    // corpus sticks) are recomputed. (The topics' order is the last step's report, not state.)
    void visitState(StateArchive& archive) override;

    // λ word-major: lambdaT()(w, k) = λ_kw (V×T).
    const lda::MatrixRD& lambdaT() const { return m_lambdaT; }
    // The blended stick statistic s (T); u = 1 + s, v = γ + tail sums (hdp::corpusSticks).
    const Eigen::VectorXd& stickStatistic() const { return m_sticks; }
    // E[σ_k] (T entries, summing to 1) and E[log σ_k] under the current sticks.
    Eigen::VectorXd expectedSticks() const;
    const Eigen::VectorXd& elogCorpusSticks() const { return m_elogSticks; }
    // E[log β] word-major, as the next local step will use it.
    const lda::MatrixRD& elogBetaT() const { return m_elogBetaT; }
    // Replaces λ (V×T) and s (T) and refreshes the expectations; for tests and checkpoints.
    void setGlobals(const lda::MatrixRD& lambdaT, const Eigen::VectorXd& sticks);
    // The documents (rows) of the last step, in minibatch order.
    const std::vector<std::int64_t>& lastBatch() const { return m_rows.rows(); }
    // The permutation applied by the last step's sorting (identity when off): new topic i
    // was old topic order[i].
    const std::vector<int>& lastOrder() const { return m_order; }
    // The local-step settings the trainer uses.
    hdp::LocalOptions localOptions() const;
    const StepSizer& stepSizer() const { return m_stepSizer; }

    // Wall-clock seconds of the last step's phases: the local steps of the minibatch, the
    // global update (regrouping, λ, s, sorting) and the recomputation of E[log β].
    using StepTimes = lda::StepTimes;
    const StepTimes& lastStepTimes() const { return m_times; }

protected:
    // The minibatch (every rank draws the same), the local steps of this rank's documents of
    // it, their word statistics (sparse rows) and stick statistic, summed over the ranks.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // λ and the stick statistic from the summed statistics (ρ_t, or the adaptive rate on
    // their joint gradient), the topics' order (the adaptive averages follow their topics),
    // the expectations.
    double globalUpdate(std::int64_t t) override;
    // The adaptive schedule's averages start from gradients at the initial globals.
    void warmUp() override;

private:
    // The rows this rank trains on and evaluates (Communicator::ownedRows).
    Shard ownedRows() const { return communicator().ownedRows(m_data->rows(), m_data->heldRows); }
    void refreshExpectations();
    // m_gradient at the summed statistics, scaled to the corpus.
    void formGradient(double scale);
    double scale() const;
    void ensureWorkspaces(); // one per OpenMP thread, sized for the longest document
    hdp::LocalWorkspace& fitDocument(const SparseRows& rows, std::int64_t row);
    Evaluation evaluateOn(const std::vector<std::int64_t>& elboRows,
                          const std::vector<std::int64_t>& testRows, bool stopOnInterrupt);

    CountDataPtr m_data;
    HdpAlgorithm m_algorithm;
    HdpOptions m_options;
    std::uint64_t m_seed;
    int m_T, m_K;
    std::int64_t m_V;
    lda::MatrixRD m_lambdaT;      // V×T
    Eigen::VectorXd m_totals;     // T: Σ_w λ_kw
    lda::MatrixRD m_elogBetaT;    // V×T
    Eigen::VectorXd m_sticks;     // T: blended stick statistic s
    Eigen::VectorXd m_u, m_v;     // T−1: q(β'_k) = Beta(u_k, v_k)
    Eigen::VectorXd m_elogSticks; // T: E[log σ_k(β')]
    StepSizer m_stepSizer;
    // The adaptive schedule's gradient λ̂ − λ: λ's block (V×T, word-major) then the stick
    // statistic's (T); the λ block is made by lda::topicGradient.
    Eigen::VectorXd m_gradient;
    StepRows m_rows; // the documents of each step
    std::vector<int> m_order;
    hdp::MinibatchStats m_stats;
    SparseRowSum m_wordStats;     // S of the minibatch's words (this rank's, then summed)
    Eigen::VectorXd m_stickStats; // Σ_j Σ_t φ_jt (T)
    GlobalStatistic m_statistic;
    bool m_sharded = false;
    PerThread<hdp::LocalWorkspace> m_workspaces;
    PerThread<lda::LocalWorkspace> m_ldaWorkspaces; // evaluation: the LDA reading of the fit
    Eigen::Index m_maxWords = 0;                    // distinct words of the longest document
    lda::EvaluationDocs m_evalDocs; // test rows with held-out words; the cheap evaluation's subsets
    StepTimes m_times;
};

} // namespace svi
