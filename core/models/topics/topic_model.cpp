#include "core/models/topics/topic_model.h"

#include "core/math/digamma.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace svi::lda {
namespace {

// Added to every Z_w = Σ_k eθ_k eβ_wk so that a word whose eβ all underflow gives a finite
// ratio (Hoffman's code does the same); far below any Z that matters.
constexpr double kTinyNorm = 1e-100;
// The same in single precision.
constexpr float kTinyNorm32 = 1e-30f;

// lambdaT's rows at S's words += factor · S's rows. Parallel over the words (distinct).
void addRows(MatrixRD& lambdaT, const SparseRowSum& S, double factor)
{
    const Eigen::Index n = Eigen::Index(S.index.size());
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i)
        lambdaT.row(S.index[std::size_t(i)]) += factor * S.rows.row(i);
}

double lgam(double x)
{
    return boost::math::lgamma(x);
}

Eigen::RowVectorXd psiTotals(const Eigen::VectorXd& totals)
{
    Eigen::RowVectorXd psiTotal(totals.size());
    for (Eigen::Index k = 0; k < totals.size(); ++k)
        psiTotal[k] = digamma(totals[k]);
    return psiTotal;
}

// Row w of E[log β] (of eβ when `exponentiate`) into `out`: ψ of the row on its own (the
// vectorised ψ may round its tail apart from its packets: a row computed alone or within a
// block would differ in the last bit).
void expectLogBetaRow(const MatrixRD& lambdaT, const Eigen::RowVectorXd& psiTotal, Eigen::Index w,
                      MatrixRD& out, bool exponentiate, Blend blend = {})
{
    const Eigen::Index K = lambdaT.cols();
    if (blend.identity()) {
        digamma(lambdaT.row(w).data(), out.row(w).data(), K);
    } else {
        out.row(w).array() = blend.scale * lambdaT.row(w).array() + blend.offset;
        digamma(out.row(w).data(), out.row(w).data(), K);
    }
    auto row = out.row(w).array();
    row -= psiTotal.array();
    if (exponentiate)
        row = row.exp();
}

// E[log β] word-major into `out`, exponentiated when `exponentiate` (see elogBetaT);
// `caller` names the public function in messages.
void expectLogBetaT(const MatrixRD& lambdaT, const Eigen::VectorXd& totals, MatrixRD& out,
                    bool exponentiate, const char* caller, Blend blend = {})
{
    const Eigen::Index V = lambdaT.rows(), K = lambdaT.cols();
    if (totals.size() != K)
        throw std::invalid_argument(std::string(caller) + ": totals has " +
                                    std::to_string(totals.size()) +
                                    " entries, but λ has K = " + std::to_string(K) + " columns");
    out.resize(V, K);
    const Eigen::RowVectorXd psiTotal = psiTotals(totals);
    forWordBlocks(V, [&](Eigen::Index, Eigen::Index begin, Eigen::Index end) {
        for (Eigen::Index w = begin; w < end; ++w)
            expectLogBetaRow(lambdaT, psiTotal, w, out, exponentiate, blend);
    });
}

} // namespace

void dirichletExpectation(const Eigen::Ref<const Eigen::VectorXd>& gamma,
                          Eigen::Ref<Eigen::VectorXd> out)
{
    if (out.size() != gamma.size())
        throw std::invalid_argument("dirichletExpectation: out has " + std::to_string(out.size()) +
                                    " entries, but gamma has " + std::to_string(gamma.size()));
    const double total = digamma(gamma.sum());
    digamma(gamma.data(), out.data(), gamma.size());
    out.array() -= total;
}

Eigen::VectorXd topicTotals(const MatrixRD& lambdaT)
{
    const Eigen::Index V = lambdaT.rows(), K = lambdaT.cols();
    const Eigen::Index blocks = (V + kWordBlock - 1) / kWordBlock;
    MatrixRD partial = MatrixRD::Zero(std::max<Eigen::Index>(blocks, 1), K);
    forWordBlocks(V, [&](Eigen::Index b, Eigen::Index begin, Eigen::Index end) {
        partial.row(b) = lambdaT.middleRows(begin, end - begin).colwise().sum();
    });
    Eigen::VectorXd totals = Eigen::VectorXd::Zero(K);
    for (Eigen::Index b = 0; b < partial.rows(); ++b)
        totals += partial.row(b).transpose();
    return totals;
}

