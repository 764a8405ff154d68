// Mimno-SVI's sampled local step for LDA (lda_gibbs.h): the sparse two-bucket draw against the
// dense conditional it stands for (a chi-square test over many draws), and a document's chain
// against the enumerated posterior of its tokens' topics, and Mimno-SVI's full-data step at
// ρ = 1 against batch VB's.

#include "core/models/lda/lda_gibbs.h"
#include "core/models/lda/lda_trainer.h"
#include "tests/core/topic_testing.h"

#include <QtTest>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <vector>

using namespace svi;
using lda::MatrixRD;

namespace {

// eβ (V×K) with spread-out positive entries.
MatrixRD randomExpElogBeta(int V, int K, std::uint64_t seed)
{
    Rng rng(seed);
    MatrixRD e(V, K);
    for (Eigen::Index i = 0; i < e.size(); ++i)
        e.data()[i] = std::exp(-3.0 * rng.uniform());
    return e;
}

} // namespace

class TestLdaGibbs : public QObject
{
    Q_OBJECT

private slots:
    // The draw with N_d· fixed (one token out of a document in mid-chain): 200,000 draws
    // against p(k) ∝ (α + N_dk) eβ_wk, with topics in use and out of it, by Pearson's
    // chi-square at a 10⁻⁶ false-alarm rate.
    void sparseDrawIsTheDenseConditional()
    {
        const int K = 12, V = 3;
        const MatrixRD e = randomExpElogBeta(V, K, 5);
        lda::WordBuckets buckets;
        const std::vector<std::int32_t> words = {0, 1, 2};
        buckets.build(e, words);
        lda::GibbsWorkspace ws;
        ws.resize(K);
        const std::vector<int> assigned = {3, 3, 3, 7, 0, 11, 11, 3, 5};
        ws.reset(std::int64_t(assigned.size()));
        for (std::size_t i = 0; i < assigned.size(); ++i)
            ws.add(std::int64_t(i), assigned[i]);
        ws.remove(4); // topic 0 falls out of use
        const double alpha = 0.3;
        const std::int32_t w = 1;
        std::vector<double> p(K);
        double total = 0.0;
        for (int k = 0; k < K; ++k)
            total += p[std::size_t(k)] = (alpha + ws.count[std::size_t(k)]) * e(w, k);
        const int n = 200000;
        std::vector<double> seen(K, 0.0);
        Rng rng(17);
        for (int s = 0; s < n; ++s)
            seen[std::size_t(lda::drawTopic(ws, e.row(w).data(), buckets, w, alpha, rng))] += 1;
        double chi2 = 0.0;
        for (int k = 0; k < K; ++k) {
            const double expected = n * p[std::size_t(k)] / total;
            chi2 +=
                (seen[std::size_t(k)] - expected) * (seen[std::size_t(k)] - expected) / expected;
        }
        const boost::math::chi_squared dist(K - 1);
        const double critical = boost::math::quantile(boost::math::complement(dist, 1e-6));
        qInfo("sparse draw: chi-square %.2f over %d topics (critical %.2f)", chi2, K, critical);
        QVERIFY2(chi2 < critical, qPrintable(QString::number(chi2)));
        QCOMPARE(ws.count[0], 0);
        QVERIFY(std::find(ws.inUse.begin(), ws.inUse.end(), 0) == ws.inUse.end());
    }

