// The correlated topic model (paper 002, Sec. 3.7): a document's summed-out word terms, their
// gradient and Hessian in η against finite differences and against the direct sum.

#include "core/math/gauss_hermite.h"
#include "core/math/random.h"
#include "core/models/ctm/ctm_math.h"
#include "core/models/ctm/ctm_trainer.h"

#include <Eigen/LU>
#include <QtTest>
#include <cmath>
#include <vector>

using namespace svi;

class TestCtm : public QObject
{
    Q_OBJECT

private slots:
    void documentTermsMatchFiniteDifferences()
    {
        const int K = 5, V = 9;
        Rng rng(3);
        MatrixRD beta(V, K); // each topic (column) a distribution over the words
        for (Eigen::Index k = 0; k < beta.size(); ++k)
            beta.data()[k] = 0.1 + rng.uniform();
        for (int k = 0; k < K; ++k)
            beta.col(k) /= beta.col(k).sum();
        const std::vector<std::int32_t> words{0, 3, 4, 8};
        const std::vector<float> counts{2, 1, 5, 3};
        Eigen::VectorXd eta(K - 1);
        eta << 0.4, -1.2, 2.0, 0.1;
        Eigen::VectorXd theta, r, grad = Eigen::VectorXd::Zero(K - 1);
        Eigen::MatrixXd hess = Eigen::MatrixXd::Zero(K - 1, K - 1);
        const double value = ctm::documentTerms(eta, words, counts, beta, grad, &hess, theta, r);

        // The value directly: Σ_n c_n log Σ_k θ_k β_kw with θ = softmax(η, 0).
        Eigen::VectorXd full(K);
        full << eta, 0.0;
        const Eigen::VectorXd th = full.array().exp() / full.array().exp().sum();
        QVERIFY(std::abs(th.sum() - 1.0) < 1e-12 && (theta - th).norm() < 1e-12);
        double direct = 0.0;
        for (std::size_t n = 0; n < words.size(); ++n)
            direct += counts[n] * std::log(th.dot(beta.row(words[n]).transpose()));
        QVERIFY(std::abs(value - direct) < 1e-12 * std::abs(direct));

        const double h = 1e-5;
        for (int j = 0; j < K - 1; ++j) {
            Eigen::VectorXd a = eta, b = eta, ga = Eigen::VectorXd::Zero(K - 1),
                            gb = Eigen::VectorXd::Zero(K - 1);
            a[j] += h;
            b[j] -= h;
            const double va = ctm::documentTerms(a, words, counts, beta, ga, nullptr, theta, r);
            const double vb = ctm::documentTerms(b, words, counts, beta, gb, nullptr, theta, r);
            QVERIFY2(
                std::abs((va - vb) / (2 * h) - grad[j]) < 1e-6 * (1 + std::abs(grad[j])),
                qPrintable(QString("∂%1: %2 vs %3").arg(j).arg(grad[j]).arg((va - vb) / (2 * h))));
            const Eigen::VectorXd column = (ga - gb) / (2 * h);
            QVERIFY2((column - hess.col(j)).norm() < 1e-5 * (1 + hess.norm()),
                     qPrintable(QString("∂²·%1").arg(j)));
        }
        QVERIFY((hess - hess.transpose()).norm() < 1e-12);
        // The diagonal alone, as diagonal q reads it.
        Eigen::VectorXd diag = Eigen::VectorXd::Zero(K - 1), g0 = Eigen::VectorXd::Zero(K - 1);
        ctm::documentTerms(eta, words, counts, beta, g0, nullptr, theta, r, &diag);
        QVERIFY((diag - hess.diagonal()).norm() < 1e-12 * hess.norm());
        // An extreme η keeps its digits (no overflow in the softmax).
        Eigen::VectorXd big = eta;
        big[2] = 800.0;
        Eigen::VectorXd g = Eigen::VectorXd::Zero(K - 1);
        QVERIFY(std::isfinite(ctm::documentTerms(big, words, counts, beta, g, nullptr, theta, r)));
        QVERIFY(g.allFinite());
    }