void elogBetaT(const MatrixRD& lambdaT, const Eigen::VectorXd& totals, MatrixRD& out)
{
    expectLogBetaT(lambdaT, totals, out, false, "elogBetaT");
}

void expElogBetaRows(const MatrixRD& lambdaT, const Eigen::VectorXd& totals,
                     const std::vector<std::int32_t>& words, MatrixRD& out, Blend blend)
{
    const Eigen::RowVectorXd psiTotal = psiTotals(totals);
    const Eigen::Index n = Eigen::Index(words.size());
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i)
        expectLogBetaRow(lambdaT, psiTotal, words[std::size_t(i)], out, true, blend);
}

void expElogBetaT(const MatrixRD& lambdaT, const Eigen::VectorXd& totals, MatrixRD& out,
                  Blend blend)
{
    expectLogBetaT(lambdaT, totals, out, true, "expElogBetaT", blend);
}

void applyBlend(MatrixRD& lambdaT, Blend blend)
{
    if (blend.identity())
        return;
    forWordBlocks(lambdaT.rows(), [&](Eigen::Index, Eigen::Index begin, Eigen::Index end) {
        auto rows = lambdaT.middleRows(begin, end - begin).array();
        rows = blend.scale * rows + blend.offset;
    });
}

double globalElbo(const MatrixRD& lambdaT, double eta, Blend blend)
{
    const Eigen::Index V = lambdaT.rows(), K = lambdaT.cols();
    const Eigen::VectorXd totals =
        (blend.scale * topicTotals(lambdaT).array() + double(V) * blend.offset).matrix();
    Eigen::RowVectorXd psiTotal(K);
    double perTopic = 0.0;
    for (Eigen::Index k = 0; k < K; ++k) {
        psiTotal[k] = digamma(totals[k]);
        perTopic -= lgam(totals[k]);
    }
    const Eigen::Index blocks = (V + kWordBlock - 1) / kWordBlock;
    std::vector<double> partial(std::size_t(std::max<Eigen::Index>(blocks, 1)), 0.0);
    forWordBlocks(V, [&](Eigen::Index b, Eigen::Index begin, Eigen::Index end) {
        Eigen::ArrayXd psi(K), lam(K);
        double s = 0.0;
        for (Eigen::Index w = begin; w < end; ++w) {
            lam = blend.scale * lambdaT.row(w).transpose().array() + blend.offset;
            digamma(lam.data(), psi.data(), K);
            s += ((eta - lam) * (psi - psiTotal.transpose().array())).sum();
            for (Eigen::Index k = 0; k < K; ++k)
                s += lgam(lam[k]);
        }
        partial[std::size_t(b)] = s;
    });
    double sum = double(K) * (lgam(double(V) * eta) - double(V) * lgam(eta)) + perTopic;
    for (double p : partial)
        sum += p;
    return sum;
}

// ---------------------------------------------------------------------------------------------
// Local step

void LocalWorkspace::resize(int K_, Eigen::Index maxWords)
{
    K = K_;
    n = 0;
    beta.resize(maxWords, K);
    counts.resize(maxWords);
    phiNorm.resize(maxWords);
    ratio.resize(maxWords);
    rowSum.resize(maxWords);
    gamma.resize(K);
    elogTheta.resize(K);
    expElogTheta.resize(K);
    next.resize(K);
    active.resize(std::size_t(K));
    activeBeta.resize(maxWords, K);
    activeGamma.resize(K);
    activeElog.resize(K);
    activeFrom.resize(std::size_t(K));
    thetaF.resize(K);
    sumF.resize(K);
    normF.resize(maxWords);
    ratioF.resize(maxWords);
    countsF.resize(maxWords);
}

