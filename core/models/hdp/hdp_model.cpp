#include "core/models/hdp/hdp_model.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace svi::hdp {
namespace {

// log Γ in double precision: Boost's default promotes to long double, which made the stick
// terms of the per-iteration ELBO about 40% of a local step.
using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
double lgam(double x)
{
    return boost::math::lgamma(x, DoublePolicy());
}

// E[log x_i], E[log(1 − x_i)] of the m = a.size() sticks and E[log σ_i] (m + 1 entries) into
// preallocated vectors of those sizes (no allocation when they already have them).
void stickExpectations(const Eigen::VectorXd& a, const Eigen::VectorXd& b, Eigen::VectorXd& elogX,
                       Eigen::VectorXd& elog1mX, Eigen::VectorXd& out)
{
    const Eigen::Index m = a.size();
    elogX.resize(m);
    elog1mX.resize(m);
    out.resize(m + 1);
    if (m > 0) {
        // out.head(m) holds ψ(b) for a moment; elog1mX holds ψ(a + b).
        elog1mX = a + b;
        lda::digamma(elog1mX.data(), elog1mX.data(), m);
        lda::digamma(a.data(), elogX.data(), m);
        lda::digamma(b.data(), out.data(), m);
        elogX -= elog1mX;
        elog1mX = out.head(m) - elog1mX;
    }
    double rest = 0.0; // Σ_{l<i} E[log(1 − x_l)]
    for (Eigen::Index i = 0; i < m; ++i) {
        out[i] = elogX[i] + rest;
        rest += elog1mX[i];
    }
    out[m] = rest; // the last stick is 1
}

// stickElbo given the expectations.
double stickTerms(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& elogX,
                  const Eigen::VectorXd& elog1mX, double c)
{
    const double logC = std::log(c);
    double s = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i)
        s += logC + (c - 1.0) * elog1mX[i] - (lgam(a[i] + b[i]) - lgam(a[i]) - lgam(b[i])) -
             (a[i] - 1.0) * elogX[i] - (b[i] - 1.0) * elog1mX[i];
    return s;
}

// Row-wise log-softmax in place: the first `rows` rows of `logp` hold logits on entry and
// log-probabilities on return, `p` the probabilities; `scratch` has at least `rows` entries.
// Whole-block array operations, so that exp and log are vectorised.
void logSoftmaxRows(MatrixRD& logp, MatrixRD& p, Eigen::Index rows, Eigen::VectorXd& scratch)
{
    auto L = logp.topRows(rows).array();
    auto P = p.topRows(rows).array();
    auto m = scratch.head(rows).array();
    m = L.rowwise().maxCoeff();
    L.colwise() -= m;
    P = L.exp();
    m = P.rowwise().sum();
    P.colwise() /= m;
    m = m.log(); // once per row: a broadcast expression would be re-evaluated per element
    L.colwise() -= m;
}

// The document ELBO from a consistent state: atomTopic from the current ζ, elogSticks, elogX
// and elog1mX from the current (a, b), weightedZeta = n ∘ ζ.
double elboOfState(const LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, double alpha)
{
    double e = stickTerms(ws.a, ws.b, ws.elogX, ws.elog1mX, alpha);
    // c_jt and w_jn: Σ_t Σ_k φ_tk (E[log σ_k(β')] − log φ_tk + Σ_w n_w ζ_wt E_wk).
    e += (ws.phi.array() * ((ws.atomTopic.array() - ws.logPhi.array()).rowwise() +
                            elogCorpusSticks.transpose().array()))
             .sum();
    // z_jn: Σ_w n_w Σ_t ζ_wt (E[log σ_t(π')] − log ζ_wt).
    const auto nz = ws.weightedZeta.topRows(ws.n).array();
    const auto lz = ws.logZeta.topRows(ws.n).array();
    e += (nz * ((-lz).rowwise() + ws.elogSticks.transpose().array())).sum();
    return e;
}

} // namespace

void expectLogSticks(const Eigen::VectorXd& a, const Eigen::VectorXd& b, Eigen::VectorXd& out)
{
    if (a.size() != b.size())
        throw std::invalid_argument("expectLogSticks: a has " + std::to_string(a.size()) +
                                    " entries, but b has " + std::to_string(b.size()));
    Eigen::VectorXd elogX, elog1mX;
    stickExpectations(a, b, elogX, elog1mX, out);
}

Eigen::VectorXd expectSticks(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    if (a.size() != b.size())
        throw std::invalid_argument("expectSticks: a has " + std::to_string(a.size()) +
                                    " entries, but b has " + std::to_string(b.size()));
    const Eigen::Index m = a.size();
    Eigen::VectorXd out(m + 1);
    double rest = 1.0;
    for (Eigen::Index i = 0; i < m; ++i) {
        const double x = a[i] / (a[i] + b[i]);
        out[i] = rest * x;
        rest *= 1.0 - x;
    }
    out[m] = rest;
    return out;
}

