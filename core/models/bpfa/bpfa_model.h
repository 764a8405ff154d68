#pragma once
// The mathematics of beta process factor analysis (paper 000, eq. 5):
//
//   y_i = (z_i ∘ w_i) Φ + ε_i,  w_i ~ N(0, γ_w⁻¹ I),  z_ik ~ Bernoulli(π_k),
//   ε_i ~ N(0, γ_obs⁻¹ I),  π_k ~ Beta(a/K, b(K−1)/K),  φ_k ~ N(0, D⁻¹ I),
//   γ_obs ~ Gamma(c', d'),  γ_w ~ Gamma(e', f')  (shape, rate).
//
// Only observed entries enter the likelihood. With missing entries the conjugate posterior
// of φ_k has one precision per dimension, so q(φ_kd) = N(h_kd / Λ_kd, 1 / Λ_kd); with nothing
// missing every Λ_kd equals the paper's τ_k and h_k its μ_k (eq. 7).
//
// This header holds pure functions and plain structs; the Trainer drives them. Nothing here
// allocates per item once the workspaces are sized.

#include "core/base/param_fields.h"
#include "core/base/state_archive.h"
#include "core/data/dense_data.h"
#include "core/math/random.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi::bpfa {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Prior hyperparameters (a, b, c', d', e', f') of eq. 5; defaults from Sec. 5.
struct Prior : DeclaredOptions<Prior>
{
    // The declared defaults.
    Prior() { readDefaults(); }

    double a{};
    double b{};
    double c{}; // shape of γ_obs
    double d{}; // rate of γ_obs
    double e{}; // shape of γ_w
    double f{}; // rate of γ_w

    // The declarations (keys a–f, each > 0) bound to the fields.
    static ParamFields<Prior> declare();
    static const ParamFields<Prior>& fields();
};

// Global variational parameters λ (natural parametrisation, so that the SVI step
// λ ← (1−ρ)λ + ρλ̂ is linear in every member):
//   q(π_k) = Beta(a_k, b_k), q(γ_obs) = Gamma(c, d), q(γ_w) = Gamma(e, f),
//   q(φ_kd) = N(h_kd / Λ_kd, 1 / Λ_kd).
struct Globals
{
    Eigen::VectorXd a, b; // K
    double c = 1.0, d = 1.0, e = 1.0, f = 1.0;
    MatrixRD lambda; // K×D precisions
    MatrixRD h;      // K×D precision × mean

    int K() const { return int(a.size()); }
    int D() const { return int(h.cols()); }
    MatrixRD phiMean() const { return (h.array() / lambda.array()).matrix(); }
    Eigen::VectorXd piMean() const { return (a.array() / (a + b).array()).matrix(); }
    bool finite() const;
    // this ← (1−ρ)·this + ρ·target
    void blend(const Globals& target, double rho);
    // this ← this + (target − from): streaming VB's λ_b = λ_{b−1} + (λ*_b − λ_{b−1}), the
    // minibatch's change being the target it gives from the prior (target − η).
    void addChange(const Globals& target, const Globals& from);
    // target − this, every member flattened into one vector (a, b, c, d, e, f, λ, h): the
    // natural gradient the adaptive learning rate averages.
    Eigen::VectorXd difference(const Globals& target) const;
    // Checkpoints: every member (nothing is derived).
    void visitState(StateArchive& archive);
};

// The prior's natural parameters η (the λ that no data would give).
Globals priorGlobals(const Prior& prior, int K, int D);

// What the local step sees of the globals: either expectations under q(β) (MF-SVI, Mimno-SVI)
// or one sample β ~ q(β) (the structured methods), or the posterior mean as a point.
struct GlobalView
{
    MatrixRD phi;                          // K×D: E[φ] or a sample
    MatrixRD phiSecond;                    // K×D: E[φ²] (= φ² for a point)
    Eigen::VectorXd logPi, log1mPi, logit; // E[log π], E[log(1−π)], their difference
    Eigen::VectorXd pi;                    // exp E[log π] (π itself for a point or a sample)
    double gamma = 1.0, logGamma = 0.0;    // E[γ_obs], E[log γ_obs]
    double gammaW = 1.0, logGammaW = 0.0;  // E[γ_w], E[log γ_w]
};

GlobalView expectationView(const Globals& g);
GlobalView sampleView(const Globals& g, Rng& rng);
GlobalView meanPointView(const Globals& g);
// A view at given point values (for the batch Gibbs sampler and tests).
GlobalView pointView(const MatrixRD& phi, const Eigen::VectorXd& pi, double gamma, double gammaW);

// Per-thread scratch for one item: the observed dimensions gathered into contiguous arrays.
struct Workspace
{
    void resize(int K, int D);
    // Gathers item i (its Observed entries) and the view's rows restricted to them.
    void gather(const DenseData& data, std::int64_t i, const GlobalView& view);
    // Takes observed entry j (0 ≤ j < Do) out of the gathered item: the local step then does
    // not see it. Returns its dimension; its value stays in y[Do] (the new Do) until an entry is
    // appended. Only before any pseudo-observation is appended.
    int leaveOut(int j, const GlobalView& view);
    // Appends entry d as a pseudo-observation at `value` whose precision is `alpha` times an
    // observed entry's (the overlap consensus, bpfa_overlap.h): the tempered likelihood
    // N(value | x φ_{·d}, 1/(α γ)) enters every local family and statistic as an observed entry
    // scaled by √α (value, loadings and residual), so that its squared error counts α times.
    // The workspace holds D entries in all.
    void appendPseudo(int d, double value, double alpha, const GlobalView& view);
    // (y − Σ_k E[x_k] φ_kd)²: the squared error of the local posterior-mean prediction of
    // entry d (value y), which the local step did not see.
    double predictionError(int d, double y, const GlobalView& view) const;
    // Same for explicit y/observed arrays (tests).
    void gather(const Eigen::Ref<const Eigen::VectorXd>& y,
                const Eigen::Ref<const Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>>& observed,
                const GlobalView& view);