void LocalWorkspace::gather(const MatrixRD& expElogBetaT, std::span<const std::int32_t> words,
                            std::span<const float> c)
{
    const Eigen::Index m = Eigen::Index(words.size());
    if (m > beta.rows())
        throw std::length_error("LocalWorkspace::gather: a document with " + std::to_string(m) +
                                " distinct words, but the workspace holds " +
                                std::to_string(beta.rows()));
    n = m;
    for (Eigen::Index i = 0; i < m; ++i) {
        beta.row(i) = expElogBetaT.row(words[std::size_t(i)]);
        rowSum[i] = beta.row(i).sum();
        counts[i] = double(c[std::size_t(i)]);
    }
}

void refreshTheta(LocalWorkspace& ws)
{
    dirichletExpectation(ws.gamma, ws.elogTheta);
    ws.expElogTheta.array() = ws.elogTheta.array().exp();
    const auto B = ws.beta.topRows(ws.n);
    ws.phiNorm.head(ws.n).noalias() = B * ws.expElogTheta;
    ws.phiNorm.head(ws.n).array() += kTinyNorm;
    ws.ratio.head(ws.n).array() = ws.counts.head(ws.n).array() / ws.phiNorm.head(ws.n).array();
}

namespace {

using MatrixRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Keeps the topics a of ws.active whose keep(a) holds, moving their columns of the n×m
// single-precision eβ (row-major, packed) and their γ down in place; returns the new count.
template <typename Keep> Eigen::Index compactActive(LocalWorkspace& ws, Eigen::Index m, Keep&& keep)
{
    Eigen::Index kept = 0;
    for (Eigen::Index a = 0; a < m; ++a)
        if (keep(a)) {
            ws.active[std::size_t(kept)] = ws.active[std::size_t(a)];
            ws.activeFrom[std::size_t(kept)] = int(a);
            ws.activeGamma[kept] = ws.activeGamma[a];
            ws.thetaF[kept] = ws.thetaF[a];
            ++kept;
        }
    // Row i of the packed n×kept matrix starts at or before row i of the n×m one, and column
    // c ≤ its old column, so copying in increasing order never overwrites a value unread.
    float* buf = ws.activeBeta.data();
    for (Eigen::Index i = 0; i < ws.n; ++i)
        for (Eigen::Index c = 0; c < kept; ++c)
            buf[i * kept + c] = buf[i * m + ws.activeFrom[std::size_t(c)]];
    return kept;
}

// localStep's first phase: the updates of γ in single precision over the topics in play (see
// localStep), from ws.gamma, until mean |Δγ| < max(tol, kSinglePrecisionTol) or `budget`
// updates. Leaves the result in ws.gamma (α at the topics out of play) and returns the updates
// made.
int sparseUpdates(LocalWorkspace& ws, double alpha, double tol, int budget)
{
    const int K = ws.K;
    const Eigen::Index n = ws.n;
    ws.activeTopics = K;
    if (budget <= 0 || n == 0)
        return 0;
    int it = 0;
    const double stopAt = std::max(tol, kSinglePrecisionTol);
    if (ws.gamma.minCoeff() == ws.gamma.maxCoeff()) {
        // From an even γ (line 5) eθ is the same for every topic, so Z_w = eθ Σ_k eβ_wk and the
        // first update is γ_k = α + Σ_w n_w eβ_wk / Σ_j eβ_wj: one pass, in double.
        ws.ratio.head(n).array() =
            ws.counts.head(n).array() / (ws.rowSum.head(n).array() + kTinyNorm);
        ws.next.noalias() = ws.beta.topRows(n).transpose() * ws.ratio.head(n);
        ws.next.array() += alpha;
        ws.meanChange = (ws.next - ws.gamma).cwiseAbs().mean();
        ws.gamma.swap(ws.next);
        it = 1;
        if (ws.meanChange < stopAt || it == budget)
            return it;
    }
    // The topics in play under γ; those out of play go to α at the next update.
    dirichletExpectation(ws.gamma, ws.elogTheta);
    const double floorLog = ws.elogTheta.maxCoeff() + std::log(kActiveShare);
    double held = 0.0; // Σ |α − γ_k| of the topics set aside, due at the next update
    Eigen::Index m = 0;
    for (int k = 0; k < K; ++k) {
        if (ws.elogTheta[k] >= floorLog) {
            ws.active[std::size_t(m)] = k;
            ws.activeGamma[m] = ws.gamma[k];
            ++m;
        } else {
            held += std::abs(ws.gamma[k] - alpha);
        }
    }
    // Each word's row divided by its sum (φ_w does not see a word's scale: Z_w and n_w / Z_w
    // take it up), and what falls below 1e-30 of that set to zero: eβ of a rare word can be
    // 1e-45, which single precision holds only as a denormal, and arithmetic on denormals is
    // a hundred times slower.
    float* buf = ws.activeBeta.data();
    for (Eigen::Index i = 0; i < n; ++i) {
        const double* row = ws.beta.row(i).data();
        const double scale = 1.0 / (ws.rowSum[i] + kTinyNorm);
        for (Eigen::Index a = 0; a < m; ++a) {
            const double v = row[ws.active[std::size_t(a)]] * scale;
            buf[i * m + a] = v >= 1e-30 ? float(v) : 0.0f;
        }
    }
    ws.countsF.head(n) = ws.counts.head(n).cast<float>();
    const double logShare = std::log(kActiveShare);
    while (it < budget) {
        // eθ of the topics in play, divided by the largest (φ = eθ_k eβ_wk / Z_w does not see
        // the scale, and float keeps its range); those below kActiveShare of it are zero.
        const double psiSum = digamma(ws.activeGamma.head(m).sum() + double(K - m) * alpha);
        digamma(ws.activeGamma.data(), ws.activeElog.data(), m);
        ws.activeElog.head(m).array() -= psiSum;
        const double top = ws.activeElog.head(m).maxCoeff();
        Eigen::Index live = 0;
        for (Eigen::Index a = 0; a < m; ++a) {
            const double d = ws.activeElog[a] - top;
            ws.thetaF[a] = d >= logShare ? float(std::exp(d)) : 0.0f;
            live += d >= logShare;
        }
        // Out of play now: γ_k becomes α at this update; pack the rest once a quarter has gone.
        if (live < m - m / 4) {
            for (Eigen::Index a = 0; a < m; ++a)
                if (ws.thetaF[a] == 0.0f)
                    held += std::abs(ws.activeGamma[a] - alpha);
            m = compactActive(ws, m, [&](Eigen::Index a) { return ws.thetaF[a] != 0.0f; });
        }
        const Eigen::Map<const MatrixRF> B(buf, n, m);
        ws.normF.head(n).noalias() = B * ws.thetaF.head(m);
        ws.ratioF.head(n).array() =
            ws.countsF.head(n).array() / (ws.normF.head(n).array() + kTinyNorm32);
        ws.sumF.head(m).noalias() = B.transpose() * ws.ratioF.head(n);
        // γ_k = α + eθ_k Σ_w n_w eβ_wk / Z_w.
        double change = held;
        held = 0.0;
        for (Eigen::Index a = 0; a < m; ++a) {
            const double g = alpha + double(ws.thetaF[a]) * double(ws.sumF[a]);
            change += std::abs(g - ws.activeGamma[a]);
            ws.activeGamma[a] = g;
        }
        ++it;
        ws.meanChange = change / double(K);
        if (ws.meanChange < stopAt)
            break;
    }
    ws.activeTopics = int(m);
    ws.gamma.setConstant(alpha);
    for (Eigen::Index a = 0; a < m; ++a)
        ws.gamma[ws.active[std::size_t(a)]] = ws.activeGamma[a];
    return it;
}

// After the single-precision phase (the topics of ws.active[0, m) in play, the others at
// γ_k = α): one exact update, in double, in O(n m) rather than O(n K). Every topic out of play
// has the same eθ_k = c = exp(ψ(α) − ψ(Σγ)), so Z_w = Σ_{k∈A} eθ_k eβ_wk + c (Σ_k eβ_wk −
// Σ_{k∈A} eβ_wk) from the row sums, and the update moves those topics by c Σ_w (n_w / Z_w)
// eβ_wk each: Σ over them is c Σ_w (n_w / Z_w)(Σ_k eβ_wk − Σ_{k∈A} eβ_wk), so the mean change
// of the exact update is known. When it is below tol the update is taken at the topics in
// play (those out of play keep α: what they would gain is within that change) and eθ, Z and
// n / Z are set for the new γ, the rest by the same sums; returns false (nothing changed)
// otherwise.
bool exactUpdateInPlay(LocalWorkspace& ws, double alpha, double tol)
{
    const int K = ws.K;
    const Eigen::Index n = ws.n, m = ws.activeTopics;
    const auto at = [&](Eigen::Index i, Eigen::Index a) {
        return ws.beta(i, ws.active[std::size_t(a)]);
    };
    // Z_w, n_w / Z_w and Σ_w (n_w / Z_w) eβ_wk at the topics in play under ws.gamma; returns
    // the total of the last over the topics out of play.
    const auto norms = [&]() {
        dirichletExpectation(ws.gamma, ws.elogTheta);
        const double c = std::exp(digamma(alpha) - digamma(ws.gamma.sum()));
        ws.expElogTheta.setConstant(c);
        for (Eigen::Index a = 0; a < m; ++a) {
            const int k = ws.active[std::size_t(a)];
            ws.expElogTheta[k] = std::exp(ws.elogTheta[k]);
        }
        double rest = 0.0;
        ws.next.head(m).setZero();
        for (Eigen::Index i = 0; i < n; ++i) {
            double inPlay = 0.0, z = 0.0;
            for (Eigen::Index a = 0; a < m; ++a) {
                inPlay += at(i, a);
                z += ws.expElogTheta[ws.active[std::size_t(a)]] * at(i, a);
            }
            const double outside = std::max(ws.rowSum[i] - inPlay, 0.0);
            ws.phiNorm[i] = z + c * outside + kTinyNorm;
            ws.ratio[i] = ws.counts[i] / ws.phiNorm[i];
            for (Eigen::Index a = 0; a < m; ++a)
                ws.next[a] += ws.ratio[i] * at(i, a);
            rest += ws.ratio[i] * outside;
        }
        return c * rest;
    };
    double change = norms();
    for (Eigen::Index a = 0; a < m; ++a) {
        const int k = ws.active[std::size_t(a)];
        ws.activeGamma[a] = alpha + ws.expElogTheta[k] * ws.next[a];
        change += std::abs(ws.activeGamma[a] - ws.gamma[k]);
    }
    if (change / double(K) >= tol)
        return false;
    ws.meanChange = change / double(K);
    for (Eigen::Index a = 0; a < m; ++a)
        ws.gamma[ws.active[std::size_t(a)]] = ws.activeGamma[a];
    norms();
    return true;
}

} // namespace

