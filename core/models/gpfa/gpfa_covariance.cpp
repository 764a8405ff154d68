#include "core/models/gpfa/gpfa_covariance.h"

#include "core/base/parallel.h"
#include "core/math/constants.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace svi::gpfa {
namespace {

constexpr std::int64_t kGatherBlock = 256; // rows gathered per rank update

void requireRows(const SecondMoments& m, const char* what)
{
    if (m.n < 1)
        throw std::invalid_argument(std::string(what) +
                                    ": n = 0, but needs at least one complete training row");
}

} // namespace

SecondMoments secondMoments(const DenseData& data, const std::vector<std::int64_t>& rows)
{
    const int D = data.cols();
    const std::int64_t n = std::int64_t(rows.size());
    std::vector<Eigen::MatrixXd> partial(kChunks, Eigen::MatrixXd::Zero(D, D));
    std::vector<double> fourth(kChunks, 0.0);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        Eigen::MatrixXd block(
            std::min<std::int64_t>(kGatherBlock, std::max<std::int64_t>(end - begin, 1)), D);
        for (std::int64_t j = begin; j < end; j += block.rows()) {
            const std::int64_t m = std::min<std::int64_t>(block.rows(), end - j);
            for (std::int64_t r = 0; r < m; ++r) {
                block.row(r) = data.values.row(rows[std::size_t(j + r)]).cast<double>();
                const double sq = block.row(r).squaredNorm();
                fourth[std::size_t(c)] += sq * sq;
            }
            partial[std::size_t(c)].selfadjointView<Eigen::Lower>().rankUpdate(
                block.topRows(m).transpose());
        }
    });
    SecondMoments out;
    out.n = n;
    out.scatter = Eigen::MatrixXd::Zero(D, D);
    for (int c = 0; c < kChunks; ++c) {
        out.scatter += partial[std::size_t(c)];
        out.fourth += fourth[std::size_t(c)];
    }
    out.scatter = out.scatter.selfadjointView<Eigen::Lower>();
    return out;
}

Eigen::MatrixXd empiricalCovariance(const SecondMoments& m)
{
    requireRows(m, "empirical covariance");
    return m.scatter / double(m.n);
}

Shrinkage ledoitWolf(const SecondMoments& m)
{
    requireRows(m, "Ledoit–Wolf shrinkage");
    const double n = double(m.n);
    const Eigen::MatrixXd s = m.scatter / n;
    const double D = double(s.rows());
    Shrinkage out;
    out.target = s.trace() / D;
    // ‖S_n − μI‖² (normalised) = (‖S_n‖²_F − 2μ tr S_n + μ² D)/D = ‖S_n‖²_F/D − μ².
    const double frob = s.squaredNorm();
    const double d2 = std::max(frob / D - out.target * out.target, 0.0);
    // b̄² = n⁻² Σ_k ‖y_k y_kᵀ − S_n‖²/D = (Σ_k ‖y_k‖⁴ − n ‖S_n‖²_F)/(n² D).
    const double b2bar = std::max((m.fourth - n * frob) / (n * n * D), 0.0);
    const double b2 = std::min(b2bar, d2);
    out.intensity = d2 > 0.0 ? b2 / d2 : 0.0;
    out.covariance = (1.0 - out.intensity) * s;
    out.covariance.diagonal().array() += out.intensity * out.target;
    return out;
}

GaussianScorer::Workspace::Workspace(int D) : y(D), z(D), p(D, D), a(D, D), bt(D, D)
{
    missing.reserve(std::size_t(D));
    held.reserve(std::size_t(D));
}

GaussianScorer::GaussianScorer(const Eigen::MatrixXd& c)
{
    m_precision.resize(c.rows(), c.rows());
    if (c.rows() != c.cols() || c.rows() == 0 || !c.allFinite())
        return;
    Eigen::LLT<Eigen::MatrixXd> llt(c);
    if (llt.info() != Eigen::Success)
        return;
    m_logDet = 0.0;
    for (Eigen::Index d = 0; d < c.rows(); ++d)
        m_logDet += 2.0 * std::log(llt.matrixLLT()(d, d));
    m_precision.setIdentity();
    llt.solveInPlace(m_precision);
    m_precision = 0.5 * (m_precision + m_precision.transpose()).eval();
    m_valid = std::isfinite(m_logDet) && m_precision.allFinite();
}

