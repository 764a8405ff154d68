// LDA's variational updates (Hoffman et al. 2013), checked against independent computations:
// Boost.Math for ψ, brute force for the assignment, the γ update equation at the local fixed
// point, finite differences of the ELBO (in γ, and in λ against the natural gradient λ̂ − λ),
// the batch update written out term by term, and monotone batch ELBOs. Fitting (recovery of
// planted topics, document completion, threads, options, the registry): test_lda_fit.cpp.

#include "core/math/assignment.h"
#include "core/math/random.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/models/lda/lda_trainer.h"
#include "core/models/topics/topic_model.h"
#include "tests/core/topic_testing.h"

#include <QtTest>
#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <numeric>

using namespace svi;
using namespace topic_testing;
using lda::LocalWorkspace;
using lda::MatrixRD;

namespace {

MatrixRD expElogBeta(const MatrixRD& lambdaT)
{
    MatrixRD out;
    lda::expElogBetaT(lambdaT, lda::topicTotals(lambdaT), out);
    return out;
}

double maxRelDiff(const MatrixRD& a, const MatrixRD& b)
{
    return ((a - b).array().abs() / b.array().abs().max(1.0)).maxCoeff();
}

// The batch target η + scale · Σ_d n_dw φ_dw over `rows`, written with the dense statistics.
MatrixRD denseTarget(const CountData& data, const std::vector<std::int64_t>& rows,
                     const MatrixRD& lambdaT, const LdaOptions& o, MatrixRD* statsOut = nullptr)
{
    const MatrixRD eb = expElogBeta(lambdaT);
    LocalWorkspace ws;
    ws.resize(o.K, data.vocabularySize);
    MatrixRD stats = MatrixRD::Zero(lambdaT.rows(), lambdaT.cols());
    for (std::int64_t r : rows) {
        ws.gather(eb, data.train.rowCols(r), data.train.rowCounts(r));
        lda::localStep(ws, {o.alphaValue(), o.localIters, o.localTol});
        lda::addStatistics(ws, data.train.rowCols(r), stats);
    }
    if (statsOut)
        *statsOut = stats;
    return (stats.array() + o.eta).matrix();
}

} // namespace

class TestLda : public QObject
{
    Q_OBJECT

private slots:
    void digammaMatchesBoost();
    void expectationsMatchBoost();
    void assignmentMatchesBruteForce();
    void localStepReachesTheFixedPoint();
    void elboMatchesItsTermByTermDefinition();
    void documentElboGradientInGamma();
    void elboGradientInLambdaIsTheNaturalGradient();
    void fullStepEqualsTheBatchUpdate();
    void sviStepBlendsTheMinibatchTarget();
    void adaptiveStepBlendsWithItsRho();
    void batchElboNeverDecreases();
};

void TestLda::digammaMatchesBoost()
{
    double worst = 0.0, worstX = 0.0;
    for (double lx = -8.0; lx <= 8.0; lx += 0.001) {
        const double x = std::pow(10.0, lx);
        const double ref = boost::math::digamma(x);
        const double err = std::abs(lda::digamma(x) - ref) / std::max(1.0, std::abs(ref));
        if (err > worst) {
            worst = err;
            worstX = x;
        }
    }
    // Around the transition of the recurrence (x + 6) and near the root of ψ (1.4616…).
    for (double x : {1e-300, 1e-12, 0.5, 1.0, 1.4616321449683622, 2.0, 5.999, 6.0, 99999.0,
                     100000.0, 100001.0, 1e12, 1e300}) {
        const double ref = boost::math::digamma(x);
        const double err = std::abs(lda::digamma(x) - ref) / std::max(1.0, std::abs(ref));
        if (err > worst) {
            worst = err;
            worstX = x;
        }
    }
    qInfo("digamma: worst error %.3g at x = %.6g", worst, worstX);
    QVERIFY2(worst < 1e-12, qPrintable(QString("error %1 at x = %2").arg(worst).arg(worstX)));
    QVERIFY(std::isnan(lda::digamma(0.0)));
    QVERIFY(std::isnan(lda::digamma(-1.0)));
    // The array form agrees with the scalar form, including a length that is not a multiple
    // of the slice.
    std::vector<double> xs(200), out(200);
    for (std::size_t i = 0; i < xs.size(); ++i)
        xs[i] = 0.001 + 0.37 * double(i);
    lda::digamma(xs.data(), out.data(), Eigen::Index(xs.size()));
    for (std::size_t i = 0; i < xs.size(); ++i)
        QCOMPARE(out[i], lda::digamma(xs[i]));
}