void localStep(LocalWorkspace& ws, const LocalOptions& o)
{
    const auto B = ws.beta.topRows(ws.n);
    if (!o.warmStart)
        ws.gamma.setOnes(); // Fig. 6, line 5
    ws.meanChange = 0.0;
    // The single-precision phase, leaving at least one exact update.
    int it = sparseUpdates(ws, o.alpha, o.tol, o.maxIters - 1);
    ws.denseIterations = 0;
    if (it < o.maxIters && ws.activeTopics < ws.K) {
        ws.denseIterations = 1; // taken or not, an exact update was computed
        if (exactUpdateInPlay(ws, o.alpha, o.tol)) {
            ws.iterations = it + 1;
            return;
        }
    }
    refreshTheta(ws);
    while (it < o.maxIters) {
        // γ = α + Σ_w n_w φ_w with φ_wk = eθ_k eβ_wk / Z_w (lines 7–8).
        ws.next.noalias() = B.transpose() * ws.ratio.head(ws.n);
        ws.next.array() = o.alpha + ws.expElogTheta.array() * ws.next.array();
        ws.meanChange = (ws.next - ws.gamma).cwiseAbs().mean();
        ws.gamma.swap(ws.next);
        refreshTheta(ws);
        ++it;
        ++ws.denseIterations;
        if (ws.meanChange < o.tol)
            break;
    }
    ws.iterations = it;
}

