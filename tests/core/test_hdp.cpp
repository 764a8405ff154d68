// The HDP topic model fitted by online variational inference (Wang, Paisley & Blei 2011;
// Hoffman et al. 2013, Fig. 9), checked against independent computations: Boost.Math for the
// stick expectations and the Beta KL divergence, coordinate ascent that never lowers the
// document ELBO, finite differences of the document ELBO at each local update, finite
// differences of the full ELBO at the global update, the batch update written out term by
// term, recovery of planted topics with a stick weight on about that many topics, document
// completion against the true topics, and thread-count independence.

#include "core/math/assignment.h"
#include "core/math/random.h"
#include "core/models/builtin.h"
#include "core/models/hdp/hdp_model.h"
#include "core/models/hdp/hdp_trainer.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/run/registry.h"
#include "tests/core/topic_testing.h"

#include <QtTest>
#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <cmath>
#include <numeric>
#include <omp.h>

using namespace svi;
using namespace topic_testing;
using lda::MatrixRD;

namespace {

MatrixRD elogBeta(const MatrixRD& lambdaT)
{
    MatrixRD out;
    hdp::elogBetaT(lambdaT, lda::topicTotals(lambdaT), out);
    return out;
}

Eigen::VectorXd elogSticksOf(const Eigen::VectorXd& s, double gamma)
{
    Eigen::VectorXd u, v, out;
    hdp::corpusSticks(s, gamma, u, v);
    hdp::expectLogSticks(u, v, out);
    return out;
}

double maxRelDiff(const MatrixRD& a, const MatrixRD& b)
{
    return ((a - b).array().abs() / b.array().abs().max(1.0)).maxCoeff();
}

// KL(Beta(a, b) ‖ Beta(a0, b0)) from its closed form with Boost.Math's beta function.
double betaKl(double a, double b, double a0, double b0)
{
    using boost::math::digamma;
    return std::log(boost::math::beta(a0, b0)) - std::log(boost::math::beta(a, b)) +
           (a - a0) * digamma(a) + (b - b0) * digamma(b) + (a0 - a + b0 - b) * digamma(a + b);
}

// The dense batch target, document by document: λ = η + Σ_d Σ_w n_dw (ζ_dw φ_d)[w] and
// s = Σ_d Σ_t φ_dt, each document's local step run against the given expectations.
void denseTarget(const CountData& data, const std::vector<std::int64_t>& rows,
                 const MatrixRD& elogBetaT, const Eigen::VectorXd& elogSticks,
                 const hdp::LocalOptions& lo, int T, int K, MatrixRD& stats,
                 Eigen::VectorXd& sticks)
{
    hdp::LocalWorkspace ws;
    ws.resize(T, K, data.vocabularySize);
    stats = MatrixRD::Zero(elogBetaT.rows(), T);
    sticks = Eigen::VectorXd::Zero(T);
    for (std::int64_t r : rows) {
        const auto words = data.train.rowCols(r);
        ws.gather(elogBetaT, words, data.train.rowCounts(r));
        hdp::localStep(ws, elogSticks, lo);
        for (Eigen::Index i = 0; i < ws.n; ++i)
            for (int t = 0; t < K; ++t)
                for (int k = 0; k < T; ++k)
                    stats(words[std::size_t(i)], k) += ws.counts[i] * ws.zeta(i, t) * ws.phi(t, k);
        for (int t = 0; t < K; ++t)
            for (int k = 0; k < T; ++k)
                sticks[k] += ws.phi(t, k);
    }
}

// Per-word held-out log-likelihood of document completion with the true topics and α: γ fitted
// to the observed half with β itself, then log Σ_k (γ_k / Σγ) β_kw.
double trueCompletion(const CountData& data, const MatrixRD& betaT, double alpha)
{
    lda::LocalWorkspace ws;
    ws.resize(int(betaT.cols()), data.vocabularySize);
    const Eigen::VectorXd alphaVec = Eigen::VectorXd::Constant(betaT.cols(), alpha);
    double ll = 0.0, words = 0.0;
    for (std::int64_t r : data.testRows) {
        ws.gather(betaT, data.train.rowCols(r), data.train.rowCounts(r));
        hdp::fitProportions(ws, alphaVec, 1000, 1e-8);
        const Eigen::VectorXd theta = ws.gamma / ws.gamma.sum();
        const auto cols = data.heldOut.rowCols(r);
        const auto counts = data.heldOut.rowCounts(r);
        for (std::size_t i = 0; i < cols.size(); ++i) {
            ll += counts[i] * std::log(betaT.row(cols[i]).dot(theta.transpose()));
            words += counts[i];
        }
    }
    return ll / words;
}

HdpOptions plantedOptions()
{
    HdpOptions o;
    o.T = 20;
    o.K = 10;
    o.minibatch = 100;
    o.kappa = 0.7;
    o.tau0 = 1.0;
    o.evalDocs = 200;
    return o;
}

} // namespace

