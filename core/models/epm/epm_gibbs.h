#pragma once
// Zhou's (2015) Gibbs sampler for the edge partition model (epm_model.h, eq. 11–14), the MCMC
// reference of paper 003's Figure 3, and its trainer.
//
// Data augmentation. y_ij = 1[Σ_k m_ijk > 0] with m_ijk ~ Pois(r_k φ_ik φ_jk) independent over
// the training pairs i < j (the held-out pairs are left out of every sum below). Given the
// state, a training non-edge has m_ij· = 0, and a training edge has
//   m_ij· | y_ij = 1 ~ Pois₊(p_ij)  (zero-truncated),  (m_ij1 … m_ijK) ~ Mult(m_ij·; ∝ r_k φ_ik
//   φ_jk).
// With M_ik = Σ_j m_ijk (node i's count through community k) and m_k = Σ_{i<j} m_ijk, the
// augmented joint is, in the continuous variables,
//   Σ_{i,k} M_ik log φ_ik + Σ_k m_k log r_k − Σ_k r_k Σ_{train i<j} φ_ik φ_jk + log priors.
// Conditionals, each read off that joint (and eq. 14):
//   φ_ik | −  ~ G(a_i + M_ik, c_i + q_ik),   q_ik = r_k Σ_{j: (i,j) a training pair} φ_jk
//   c_i  | −  ~ G(e0 + K a_i, f0 + Σ_k φ_ik)
//   r_k  | −  ~ G(γ0/K + m_k, c0 + t_k),     t_k = Σ_{training pairs i<j} φ_ik φ_jk
//   c0   | −  ~ G(e0 + γ0, f0 + Σ_k r_k)
// and the shapes by the CRT augmentation (Zhou & Carin 2015): with φ_ik integrated out,
// M_ik ~ NB(a_i, q_ik/(c_i + q_ik)); drawing ℓ_ik ~ CRT(M_ik, a_i) (Σ_{n ≤ M} Bern(a/(a + n − 1)))
// makes a_i conjugate,
//   a_i | ℓ, −  ~ G(a_shape + Σ_k ℓ_ik, a_rate + Σ_k log(1 + q_ik/c_i));
// likewise with r_k integrated out m_k ~ NB(γ0/K, t_k/(c0 + t_k)), and ℓ_k ~ CRT(m_k, γ0/K),
//   γ0 | ℓ, −  ~ G(e0 + Σ_k ℓ_k, f0 + (1/K) Σ_k log(1 + t_k/c0)).
// A sweep: the counts; then node by node the block (a_i, φ_i) — a_i with φ_i integrated out,
// then φ_i given the new a_i (a partially collapsed step, valid because φ_i is drawn right after
// the a_i it was integrated against); then every c_i; then (γ0, r) the same way; then c0. Zhou's
// code draws every a_i before any φ_i, and γ0 after r; the order here keeps each collapsed step
// followed by the draw of what it integrated out. Node blocks condition on the nodes before
// them, so a sweep is sequential; at the paper's sizes it costs about a millisecond.
//
// q_ik and t_k cost O(1 + held-out pairs of i) per k from the column sums S_k = Σ_i φ_ik:
//   Σ_{train j} φ_jk = S_k − φ_ik − Σ_{held-out j} φ_jk,
//   t_k = ½ (S_k² − Σ_i φ_ik²) − Σ_{held-out i<j} φ_ik φ_jk,
// so a sweep is O((E_train + H)·K + N·K + total counts).
//
// Thread-safety: a value driven by one thread.

#include "core/base/state_archive.h"
#include "core/math/random.h"
#include "core/models/epm/epm_model.h"
#include "core/models/epm/epm_trainer.h"

#include <cstdint>
#include <vector>

namespace svi::epm {

// x ~ Pois(λ), λ ≥ 0 (inversion below 30, Hörmann's PTRS above).
std::int64_t poisson(Rng& rng, double lambda);
// x ~ Pois(λ) given x ≥ 1; λ → 0 gives 1. Returns −1 for λ not finite or above 10⁹ (a state
// that has run away: the caller reports divergence rather than loop over such a count).
std::int64_t zeroTruncatedPoisson(Rng& rng, double lambda);
// ℓ ~ CRT(m, α): the number of tables of m customers in a Chinese restaurant of concentration α.
std::int64_t chineseRestaurantTables(Rng& rng, std::int64_t m, double alpha);

struct GibbsState
{
    MatrixRD phi; // N×K memberships
    Eigen::VectorXd r, a, c;
    double gamma0 = 1.0, c0 = 1.0;

    // Checkpoints: every member.
    void visitState(StateArchive& archive);
};

struct GammaParams
{
    double shape = 0.0, rate = 0.0;
};

class GibbsSampler
{
public:
    // Zhou's starting point: φ_ik ~ G(1, 1), r_k = 1/K, a_i = 0.01, c_i = 1, γ0 = 1, c0 = 1.
    // `graph` must outlive this.
    GibbsSampler(const Graph& graph, int K, const Priors& priors, std::uint64_t seed);

