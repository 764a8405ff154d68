#pragma once
// The mathematics of Poisson factorization of a users × items count matrix y, fitted by
// coordinate-ascent variational inference (batch) or SVI with users local and items global.
//
// Hierarchical Poisson factorization (HPF; Gopalan, Hofman & Blei 2015):
//   ξ_u ~ Gamma(a', a'/b'),   θ_uk ~ Gamma(a, ξ_u)      (user activity, preferences)
//   η_i ~ Gamma(c', c'/d'),   β_ik ~ Gamma(c, η_i)      (item popularity, attributes)
//   y_ui ~ Poisson(θ_uᵀβ_i) = Σ_k z_uik with z_uik ~ Poisson(θ_uk β_ik)
// Poisson matrix factorization (PMF, paper 004 §2.7) is the same with fixed rates:
//   θ_uk ~ Gamma(a, b),   β_ik ~ Gamma(c, d).
// Gamma(shape, rate) throughout. Variational family: q(θ_uk) = Gamma(γshp_uk, γrte_uk),
// q(ξ_u) = Gamma(κshp, κrte_u), q(β_ik) = Gamma(λshp_ik, λrte_ik), q(η_i) = Gamma(τshp,
// τrte_i), q(z_ui) = Mult(y_ui, φ_ui). The complete conditionals give (derived again from the
// model; paper 004 §3.2.2 has the τ update's denominator as λshp and multiplies its Σ_k by the
// minibatch scale, which is wrong: Σ_k E[β_ik] involves no user):
//   φ_uik ∝ exp(E[log θ_uk] + E[log β_ik])
//   γshp_uk = a + Σ_i y_ui φ_uik          γrte_uk = E[ξ_u] + Σ_i E[β_ik]   (all items)
//   κshp = a' + K a                        κrte_u = a'/b' + Σ_k E[θ_uk]
//   λshp_ik = c + Σ_u y_ui φ_uik          λrte_ik = E[η_i] + Σ_u E[θ_uk]   (all users)
//   τshp = c' + K c                        τrte_i = c'/d' + Σ_k E[β_ik]
// (PMF: E[ξ_u] = b, E[η_i] = d, no κ, τ.) Only the non-zero y_ui enter the φ sums; the zeros
// enter through the rates' sums over all items / users.
//
// SVI (Hoffman et al. 2013 applied as in paper 004 §3.2): a minibatch B of users; each user's
// local parameters (φ, γ, κ) are iterated to convergence with the items fixed; then
//   λ̂shp_ik = c + (N/|B|) Σ_{u∈B} y_ui φ_uik,   λ̂rte_ik = E[η_i] + (N/|B|) Σ_{u∈B} E[θ_uk],
//   λ ← (1 − ρ) λ + ρ λ̂ (shape and rate: the natural parameters are (shp − 1, −rte)),
// and τ is set to its optimum given the new λ (its update has no minibatch noise). Batch VB is
// the same step with B = all users, one local iteration (φ, then γ, then κ) and ρ = 1, so a
// batch sweep is exactly coordinate ascent: φ, users, items.
//
// φ is never stored: with eθ_uk = exp(E[log θ_uk]), eβ_ik = exp(E[log β_ik]) and
// Z_ui = Σ_k eθ_uk eβ_ik, Σ_i y_ui φ_uik = eθ_uk Σ_i (y_ui/Z_ui) eβ_ik and
// Σ_u y_ui φ_uik = eβ_ik Σ_u (y_ui/Z_ui) eθ_uk: one ratio r_ui = y_ui / Z_ui per non-zero.
//
// Pure functions and plain structs; the trainer drives them.

