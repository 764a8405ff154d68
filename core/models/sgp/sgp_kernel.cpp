#include "core/models/sgp/sgp_kernel.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {

Eigen::MatrixXd RbfKernel::cross(const MatrixRD& a, const MatrixRD& b) const
{
    // |a_i − b_j|² = |a_i|² + |b_j|² − 2 a_i·b_j, clamped at 0 against rounding.
    Eigen::MatrixXd d = -2.0 * (a * b.transpose());
    d.colwise() += a.rowwise().squaredNorm();
    d.rowwise() += b.rowwise().squaredNorm().transpose();
    const double c = -0.5 / (lengthScale * lengthScale);
    return variance * (d.cwiseMax(0.0) * c).array().exp().matrix();
}

double gpLogMarginal(const MatrixRD& x, const Eigen::VectorXd& y, const GpHyper& hyper)
{
    Eigen::MatrixXd k = hyper.kernel.cross(x, x);
    k.diagonal().array() += hyper.noiseVariance;
    const Eigen::LLT<Eigen::MatrixXd> llt(k);
    if (llt.info() != Eigen::Success)
        return -std::numeric_limits<double>::infinity();
    const Eigen::VectorXd a = llt.matrixL().solve(y);
    const double logDet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    return -0.5 * (a.squaredNorm() + logDet + double(y.size()) * std::log(2.0 * std::numbers::pi));
}

GpHyper gridSearchHyper(const MatrixRD& x, const Eigen::VectorXd& y, int points)
{
    if (points < 2)
        throw std::invalid_argument("grid_points: " + std::to_string(points) + ", but must be ≥ 2");
    if (x.rows() == 0)
        throw std::invalid_argument("data: no training row for the hyperparameter search");
    const auto grid = [points](double lo, double hi, int j) {
        return lo * std::pow(hi / lo, double(j) / double(points - 1));
    };
    const double n = double(y.size());
    GpHyper best;
    double bestLog = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < points; ++a) {
        const RbfKernel unit{grid(0.1, 50.0, a), 1.0};
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(unit.cross(x, x));
        const Eigen::VectorXd lambda = eig.eigenvalues().cwiseMax(0.0);
        const Eigen::VectorXd z2 = (eig.eigenvectors().transpose() * y).array().square();
        for (int b = 0; b < points; ++b) {
            const double s2 = grid(0.01, 100.0, b);
            for (int c = 0; c < points; ++c) {
                const double noise = grid(0.01, 1.0, c);
                const Eigen::ArrayXd e = s2 * lambda.array() + noise;
                const double log = -0.5 * ((z2.array() / e).sum() + e.log().sum() +
                                           n * std::log(2.0 * std::numbers::pi));
                if (log > bestLog) {
                    bestLog = log;
                    best = GpHyper{RbfKernel{unit.lengthScale, s2}, noise};
                }
            }
        }
    }
    return best;
}

void gpPredict(const MatrixRD& x, const Eigen::VectorXd& y, const GpHyper& hyper,
               const MatrixRD& at, Eigen::VectorXd& mean, Eigen::VectorXd& variance)
{
    Eigen::MatrixXd k = hyper.kernel.cross(x, x);
    k.diagonal().array() += hyper.noiseVariance;
    const Eigen::LLT<Eigen::MatrixXd> llt(k);
    if (llt.info() != Eigen::Success)
        throw std::invalid_argument("gp: the kernel matrix is not positive definite");
    const Eigen::MatrixXd kx = hyper.kernel.cross(x, at); // n × |at|
    mean = kx.transpose() * llt.solve(y);
    const Eigen::MatrixXd v = llt.matrixL().solve(kx);
    variance = (hyper.kernel.variance + hyper.noiseVariance -
                v.colwise().squaredNorm().transpose().array())
                   .matrix();
}

InducingBasis::InducingBasis(MatrixRD inducing, RbfKernel kernel)
    : m_z(std::move(inducing)), m_kernel(kernel)
{
    if (m_z.rows() == 0)
        throw std::invalid_argument("inducing: no inducing point");
    const Eigen::MatrixXd kzz = m_kernel.cross(m_z, m_z);
    for (double j = 1e-8; j <= 1.0001e-2; j *= 10.0) {
        Eigen::MatrixXd k = kzz;
        k.diagonal().array() += j * m_kernel.variance;
        m_llt.compute(k);
        if (m_llt.info() == Eigen::Success) {
            m_jitter = j;
            return;
        }
    }
    throw std::invalid_argument("inducing: K_zz of the " + std::to_string(m_z.rows()) +
                                " inducing points is not positive definite (length_scale " +
                                std::to_string(m_kernel.lengthScale) + ")");
}

void InducingBasis::transform(const MatrixRD& x, MatrixRD& features,
                              Eigen::VectorXd& residualVariance) const
{
    Eigen::MatrixXd kzx = m_kernel.cross(m_z, x); // M × n
    m_llt.matrixL().solveInPlace(kzx);            // L⁻¹ K_zx
    features = kzx.transpose();
    residualVariance =
        (m_kernel.variance - features.rowwise().squaredNorm().array()).cwiseMax(0.0).matrix();
}

} // namespace svi
