#include "core/metrics/factor_metrics.h"

#include "core/base/params.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace svi {
namespace {

std::string shape(const Eigen::MatrixXd& m)
{
    return std::to_string(m.rows()) + " × " + std::to_string(m.cols());
}

// Σ_j |x_j| / max_j |x_j| − 1 for one row or column of P: 0 when one entry dominates, n − 1
// when all are equal or all are zero.
template <typename Vec> double spread(const Vec& x)
{
    const double top = x.maxCoeff();
    if (!(top > 0.0))
        return double(x.size() - 1);
    return x.sum() / top - 1.0;
}

// m with every non-zero column scaled to unit Euclidean norm (zero columns stay zero).
Eigen::MatrixXd unitColumns(const Eigen::MatrixXd& m)
{
    Eigen::MatrixXd out = m;
    for (Eigen::Index j = 0; j < out.cols(); ++j)
        if (const double n = out.col(j).norm(); n > 0.0)
            out.col(j) /= n;
    return out;
}

} // namespace

double amariError(const Eigen::MatrixXd& estimated, const Eigen::MatrixXd& truth)
{
    if (estimated.size() == 0 || truth.size() == 0 || estimated.rows() != truth.rows() ||
        estimated.cols() != truth.cols())
        throw std::invalid_argument(fieldError("amariError: estimated, true loadings",
                                               shape(estimated) + ", " + shape(truth),
                                               "must be non-empty and of the same shape"));
    if (estimated.cols() > estimated.rows())
        throw std::invalid_argument(
            fieldError("amariError: factors K", std::to_string(estimated.cols()),
                       "must be ≤ the dimension D = " + std::to_string(estimated.rows())));
    if (!estimated.allFinite() || !truth.allFinite())
        throw std::invalid_argument(
            fieldError("amariError: loadings", "non-finite", "must be finite"));
    const Eigen::Index K = estimated.cols();
    if (K == 1)
        return 0.0;
    // Columns scaled to unit norm first: P of a scaled-permuted estimate is then a signed
    // permutation, and of any estimate the same whatever the scale of its columns (the plain
    // index is unchanged only when P is already a scaled permutation: a column's sum over rows
    // scaled differently changes).
    const Eigen::MatrixXd p =
        (unitColumns(estimated).completeOrthogonalDecomposition().pseudoInverse() *
         unitColumns(truth))
            .cwiseAbs();
    double rows = 0.0, cols = 0.0;
    for (Eigen::Index i = 0; i < K; ++i)
        rows += spread(p.row(i));
    for (Eigen::Index j = 0; j < K; ++j)
        cols += spread(p.col(j));
    return (rows + cols) / (2.0 * double(K) * double(K - 1));
}

Eigen::MatrixXd heaviestColumns(const Eigen::MatrixXd& m, Eigen::Index k)
{
    std::vector<Eigen::Index> order(static_cast<std::size_t>(m.cols()));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    const Eigen::VectorXd norms = m.colwise().squaredNorm().transpose();
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return norms[a] > norms[b]; });
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.rows(), k);
    for (Eigen::Index j = 0; j < k && j < m.cols(); ++j)
        out.col(j) = m.col(order[std::size_t(j)]);
    return out;
}

} // namespace svi