MatrixRD phi(const LocalWorkspace& ws)
{
    MatrixRD out(ws.n, ws.K);
    for (Eigen::Index i = 0; i < ws.n; ++i)
        out.row(i) = ws.beta.row(i).cwiseProduct(ws.expElogTheta.transpose()) / ws.phiNorm[i];
    return out;
}

double documentElbo(LocalWorkspace& ws, double alpha)
{
    refreshTheta(ws);
    const int K = ws.K;
    double s = (ws.counts.head(ws.n).array() * ws.phiNorm.head(ws.n).array().log()).sum();
    s += ((alpha - ws.gamma.array()) * ws.elogTheta.array()).sum();
    for (int k = 0; k < K; ++k)
        s += lgam(ws.gamma[k]);
    s -= lgam(ws.gamma.sum());
    s += lgam(double(K) * alpha) - double(K) * lgam(alpha);
    return s;
}

void addStatistics(const LocalWorkspace& ws, std::span<const std::int32_t> words, MatrixRD& statsT)
{
    for (Eigen::Index i = 0; i < ws.n; ++i)
        statsT.row(words[std::size_t(i)]) +=
            ws.ratio[i] * ws.expElogTheta.transpose().cwiseProduct(ws.beta.row(i));
}

void blendTopics(MatrixRD& lambdaT, const MatrixRD& statsT, double eta, double scale, double rho)
{
    lambdaT = (1.0 - rho) * lambdaT + rho * ((scale * statsT).array() + eta).matrix();
}

