// AUC-ROC and average precision (core/metrics/link_metrics.h) against hand calculations with
// ties, a case from scikit-learn's own tests, and brute-force definitions on random scores with
// many ties.

#include "core/math/random.h"
#include "core/metrics/link_metrics.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

using namespace svi;

namespace {

// P(s₊ > s₋) + ½ P(s₊ = s₋) over every (linked, unlinked) pair: the definition, O(n²).
double bruteAucRoc(const std::vector<double>& s, const std::vector<std::uint8_t>& y)
{
    double wins = 0.0, pairs = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = 0; j < s.size(); ++j)
            if (y[i] && !y[j]) {
                pairs += 1.0;
                wins += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
            }
    return wins / pairs;
}

// Σ_t (R_t − R_{t−1}) P_t with P_t, R_t counted afresh at each distinct score t (descending).
double bruteAveragePrecision(const std::vector<double>& s, const std::vector<std::uint8_t>& y)
{
    const std::set<double, std::greater<>> thresholds(s.begin(), s.end());
    double positives = 0.0;
    for (std::uint8_t l : y)
        positives += l ? 1.0 : 0.0;
    double ap = 0.0, before = 0.0;
    for (double t : thresholds) {
        double tp = 0.0, called = 0.0;
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s[i] >= t) {
                called += 1.0;
                tp += y[i] ? 1.0 : 0.0;
            }
        ap += (tp / positives - before) * (tp / called);
        before = tp / positives;
    }
    return ap;
}

} // namespace

class TestLinkMetrics : public QObject
{
    Q_OBJECT

private slots:
    void handCaseWithTies();
    void scikitLearnDuplicateValues();
    void tiesDoNotDependOnOrder();
    void matchesBruteForce();
    void undefinedCasesAreNaN();
    void badArgumentsThrow();
};

void TestLinkMetrics::handCaseWithTies()
{
    // scores  0.9  0.8  0.8  0.8  0.5  0.3  0.3
    // linked   1    1    0    0    1    0    1
    // n₊ = 4 (0.9, 0.8, 0.5, 0.3), n₋ = 3 (0.8, 0.8, 0.3): 12 pairs.
    // Each linked pair against the unlinked ones (ties ½):
    //   0.9: above all 3                       → 3
    //   0.8: above 0.3, tied with two 0.8s     → 1 + ½·2 = 2
    //   0.5: above 0.3                         → 1
    //   0.3: tied with 0.3                     → ½
    // AUC-ROC = 6.5/12 = 13/24. (Mid-ranks, ascending: 0.3s → 1.5, 0.5 → 3, 0.8s → 5,
    // 0.9 → 7; R₊ = 1.5 + 3 + 5 + 7 = 16.5; (16.5 − 4·5/2)/12 = 6.5/12, the same.)
    // Thresholds, descending, a tie crossed at once (TP, FP → precision, recall):
    //   ≥ 0.9: 1, 0 → 1,   1/4
    //   ≥ 0.8: 2, 2 → 2/4, 2/4
    //   ≥ 0.5: 3, 2 → 3/5, 3/4
    //   ≥ 0.3: 4, 3 → 4/7, 1
    // AP = ¼ (1 + 1/2 + 3/5 + 4/7) = ¼ · 187/70 = 187/280.
    const std::vector<double> s = {0.9, 0.8, 0.8, 0.8, 0.5, 0.3, 0.3};
    const std::vector<std::uint8_t> y = {1, 1, 0, 0, 1, 0, 1};
    const LinkScores r = linkScores(s, y);
    QCOMPARE(r.aucRoc, 13.0 / 24.0);
    QVERIFY(std::abs(r.aucPr - 187.0 / 280.0) < 1e-15);
    QCOMPARE(r.linked, std::int64_t(4));
    QCOMPARE(r.unlinked, std::int64_t(3));
    QCOMPARE(aucRoc(s, y), r.aucRoc);
    QCOMPARE(averagePrecision(s, y), r.aucPr);
}

