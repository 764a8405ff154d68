#pragma once
// CtmTrainer: the correlated topic model (ctm.h) on a corpus (CountData of documents × words).
//
// Step t visits training document d = the ((t − 1) mod D)-th: N_MC draws η ~ q(η_d) give the
// estimates g = mean Σ_w c_w ∇ξ_w and Γ = ½ mean Σ_w c_w ∇²ξ_w (ctm_math.h; eq. 57), and q(η_d)
// moves by the algorithm's rule (lgm_update.h) under the prior N(μ, Σ): H-MC-SSVI projects −2Γ
// onto the positive semi-definite cone first (eq. 59: Γ keeps its non-positive eigenvalues),
// so that the precision stays positive definite; S-DSVI reads Γ as it is. H-MC-SSVI's natural
// step takes ρ = (n + τ0)^−κ at the document's n-th visit, or the document's own adaptive rate
// (QStepSizes: its first visit first draws adaptive_init warm-up estimates, WarmUp rounds).
// Then, when learnt, μ = mean_d m_d and Σ = mean_d (S_d + (m_d − μ)(m_d − μ)ᵀ) (eq. 60–61, from
// running sums) and the topics' logits α (β_k = softmax α_k) take an AdaGrad step along eq. 62's
// gradient from this document scaled by D: D · mean_draws Σ_w c_w r_wk (δ_wu − β_ku), r_wk the
// topic posterior of word w.
//
// The mean-field baseline (CtmMethod::MeanField) visits the documents in the same order: step t
// runs document d's E-step (ctm_mean_field.h) from its last λ, ν² under the current globals,
// keeping q(η_d) = N(λ, diag ν²) and adding c_w φ_wk to the pass's topic counts; after the
// pass's last document, the M-step: β_k ∝ those counts + 0.01, and μ, Σ from the q's (eq.
// 60–61 are that M-step).
//
// On several ranks (StagedTrainer; the structured methods) a step's N_MC draws are split over
// the ranks (Communicator::shardOf N_MC): every rank walks the document's stream through every
// draw, computes the terms of its own, and the sums of g, Γ (and eq. 62's parts) over the ranks
// make the one update every rank applies to its copy of the document's q, the prior and the
// topics — every rank holds every document. An evaluation sums each rank's share of its
// documents over the ranks. The mean-field baseline runs on one rank.
//
// Thread-safety: driven by one thread; evaluate() uses OpenMP across documents.

#include "core/base/parallel.h"
#include "core/data/count_data.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"
#include "core/math/random.h"
#include "core/models/ctm/ctm.h"
#include "core/models/ctm/ctm_mean_field.h"
#include "core/models/topics/topic_parts.h"
#include "core/run/trainer.h"

#include <span>
#include <vector>

namespace svi {

class CtmTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options or a corpus a topic model
    // cannot fit. The mean-field method reads neither `algorithm` nor the structured methods'
    // options (bound, covariance: diagonal, samples, step sizes).
    CtmTrainer(CountDataPtr corpus, LgmAlgorithm algorithm, const CtmOptions& options,
               std::uint64_t seed, CtmMethod method = CtmMethod::Structured);
    ~CtmTrainer() override;

    std::int64_t itemsPerStep() const override { return 1; }
    std::int64_t itemCount() const override { return std::int64_t(m_docs.size()); }
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // The structured methods; mean-field's pass (one document's E-step at a time) runs on one.
    bool distributes() const override { return m_method != CtmMethod::MeanField; }
    // The documents' q and AdaGrads, μ, Σ and their sums, the topics' state (α, its AdaGrad and
    // batch; the simple bound's sums; mean-field's β and pass sums), the flags; β is recomputed.
    void visitState(StateArchive& archive) override;

