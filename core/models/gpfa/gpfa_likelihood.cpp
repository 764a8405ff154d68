#include "core/models/gpfa/gpfa_likelihood.h"

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/math/constants.h"
#include "core/math/random.h"
#include "core/models/gpfa/gpfa_covariance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi::gpfa {
namespace {

constexpr std::uint64_t kBatchStream = 0x6770666162ULL; // "gpfab"
// Incomplete rows per block of the minibatch: bounds the scratch (D × block α columns and at
// most D × block·D V columns) whatever B is.
constexpr std::int64_t kIncompleteBlock = 256;

} // namespace

CollapsedLikelihood::CollapsedLikelihood(DenseDataPtr data, const std::vector<std::int64_t>& rows,
                                         std::int64_t minibatch, std::uint64_t seed)
    : m_data(std::move(data)), m_minibatch(std::max<std::int64_t>(minibatch, 0)), m_seed(seed)
{
    const DenseData& d = *m_data;
    m_D = d.cols();
    m_missStart.push_back(0);
    for (std::int64_t i : rows) {
        if (i < 0 || i >= d.rows())
            throw std::invalid_argument(
                fieldError("gpfa: training row", std::to_string(i),
                           "must be in [0, " + std::to_string(d.rows()) + ")"));
        int observed = 0;
        for (int c = 0; c < m_D; ++c)
            observed += d.observed(i, c) ? 1 : 0;
        if (observed == m_D) {
            m_completeRows.push_back(i);
        } else if (observed > 0) {
            m_incomplete.push_back(i);
            for (int c = 0; c < m_D; ++c)
                if (!d.observed(i, c))
                    m_missing.push_back(c);
            m_missStart.push_back(std::int64_t(m_missing.size()));
        }
    }
    std::sort(m_completeRows.begin(), m_completeRows.end());
    m_completeCount = std::int64_t(m_completeRows.size());
    if (m_completeCount == 0 && m_incomplete.empty())
        throw std::invalid_argument("data: '" + d.source +
                                    "' has no training row with an observed entry");

    // S = Σ y yᵀ, once: what makes a step's cost independent of the number of complete rows.
    m_scatter = secondMoments(d, m_completeRows).scatter;

    for (Eigen::MatrixXd* m : {&m_C, &m_lambda, &m_t, &m_g, &m_acc})
        m->setZero(m_D, m_D);
    // m_llt takes its storage at its first factorisation (and keeps it): assigning it a
    // pre-sized LLT would copy that LLT's status before anything set it (undefined; UBSan).
    m_p.resize(m_D, kIncompleteBlock);
    std::int64_t widest = 0; // the most V columns a block can need
    {
        std::vector<std::int64_t> q(m_incomplete.size());
        for (std::size_t r = 0; r < m_incomplete.size(); ++r)
            q[r] = m_missStart[r + 1] - m_missStart[r];
        std::sort(q.begin(), q.end(), std::greater<>());
        for (std::size_t r = 0; r < q.size() && r < std::size_t(kIncompleteBlock); ++r)
            widest += q[r];
    }
    m_q.resize(m_D, std::max<std::int64_t>(widest, 1));
    m_batch.reserve(std::size_t(m_minibatch > 0 ? m_minibatch : std::int64_t(m_incomplete.size())));
    m_offset.resize(std::size_t(kIncompleteBlock) + 1);
    m_partial.resize(kChunks);
    m_rows.resize(kChunks);
    for (RowScratch& s : m_rows) {
        s.y.resize(m_D);
        s.u.resize(m_D);
        s.a.resize(m_D, m_D);
        s.bt.resize(m_D, m_D);
    }
}

std::int64_t CollapsedLikelihood::rowsPerEvaluation() const
{
    const std::int64_t inc = incompleteCount();
    return m_completeCount + (m_minibatch > 0 ? std::min(m_minibatch, inc) : inc);
}

