// Robbins–Monro and adaptive step sizes, and minibatches drawn without replacement within an
// epoch.

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
    void adaptiveRateByHand();
    void adaptiveRateOnNoiseAndSignal();
    void stepSizeOptions();
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
    // O(batch²) would be ~10¹⁰ operations here; linear is a few ms. A loose bound for a loaded
    // machine.
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

// Ranganath et al. (2013): moments from the warm-up, then the moving averages, ρ = ḡᵀḡ/h̄ and
// τ ← τ(1 − ρ) + 1, by hand in one dimension.
void TestSchedule::adaptiveRateByHand()
{
    AdaptiveRate a;
    a.warmUp(Eigen::VectorXd::Constant(1, 1.0));
    a.warmUp(Eigen::VectorXd::Constant(1, 3.0));
    QCOMPARE(a.warmUpCount(), 2);
    QCOMPARE(a.window(), 2.0);
    // ḡ = 2, h̄ = 5; with g = −1 and τ = 2: ḡ = 0.5, h̄ = 3, ρ = 0.25/3, τ = 2(1 − ρ) + 1.
    const double rho = a.rho(Eigen::VectorXd::Constant(1, -1.0));
    QCOMPARE(rho, 0.25 / 3.0);
    QCOMPARE(a.window(), 2.0 * (1.0 - 0.25 / 3.0) + 1.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.rho(Eigen::VectorXd::Zero(2)));
    // Without warm-up the first step is ρ = 1 from g alone.
    AdaptiveRate b;
    QCOMPARE(b.rho(Eigen::VectorXd::Constant(3, 2.0)), 1.0);
    QCOMPARE(b.window(), 1.0);
}

// A noiseless gradient (the same every step) gives ρ = 1; zero-mean noise gives small steps
// that shrink as the window grows.
void TestSchedule::adaptiveRateOnNoiseAndSignal()
{
    AdaptiveRate signal;
    const Eigen::VectorXd g = Eigen::VectorXd::LinSpaced(50, -1.0, 2.0);
    for (int s = 0; s < 5; ++s)
        signal.warmUp(g);
    for (int t = 0; t < 5; ++t)
        QVERIFY(std::abs(signal.rho(g) - 1.0) < 1e-12);

    AdaptiveRate noise;
    Rng rng(3);
    auto draw = [&] {
        Eigen::VectorXd v(200);
        for (Eigen::Index i = 0; i < v.size(); ++i)
            v[i] = rng.normal();
        return v;
    };
    for (int s = 0; s < 10; ++s)
        noise.warmUp(draw());
    double first = 0, last = 0;
    for (int t = 0; t < 200; ++t) {
        last = noise.rho(draw());
        if (t == 0)
            first = last;
        QVERIFY(last > 0.0 && last < 0.5);
    }
    QVERIFY2(last < first, qPrintable(QString("%1 then %2").arg(first).arg(last)));
    QVERIFY(noise.window() > 20.0);
}

void TestSchedule::stepSizeOptions()
{
    const std::vector<ParamSpec> specs = StepSizeOptions::declare(0.6, 8.0).specs();
    QCOMPARE(specs.size(), std::size_t(4));
    ParamValues v = defaultValues(specs);
    StepSizeOptions o;
    o.read(v);
    QCOMPARE(o.kappa, 0.6);
    QCOMPARE(o.tau0, 8.0);
    QVERIFY(o.schedule == StepSchedule::RobbinsMonro);
    v["schedule"] = std::string("adaptive");
    o.read(v);
    QVERIFY(o.schedule == StepSchedule::Adaptive);
    StepSizer sizer(o);
    QVERIFY(sizer.needsWarmUp());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sizer.rho(1, nullptr));
    o.kappa = 0.2;
    try {
        o.check();
        QFAIL("accepted κ = 0.2");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromStdString(plainSettingRefs(e.what())),
                 QString("kappa = 0.2, but must be in [0.5, 1]"));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, scheduleFromName("fast"));
    QCOMPARE(scheduleName(StepSchedule::Adaptive), std::string("adaptive"));
}

QTEST_GUILESS_MAIN(TestSchedule)
#include "test_schedule.moc"
