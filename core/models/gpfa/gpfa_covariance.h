#pragma once
// Covariance estimates of zero-mean rows and their scores: the empirical covariance and Ledoit–
// Wolf shrinkage (the baselines of paper 003's Figure 5), and a Gaussian N(0, C) that scores
// rows — the density of a whole test row (the perplexity of Sec. 4.2) and of a row's held-out
// entries given its observed ones (the held-out log-likelihood and its conditional mean).
//
// Pure functions and immutable values; GaussianScorer's methods are const and safe to call
// from several threads, each with its own Workspace.

#include "core/data/dense_data.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi::gpfa {

// Moments of a set of rows, about zero (the data are centred by the tables kind).
struct SecondMoments
{
    Eigen::MatrixXd scatter; // Σ_n y_n y_nᵀ, D × D
    double fourth = 0.0;     // Σ_n ‖y_n‖⁴
    std::int64_t n = 0;
};

// The moments of `rows` (indices into data, every entry of each read, whatever its role: pass
// complete rows). Chunked in a fixed order: the same whatever the thread count.
SecondMoments secondMoments(const DenseData& data, const std::vector<std::int64_t>& rows);

// The maximum-likelihood covariance of zero-mean Gaussian rows, S/n. Throws
// std::invalid_argument when n = 0.
Eigen::MatrixXd empiricalCovariance(const SecondMoments& m);

struct Shrinkage
{
    Eigen::MatrixXd covariance;
    double intensity = 0.0; // δ = b²/d² in [0, 1]
    double target = 0.0;    // μ = tr(S/n)/D
};

// Ledoit & Wolf (2004, "A well-conditioned estimator for large-dimensional covariance
// matrices", J. Multivariate Anal. 88, Sec. 3.1; the estimator paper 003 cites through their
// 2003 paper): the empirical covariance S_n = S/n shrunk towards μI,
//   Σ* = δ μ I + (1 − δ) S_n,   δ = b²/d²,
// with the normalised Frobenius norm ‖A‖² = tr(AAᵀ)/D, μ = tr(S_n)/D, d² = ‖S_n − μI‖²,
// b̄² = n⁻² Σ_k ‖y_k y_kᵀ − S_n‖² and b² = min(b̄², d²). The sum expands to
// Σ_k ‖y_k‖⁴ − n ‖S_n‖²_F (Frobenius), so the moments above suffice. δ = 0 when d² = 0
// (S_n is already μI). Zero-mean rows: no centring (scikit-learn's assume_centered=True).
// Throws std::invalid_argument when n = 0.
Shrinkage ledoitWolf(const SecondMoments& m);

class GaussianScorer
{
public:
    // Per-thread scratch (sized for D on construction).
    struct Workspace
    {
        explicit Workspace(int D = 0);
        Eigen::VectorXd y, z;
        Eigen::MatrixXd p, a, bt;
        std::vector<int> missing, held;
    };

    struct Conditional
    {
        double logLik = 0.0;       // log p(y_h | y_o), nats
        double squaredError = 0.0; // Σ_h (y_h − E[y_h | y_o])²
        int count = 0;             // |h|; 0: nothing scored
    };

    // N(0, C). valid() is false when C is not square, not finite or not numerically positive
    // definite (a singular estimate): every score is then NaN.
    explicit GaussianScorer(const Eigen::MatrixXd& covariance);

    bool valid() const { return m_valid; }
    int dims() const { return int(m_precision.rows()); }
    const Eigen::MatrixXd& precision() const { return m_precision; }
    double logDet() const { return m_logDet; }

    // log N(y_u; 0, C_uu) over the row's entries u that are not Missing (Observed and
    // HeldOut), Missing ones marginalised out; 0 when the row has none.
    double logDensity(const DenseData& data, std::int64_t row, Workspace& ws) const;
    // The row's HeldOut entries h given its Observed ones o, Missing ones marginalised out:
    // y_h | y_o ~ N(−A⁻¹ B y_o, A⁻¹) with A, B the blocks hh, ho of the precision of (y_h, y_o).
    Conditional heldOutGivenObserved(const DenseData& data, std::int64_t row, Workspace& ws) const;

private:
    // The precision of the row's non-Missing entries, padded with zeros to D × D (Λ itself when
    // nothing is missing), and log |C_uu|; ws.y holds the row with zeros on Missing entries.
    const Eigen::MatrixXd& marginalPrecision(const DenseData& data, std::int64_t row, Workspace& ws,
                                             double& logDetCuu) const;

    bool m_valid = false;
    Eigen::MatrixXd m_precision;
    double m_logDet = 0.0;
};

} // namespace svi::gpfa