double CollapsedLikelihood::incompletePart(std::span<const std::int64_t> batch,
                                           double logDetC) const
{
    const DenseData& data = *m_data;
    const int D = m_D;
    double total = 0.0;
    for (std::size_t first = 0; first < batch.size(); first += std::size_t(kIncompleteBlock)) {
        const std::int64_t n =
            std::min<std::int64_t>(kIncompleteBlock, std::int64_t(batch.size() - first));
        m_offset[0] = 0;
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t k = batch[first + std::size_t(r)];
            m_offset[std::size_t(r) + 1] =
                m_offset[std::size_t(r)] +
                (m_missStart[std::size_t(k) + 1] - m_missStart[std::size_t(k)]);
        }
        std::fill(m_partial.begin(), m_partial.end(), 0.0);
        forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
            RowScratch& s = m_rows[std::size_t(c)];
            double sum = 0.0;
            for (std::int64_t r = begin; r < end; ++r) {
                const std::int64_t k = batch[first + std::size_t(r)];
                const std::int64_t i = m_incomplete[std::size_t(k)];
                const int* miss = m_missing.data() + m_missStart[std::size_t(k)];
                const int q = int(m_missStart[std::size_t(k) + 1] - m_missStart[std::size_t(k)]);
                for (int c2 = 0; c2 < D; ++c2)
                    s.y[c2] = data.observed(i, c2) ? double(data.values(i, c2)) : 0.0;
                // Λ_mm and Λ_m· gathered; Λ_mm = L Lᵀ; L⁻¹ Λ_m· = Vᵀ, so that
                // Λ_·m Λ_mm⁻¹ Λ_m· = V Vᵀ.
                auto a = s.a.topLeftCorner(q, q);
                auto bt = s.bt.topRows(q);
                for (int x = 0; x < q; ++x) {
                    for (int z = 0; z < q; ++z)
                        a(x, z) = m_lambda(miss[x], miss[z]);
                    bt.row(x) = m_lambda.row(miss[x]);
                }
                Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(a);
                if (llt.info() != Eigen::Success) {
                    sum = std::numeric_limits<double>::quiet_NaN();
                    m_p.col(r).setConstant(sum);
                    m_q.middleCols(m_offset[std::size_t(r)], q).setConstant(sum);
                    continue;
                }
                double logDetLmm = 0.0;
                for (int x = 0; x < q; ++x)
                    logDetLmm += 2.0 * std::log(a(x, x));
                a.triangularView<Eigen::Lower>().solveInPlace(bt);
                // α = Λ ỹ − V (Vᵀ ỹ), with ỹ zero on m (α is then zero there).
                auto alpha = m_p.col(r);
                alpha.noalias() = m_lambda * s.y;
                auto vty = s.u.head(q);
                vty.noalias() = bt * s.y;
                alpha.noalias() -= bt.transpose() * vty;
                const double quad = s.y.dot(alpha);
                m_q.middleCols(m_offset[std::size_t(r)], q) = bt.transpose();
                const double logDetCoo = logDetC + logDetLmm;
                sum += -0.5 * (double(D - q) * kLog2Pi + logDetCoo + quad);
            }
            m_partial[std::size_t(c)] = sum;
        });
        for (double p : m_partial)
            total += p;
        auto acc = m_acc.selfadjointView<Eigen::Lower>();
        acc.rankUpdate(m_p.leftCols(n));
        if (m_offset[std::size_t(n)] > 0)
            acc.rankUpdate(m_q.leftCols(m_offset[std::size_t(n)]));
    }
    return total;
}

std::int64_t CollapsedLikelihood::batchSize() const
{
    const std::int64_t inc = incompleteCount();
    return m_minibatch == 0 || m_minibatch >= inc ? inc : m_minibatch;
}

double CollapsedLikelihood::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& W,
                                     double noiseVariance, std::uint64_t key,
                                     Eigen::MatrixXd& gradW, double& gradNoiseVariance) const
{
    GlobalStatistic unused;
    batchTerms(W, noiseVariance, key, {0, batchSize()}, unused);
    return fromBatchTerms(W, noiseVariance, gradW, gradNoiseVariance);
}