void TestLda::expectationsMatchBoost()
{
    const int V = 700, K = 5; // more than one block of words
    const MatrixRD lambdaT = someLambda(V, K, 3, 0.001, 50.0);
    const Eigen::VectorXd totals = lda::topicTotals(lambdaT);
    MatrixRD eb;
    lda::expElogBetaT(lambdaT, totals, eb);
    for (int k = 0; k < K; ++k) {
        QVERIFY(std::abs(totals[k] - lambdaT.col(k).sum()) < 1e-9 * totals[k]);
        for (int w = 0; w < V; ++w) {
            const double ref = std::exp(boost::math::digamma(lambdaT(w, k)) -
                                        boost::math::digamma(lambdaT.col(k).sum()));
            QVERIFY2(
                std::abs(eb(w, k) - ref) <= 1e-10 * ref,
                qPrintable(QString("(%1, %2): %3 vs %4").arg(w).arg(k).arg(eb(w, k)).arg(ref)));
        }
    }
    Eigen::VectorXd gamma(4), out(4);
    gamma << 0.01, 0.7, 3.0, 120.0;
    lda::dirichletExpectation(gamma, out);
    for (int k = 0; k < 4; ++k)
        QVERIFY(std::abs(out[k] - (boost::math::digamma(gamma[k]) -
                                   boost::math::digamma(gamma.sum()))) < 1e-11);
}

void TestLda::assignmentMatchesBruteForce()
{
    Rng rng(5);
    for (int trial = 0; trial < 30; ++trial) {
        const int n = 1 + int(rng.below(6));
        const int m = n + int(rng.below(3));
        Eigen::MatrixXd cost(n, m);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < m; ++j)
                cost(i, j) =
                    trial % 3 == 0 ? double(rng.below(4)) : rng.normal(); // ties, negatives
        const std::vector<int> got = minCostAssignment(cost);
        double gotCost = 0.0;
        std::vector<int> seen;
        for (int i = 0; i < n; ++i) {
            gotCost += cost(i, got[std::size_t(i)]);
            seen.push_back(got[std::size_t(i)]);
        }
        std::sort(seen.begin(), seen.end());
        QVERIFY(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
        // Brute force over the columns' permutations (the first n of each).
        std::vector<int> perm(static_cast<std::size_t>(m));
        std::iota(perm.begin(), perm.end(), 0);
        double best = std::numeric_limits<double>::infinity();
        do {
            double c = 0.0;
            for (int i = 0; i < n; ++i)
                c += cost(i, perm[std::size_t(i)]);
            best = std::min(best, c);
        } while (std::next_permutation(perm.begin(), perm.end()));
        QVERIFY2(std::abs(gotCost - best) < 1e-12,
                 qPrintable(QString("%1 vs %2").arg(gotCost).arg(best)));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, minCostAssignment(Eigen::MatrixXd::Zero(3, 2)));
}