void TestLinkMetrics::scikitLearnDuplicateValues()
{
    // scikit-learn's test_average_precision_score_duplicate_values: a perfect ranking with
    // ties inside each class has AP = 1 (and so AUC-ROC = 1).
    const std::vector<std::uint8_t> y = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1};
    const std::vector<double> s = {0, 0.1, 0.1, 0.4, 0.5, 0.6, 0.6, 0.9, 0.9, 1, 1};
    const LinkScores r = linkScores(s, y);
    QCOMPARE(r.aucPr, 1.0);
    QCOMPARE(r.aucRoc, 1.0);
    // Every score tied: AUC-ROC is ½ and AP the share of linked pairs (one threshold).
    const std::vector<double> flat(y.size(), 0.5);
    QCOMPARE(aucRoc(flat, y), 0.5);
    QCOMPARE(averagePrecision(flat, y), 7.0 / 11.0);
}

void TestLinkMetrics::tiesDoNotDependOnOrder()
{
    // The same multiset of (score, label) in another order: the same figures, exactly.
    std::vector<double> s = {0.3, 0.8, 0.9, 0.3, 0.8, 0.5, 0.8};
    std::vector<std::uint8_t> y = {1, 0, 1, 0, 1, 1, 0};
    QCOMPARE(aucRoc(s, y), 13.0 / 24.0);
    QVERIFY(std::abs(averagePrecision(s, y) - 187.0 / 280.0) < 1e-15);
    // Breaking the 0.8 tie in the linked pair's favour (or against it) changes both: the tie
    // handling is what the hand case checks.
    s[4] = 0.81;
    QVERIFY(aucRoc(s, y) > 13.0 / 24.0);
    s[4] = 0.79;
    QVERIFY(aucRoc(s, y) < 13.0 / 24.0);
}

void TestLinkMetrics::matchesBruteForce()
{
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        Rng rng = Rng::stream(seed, 1);
        const std::size_t n = 50 + rng.below(200);
        std::vector<double> s(n);
        std::vector<std::uint8_t> y(n);
        for (std::size_t i = 0; i < n; ++i) {
            y[i] = rng.uniform() < 0.3 ? 1 : 0;
            // Few distinct values, so that most scores are tied; linked pairs score higher.
            s[i] = double(rng.below(8) + (y[i] ? 2 : 0)) / 10.0;
        }
        y[0] = 1;
        y[1] = 0;
        const LinkScores r = linkScores(s, y);
        QVERIFY2(std::abs(r.aucRoc - bruteAucRoc(s, y)) < 1e-12, qPrintable(QString::number(seed)));
        QVERIFY2(std::abs(r.aucPr - bruteAveragePrecision(s, y)) < 1e-12,
                 qPrintable(QString::number(seed)));
    }
}

void TestLinkMetrics::undefinedCasesAreNaN()
{
    const std::vector<double> s = {0.1, 0.2, 0.3};
    const std::vector<std::uint8_t> none = {0, 0, 0}, all = {1, 1, 1};
    QVERIFY(std::isnan(aucRoc(s, none)));
    QVERIFY(std::isnan(aucRoc(s, all)));
    QVERIFY(std::isnan(averagePrecision(s, none)));
    QCOMPARE(averagePrecision(s, all), 1.0); // every pair linked: precision 1 throughout
    QVERIFY(std::isnan(aucRoc({}, {})));
    QVERIFY(std::isnan(averagePrecision({}, {})));
    // Infinite scores rank like others.
    const std::vector<double> inf = {-INFINITY, INFINITY};
    const std::vector<std::uint8_t> y = {0, 1};
    QCOMPARE(aucRoc(inf, y), 1.0);
}

void TestLinkMetrics::badArgumentsThrow()
{
    const std::vector<double> s = {0.1, NAN, 0.3};
    const std::vector<std::uint8_t> y = {0, 1, 1};
    try {
        aucRoc(s, y);
        QFAIL("a NaN score was accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString(e.what()), QString("linkScores: scores[1] = nan, but must be a number"));
    }
    const std::vector<double> two = {0.1, 0.2};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, averagePrecision(two, y));
}

QTEST_GUILESS_MAIN(TestLinkMetrics)
#include "test_link_metrics.moc"