    // The importance-sampling estimate of log p(w | μ, Σ, β) against brute-force integration
    // over a fine grid, K = 3 topics (η in 2-D): from a proposal near the posterior (inflated by
    // 0.1 and by 1) and from the prior itself (a poor proposal: the estimate is low, by Jensen).
    void importanceSamplingMatchesIntegration()
    {
        const int K = 3, V = 4;
        MatrixRD beta(V, K);
        beta << 0.5, 0.1, 0.2, 0.3, 0.1, 0.2, 0.1, 0.6, 0.2, 0.1, 0.2, 0.4;
        const std::vector<std::int32_t> words{0, 1, 3};
        const std::vector<float> counts{4, 1, 2};
        Eigen::Vector2d mu(0.2, -0.3);
        Eigen::Matrix2d Sigma;
        Sigma << 1.0, 0.4, 0.4, 0.8;
        const Eigen::Matrix2d P = Sigma.inverse();
        const double logDet = std::log(Sigma.determinant());

        // ∫ p(w | η) N(η | μ, Σ) dη on [−12, 12]² with 1,201² points; and the posterior's moments.
        const int n = 1201;
        const double lo = -12, step = 24.0 / (n - 1);
        double total = 0.0;
        Eigen::Vector2d mean = Eigen::Vector2d::Zero();
        Eigen::Matrix2d second = Eigen::Matrix2d::Zero();
        Eigen::VectorXd theta, r, g(2);
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) {
                const Eigen::Vector2d eta(lo + a * step, lo + b * step);
                g.setZero();
                const double lik =
                    std::exp(ctm::documentTerms(eta, words, counts, beta, g, nullptr, theta, r));
                const Eigen::Vector2d dev = eta - mu;
                const double prior =
                    std::exp(-0.5 * dev.dot(P * dev)) / (2 * M_PI * std::sqrt(Sigma.determinant()));
                const double w = lik * prior * step * step;
                total += w;
                mean += w * eta;
                second += w * eta * eta.transpose();
            }
        const double exact = std::log(total);
        mean /= total;
        const Eigen::Matrix2d cov = second / total - mean * mean.transpose();

