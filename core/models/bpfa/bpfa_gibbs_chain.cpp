#include "core/base/parallel.h"
#include "core/models/bpfa/bpfa_trainer.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace svi {

using bpfa::Globals;
using bpfa::GlobalView;
using bpfa::MatrixRD;
using bpfa::Stats;
using bpfa::Workspace;

namespace {
} // namespace

GibbsChain::GibbsChain(DenseDataPtr data, std::vector<std::int64_t> items, int K,
                       const bpfa::Prior& prior, std::uint64_t seed, std::vector<std::int64_t> keys)
    : m_data(std::move(data)), m_items(std::move(items)), m_keys(std::move(keys)), m_K(K),
      m_D(m_data->cols()), m_prior(prior), m_seed(seed)
{
    if (m_keys.empty())
        m_keys = m_items;
    m_x = MatrixRD::Zero(std::int64_t(m_items.size()), m_K);
    // Start from a draw of the loadings from their prior and a moderate noise level (the
    // data are standardised).
    Rng rng = Rng::stream(m_seed, bpfa::kStreamChainGlobal, 0, 1);
    m_phi.resize(m_K, m_D);
    const double sd = 1.0 / std::sqrt(double(m_D));
    for (int k = 0; k < m_K; ++k)
        for (int d = 0; d < m_D; ++d)
            m_phi(k, d) = sd * rng.normal();
    // Start sparse (about ten features per item): a dense start makes the first sweeps
    // cost O(K²) per item and takes many sweeps to thin out.
    m_pi = Eigen::VectorXd::Constant(m_K, std::min(0.5, 10.0 / m_K));
    m_gamma = 10.0;
    m_gammaW = 1.0;
}

GlobalView GibbsChain::view() const
{
    return bpfa::pointView(m_phi, m_pi, m_gamma, m_gammaW);
}

void GibbsChain::sweep(std::int64_t iteration)
{
    m_iteration = iteration;
    const DenseData& data = *m_data;
    const std::int64_t n = std::int64_t(m_items.size());
    const int K = m_K, D = m_D;

    // 1. Local variables given the globals, warm-started from the current state.
    {
        const GlobalView v = view();
        std::vector<Workspace> ws(kChunks);
        forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
            ws[c].resize(K, D);
            for (std::int64_t j = begin; j < end; ++j) {
                ws[c].gather(data, m_items[j], v);
                ws[c].x = m_x.row(j).transpose();
                for (int k = 0; k < K; ++k)
                    ws[c].z[k] = ws[c].x[k] != 0.0 ? 1.0 : 0.0;
                Rng rng = Rng::stream(m_seed, bpfa::kStreamChainLocal, iteration, m_keys[j]);
                bpfa::gibbsLocal(ws[c], v, 1, 0, rng, true);
                m_x.row(j) = ws[c].x.transpose();
            }
        });
    }

    // Active features of every item (x_ik ≠ 0) in compressed rows.
    std::vector<std::int64_t> start(n + 1, 0);
    std::vector<int> activeK;
    std::vector<double> activeX;
    activeK.reserve(std::size_t(n) * 8);
    activeX.reserve(std::size_t(n) * 8);
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(K);
    double sumX2 = 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
        for (int k = 0; k < K; ++k) {
            const double x = m_x(j, k);
            if (x != 0.0) {
                activeK.push_back(k);
                activeX.push_back(x);
                counts[k] += 1.0;
                sumX2 += x * x;
            }
        }
        start[j + 1] = std::int64_t(activeK.size());
    }

    Rng rng = Rng::stream(m_seed, bpfa::kStreamChainGlobal, iteration, 0);

    // 2. π_k | z ~ Beta(a/K + n_k, b(K−1)/K + n − n_k).
    const bpfa::Globals prior = bpfa::priorGlobals(m_prior, K, D);
    for (int k = 0; k < K; ++k)
        m_pi[k] = std::clamp(rng.beta(prior.a[k] + counts[k], prior.b[k] + double(n) - counts[k]),
                             1e-12, 1.0 - 1e-12);

    // 3. Φ column by column: φ_{·d} | rest ~ N(P⁻¹ γ t, P⁻¹), P = D I + γ Σ_i m_id x_i x_iᵀ.
    //    Each dimension is one independent block, computed whole by one thread.
    const double gamma = m_gamma;
