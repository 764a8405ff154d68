// Robbins–Monro step sizes and minibatches drawn without replacement within an epoch.

#include "core/inference/schedule.h"

#include <QtTest>

#include <cmath>
#include <set>

using namespace svi;

class TestSchedule : public QObject
{
    Q_OBJECT

private slots:
    void rhoByHand();
    void rhoRejectsStepZero();
    void everyItemOncePerEpoch_data();
    void everyItemOncePerEpoch();
    void batchesHaveDistinctItems();
    void seededAndReproducible();
    void epochCountsCompletedEpochs_data();
    void epochCountsCompletedEpochs();
    void largeStraddlingBatches();
    void badArguments();
};

void TestSchedule::rhoByHand()
{
    const RobbinsMonro paper{0.75, 0.0};
    QCOMPARE(paper.rho(1), 1.0);
    QVERIFY(std::abs(paper.rho(16) - 0.125) < 1e-15); // 16^(−3/4) = 1/8
    const RobbinsMonro delayed{0.6, 4.0};
    QVERIFY(std::abs(delayed.rho(10) - 0.20526891114486695) < 1e-14); // 14^(−0.6)
    const RobbinsMonro harmonic{1.0, 1.0};
    QCOMPARE(harmonic.rho(1), 0.5); // 1/(1 + 1)
    QCOMPARE(harmonic.rho(3), 0.25);
    const RobbinsMonro slowest{0.5, 0.0};
    QCOMPARE(slowest.rho(4), 0.5); // 4^(−1/2)
    for (std::int64_t t = 1; t < 1000; ++t)
        QVERIFY(paper.rho(t + 1) < paper.rho(t));
}

void TestSchedule::rhoRejectsStepZero()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobbinsMonro{}.rho(0));
}

void TestSchedule::everyItemOncePerEpoch_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("batch");
    QTest::newRow("divides") << 12 << 4;
    QTest::newRow("remainder") << 10 << 4;
    QTest::newRow("batch 1") << 7 << 1;
    QTest::newRow("large remainder") << 11 << 7;
    QTest::newRow("batch = N") << 9 << 9;
}

// After k·N draws, every item has been drawn exactly k times.
void TestSchedule::everyItemOncePerEpoch()
{
    QFETCH(int, n);
    QFETCH(int, batch);
    MinibatchSampler s(n, batch, 42);
    std::vector<int> counts(std::size_t(n), 0);
    std::vector<std::int64_t> stream;
    while (stream.size() < std::size_t(5 * n)) {
        const auto& b = s.next();
        QCOMPARE(std::int64_t(b.size()), std::int64_t(batch));
        stream.insert(stream.end(), b.begin(), b.end());
    }
    for (int k = 1; k <= 5; ++k) {
        std::fill(counts.begin(), counts.end(), 0);
        for (int j = 0; j < k * n; ++j)
            ++counts[std::size_t(stream[std::size_t(j)])];
        for (int c : counts)
            QCOMPARE(c, k);
    }
    QCOMPARE(s.epoch(), std::int64_t(stream.size()) / n);
}

void TestSchedule::batchesHaveDistinctItems()
{
    MinibatchSampler s(10, 4, 3);
    for (int step = 0; step < 200; ++step) {
        const auto& b = s.next();
        const std::set<std::int64_t> unique(b.begin(), b.end());
        QCOMPARE(unique.size(), b.size());
        for (auto i : b)
            QVERIFY(i >= 0 && i < 10);
    }
}

void TestSchedule::seededAndReproducible()
{
    MinibatchSampler a(100, 16, 7), b(100, 16, 7), c(100, 16, 8);
    bool differs = false;
    for (int step = 0; step < 20; ++step) {
        const auto x = a.next();
        QCOMPARE(b.next(), x);
        differs |= c.next() != x;
    }
    QVERIFY(differs);
    // A batch of N or more is the whole data set, in a fresh order each epoch.
    MinibatchSampler all(5, 50, 1);
    const auto first = all.next();
    QCOMPARE(first.size(), std::size_t(5));
    QCOMPARE(std::set<std::int64_t>(first.begin(), first.end()).size(), std::size_t(5));
}

void TestSchedule::epochCountsCompletedEpochs_data()
{
    everyItemOncePerEpoch_data();
}

// epoch() is floor(draws / N) after every call, also when a batch ends exactly on a boundary.
void TestSchedule::epochCountsCompletedEpochs()
{
    QFETCH(int, n);
    QFETCH(int, batch);
    MinibatchSampler s(n, batch, 5);
    QCOMPARE(s.epoch(), std::int64_t(0));
    std::int64_t draws = 0;
    for (int step = 0; step < 50; ++step) {
        draws += std::int64_t(s.next().size());
        QCOMPARE(s.epoch(), draws / n);
    }
}

// A batch near N/2 straddles an epoch boundary every other step: distinct items, every item
// once per epoch, and (no quadratic search) quick even for a large data set.
void TestSchedule::largeStraddlingBatches()
{
    const std::int64_t n = 200000, batch = 120000;
    MinibatchSampler s(n, batch, 9);
    std::vector<int> counts(std::size_t(n), 0);
    std::vector<char> seen(std::size_t(n), 0);
    std::int64_t draws = 0;
    QElapsedTimer timer;
    timer.start();
    for (int step = 0; step < 10; ++step) { // 1.2 M draws = 6 epochs
        const auto& b = s.next();
        QCOMPARE(std::int64_t(b.size()), batch);
        for (auto i : b) {
            QVERIFY(!seen[std::size_t(i)]);
            seen[std::size_t(i)] = 1;
            ++counts[std::size_t(i)];
        }
        for (auto i : b)
            seen[std::size_t(i)] = 0;
        draws += batch;
    }
    QCOMPARE(draws, 6 * n);
    for (int c : counts)
        QCOMPARE(c, 6);
    QCOMPARE(s.epoch(), std::int64_t(6));
    // O(batch²) would be ~10¹⁰ operations here; linear is a few ms. A loose bound for a loaded machine.
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

void TestSchedule::badArguments()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MinibatchSampler(0, 1, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MinibatchSampler(5, 0, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MinibatchSampler(-3, 2, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MinibatchSampler(5, -1, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RobbinsMonro{}.rho(-7));
}

QTEST_GUILESS_MAIN(TestSchedule)
#include "test_schedule.moc"
