#include "core/math/gauss_hermite.h"

#include <Eigen/Eigenvalues>
#include <stdexcept>
#include <string>

namespace svi {

GaussHermite::GaussHermite(int n)
{
    if (n < 1 || n > 200)
        throw std::invalid_argument("GaussHermite: n = " + std::to_string(n) +
                                    ", but must be in [1, 200]");
    // Three-term recurrence He_{k+1}(z) = z He_k(z) − k He_{k−1}(z): the symmetric Jacobi
    // matrix has zeros on the diagonal and √k beside it.
    Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(n, n);
    for (int k = 1; k < n; ++k)
        jacobi(k, k - 1) = jacobi(k - 1, k) = std::sqrt(double(k));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(jacobi);
    m_nodes = eig.eigenvalues();
    m_weights = eig.eigenvectors().row(0).transpose().array().square();
    m_weights /= m_weights.sum(); // the normal's total mass is 1; removes rounding
}

namespace {

// The nodes and weights of the symmetric tridiagonal Jacobi matrix with diagonal `a` and
// off-diagonal `b` (b[k] between k − 1 and k; b[0] unused), for a measure of total mass `mass`.
void jacobiRule(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double mass,
                Eigen::VectorXd& nodes, Eigen::VectorXd& weights)
{
    const Eigen::Index n = a.size();
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, n);
    j.diagonal() = a;
    for (Eigen::Index k = 1; k < n; ++k)
        j(k, k - 1) = j(k - 1, k) = b[k];
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(j);
    nodes = eig.eigenvalues();
    weights = mass * eig.eigenvectors().row(0).transpose().array().square();
}

} // namespace

GaussRayleigh::GaussRayleigh(int n)
{
    if (n < 1 || n > 100)
        throw std::invalid_argument("GaussRayleigh: n = " + std::to_string(n) +
                                    ", but must be in [1, 100]");
    // 400-point Gauss–Legendre on [0, L] (Legendre recurrence: b_k = k / √(4k² − 1)).
    constexpr int M = 400;
    constexpr double L = 14.0;
    Eigen::VectorXd la = Eigen::VectorXd::Zero(M), lb = Eigen::VectorXd::Zero(M);
    for (int k = 1; k < M; ++k)
        lb[k] = k / std::sqrt(4.0 * k * k - 1.0);
    Eigen::VectorXd x, w;
    jacobiRule(la, lb, 2.0, x, w); // on [−1, 1], total weight 2
    x = (x.array() + 1.0) * (L / 2.0);
    w *= L / 2.0;
    w = w.array() * x.array() * (-0.5 * x.array().square()).exp(); // the Rayleigh density

    // Stieltjes: monic orthogonal polynomials on the discrete measure (x, w).
    Eigen::VectorXd a(n), b = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd prev = Eigen::VectorXd::Zero(M), cur = Eigen::VectorXd::Ones(M);
    double normPrev = 1.0;
    for (int k = 0; k < n; ++k) {
        const double norm = (w.array() * cur.array().square()).sum();
        a[k] = (w.array() * x.array() * cur.array().square()).sum() / norm;
        if (k > 0)
            b[k] = std::sqrt(norm / normPrev);
        const double bk2 = k > 0 ? norm / normPrev : 0.0;
        Eigen::VectorXd next = (x.array() - a[k]) * cur.array() - bk2 * prev.array();
        prev = std::move(cur);
        cur = std::move(next);
        normPrev = norm;
    }
    jacobiRule(a, b, 1.0, m_nodes, m_weights);
    m_weights /= m_weights.sum(); // the discretised mass is 1 to within e^{−98}
}

} // namespace svi