#include "core/base/communicator.h"
#include "core/base/param_fields.h"
#include "core/base/state_archive.h"
#include "core/data/count_data.h"
#include "core/math/random.h"

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace svi::pf {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The stream of the pick of the users a cheap evaluation scores (Rng::stream(seed, this, ·)):
// one for every PF trainer, so that SVI, batch VB and BBVI runs of one seed score the same users.
inline constexpr std::uint64_t kEvaluationPickStream = 4;

struct Priors : DeclaredOptions<Priors>
{
    // HPF, with the declared defaults of both models' priors.
    Priors() { readDefaults(); }

    bool hierarchical = true; // HPF; false: PMF (the model, not a declared parameter)
    double a{};               // shape of θ_uk
    double aPrime{};          // HPF: shape of ξ_u
    double bPrime{};          // HPF: prior mean of ξ_u (its rate is a'/b')
    double b{};               // PMF: rate of θ_uk
    double c{};               // shape of β_ik
    double cPrime{};          // HPF: shape of η_i
    double dPrime{};          // HPF: prior mean of η_i
    double d{};               // PMF: rate of β_ik

    // The declarations of the HPF (`hierarchical`) or PMF priors, each > 0, bound to the fields.
    static ParamFields<Priors> declare(bool hierarchical);
    // Both models' declarations, each key once.
    static const ParamFields<Priors>& fields();
};

// One side of the factorization (users: θ and ξ; items: β and η) with its expectations.
struct Side
{
    MatrixRD shp, rte;         // R×K: q(x_rk) = Gamma(shp, rte)
    Eigen::VectorXd levelRate; // R: κrte or τrte (HPF only; empty for PMF)
    double levelShape = 0.0;   // κshp = a' + K a, or τshp = c' + K c
    MatrixRD mean;             // E[x_rk] = shp/rte
    MatrixRD expLog;           // exp(E[log x_rk]) = exp(ψ(shp)) / rte

    std::int64_t rows() const { return shp.rows(); }
    int K() const { return int(shp.cols()); }
    // True when every variational parameter (of row r) is finite and every shape and rate > 0.
    bool valid() const;
    bool rowValid(std::int64_t r) const;
    // Recomputes mean and expLog from shp and rte for rows [begin, end).
    void refresh(std::int64_t begin, std::int64_t end);
    void refreshAll(); // all rows, in parallel
    // Checkpoints: the shapes, rates and levels; mean and expLog are recomputed.
    void visitState(StateArchive& a);
};

// The level expectations the updates need, for one side: E[ξ_u] (or b), E[log ξ_u] (or log b).
double levelMean(const Side& s, std::int64_t r, double fixedRate);
double levelLogMean(const Side& s, std::int64_t r, double fixedRate);

// Which parameters of a side: the factors' shape and rate prior (a and b or ξ), the level's
// prior (a' and a'/b').
struct SidePrior
{
    double shape = 0.3;     // a or c
    double fixedRate = 1.0; // PMF: b or d
    bool hierarchical = true;
    double levelShape = 0.3; // a' or c'
    double levelRate = 0.3;  // a'/b' or c'/d'
};
SidePrior userPrior(const Priors& p);
SidePrior itemPrior(const Priors& p);

// Sizes `s` for R rows and K factors and draws the starting point: shp = shape + 0.1·u and
// rte = prior mean rate + 0.1·u, u ~ Uniform(0, 1) from one stream per row (seed, stream, r);
// the level at its prior-implied optimum for those factors.
void initialise(Side& s, std::int64_t rows, int K, const SidePrior& prior, std::uint64_t seed,
                std::uint64_t stream);

// Puts row r back at the starting point initialise() drew for it (same seed and stream).
void restart(Side& s, std::int64_t r, const SidePrior& prior, std::uint64_t seed,
             std::uint64_t stream);

// κrte_r (or τrte_r) = level prior rate + Σ_k E[x_rk], for one row (HPF; no-op for PMF).
void updateLevel(Side& s, std::int64_t r, const SidePrior& prior);

// Scratch for one user's local step: the ratios r_ui of their rated items and the K-vectors
// of the step. Sized once for the user with the most ratings; nothing allocates afterwards.
struct UserWorkspace
{
    Eigen::VectorXd ratio;  // up to the longest row: y_ui / Z_ui of the φ last used
    Eigen::VectorXd stat;   // K: Σ_i r_ui eβ_i
    Eigen::VectorXd eTheta; // K: the eθ_u that φ last used
    Eigen::VectorXd newShp; // K
    void resize(int K, Eigen::Index maxRatings);
};

struct LocalOptions
{
    int maxIters = 1;  // φ → γ → κ rounds at most (≥ 1)
    double tol = 1e-3; // stop once mean_k |Δγshp_uk| < tol
};

// The local step of user u on `rows` (its row of the training counts) with the items fixed:
// rounds of φ (through the ratios), γshp = a + eθ ∘ Σ_i r_ui eβ_i, γrte = E[ξ_u] + itemSums,
// κ; `itemSums` = Σ_i E[β_ik] (K). Updates users' row u (shp, rte, level, mean, expLog) in
// place and leaves in `ws` the ratios and eθ of the φ that the last round used (which the
// items' statistics must use, so that one round is exactly the batch sweep's user block).
// Returns the rounds made.
int fitUser(Side& users, std::int64_t u, const SparseRows& rows, const Side& items,
            const Eigen::VectorXd& itemSums, const SidePrior& prior, const LocalOptions& options,
            UserWorkspace& ws);

// The items' statistics of a minibatch, grouped by item so that the item update runs in
// parallel over items with every sum in a fixed order.
struct MinibatchStats
{
    std::vector<std::int64_t> entryStart; // B + 1: batch slot j's entries
    std::vector<std::int32_t> entryItem;  // per entry (in slot order)
    std::vector<std::int32_t> entrySlot;  // per entry: its slot j
    Eigen::VectorXd entryRatio;           // per entry: r_ui
    MatrixRD eTheta;                      // B×K: the eθ_u that φ used
    MatrixRD meanTheta;                   // B×K: E[θ_u] after the local step
    std::vector<std::int64_t> itemStart;  // M + 1: grouped entries of item i
    std::vector<std::int64_t> byItem;     // entry indices grouped by item, slot order within
    std::vector<std::int64_t> cursor;     // scratch of groupByItem (kept: no allocation per step)

    // Sizes the per-entry arrays for the users `batch` of `rows`.
    void layout(const SparseRows& rows, std::span<const std::int64_t> batch, int K);
    // Stores slot j's results (after fitUser).
    void record(std::int64_t j, const UserWorkspace& ws, const Side& users, std::int64_t u);
    void groupByItem(std::int64_t items);
};

// The global step, in two parts so that the adaptive learning rate can see the gradient:
// itemGradient forms λ̂ from the minibatch statistics with scale N/|B| and returns
// g = λ̂ − λ (shape block then rate block, M·K each, item-major) without changing anything;
// applyItemGradient sets λ ← λ + ρg = (1 − ρ)λ + ρλ̂, refreshes the expectations and sets τ to
// its optimum given the new λ.
//
// The minibatch enters through its global statistic: T_i· = Σ_{u∈B} r_ui eθ_u for each item it
// rated (T.index ascending; on several ranks, each rank's over its own users, then summed) and
// Σ_{u∈B} E[θ_u] (thetaSum).
void itemStatistics(const MinibatchStats& stats, SparseRowSum& T, Eigen::VectorXd& thetaSum);
void itemGradient(const Side& items, const SparseRowSum& T, const Eigen::VectorXd& thetaSum,
                  const SidePrior& prior, double scale, Eigen::VectorXd& gradient);

void applyItemGradient(Side& items, const Eigen::VectorXd& gradient, const SidePrior& prior,
                       double rho);

// Streaming VB (Broderick et al. 2013; paper 004 §2.6) of the items, users local: the posterior
// after a minibatch is the posterior before it, as prior, updated by the minibatch alone (no
// N/|B| scale, no ρ). streamShapeDelta turns a minibatch's T (itemStatistics) into its shape
// statistic Σ_{u∈B} y_ui φ_uik = eβ_ik T_ik, under the eβ its users' steps used (so each rank
// converts its own before the sum). addItemStatistic then sets λshp ← λshp + that (from c at
// every item when `fromPrior`: no data seen yet), λrte_ik = E[η_i] + rateSum_k with rateSum the
// Σ_u E[θ_uk] of every user seen so far, and τ to its optimum given the new λ — one coordinate
// ascent pass over the items' block, as batch VB's, so that one minibatch of every user is
// one batch VB step.
void streamShapeDelta(const Side& items, SparseRowSum& T);
void addItemStatistic(Side& items, const SparseRowSum& shapeDelta, const Eigen::VectorXd& rateSum,
                      const SidePrior& prior, bool fromPrior);

// ELBO terms. userElbo: the Poisson terms of u's row (Σ_i y log Z_ui − log Γ(y + 1), using the
// φ optimal for the current parameters, minus Σ_k E[θ_uk] itemSums_k over all items) plus u's
// prior-minus-entropy terms (θ_u and ξ_u). sideElbo: the prior-minus-entropy terms of every row
// of a side that has no likelihood terms of its own (the items).
double userElbo(const Side& users, std::int64_t u, const SparseRows& rows, const Side& items,
                const Eigen::VectorXd& itemSums, const SidePrior& prior);
double sideElbo(const Side& side, const SidePrior& prior);

// Σ_i E[β_ik] (K), summed in a fixed order.
Eigen::VectorXd columnSums(const MatrixRD& m);

} // namespace svi::pf