// ---------------------------------------------------------------------------------------------
// MinibatchStats

void MinibatchStats::layout(const SparseRows& rows, std::span<const std::int64_t> docs, int K)
{
    const std::size_t B = docs.size();
    m_theta.resize(Eigen::Index(B), K);
    m_docStart.resize(B + 1);
    m_docStart[0] = 0;
    for (std::size_t j = 0; j < B; ++j)
        m_docStart[j + 1] = m_docStart[j] + rows.rowNonZeros(docs[j]);
    m_word.resize(std::size_t(m_docStart[B]));
    m_ratio.resize(std::size_t(m_docStart[B]));
}

void MinibatchStats::record(std::int64_t j, std::span<const std::int32_t> words,
                            const LocalWorkspace& ws)
{
    m_theta.row(j) = ws.expElogTheta.transpose();
    const std::int64_t start = m_docStart[std::size_t(j)];
    for (Eigen::Index i = 0; i < ws.n; ++i) {
        m_word[std::size_t(start + i)] = words[std::size_t(i)];
        m_ratio[std::size_t(start + i)] = ws.ratio[i];
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
    m_byWordDoc.resize(m_word.size());
    m_byWordRatio.resize(m_word.size());
    std::vector<std::int64_t>& cursor = m_cursor; // next free position of each word
    cursor.assign(m_wordStart.begin(), m_wordStart.end() - 1);
    const std::int64_t B = documents();
    for (std::int64_t j = 0; j < B; ++j)
        for (std::int64_t e = m_docStart[std::size_t(j)]; e < m_docStart[std::size_t(j) + 1]; ++e) {
            const std::int64_t pos = cursor[std::size_t(m_word[std::size_t(e)])]++;
            m_byWordDoc[std::size_t(pos)] = std::int32_t(j);
            m_byWordRatio[std::size_t(pos)] = m_ratio[std::size_t(e)];
        }
}

void MinibatchStats::wordStatistic(std::int64_t w, const double* expElogBetaRow,
                                   Eigen::Ref<Eigen::VectorXd> out) const
{
    out.setZero();
    for (std::int64_t e = m_wordStart[std::size_t(w)]; e < m_wordStart[std::size_t(w) + 1]; ++e)
        out += m_byWordRatio[std::size_t(e)] * m_theta.row(m_byWordDoc[std::size_t(e)]).transpose();
    out.array() *= Eigen::Map<const Eigen::ArrayXd>(expElogBetaRow, out.size());
}

void wordStatistics(const MinibatchStats& stats, const MatrixRD& expElogBetaT, SparseRowSum& out)
{
    out.index.clear();
    for (std::int64_t w = 0; w < stats.vocabulary(); ++w)
        if (stats.hasWord(w))
            out.index.push_back(std::int32_t(w));
    const Eigen::Index n = Eigen::Index(out.index.size()), K = expElogBetaT.cols();
    out.rows.resize(n, K);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
        const std::int32_t w = out.index[std::size_t(i)];
        stats.wordStatistic(w, expElogBetaT.row(w).data(), out.rows.row(i).transpose());
    }
}