    // Three tokens (words 0, 1, 1), K = 2: the chain's kept assignments against the exact
    // posterior p(z) ∝ Π_k Γ(α + N_k) Π_i eβ_{w_i z_i} (θ summed out), enumerated over the 8
    // states: each token's marginal p(z_i = k) within Monte Carlo error.
    void chainMatchesTheEnumeratedPosterior()
    {
        const int K = 2;
        const MatrixRD e = randomExpElogBeta(2, K, 9);
        lda::WordBuckets buckets;
        const std::vector<std::int32_t> words = {0, 1};
        const std::vector<float> counts = {1.0f, 2.0f};
        buckets.build(e, words);
        const double alpha = 0.5;
        const int tokens = 3;
        const int tokenWord[tokens] = {0, 1, 1};
        // Exact: marginal of token 0 in topic 0, and of a word-1 token in topic 0.
        double mass = 0.0, first = 0.0, second = 0.0;
        for (int state = 0; state < 8; ++state) {
            int z[tokens], n[K] = {0, 0};
            double weight = 1.0;
            for (int i = 0; i < tokens; ++i) {
                z[i] = (state >> i) & 1;
                ++n[z[i]];
                weight *= e(tokenWord[i], z[i]);
            }
            for (int k = 0; k < K; ++k)
                weight *= boost::math::tgamma(alpha + n[k]);
            mass += weight;
            first += z[0] == 0 ? weight : 0.0;
            second += (z[1] == 0 ? 0.5 * weight : 0.0) + (z[2] == 0 ? 0.5 * weight : 0.0);
        }
        first /= mass;
        second /= mass;
        lda::GibbsWorkspace ws;
        ws.resize(K);
        std::vector<lda::WordTopic> out;
        Rng rng(3);
        const int kept = 200000;
        lda::sampleDocument(ws, words, counts, e, buckets, alpha, 10, kept, rng, out);
        QCOMPARE(std::int64_t(out.size()), std::int64_t(kept) * tokens);
        double sampledFirst = 0.0, sampledSecond = 0.0;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i].word == 0)
                sampledFirst += out[i].topic == 0 ? 1.0 : 0.0;
            else
                sampledSecond += out[i].topic == 0 ? 0.5 : 0.0;
        }
        sampledFirst /= kept;
        sampledSecond /= kept;
        qInfo("p(z = 0): word 0 %.4f sampled %.4f; word 1 %.4f sampled %.4f", first, sampledFirst,
              second, sampledSecond);
        // Sweeps are correlated; 0.01 is several standard errors of 200,000 of them.
        QVERIFY2(std::abs(sampledFirst - first) < 0.01, qPrintable(QString::number(first)));
        QVERIFY2(std::abs(sampledSecond - second) < 0.01, qPrintable(QString::number(second)));
    }

    // One step over every training document at ρ = 1 (scale 1) from the same λ (the planted
    // topics, sharpened), with many kept sweeps: Mimno-SVI's λ = η + S, S the sampled counts,
    // against batch VB's η + Σ n φ. The two local steps differ (θ summed out against q(θ)), so
    // they agree only up to that difference and the Monte Carlo error: measured relative L1
    // 0.0012 with 100 kept sweeps; a sampler that ignores the document's counts (the smoothing
    // bucket alone) is far off.
    void fullDataStepApproachesBatchVb()
    {
        const LdaSynthetic s = topic_testing::plantedCorpus(4, 3, 200);
        LdaOptions o;
        o.K = 3;
        o.minibatch = 100000;
        o.tau0 = 0.0;
        o.burnin = 20;
        o.samples = 100;
        o.alpha = 0.1;
        const lda::MatrixRD start = (200.0 * s.betaT.array() + 0.05).matrix();
        LdaTrainer gibbs(s.data, LdaAlgorithm::MimnoSvi, o, 2);
        LdaTrainer batch(s.data, LdaAlgorithm::Batch, o, 2);
        gibbs.setLambdaT(start);
        batch.setLambdaT(start);
        QCOMPARE(gibbs.step(1), 1.0);
        batch.step(1);
        const double l1 =
            (gibbs.lambdaT() - batch.lambdaT()).cwiseAbs().sum() / batch.lambdaT().cwiseAbs().sum();
        qInfo("Mimno-SVI's full-data step against batch VB's: relative L1 of λ %.4f", l1);
        QVERIFY2(l1 < 0.01, qPrintable(QString::number(l1)));
        // Both moved from the start.
        QVERIFY((batch.lambdaT() - start).cwiseAbs().sum() > 0.1 * start.cwiseAbs().sum());
    }

    // A corpus with a count that is not a whole number is refused when the trainer is built,
    // naming the document and the word; SVI's mean-field steps take it.
    void fractionalCountsAreRefused()
    {
        const LdaSynthetic s = topic_testing::plantedCorpus(4, 3, 20);
        auto data = std::make_shared<CountData>(*s.data);
        const std::int64_t row = data->trainingRows().front();
        const std::int64_t at = data->train.rowStart[std::size_t(row)];
        data->train.counts[std::size_t(at)] = 1.5f;
        const std::int32_t word = data->train.cols[std::size_t(at)];
        LdaOptions o;
        o.K = 3;
        try {
            LdaTrainer t(data, LdaAlgorithm::MimnoSvi, o, 1);
            QFAIL("no exception");
        } catch (const std::invalid_argument& err) {
            const QString message = err.what();
            QVERIFY2(message.contains(QString("document %1, word %2").arg(row + 1).arg(word)),
                     err.what());
        }
        LdaTrainer svi(data, LdaAlgorithm::Svi, o, 1);
        QVERIFY(std::isfinite(svi.step(1)));
    }

    // Gibbs-SSVI's β at a subset of the words, under a blend: over 40,000 draws each β_kw has
    // the Dirichlet marginal's mean λ_kw / T_k and variance λ_kw (T_k − λ_kw) / (T_k² (T_k + 1))
    // (T_k = Σ_v λ_kv over the whole vocabulary, the words not drawn included), to within 5
    // standard errors and 5 % respectively, and two words of a topic covary as
    // −λ_ka λ_kb / (T_k² (T_k + 1)). A draw normalised over the drawn words alone, or ignoring
    // the blend, would miss the mean.
    void betaDrawHasTheDirichletMarginals()
    {
        const int V = 7, K = 3;
        const MatrixRD L = topic_testing::someLambda(V, K, 4, 0.2, 3.0);
        const lda::Blend blend{0.5, 0.3};
        MatrixRD lambda = L;
        lda::applyBlend(lambda, blend);
        const Eigen::VectorXd T = lambda.colwise().sum().transpose();
        const std::vector<std::int32_t> words = {1, 4, 5};
        const int draws = 40000;
        MatrixRD out = MatrixRD::Zero(V, K), sum = MatrixRD::Zero(V, K), sq = sum;
        Eigen::VectorXd cross = Eigen::VectorXd::Zero(K);
        for (int t = 0; t < draws; ++t) {
            lda::drawTopicRows(L, blend, T, words, 9, 1, std::uint64_t(t), out);
            for (std::int32_t w : words) {
                sum.row(w) += out.row(w);
                sq.row(w) += out.row(w).cwiseAbs2();
            }
            cross += out.row(1).cwiseProduct(out.row(4)).transpose();
        }
        for (std::int32_t w : words)
            for (int k = 0; k < K; ++k) {
                const double l = lambda(w, k), mean = l / T[k];
                const double var = l * (T[k] - l) / (T[k] * T[k] * (T[k] + 1.0));
                const double m = sum(w, k) / draws, v = sq(w, k) / draws - m * m;
                QVERIFY2(
                    std::abs(m - mean) < 5.0 * std::sqrt(var / draws),
                    qPrintable(
                        QString("β(%1, %2): mean %3, expected %4").arg(w).arg(k).arg(m).arg(mean)));
                QVERIFY2(std::abs(v - var) < 0.05 * var,
                         qPrintable(QString("β(%1, %2): variance %3, expected %4")
                                        .arg(w)
                                        .arg(k)
                                        .arg(v)
                                        .arg(var)));
            }
        for (int k = 0; k < K; ++k) {
            const double a = lambda(1, k), b = lambda(4, k);
            const double cov = cross[k] / draws - (sum(1, k) / draws) * (sum(4, k) / draws);
            const double expected = -a * b / (T[k] * T[k] * (T[k] + 1.0));
            QVERIFY2(
                std::abs(cov - expected) < 0.15 * std::abs(expected),
                qPrintable(
                    QString("topic %1: covariance %2, expected %3").arg(k).arg(cov).arg(expected)));
        }
    }
};

QTEST_GUILESS_MAIN(TestLdaGibbs)
#include "test_lda_gibbs.moc"
