// The mean-field CTM baseline (Blei & Lafferty; ctm_mean_field.h): each coordinate update
// maximises the bound in its block (finite differences), the bound's first line is −KL, the
// bound lies below the optimal one, the trainer's M-step is the closed form, variational EM
// never lowers its objective, and it recovers planted topics.

#include "core/math/random.h"
#include "core/models/ctm/ctm_math.h"
#include "core/models/ctm/ctm_mean_field.h"
#include "core/models/ctm/ctm_trainer.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <QtTest>
#include <cmath>
#include <vector>

using namespace svi;

namespace {

constexpr int K = 4, V = 9;

MatrixRD randomTopics(Rng& rng)
{
    MatrixRD beta(V, K);
    for (Eigen::Index i = 0; i < beta.size(); ++i)
        beta.data()[i] = 0.05 + rng.uniform();
    for (int k = 0; k < K; ++k)
        beta.col(k) /= beta.col(k).sum();
    return beta;
}

GaussianPrior correlatedPrior()
{
    Eigen::MatrixXd S(K - 1, K - 1);
    S << 1.5, 0.4, -0.3, 0.4, 0.8, 0.1, -0.3, 0.1, 1.1;
    GaussianPrior p;
    p.mean = Eigen::Vector3d(0.3, -0.5, 0.2);
    p.precision = S.inverse();
    p.logDetCovariance = std::log(S.determinant());
    return p;
}

ctm::MeanFieldDocument startingDocument()
{
    ctm::MeanFieldDocument d;
    d.lambda = Eigen::Vector3d(0.5, -1.0, 0.8);
    d.nu2 = Eigen::Vector3d(0.7, 0.2, 1.4);
    d.zeta = 3.0;
    return d;
}

// An index drawn with probabilities p (summing to 1).
Eigen::Index categorical(Rng& rng, const Eigen::Ref<const Eigen::VectorXd>& p)
{
    double u = rng.uniform();
    for (Eigen::Index i = 0; i + 1 < p.size(); ++i)
        if ((u -= p[i]) < 0.0)
            return i;
    return p.size() - 1;
}

// A corpus of `docs` documents, `length` words each, from the CTM with the given topics (V × K
// word-major) and prior; a tenth of each document held out.
CountDataPtr ctmCorpus(const MatrixRD& topics, const GaussianPrior& prior, int docs, int length,
                       std::uint64_t seed)
{
    auto corpus = std::make_shared<CountData>();
    corpus->vocabularySize = topics.rows();
    corpus->source = "CTM draws";
    Rng rng(seed);
    const Eigen::MatrixXd L = Eigen::MatrixXd(prior.precision.inverse().llt().matrixL());
    const int k1 = int(prior.mean.size());
    Eigen::VectorXd z(k1), theta(k1 + 1);
    for (int d = 0; d < docs; ++d) {
        for (int k = 0; k < k1; ++k)
            z[k] = rng.normal();
        ctm::logisticNormal(prior.mean + L * z, theta);
        std::vector<float> count(std::size_t(topics.rows()), 0.0f);
        for (int n = 0; n < length; ++n) {
            const Eigen::Index k = categorical(rng, theta);
            count[std::size_t(categorical(rng, topics.col(k)))] += 1.0f;
        }
        std::vector<std::int32_t> w;
        std::vector<float> c, hw;
        std::vector<std::int32_t> hwWords;
        for (std::size_t v = 0; v < count.size(); ++v)
            if (count[v] > 0) {
                w.push_back(std::int32_t(v));
                c.push_back(count[v]);
            }
        corpus->train.appendRow(w, c);
        corpus->heldOut.appendRow(hwWords, hw);
    }
    corpus->finalise();
    return corpus;
}

} // namespace

class TestCtmMeanField : public QObject
{
    Q_OBJECT