class TestHdp : public QObject
{
    Q_OBJECT

private slots:
    void sticksMatchTheirDefinitions();
    void localStepIsCoordinateAscent();
    void localUpdatesAreStationaryPoints();
    void globalUpdateMaximisesTheElbo();
    void fullStepEqualsTheBatchUpdate();
    void sviStepBlendsTheMinibatchTarget();
    void adaptiveAveragesFollowSortedTopics();
    void recoversPlantedTopics();
    void sameResultWithOneAndTwoThreads();
    void badOptionsNameTheField_data();
    void badOptionsNameTheField();
    void registryRejectsDenseDataAndBadParams();
};

// E[log σ], E[σ] and the stick KL against Boost.Math; the stick part of the ELBO is 0 at the
// prior and −Σ KL elsewhere.
void TestHdp::sticksMatchTheirDefinitions()
{
    Eigen::VectorXd a(4), b(4);
    a << 0.3, 2.0, 7.5, 1.0;
    b << 1.2, 0.4, 3.0, 50.0;
    Eigen::VectorXd elog;
    hdp::expectLogSticks(a, b, elog);
    QCOMPARE(elog.size(), Eigen::Index(5));
    double rest = 0.0;
    for (int i = 0; i < 4; ++i) {
        using boost::math::digamma;
        const double ref = digamma(a[i]) - digamma(a[i] + b[i]) + rest;
        QVERIFY2(std::abs(elog[i] - ref) < 1e-11,
                 qPrintable(QString("i = %1: %2 vs %3").arg(i).arg(elog[i]).arg(ref)));
        rest += digamma(b[i]) - digamma(a[i] + b[i]);
    }
    QVERIFY(std::abs(elog[4] - rest) < 1e-11);

    const Eigen::VectorXd e = hdp::expectSticks(a, b);
    QVERIFY(std::abs(e.sum() - 1.0) < 1e-14);
    QVERIFY(std::abs(e[1] - (1 - 0.3 / 1.5) * (2.0 / 2.4)) < 1e-14);

    const double c = 1.7;
    double kl = 0.0;
    for (int i = 0; i < 4; ++i)
        kl += betaKl(a[i], b[i], 1.0, c);
    QVERIFY2(std::abs(hdp::stickElbo(a, b, c) + kl) < 1e-10 * (1.0 + kl),
             qPrintable(QString("%1 vs %2").arg(hdp::stickElbo(a, b, c)).arg(-kl)));
    QVERIFY(std::abs(hdp::stickElbo(Eigen::VectorXd::Ones(3), Eigen::VectorXd::Constant(3, c), c)) <
            1e-13);

    // u_k = 1 + s_k, v_k = γ + Σ_{l>k} s_l; one stick fewer than topics.
    Eigen::VectorXd s(4), u, v;
    s << 5.0, 1.0, 0.5, 2.0;
    hdp::corpusSticks(s, 0.3, u, v);
    QCOMPARE(u.size(), Eigen::Index(3));
    QCOMPARE(u[0], 6.0);
    QCOMPARE(v[0], 0.3 + 3.5);
    QCOMPARE(v[2], 0.3 + 2.0);
    // One topic: no sticks, E[log σ_0] = 0.
    hdp::corpusSticks(Eigen::VectorXd::Constant(1, 3.0), 1.0, u, v);
    hdp::expectLogSticks(u, v, elog);
    QCOMPARE(elog.size(), Eigen::Index(1));
    QCOMPARE(elog[0], 0.0);
}

// Once the stick terms are on (after the warm-up), each iteration maximises the document ELBO
// in ζ, then (a, b), then φ, so the ELBO after each iteration never falls. The ELBO kept by
// the loop equals documentElbo recomputed from (a, b, φ, ζ).
void TestHdp::localStepIsCoordinateAscent()
{
    const int V = 60, T = 12, K = 6;
    const MatrixRD eb = elogBeta(someLambda(V, T, 11, 0.05, 3.0));
    Eigen::VectorXd s(T);
    for (int k = 0; k < T; ++k)
        s[k] = 40.0 / (1 + k);
    const Eigen::VectorXd elogSticks = elogSticksOf(s, 1.0);
    const CountDataPtr data = smallCorpus(8, V, 12);
    hdp::LocalWorkspace ws;
    ws.resize(T, K, V);
    hdp::LocalOptions lo;
    lo.alpha = 0.8;
    lo.maxIters = 300;
    lo.tol = 0.0;
    lo.trace = true;
    int rises = 0;
    for (std::int64_t r = 0; r < data->rows(); ++r) {
        ws.gather(eb, data->train.rowCols(r), data->train.rowCounts(r));
        hdp::localStep(ws, elogSticks, lo);
        QVERIFY(int(ws.trace.size()) == ws.iterations);
        QVERIFY(ws.iterations > lo.warmup + 2);
        for (std::size_t i = std::size_t(lo.warmup); i < ws.trace.size(); ++i) {
            const double before = ws.trace[i - 1], after = ws.trace[i];
            QVERIFY2(after >= before - 1e-10 * std::abs(before),
                     qPrintable(QString("document %1, iteration %2: ELBO %3 → %4")
                                    .arg(r)
                                    .arg(i)
                                    .arg(before, 0, 'g', 16)
                                    .arg(after, 0, 'g', 16)));
            rises += after > before + 1e-6;
        }
        const double fast = ws.elbo;
        const double full = hdp::documentElbo(ws, elogSticks, lo.alpha);
        QVERIFY2(std::abs(fast - full) < 1e-10 * std::abs(full),
                 qPrintable(QString("%1 vs %2").arg(fast).arg(full)));
        QVERIFY(((ws.phi.rowwise().sum().array() - 1.0).abs() < 1e-12).all());
        QVERIFY(((ws.zeta.topRows(ws.n).rowwise().sum().array() - 1.0).abs() < 1e-12).all());
        // a_t − 1 and b_t − α are the expected word counts on atom t and after it.
        QVERIFY(std::abs((ws.a.array() - 1.0).sum() + (ws.atomCounts[K - 1]) -
                         data->train.rowTotal(r)) < 1e-9);
    }
    QVERIFY(rises > 0); // the check is not vacuous: the full iterations do move the ELBO

    // The tolerance ends the loop: far fewer iterations at 1e-4 than at 0.
    lo.tol = 1e-4;
    ws.gather(eb, data->train.rowCols(0), data->train.rowCounts(0));
    hdp::localStep(ws, elogSticks, lo);
    QVERIFY2(ws.iterations < 100, qPrintable(QString::number(ws.iterations)));
    const double last = ws.trace[ws.trace.size() - 1], prev = ws.trace[ws.trace.size() - 2];
    QVERIFY(last - prev < 1e-4 * std::abs(prev));
}

