#include "core/models/epm/epm_model.h"

#include "core/math/digamma.h"
#include "core/metrics/link_metrics.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace svi::epm {
namespace {

// A rate below this is taken as this: log(1 − e^{−p}) and 1/(1 − e^{−p}) stay finite when the
// memberships of a linked pair underflow.
constexpr double kMinRate = 1e-300;
// Where a membership's draw underflows (a gamma of shape ≪ 1 puts much of its mass below the
// smallest double), a linked pair's 1/(1 − e^{−p}) ≈ 1/p is beyond double range, and so is its
// pull on w_ik; the engine multiplies ∂/∂x by x (≥ the smallest double) before using it, so any
// finite value will do there. The likelihood's parts are saturated at these bounds (a node's
// sum g_i, and its part of ∂/∂w_ik, so that adding the prior's part cannot make ∞ − ∞), and
// every entry of the gradient at ±1e308.
constexpr double kMaxPull = 1e300;
constexpr double kMaxLikelihoodGrad = 1e307;
constexpr double kMaxGrad = 1e308;

double lgammaOf(double x)
{
    return boost::math::lgamma(x);
}

// log G(x; shape, rate) with its normaliser.
double logGamma(double x, double shape, double rate)
{
    return shape * std::log(rate) - lgammaOf(shape) + (shape - 1.0) * std::log(x) - rate * x;
}

// log(1 − e^{−p}) and 1/(1 − e^{−p}) at p ≥ kMinRate, accurate for small p.
double logLinked(double p)
{
    return std::log(-std::expm1(-p));
}
double linkedWeight(double p)
{
    return -1.0 / std::expm1(-p);
}

[[noreturn]] void badPair(const GraphData& d, const char* list, std::size_t k, int i, int j,
                          const std::string& rule)
{
    throw std::invalid_argument(fieldError(d.source + ": " + list + "[" + std::to_string(k) + "]",
                                           "(" + std::to_string(i) + ", " + std::to_string(j) + ")",
                                           rule));
}

// CSR of `pairs` (i < j) listed at both ends; neighbours ascending.
template <typename Pair>
void buildLists(int n, const std::vector<Pair>& pairs, std::vector<std::int64_t>& start,
                std::vector<std::int32_t>& neighbour)
{
    start.assign(std::size_t(n) + 1, 0);
    for (const Pair& p : pairs) {
        ++start[std::size_t(p.i) + 1];
        ++start[std::size_t(p.j) + 1];
    }
    std::partial_sum(start.begin(), start.end(), start.begin());
    neighbour.assign(std::size_t(start.back()), 0);
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (const Pair& p : pairs) {
        neighbour[std::size_t(fill[std::size_t(p.i)]++)] = p.j;
        neighbour[std::size_t(fill[std::size_t(p.j)]++)] = p.i;
    }
    for (int i = 0; i < n; ++i)
        std::sort(neighbour.begin() + start[std::size_t(i)],
                  neighbour.begin() + start[std::size_t(i) + 1]);
}

} // namespace

ParamFields<Priors> Priors::declare()
{
    return ParamFields<Priors>()
        .add(positiveParam("a_shape", "Prior shape of a_i",
                           "a_i ~ G(a_shape, a_rate), the shapes of the memberships (eq. 14: 0.01)",
                           0.01),
             &Priors::aShape)
        .add(positiveParam("a_rate", "Prior rate of a_i", "a_i ~ G(a_shape, a_rate) (eq. 14: 0.01)",
                           0.01),
             &Priors::aRate)
        .add(positiveParam("e0", "Prior shape e0",
                           "c_i, γ0 and c0 ~ G(e0, f0) (eq. 14: 1; Zhou's names)", 1.0),
             &Priors::e0)
        .add(positiveParam("f0", "Prior rate f0", "c_i, γ0 and c0 ~ G(e0, f0) (eq. 14: 1)", 1.0),
             &Priors::f0);
}

const ParamFields<Priors>& Priors::fields()
{
    static const ParamFields<Priors> f = declare();
    return f;
}