void updateTopics(MatrixRD& lambdaT, const SparseRowSum& S, double eta, double scale, double rho)
{
    const Eigen::Index V = lambdaT.rows();
    const double keep = 1.0 - rho, add = rho * scale, floor = rho * eta;
    forWordBlocks(V, [&](Eigen::Index, Eigen::Index begin, Eigen::Index end) {
        auto rows = lambdaT.middleRows(begin, end - begin);
        rows = keep * rows;
        rows.array() += floor;
    });
    addRows(lambdaT, S, add);
}

void blendTopics(MatrixRD& lambdaT, Blend& blend, Eigen::VectorXd& rawTotals, const SparseRowSum& S,
                 double eta, double scale, double rho)
{
    const double keep = 1.0 - rho;
    blend.scale *= keep;
    blend.offset = keep * blend.offset + rho * eta;
    const double add = rho * scale / blend.scale;
    addRows(lambdaT, S, add);
    rawTotals += add * S.rows.colwise().sum().transpose();
}

void expElogBetaPosterior(const MatrixRD* lambdaT, double eta, const Eigen::VectorXd& priorTotals,
                          const SparseRowSum& S, MatrixRD& scratch, MatrixRD& out)
{
    const Eigen::Index n = Eigen::Index(S.index.size()), K = out.cols();
    if (priorTotals.size() != K || S.rows.rows() != n || (n > 0 && S.rows.cols() != K))
        throw std::invalid_argument("expElogBetaPosterior: the statistic has " +
                                    std::to_string(S.rows.cols()) + " topics, the prior " +
                                    std::to_string(priorTotals.size()) + ", eβ " +
                                    std::to_string(K));
    const Eigen::VectorXd totals = priorTotals + S.rows.colwise().sum().transpose();
    const Eigen::RowVectorXd psiTotal = psiTotals(totals);
    scratch.resize(n, K);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index w = S.index[std::size_t(i)];
        if (lambdaT)
            scratch.row(i) = lambdaT->row(w) + S.rows.row(i);
        else
            scratch.row(i) = S.rows.row(i).array() + eta;
        digamma(scratch.row(i).data(), out.row(w).data(), K);
        out.row(w).array() = (out.row(w).array() - psiTotal.array()).exp();
    }
}

void addTopicStatistic(MatrixRD& lambdaT, const SparseRowSum& S)
{
    addRows(lambdaT, S, 1.0);
}

void topicGradient(const MatrixRD& lambdaT, const SparseRowSum& S, double eta, double scale,
                   Eigen::Ref<Eigen::VectorXd> g)
{
    const Eigen::Index V = lambdaT.rows(), K = lambdaT.cols();
    if (g.size() != V * K)
        throw std::invalid_argument("topicGradient: the gradient has " + std::to_string(g.size()) +
                                    " entries, but V·K = " + std::to_string(V * K));
    forWordBlocks(V, [&](Eigen::Index, Eigen::Index begin, Eigen::Index end) {
        g.segment(begin * K, (end - begin) * K) =
            (eta - lambdaT.middleRows(begin, end - begin).reshaped<Eigen::RowMajor>().array())
                .matrix();
    });
    const Eigen::Index n = Eigen::Index(S.index.size());
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i)
        g.segment(Eigen::Index(S.index[std::size_t(i)]) * K, K) +=
            scale * S.rows.row(i).transpose();
}

} // namespace svi::lda