// Each local update is the maximiser of the document ELBO in its block: at the state it
// produces, the finite-difference derivative of documentElbo (recomputed from scratch) in a_t,
// b_t, a logit of φ_t and a logit of ζ_w is zero; at nearby states that the update would
// change (a shifted a_t, φ without the corpus stick term) it is not.
void TestHdp::localUpdatesAreStationaryPoints()
{
    const int V = 40, T = 8, K = 5;
    const MatrixRD eb = elogBeta(someLambda(V, T, 21, 0.05, 3.0));
    Eigen::VectorXd s(T);
    for (int k = 0; k < T; ++k)
        s[k] = 30.0 / (1 + k);
    const Eigen::VectorXd elogSticks = elogSticksOf(s, 1.0);
    const CountDataPtr data = smallCorpus(1, V, 22);
    const double alpha = 0.7;
    hdp::LocalWorkspace ws;
    ws.resize(T, K, V);
    ws.gather(eb, data->train.rowCols(0), data->train.rowCounts(0));
    hdp::LocalOptions lo;
    lo.alpha = alpha;
    lo.maxIters = 50;
    hdp::localStep(ws, elogSticks, lo);

    auto elbo = [&] { return hdp::documentElbo(ws, elogSticks, alpha); };
    auto derivative = [&](double& x, double h) {
        const double x0 = x;
        x = x0 + h;
        const double up = elbo();
        x = x0 - h;
        const double down = elbo();
        x = x0;
        elbo(); // the derived members (document stick expectations) back at x0
        return (up - down) / (2.0 * h);
    };
    // A logit of row `row` of a distribution (p, log p): p ∝ exp(log p + δ e_k).
    auto logitDerivative = [&](auto& p, auto& logp, Eigen::Index row, Eigen::Index k) {
        const Eigen::RowVectorXd x0 = logp.row(row);
        auto at = [&](double delta) {
            Eigen::RowVectorXd x = x0;
            x[k] += delta;
            x.array() -= x.maxCoeff();
            const double lse = std::log(x.array().exp().sum());
            logp.row(row) = x.array() - lse;
            p.row(row) = logp.row(row).array().exp();
            return elbo();
        };
        const double h = 1e-5;
        const double d = (at(h) - at(-h)) / (2.0 * h);
        logp.row(row) = x0;
        p.row(row) = x0.array().exp();
        elbo();
        return d;
    };
    const double scale = std::abs(elbo());

    // (a, b) and φ were updated last from ζ: the ELBO is flat in them.
    for (int t = 0; t < K - 1; ++t) {
        const double da = derivative(ws.a[t], 1e-6 * ws.a[t]);
        const double db = derivative(ws.b[t], 1e-6 * ws.b[t]);
        QVERIFY2(std::abs(da) < 1e-5 && std::abs(db) < 1e-5,
                 qPrintable(QString("t = %1: ∂L/∂a = %2, ∂L/∂b = %3").arg(t).arg(da).arg(db)));
    }
    for (int t = 0; t < K; ++t)
        for (int k = 0; k < T; k += 3) {
            const double d = logitDerivative(ws.phi, ws.logPhi, t, k);
            QVERIFY2(std::abs(d) < 1e-6 * (1.0 + scale),
                     qPrintable(QString("φ(%1, %2): ∂L/∂logit = %3").arg(t).arg(k).arg(d)));
        }
    // Not vacuous: a shifted a_0 has a clear slope.
    ws.a[0] += 1.0;
    QVERIFY(std::abs(derivative(ws.a[0], 1e-6)) > 1e-3);
    ws.a[0] -= 1.0;
    elbo();

    // ζ after its own update (given the φ and (a, b) above): flat in every logit.
    hdp::updateZeta(ws, true);
    for (Eigen::Index i = 0; i < ws.n; i += 2)
        for (int t = 0; t < K; ++t) {
            const double d = logitDerivative(ws.zeta, ws.logZeta, i, t);
            QVERIFY2(std::abs(d) < 1e-6 * (1.0 + scale),
                     qPrintable(QString("ζ(%1, %2): ∂L/∂logit = %3").arg(i).arg(t).arg(d)));
        }

    // φ from the warm-up formula (without E[log σ(β')]) is not optimal: some logit has a slope.
    hdp::updateDocumentSticks(ws, alpha);
    hdp::updatePhi(ws, elogSticks, false);
    double largest = 0.0;
    for (int t = 0; t < K; ++t)
        for (int k = 0; k < T; ++k)
            largest = std::max(largest, std::abs(logitDerivative(ws.phi, ws.logPhi, t, k)));
    QVERIFY2(largest > 1e-3, qPrintable(QString::number(largest)));
}