    const std::vector<std::int32_t> m_words{0, 2, 3, 7, 8};
    const std::vector<float> m_counts{3, 1, 4, 2, 6};

private slots:
    // The first line of L is −KL(N(λ, diag ν²) ‖ N(μ, Σ)), which GaussianQ computes its own way.
    void boundWithoutWordsIsMinusKl()
    {
        Rng rng(1);
        const MatrixRD beta = randomTopics(rng);
        const GaussianPrior prior = correlatedPrior();
        ctm::MeanFieldDocument d = startingDocument();
        const ctm::MeanFieldInputs none{{}, {}, beta, prior};
        d.phi.resize(0, K);
        GaussianQ q(K - 1, CovarianceForm::Diagonal, 1.0);
        q.setMean(d.lambda);
        q.setRoot(d.nu2.cwiseSqrt());
        const double L = ctm::meanFieldBound(none, d);
        QVERIFY2(std::abs(L + q.kl(prior)) < 1e-12, qPrintable(QString::number(L)));
    }

    // Each update sets its block to a stationary point of L (finite differences vanish there)
    // and none lowers L.
    void eachUpdateMaximisesItsBlock()
    {
        Rng rng(2);
        const MatrixRD beta = randomTopics(rng);
        const GaussianPrior prior = correlatedPrior();
        const ctm::MeanFieldInputs in{m_words, m_counts, beta, prior};
        ctm::MeanFieldDocument d = startingDocument();
        d.phi = MatrixRD::Constant(Eigen::Index(m_words.size()), K, 1.0 / K);
        const double h = 1e-5;
        const auto bound = [&](const ctm::MeanFieldDocument& x) {
            return ctm::meanFieldBound(in, x);
        };
        double last = bound(d);

        ctm::updatePhi(in, d);
        QVERIFY(bound(d) > last);
        last = bound(d);
        for (Eigen::Index n = 0; n < d.phi.rows(); ++n) { // along φ_n0 − φ_nk, on the simplex
            QVERIFY(std::abs(d.phi.row(n).sum() - 1.0) < 1e-12);
            for (int k = 1; k < K; ++k) {
                ctm::MeanFieldDocument a = d, b = d;
                a.phi(n, 0) += h, a.phi(n, k) -= h;
                b.phi(n, 0) -= h, b.phi(n, k) += h;
                QVERIFY2(std::abs(bound(a) - bound(b)) / (2 * h) < 1e-6,
                         qPrintable(QString("φ %1,%2").arg(n).arg(k)));
            }
        }

        ctm::updateZeta(d);
        QVERIFY(bound(d) >= last);
        last = bound(d);
        {
            ctm::MeanFieldDocument a = d, b = d;
            a.zeta += h, b.zeta -= h;
            QVERIFY(std::abs(bound(a) - bound(b)) / (2 * h) < 1e-6);
        }

        ctm::updateLambda(in, d);
        QVERIFY(bound(d) > last);
        last = bound(d);
        for (int k = 0; k < K - 1; ++k) {
            ctm::MeanFieldDocument a = d, b = d;
            a.lambda[k] += h, b.lambda[k] -= h;
            QVERIFY2(std::abs(bound(a) - bound(b)) / (2 * h) < 1e-6,
                     qPrintable(QString("λ %1: %2").arg(k).arg((bound(a) - bound(b)) / (2 * h))));
        }

        ctm::updateNu(in, d);
        QVERIFY(bound(d) > last);
        QVERIFY((d.nu2.array() > 0.0).all());
        for (int k = 0; k < K - 1; ++k) {
            ctm::MeanFieldDocument a = d, b = d;
            a.nu2[k] += h, b.nu2[k] -= h;
            QVERIFY2(std::abs(bound(a) - bound(b)) / (2 * h) < 1e-6,
                     qPrintable(QString("ν² %1: %2").arg(k).arg((bound(a) - bound(b)) / (2 * h))));
        }

        // The whole E-step settles where no block moves it.
        ctm::MeanFieldDocument fit = startingDocument();
        const double L = ctm::fitMeanField(in, fit, 500, 1e-14);
        ctm::MeanFieldDocument again = fit;
        ctm::updatePhi(in, again);
        ctm::updateZeta(again);
        ctm::updateLambda(in, again);
        QVERIFY2((again.lambda - fit.lambda).norm() < 1e-6,
                 qPrintable(QString::number((again.lambda - fit.lambda).norm())));
        QVERIFY(std::abs(bound(fit) - L) < 1e-12 * std::abs(L));
    }