// (a) At convergence γ satisfies its own update equation γ = α + Σ_w n_w φ_w with φ computed
// from that γ, and every φ_w is a distribution.
void TestLda::localStepReachesTheFixedPoint()
{
    const int V = 40, K = 6;
    const MatrixRD eb = expElogBeta(someLambda(V, K, 11));
    const CountDataPtr data = smallCorpus(3, V, 12);
    LocalWorkspace ws;
    ws.resize(K, V);
    const double alpha = 0.3;
    for (std::int64_t r = 0; r < data->rows(); ++r) {
        ws.gather(eb, data->train.rowCols(r), data->train.rowCounts(r));
        lda::localStep(ws, {alpha, 10000, 1e-13});
        QVERIFY2(ws.iterations < 10000, "no convergence");
        const MatrixRD phi = lda::phi(ws);
        QVERIFY(((phi.rowwise().sum().array() - 1.0).abs() < 1e-12).all());
        QVERIFY((phi.array() >= 0.0).all());
        const Eigen::VectorXd implied =
            (alpha + (phi.transpose() * ws.counts.head(ws.n)).array()).matrix();
        const double err = (implied - ws.gamma).cwiseAbs().maxCoeff();
        QVERIFY2(err < 1e-10, qPrintable(QString("|γ − (α + Σ n φ)| = %1").arg(err)));
        // Σ_k (γ_k − α) = number of words.
        QVERIFY(std::abs((ws.gamma.array() - alpha).sum() - data->train.rowTotal(r)) < 1e-9);
    }
    // With Hoffman's tolerance the loop stops once the mean change falls below it.
    ws.gather(eb, data->train.rowCols(0), data->train.rowCounts(0));
    lda::localStep(ws, {alpha, 1000, 1e-3});
    QVERIFY(ws.meanChange < 1e-3);
    QVERIFY(ws.iterations > 1);
    // One iteration at most: stops after one update whatever the change.
    lda::localStep(ws, {alpha, 1, 1e-3});
    QCOMPARE(ws.iterations, 1);
}

// The closed forms of the ELBO against its definition written term by term with an explicit φ:
// a document's E[log p(θ | α)] + E[log p(z | θ)] + E[log p(w | z, β)] − E[log q(θ)] − E[log q(z)]
// at φ = φ*(γ), and the global −Σ_k KL(Dir(λ_k) ‖ Dir(η)). Catches errors in the constants,
// which no gradient sees.
void TestLda::elboMatchesItsTermByTermDefinition()
{
    using boost::math::digamma;
    using boost::math::lgamma;
    const int V = 25, K = 4;
    const double alpha = 0.35, eta = 0.05;
    const MatrixRD lambdaT = someLambda(V, K, 41);
    const MatrixRD eb = expElogBeta(lambdaT);
    const CountDataPtr data = smallCorpus(1, V, 42);
    LocalWorkspace ws;
    ws.resize(K, V);
    const auto words = data->train.rowCols(0);
    ws.gather(eb, words, data->train.rowCounts(0));
    ws.gamma << 2.0, 0.4, 5.5, 1.1;
    const double closed = lda::documentElbo(ws, alpha);
    const MatrixRD phi = lda::phi(ws);

    const double gsum = ws.gamma.sum();
    Eigen::VectorXd elogTheta(K);
    for (int k = 0; k < K; ++k)
        elogTheta[k] = digamma(ws.gamma[k]) - digamma(gsum);
    double def =
        lgamma(K * alpha) - K * lgamma(alpha) + (alpha - 1.0) * elogTheta.sum(); // E log p(θ)
    def -= lgamma(gsum);                                                         // −E log q(θ)
    for (int k = 0; k < K; ++k)
        def += lgamma(ws.gamma[k]) - (ws.gamma[k] - 1.0) * elogTheta[k];
    for (Eigen::Index i = 0; i < ws.n; ++i) {
        const int w = words[std::size_t(i)];
        for (int k = 0; k < K; ++k) {
            const double elogBeta = digamma(lambdaT(w, k)) - digamma(lambdaT.col(k).sum());
            const double f = phi(i, k);
            def += ws.counts[i] * f * (elogTheta[k] + elogBeta - std::log(f)); // z, w, −q(z)
        }
    }
    QVERIFY2(
        std::abs(closed - def) < 1e-9 * std::abs(def),
        qPrintable(
            QString("closed form %1, definition %2").arg(closed, 0, 'g', 15).arg(def, 0, 'g', 15)));

    double global = 0.0;
    for (int k = 0; k < K; ++k) {
        const double total = lambdaT.col(k).sum();
        double kl = lgamma(total) - lgamma(V * eta) + V * lgamma(eta);
        for (int w = 0; w < V; ++w)
            kl += -lgamma(lambdaT(w, k)) +
                  (lambdaT(w, k) - eta) * (digamma(lambdaT(w, k)) - digamma(total));
        global -= kl;
    }
    const double got = lda::globalElbo(lambdaT, eta);
    QVERIFY2(std::abs(got - global) < 1e-9 * std::abs(global),
             qPrintable(QString("%1 vs %2").arg(got, 0, 'g', 15).arg(global, 0, 'g', 15)));
    QVERIFY(global < 0.0); // −KL
}

