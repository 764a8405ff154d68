#pragma once
// BPFA globals with spread-out values (not the prior), so that every term of an update matters:
// shared by the tests of the BPFA mathematics.

#include "core/data/dense_data.h"
#include "core/models/bpfa/bpfa_model.h"

#include <Eigen/Dense>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace test_support {

inline svi::bpfa::Globals someGlobals(int K, int D, std::uint64_t seed)
{
    svi::Rng rng(seed);
    svi::bpfa::Globals g = svi::bpfa::priorGlobals(svi::bpfa::Prior{}, K, D);
    for (int k = 0; k < K; ++k) {
        g.a[k] = 0.5 + 3.0 * rng.uniform();
        g.b[k] = 0.5 + 3.0 * rng.uniform();
        for (int d = 0; d < D; ++d) {
            g.lambda(k, d) = 2.0 + 20.0 * rng.uniform();
            g.h(k, d) = g.lambda(k, d) * rng.normal() * 0.7;
        }
    }
    g.c = 30.0;
    g.d = 12.0;
    g.e = 8.0;
    g.f = 5.0;
    return g;
}

// A 200×6 table (no image) of standard normal entries, 30 % of them missing.
inline svi::DenseDataPtr randomTable()
{
    auto table = std::make_shared<svi::DenseData>();
    svi::Rng rng(3);
    table->values.resize(200, 6);
    table->roles.resize(200, 6);
    for (int i = 0; i < 200; ++i)
        for (int d = 0; d < 6; ++d) {
            table->values(i, d) = float(rng.normal());
            table->roles(i, d) = std::uint8_t(rng.uniform() < 0.3 ? svi::EntryRole::Missing
                                                                  : svi::EntryRole::Observed);
        }
    table->source = "table";
    return table;
}

// log N(y; 0, Σ) up to −n/2 log 2π, with Σ = diag(noiseVar) + Σ_{k ∈ S} φ_kᵀ φ_k / γ_w over the
// rows of phi in configuration S (bit k of mask): the marginal of a configuration of features
// with the weights integrated out, on the entries phi's columns stand for.
inline double logMarginalOf(const Eigen::MatrixXd& phi, const Eigen::VectorXd& noiseVar,
                            const Eigen::VectorXd& y, unsigned mask, double gammaW)
{
    Eigen::MatrixXd cov = noiseVar.asDiagonal();
    for (int k = 0; k < int(phi.rows()); ++k)
        if (mask & (1u << k))
            cov += phi.row(k).transpose() * phi.row(k) / gammaW;
    Eigen::LLT<Eigen::MatrixXd> llt(cov);
    const Eigen::VectorXd s = llt.matrixL().solve(y);
    return -0.5 *
           (2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum() + s.squaredNorm());
}

// Runs gibbsLocal's chain on the item in `ws` (50 sweeps of burn-in, then `sweeps` draws) and
// checks how often it visits each configuration of z against exp(logw[mask]), normalised.
inline void checkGibbsFrequencies(svi::bpfa::Workspace& ws, const svi::bpfa::GlobalView& v,
                                  std::vector<double> logw, std::uint64_t seed, int sweeps = 60000)
{
    const double mx = *std::max_element(logw.begin(), logw.end());
    double total = 0.0;
    for (double& l : logw)
        total += (l = std::exp(l - mx));
    std::vector<double> freq(logw.size(), 0.0);
    svi::Rng chain(seed);
    svi::bpfa::gibbsLocal(ws, v, 50, 1, chain);
    for (int s = 0; s < sweeps; ++s) {
        svi::bpfa::gibbsLocal(ws, v, 0, 1, chain, true);
        unsigned mask = 0;
        for (int k = 0; k < ws.K; ++k)
            if (ws.z[k] != 0.0)
                mask |= 1u << k;
        freq[mask] += 1.0 / sweeps;
    }
    for (std::size_t mask = 0; mask < logw.size(); ++mask) {
        const double exact = logw[mask] / total;
        const double se = std::sqrt(exact * (1 - exact) / sweeps);
        QVERIFY2(
            std::abs(freq[mask] - exact) < 6 * se + 0.004,
            qPrintable(
                QString("config %1: sampled %2, exact %3").arg(mask).arg(freq[mask]).arg(exact)));
    }
}

} // namespace test_support