double stickElbo(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double concentration)
{
    if (a.size() != b.size())
        throw std::invalid_argument("stickElbo: a has " + std::to_string(a.size()) +
                                    " entries, but b has " + std::to_string(b.size()));
    if (!(concentration > 0.0))
        throw std::invalid_argument("stickElbo: concentration = " + std::to_string(concentration) +
                                    ", but must be > 0");
    Eigen::VectorXd elogX, elog1mX, out;
    stickExpectations(a, b, elogX, elog1mX, out);
    return stickTerms(a, b, elogX, elog1mX, concentration);
}

void corpusSticks(const Eigen::VectorXd& s, double gamma, Eigen::VectorXd& u, Eigen::VectorXd& v)
{
    const Eigen::Index T = s.size();
    if (T < 1)
        throw std::invalid_argument("corpusSticks: s is empty, but needs T ≥ 1 entries");
    u = (s.head(T - 1).array() + 1.0).matrix();
    v.resize(T - 1);
    double tail = 0.0; // Σ_{l>k} s_l
    for (Eigen::Index k = T - 2; k >= 0; --k) {
        tail += s[k + 1];
        v[k] = gamma + tail;
    }
}

// ---------------------------------------------------------------------------------------------
// Local step

void LocalWorkspace::resize(int T_, int K_, Eigen::Index maxWords)
{
    T = T_;
    K = K_;
    n = 0;
    elogBeta.resize(maxWords, T);
    counts.resize(maxWords);
    zeta.resize(maxWords, K);
    logZeta.resize(maxWords, K);
    weightedZeta.resize(maxWords, K);
    wordScratch.resize(maxWords);
    atomScratch.resize(K);
    phi.resize(K, T);
    logPhi.resize(K, T);
    atomTopic.resize(K, T);
    a.resize(K - 1);
    b.resize(K - 1);
    atomCounts.resize(K);
    elogSticks.resize(K);
    elogX.resize(K - 1);
    elog1mX.resize(K - 1);
    massT.resize(T);
    rowT.resize(T);
    order.resize(std::size_t(T));
}

void LocalWorkspace::gather(const MatrixRD& elogBetaT_, std::span<const std::int32_t> words,
                            std::span<const float> c)
{
    const Eigen::Index m = Eigen::Index(words.size());
    if (m > elogBeta.rows())
        throw std::length_error("hdp::LocalWorkspace::gather: a document with " +
                                std::to_string(m) + " distinct words, but the workspace holds " +
                                std::to_string(elogBeta.rows()));
    n = m;
    for (Eigen::Index i = 0; i < m; ++i) {
        elogBeta.row(i) = elogBetaT_.row(words[std::size_t(i)]);
        counts[i] = double(c[std::size_t(i)]);
    }
}

void initialise(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, double alpha)
{
    ws.massT.setZero();
    for (Eigen::Index i = 0; i < ws.n; ++i) {
        ws.rowT = ws.elogBeta.row(i).transpose() + elogCorpusSticks;
        ws.rowT.array() = (ws.rowT.array() - ws.rowT.maxCoeff()).exp();
        ws.massT += (ws.counts[i] / ws.rowT.sum()) * ws.rowT;
    }
    std::iota(ws.order.begin(), ws.order.end(), 0);
    std::stable_sort(ws.order.begin(), ws.order.end(),
                     [&](int x, int y) { return ws.massT[x] > ws.massT[y]; });
    ws.phi.setZero();
    for (int t = 0; t < ws.K; ++t)
        ws.phi(t, ws.order[std::size_t(t % ws.T)]) = 1.0;
    ws.a.setOnes();
    ws.b.setConstant(alpha);
    stickExpectations(ws.a, ws.b, ws.elogX, ws.elog1mX, ws.elogSticks);
}

void updateZeta(LocalWorkspace& ws, bool withSticks)
{
    const Eigen::Index n = ws.n;
    ws.logZeta.topRows(n).noalias() = ws.elogBeta.topRows(n) * ws.phi.transpose();
    if (withSticks)
        ws.logZeta.topRows(n).array().rowwise() += ws.elogSticks.transpose().array();
    logSoftmaxRows(ws.logZeta, ws.zeta, n, ws.wordScratch);
    ws.weightedZeta.topRows(n).array() =
        ws.zeta.topRows(n).array().colwise() * ws.counts.head(n).array();
}

void updateDocumentSticks(LocalWorkspace& ws, double alpha)
{
    ws.atomCounts = ws.weightedZeta.topRows(ws.n).colwise().sum().transpose();
    double tail = 0.0; // Σ_{s>t} N_s
    for (int t = ws.K - 2; t >= 0; --t) {
        tail += ws.atomCounts[t + 1];
        ws.a[t] = 1.0 + ws.atomCounts[t];
        ws.b[t] = alpha + tail;
    }
    stickExpectations(ws.a, ws.b, ws.elogX, ws.elog1mX, ws.elogSticks);
}