// With the local parameters of every document fixed, the full ELBO — the global terms
// (stickElbo of the corpus sticks, lda::globalElbo of λ) plus each document's documentElbo,
// which is where the globals enter through E[log σ(β')] and E[log β] — is maximised by the
// global update with ρ = 1: λ = η + Σ n ζ φ, u = 1 + s, v = γ + Σ_{l>k} s_l. Its
// finite-difference derivative in λ_kw, u_k and v_k vanishes there and not at a half step.
void TestHdp::globalUpdateMaximisesTheElbo()
{
    const int V = 15, T = 5, K = 3;
    const double alpha = 0.6, gamma = 1.3, eta = 0.2;
    const CountDataPtr data = smallCorpus(6, V, 31);
    const MatrixRD lambda0 = someLambda(V, T, 32);
    Eigen::VectorXd s0(T);
    s0 << 4.0, 3.0, 2.5, 1.0, 0.5;
    // Local steps against the starting globals, kept per document.
    std::vector<hdp::LocalWorkspace> docs(std::size_t(data->rows()));
    hdp::MinibatchStats stats;
    const std::vector<std::int64_t> rows = data->trainingRows();
    stats.layout(data->train, rows, T, K);
    hdp::LocalOptions lo;
    lo.alpha = alpha;
    for (std::size_t d = 0; d < docs.size(); ++d) {
        docs[d].resize(T, K, V);
        docs[d].gather(elogBeta(lambda0), data->train.rowCols(std::int64_t(d)),
                       data->train.rowCounts(std::int64_t(d)));
        hdp::localStep(docs[d], elogSticksOf(s0, gamma), lo);
        stats.record(std::int64_t(d), data->train.rowCols(std::int64_t(d)), docs[d]);
    }
    stats.groupByWord(V);
    MatrixRD lambda = lambda0;
    Eigen::VectorXd s = s0;
    hdp::updateTopics(lambda, stats, eta, 1.0, 1.0);
    hdp::updateStickStatistic(s, stats, 1.0, 1.0);
    Eigen::VectorXd u, v;
    hdp::corpusSticks(s, gamma, u, v);

    auto elbo = [&](const MatrixRD& l, const Eigen::VectorXd& uu, const Eigen::VectorXd& vv) {
        const MatrixRD eb = elogBeta(l);
        Eigen::VectorXd es;
        hdp::expectLogSticks(uu, vv, es);
        double total = hdp::stickElbo(uu, vv, gamma) + lda::globalElbo(l, eta);
        for (std::size_t d = 0; d < docs.size(); ++d) {
            hdp::LocalWorkspace ws = docs[d];
            ws.gather(eb, data->train.rowCols(std::int64_t(d)),
                      data->train.rowCounts(std::int64_t(d)));
            total += hdp::documentElbo(ws, es, alpha);
        }
        return total;
    };
    auto check = [&](const MatrixRD& l, const Eigen::VectorXd& uu, const Eigen::VectorXd& vv,
                     bool optimum) {
        double largest = 0.0;
        for (int k = 0; k < T - 1; ++k) {
            const double h = 1e-6 * uu[k];
            Eigen::VectorXd up = uu, down = uu;
            up[k] += h;
            down[k] -= h;
            const double du = (elbo(l, up, vv) - elbo(l, down, vv)) / (2 * h);
            up = vv;
            down = vv;
            up[k] += 1e-6 * vv[k];
            down[k] -= 1e-6 * vv[k];
            const double dv = (elbo(l, uu, up) - elbo(l, uu, down)) / (2e-6 * vv[k]);
            largest = std::max({largest, std::abs(du), std::abs(dv)});
            if (optimum)
                QVERIFY2(
                    std::abs(du) < 1e-5 && std::abs(dv) < 1e-5,
                    qPrintable(QString("k = %1: ∂L/∂u = %2, ∂L/∂v = %3").arg(k).arg(du).arg(dv)));
        }
        for (int w = 0; w < V; w += 2)
            for (int k = 0; k < T; ++k) {
                const double h = 1e-6 * l(w, k);
                MatrixRD up = l, down = l;
                up(w, k) += h;
                down(w, k) -= h;
                const double d = (elbo(up, uu, vv) - elbo(down, uu, vv)) / (2 * h);
                largest = std::max(largest, std::abs(d));
                if (optimum)
                    QVERIFY2(std::abs(d) < 1e-5,
                             qPrintable(QString("λ(%1, %2): ∂L/∂λ = %3").arg(k).arg(w).arg(d)));
            }
        if (!optimum)
            QVERIFY2(largest > 1e-2, qPrintable(QString::number(largest))); // not vacuous
    };
    check(lambda, u, v, true);
    // Half way from the start to the update: not the optimum.
    Eigen::VectorXd uHalf, vHalf;
    hdp::corpusSticks(0.5 * (s + s0), gamma, uHalf, vHalf);
    check(0.5 * (lambda + lambda0), uHalf, vHalf, false);
}