    // One sweep, from the stream (seed, sweep t).
    void sweep(std::int64_t t);
    // False once a draw was not finite (or a latent count ran away).
    bool finite() const;

    // The parts of a sweep, in its order (public for the tests).
    void drawCounts(Rng& rng);
    void updateNode(Rng& rng, int i);
    void updateC(Rng& rng);
    void updateGlobals(Rng& rng); // updateGamma0AndR, then updateC0
    void updateGamma0AndR(Rng& rng);
    void updateC0(Rng& rng);

    // The conditionals (from the current state and counts).
    GammaParams phiConditional(int i, int k) const;
    GammaParams cConditional(int i) const;
    GammaParams rConditional(int k) const;
    GammaParams c0Conditional() const;
    GammaParams aConditional(int i, double tables) const; // given Σ_k ℓ_ik
    GammaParams gamma0Conditional(double tables) const;   // given Σ_k ℓ_k
    // Σ_{j: (i,j) a training pair} φ_jk and t_k, from the column sums.
    double trainNeighbourSum(int i, int k) const;
    double trainPairProduct(int k) const;

    GibbsState& state() { return m_state; }
    const GibbsState& state() const { return m_state; }
    // M (N×K) and m_k of the last drawCounts (or as a test set them).
    Eigen::MatrixXd& nodeCounts() { return m_nodeCounts; }
    const Eigen::MatrixXd& nodeCounts() const { return m_nodeCounts; }
    Eigen::VectorXd& communityCounts() { return m_communityCounts; }
    const Eigen::VectorXd& communityCounts() const { return m_communityCounts; }
    // Recomputes the column sums S_k (after the state was set from outside).
    void refreshSums();
    int K() const { return m_K; }
    // Checkpoints: the state, the last community counts m_k (an evaluation reports them) and
    // whether a count ran away; the column sums are recomputed. The node counts M are not
    // listed: a sweep redraws them before reading them, and nothing else reads them.
    void visitState(StateArchive& archive);

private:
    const Graph& m_graph;
    int m_K;
    Priors m_priors;
    std::uint64_t m_seed;
    GibbsState m_state;
    Eigen::MatrixXd m_nodeCounts;      // M_ik (whole numbers, as doubles for the algebra)
    Eigen::VectorXd m_communityCounts; // m_k
    Eigen::VectorXd m_colSum;          // S_k
    Eigen::VectorXd m_scratch, m_held; // K each
    bool m_runaway = false;
};

} // namespace svi::epm

namespace svi {

// The Gibbs sampler as a Trainer: a step is a sweep. After `burnin` sweeps every thin-th
// sweep's sample is kept, up to `samples` of them, after which the run has converged. The
// held-out link probabilities average 1 − exp(−p_ij) over the kept samples (the current
// sample's before the first is kept), as Zhou's code does; evaluations report them (auc_roc,
// auc_pr, heldout_loglik) and communities_used, the communities with a count (Zhou's
// K_positive); a sampler has no bound. The preview's communities are those of the kept
// samples' mean (φ, r); its link matrix averages up to 16 kept samples spread over the run
// (every s-th, s doubling as they fill), computed at the evaluation, off the training clock.
class EpmGibbsTrainer final : public Trainer
{
public:
    // Throws std::invalid_argument naming the field on bad options or bad data.
    EpmGibbsTrainer(GraphDataPtr data, const EpmOptions& options, std::uint64_t seed);

    double step(std::int64_t t) override;
    std::int64_t itemsPerStep() const override { return m_graph.nodes; }
    std::int64_t itemCount() const override { return m_graph.nodes; }
    Evaluation evaluate(bool full) override;
    bool diverged() const override { return !m_sampler->finite(); }
    bool converged() const override { return m_kept >= m_options.samples; }
    // The sampler, the kept samples' count and sums, the preview's samples; nothing is derived.
    void visitState(StateArchive& archive) override;

    // The held-out probabilities the evaluation scores (GraphData's order).
    std::vector<double> heldOutProbability() const;
    const epm::GibbsSampler& sampler() const { return *m_sampler; }
    epm::GibbsSampler& sampler() { return *m_sampler; }
    std::int64_t kept() const { return m_kept; }

private:
    void keep();
    // 1 − exp(−p_ij) of the current sample for each held-out pair, added to `into`.
    void addHeldOut(std::vector<double>& into) const;

    GraphDataPtr m_data;
    epm::Graph m_graph;
    EpmOptions m_options;
    std::unique_ptr<epm::GibbsSampler> m_sampler;
    std::int64_t m_kept = 0;
    std::vector<double> m_heldOutSum;
    epm::MatrixRD m_phiSum;
    Eigen::VectorXd m_rSum;
    struct Stored
    {
        Eigen::MatrixXf phi;
        Eigen::VectorXf r;
        void visitState(StateArchive& a)
        {
            a.field("phi", phi);
            a.field("r", r);
        }
    };
    std::vector<Stored> m_stored; // the preview's samples
    std::int64_t m_storeEvery = 1;
};

} // namespace svi