void updatePhi(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, bool withSticks)
{
    const Eigen::Index n = ws.n;
    ws.atomTopic.noalias() = ws.weightedZeta.topRows(n).transpose() * ws.elogBeta.topRows(n);
    if (withSticks)
        ws.logPhi.array() = ws.atomTopic.array().rowwise() + elogCorpusSticks.transpose().array();
    else
        ws.logPhi = ws.atomTopic;
    logSoftmaxRows(ws.logPhi, ws.phi, ws.K, ws.atomScratch);
}

void localStep(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, const LocalOptions& o)
{
    initialise(ws, elogCorpusSticks, o.alpha);
    if (o.trace)
        ws.trace.clear();
    double previous = -std::numeric_limits<double>::infinity();
    ws.iterations = 0;
    for (int it = 0; it < o.maxIters; ++it) {
        const bool full = it >= o.warmup;
        updateZeta(ws, full);
        updateDocumentSticks(ws, o.alpha);
        updatePhi(ws, elogCorpusSticks, full);
        ws.elbo = elboOfState(ws, elogCorpusSticks, o.alpha);
        ws.iterations = it + 1;
        if (o.trace)
            ws.trace.push_back(ws.elbo);
        // After the warm-up every iteration is coordinate ascent, so the change is ≥ 0 up to
        // rounding; a negative change (rounding) also ends the loop.
        if (full && it > 0 && ws.elbo - previous < o.tol * std::abs(previous))
            break;
        previous = ws.elbo;
    }
}

double documentElbo(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, double alpha)
{
    const Eigen::Index n = ws.n;
    ws.weightedZeta.topRows(n).array() =
        ws.zeta.topRows(n).array().colwise() * ws.counts.head(n).array();
    ws.atomCounts = ws.weightedZeta.topRows(n).colwise().sum().transpose();
    ws.atomTopic.noalias() = ws.weightedZeta.topRows(n).transpose() * ws.elogBeta.topRows(n);
    stickExpectations(ws.a, ws.b, ws.elogX, ws.elog1mX, ws.elogSticks);
    return elboOfState(ws, elogCorpusSticks, alpha);
}

// ---------------------------------------------------------------------------------------------
// Global step

void MinibatchStats::layout(const SparseRows& rows, std::span<const std::int64_t> docs, int T,
                            int K)
{
    m_T = T;
    m_K = K;
    const std::size_t B = docs.size();
    m_phi.resize(Eigen::Index(B), Eigen::Index(K) * T);
    m_stick.resize(Eigen::Index(B), T);
    m_docStart.resize(B + 1);
    m_docStart[0] = 0;
    for (std::size_t j = 0; j < B; ++j)
        m_docStart[j + 1] = m_docStart[j] + rows.rowNonZeros(docs[j]);
    const std::size_t entries = std::size_t(m_docStart[B]);
    m_word.resize(entries);
    m_entryDoc.resize(entries);
    m_zeta.resize(Eigen::Index(entries), K);
}

void MinibatchStats::record(std::int64_t j, std::span<const std::int32_t> words,
                            const LocalWorkspace& ws)
{
    m_phi.row(j) = Eigen::Map<const Eigen::RowVectorXd>(ws.phi.data(), ws.phi.size());
    m_stick.row(j) = ws.phi.colwise().sum();
    const std::int64_t start = m_docStart[std::size_t(j)];
    for (Eigen::Index i = 0; i < ws.n; ++i) {
        m_word[std::size_t(start + i)] = words[std::size_t(i)];
        m_entryDoc[std::size_t(start + i)] = std::int32_t(j);
        m_zeta.row(start + i) = ws.weightedZeta.row(i);
    }
}

void MinibatchStats::groupByWord(std::int64_t V)
{
    // Counting sort by word; stable, so each word's entries stay in document order.
    m_wordStart.assign(std::size_t(V) + 1, 0);
    for (std::int32_t w : m_word)
        ++m_wordStart[std::size_t(w) + 1];
    for (std::size_t w = 0; w < std::size_t(V); ++w)
        m_wordStart[w + 1] += m_wordStart[w];
    m_byWord.resize(m_word.size());
    m_cursor.assign(m_wordStart.begin(), m_wordStart.end() - 1);
    for (std::size_t e = 0; e < m_word.size(); ++e)
        m_byWord[std::size_t(m_cursor[std::size_t(m_word[e])]++)] = std::int64_t(e);
}