// An SVI step with ρ = 1 (τ0 = 0, t = 1) and the whole corpus as its minibatch, and a batch
// step, both equal the dense batch target computed document by document, then sorted by
// decreasing stick statistic.
void TestHdp::fullStepEqualsTheBatchUpdate()
{
    LdaSyntheticOptions so;
    so.documents = 300;
    so.V = 80;
    so.K = 4;
    so.wordsPerDocument = 40;
    so.seed = 4;
    const LdaSynthetic syn = makeLdaSynthetic(so);
    const CountData& data = *syn.data;
    HdpOptions o;
    o.T = 8;
    o.K = 4;
    o.minibatch = data.trainingRowCount();
    o.tau0 = 0.0;
    HdpTrainer svi(syn.data, HdpAlgorithm::Svi, o, 9);
    HdpTrainer batch(syn.data, HdpAlgorithm::Batch, o, 9);
    QCOMPARE(svi.lambdaT(), batch.lambdaT());
    for (int stepNo = 1; stepNo <= 2; ++stepNo) {
        MatrixRD stats;
        Eigen::VectorXd sticks;
        denseTarget(data, data.trainingRows(), batch.elogBetaT(), batch.elogCorpusSticks(),
                    batch.localOptions(), o.T, o.K, stats, sticks);
        MatrixRD expected = (stats.array() + o.eta).matrix();
        const std::vector<int> order = hdp::sortTopics(expected, sticks);
        if (stepNo == 1)
            QCOMPARE(svi.step(1), 1.0);
        QCOMPARE(batch.step(stepNo), 1.0);
        QVERIFY(batch.lastOrder() == order);
        const double errBatch = std::max(maxRelDiff(batch.lambdaT(), expected),
                                         maxRelDiff(batch.stickStatistic(), sticks));
        QVERIFY2(errBatch < 1e-10, qPrintable(QString("step %1: %2").arg(stepNo).arg(errBatch)));
        if (stepNo == 1) {
            const double errSvi = std::max(maxRelDiff(svi.lambdaT(), expected),
                                           maxRelDiff(svi.stickStatistic(), sticks));
            QVERIFY2(errSvi < 1e-10, qPrintable(QString::number(errSvi)));
        }
        for (int k = 1; k < o.T; ++k)
            QVERIFY(batch.stickStatistic()[k] <= batch.stickStatistic()[k - 1]);
        // Every atom of every document has a topic: Σ_k s_k = K·D.
        QVERIFY(std::abs(batch.stickStatistic().sum() - double(o.K * data.trainingRowCount())) <
                1e-8);
    }
    QCOMPARE(batch.itemsPerStep(), data.trainingRowCount());
}