// (d) The document ELBO as a function of γ (φ maximised out): its finite-difference gradient
// matches the closed form ψ'(γ_k)(α + Σ_w n_w φ_wk − γ_k) − ψ'(Σγ) Σ_j (α + Σ_w n_w φ_wj − γ_j)
// (Blei et al. 2003, appendix A) at an arbitrary γ, and vanishes at the local optimum.
void TestLda::documentElboGradientInGamma()
{
    const int V = 30, K = 4;
    const MatrixRD eb = expElogBeta(someLambda(V, K, 21));
    const CountDataPtr data = smallCorpus(1, V, 22);
    const double alpha = 0.2;
    LocalWorkspace ws;
    ws.resize(K, V);
    ws.gather(eb, data->train.rowCols(0), data->train.rowCounts(0));

    auto elboAt = [&](const Eigen::VectorXd& g) {
        ws.gamma = g;
        return lda::documentElbo(ws, alpha);
    };
    auto check = [&](const Eigen::VectorXd& g, bool optimum) {
        ws.gamma = g;
        lda::refreshTheta(ws);
        const MatrixRD phi = lda::phi(ws);
        const Eigen::VectorXd r =
            (alpha + (phi.transpose() * ws.counts.head(ws.n)).array()).matrix() - g;
        const double tg = boost::math::trigamma(g.sum());
        for (int k = 0; k < K; ++k) {
            const double analytic = boost::math::trigamma(g[k]) * r[k] - tg * r.sum();
            const double h = 1e-5 * g[k];
            Eigen::VectorXd up = g, down = g;
            up[k] += h;
            down[k] -= h;
            const double fd = (elboAt(up) - elboAt(down)) / (2.0 * h);
            QVERIFY2(std::abs(fd - analytic) < 1e-5 * (1.0 + std::abs(analytic)),
                     qPrintable(QString("k = %1: finite difference %2, closed form %3")
                                    .arg(k)
                                    .arg(fd)
                                    .arg(analytic)));
            if (optimum)
                QVERIFY2(std::abs(fd) < 1e-5,
                         qPrintable(QString("k = %1: gradient %2 at the optimum").arg(k).arg(fd)));
            else
                QVERIFY(std::abs(analytic) > 1e-3); // the check is not vacuous
        }
    };
    Eigen::VectorXd g(K);
    g << 3.0, 0.5, 7.0, 1.5;
    check(g, false);
    lda::localStep(ws, {alpha, 10000, 1e-13});
    check(ws.gamma, true);
}

