#pragma once
// The mathematics of Gaussian matrix factorization (GMF) of a users × items rating matrix,
// fitted by batch coordinate-ascent variational Bayes (the baseline of paper 004 §2.7 and
// Table 1; the model and its mean-field posterior as in Lim & Teh 2007, here with fixed prior
// precisions).
//
// Model, for the observed training entries (u, i) ∈ Ω only:
//   x_ui = μ + u_uᵀv_i + ε_ui,   ε_ui ~ N(0, 1/β)
//   u_u ~ N(0, (1/λ_u) I_K),   v_i ~ N(0, (1/λ_v) I_K),   β ~ Gamma(a0, b0)  (shape, rate)
// μ is the mean of the training ratings, fixed, not inferred. Write r_ui = x_ui − μ.
// Variational family: q(u_u) = N(m_u, S_u), q(v_i) = N(n_i, T_i), full K×K covariances,
// q(β) = Gamma(a, b).
//
// Derivation. u_u and v_i independent under q, so
//   E[(r − u_uᵀv_i)²] = r² − 2r m_uᵀn_i + E[v_iᵀ u_u u_uᵀ v_i]
//                     = r² − 2r m_uᵀn_i + tr((S_u + m_u m_uᵀ)(T_i + n_i n_iᵀ))
//                     = (r − m_uᵀn_i)² + m_uᵀT_i m_u + n_iᵀS_u n_i + tr(S_u T_i).      (1)
// The ELBO is
//   L = Σ_Ω [½(E[log β] − log 2π) − ½ E[β] E[(r_ui − u_uᵀv_i)²]]
//       − Σ_u KL(q(u_u) ‖ p(u_u)) − Σ_i KL(q(v_i) ‖ p(v_i)) − KL(q(β) ‖ p(β)),       (2)
//   KL(N(m, S) ‖ N(0, I/λ)) = ½ [λ tr S + λ mᵀm − K − K log λ − log det S],
//   KL(Gamma(a, b) ‖ Gamma(a0, b0)) = (a − a0)ψ(a) − log Γ(a) + log Γ(a0)
//                                     + a0 (log b − log b0) + a (b0 − b)/b,
//   E[β] = a/b,   E[log β] = ψ(a) − log b.
// As a function of u_u alone, E_{q(v), q(β)}[log p] is the quadratic
//   −½ u_uᵀ(λ_u I + E[β] Σ_{i∈Ω_u} (n_i n_iᵀ + T_i)) u_u + E[β] (Σ_{i∈Ω_u} r_ui n_i)ᵀ u_u,
// so the optimal q(u_u) (log q* = E_{−u}[log p] + const) is Gaussian with
//   S_u = (λ_u I + E[β] A_u)⁻¹,   A_u = Σ_{i∈Ω_u} (n_i n_iᵀ + T_i),
//   m_u = S_u E[β] c_u,            c_u = Σ_{i∈Ω_u} r_ui n_i,                           (3)
// and the items symmetrically (n_i, T_i from Σ_{u∈Ω_i} (m_u m_uᵀ + S_u) and Σ r_ui m_u). In β
// the expected log joint is (a0 − 1 + |Ω|/2) log β − (b0 + ½ Σ_Ω E[(r − uᵀv)²]) β, so
//   a = a0 + |Ω|/2,   b = b0 + ½ Σ_Ω E[(r_ui − u_uᵀv_i)²].                                (4)
// Each block is the exact maximiser of (2) given the others, so a sweep (all users, all
// items, then β) never decreases the ELBO. Users are conditionally independent given the
// items (and items given the users), which is what lets a block run in parallel.
//
// β's statistic comes from the item block at no extra cost: summing (1) over the users of
// item i, with B_i = Σ_u (m_u m_uᵀ + S_u) (the item's A) and c_i = Σ_u r_ui m_u,
//   Σ_{u∈Ω_i} E[(r − uᵀv_i)²] = Σ_u r_ui² − 2 c_iᵀn_i + n_iᵀB_i n_i + tr(T_i B_i),    (5)
// O(K²) per item instead of O(K²) per rating; updateRow returns (5) for the row it updated.
//
// Cost of a sweep: O(|Ω| K²) to form the A's (two sides) and O((N + M) K³) for the Cholesky
// factorisations. Memory: one K×K covariance per user and per item, 8 K² (N + M) bytes:
// MovieLens 100k (943 + 1682 rows) 8.4 MB at K = 20 and 210 MB at K = 100; MovieLens 1M (6040
// + 3706) 31 MB at K = 20 and 780 MB at K = 100. That is the limit of this baseline: for
// MovieLens 10M (about 82,000 rows) at K = 100 it would be 6.6 GB; larger data would need the
// covariances stored in float, packed as one triangle, or not at all (recomputed on demand).
//
// Pure functions and plain structs; the trainer drives them.

#include "core/base/param_fields.h"
#include "core/data/count_data.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi::gmf {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The model's prior parameters (λ_u, λ_v, a0, b0 above); their defaults, and why, are declared
// by declare() (gmf_model.cpp).
struct Priors : DeclaredOptions<Priors>
{
    // The declared defaults.
    Priors() { readDefaults(); }

