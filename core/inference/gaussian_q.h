#pragma once
// The Gaussian variational family over the global weights of a latent Gaussian model,
// q(w) = N(m, S), and the three updates of paper 002 (Sheth & Khardon, Sec. 3.1 and 3.3,
// App. A.1) for a model whose local values are linear in w, f_i = h_iᵀw:
//   - the natural-gradient (fixed-point) step of MC-SSVI, eq. 24 for the precision and eq. 25
//     for the precision-weighted mean;
//   - the plain gradient in the mean, eq. 63 (H-MC-SSVI, S-DSVI);
//   - the plain gradient in the Cholesky factor of S, eq. 64 (S-DSVI).
// Each reads the minibatch's estimates of the expected log-likelihood's derivatives, gathered
// into LgmGradients; the models (GLM; PMF's columns) compute them.
//
// Parameterisation: the mean m and an upper-triangular R with S = RᵀR (the Cholesky factor of
// S; diagonal q keeps the standard deviations instead). v_i = hᵀSh = ‖R h‖² is then never
// negative, and log|S| = 2 Σ log|R_jj|. A natural step goes through the precision S⁻¹ (kept
// alongside while natural steps follow each other) and refactors. Full covariance costs D²
// doubles and D³ per step; the diagonal form D and D, for large D.
//
// Thread-safety: a value; driven by the trainer's thread.

#include "core/base/state_archive.h"
#include "core/data/labelled_data.h" // MatrixRD

#include <Eigen/Core>
#include <string>

namespace svi {

enum class CovarianceForm { Full, Diagonal };

// "full" / "diagonal"; fromName throws std::invalid_argument naming the field "covariance".
std::string covarianceName(CovarianceForm form);
CovarianceForm covarianceFromName(const std::string& name);

// The prior p(w) = N(μ, Σ), held as μ, Σ⁻¹ and log|Σ|.
struct GaussianPrior
{
    Eigen::VectorXd mean;
    Eigen::MatrixXd precision;
    double logDetCovariance = 0.0;
    // N(0, variance · I); throws std::invalid_argument unless variance > 0.
    static GaussianPrior isotropic(int dim, double variance);
};

// The minibatch's estimates of the derivatives of T = Σ_i E_q[log p(y_i | f_i)] in m and in S,
// scaled by s = N/|M|: g = s Σ_i α̂_i h_i (∂T/∂m) and Γ = s Σ_i γ̂_i h_i h_iᵀ (∂T/∂S), with
// α̂_i ≈ E[∂ log p/∂f] and γ̂_i ≈ ½ E[∂² log p/∂f²] under q(f_i) = N(hᵀm, hᵀSh) (eq. 21–22).
// Full q uses gammaFull (D×D), diagonal q gammaDiag (its diagonal).
struct LgmGradients
{
    Eigen::VectorXd g;
    Eigen::MatrixXd gammaFull;
    Eigen::VectorXd gammaDiag;

    // Zeroes the sums for dimension `dim` (allocating only when the size changes).
    void reset(int dim, CovarianceForm form);
    // Adds Σ_r α_r h_r and Σ_r γ_r h_r h_rᵀ over the rows h_r of `rows` (n×D), unscaled.
    void addRows(const Eigen::Ref<const MatrixRD>& rows,
                 const Eigen::Ref<const Eigen::VectorXd>& alpha,
                 const Eigen::Ref<const Eigen::VectorXd>& gamma, CovarianceForm form);
    void add(const LgmGradients& other, CovarianceForm form);
    void scale(double s, CovarianceForm form);
};

class GaussianQ
{
public:
    // q(w) = N(0, initialVariance · I). Throws std::invalid_argument unless dim ≥ 1 and
    // initialVariance > 0.
    GaussianQ(int dim, CovarianceForm form, double initialVariance);