// (d) The full ELBO (global term + every document's term at fixed γ_d, φ maximised out) has
// the gradient ∂L/∂λ_kw = ψ'(λ_kw)(λ̂_kw − λ_kw) − ψ'(Σ_v λ_kv) Σ_v (λ̂_kv − λ_kv) with
// λ̂ = η + Σ_d n_dw φ_dwk: the Fisher information of q(β_k) times λ̂ − λ, i.e. λ̂ − λ is the
// natural gradient that the SVI step follows (Hoffman et al. 2013, Sec. 6).
void TestLda::elboGradientInLambdaIsTheNaturalGradient()
{
    const int V = 12, K = 3;
    const double alpha = 0.4, eta = 0.3;
    const CountDataPtr data = smallCorpus(15, V, 31);
    const MatrixRD lambdaT = someLambda(V, K, 32);
    // Fixed, arbitrary γ_d.
    Rng rng(33);
    MatrixRD gammas(data->rows(), K);
    for (Eigen::Index i = 0; i < gammas.size(); ++i)
        gammas.data()[i] = 0.5 + 4.0 * rng.uniform();
    LocalWorkspace ws;
    ws.resize(K, V);
    auto elbo = [&](const MatrixRD& l, MatrixRD* stats) {
        const MatrixRD eb = expElogBeta(l);
        double s = lda::globalElbo(l, eta);
        for (std::int64_t d = 0; d < data->rows(); ++d) {
            ws.gather(eb, data->train.rowCols(d), data->train.rowCounts(d));
            ws.gamma = gammas.row(d).transpose();
            s += lda::documentElbo(ws, alpha);
            if (stats)
                lda::addStatistics(ws, data->train.rowCols(d), *stats);
        }
        return s;
    };
    MatrixRD stats = MatrixRD::Zero(V, K);
    elbo(lambdaT, &stats);
    const MatrixRD diff = (stats.array() + eta).matrix() - lambdaT; // λ̂ − λ
    const Eigen::VectorXd totals = lambdaT.colwise().sum().transpose();
    int checked = 0;
    for (int w = 0; w < V; w += 3)
        for (int k = 0; k < K; ++k) {
            const double analytic = boost::math::trigamma(lambdaT(w, k)) * diff(w, k) -
                                    boost::math::trigamma(totals[k]) * diff.col(k).sum();
            const double h = 1e-5 * lambdaT(w, k);
            MatrixRD up = lambdaT, down = lambdaT;
            up(w, k) += h;
            down(w, k) -= h;
            const double fd = (elbo(up, nullptr) - elbo(down, nullptr)) / (2.0 * h);
            QVERIFY2(
                std::abs(fd - analytic) < 1e-5 * (1.0 + std::abs(analytic)),
                qPrintable(QString("(w %1, k %2): finite difference %3, natural-gradient form %4")
                               .arg(w)
                               .arg(k)
                               .arg(fd)
                               .arg(analytic)));
            ++checked;
        }
    QVERIFY(checked >= 12);
}

// (c) An SVI step with ρ = 1 (τ0 = 0, t = 1) and the whole corpus as its minibatch, and a batch
// VB step, both equal λ = η + Σ_d n_dw φ_dw computed document by document with dense statistics.
void TestLda::fullStepEqualsTheBatchUpdate()
{
    const LdaSynthetic s = plantedCorpus(4);
    LdaOptions o;
    o.K = 6;
    o.minibatch = s.data->trainingRowCount();
    o.tau0 = 0.0;
    LdaTrainer svi(s.data, LdaAlgorithm::Svi, o, 9);
    LdaTrainer batch(s.data, LdaAlgorithm::Batch, o, 9);
    QCOMPARE(svi.lambdaT(), batch.lambdaT()); // the same seeded initialisation
    const MatrixRD expected = denseTarget(*s.data, s.data->trainingRows(), svi.lambdaT(), o);
    QCOMPARE(svi.step(1), 1.0);
    QCOMPARE(batch.step(1), 1.0);
    QCOMPARE(batch.itemsPerStep(), s.data->trainingRowCount());
    QCOMPARE(svi.itemsPerStep(), s.data->trainingRowCount());
    const double errSvi = maxRelDiff(svi.lambdaT(), expected);
    const double errBatch = maxRelDiff(batch.lambdaT(), expected);
    qInfo("relative difference from the dense batch update: svi %.3g, batch %.3g", errSvi,
          errBatch);
    QVERIFY2(errSvi < 1e-10, qPrintable(QString::number(errSvi)));
    QVERIFY2(errBatch < 1e-10, qPrintable(QString::number(errBatch)));
    // The batch algorithm's second step is again the full update (ρ = 1) from the new λ.
    const MatrixRD expected2 = denseTarget(*s.data, s.data->trainingRows(), batch.lambdaT(), o);
    QCOMPARE(batch.step(2), 1.0);
    QVERIFY(maxRelDiff(batch.lambdaT(), expected2) < 1e-10);
}

