#include "core/models/epm/epm_gibbs.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace svi::epm {
namespace {

enum EpmGibbsStreamId : std::uint64_t {
    kEpmGibbsStreamInit = 0x45504d0101ULL,
    kEpmGibbsStreamSweep = 0x45504d0102ULL,
};

// A latent count above this on a binary edge means the state has run away (its rate is
// absurd); the sampler stops drawing such counts and reports it instead of looping over them.
constexpr double kMaxRate = 1e9;

} // namespace

// The preview keeps at most this many kept samples for its link matrix.
constexpr std::size_t kStoredSamples = 16;

std::int64_t poisson(Rng& rng, double lambda)
{
    if (!(lambda > 0.0))
        return 0;
    if (lambda < 30.0) {
        // Inversion: walk the CDF from 0.
        const double u = rng.uniform();
        double p = std::exp(-lambda), F = p;
        std::int64_t k = 0;
        while (u > F && k < 1000) {
            ++k;
            p *= lambda / double(k);
            F += p;
        }
        return k;
    }
    // PTRS, the transformed rejection of Hörmann (1993), for λ ≥ 10.
    const double slam = std::sqrt(lambda), loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invAlpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        const double U = rng.uniform() - 0.5;
        const double V = rng.uniform();
        const double us = 0.5 - std::abs(U);
        const double k = std::floor((2.0 * a / us + b) * U + lambda + 0.43);
        if (us >= 0.07 && V <= vr)
            return std::int64_t(k);
        if (k < 0.0 || (us < 0.013 && V > us))
            continue;
        if (std::log(V) + std::log(invAlpha) - std::log(a / (us * us) + b) <=
            -lambda + k * loglam - boost::math::lgamma(k + 1.0))
            return std::int64_t(k);
    }
}

std::int64_t zeroTruncatedPoisson(Rng& rng, double lambda)
{
    if (!(lambda <= kMaxRate)) // NaN, ∞ or absurd
        return -1;
    if (lambda < 30.0) {
        // Inversion of P(k) = λ^k e^{−λ} / (k! (1 − e^{−λ})), k ≥ 1; P(1) = λ/(e^λ − 1) → 1 as
        // λ → 0, so an underflowed rate gives a count of 1 (the limit).
        const double u = rng.uniform();
        double p = lambda > 0.0 ? lambda / std::expm1(lambda) : 1.0, F = p;
        std::int64_t k = 1;
        while (u > F && k < 1000) {
            ++k;
            p *= lambda / double(k);
            F += p;
        }
        return k;
    }
    for (;;) // P(0) ≤ e^{−30}: rejection costs nothing
        if (const std::int64_t k = poisson(rng, lambda); k > 0)
            return k;
}

std::int64_t chineseRestaurantTables(Rng& rng, std::int64_t m, double alpha)
{
    if (m <= 0)
        return 0;
    // The first customer opens a table whatever α (also in the limit α → 0).
    std::int64_t tables = 1;
    for (std::int64_t n = 1; n < m; ++n)
        tables += rng.uniform() * (alpha + double(n)) < alpha ? 1 : 0;
    return tables;
}

GibbsSampler::GibbsSampler(const Graph& graph, int K, const Priors& priors, std::uint64_t seed)
    : m_graph(graph), m_K(K), m_priors(priors.checked()), m_seed(seed)
{
    if (K < 1)
        throw std::invalid_argument(fieldError("K", std::to_string(K), "must be ≥ 1"));
    const int N = graph.nodes;
    Rng rng = Rng::stream(seed, kEpmGibbsStreamInit);
    m_state.phi.resize(N, K);
    for (Eigen::Index v = 0; v < m_state.phi.size(); ++v)
        m_state.phi.data()[v] = rng.gamma(1.0, 1.0);
    m_state.r = Eigen::VectorXd::Constant(K, 1.0 / K);
    m_state.a = Eigen::VectorXd::Constant(N, 0.01);
    m_state.c = Eigen::VectorXd::Ones(N);
    m_nodeCounts = Eigen::MatrixXd::Zero(N, K);
    m_communityCounts = Eigen::VectorXd::Zero(K);
    m_scratch.resize(K);
    m_held.resize(K);
    refreshSums();
}

void GibbsSampler::refreshSums()
{
    m_colSum = m_state.phi.colwise().sum().transpose();
}