    int dim() const { return int(m_mean.size()); }
    CovarianceForm form() const { return m_form; }
    const Eigen::VectorXd& mean() const { return m_mean; }
    // Full: the upper-triangular R with S = RᵀR; diagonal: the standard deviations (D×1).
    const Eigen::MatrixXd& root() const { return m_root; }
    Eigen::MatrixXd covariance() const;
    Eigen::VectorXd variances() const; // diag(S)
    double logDetCovariance() const;

    // v_r = h_rᵀ S h_r for each row of `rows` (n×D); `work` is scratch (resized when needed).
    void marginalVariances(const Eigen::Ref<const MatrixRD>& rows, Eigen::Ref<Eigen::VectorXd> v,
                           MatrixRD& work) const;

    // A draw w = m + Rᵀz from standard normals z (diagonal q: m + σ ∘ z) into `out` (size D).
    void draw(const Eigen::Ref<const Eigen::VectorXd>& z, Eigen::Ref<Eigen::VectorXd> out) const;

    // KL(q ‖ p).
    double kl(const GaussianPrior& prior) const;

    // MC-SSVI's step on the natural parameters: S⁻¹ ← (1 − ρ)S⁻¹ + ρ(Σ⁻¹ − 2Γ) (eq. 24) and,
    // when `meanToo`, S⁻¹m ← (1 − ρ)S⁻¹m + ρ(Σ⁻¹μ + g − 2Γm) (eq. 25; for diagonal q the
    // fixed point of the same derivation, Σ⁻¹μ − (Σ⁻¹ − diag Σ⁻¹)m + g − 2 diag(Γ)∘m). With
    // ρ = 1 it is the fixed-point update itself. When the new precision is not positive
    // definite (a likelihood that is not log-concave, a noisy estimate) ρ is halved until it
    // is; returns the ρ used, 0 when none down to ρ·2⁻³⁰ was (q is then unchanged).
    double naturalStep(double rho, const LgmGradients& grads, const GaussianPrior& prior,
                       bool meanToo);
    // The direction of that step, target − current in the natural parameters: the precision's
    // (diagonal: D entries; full: D² entries, column-major) and, when `meanToo`, S⁻¹m's (D), so
    // that naturalStep(ρ) moves them by ρ times it — what the adaptive learning rate (Ranganath
    // et al. 2013) averages.
    void naturalGradient(const LgmGradients& grads, const GaussianPrior& prior, bool meanToo,
                         Eigen::VectorXd& out);
    // ∂VLB/∂m = Σ⁻¹(μ − m) + g: the direction of eq. 63.
    Eigen::VectorXd meanGradient(const LgmGradients& grads, const GaussianPrior& prior) const;
    // ∂VLB/∂R: full, triu((R∘I)⁻¹ − RΣ⁻¹ + 2RΓ) (eq. 64); diagonal, with respect to the
    // standard deviations, 1/σ_j − σ_j Σ⁻¹_jj + 2σ_j Γ_jj.
    Eigen::MatrixXd rootGradient(const LgmGradients& grads, const GaussianPrior& prior) const;

    // Frees the precision kept between natural steps (the next one recomputes it from R, D³):
    // for a model that holds many q's (generalized PMF's columns), half their memory.
    void releasePrecision()
    {
        m_precision = Eigen::MatrixXd();
        m_precisionValid = false;
    }

    // Setters for the gradient steps and for tests. setRoot expects the layout of root().
    void setMean(const Eigen::VectorXd& m);
    void setRoot(const Eigen::MatrixXd& root);
    // Full: R from the Cholesky factor of S (throws std::invalid_argument when S is not
    // positive definite); diagonal: the square roots of diag(S).
    void setCovariance(const Eigen::MatrixXd& S);

    // Checkpoints: m, R and the precision kept between natural steps (a step from the kept
    // precision and one from R's differ in rounding).
    void visitState(StateArchive& a);

private:
    CovarianceForm m_form;
    Eigen::VectorXd m_mean;
    Eigen::MatrixXd m_root;
    // Full: S⁻¹ while m_precisionValid (after a natural step; a gradient step on R drops it).
    Eigen::MatrixXd m_precision;
    bool m_precisionValid = false;
};

} // namespace svi