#pragma omp parallel
    {
        Eigen::MatrixXd S(K, K);
        Eigen::VectorXd t(K), eps(K);
#pragma omp for schedule(dynamic, 1)
        for (int d = 0; d < D; ++d) {
            S.setZero();
            t.setZero();
            for (std::int64_t j = 0; j < n; ++j) {
                const std::int64_t i = m_items[j];
                if (!data.observed(i, d))
                    continue;
                const double y = data.value(i, d);
                for (std::int64_t p = start[j]; p < start[j + 1]; ++p) {
                    const int a = activeK[p];
                    const double xa = activeX[p];
                    t[a] += xa * y;
                    for (std::int64_t q = start[j]; q < start[j + 1]; ++q)
                        S(a, activeK[q]) += xa * activeX[q];
                }
            }
            S *= gamma;
            S.diagonal().array() += double(D);
            Eigen::LLT<Eigen::MatrixXd> llt(S);
            const Eigen::VectorXd mean = llt.solve(gamma * t);
            Rng r = Rng::stream(m_seed, bpfa::kStreamChainGlobal, iteration, 1000 + d);
            for (int k = 0; k < K; ++k)
                eps[k] = r.normal();
            const Eigen::VectorXd u = llt.matrixU().solve(eps); // Uᵀ U = P, u ~ N(0, P⁻¹)
            m_phi.col(d) = mean + u;
        }
    }

    // 4. γ_obs | rest ~ Gamma(c' + Σ D_i / 2, d' + Σ ‖y_i − x_i Φ‖² / 2) over observed entries.
    std::vector<double> chunkR2(kChunks, 0.0), chunkObs(kChunks, 0.0);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        double r2 = 0.0, obs = 0.0;
        for (std::int64_t j = begin; j < end; ++j) {
            const std::int64_t i = m_items[j];
            for (int d = 0; d < D; ++d) {
                if (!data.observed(i, d))
                    continue;
                double pred = 0.0;
                for (std::int64_t p = start[j]; p < start[j + 1]; ++p)
                    pred += activeX[p] * m_phi(activeK[p], d);
                const double res = data.value(i, d) - pred;
                r2 += res * res;
                obs += 1.0;
            }
        }
        chunkR2[c] = r2;
        chunkObs[c] = obs;
    });
    const double r2 = std::accumulate(chunkR2.begin(), chunkR2.end(), 0.0);
    const double obs = std::accumulate(chunkObs.begin(), chunkObs.end(), 0.0);
    m_gamma = rng.gamma(m_prior.c + 0.5 * obs, m_prior.d + 0.5 * r2);

    // 5. γ_w | w ~ Gamma(e' + nK/2, f' + ‖w‖²/2). The weights of inactive features are
    //    N(0, 1/γ_w) draws never stored; their sum of squares is drawn directly:
    //    Σ w² over n0 of them ~ Gamma(n0/2, γ_w/2).
    const double n0 = double(n) * K - double(activeK.size());
    const double inactiveW2 = n0 > 0 ? rng.gamma(0.5 * n0, 0.5 * m_gammaW) : 0.0;
    m_gammaW = rng.gamma(m_prior.e + 0.5 * double(n) * K, m_prior.f + 0.5 * (sumX2 + inactiveW2));
}

void GibbsChain::visitState(StateArchive& a)
{
    a.field("x", m_x);
    a.field("phi", m_phi);
    a.field("pi", m_pi);
    a.field("gamma", m_gamma);
    a.field("gamma_w", m_gammaW);
    a.field("iteration", m_iteration); // keys toGlobals' streams
}

Globals GibbsChain::toGlobals(std::int64_t totalItems) const
{
    const GlobalView v = view();
    const std::int64_t n = std::int64_t(m_items.size());
    std::vector<Workspace> ws(kChunks);
    std::vector<Stats> stats(kChunks);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        ws[c].resize(m_K, m_D);
        stats[c].resize(m_K, m_D);
        for (std::int64_t j = begin; j < end; ++j) {
            ws[c].gather(*m_data, m_items[j], v);
            ws[c].x = m_x.row(j).transpose();
            for (int k = 0; k < m_K; ++k)
                ws[c].z[k] = ws[c].x[k] != 0.0 ? 1.0 : 0.0;
            Rng rng = Rng::stream(m_seed, bpfa::kStreamInit, m_iteration, m_keys[j]);
            bpfa::gibbsLocal(ws[c], v, 0, 1, rng, true);
            stats[c].add(ws[c]);
        }
    });
    Stats total;
    total.resize(m_K, m_D);
    for (const Stats& s : stats)
        if (s.zSum.size() > 0)
            total.add(s);
    return bpfa::globalTarget(m_prior, total, v,
                              double(totalItems) / double(std::max<std::int64_t>(n, 1)), m_K, m_D);
}

} // namespace svi
