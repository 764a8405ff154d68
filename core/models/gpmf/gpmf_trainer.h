#pragma once
// GpmfTrainer: generalized PMF (gpmf.h) by the column round robin of paper 002 (Sec. 3.6).
//
// Step t updates one column: the users' columns u_1…u_N, then the items' v_1…v_M, then again.
// For column c (say v_j) it takes the column's entries O_j (a seeded `subsample` of them when
// there are more) and, for each entry, k1 draws u^a ~ q(u_i) and the estimates α̂, γ̂ of
// E[∂ log p/∂f] and ½E[∂² log p/∂f²] under f ~ N(u^aᵀm_j, u^aᵀS_j u^a) (the LocalEstimator's k2
// draws): the derivatives of the bound in m_j and S_j are then d̂ = Σ α̂ u^a / k1 and D̂ = Σ γ̂
// u^a u^aᵀ / k1 (eq. 52 and the d̂ of App. A.1), scaled by |O_j|/|M|. The column's q moves by
// the algorithm's rule (lgm_update.h): MC-SSVI by eq. 53 and 65, H-MC-SSVI by eq. 53 and 66,
// S-DSVI by eq. 66 and 67, with ρ = (n + τ0)^−κ at the column's n-th update and AdaGrad state
// of its own. Then σ_V² (or σ_U²) ← Σ_j (tr S_j + |m_j|²) / (M D) (eq. 68) when learnt.
//
// Evaluation: the bound (3.6) — Σ_(i,j)∈O E_q[log p(y_ij | u_iᵀv_j)] − Σ KL(q(u_i) ‖ p) −
// Σ KL(q(v_j) ‖ p) — its entries' terms by 10 draws of u_i and 20-node Gauss–Hermite over f
// (over eval_entries training entries scaled by |O|/n unless full; the draws fixed, so a curve
// does not jitter). On the test entries (eval_entries of them unless full) the predictive under
// the normal approximation f_ij ~ N(m_uᵀm_v, tr(S_u S_v) + m_uᵀS_v m_u + m_vᵀS_u m_v) (App. A.5):
// test_nll and heldout_loglik, per observation; binary: test_error (% with p(y = 1) > ½ wrong);
// count: test_relative_error (|ŷ − y|/y over y > 0), test_nonzero_error (% of observed zeros
// with ŷ ≥ ½) and rmse; ordinal: test_abs_error (|ŷ − y|) and rmse, ŷ the predictive mean.
// Ranking as the other recommenders (precision@n … beside popularity) unless the matrix is
// fully observed (nothing is left to rank). The preview carries the factors' means.
//
// On several ranks (StagedTrainer) every rank picks the step's entries of the column (the same
// seeded subsample), gathers d̂, D̂ (and the cut points' gradient) over its share of them
// (Communicator::shardOf their count), and applies the summed derivatives to its copy of the
// column's q: every rank holds every column. An evaluation sums each rank's share of its
// entries (and of the columns' KL terms and the ranked users) over the ranks.
//
// Threading: driven by one thread; a column's entries (and an evaluation's) are processed by
// OpenMP in fixed chunks, each entry's draws from the stream (seed, step, other index), partial
// sums added in chunk order: results do not depend on the thread count.

#include "core/base/parallel.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/gpmf/gpmf.h"
#include "core/run/trainer.h"

#include <array>
#include <memory>
#include <vector>

namespace svi {

// Var(uᵀv) for independent u ~ N(mu, Su) and v ~ N(mv, Sv): tr(Su Sv) + muᵀSv mu + mvᵀSu mv
// (App. A.5); its mean is muᵀmv.
double productVariance(const Eigen::VectorXd& mu, const Eigen::MatrixXd& Su,
                       const Eigen::VectorXd& mv, const Eigen::MatrixXd& Sv);

class GpmfTrainer final : public StagedTrainer
{
public:
    enum class Side { Users, Items };

    // Throws std::invalid_argument naming the field on bad options, or on data the likelihood
    // cannot read (gpmf::makeObservations).
    GpmfTrainer(CountDataPtr data, LgmAlgorithm algorithm, const GpmfOptions& options,
                std::uint64_t seed);
    ~GpmfTrainer() override;

    std::int64_t itemsPerStep() const override;
    std::int64_t itemCount() const override { return m_obs.trainCount(); }
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // The columns' q and AdaGrads, σ_U², σ_V², the flag, the cut points' parameters, AdaGrad and
    // gradient sums; each column's tr S + |m|² and the cut points' likelihood are recomputed.
    void visitState(StateArchive& archive) override;

    // The column step t updates (which side, which column) and its update count n (≥ 1).
    void columnOf(std::int64_t t, Side& side, std::int64_t& column, std::int64_t& n) const;
    // Updates one column with step size ρ (the adaptive schedule: its own rate instead), its
    // draws seeded by t: the local and global parts of
    // a step without the sum over ranks (tests, on one rank).
    double updateColumn(Side side, std::int64_t column, double rho, std::int64_t t);
    // The scaled derivatives of the bound in the column's m and S at the current q (what
    // updateColumn used last).
    const LgmGradients& lastGradients() const { return m_grads; }

    // learn_cuts: ∂bound/∂b of the last pass over the users' columns (what the last step of the
    // cut points read), each entry's term under the q its user column's update started from.
    const Eigen::VectorXd& lastCutGradient() const { return m_lastCutGrad; }

