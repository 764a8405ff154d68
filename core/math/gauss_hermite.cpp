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

} // namespace svi