const Eigen::MatrixXd& GaussianScorer::marginalPrecision(const DenseData& data, std::int64_t row,
                                                         Workspace& ws, double& logDetCuu) const
{
    const int D = dims();
    ws.missing.clear();
    for (int d = 0; d < D; ++d) {
        const bool missing = data.roles(row, d) == std::uint8_t(EntryRole::Missing);
        ws.y[d] = missing ? 0.0 : double(data.values(row, d));
        if (missing)
            ws.missing.push_back(d);
    }
    logDetCuu = m_logDet;
    const int q = int(ws.missing.size());
    if (q == 0)
        return m_precision;
    // C_uu⁻¹ = Λ_uu − Λ_um Λ_mm⁻¹ Λ_mu and log |C_uu| = log |C| + log |Λ_mm| (the Schur
    // complement). Padded with zeros it is Λ − Vᵀ V with V = L⁻¹ Λ_m· and Λ_mm = L Lᵀ (whose
    // rows and columns m vanish).
    auto a = ws.a.topLeftCorner(q, q);
    auto bt = ws.bt.topRows(q);
    for (int x = 0; x < q; ++x) {
        for (int z = 0; z < q; ++z)
            a(x, z) = m_precision(ws.missing[std::size_t(x)], ws.missing[std::size_t(z)]);
        bt.row(x) = m_precision.row(ws.missing[std::size_t(x)]);
    }
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(a);
    for (int x = 0; x < q; ++x)
        logDetCuu += 2.0 * std::log(a(x, x));
    a.triangularView<Eigen::Lower>().solveInPlace(bt);
    ws.p = m_precision;
    ws.p.noalias() -= bt.transpose() * bt;
    return ws.p;
}

double GaussianScorer::logDensity(const DenseData& data, std::int64_t row, Workspace& ws) const
{
    if (!m_valid)
        return std::numeric_limits<double>::quiet_NaN();
    double logDetCuu = 0.0;
    const Eigen::MatrixXd& p = marginalPrecision(data, row, ws, logDetCuu);
    const int u = dims() - int(ws.missing.size());
    if (u == 0)
        return 0.0;
    ws.z.noalias() = p * ws.y;
    return -0.5 * (double(u) * kLog2Pi + logDetCuu + ws.y.dot(ws.z));
}

GaussianScorer::Conditional
GaussianScorer::heldOutGivenObserved(const DenseData& data, std::int64_t row, Workspace& ws) const
{
    Conditional out;
    const int D = dims();
    ws.held.clear();
    for (int d = 0; d < D; ++d)
        if (data.heldOut(row, d))
            ws.held.push_back(d);
    const int h = int(ws.held.size());
    out.count = h;
    if (h == 0)
        return out;
    if (!m_valid) {
        out.logLik = out.squaredError = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    double logDetCuu = 0.0;
    const Eigen::MatrixXd& p = marginalPrecision(data, row, ws, logDetCuu);
    // ws.y holds every non-Missing entry; y_o is ws.y with the held-out entries zeroed.
    auto a = ws.a.topLeftCorner(h, h);
    auto b = ws.z.head(h);
    for (int x = 0; x < h; ++x)
        for (int z = 0; z < h; ++z)
            a(x, z) = p(ws.held[std::size_t(x)], ws.held[std::size_t(z)]);
    for (int x = 0; x < h; ++x) {
        double s = 0.0;
        for (int d = 0; d < D; ++d)
            if (data.observed(row, d))
                s += p(ws.held[std::size_t(x)], d) * ws.y[d];
        b[x] = s; // (B y_o)_x
    }
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(a);
    double logDetA = 0.0;
    for (int x = 0; x < h; ++x)
        logDetA += 2.0 * std::log(a(x, x));
    // r = y_h − μ = y_h + A⁻¹ b; rᵀ A r = ‖Lᵀ r‖².
    llt.solveInPlace(b);
    double quad = 0.0;
    for (int x = 0; x < h; ++x) {
        const double r = ws.y[ws.held[std::size_t(x)]] + b[x];
        b[x] = r;
        out.squaredError += r * r;
    }
    for (int x = 0; x < h; ++x) {
        double lr = 0.0; // (Lᵀ r)_x
        for (int z = x; z < h; ++z)
            lr += a(z, x) * b[z];
        quad += lr * lr;
    }
    out.logLik = -0.5 * (double(h) * kLog2Pi - logDetA + quad);
    return out;
}

} // namespace svi::gpfa