Graph Graph::from(const GraphData& d)
{
    if (d.nodes < 2)
        throw std::invalid_argument(
            fieldError(d.source + ": nodes", std::to_string(d.nodes),
                       "the edge partition model needs a graph of at least 2 nodes"));
    const auto check = [&](const char* list, std::size_t k, int i, int j) {
        if (i < 0 || j >= d.nodes || i >= j)
            badPair(d, list, k, i, j,
                    "must be a pair i < j of nodes in [0, " + std::to_string(d.nodes) + ")");
    };
    Graph g;
    g.nodes = d.nodes;
    g.trainEdges = d.trainEdges;
    g.heldOut = d.heldOut;
    for (std::size_t k = 0; k < g.trainEdges.size(); ++k)
        check("trainEdges", k, g.trainEdges[k].i, g.trainEdges[k].j);
    for (std::size_t k = 0; k < g.heldOut.size(); ++k)
        check("heldOut", k, g.heldOut[k].i, g.heldOut[k].j);
    const auto byPair = [](const auto& a, const auto& b) {
        return a.i < b.i || (a.i == b.i && a.j < b.j);
    };
    std::sort(g.trainEdges.begin(), g.trainEdges.end(), byPair);
    std::sort(g.heldOut.begin(), g.heldOut.end(), byPair);
    // A pair is a training edge, held out, or a training non-edge: never two of these. And a
    // training edge must be an edge of the graph.
    for (std::size_t k = 1; k < g.trainEdges.size(); ++k)
        if (g.trainEdges[k] == g.trainEdges[k - 1])
            badPair(d, "trainEdges", k, g.trainEdges[k].i, g.trainEdges[k].j, "is listed twice");
    for (std::size_t k = 1; k < g.heldOut.size(); ++k)
        if (g.heldOut[k].i == g.heldOut[k - 1].i && g.heldOut[k].j == g.heldOut[k - 1].j)
            badPair(d, "heldOut", k, g.heldOut[k].i, g.heldOut[k].j, "is listed twice");
    for (std::size_t k = 0; k < g.trainEdges.size(); ++k) {
        const NodePair& e = g.trainEdges[k];
        const LabelledPair probe{e.i, e.j, false};
        const auto it = std::lower_bound(g.heldOut.begin(), g.heldOut.end(), probe, byPair);
        if (it != g.heldOut.end() && it->i == e.i && it->j == e.j)
            badPair(d, "trainEdges", k, e.i, e.j, "is also held out");
        if (!d.edges.empty() && !std::binary_search(d.edges.begin(), d.edges.end(), e, byPair))
            badPair(d, "trainEdges", k, e.i, e.j, "is not an edge of the graph");
    }
    buildLists(g.nodes, g.trainEdges, g.edgeStart, g.edgeNeighbour);
    buildLists(g.nodes, g.heldOut, g.heldStart, g.heldNeighbour);
    return g;
}

LogJoint::LogJoint(const Graph& graph, int K, const Priors& priors)
    : m_graph(graph), m_priors(priors.checked())
{
    if (K < 1)
        throw std::invalid_argument(fieldError("K", std::to_string(K), "must be ≥ 1"));
    m_layout.N = graph.nodes;
    m_layout.K = K;
    m_wr.resize(graph.nodes, K);
    m_nbr.resize(graph.nodes, K);
    m_nodeTerms.assign(std::size_t(graph.nodes), 0.0);
}