Eigen::VectorXd MinibatchStats::stickStatistic() const
{
    Eigen::VectorXd s = Eigen::VectorXd::Zero(m_T);
    for (Eigen::Index j = 0; j < m_stick.rows(); ++j)
        s += m_stick.row(j).transpose();
    return s;
}

void MinibatchStats::wordStatistic(std::int64_t w, Eigen::Ref<Eigen::VectorXd> out) const
{
    out.setZero();
    for (std::int64_t p = m_wordStart[std::size_t(w)]; p < m_wordStart[std::size_t(w) + 1]; ++p) {
        const std::int64_t e = m_byWord[std::size_t(p)];
        const Eigen::Map<const MatrixRD> phi(m_phi.row(m_entryDoc[std::size_t(e)]).data(), m_K,
                                             m_T);
        out.noalias() += phi.transpose() * m_zeta.row(e).transpose();
    }
}

void wordStatistics(const MinibatchStats& stats, SparseRowSum& S)
{
    S.index.clear();
    for (std::int64_t w = 0; w < stats.vocabulary(); ++w)
        if (stats.hasWord(w))
            S.index.push_back(std::int32_t(w));
    const Eigen::Index n = Eigen::Index(S.index.size());
    S.rows.resize(n, stats.topics());
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i)
        stats.wordStatistic(S.index[std::size_t(i)], S.rows.row(i).transpose());
}

void updateTopics(MatrixRD& lambdaT, const MinibatchStats& stats, double eta, double scale,
                  double rho)
{
    SparseRowSum S;
    wordStatistics(stats, S);
    lda::updateTopics(lambdaT, S, eta, scale, rho);
}

void updateStickStatistic(Eigen::VectorXd& s, const Eigen::VectorXd& S, double scale, double rho)
{
    s = (1.0 - rho) * s + (rho * scale) * S;
}

void updateStickStatistic(Eigen::VectorXd& s, const MinibatchStats& stats, double scale, double rho)
{
    updateStickStatistic(s, stats.stickStatistic(), scale, rho);
}

void reorderTopics(Eigen::VectorXd& g, Eigen::Index V, const std::vector<int>& order)
{
    const Eigen::Index T = Eigen::Index(order.size());
    if (g.size() != V * T + T)
        throw std::invalid_argument("reorderTopics: the vector has " + std::to_string(g.size()) +
                                    " entries, but V×T + T = " + std::to_string(V * T + T));
    std::vector<double> row(static_cast<std::size_t>(T));
    for (Eigen::Index w = 0; w <= V; ++w) { // row V: the sticks' block
        double* block = g.data() + w * T;
        std::copy(block, block + T, row.begin());
        for (Eigen::Index i = 0; i < T; ++i)
            block[i] = row[std::size_t(order[std::size_t(i)])];
    }
}

std::vector<int> sortTopics(MatrixRD& lambdaT, Eigen::VectorXd& s)
{
    const int T = int(s.size());
    std::vector<int> order(static_cast<std::size_t>(T));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return s[x] > s[y]; });
    bool identity = true;
    for (int i = 0; i < T; ++i)
        identity = identity && order[std::size_t(i)] == i;
    if (identity)
        return order;
    const Eigen::VectorXd old = s;
    for (int i = 0; i < T; ++i)
        s[i] = old[order[std::size_t(i)]];
    lda::forWordBlocks(lambdaT.rows(), [&](Eigen::Index, Eigen::Index begin, Eigen::Index end) {
        Eigen::RowVectorXd row(T);
        for (Eigen::Index w = begin; w < end; ++w) {
            row = lambdaT.row(w);
            for (int i = 0; i < T; ++i)
                lambdaT(w, i) = row[order[std::size_t(i)]];
        }
    });
    return order;
}

void fitProportions(lda::LocalWorkspace& ws, const Eigen::VectorXd& alpha, int maxIters, double tol)
{
    if (alpha.size() != ws.K)
        throw std::invalid_argument("fitProportions: alpha has " + std::to_string(alpha.size()) +
                                    " entries, but the workspace has K = " + std::to_string(ws.K));
    const auto B = ws.beta.topRows(ws.n);
    const double words = ws.counts.head(ws.n).sum();
    ws.gamma = (alpha.array() + words / double(ws.K)).matrix();
    lda::refreshTheta(ws);
    ws.iterations = 0;
    ws.meanChange = 0.0;
    for (int it = 0; it < maxIters; ++it) {
        ws.next.noalias() = B.transpose() * ws.ratio.head(ws.n);
        ws.next.array() = alpha.array() + ws.expElogTheta.array() * ws.next.array();
        ws.meanChange = (ws.next - ws.gamma).cwiseAbs().mean();
        ws.gamma.swap(ws.next);
        lda::refreshTheta(ws);
        ws.iterations = it + 1;
        if (ws.meanChange < tol)
            break;
    }
}

} // namespace svi::hdp