void CollapsedLikelihood::batchTerms(const Eigen::Ref<const Eigen::MatrixXd>& W,
                                     double noiseVariance, std::uint64_t key, Shard part,
                                     GlobalStatistic& statistic) const
{
    const int D = m_D;
    m_acc.setZero();
    m_batchSum = 0.0;
    statistic.dense(m_acc);
    statistic.dense(&m_batchSum, 1);
    m_C.noalias() = W * W.transpose();
    m_C.diagonal().array() += noiseVariance;
    m_llt.compute(m_C);
    m_factored = m_llt.info() == Eigen::Success && noiseVariance > 0.0 && m_C.allFinite();
    if (!m_factored)
        return;
    m_logDetC = 0.0;
    for (int d = 0; d < D; ++d)
        m_logDetC += 2.0 * std::log(m_llt.matrixLLT()(d, d));
    m_lambda.setIdentity();
    m_llt.solveInPlace(m_lambda);
    m_lambda = 0.5 * (m_lambda + m_lambda.transpose()).eval();

    // Incomplete rows: the minibatch (every rank draws the same), this rank's share of it.
    const std::int64_t inc = incompleteCount();
    if (inc == 0)
        return;
    m_batch.clear();
    if (m_minibatch == 0 || m_minibatch >= inc) {
        for (std::int64_t k = 0; k < inc; ++k)
            m_batch.push_back(k);
    } else {
        Rng rng = Rng::stream(m_seed, kBatchStream, key);
        for (std::int64_t b = 0; b < m_minibatch; ++b)
            m_batch.push_back(std::int64_t(rng.below(std::uint64_t(inc))));
        std::sort(m_batch.begin(), m_batch.end());
    }
    m_batchSum = incompletePart(std::span<const std::int64_t>(m_batch).subspan(
                                    std::size_t(part.begin), std::size_t(part.size())),
                                m_logDetC);
}

double CollapsedLikelihood::fromBatchTerms(const Eigen::Ref<const Eigen::MatrixXd>& W,
                                           double noiseVariance, Eigen::MatrixXd& gradW,
                                           double& gradNoiseVariance) const
{
    (void)noiseVariance; // C, Λ and log |C| are batchTerms'
    const int D = m_D;
    gradW.resize(W.rows(), W.cols());
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (!m_factored) {
        gradW.setConstant(nan);
        gradNoiseVariance = nan;
        return nan;
    }
    const double logDetC = m_logDetC;

    // Complete rows: −N/2 (D log 2π + log |C|) − ½ tr(S Λ); G = ½ (Λ S Λ − N Λ).
    const double n = double(m_completeCount);
    double value = 0.0;
    m_g.setZero();
    if (m_completeCount > 0) {
        m_t.noalias() = m_lambda * m_scatter;
        value = -0.5 * (n * (double(D) * kLog2Pi + logDetC) + m_t.trace());
        m_g.noalias() = m_t * m_lambda;
        m_g -= n * m_lambda;
        m_g *= 0.5;
    }

    // Incomplete rows: the minibatch's sums (every rank's), scaled to estimate the sum over all
    // of them.
    const std::int64_t inc = incompleteCount();
    if (inc > 0) {
        const double scale = double(inc) / double(m_batch.size());
        m_acc.triangularView<Eigen::StrictlyUpper>() = m_acc.transpose();
        // Σ ½ (α αᵀ − C_oo⁻¹) = ½ (Σ α αᵀ + Σ V Vᵀ − B Λ).
        m_acc -= double(m_batch.size()) * m_lambda;
        m_g += 0.5 * scale * m_acc;
        value += scale * m_batchSum;
    }
    gradW.noalias() = 2.0 * m_g * W;
    gradNoiseVariance = m_g.trace();
    return value;
}

} // namespace svi::gpfa