    // L bounds −KL + E_q Σ_w c_w log Σ_k h_k β_kw (the optimal bound at the same q(η)) from below:
    // it bounds both the assignments' sum (by φ) and the softmax's normaliser (by ζ).
    void boundLiesBelowTheOptimalBound()
    {
        Rng rng(3);
        const MatrixRD beta = randomTopics(rng);
        const GaussianPrior prior = correlatedPrior();
        const ctm::MeanFieldInputs in{m_words, m_counts, beta, prior};
        ctm::MeanFieldDocument d = startingDocument();
        const double L = ctm::fitMeanField(in, d, 200);
        GaussianQ q(K - 1, CovarianceForm::Diagonal, 1.0);
        q.setMean(d.lambda);
        q.setRoot(d.nu2.cwiseSqrt());
        const int draws = 200000;
        Eigen::VectorXd z(K - 1), eta(K - 1), grad = Eigen::VectorXd::Zero(K - 1), theta, r;
        double sum = 0.0, sq = 0.0;
        for (int s = 0; s < draws; ++s) {
            for (int k = 0; k < K - 1; ++k)
                z[k] = rng.normal();
            q.draw(z, eta);
            const double v =
                ctm::documentTerms(eta, m_words, m_counts, beta, grad, nullptr, theta, r);
            sum += v;
            sq += v * v;
        }
        const double mean = sum / draws, se = std::sqrt((sq / draws - mean * mean) / draws);
        const double optimal = mean - q.kl(prior);
        QVERIFY2(L < optimal - 5 * se, qPrintable(QString("%1 vs %2").arg(L).arg(optimal)));
        QVERIFY(L > optimal - 5.0); // and not absurdly so on five distinct words
    }

    // The trainer's M-step: after each pass with one round per document, β is the normalised
    // Σ_d c_dw φ_dwk (+0.01) with φ from each document's q before its step and the pass's β,
    // μ, Σ are the mean and second moment of the documents' q's, and the objective is the
    // documents' bounds plus the smoothing.
    void mStepIsTheClosedForm()
    {
        Rng rng(4);
        const MatrixRD truth = randomTopics(rng);
        const CountDataPtr corpus = ctmCorpus(truth, correlatedPrior(), 6, 30, 5);
        CtmOptions o;
        o.K = K;
        o.varIters = 1;
        CtmTrainer tr(corpus, LgmAlgorithm::HybridMcSsvi, o, 6, CtmMethod::MeanField);
        QVERIFY(std::isnan(tr.meanFieldObjective()));
        for (int pass = 0; pass < 2; ++pass) { // the second from the first's sums cleared
            const MatrixRD passBeta = tr.topicsByWord();
            const GaussianPrior passPrior = tr.prior();
            Eigen::MatrixXd counts = Eigen::MatrixXd::Constant(K, V, 0.01);
            double boundSum = 0.0;
            for (std::int64_t d = 0; d < 6; ++d) {
                const auto words = corpus->train.rowCols(tr.trainingRow(d));
                const auto c = corpus->train.rowCounts(tr.trainingRow(d));
                ctm::MeanFieldDocument doc;
                doc.lambda = tr.q(d).mean();
                doc.nu2 = tr.q(d).variances();
                ctm::updatePhi({words, c, passBeta, passPrior}, doc);
                ctm::MeanFieldDocument fitted = doc;
                boundSum += ctm::fitMeanField({words, c, passBeta, passPrior}, fitted, 1);
                for (std::size_t n = 0; n < words.size(); ++n)
                    counts.col(words[n]) += c[n] * doc.phi.row(Eigen::Index(n)).transpose();
                tr.step(pass * 6 + d + 1);
                QVERIFY(tr.q(d).mean() != doc.lambda);
                if (d < 5)
                    QVERIFY(tr.topicsByWord() == passBeta); // the M-step waits for the pass's end
            }
            for (int k = 0; k < K; ++k)
                for (int v = 0; v < V; ++v)
                    QVERIFY(std::abs(tr.topicsByWord()(v, k) - counts(k, v) / counts.row(k).sum()) <
                            1e-12);
            Eigen::VectorXd mu = Eigen::VectorXd::Zero(K - 1);
            Eigen::MatrixXd second = Eigen::MatrixXd::Zero(K - 1, K - 1);
            for (std::int64_t d = 0; d < 6; ++d) {
                mu += tr.q(d).mean() / 6.0;
                second +=
                    (tr.q(d).covariance() + tr.q(d).mean() * tr.q(d).mean().transpose()) / 6.0;
            }
            const Eigen::MatrixXd sigma = second - mu * mu.transpose();
            QVERIFY((tr.prior().mean - mu).norm() < 1e-12);
            QVERIFY(
                (tr.prior().precision * sigma - Eigen::MatrixXd::Identity(K - 1, K - 1)).norm() <
                1e-6);
            // The pass's objective: its documents' bounds plus the smoothing under the pass's β.
            const double objective = boundSum + 0.01 * passBeta.array().log().sum();
            QVERIFY2(std::abs(tr.meanFieldObjective() - objective) < 1e-9 * std::abs(objective),
                     qPrintable(QString("%1 vs %2").arg(tr.meanFieldObjective()).arg(objective)));
        }
    }