    // Updates the q of training document `doc` (an index into the training documents) with
    // step size ρ (the adaptive schedule: its own rate instead), its draws seeded by t; the globals
    // follow unless `globalsToo` is false. The local and global parts of a step without the sum
    // over ranks (tests, on one rank).
    double updateDocument(std::int64_t doc, double rho, std::int64_t t, bool globalsToo = true);
    const LgmGradients& lastGradients() const { return m_grads; }
    // Eq. 62's gradient in the topics' logits α (K × V) from training row `row`, at the draws
    // of its last update, scaled by D.
    Eigen::MatrixXd topicsGradient(std::int64_t row) const;
    std::int64_t trainingRow(std::int64_t doc) const { return m_docs[std::size_t(doc)]; }
    GaussianQ& q(std::int64_t doc) { return m_q[std::size_t(doc)]; }
    const GaussianPrior& prior() const { return m_prior; }
    // Mean-field: the objective variational EM increases, at the last completed pass: Σ_d L_d
    // (each document's bound at the end of its E-step, under that pass's globals) plus the
    // topics' smoothing 0.01 Σ_kw log β_kw (a Dirichlet prior's log density up to a constant,
    // which the M-step of β maximises with the bound); NaN before the first pass ends.
    double meanFieldObjective() const { return m_mfObjective; }
    const MatrixRD& topicsByWord() const; // V × K (formed from the running sums when stale)
    int topics() const { return m_options.K; }
    // Simple bound: each training document's latest E_q[h] (D × K) behind the topics.
    const MatrixRD& documentTopicMeans() const { return m_docTheta; }
    // q(η) of a document's words after local_iters H-MC-SSVI steps, the globals fixed, q
    // diagonal from N(μ, I).
    GaussianQ fitDocument(std::span<const std::int32_t> words, std::span<const float> counts,
                          Rng& rng) const;
    // A test document's E_q[h(η)] from q fitted to its observed words; 100 draws.
    Eigen::VectorXd testWeights(std::int64_t row) const;
    // log p(w | μ, Σ, β) of a test document, both halves, by importance sampling (App. A.5).
    double testLogLikelihood(std::int64_t row) const;

protected:
    // The structured methods: the document of step t and this rank's share of its draws,
    // summed (DrawSums); mean-field: the whole step, with nothing to sum.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // The document's q, the prior and the topics from the summed draws.
    double globalUpdate(std::int64_t t) override;
    // The adaptive rate: the document's natural gradient at its initial q into its averages.
    void warmUp() override;

private:
    // A document's terms summed over draws of η ~ q: Σ_s ∇, Σ_s ∇² (or its diagonal) of Σ_w c_w
    // ξ_w, and, for eq. 62, Σ_s of each word's c_w r_wk / N_MC and of the topics' masses.
    struct DrawSums
    {
        Eigen::VectorXd grad, hessDiag, topicMass;
        Eigen::MatrixXd hess;
        MatrixRD wordTopic; // distinct words of the document × K
        void reset(int k1, bool full, int K, Eigen::Index words, bool topics);
    };
    // The draws `draws` (of N_MC) of a document's terms from q into `sums` (reset first), every
    // draw's normals taken from `rng` so that it ends where N_MC draws leave it; the topic
    // posteriors too when `topics`.
    void sumDraws(const GaussianQ& q, std::span<const std::int32_t> words,
                  std::span<const float> counts, Rng& rng, Shard draws, bool topics,
                  DrawSums& sums) const;
    // g = Σ ∇ / N_MC and Γ = ½ Σ ∇² / N_MC of summed draws into `out` (eq. 57).
    void finishEstimate(const DrawSums& sums, CovarianceForm form, LgmGradients& out) const;
    // g, Γ of a document's terms at N_MC draws from q into `out`, and (when given) the draws'
    // topic posteriors for eq. 62: per topic Σ_w c_w r_wk, per word c_w r_wk.
    void estimateInto(const GaussianQ& q, std::span<const std::int32_t> words,
                      std::span<const float> counts, Rng& rng, LgmGradients& out,
                      Eigen::VectorXd* topicMass, MatrixRD* wordTopic) const;
    // A structured step's two parts: this rank's draws of document `doc` (m_sums, m_stepRng),
    // then the update from the sums over the ranks.
    // `key` (default t) keys the draws' stream: a warm-up draw of the adaptive rate has its own.
    void localDocument(std::int64_t doc, std::int64_t t, std::uint64_t key = 0);
    // g, Γ of the summed draws (m_sums) into m_grads as a step reads them: H-MC-SSVI's Γ
    // projected first (eq. 59).
    void stepGradients(CovarianceForm form);
    double globalDocument(std::int64_t doc, double rho, std::int64_t t, bool globalsToo);
    // The document of step t, and its visit (from 1).
    std::int64_t documentOf(std::int64_t t) const;
    std::int64_t visitOf(std::int64_t t) const;
    // The running sums of the q's (eq. 60–61) as q(η_d) moves from `before` to `after`; the
    // prior from them.
    void trackPrior(const GaussianQ& before, const GaussianQ& after);
    void setPriorFromSums();
    double stepMeanField(std::int64_t t);
    void meanFieldMStep();
    void stepTopics(std::int64_t row);
    // scale · (wordParts − β ∘ mass): eq. 62 from the sparse parts Σ c_w r_wk at each word and
    // the topics' masses Σ_w c_w r_wk.
    Eigen::MatrixXd topicsGradient(const Eigen::MatrixXd& wordParts, const Eigen::VectorXd& mass,
                                   double scale) const;
    // Simple bound: log β_kw from the running sums; β formed from them (when stale).
    double closedFormLog(std::int64_t k, std::int32_t w) const;
    void refreshTopics() const;
    // The simple bound's topics (App. A.2): the document's E_q[h] into the running sums, then
    // β_k ∝ those sums once every document has been seen.
    void updateSimpleTopics(std::int64_t doc, std::int64_t t, Rng& rng);
    // Σ_w c_w log β_{·,w} of a document (the simple bound's L).
    Eigen::VectorXd wordLogs(std::span<const std::int32_t> words,
                             std::span<const float> counts) const;

