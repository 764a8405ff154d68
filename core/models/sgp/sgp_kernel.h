#pragma once
// The pieces of the sparse Gaussian process of paper 002 (Sec. 3.5, experiment 4.3) that do not
// depend on the bound: the RBF kernel, the exact GP's log marginal likelihood and predictive
// (the reference, and what the paper's grid search of the hyperparameters maximises), and the
// inducing basis that turns the sparse GP into a linear latent Gaussian model.
//
// The inducing basis: with inducing inputs Z (M of them), u = f(Z) ~ N(0, K_zz) and
// K_zz = L Lᵀ (Cholesky, with a little jitter), the whitened u = L w gives w ~ N(0, I) and
// p(f_i | w) = N(x̃_iᵀw, k̃_i) with x̃_i = L⁻¹ k_z(x_i) and k̃_i = k(x_i, x_i) − |x̃_i|² (the
// K_ii − Q_ii of the paper). The paper's h_i = K_zz⁻¹ K_zi acts on u; x̃_i acts on w = L⁻¹u, an
// affine change of variables that the Gaussian family, its KL and its natural-gradient steps
// follow exactly, and which keeps the natural parameters of q well conditioned.
//
// Thread-safety: values; the functions are re-entrant.

#include "core/data/labelled_data.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi {

// k(x, x') = variance · exp(−|x − x'|² / (2 lengthScale²)).
struct RbfKernel
{
    double lengthScale = 1.0;
    double variance = 1.0;

    // The |a| × |b| matrix of k between the rows of a and those of b.
    Eigen::MatrixXd cross(const MatrixRD& a, const MatrixRD& b) const;
};

// The hyperparameters of a GP regression y = f(x) + ε, ε ~ N(0, noiseVariance).
struct GpHyper
{
    RbfKernel kernel;
    double noiseVariance = 0.1;
};

// log N(y | 0, K + noiseVariance · I) for the kernel matrix K of the rows of x.
double gpLogMarginal(const MatrixRD& x, const Eigen::VectorXd& y, const GpHyper& hyper);

// The paper's brute-force search (App. A.5): `points` log-spaced values each of the length scale
// in [0.1, 50], the kernel variance in [0.1², 10²] and the noise variance in [0.01, 1], the
// triple of largest log marginal likelihood on the rows of x. One eigendecomposition per length
// scale serves every (variance, noise) pair: with K₀ = U Λ Uᵀ, K = s²K₀ + σ²I has eigenvalues
// s²λ_k + σ² and the same eigenvectors. Throws std::invalid_argument for points < 2 or no row.
GpHyper gridSearchHyper(const MatrixRD& x, const Eigen::VectorXd& y, int points);

// The exact GP's predictive of y at the rows of `at`, given training rows x, y: means and
// variances (noise included). Cubic in the training rows.
void gpPredict(const MatrixRD& x, const Eigen::VectorXd& y, const GpHyper& hyper,
               const MatrixRD& at, Eigen::VectorXd& mean, Eigen::VectorXd& variance);

// The whitened inducing basis (see above).
class InducingBasis
{
public:
    // Throws std::invalid_argument when K_zz is not positive definite even with a jitter of
    // 10⁻² · variance on its diagonal (it starts at 10⁻⁸ and grows tenfold).
    InducingBasis(MatrixRD inducing, RbfKernel kernel);

    int size() const { return int(m_z.rows()); }
    const MatrixRD& inducing() const { return m_z; }
    const RbfKernel& kernel() const { return m_kernel; }
    double jitter() const { return m_jitter; }
    // x̃ (rows of x → rows of features) and k̃ (clamped at 0: rounding can make it negative).
    void transform(const MatrixRD& x, MatrixRD& features, Eigen::VectorXd& residualVariance) const;

private:
    MatrixRD m_z;
    RbfKernel m_kernel;
    double m_jitter = 0.0;
    Eigen::LLT<Eigen::MatrixXd> m_llt;
};

} // namespace svi