    const gpmf::Observations& observations() const { return m_obs; }
    const Likelihood& likelihood() const { return *m_lik; }
    GaussianQ& q(Side side, std::int64_t column) { return qs(side)[std::size_t(column)]; }
    const GaussianQ& q(Side side, std::int64_t column) const
    {
        return qs(side)[std::size_t(column)];
    }
    double priorVariance(Side side) const { return m_priorVar[int(side)]; }
    // The bound with every training entry (its expectations as in evaluate). On several ranks a
    // collective.
    double bound() const;
    // σ² by eq. 68 for a side at the current q.
    double priorVarianceFit(Side side) const;

protected:
    // The column of step t, its entries, and this rank's sums of d̂, D̂ over its share of them
    // (with the cut points' gradient when learnt: the users' half-sweep so far on rank 0).
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // The column's q from the summed derivatives (and the cut points at a sweep's end).
    double globalUpdate(std::int64_t t) override;
    // The adaptive rate: the column's natural gradient at its initial q into its averages.
    void warmUp() override;

private:
    // The local and global parts of a column's update; `t` keys the entries' subsample and the
    // draws' streams (an adaptive warm-up: a key of its own).
    void localColumn(Side side, std::int64_t column, std::int64_t t);
    // The slot of a column in the per-column states (users, then items).
    std::size_t slotOf(Side side, std::int64_t column) const
    {
        return std::size_t(side == Side::Users ? column : m_obs.users() + column);
    }
    double globalColumn(Side side, std::int64_t column, double rho);
    struct Chunk
    {
        MatrixRD h, work;
        Eigen::VectorXd mf, vf, alpha, gamma;
        std::vector<Rng> rngs;
        LgmGradients grads;
        Eigen::VectorXd cutGrad; // learn_cuts: Σ E[∂ log p/∂b_k] of the chunk's entries
    };
    // learn_cuts: adds the chunk's rows' E[∂ log p/∂b] to c.cutGrad.
    void addCutGradient(Chunk& c, std::int64_t begin, std::int64_t end) const;
    // learn_cuts: one AdaGrad step of b_1 and the log gaps from m_cutGrad, then zeroes it.
    void stepCuts();
    // The entries one column update reads, with their scales.
    struct Picked
    {
        std::int32_t other;
        float y;
        double weight;
    };
    void pickEntries(Side side, std::int64_t column, std::int64_t t);
    std::vector<GaussianQ>& qs(Side side) { return side == Side::Users ? m_users : m_items; }
    const std::vector<GaussianQ>& qs(Side side) const
    {
        return side == Side::Users ? m_users : m_items;
    }
    // Draws k1 rows u^a ~ q(other) into c.h starting at row `at`.
    void drawRows(const GaussianQ& other, Rng& rng, Chunk& c, Eigen::Index at) const;
    // Σ of the entries' expected log-likelihoods E_q[log p(y | u_iᵀv_j)].
    double expectedTerms(const std::vector<gpmf::TestEntry>& entries) const;
    // The training entries at positions `at` of byUser.
    std::vector<gpmf::TestEntry> trainingEntries(const std::vector<std::int64_t>& at) const;
    // Unobserved entries as zeros: their terms, from the fixed sample, scaled to all of them.
    double zeroTerms() const;
    double klSum() const;
    void addTestMetrics(Evaluation& ev, const std::vector<std::int64_t>& entries) const;

    CountDataPtr m_data;
    LgmAlgorithm m_algorithm;
    GpmfOptions m_options;
    std::uint64_t m_seed;
    gpmf::Observations m_obs;
    std::unique_ptr<Likelihood> m_lik;
    LocalEstimator m_estimator;
    GaussHermite m_ghBound, m_ghPredict;
    std::vector<GaussianQ> m_users, m_items;
    std::vector<AdaGrad> m_meanOpt, m_rootOpt; // users then items
    std::array<double, 2> m_priorVar{};
    std::array<std::vector<double>, 2> m_secondMoment; // tr S + |m|² of each column
    QStepSizes m_steps;            // the natural steps' ρ, per column (users then items)
    Side m_stepSide = Side::Users; // the column of the step under way
    std::int64_t m_stepColumn = 0;
    mutable std::array<Chunk, kChunks> m_chunks;
    LgmGradients m_grads;
    Eigen::VectorXd m_cutSum; // learn_cuts, users' columns: m_cutGrad and the step's part
    GlobalStatistic m_statistic;
    std::vector<Picked> m_pick;
    bool m_nonFinite = false; // a column update left NaN or infinity
    bool m_learnCuts = false;
    Eigen::VectorXd m_cutGrad; // ∂bound/∂b over the users' columns updated since the last step
    Eigen::VectorXd m_lastCutGrad;
    Eigen::ArrayXd m_cutParams; // b_1, log(b_2 − b_1), …
    AdaGrad m_cutOpt;
    std::vector<gpmf::TestEntry> m_evalTrain; // the cheap evaluation's entries
    std::vector<std::int64_t> m_evalTest;     // (test: positions in m_obs.test)
    std::vector<gpmf::TestEntry> m_evalZeros; // unobserved zeros: the bound's sample
    std::int64_t m_zeroCount = 0;             // unobserved zeros: how many
    bool m_rank = false;                      // ranking metrics (not fully observed)
    RatingsEvaluation m_ratingsEval;
};

} // namespace svi