// Fig. 6, lines 10–11 with a minibatch: λ ← (1 − ρ_t)λ + ρ_t(η + (D/|B|) Σ_{d∈B} n_dw φ_dw).
// The trainer holds λ lazily (lda::Blend) and writes it out once Π(1 − ρ_t) < 1e-6, near step
// 180 here: every step of 250 is checked against the blend written out.
void TestLda::sviStepBlendsTheMinibatchTarget()
{
    const LdaSynthetic s = plantedCorpus(5);
    LdaOptions o;
    o.K = 7;
    o.minibatch = 64;
    o.kappa = 0.6;
    o.tau0 = 10.0;
    LdaTrainer t(s.data, LdaAlgorithm::Svi, o, 2);
    for (std::int64_t step = 1; step <= 250; ++step) {
        const MatrixRD before = t.lambdaT();
        const double rho = t.step(step);
        QCOMPARE(rho, std::pow(double(step) + o.tau0, -o.kappa));
        const std::vector<std::int64_t> batch = t.lastBatch();
        QCOMPARE(std::int64_t(batch.size()), o.minibatch);
        for (std::int64_t r : batch)
            QVERIFY(!s.data->isTestRow(r)); // test documents never train
        MatrixRD stats;
        denseTarget(*s.data, batch, before, o, &stats);
        MatrixRD expected = before;
        lda::blendTopics(expected, stats, o.eta,
                         double(s.data->trainingRowCount()) / double(batch.size()), rho);
        const double err = maxRelDiff(t.lambdaT(), expected);
        QVERIFY2(err < 1e-10, qPrintable(QString("step %1: %2").arg(step).arg(err)));
    }
    // Evaluated from the lazy λ, the same as from λ written out: the bound, document
    // completion and the preview's word probabilities.
    LdaTrainer eager(s.data, LdaAlgorithm::Svi, o, 2);
    eager.setLambdaT(t.lambdaT());
    const Evaluation lazy = t.evaluate(true), written = eager.evaluate(true);
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-10 * std::abs(b); };
    QVERIFY2(near(lazy.elbo, written.elbo),
             qPrintable(QString("ELBO %1 against %2").arg(lazy.elbo).arg(written.elbo)));
    for (const char* key : {"heldout_loglik_per_word", "perplexity"})
        QVERIFY2(near(lazy.metrics.at(key), written.metrics.at(key)), key);
    QCOMPARE(lazy.preview->topics.size(), written.preview->topics.size());
    for (std::size_t i = 0; i < lazy.preview->topics.size(); ++i)
        for (std::size_t j = 0; j < lazy.preview->topics[i].probs.size(); ++j)
            QVERIFY(near(lazy.preview->topics[i].probs[j], written.preview->topics[i].probs[j]));
}

// With the adaptive schedule the step is still the blend (1 − ρ)λ + ρλ̂ of Fig. 6, with the ρ
// the schedule chose; ρ stays in (0, 1] and drops below 1 once the warm-up's noise is seen.
void TestLda::adaptiveStepBlendsWithItsRho()
{
    const LdaSynthetic s = plantedCorpus(5);
    LdaOptions o;
    o.K = 7;
    o.minibatch = 64;
    o.schedule = StepSchedule::Adaptive;
    o.adaptiveInit = 3;
    LdaTrainer t(s.data, LdaAlgorithm::Svi, o, 2);
    double last = 1.0;
    for (std::int64_t step = 1; step <= 4; ++step) {
        // The warm-up (first step) draws minibatches but does not move λ: `before` is λ_t.
        const MatrixRD before = t.lambdaT();
        const double rho = t.step(step);
        QVERIFY(rho > 0.0 && rho <= 1.0);
        last = rho;
        MatrixRD stats;
        denseTarget(*s.data, t.lastBatch(), before, o, &stats);
        MatrixRD expected = before;
        lda::blendTopics(expected, stats, o.eta,
                         double(s.data->trainingRowCount()) / double(t.lastBatch().size()), rho);
        const double err = maxRelDiff(t.lambdaT(), expected);
        QVERIFY2(err < 1e-10, qPrintable(QString("step %1: %2").arg(step).arg(err)));
    }
    QVERIFY(last < 1.0);
}