// λ ← (1 − ρ)λ + ρ(η + (D/|B|) S) and s ← (1 − ρ)s + ρ (D/|B|) S_sticks for a minibatch,
// with and without the sorting (the sorted result is the unsorted one permuted).
void TestHdp::sviStepBlendsTheMinibatchTarget()
{
    const LdaSynthetic syn = plantedCorpus(5, 4);
    HdpOptions o;
    o.T = 10;
    o.K = 5;
    o.minibatch = 50;
    o.kappa = 0.6;
    o.tau0 = 10.0;
    o.adaptiveInit = 2;
    // The adaptive rate's ρ (Ranganath et al. 2013) blends the same target as ρ_t does.
    for (const auto& [sorted, schedule] :
         {std::pair{false, StepSchedule::RobbinsMonro}, std::pair{true, StepSchedule::RobbinsMonro},
          std::pair{false, StepSchedule::Adaptive}, std::pair{true, StepSchedule::Adaptive}}) {
        o.sortTopics = sorted;
        o.schedule = schedule;
        HdpTrainer t(syn.data, HdpAlgorithm::Svi, o, 2);
        for (std::int64_t stepNo = 1; stepNo <= 3; ++stepNo) {
            const MatrixRD lambdaBefore = t.lambdaT();
            const Eigen::VectorXd sBefore = t.stickStatistic();
            const MatrixRD eb = t.elogBetaT();
            const Eigen::VectorXd es = t.elogCorpusSticks();
            const double rho = t.step(stepNo);
            if (schedule == StepSchedule::RobbinsMonro)
                QCOMPARE(rho, std::pow(double(stepNo) + o.tau0, -o.kappa));
            else
                QVERIFY(rho > 0.0 && rho <= 1.0);
            const std::vector<std::int64_t> batch = t.lastBatch();
            QCOMPARE(std::int64_t(batch.size()), o.minibatch);
            for (std::int64_t r : batch)
                QVERIFY(!syn.data->isTestRow(r));
            MatrixRD stats;
            Eigen::VectorXd sticks;
            denseTarget(*syn.data, batch, eb, es, t.localOptions(), o.T, o.K, stats, sticks);
            const double scale = double(syn.data->trainingRowCount()) / double(batch.size());
            MatrixRD expected =
                (1 - rho) * lambdaBefore + rho * ((scale * stats).array() + o.eta).matrix();
            Eigen::VectorXd expectedS = (1 - rho) * sBefore + rho * scale * sticks;
            const std::vector<int> order = t.lastOrder();
            if (!sorted)
                for (int k = 0; k < o.T; ++k)
                    QCOMPARE(order[std::size_t(k)], k);
            MatrixRD permuted = expected;
            Eigen::VectorXd permutedS = expectedS;
            for (int k = 0; k < o.T; ++k) {
                permuted.col(k) = expected.col(order[std::size_t(k)]);
                permutedS[k] = expectedS[order[std::size_t(k)]];
            }
            const double err = std::max(maxRelDiff(t.lambdaT(), permuted),
                                        maxRelDiff(t.stickStatistic(), permutedS));
            QVERIFY2(
                err < 1e-10,
                qPrintable(QString("sorted %1, step %2: %3").arg(sorted).arg(stepNo).arg(err)));
        }
    }
}

// The adaptive rate's averaged gradient ḡ is laid out by topic: when the sorting relabels the
// topics, ḡ follows them. After one update from the same state, the sorted run's ḡ is the
// unsorted run's with its topics in the sorted order, and so is its next ρ's input.
void TestHdp::adaptiveAveragesFollowSortedTopics()
{
    const LdaSynthetic syn = plantedCorpus(5, 4);
    HdpOptions o;
    o.T = 10;
    o.K = 5;
    o.minibatch = 50;
    o.schedule = StepSchedule::Adaptive;
    o.adaptiveInit = 3;
    o.sortTopics = false;
    HdpTrainer plain(syn.data, HdpAlgorithm::Svi, o, 4);
    o.sortTopics = true;
    HdpTrainer sorted(syn.data, HdpAlgorithm::Svi, o, 4);
    QCOMPARE(sorted.step(1), plain.step(1));
    const std::vector<int>& order = sorted.lastOrder();
    QVERIFY(!std::is_sorted(order.begin(), order.end())); // the sorting moved topics
    Eigen::VectorXd expected = plain.stepSizer().adaptiveRate().gradientAverage();
    const Eigen::Index V = syn.data->vocabularySize;
    QCOMPARE(expected.size(), V * o.T + o.T);
    hdp::reorderTopics(expected, V, order);
    const Eigen::VectorXd& got = sorted.stepSizer().adaptiveRate().gradientAverage();
    QVERIFY((got - expected).cwiseAbs().maxCoeff() < 1e-12 * expected.cwiseAbs().maxCoeff());
    // By hand for one word and the sticks: entry i of each block is old entry order[i].
    const Eigen::VectorXd& before = plain.stepSizer().adaptiveRate().gradientAverage();
    for (int i = 0; i < o.T; ++i) {
        QCOMPARE(got[7 * o.T + i], before[7 * o.T + order[std::size_t(i)]]);
        QCOMPARE(got[V * o.T + i], before[V * o.T + order[std::size_t(i)]]);
    }
    Eigen::VectorXd wrong(3);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, hdp::reorderTopics(wrong, V, order));
}