void LogJoint::nodeTerms(const Eigen::ArrayXd& x, Shard part) const
{
    const Layout& L = m_layout;
    const Eigen::Index N = L.N, K = L.K;
    const Eigen::Map<const MatrixRD> W(x.data() + L.w(), N, K);
    const auto r = x.segment(L.r(), K).matrix().transpose();
    m_wr = W.array().rowwise() * r.array();
    const Graph& g = m_graph;
    // Per node i: g_i = Σ_{train edges} w_j/(1 − e^{−p_ij}) + Σ_{held out} w_j, and the edges'
    // terms log(1 − e^{−p}) + p (train) and p (held out), each pair seen from both ends.
    const std::int64_t work = 2 * std::int64_t(g.edgeNeighbour.size() + g.heldNeighbour.size()) * K;
    m_nbr.topRows(part.begin).setZero(); // other ranks' nodes
    m_nbr.bottomRows(N - part.end).setZero();
    forChunksOf(part.size(), work, [&](int, std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = part.begin + begin; i < part.begin + end; ++i) {
            auto gi = m_nbr.row(i);
            gi.setZero();
            double terms = 0.0;
            for (std::int64_t e = g.edgeStart[std::size_t(i)]; e < g.edgeStart[std::size_t(i) + 1];
                 ++e) {
                const std::int32_t j = g.edgeNeighbour[std::size_t(e)];
                const double p = std::max(m_wr.row(i).dot(W.row(j)), kMinRate);
                terms += logLinked(p) + p;
                gi.noalias() += linkedWeight(p) * W.row(j);
            }
            for (std::int64_t e = g.heldStart[std::size_t(i)]; e < g.heldStart[std::size_t(i) + 1];
                 ++e) {
                const std::int32_t j = g.heldNeighbour[std::size_t(e)];
                terms += m_wr.row(i).dot(W.row(j));
                gi.noalias() += W.row(j);
            }
            gi = gi.cwiseMin(kMaxPull); // a sum of positive terms: only overflow to clip
            m_nodeTerms[std::size_t(i)] = terms;
        }
    });
    m_edgeSum =
        std::accumulate(m_nodeTerms.begin() + part.begin, m_nodeTerms.begin() + part.end, 0.0);
}

double LogJoint::likelihoodFromNodes(const Eigen::ArrayXd& x) const
{
    const Layout& L = m_layout;
    const Eigen::Index N = L.N, K = L.K;
    const Eigen::Map<const MatrixRD> W(x.data() + L.w(), N, K);
    const auto r = x.segment(L.r(), K).matrix().transpose();
    const double edges = 0.5 * m_edgeSum;
    // eq. 13: Σ_{i<j} p_ij = ½ Σ_k r_k (S_k² − Σ_i w_ik²).
    const Eigen::RowVectorXd S = W.colwise().sum();
    const Eigen::RowVectorXd Q = W.array().square().colwise().sum();
    const double all = 0.5 * (r.array() * (S.array().square() - Q.array())).sum();
    return edges - all;
}

double LogJoint::logLikelihood(const Eigen::ArrayXd& x) const
{
    nodeTerms(x, {0, m_layout.N});
    return likelihoodFromNodes(x);
}

void LogJoint::itemTerms(const Eigen::ArrayXd& x, Shard part, GlobalStatistic& statistic) const
{
    nodeTerms(x, part);
    statistic.dense(m_nbr);
    statistic.dense(&m_edgeSum, 1);
}