        for (double inflation : {0.1, 1.0}) {
            Rng rng(7);
            const double est = ctm::importanceLogLikelihood(words, counts, beta, mu, P, logDet,
                                                            mean, cov, inflation, 200000, rng);
            QVERIFY2(
                std::abs(est - exact) < 2e-3,
                qPrintable(QString("inflation %1: %2 vs %3").arg(inflation).arg(est).arg(exact)));
        }
        Rng rng(9);
        const double fromPrior = ctm::importanceLogLikelihood(words, counts, beta, mu, P, logDet,
                                                              mu, Sigma, 0.0, 200000, rng);
        QVERIFY2(std::abs(fromPrior - exact) < 5e-3,
                 qPrintable(QString("prior: %1 vs %2").arg(fromPrior).arg(exact)));
        // A narrow, misplaced proposal underestimates; inflated by 1 it recovers.
        Rng rescued(13);
        QVERIFY(std::abs(ctm::importanceLogLikelihood(words, counts, beta, mu, P, logDet,
                                                      Eigen::Vector2d(mean[0] + 1.5, mean[1]),
                                                      0.01 * cov, 1.0, 200000, rescued) -
                         exact) < 5e-3);
        Rng narrow(11);
        QVERIFY(ctm::importanceLogLikelihood(words, counts, beta, mu, P, logDet,
                                             Eigen::Vector2d(mean[0] + 1.5, mean[1]), 0.01 * cov,
                                             0.0, 2000, narrow) < exact - 0.05);
    }

    // A document's update with K = 2 (η scalar): the Monte Carlo estimates g and Γ against
    // 60-node quadrature of E_q[Σ c ξ′] and ½E_q[Σ c ξ″]; H-MC-SSVI's step at ρ = 1 sets
    // S⁻¹ = Σ⁻¹ − 2Γ (Γ ≤ 0 here, so the projection keeps it); and eq. 62's gradient in the
    // topics' logits against finite differences of the document's term, q collapsed to a point.
    void documentUpdateAndTopicGradient()
    {
        auto corpus = std::make_shared<CountData>();
        corpus->vocabularySize = 4;
        corpus->source = "tiny corpus";
        const std::vector<std::vector<std::pair<int, float>>> docs = {
            {{0, 3}, {2, 1}}, {{1, 2}, {3, 2}}, {{0, 1}, {1, 1}, {3, 4}}};
        for (const auto& doc : docs) {
            std::vector<std::int32_t> w;
            std::vector<float> c;
            for (auto [word, count] : doc) {
                w.push_back(word);
                c.push_back(count);
            }
            corpus->train.appendRow(w, c);
            corpus->heldOut.appendRow({}, {});
        }
        corpus->finalise();
        CtmOptions o;
        o.K = 2;
        o.samples = 40000;
        CtmTrainer tr(corpus, LgmAlgorithm::HybridMcSsvi, o, 3);
        tr.q(1).setMean(Eigen::VectorXd::Constant(1, 0.4));
        tr.q(1).setCovariance(Eigen::MatrixXd::Constant(1, 1, 0.3));
        const auto words = corpus->train.rowCols(1);
        const auto counts = corpus->train.rowCounts(1);
        const GaussHermite gh(60);
        Eigen::VectorXd theta, r;
        const auto derivative = [&](double eta, int order) {
            Eigen::VectorXd g = Eigen::VectorXd::Zero(1);
            Eigen::MatrixXd h = Eigen::MatrixXd::Zero(1, 1);
            ctm::documentTerms(Eigen::VectorXd::Constant(1, eta), words, counts, tr.topicsByWord(),
                               g, &h, theta, r);
            return order == 1 ? g[0] : h(0, 0);
        };
        const double g = gh.expect(0.4, 0.3, [&](double e) { return derivative(e, 1); });
        const double gamma = 0.5 * gh.expect(0.4, 0.3, [&](double e) { return derivative(e, 2); });
        tr.updateDocument(1, 1.0, 1, false);
        QVERIFY2(std::abs(tr.lastGradients().g[0] - g) < 0.02 * std::abs(g) + 1e-3,
                 qPrintable(QString("g %1 vs %2").arg(tr.lastGradients().g[0]).arg(g)));
        QVERIFY2(std::abs(tr.lastGradients().gammaDiag[0] - gamma) < 0.02 * std::abs(gamma),
                 qPrintable(QString("Γ %1 vs %2").arg(tr.lastGradients().gammaDiag[0]).arg(gamma)));
        QVERIFY(gamma < 0.0);
        const double precision = 1.0 - 2.0 * tr.lastGradients().gammaDiag[0]; // Σ = 1 to start
        QVERIFY(std::abs(1.0 / tr.q(1).variances()[0] - precision) < 1e-9 * precision);

        // Eq. 62 at a collapsed q: D · ∂/∂α of the document's term, by central differences of
        // its value under β = softmax α (here through log β, the logits as the trainer keeps
        // them normalised).
        tr.q(2).setMean(Eigen::VectorXd::Constant(1, -0.3));
        tr.q(2).setCovariance(Eigen::MatrixXd::Constant(1, 1, 1e-24));
        tr.updateDocument(2, 1.0, 2, false); // its draws, for the topics' gradient
        const Eigen::MatrixXd grad = tr.topicsGradient(tr.trainingRow(2));
        const MatrixRD beta = tr.topicsByWord();
        const auto value = [&](const Eigen::MatrixXd& alpha) { // alpha: K × V
            MatrixRD b(4, 2);
            for (int k = 0; k < 2; ++k) {
                const Eigen::RowVectorXd e = alpha.row(k).array().exp();
                b.col(k) = (e / e.sum()).transpose();
            }
            Eigen::VectorXd gg = Eigen::VectorXd::Zero(1);
            return 3.0 * ctm::documentTerms(Eigen::VectorXd::Constant(1, -0.3),
                                            corpus->train.rowCols(2), corpus->train.rowCounts(2), b,
                                            gg, nullptr, theta, r);
        };
        const Eigen::MatrixXd alpha = beta.transpose().array().log();
        for (int k = 0; k < 2; ++k)
            for (int u = 0; u < 4; ++u) {
                Eigen::MatrixXd a = alpha, b = alpha;
                a(k, u) += 1e-6;
                b(k, u) -= 1e-6;
                const double fd = (value(a) - value(b)) / 2e-6;
                QVERIFY2(
                    std::abs(grad(k, u) - fd) < 1e-5 * (1 + std::abs(fd)),
                    qPrintable(QString("α %1,%2: %3 vs %4").arg(k).arg(u).arg(grad(k, u)).arg(fd)));
            }
    }

    // A test document's log p(w | μ, Σ, β) (both halves, a word's counts added) against 1-D
    // integration over η (K = 2) under the trainer's globals.
    void testDocumentLikelihoodMatchesIntegration()
    {
        auto corpus = std::make_shared<CountData>();
        corpus->vocabularySize = 3;
        corpus->source = "tiny corpus";
        const auto add = [](SparseRows& rows, std::vector<std::int32_t> w, std::vector<float> c) {
            rows.appendRow(w, c);
        };
        add(corpus->train, {0, 1}, {3, 1});
        add(corpus->heldOut, {}, {});
        add(corpus->train, {1, 2}, {2, 2});
        add(corpus->heldOut, {}, {});
        add(corpus->train, {0, 2}, {1, 2});   // the test document: observed half …
        add(corpus->heldOut, {0, 1}, {2, 1}); // … and held-out half (word 0 in both)
        corpus->testRows = {2};
        corpus->finalise();
        CtmOptions o;
        o.K = 2;
        CtmTrainer tr(corpus, LgmAlgorithm::HybridMcSsvi, o, 5);
        for (std::int64_t t = 1; t <= 20; ++t)
            tr.step(t);
        const double mu = tr.prior().mean[0], var = 1.0 / tr.prior().precision(0, 0);
        const std::vector<std::int32_t> words{0, 1, 2};
        const std::vector<float> counts{3, 1, 2};
        Eigen::VectorXd theta, r, g(1);
        double total = 0.0;
        const int n = 200001;
        const double lo = mu - 12 * std::sqrt(var), step = 24 * std::sqrt(var) / (n - 1);
        for (int k = 0; k < n; ++k) {
            const double eta = lo + k * step;
            g.setZero();
            const double lik =
                std::exp(ctm::documentTerms(Eigen::VectorXd::Constant(1, eta), words, counts,
                                            tr.topicsByWord(), g, nullptr, theta, r));
            total += lik * std::exp(-0.5 * (eta - mu) * (eta - mu) / var) /
                     std::sqrt(2 * M_PI * var) * step;
        }
        const double est = tr.testLogLikelihood(2);
        QVERIFY2(std::abs(est - std::log(total)) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(est).arg(std::log(total))));
    }

    // The simple bound's terms (App. A.2): value hᵀL, gradient and Hessian (and its diagonal)
    // against finite differences.
    void simpleTermsMatchFiniteDifferences()
    {
        const int K = 4;
        const Eigen::Vector4d L(-3.0, -1.2, -7.5, -0.4);
        Eigen::VectorXd eta(K - 1);
        eta << 0.3, -0.8, 1.1;
        Eigen::VectorXd theta, g = Eigen::VectorXd::Zero(K - 1),
                               diag = Eigen::VectorXd::Zero(K - 1);
        Eigen::MatrixXd hess = Eigen::MatrixXd::Zero(K - 1, K - 1);
        const double v = ctm::simpleTerms(eta, L, g, &hess, &diag, theta);
        QVERIFY(std::abs(v - theta.dot(L)) < 1e-12);
        for (int j = 0; j < K - 1; ++j) {
            Eigen::VectorXd a = eta, b = eta, ga = Eigen::VectorXd::Zero(K - 1),
                            gb = Eigen::VectorXd::Zero(K - 1), t;
            a[j] += 1e-6;
            b[j] -= 1e-6;
            const double va = ctm::simpleTerms(a, L, ga, nullptr, nullptr, t);
            const double vb = ctm::simpleTerms(b, L, gb, nullptr, nullptr, t);
            QVERIFY(std::abs((va - vb) / 2e-6 - g[j]) < 1e-6);
            QVERIFY2(((ga - gb) / 2e-6 - hess.col(j)).norm() < 1e-5,
                     qPrintable(QString("column %1").arg(j)));
        }
        QVERIFY((diag - hess.diagonal()).norm() < 1e-12);
        QVERIFY((hess - hess.transpose()).norm() < 1e-12);
    }

    // The simple bound's topics (App. A.2): after a pass over the documents, β_k ∝ Σ_d c_dw
    // E_q[h_k(η_d)] (+ 0.01), E_q[h] by quadrature here (K = 2: η scalar); before the pass ends
    // they keep their start.
    void simpleBoundTopicsAreTheClosedForm()
    {
        auto corpus = std::make_shared<CountData>();
        corpus->vocabularySize = 4;
        corpus->source = "tiny corpus";
        const std::vector<std::vector<std::int32_t>> w = {{0, 2}, {1, 3}, {0, 1, 3}};
        const std::vector<std::vector<float>> c = {{3, 1}, {2, 2}, {1, 1, 4}};
        for (std::size_t d = 0; d < w.size(); ++d) {
            corpus->train.appendRow(w[d], c[d]);
            corpus->heldOut.appendRow({}, {});
        }
        corpus->finalise();
        CtmOptions o;
        o.K = 2;
        o.bound = CtmBound::Simple;
        o.samples = 100000;
        CtmTrainer tr(corpus, LgmAlgorithm::HybridMcSsvi, o, 4);
        const MatrixRD start = tr.topicsByWord();
        tr.step(1);
        tr.step(2);
        QVERIFY(tr.topicsByWord() == start);
        const GaussHermite gh(60);
        const auto check = [&] {
            // The topics are the running sums of the documents' E_q[h] exactly …
            const MatrixRD& theta = tr.documentTopicMeans();
            Eigen::MatrixXd sums = Eigen::MatrixXd::Constant(2, 4, 0.01);
            for (std::size_t d = 0; d < w.size(); ++d) {
                for (std::size_t n = 0; n < w[d].size(); ++n)
                    sums.col(w[d][n]) += c[d][n] * theta.row(Eigen::Index(d)).transpose();
                // … and those are E_q[h] of the documents' q (here by quadrature).
                const GaussianQ& q = tr.q(std::int64_t(d));
                const double h0 = gh.expect(q.mean()[0], q.variances()[0],
                                            [](double e) { return 1.0 / (1.0 + std::exp(-e)); });
                QVERIFY2(
                    std::abs(theta(Eigen::Index(d), 0) - h0) < 0.005,
                    qPrintable(QString("E[h] %1 vs %2").arg(theta(Eigen::Index(d), 0)).arg(h0)));
            }
            for (int k = 0; k < 2; ++k)
                for (int v = 0; v < 4; ++v) {
                    const double expected = sums(k, v) / sums.row(k).sum();
                    QVERIFY2(std::abs(tr.topicsByWord()(v, k) - expected) < 1e-12,
                             qPrintable(QString("β %1,%2: %3 vs %4")
                                            .arg(k)
                                            .arg(v)
                                            .arg(tr.topicsByWord()(v, k))
                                            .arg(expected)));
                }
        };
        tr.step(3);
        check();
        // A second pass: each document's old E_q[h] leaves the sums as its new one enters.
        for (std::int64_t t = 4; t <= 6; ++t) {
            const Eigen::VectorXd before = tr.q((t - 1) % 3).mean();
            tr.step(t);
            QVERIFY(tr.q((t - 1) % 3).mean() != before);
            check();
        }
    }
};

QTEST_GUILESS_MAIN(TestCtm)
#include "test_ctm.moc"