// A corpus drawn from LDA with 6 planted topics (Dir(0.05) over 300 words, θ ~ Dir(0.1),
// 1350 training documents of ~100 words); the HDP with T = 12 and K = 10 after 150 SVI steps
// of 100 documents (about 11 epochs). Checked: most of the corpus stick weight sits on about
// six topics and at least two of the twelve stay unused; the six heaviest, matched one to one
// to the planted ones (minimum-cost assignment, L1 between E[β_k] and β_k, in [0, 2]), are
// close to them; the held-out per-word log-likelihood is far above the uniform −log V and near
// that of the true topics; the preview lists the topics in use. Measured locally on corpus and
// fit seeds 1–8: weight on the six heaviest 0.949–0.980, topics used 6–8, matched L1 mean
// 0.038–0.042 and worst 0.042–0.055 (with T = 20: 0.868–0.968, 6–10, the same L1, at 1.7 times
// the cost, which under the sanitizers is a minute).
// Flat initial topics give a matched L1 of about 1.7, and two planted topics merged into one
// (a local optimum SVI can reach) give a worst L1 near 1.9, so the bounds below fail then.
void TestHdp::recoversPlantedTopics()
{
    const LdaSynthetic syn = plantedCorpus(2, 6, 1500);
    HdpOptions o = plantedOptions();
    o.T = 12;
    o.evalDocs = 300; // every test document, 300 training documents in the ELBO
    HdpTrainer t(syn.data, HdpAlgorithm::Svi, o, 2);
    const double start = t.evaluate(false).metrics.at("heldout_loglik_per_word");
    for (std::int64_t stepNo = 1; stepNo <= 150; ++stepNo)
        t.step(stepNo);
    const Evaluation ev = t.evaluate(false);
    const Eigen::VectorXd w = t.expectedSticks();
    // Topics are sorted by stick statistic; the first six should hold most of the weight.
    const double topShare = w.head(6).sum();
    const double used = ev.metrics.at("topics_used");
    const MatrixRD heaviest = normalisedTopics(t.lambdaT()).leftCols(6);
    const std::vector<double> l1 = matchedL1(syn.betaT, heaviest);
    const double mean = std::accumulate(l1.begin(), l1.end(), 0.0) / 6.0;
    const double worst = *std::max_element(l1.begin(), l1.end());
    const double fitted = ev.metrics.at("heldout_loglik_per_word");
    const double truth = trueCompletion(*syn.data, syn.betaT, 0.1);
    const double uniform = -std::log(300.0);
    qInfo("weight on the 6 heaviest %.3f, topics used %.0f, matched L1 mean %.3f worst %.3f; "
          "held-out per word: uniform %.4f, start %.4f, fitted %.4f, true topics %.4f",
          topShare, used, mean, worst, uniform, start, fitted, truth);
    QVERIFY2(topShare > 0.8, qPrintable(QString::number(topShare)));
    QVERIFY2(used >= 6 && used <= o.T - 2, qPrintable(QString::number(used)));
    QVERIFY2(mean < 0.1, qPrintable(QString::number(mean)));
    QVERIFY2(worst < 0.25, qPrintable(QString::number(worst)));
    QVERIFY(std::abs(start - uniform) < 0.05); // flat initial topics predict like the uniform
    QVERIFY2(fitted > uniform + 1.0, qPrintable(QString::number(fitted)));
    QVERIFY2(fitted > truth - 0.1, qPrintable(QString("%1 vs %2").arg(fitted).arg(truth)));
    QVERIFY2(fitted < truth + 0.05, qPrintable(QString("%1 vs %2").arg(fitted).arg(truth)));
    QCOMPARE(ev.metrics.at("perplexity"), std::exp(-fitted));
    QVERIFY(std::isfinite(ev.elbo));
    QVERIFY(!t.diverged());

    // The preview: the topics in use, heaviest first, with their weights and top words.
    QVERIFY(ev.preview);
    const std::vector<TopicSummary>& topics = ev.preview->topics;
    QCOMPARE(double(topics.size()), used);
    for (std::size_t i = 0; i < topics.size(); ++i) {
        const TopicSummary& tp = topics[i];
        if (i > 0)
            QVERIFY(tp.weight <= topics[i - 1].weight);
        QVERIFY(tp.weight > 0.1 / o.T);
        QCOMPARE(tp.weight, w[tp.index]);
        QCOMPARE(tp.words.size(), std::size_t(o.topWords));
        const double colTotal = t.lambdaT().col(tp.index).sum();
        for (std::size_t j = 0; j < tp.words.size(); ++j) {
            const int word = std::stoi(tp.words[j].substr(1)); // names are "w<index>"
            QVERIFY(std::abs(tp.probs[j] - t.lambdaT()(word, tp.index) / colTotal) < 1e-12);
            if (j > 0)
                QVERIFY(tp.probs[j] <= tp.probs[j - 1]);
        }
    }
    QCOMPARE(t.itemCount(), syn.data->trainingRowCount());
    QCOMPARE(t.itemsPerStep(), std::int64_t(100));
}

// The globals after a few SVI steps and the evaluation are identical with 1 and 2 threads.
void TestHdp::sameResultWithOneAndTwoThreads()
{
    const LdaSynthetic syn = plantedCorpus(3, 6);
    HdpOptions o = plantedOptions();
    o.evalDocs = 100;
    auto run = [&](int threads) {
        omp_set_num_threads(threads);
        HdpTrainer t(syn.data, HdpAlgorithm::Svi, o, 8);
        for (std::int64_t stepNo = 1; stepNo <= 4; ++stepNo)
            t.step(stepNo);
        const Evaluation ev = t.evaluate(false);
        return std::tuple{t.lambdaT(), t.stickStatistic(), ev.elbo,
                          ev.metrics.at("heldout_loglik_per_word")};
    };
    const auto one = run(1);
    const auto two = run(2);
    omp_set_num_threads(2);
    QVERIFY2(std::get<0>(one) == std::get<0>(two), "λ differs between 1 and 2 threads");
    QVERIFY2(std::get<1>(one) == std::get<1>(two), "s differs between 1 and 2 threads");
    QCOMPARE(std::get<2>(one), std::get<2>(two));
    QCOMPARE(std::get<3>(one), std::get<3>(two));
}