void GibbsState::visitState(StateArchive& archive)
{
    archive.field("phi", phi);
    archive.field("r", r);
    archive.field("a", a);
    archive.field("c", c);
    archive.field("gamma0", gamma0);
    archive.field("c0", c0);
}

void GibbsSampler::visitState(StateArchive& a)
{
    a.field("state", m_state);
    a.field("community_counts", m_communityCounts);
    a.field("runaway", m_runaway);
    if (a.loading())
        refreshSums();
}

bool GibbsSampler::finite() const
{
    return !m_runaway && m_state.phi.allFinite() && m_state.r.allFinite() &&
           m_state.a.allFinite() && m_state.c.allFinite() && std::isfinite(m_state.gamma0) &&
           std::isfinite(m_state.c0);
}

void GibbsSampler::sweep(std::int64_t t)
{
    Rng rng = Rng::stream(m_seed, kEpmGibbsStreamSweep, std::uint64_t(t));
    drawCounts(rng);
    refreshSums();
    for (int i = 0; i < m_graph.nodes; ++i)
        updateNode(rng, i);
    updateC(rng);
    updateGlobals(rng);
}

void GibbsSampler::drawCounts(Rng& rng)
{
    const GibbsState& s = m_state;
    m_nodeCounts.setZero();
    m_communityCounts.setZero();
    for (const NodePair& e : m_graph.trainEdges) {
        // Cumulative r_k φ_ik φ_jk: the multinomial's weights and, at the end, the rate p_ij.
        double total = 0.0;
        for (int k = 0; k < m_K; ++k) {
            total += s.r[k] * s.phi(e.i, k) * s.phi(e.j, k);
            m_scratch[k] = total;
        }
        const std::int64_t n = zeroTruncatedPoisson(rng, total);
        if (n < 0) {
            m_runaway = true;
            continue;
        }
        for (std::int64_t d = 0; d < n; ++d) {
            int k;
            if (total > 0.0) {
                const double u = rng.uniform() * total;
                k = int(std::upper_bound(m_scratch.data(), m_scratch.data() + m_K, u) -
                        m_scratch.data());
                k = std::min(k, m_K - 1);
            } else { // every weight underflowed: no community is favoured
                k = int(rng.below(std::uint64_t(m_K)));
            }
            m_nodeCounts(e.i, k) += 1.0;
            m_nodeCounts(e.j, k) += 1.0;
            m_communityCounts[k] += 1.0;
        }
    }
}

double GibbsSampler::trainNeighbourSum(int i, int k) const
{
    double held = 0.0;
    for (std::int64_t e = m_graph.heldStart[std::size_t(i)];
         e < m_graph.heldStart[std::size_t(i) + 1]; ++e)
        held += m_state.phi(m_graph.heldNeighbour[std::size_t(e)], k);
    return std::max(m_colSum[k] - m_state.phi(i, k) - held, 0.0);
}

double GibbsSampler::trainPairProduct(int k) const
{
    const auto col = m_state.phi.col(k);
    double t = 0.5 * (m_colSum[k] * m_colSum[k] - col.squaredNorm());
    for (const LabelledPair& h : m_graph.heldOut)
        t -= col[h.i] * col[h.j];
    return std::max(t, 0.0);
}

GammaParams GibbsSampler::phiConditional(int i, int k) const
{
    return {m_state.a[i] + m_nodeCounts(i, k),
            m_state.c[i] + m_state.r[k] * trainNeighbourSum(i, k)};
}

GammaParams GibbsSampler::cConditional(int i) const
{
    return {m_priors.e0 + double(m_K) * m_state.a[i], m_priors.f0 + m_state.phi.row(i).sum()};
}

GammaParams GibbsSampler::rConditional(int k) const
{
    return {m_state.gamma0 / double(m_K) + m_communityCounts[k], m_state.c0 + trainPairProduct(k)};
}

GammaParams GibbsSampler::c0Conditional() const
{
    return {m_priors.e0 + m_state.gamma0, m_priors.f0 + m_state.r.sum()};
}

GammaParams GibbsSampler::aConditional(int i, double tables) const
{
    double logSum = 0.0;
    for (int k = 0; k < m_K; ++k)
        logSum += std::log1p(m_state.r[k] * trainNeighbourSum(i, k) / m_state.c[i]);
    return {m_priors.aShape + tables, m_priors.aRate + logSum};
}

