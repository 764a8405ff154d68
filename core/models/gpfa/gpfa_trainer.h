#pragma once
// GpfaTrainer: gamma process factor analysis (gpfa_model.h) on DenseData, by one of
//   - gamma-sgvb / norm-sgvb / map: PositiveSgvb (core/inference/positive_sgvb.h) on the
//     collapsed log joint; one step = one draw of q and the gradient over every complete
//     training row (through their scatter, as the paper's), plus a minibatch of the incomplete
//     ones (gpfa_likelihood.h);
//   - bbvi: black-box VI (core/inference/black_box.h) of gamma SGVB's q on the same log joint
//     and minibatch, S draws per step, the score-function gradient Rao-Blackwellised over each
//     variable's blanket (gpfa::Model::blankets) with control variates, or reparameterised
//     (estimator = reparam); it runs on one rank;
//   - empirical / ledoit-wolf: the closed-form covariance of the complete training rows
//     (gpfa_covariance.h), which converges in one step.
//
// Training rows: the data's (every row, or those left by a row split), capped at train_rows by a
// fixed pseudo-random order that depends neither on the run's seed nor on the algorithm — so
// the five algorithms see the same rows, and the rows at a cap are a subset of those at any
// larger cap (a learning curve, Figure 5). The baselines use the complete rows among them (no
// entry held out or missing); throws when there is none.
//
// Evaluation, under the covariance estimate Ĉ: for the SGVB algorithms eq. 20, the mean of
// W Wᵀ + σ² I over cov_draws draws of q (the point for MAP):
//   perplexity       (row splits) the mean over test rows of −log N(y; 0, Ĉ), in nats per row,
//                    every stored entry of the row (its Missing ones marginalised out);
//   heldout_loglik   per held-out entry, log N(y_h | y_o) under Ĉ — the held-out entries of a
//                    row given its observed ones (BPFA's protocol, eq. 12 of paper 000, with
//                    Ĉ as the predictive instead of a mixture over draws), and mse the squared
//                    error of the conditional mean E[y_h | y_o], per entry, in the data's
//                    (standardised) units;
//   amari_error      (data with true loadings: the synthetic kind) the Amari error of E_q[W]'s
//                    heaviest K' columns against the K' true ones (core/metrics/factor_metrics.h);
//                    with K > K' a fit may split a true factor into two columns (w/√2 each: the
//                    same W Wᵀ, a higher bound), which this charges as a miss — fit K = K' (the
//                    paper's K = 10) to score recovery;
//   factors_used, noise_sd, shrinkage: diagnostics.
// A singular estimate (the empirical covariance of fewer rows than columns, or of one row) has
// no density: the run ends as diverged (its precision is infinite), and its scores are NaN.
// The preview carries E_q[W]ᵀ as atoms (rows by decreasing share of Σ_k ‖E W_k‖²) and the
// covariance summary (Ĉ beside the complete training rows' S/n).
//
// On several ranks (StagedTrainer) every rank draws the same q sample and sums the terms of its
// share of the step's incomplete rows (gpfa::Model::itemTerms); from the sums over the ranks
// every rank takes the same optimizer step. The baselines' estimate is formed by every rank
// alike (it reads no item). An evaluation splits the bound's incomplete rows, the test rows and
// the rows with held-out entries over the ranks.
//
// Threading: driven by one thread; OpenMP inside (the likelihood's incomplete rows, the
// scores); results do not depend on the thread count.

#include "core/inference/black_box.h"
#include "core/inference/positive_sgvb.h"
#include "core/models/gpfa/gpfa.h"
#include "core/models/gpfa/gpfa_covariance.h"
#include "core/models/gpfa/gpfa_model.h"

#include <memory>
#include <optional>
#include <vector>

namespace svi {

// The settings of GPFA. The defaults and ranges are those declared in declare()
// (gpfa_registry.cpp, SgvbOptions and gpfa::Prior), the only place that states them.
struct GpfaOptions : DeclaredOptions<GpfaOptions>
{
    GpfaOptions() { readDefaults(); }

    int K{};                  // truncation level
    SgvbOptions sgvb;         // optimizer, entropy gradient, bound draws
    gpfa::Prior prior;        // 1/σ² ~ G(noise_a, noise_b)
    int covDraws{};           // S of eq. 20
    std::int64_t minibatch{}; // incomplete rows per step, 0 = every one
    std::int64_t trainRows{}; // cap on the training rows, 0 = every one

    // The declarations of one algorithm (the registry's entry) bound to the fields, and those
    // of all, each key once.
    static ParamFields<GpfaOptions> declare(GpfaAlgorithm algorithm);
    static const ParamFields<GpfaOptions>& fields();
};

// The settings of bbvi: the model's (K, the noise prior), the evaluation's and the rows' as
// above, and black-box VI's own (apart: they share keys with the SGVB options).
struct GpfaBbviOptions : DeclaredOptions<GpfaBbviOptions>
{
    GpfaBbviOptions() { readDefaults(); }