double LogJoint::logJoint(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const
{
    nodeTerms(x, {0, m_layout.N});
    return fromItemTerms(x, grad);
}

double LogJoint::fromItemTerms(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const
{
    const Layout& L = m_layout;
    const Eigen::Index N = L.N, K = L.K;
    const double dK = double(K);
    const Priors& P = m_priors;
    double lp = likelihoodFromNodes(x);

    const Eigen::Map<const MatrixRD> W(x.data() + L.w(), N, K);
    const auto r = x.segment(L.r(), K);
    const auto a = x.segment(L.a(), N);
    const auto c = x.segment(L.c(), N);
    const double gamma0 = x[L.gamma0()], c0 = x[L.c0()];
    Eigen::Map<MatrixRD> gW(grad.data() + L.w(), N, K);
    const Eigen::RowVectorXd S = W.colwise().sum();
    const Eigen::RowVectorXd Q = W.array().square().colwise().sum();

    // W's rows: the likelihood's part, and the prior G(a_i, c_i) of each w_ik; per node also
    // Σ_k log w_ik and Σ_k w_ik for the a_i and c_i gradients.
    lp += sumChunksOf(N, 8 * N * K, [&](std::int64_t begin, std::int64_t end) {
        double s = 0.0;
        for (std::int64_t i = begin; i < end; ++i) {
            const double ai = a[i], ci = c[i];
            auto Wi = W.row(i).array();
            const double sumLog = Wi.log().sum(), sumW = Wi.sum();
            gW.row(i).array() = (r.transpose() * (m_nbr.row(i).array() - (S.array() - Wi)))
                                    .min(kMaxLikelihoodGrad)
                                    .max(-kMaxLikelihoodGrad) +
                                (ai - 1.0) / Wi - ci;
            s += dK * (ai * std::log(ci) - lgammaOf(ai)) + (ai - 1.0) * sumLog - ci * sumW;
            grad[L.a() + i] =
                dK * std::log(ci) - dK * digamma(ai) + sumLog + (P.aShape - 1.0) / ai - P.aRate;
            grad[L.c() + i] = dK * ai / ci - sumW + (P.e0 - 1.0) / ci - P.f0;
            s += logGamma(ai, P.aShape, P.aRate) + logGamma(ci, P.e0, P.f0);
        }
        return s;
    });

    // r: the likelihood's part, ½ Σ_i w_ik g_ik − ½ (S_k² − Q_k), and its prior G(γ0/K, c0).
    const Eigen::RowVectorXd wg = (W.array() * m_nbr.array()).colwise().sum();
    const double shape = gamma0 / dK;
    double sumLogR = 0.0;
    for (Eigen::Index k = 0; k < K; ++k) {
        grad[L.r() + k] = std::clamp(0.5 * wg[k] - 0.5 * (S[k] * S[k] - Q[k]), -kMaxLikelihoodGrad,
                                     kMaxLikelihoodGrad) +
                          (shape - 1.0) / r[k] - c0;
        lp += logGamma(r[k], shape, c0);
        sumLogR += std::log(r[k]);
    }
    grad[L.gamma0()] =
        (dK * std::log(c0) - dK * digamma(shape) + sumLogR) / dK + (P.e0 - 1.0) / gamma0 - P.f0;
    grad[L.c0()] = gamma0 / c0 - r.sum() + (P.e0 - 1.0) / c0 - P.f0;
    lp += logGamma(gamma0, P.e0, P.f0) + logGamma(c0, P.e0, P.f0);
    // A prior's (a − 1)/x at a floored draw overflows too once a > 5: saturate every entry
    // (x ∂/∂x stays within a few units of its true size, where the true one is not finite).
    grad = grad.min(kMaxGrad).max(-kMaxGrad);
    return lp;
}

double LogJoint::blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const
{
    const Layout& L = m_layout;
    const Eigen::Index N = L.N, K = L.K;
    const Priors& P = m_priors;
    nodeTerms(x, {0, N});
    const double likelihood = likelihoodFromNodes(x);
    const Eigen::Map<const MatrixRD> W(x.data() + L.w(), N, K);
    const auto r = x.segment(L.r(), K);
    const double gamma0 = x[L.gamma0()], c0 = x[L.c0()];
    const Eigen::ArrayXd S = W.colwise().sum().transpose().array();
    // Per node: its pairs' likelihood, its memberships' priors, a_i and c_i.
    double lp = likelihood + sumChunksOf(N, 8 * N * K, [&](std::int64_t begin, std::int64_t end) {
                    double s = 0.0;
                    for (std::int64_t i = begin; i < end; ++i) {
                        const double ai = x[L.a() + i], ci = x[L.c() + i];
                        const auto w = W.row(i).transpose().array();
                        const double pairs = m_nodeTerms[std::size_t(i)] - (r * w * (S - w)).sum();
                        const double logC = std::log(ci), lgA = lgammaOf(ai);
                        double memberships = 0.0;
                        for (Eigen::Index k = 0; k < K; ++k) {
                            const double prior =
                                ai * logC - lgA + (ai - 1.0) * std::log(w[k]) - ci * w[k];
                            blanket[L.w() + i * K + k] = pairs + prior;
                            memberships += prior;
                        }
                        const double a = logGamma(ai, P.aShape, P.aRate);
                        const double c = logGamma(ci, P.e0, P.f0);
                        blanket[L.a() + i] = memberships + a;
                        blanket[L.c() + i] = memberships + c;
                        s += memberships + a + c;
                    }
                    return s;
                });
    double weights = 0.0;
    for (Eigen::Index k = 0; k < K; ++k) {
        const double prior = logGamma(r[k], gamma0 / double(K), c0);
        blanket[L.r() + k] = likelihood + prior;
        weights += prior;
    }
    const double g = logGamma(gamma0, P.e0, P.f0), c = logGamma(c0, P.e0, P.f0);
    blanket[L.gamma0()] = weights + g;
    blanket[L.c0()] = weights + c;
    return lp + weights + g + c;
}

double naiveLogLikelihood(const GraphData& data, const MatrixRD& W, const Eigen::VectorXd& r)
{
    const int N = data.nodes;
    Eigen::MatrixXi y = Eigen::MatrixXi::Zero(N, N); // 1 edge, −1 held out
    for (const NodePair& e : data.trainEdges)
        y(e.i, e.j) = 1;
    for (const LabelledPair& h : data.heldOut)
        y(h.i, h.j) = -1;
    double s = 0.0;
    for (int i = 0; i < N; ++i)
        for (int j = i + 1; j < N; ++j) {
            if (y(i, j) < 0)
                continue;
            const double p = linkRate(W, r, i, j);
            s += y(i, j) ? std::log(1.0 - std::exp(-p)) : -p;
        }
    return s;
}

void addLinkMetrics(std::map<std::string, double>& metrics, const std::vector<LabelledPair>& pairs,
                    const std::vector<double>& probability)
{
    if (pairs.empty())
        return;
    // A state that has diverged predicts NaN: its scores are NaN too (ranking NaN would throw),
    // so that the evaluation of the diverged state can still be shown.
    if (std::any_of(probability.begin(), probability.end(),
                    [](double p) { return std::isnan(p); })) {
        for (const char* key : {"auc_roc", "auc_pr", "heldout_loglik"})
            metrics[key] = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    std::vector<std::uint8_t> linked(pairs.size());
    double ll = 0.0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        linked[k] = pairs[k].linked ? 1 : 0;
        const double p = std::clamp(probability[k], 1e-12, 1.0 - 1e-12);
        ll += pairs[k].linked ? std::log(p) : std::log1p(-p);
    }
    const LinkScores s = linkScores(probability, linked);
    metrics["auc_roc"] = s.aucRoc;
    metrics["auc_pr"] = s.aucPr;
    metrics["heldout_loglik"] = ll / double(pairs.size());
}

Eigen::VectorXd expectedCommunityCounts(const Graph& graph, const MatrixRD& W,
                                        const Eigen::VectorXd& r)
{
    Eigen::VectorXd m = Eigen::VectorXd::Zero(r.size());
    Eigen::ArrayXd lambda(r.size()); // λ_ijk of one edge, reused
    for (const NodePair& e : graph.trainEdges) {
        lambda = W.row(e.i).transpose().array() * r.array() * W.row(e.j).transpose().array();
        const double p = lambda.sum();
        if (!(p > 0.0))
            continue;
        // E[n] / p = 1 / (1 − e^{−p}), written to stay exact as p → 0.
        m.array() += lambda / -std::expm1(-p);
    }
    return m;
}

int communitiesUsed(const Eigen::VectorXd& counts)
{
    return int((counts.array() >= 0.5).count());
}

std::shared_ptr<const GraphSummary> graphSummary(const MatrixRD& W, const Eigen::VectorXd& r,
                                                 Eigen::MatrixXf linkProbability)
{
    auto out = std::make_shared<GraphSummary>();
    const Eigen::Index N = W.rows(), K = W.cols();
    const Eigen::RowVectorXd S = W.colwise().sum();
    out->community.assign(std::size_t(N), -1);
    std::vector<double> share(std::size_t(N), 0.0);
    for (Eigen::Index i = 0; i < N; ++i) {
        double best = 0.0;
        for (Eigen::Index k = 0; k < K; ++k) {
            const double v = r[k] * W(i, k) * (S[k] - W(i, k));
            if (v > best) {
                best = v;
                out->community[std::size_t(i)] = int(k);
            }
        }
        share[std::size_t(i)] = best;
    }
    out->communityWeights = r;
    out->order.resize(std::size_t(N));
    std::iota(out->order.begin(), out->order.end(), 0);
    // Communities by decreasing weight (nodes without one last), then by decreasing share.
    const auto weightOf = [&](int node) {
        const int k = out->community[std::size_t(node)];
        return k < 0 ? -kHuge : r[k];
    };
    std::stable_sort(out->order.begin(), out->order.end(), [&](int x, int y) {
        const int kx = out->community[std::size_t(x)], ky = out->community[std::size_t(y)];
        if (kx != ky)
            return weightOf(x) != weightOf(y) ? weightOf(x) > weightOf(y) : kx < ky;
        return share[std::size_t(x)] > share[std::size_t(y)];
    });
    out->linkProbability = std::move(linkProbability);
    return out;
}

} // namespace svi::epm