GammaParams GibbsSampler::gamma0Conditional(double tables) const
{
    double logSum = 0.0;
    for (int k = 0; k < m_K; ++k)
        logSum += std::log1p(trainPairProduct(k) / m_state.c0);
    return {m_priors.e0 + tables, m_priors.f0 + logSum / double(m_K)};
}

void GibbsSampler::updateNode(Rng& rng, int i)
{
    GibbsState& s = m_state;
    // q_ik = r_k Σ_{train j} φ_jk, with the held-out neighbours' sum taken once for all k.
    m_held.setZero();
    for (std::int64_t e = m_graph.heldStart[std::size_t(i)];
         e < m_graph.heldStart[std::size_t(i) + 1]; ++e)
        m_held += s.phi.row(m_graph.heldNeighbour[std::size_t(e)]).transpose();
    const double ci = s.c[i];
    double tables = 0.0, logSum = 0.0;
    for (int k = 0; k < m_K; ++k) {
        const double q = s.r[k] * std::max(m_colSum[k] - s.phi(i, k) - m_held[k], 0.0);
        m_scratch[k] = q;
        logSum += std::log1p(q / ci);
        tables += double(chineseRestaurantTables(rng, std::int64_t(m_nodeCounts(i, k)), s.a[i]));
    }
    // a_i with φ_i integrated out, then φ_i given it.
    s.a[i] = rng.gamma(m_priors.aShape + tables, m_priors.aRate + logSum);
    for (int k = 0; k < m_K; ++k) {
        const double fresh = rng.gamma(s.a[i] + m_nodeCounts(i, k), ci + m_scratch[k]);
        m_colSum[k] += fresh - s.phi(i, k);
        s.phi(i, k) = fresh;
    }
}

void GibbsSampler::updateC(Rng& rng)
{
    for (int i = 0; i < m_graph.nodes; ++i) {
        const GammaParams g = cConditional(i);
        m_state.c[i] = rng.gamma(g.shape, g.rate);
    }
}

void GibbsSampler::updateGlobals(Rng& rng)
{
    updateGamma0AndR(rng);
    updateC0(rng);
}

void GibbsSampler::updateGamma0AndR(Rng& rng)
{
    GibbsState& s = m_state;
    refreshSums();
    const double shape = s.gamma0 / double(m_K);
    double tables = 0.0, logSum = 0.0;
    for (int k = 0; k < m_K; ++k) {
        m_scratch[k] = trainPairProduct(k); // t_k
        logSum += std::log1p(m_scratch[k] / s.c0);
        tables += double(chineseRestaurantTables(rng, std::int64_t(m_communityCounts[k]), shape));
    }
    // γ0 with r integrated out, then r given it.
    s.gamma0 = rng.gamma(m_priors.e0 + tables, m_priors.f0 + logSum / double(m_K));
    for (int k = 0; k < m_K; ++k)
        s.r[k] = rng.gamma(s.gamma0 / double(m_K) + m_communityCounts[k], s.c0 + m_scratch[k]);
}

void GibbsSampler::updateC0(Rng& rng)
{
    const GammaParams g = c0Conditional();
    m_state.c0 = rng.gamma(g.shape, g.rate);
}

} // namespace svi::epm