// (b) Batch VB is coordinate ascent on the exact full-data ELBO
//   L(λ, γ_1..D) = −KL(q(β) ‖ p(β)) + Σ_d L_d(γ_d, φ*_d; λ)
// and neither half of a step lowers it: the trainer's λ update (the M-step: λ = η + Σ n φ, with
// φ from the γ_t its local steps found) gives L(λ_{t+1}, γ_t) ≥ L(λ_t, γ_t), and local steps
// warm-started from γ_t give L(λ_{t+1}, γ_{t+1}) ≥ L(λ_{t+1}, γ_t), document by document. The
// trainer restarts every local step from γ = 1 (Fig. 6, line 5), and a restart can end in a
// worse local optimum of a document than the warm start (with this corpus, at step 21 one
// document loses 0.36 nats that way); evaluate(true) reports that restarted ELBO, which must
// equal L(λ_t, γ_t) here and rise overall.
void TestLda::batchElboNeverDecreases()
{
    LdaSyntheticOptions so;
    so.documents = 300;
    so.V = 80;
    so.K = 5;
    so.wordsPerDocument = 60;
    so.testFraction = 0.0;
    so.seed = 12;
    const LdaSynthetic s = makeLdaSynthetic(so);
    const CountData& data = *s.data;
    LdaOptions o;
    o.K = 5;
    o.localIters = 5000;
    o.localTol = 1e-10;
    LdaTrainer t(s.data, LdaAlgorithm::Batch, o, 12);
    const double alpha = t.alpha();
    LocalWorkspace ws;
    ws.resize(o.K, so.V);
    const std::int64_t D = data.rows();
    MatrixRD gammas(D, o.K);
    // Σ_d L_d at λ (eβ given) with each document's γ: from a restart (fresh), from gammas
    // (held), or warm-started from gammas (warm); fresh and warm store the new γ in gammas.
    enum class Local { Fresh, Held, Warm };
    auto documents = [&](const MatrixRD& eb, Local mode, double* worstDrop = nullptr) {
        double sum = 0.0;
        for (std::int64_t d = 0; d < D; ++d) {
            ws.gather(eb, data.train.rowCols(d), data.train.rowCounts(d));
            if (mode == Local::Fresh) {
                lda::localStep(ws, {alpha, o.localIters, o.localTol});
            } else {
                ws.gamma = gammas.row(d).transpose();
                if (mode == Local::Warm) {
                    const double before = lda::documentElbo(ws, alpha);
                    lda::localStep(ws, {alpha, o.localIters, o.localTol, true});
                    *worstDrop = std::max(*worstDrop, before - lda::documentElbo(ws, alpha));
                }
            }
            gammas.row(d) = ws.gamma.transpose();
            sum += lda::documentElbo(ws, alpha);
        }
        return sum;
    };
    double fresh = lda::globalElbo(t.lambdaT(), o.eta) + documents(t.expElogBetaT(), Local::Fresh);
    const double first = fresh;
    double worstDrop = 0.0;
    for (std::int64_t step = 1; step <= 30; ++step) {
        const double reported = t.evaluate(true).elbo;
        QVERIFY2(std::abs(reported - fresh) < 1e-9 * std::abs(fresh),
                 qPrintable(QString("step %1: evaluate(true) %2, exact %3")
                                .arg(step)
                                .arg(reported, 0, 'g', 15)
                                .arg(fresh, 0, 'g', 15)));
        t.step(step); // its local steps find the γ_t now in `gammas` (same code, same eβ)
        const double global = lda::globalElbo(t.lambdaT(), o.eta);
        const double afterM = global + documents(t.expElogBetaT(), Local::Held);
        QVERIFY2(afterM >= fresh - 1e-10 * std::abs(fresh),
                 qPrintable(QString("step %1, λ update: %2 → %3")
                                .arg(step)
                                .arg(fresh, 0, 'g', 15)
                                .arg(afterM, 0, 'g', 15)));
        const double afterE = global + documents(t.expElogBetaT(), Local::Warm, &worstDrop);
        QVERIFY2(afterE >= afterM - 1e-10 * std::abs(afterM),
                 qPrintable(QString("step %1, local steps: %2 → %3")
                                .arg(step)
                                .arg(afterM, 0, 'g', 15)
                                .arg(afterE, 0, 'g', 15)));
        fresh = global + documents(t.expElogBetaT(), Local::Fresh);
    }
    qInfo("batch ELBO %.6g → %.6g; worst single-document drop of a warm-started local step %.2g",
          first, fresh, worstDrop);
    QVERIFY(worstDrop < 1e-9);
    QVERIFY(fresh > first + 0.05 * std::abs(first));
}

QTEST_GUILESS_MAIN(TestLda)
#include "test_lda.moc"