    // Variational EM: each pass's objective at least the last one's (E-step and M-step each
    // ascend it), rising at first; and the topics it ends with are the planted ones.
    void emAscendsAndRecoversTopics()
    {
        MatrixRD truth = MatrixRD::Constant(V, K, 0.01); // K topics on disjoint words
        for (int v = 0; v < V - 1; ++v)
            truth(v, v % K) = 1.0;
        truth(V - 1, 0) = 1.0;
        for (int k = 0; k < K; ++k)
            truth.col(k) /= truth.col(k).sum();
        GaussianPrior spread = correlatedPrior(); // documents led by one or two topics
        spread.precision /= 4.0;
        spread.logDetCovariance += (K - 1) * std::log(4.0);
        const CountDataPtr corpus = ctmCorpus(truth, spread, 200, 60, 7);
        CtmOptions o;
        o.K = K;
        CtmTrainer tr(corpus, LgmAlgorithm::HybridMcSsvi, o, 8, CtmMethod::MeanField);
        std::vector<double> objective;
        for (std::int64_t t = 1; t <= 200 * 40; ++t) {
            tr.step(t);
            if (t % 200 == 0)
                objective.push_back(tr.meanFieldObjective());
        }
        QVERIFY(!tr.diverged());
        QVERIFY(objective[1] > objective[0] + 1.0);
        for (std::size_t p = 1; p < objective.size(); ++p)
            QVERIFY2(objective[p] >= objective[p - 1] - 1e-7 * std::abs(objective[p - 1]),
                     qPrintable(QString("pass %1: %2 after %3")
                                    .arg(p)
                                    .arg(objective[p], 0, 'g', 12)
                                    .arg(objective[p - 1], 0, 'g', 12)));
        // Each planted topic has a fitted one within 0.1 in total variation.
        for (int k = 0; k < K; ++k) {
            double best = 2.0;
            for (int j = 0; j < K; ++j)
                best = std::min(best,
                                0.5 * (tr.topicsByWord().col(j) - truth.col(k)).cwiseAbs().sum());
            QVERIFY2(best < 0.1, qPrintable(QString("topic %1: %2").arg(k).arg(best)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCtmMeanField)
#include "test_ctm_mean_field.moc"