namespace svi {

EpmGibbsTrainer::EpmGibbsTrainer(GraphDataPtr data, const EpmOptions& options, std::uint64_t seed)
    : m_data(std::move(data)), m_options(options.checked())
{
    if (!m_data)
        throw std::invalid_argument("EPM: no graph");
    m_graph = epm::Graph::from(*m_data);
    m_sampler = std::make_unique<epm::GibbsSampler>(m_graph, options.K, options.priors, seed);
    m_heldOutSum.assign(m_graph.heldOut.size(), 0.0);
    m_phiSum = epm::MatrixRD::Zero(m_graph.nodes, options.K);
    m_rSum = Eigen::VectorXd::Zero(options.K);
}

void EpmGibbsTrainer::visitState(StateArchive& a)
{
    a.field("sampler", *m_sampler);
    a.field("kept", m_kept);
    a.field("held_out_sum", m_heldOutSum);
    a.field("phi_sum", m_phiSum);
    a.field("r_sum", m_rSum);
    a.field("stored", m_stored);
    a.field("store_every", m_storeEvery);
    if (!a.loading())
        return;
    // The sums' lengths and the stored samples' shapes are not fixed by their members: a
    // mismatch would be read out of bounds by the next sample or evaluation.
    const epm::MatrixRD& phi = m_sampler->state().phi;
    bool fits = m_kept >= 0 && m_storeEvery >= 1 && m_heldOutSum.size() == m_graph.heldOut.size();
    for (const Stored& s : m_stored)
        fits = fits && s.phi.rows() == phi.rows() && s.phi.cols() == phi.cols() &&
               s.r.size() == phi.cols();
    if (!fits)
        throw StateError("checkpoint: the Gibbs sampler's kept samples do not fit this graph (" +
                         std::to_string(m_graph.nodes) +
                         " nodes, K = " + std::to_string(phi.cols()) + ")");
}

double EpmGibbsTrainer::step(std::int64_t t)
{
    m_sampler->sweep(t);
    const std::int64_t after = t - m_options.burnin;
    if (after > 0 && after % m_options.thin == 0 && m_kept < m_options.samples)
        keep();
    return 1.0;
}

void EpmGibbsTrainer::addHeldOut(std::vector<double>& into) const
{
    const epm::GibbsState& s = m_sampler->state();
    for (std::size_t k = 0; k < m_graph.heldOut.size(); ++k) {
        const LabelledPair& h = m_graph.heldOut[k];
        into[k] -= std::expm1(-epm::linkRate(s.phi, s.r, h.i, h.j));
    }
}

void EpmGibbsTrainer::keep()
{
    const epm::GibbsState& s = m_sampler->state();
    ++m_kept;
    addHeldOut(m_heldOutSum);
    m_phiSum += s.phi;
    m_rSum += s.r;
    if (m_graph.nodes > epm::kPreviewMaxNodes || m_kept % m_storeEvery != 0)
        return;
    m_stored.push_back({s.phi.cast<float>(), s.r.cast<float>()});
    if (m_stored.size() > epm::kStoredSamples) {
        // Keep the samples numbered by multiples of 2s: every other one stored.
        std::size_t out = 0;
        for (std::size_t k = 1; k < m_stored.size(); k += 2)
            m_stored[out++] = std::move(m_stored[k]);
        m_stored.resize(out);
        m_storeEvery *= 2;
    }
}

std::vector<double> EpmGibbsTrainer::heldOutProbability() const
{
    if (m_kept == 0) {
        std::vector<double> now(m_graph.heldOut.size(), 0.0);
        addHeldOut(now);
        return now;
    }
    std::vector<double> mean(m_heldOutSum);
    for (double& p : mean)
        p /= double(m_kept);
    return mean;
}

Evaluation EpmGibbsTrainer::evaluate(bool)
{
    Evaluation ev;
    ev.hasBound = false;
    ev.elbo = std::numeric_limits<double>::quiet_NaN();
    epm::addLinkMetrics(ev.metrics, m_graph.heldOut, heldOutProbability());
    const epm::GibbsSampler& g = *m_sampler;
    ev.metrics["communities_used"] = epm::communitiesUsed(g.communityCounts());

    const epm::GibbsState& s = g.state();
    const epm::MatrixRD W = m_kept ? epm::MatrixRD(m_phiSum / double(m_kept)) : s.phi;
    const Eigen::VectorXd r = m_kept ? Eigen::VectorXd(m_rSum / double(m_kept)) : s.r;
    Eigen::MatrixXf links;
    if (m_graph.nodes <= epm::kPreviewMaxNodes) {
        const auto add = [&](const Eigen::MatrixXf& phi, const Eigen::VectorXf& rk) {
            const Eigen::MatrixXf pr = phi * rk.asDiagonal();
            links.noalias() -= (-(pr * phi.transpose())).array().expm1().matrix();
        };
        links = Eigen::MatrixXf::Zero(m_graph.nodes, m_graph.nodes);
        if (m_stored.empty()) {
            add(s.phi.cast<float>(), s.r.cast<float>());
        } else {
            for (const Stored& st : m_stored)
                add(st.phi, st.r);
            links /= float(m_stored.size());
        }
        links.diagonal().setZero();
    }
    auto preview = std::make_shared<Preview>();
    preview->graph = epm::graphSummary(W, r, std::move(links));
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
