// Correlations between topics (core/run/topic_correlations.h): from a covariance with known
// correlations, the strongest pairs and their order, and what the trainers publish — the CTM
// its free topics' correlations under its prior, the reference topic left out; LDA none.

#include "core/models/builtin.h"
#include "core/models/ctm/ctm_trainer.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/run/registry.h"
#include "core/run/topic_correlations.h"

#include <Eigen/LU>
#include <QtTest>
#include <cmath>
#include <stdexcept>

using namespace svi;

namespace {

// Σ = D R D with standard deviations (1, 2, 0.5) and correlations R.
Eigen::Matrix3d knownR()
{
    Eigen::Matrix3d r;
    r << 1.0, 0.5, -0.3, //
        0.5, 1.0, 0.2,   //
        -0.3, 0.2, 1.0;
    return r;
}

Eigen::MatrixXd knownCovariance()
{
    const Eigen::Vector3d sd(1.0, 2.0, 0.5);
    return sd.asDiagonal() * knownR() * sd.asDiagonal();
}

// A trainer of `model`/`algorithm` with small settings on a corpus of planted topics, after
// `steps` steps.
std::unique_ptr<Trainer> fitted(const std::string& model, const std::string& algorithm, int K,
                                int steps)
{
    LdaSyntheticOptions so;
    so.documents = 120;
    so.V = 60;
    so.K = 4;
    so.wordsPerDocument = 30;
    so.seed = 4;
    const DataSet data(makeLdaSynthetic(so).data);
    const AlgorithmEntry* e = builtinRegistry().find(model, algorithm);
    if (!e)
        return nullptr;
    ParamValues given;
    for (const ParamSpec& p : e->params) {
        if (p.key == "K")
            given["K"] = ParamValue(std::int64_t(K));
        if (p.key == "eval_docs")
            given["eval_docs"] = ParamValue(std::int64_t(20));
        if (p.key == "local_iters")
            given["local_iters"] = ParamValue(std::int64_t(10));
        if (p.key == "minibatch")
            given["minibatch"] = ParamValue(std::int64_t(20));
    }
    auto resolved = resolveParams(e->params, given);
    if (std::holds_alternative<ParamError>(resolved))
        return nullptr;
    auto trainer = e->make(data, std::get<ParamValues>(resolved), 3);
    for (int t = 1; t <= steps; ++t)
        trainer->step(t);
    return trainer;
}

} // namespace

class TestTopicCorrelations : public QObject
{
    Q_OBJECT

private slots:
    void correlationsOfAKnownCovariance()
    {
        const Eigen::MatrixXd c = correlationMatrix(knownCovariance());
        QCOMPARE(c.rows(), Eigen::Index(3));
        QCOMPARE(c.cols(), Eigen::Index(3));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                QVERIFY2(std::abs(c(i, j) - knownR()(i, j)) < 1e-12,
                         qPrintable(QString("(%1, %2): %3").arg(i).arg(j).arg(c(i, j))));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(c(i, i), 1.0); // exactly, not up to rounding

        auto tc = topicCorrelations(knownCovariance(), {4, 7, 9});
        QCOMPARE(tc->topics, (std::vector<int>{4, 7, 9}));
        QVERIFY(std::abs(tc->matrix(0, 2) + 0.3) < 1e-12);
    }