    CountDataPtr m_data;
    LgmAlgorithm m_algorithm;
    CtmMethod m_method;
    CtmOptions m_options;
    std::uint64_t m_seed;
    std::vector<std::int64_t> m_docs; // the training rows
    std::vector<GaussianQ> m_q;
    std::vector<AdaGrad> m_meanOpt, m_rootOpt;
    GaussianPrior m_prior;
    Eigen::VectorXd m_sumMean;          // Σ_d m_d
    Eigen::MatrixXd m_sumOuter;         // Σ_d (S_d + m_d m_dᵀ)
    Eigen::MatrixXd m_alpha;            // topics' logits, K × V (eq. 62's parameters)
    mutable MatrixRD m_beta;            // topics, word-major: V × K
    mutable bool m_topicsStale = false; // simple bound: β behind the running sums
    bool m_closedForm = false;          // simple bound: a pass is done, β is the closed form
    bool m_nonFinite = false; // a topics' update, or an evaluation's score, gave NaN or infinity
    AdaGrad m_topicsOpt;
    QStepSizes m_steps;         // the natural steps' ρ, per document
    std::int64_t m_stepDoc = 0; // the document of the step under way
    LgmGradients m_grads;
    lda::EvaluationDocs m_evalDocs;
    // The last estimate's draws' topic posteriors summed over words, for eq. 62: per topic k,
    // Σ_w c_w r_wk (averaged over the draws), and per (word, topic) c_w r_wk.
    Eigen::VectorXd m_topicMass;
    MatrixRD m_wordTopic;         // distinct words of the document × K
    Eigen::MatrixXd m_batchWords; // eq. 62's sparse parts of the batch so far (K × V)
    Eigen::VectorXd m_batchMass;  // and its topics' masses
    int m_batchCount = 0;
    MatrixRD m_docTheta;           // simple bound: each document's latest E_q[h] (D × K)
    Eigen::MatrixXd m_topicSums;   // simple bound: Σ_d c_dw E_q[h_k(η_d)] (K × V)
    Eigen::VectorXd m_topicTotals; // and its rows' sums
    // Mean-field: the pass's Σ_d c_dw φ_dwk (K × V) and Σ_d L_d, one document's state.
    Eigen::MatrixXd m_mfCounts;
    double m_mfBoundSum = 0.0;
    double m_mfObjective;
    ctm::MeanFieldDocument m_mfDoc;
    // A step's draws: this rank's sums (then every rank's), the document's stream where the
    // draws left it (the simple bound's topics draw on from there), mean-field's step size.
    DrawSums m_sums;
    Rng m_stepRng{0};
    double m_meanFieldRho = 1.0;
    GlobalStatistic m_statistic;
};

} // namespace svi