void TestHdp::badOptionsNameTheField_data()
{
    QTest::addColumn<QString>("field");
    for (const char* f : {"T", "K", "alpha", "gamma", "eta", "kappa", "tau0", "minibatch",
                          "local_iters", "local_tol", "eval_docs", "top_words"})
        QTest::newRow(f) << f;
}

void TestHdp::badOptionsNameTheField()
{
    QFETCH(QString, field);
    const CountDataPtr data = smallCorpus(20, 10, 1);
    HdpOptions o;
    o.T = 5;
    o.K = 3;
    const std::map<QString, std::function<void()>> spoil = {
        {"T", [&] { o.T = 0; }},
        {"K", [&] { o.K = 0; }},
        {"alpha", [&] { o.alpha = 0.0; }},
        {"gamma", [&] { o.gamma = -1.0; }},
        {"eta", [&] { o.eta = -0.5; }},
        {"kappa", [&] { o.kappa = 0.4; }},
        {"tau0", [&] { o.tau0 = -1.0; }},
        {"minibatch", [&] { o.minibatch = 0; }},
        {"local_iters", [&] { o.localIters = 0; }},
        {"local_tol", [&] { o.localTol = -1.0; }},
        {"eval_docs", [&] { o.evalDocs = 0; }},
        {"top_words", [&] { o.topWords = 0; }},
    };
    spoil.at(field)();
    try {
        HdpTrainer t(data, HdpAlgorithm::Svi, o, 1);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith(field + " = "),
                 e.what());
    }
}

void TestHdp::registryRejectsDenseDataAndBadParams()
{
    const Registry& r = builtinRegistry();
    const AlgorithmEntry* svi = r.find("hdp", "svi");
    const AlgorithmEntry* batch = r.find("hdp", "batch");
    QVERIFY(svi && batch);
    QCOMPARE(QString::fromStdString(svi->modelLabel), QString("Hierarchical Dirichlet process"));
    QCOMPARE(QString::fromStdString(svi->label),
             QString("Online variational inference (Wang et al. 2011)"));
    QVERIFY(svi->fits("corpus"));
    QVERIFY(!svi->fits("image") && !svi->fits("ratings"));
    QStringList keys;
    for (const ParamSpec& p : svi->params)
        keys << QString::fromStdString(p.key);
    for (const char* k : {"T", "K", "alpha", "gamma", "eta", "kappa", "tau0", "minibatch",
                          "local_iters", "local_tol", "sort_topics", "eval_docs", "top_words"})
        QVERIFY2(keys.contains(k), k);
    const ParamValues defaults = defaultValues(svi->params);
    QCOMPARE(getInt(defaults, "T"), std::int64_t(150));
    QCOMPARE(getInt(defaults, "K"), std::int64_t(15));
    QCOMPARE(getReal(defaults, "local_tol"), 1e-4);

    auto dense = std::make_shared<DenseData>();
    dense->values = MatrixRF::Zero(4, 3);
    dense->roles = MatrixRU8::Constant(4, 3, std::uint8_t(EntryRole::Observed));
    try {
        svi->make(DataSet(DenseDataPtr(dense)), defaults, 1);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("counts"), e.what());
    }

    const auto badGamma = resolveParams(svi->params, {{"gamma", 0.0}});
    QVERIFY(std::holds_alternative<ParamError>(badGamma));
    QCOMPARE(QString::fromStdString(std::get<ParamError>(badGamma).key), QString("gamma"));
    const auto badT = resolveParams(batch->params, {{"T", std::int64_t(0)}});
    QVERIFY(std::holds_alternative<ParamError>(badT));
    QCOMPARE(QString::fromStdString(std::get<ParamError>(badT).key), QString("T"));

    // Defaults (with a small truncation) build working trainers on counts; batch declares no
    // step-size fields; sort_topics off is honoured.
    const CountDataPtr data = smallCorpus(30, 15, 2);
    ParamValues values = defaultValues(batch->params);
    values["T"] = std::int64_t(6);
    values["K"] = std::int64_t(3);
    values["sort_topics"] = false;
    auto trainer = batch->make(DataSet(data), values, 1);
    QCOMPARE(trainer->itemsPerStep(), std::int64_t(30));
    trainer->step(1);
    QVERIFY(!trainer->diverged());
    QVERIFY(std::isfinite(trainer->evaluate(false).elbo));
    for (const ParamSpec& p : batch->params)
        QVERIFY(p.key != "kappa" && p.key != "minibatch");
    QVERIFY(!HdpOptions::fromParams(values).sortTopics);

    // The smallest truncations (no sticks at either level) are valid models.
    HdpOptions tiny;
    tiny.T = 1;
    tiny.K = 1;
    HdpTrainer one(data, HdpAlgorithm::Batch, tiny, 1);
    one.step(1);
    QVERIFY(!one.diverged());
    QCOMPARE(one.expectedSticks()[0], 1.0);
    QVERIFY(std::isfinite(one.evaluate(false).elbo));
}

QTEST_GUILESS_MAIN(TestHdp)
#include "test_hdp.moc"