    double lambdaU{}; // prior precision of each user factor
    double lambdaV{}; // prior precision of each item factor
    double a0{};      // shape of β's prior
    double b0{};      // rate of β's prior

    // The declarations (keys lambda_u, lambda_v, a0, b0, each > 0) bound to the fields.
    static ParamFields<Priors> declare();
    static const ParamFields<Priors>& fields();
};

// One side of the factorization: the users' (m_u, S_u) or the items' (n_i, T_i).
struct Side
{
    MatrixRD mean;       // R×K
    Eigen::MatrixXd cov; // K × (R·K): row r's covariance in columns [rK, rK + K), symmetric

    Eigen::Index rows() const { return mean.rows(); }
    int K() const { return int(mean.cols()); }
    auto covariance(Eigen::Index r) { return cov.middleCols(r * mean.cols(), mean.cols()); }
    auto covariance(Eigen::Index r) const { return cov.middleCols(r * mean.cols(), mean.cols()); }
};

// The residuals r = x − μ of the training ratings of one side's rows: row r's entries are
// [start[r], start[r+1]) of `other` (the index on the other side, ascending) and `value`.
struct Adjacency
{
    std::vector<std::int64_t> start; // rows + 1
    std::vector<std::int32_t> other;
    std::vector<double> value;

    std::int64_t rows() const { return std::int64_t(start.size()) - 1; }
    std::int64_t count(std::int64_t r) const
    {
        return start[std::size_t(r) + 1] - start[std::size_t(r)];
    }
    std::int64_t longest() const; // the largest count
};

// The training ratings seen from both sides.
struct Residuals
{
    double mu = 0.0;        // mean of the training ratings
    std::int64_t count = 0; // |Ω|
    Adjacency byUser;       // N rows (rows outside trainingRows() empty)
    Adjacency byItem;       // M rows; users ascending within an item
};

// The entries of `data.train` in the training rows, centred at their mean. Throws
// std::invalid_argument if there are none.
Residuals residuals(const CountData& data);

// q(β) = Gamma(shape, rate).
struct Noise
{
    double shape = 1.0;
    double rate = 1.0;
    double mean() const { return shape / rate; } // E[β]
    double logMean() const;                      // E[log β] = ψ(shape) − log(rate)
};

// Scratch for one row's update or ELBO term: sized once for K; nothing allocates afterwards.
struct Workspace
{
    Eigen::MatrixXd stat; // K×K: A = Σ_j (n_j n_jᵀ + T_j) over the row's ratings
    // K×K: a matrix to factorise, then its Cholesky factor L in the lower triangle, in place
    // (Eigen::LLT<Ref>). No Eigen::LLT is stored: an LLT that has not yet computed anything
    // holds an uninitialised status, so copying one (as a vector of workspaces does) is
    // undefined behaviour.
    Eigen::MatrixXd factor;
    Eigen::MatrixXd inverse; // K×K: L⁻¹, column by column
    Eigen::VectorXd rhs;     // K: c = Σ_j r_j n_j
    Eigen::VectorXd mean;    // K
    Eigen::VectorXd product; // K
    double sumSquares = 0.0; // Σ_j r_j²
    void resize(int K);
};

// Sizes `s` for R rows and K factors and draws the starting point: means N(0, 0.1²) from one
// stream per row (seed, stream, r), covariances 0.01 I. (All zero means would be a fixed point
// of the updates; the starting covariances only matter for the first sweep's users.)
void initialise(Side& s, std::int64_t rows, int K, std::uint64_t seed, std::uint64_t stream);

// q(β) at the start: (4) with the predictions zero and certain, so E[β] ≈ 1 / (mean squared
// residual), the precision of the ratings about μ.
Noise initialNoise(const Residuals& residuals, const Priors& priors);

// The optimal q of row r of `self` given `other` and E[β] (3): S = (λ I + E[β] A)⁻¹,
// m = S E[β] c, written into self. Returns Σ_j E[(r_j − u_rᵀv_j)²] over the row's ratings
// under the new q (5). Reads only row r of `self` and `other`; safe to call in parallel for
// distinct r with one workspace per thread.
double updateRow(Side& self, std::int64_t r, const Adjacency& ratings, const Side& other,
                 double lambda, double eBeta, Workspace& ws);

// The ELBO terms (2) that belong to user u: the expected log-likelihood of u's ratings minus
// KL(q(u_u) ‖ p(u_u)).
double userElbo(const Side& users, std::int64_t u, const Adjacency& byUser, const Side& items,
                double lambdaU, const Noise& noise, Workspace& ws);

// Σ_r KL(q(row r) ‖ N(0, I/λ)) over every row of a side, in a fixed order.
double sideKl(const Side& side, double lambda);
// KL(N(m, S) ‖ N(0, I/λ)) for one row.
double gaussianKl(const Side& side, std::int64_t r, double lambda, Workspace& ws);
// KL(Gamma(a, b) ‖ Gamma(a0, b0)).
double gammaKl(double a, double b, double a0, double b0);

} // namespace svi::gmf