    int K = 0, D = 0, Do = 0; // Do = number of gathered entries (observed, then pseudo)
    std::vector<int> obs;     // their dimension indices (Do)
    Eigen::VectorXd y;        // Do: their values (a pseudo-observation's scaled by √α)
    Eigen::VectorXd scale;    // Do: 1 for an observed entry, √α for a pseudo-observation
    double weight = 0.0;      // Σ scale²: the entries' count, pseudo-observations by α
    // K: added to the prior log-odds of z_k, logit π_k (the neighbour coupling,
    // bpfa_spatial.h); zeroed by gather, so 0 = the paper's independent prior.
    Eigen::VectorXd shift;
    MatrixRD G;         // K×Do: view.phi restricted to observed dims
    Eigen::VectorXd G2; // K: Σ_obs E[φ_kd²]
    Eigen::VectorXd Gn; // K: Σ_obs φ_kd² (φ from the view)
    Eigen::VectorXd r;  // Do residual y − Σ_k x_k φ_k
    // Local state / estimates (K each)
    Eigen::VectorXd theta, mean, prec; // MF / Titsias: θ, ν/κ, κ
    Eigen::VectorXd z, x;              // Gibbs state: z_k, x_k = z_k w_k
    // Estimated expectations (filled by every local method):
    Eigen::VectorXd ez;  // E[z_k]
    Eigen::VectorXd ex;  // E[z_k w_k]
    Eigen::VectorXd ex2; // E[z_k w_k²]
    MatrixRD exr;        // K×Do: E[x_k r], r = y − Σ_j x_j φ_j (see Stats)
    double ew2 = 0.0;    // E[‖w‖²]
    double er2 = 0.0;    // E[‖y − Σ x_k φ_k‖²] over observed entries (Φ as in the view)
};

// Local approximations. Each fills ez, ex, ex2, exr, ew2, er2 of the workspace.
//
// Mean-field (eq. 8–9; MF-SVI with an expectation view, MF-SSVI with a sample): coordinate
// ascent on (θ_k, ν_k, κ_k), each update an exact maximisation, so the local ELBO never
// decreases. Stops after maxIters sweeps or when no θ_k, and no term E[x_k] φ_k of the
// prediction (in norm over the observed entries), moved by tol in the last sweep.
void mfLocal(Workspace& ws, const GlobalView& view, int maxIters, double tol);
// Spike-and-slab (eq. 11; Titsias-SSVI): coordinate ascent on (θ_k, ν_k, κ_k) jointly per k.
void titsiasLocal(Workspace& ws, const GlobalView& view, int maxIters, double tol);
// Gibbs sampling of (z_k, w_k) blocks from exp(log-target) where the log-target is the
// exact conditional given a sampled β (Gibbs-SSVI) or its expectation under q(β)
// (Mimno-SVI, eq. 10). Each block draws z_k with w_k integrated out, then w_k | z_k.
// `warm` keeps ws.x/ws.z as the starting state, otherwise starts from z = 0.
void gibbsLocal(Workspace& ws, const GlobalView& view, int burnin, int samples, Rng& rng,
                bool warm = false);

// Local ELBO of one item for the mean-field family (eq. 9, with observed entries only),
// including every term that depends on the local parameters and the view's constants.
double mfLocalElbo(const Workspace& ws, const GlobalView& view);
// The same for the spike-and-slab family (eq. 11).
double titsiasLocalElbo(const Workspace& ws, const GlobalView& view);

// Sufficient statistics of a set of items (the sums of eq. 7), from the local expectations.
//   zSum_k = Σ E[z_ik]              obsCount = Σ D_i (observed entries; α each pseudo one)
//   P_kd   = Σ m_id E[z_ik w_ik²]   C_kd = Σ m_id exr_ik(d)
// (m_id: 1 where entry d of item i is observed, α where it is a pseudo-observation, else 0)
//   r2     = Σ E‖r_i‖²              w2 = Σ E‖w_i‖²
// With φ the view's loadings, the φ-natural parameter is h_kd = γ (C_kd + φ_kd P_kd).
struct Stats
{
    void resize(int K, int D);
    void clear();
    void add(const Workspace& ws);
    void add(const Stats& other);

    Eigen::VectorXd zSum;
    MatrixRD P, C;
    double r2 = 0.0, w2 = 0.0, obsCount = 0.0;
    std::int64_t items = 0;
};

// λ̂ = η + scale · Σ η̂_i (Algorithm 1 with scale = N / |B|), where the γ_obs factor and the
// loadings are those of the view the statistics were computed under.
Globals globalTarget(const Prior& prior, const Stats& stats, const GlobalView& view, double scale,
                     int K, int D);

// E_q[log p(β)] − E_q[log q(β)] (minus the KL divergence of q(β) from the prior).
double globalElboTerm(const Prior& prior, const Globals& g);

} // namespace svi::bpfa