    // A variance that is zero, negative or not finite makes its row and column NaN; the rest
    // stand. A covariance of the wrong shape is refused.
    void undefinedCorrelationsAreNaN()
    {
        Eigen::MatrixXd s = knownCovariance();
        s(1, 1) = 0.0;
        Eigen::MatrixXd c = correlationMatrix(s);
        for (int k = 0; k < 3; ++k) {
            QVERIFY(std::isnan(c(1, k)));
            QVERIFY(std::isnan(c(k, 1)));
        }
        QVERIFY(std::abs(c(0, 2) + 0.3) < 1e-12);
        QCOMPARE(c(0, 0), 1.0);
        s = knownCovariance();
        s(2, 2) = std::numeric_limits<double>::infinity();
        c = correlationMatrix(s);
        QVERIFY(std::isnan(c(0, 2)) && std::isnan(c(2, 2)));
        QVERIFY(std::abs(c(0, 1) - 0.5) < 1e-12);
        s = knownCovariance();
        s(0, 1) = s(1, 0) = std::nan("");
        c = correlationMatrix(s);
        QVERIFY(std::isnan(c(0, 1)) && std::isnan(c(1, 0)));
        QVERIFY(std::abs(c(1, 2) - 0.2) < 1e-12);

        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 correlationMatrix(Eigen::MatrixXd::Identity(3, 2)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 topicCorrelations(knownCovariance(), {0, 1}));
        TopicCorrelations none;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, strongestPairs(none, -1));
    }

    // Pairs by |r|, positive and negative apart, each its n strongest; NaN and r = 0 skipped;
    // `among` restricts them to the topics it names (in its order).
    void strongestPairsInOrder()
    {
        TopicCorrelations c;
        c.topics = {10, 11, 12, 13};
        c.matrix.resize(4, 4);
        c.matrix << 1.0, 0.2, -0.7, 0.6,  //
            0.2, 1.0, 0.0, -0.1,          //
            -0.7, 0.0, 1.0, std::nan(""), //
            0.6, -0.1, std::nan(""), 1.0;
        const StrongestPairs all = strongestPairs(c, 5);
        QCOMPARE(all.positive.size(), std::size_t(2)); // 0.6, 0.2 (the diagonal is no pair)
        QCOMPARE(all.positive[0].a, 10);
        QCOMPARE(all.positive[0].b, 13);
        QCOMPARE(all.positive[0].r, 0.6);
        QCOMPARE(all.positive[1].b, 11);
        QCOMPARE(all.negative.size(), std::size_t(2)); // −0.7, −0.1; 0 and NaN are neither
        QCOMPARE(all.negative[0].a, 10);
        QCOMPARE(all.negative[0].b, 12);
        QCOMPARE(all.negative[0].r, -0.7);
        QCOMPARE(all.negative[1].a, 11);
        QCOMPARE(all.negative[1].b, 13);

        const StrongestPairs one = strongestPairs(c, 1);
        QCOMPARE(one.positive.size(), std::size_t(1));
        QCOMPARE(one.positive[0].r, 0.6);
        QCOMPARE(one.negative.size(), std::size_t(1));
        QCOMPARE(one.negative[0].r, -0.7);
        QVERIFY(strongestPairs(c, 0).positive.empty());

        // Among 13, 11 and 99 (not covered): the pair 13–11 only, named in that order.
        const StrongestPairs some = strongestPairs(c, 5, {13, 11, 99});
        QVERIFY(some.positive.empty());
        QCOMPARE(some.negative.size(), std::size_t(1));
        QCOMPARE(some.negative[0].a, 13);
        QCOMPARE(some.negative[0].b, 11);
        QVERIFY(strongestPairs(c, 5, {12}).negative.empty()); // one topic: no pair
    }

    // The CTM publishes the correlations of its free topics 0 … K − 2 under its prior, Σ =
    // precision⁻¹: the reference topic K − 1 is not among them; learnt from documents, Σ is no
    // longer diagonal.
    void ctmPublishesItsFreeTopics()
    {
        const int K = 5;
        auto trainer = fitted("ctm", "h-mc-ssvi", K, 200);
        QVERIFY(trainer);
        const Evaluation ev = trainer->evaluate(false);
        QVERIFY(ev.preview);
        QVERIFY(!ev.preview->topics.empty());
        QVERIFY(ev.preview->correlations);
        const TopicCorrelations& c = *ev.preview->correlations;
        QCOMPARE(c.topics, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(c.matrix.rows(), Eigen::Index(K - 1));
        QCOMPARE(c.matrix.cols(), Eigen::Index(K - 1));
        const auto* ctm = dynamic_cast<const CtmTrainer*>(trainer.get());
        QVERIFY(ctm);
        const Eigen::MatrixXd sigma = ctm->prior().precision.inverse();
        double offDiagonal = 0.0;
        for (int i = 0; i < K - 1; ++i)
            for (int j = 0; j < K - 1; ++j) {
                const double expected = sigma(i, j) / std::sqrt(sigma(i, i) * sigma(j, j));
                QVERIFY2(std::abs(c.matrix(i, j) - expected) < 1e-9,
                         qPrintable(QString("(%1, %2): %3 vs %4")
                                        .arg(i)
                                        .arg(j)
                                        .arg(c.matrix(i, j))
                                        .arg(expected)));
                QCOMPARE(c.matrix(i, j), c.matrix(j, i));
                if (i != j)
                    offDiagonal = std::max(offDiagonal, std::abs(c.matrix(i, j)));
            }
        QVERIFY2(offDiagonal > 0.01 && offDiagonal < 1.0, qPrintable(QString::number(offDiagonal)));
    }

    void ldaPublishesNone()
    {
        auto trainer = fitted("lda", "svi", 4, 5);
        QVERIFY(trainer);
        const Evaluation ev = trainer->evaluate(false);
        QVERIFY(ev.preview);
        QVERIFY(!ev.preview->topics.empty());
        QVERIFY(!ev.preview->correlations);
    }
};

QTEST_GUILESS_MAIN(TestTopicCorrelations)
#include "test_topic_correlations.moc"