    int K{};
    BbviOptions bbvi;
    gpfa::Prior prior;
    int covDraws{};
    std::int64_t minibatch{};
    std::int64_t trainRows{};

    static ParamFields<GpfaBbviOptions> declare();
    static const ParamFields<GpfaBbviOptions>& fields();
    // The options of the trainer's other parts (the SGVB ones at their defaults).
    GpfaOptions common() const;
};

class GpfaTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options, or on data it cannot fit (no
    // training row with an observed entry; for the baselines, no complete training row).
    GpfaTrainer(DenseDataPtr data, GpfaAlgorithm algorithm, const GpfaOptions& options,
                std::uint64_t seed);
    GpfaTrainer(DenseDataPtr data, const GpfaBbviOptions& options, std::uint64_t seed);
    ~GpfaTrainer() override;

    std::int64_t itemsPerStep() const override;
    std::int64_t itemCount() const override;
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    bool converged() const override { return m_estimated && !fitsQ(); }
    // BBVI's steps are not split over ranks (its draws and blankets are the engine's).
    bool distributes() const override { return !m_bbvi; }
    // SGVB: q, its optimizer and the last step; baselines: whether estimated (estimate recomputed).
    void visitState(StateArchive& archive) override;

    // The covariance estimate Ĉ (eq. 20 with draws from the streams of evaluation `key`; the
    // baselines' estimate, empty before their step).
    Eigen::MatrixXd covariance(std::uint64_t key) const;
    // E_q[W] (D × K; MAP: the point); empty for the baselines.
    Eigen::MatrixXd meanLoadings() const;
    // The training rows after the cap, ascending (indices into the data).
    const std::vector<std::int64_t>& trainingRows() const { return m_rows; }
    // The complete ones among them: S/n (empty when there is none).
    const Eigen::MatrixXd& empirical() const { return m_empirical; }
    // Ledoit–Wolf's intensity δ (NaN for the other algorithms).
    double shrinkage() const { return m_shrinkage; }
    const PositiveSgvb* fit() const { return m_sgvb.get(); }

protected:
    // SGVB: one draw and this rank's incomplete rows' terms. Baselines: the estimate (at the
    // first step; later steps change nothing), with nothing to sum.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // SGVB: the gradient from the summed terms and one optimizer step, returns the step's rate
    // γ_t. Baselines: returns 1.
    double globalUpdate(std::int64_t t) override;

private:
    GpfaTrainer(DenseDataPtr data, GpfaAlgorithm algorithm, const GpfaOptions& options,
                const BbviOptions* bbvi, std::uint64_t seed);
    bool sgvb() const { return m_sgvb != nullptr; }
    bool fitsQ() const { return m_sgvb || m_bbvi; } // SGVB or BBVI
    // q's start (SGVB's and BBVI's), then the engine of the algorithm.
    void initialiseQ(std::uint64_t seed);
    // A draw of x from q of evaluation `key` (SGVB's or BBVI's), and E_q[x].
    void drawQ(std::uint64_t key, std::uint64_t draw, Eigen::ArrayXd& x) const;
    Eigen::ArrayXd meanQ() const;
    // The baselines' closed-form estimate (and δ, and whether it is singular) from the
    // complete rows' moments.
    void estimateCovariance();
    // Ĉ and E[σ²] from the draws of evaluation `key`.
    Eigen::MatrixXd drawnCovariance(std::uint64_t key, double* noiseVariance) const;
    void score(const gpfa::GaussianScorer& scorer, Evaluation& ev) const;
    std::shared_ptr<Preview> makePreview(const Eigen::MatrixXd& estimate) const;

    DenseDataPtr m_data;
    GpfaAlgorithm m_algorithm;
    GpfaOptions m_options;
    std::vector<std::int64_t> m_rows;     // training rows
    std::vector<std::int64_t> m_testRows; // rows not trained on (a row split)
    std::vector<std::int64_t> m_heldRows; // rows with a held-out entry
    Eigen::MatrixXd m_empirical;
    std::int64_t m_completeCount = 0;

    // SGVB.
    std::unique_ptr<gpfa::CollapsedLikelihood> m_likelihood;
    std::unique_ptr<gpfa::Model> m_model;
    std::unique_ptr<PositiveSgvb> m_sgvb;
    // BBVI: its options, the model as it sees it (over m_model) and the engine.
    std::optional<BbviOptions> m_bbviOptions;
    std::unique_ptr<BlackBoxModel> m_bbviModel;
    std::unique_ptr<BlackBoxVi> m_bbvi;
    std::uint64_t m_seed = 0;
    std::int64_t m_lastStep = 0;
    double m_rate = 0.0; // the optimizer's rate of the step under way
    GlobalStatistic m_statistic;

    // Baselines.
    std::optional<gpfa::SecondMoments> m_moments;
    Eigen::MatrixXd m_estimate;
    bool m_estimated = false;
    bool m_singular = false;
    double m_shrinkage;
};

} // namespace svi
