// Random streams: reproducible, independent, and with the right moments.

#include "core/math/random.h"

#include <QtTest>
#include <cmath>

using namespace svi;

namespace {
struct Moments
{
    double mean = 0, var = 0;
};
template <typename F> Moments moments(F&& draw, int n)
{
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
        const double x = draw();
        s += x;
        s2 += x * x;
    }
    Moments m;
    m.mean = s / n;
    m.var = s2 / n - m.mean * m.mean;
    return m;
}
} // namespace

class TestRandom : public QObject
{
    Q_OBJECT

private slots:
    void streamsAreReproducibleAndDistinct();
    void uniformAndNormalMoments();
    void gammaMoments_data();
    void gammaMoments();
    void betaMeanAndTinyShapes();
    void belowIsUniform();
};

void TestRandom::streamsAreReproducibleAndDistinct()
{
    Rng a = Rng::stream(1, 2, 3), b = Rng::stream(1, 2, 3);
    for (int i = 0; i < 100; ++i)
        QCOMPARE(a(), b());
    Rng c = Rng::stream(1, 2, 4), d = Rng::stream(1, 3, 2), e = Rng::stream(2, 2, 3);
    Rng f = Rng::stream(1, 2, 3);
    const auto x = f();
    QVERIFY(c() != x);
    QVERIFY(d() != x);
    QVERIFY(e() != x);
}

void TestRandom::uniformAndNormalMoments()
{
    Rng r(11);
    const int n = 400000;
    const Moments u = moments([&] { return r.uniform(); }, n);
    QVERIFY(std::abs(u.mean - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
    QVERIFY(std::abs(u.var - 1.0 / 12) < 0.002);
    const Moments z = moments([&] { return r.normal(); }, n);
    QVERIFY(std::abs(z.mean) < 5 / std::sqrt(double(n)));
    QVERIFY(std::abs(z.var - 1.0) < 0.01);
}

void TestRandom::gammaMoments_data()
{
    QTest::addColumn<double>("shape");
    QTest::addColumn<double>("rate");
    QTest::newRow("shape 0.3") << 0.3 << 2.0;
    QTest::newRow("shape 1") << 1.0 << 0.5;
    QTest::newRow("shape 5") << 5.0 << 3.0;
    QTest::newRow("shape 1e4") << 1e4 << 10.0;
}

void TestRandom::gammaMoments()
{
    QFETCH(double, shape);
    QFETCH(double, rate);
    Rng r(12);
    const int n = 200000;
    const Moments m = moments([&] { return r.gamma(shape, rate); }, n);
    const double mean = shape / rate, var = shape / (rate * rate);
    QVERIFY2(std::abs(m.mean - mean) < 5 * std::sqrt(var / n), qPrintable(QString::number(m.mean)));
    QVERIFY2(std::abs(m.var - var) < 0.05 * var, qPrintable(QString::number(m.var)));
}

void TestRandom::betaMeanAndTinyShapes()
{
    Rng r(13);
    const int n = 200000;
    const Moments m = moments([&] { return r.beta(2.0, 5.0); }, n);
    QVERIFY(std::abs(m.mean - 2.0 / 7.0) < 0.002);
    // Shapes as small as the prior's a/K stay in [0, 1] with the right mean.
    const Moments t = moments([&] { return r.beta(0.04, 9.96); }, n);
    QVERIFY(std::abs(t.mean - 0.004) < 0.001);
}

void TestRandom::belowIsUniform()
{
    Rng r(14);
    std::vector<int> counts(7, 0);
    const int n = 70000;
    for (int i = 0; i < n; ++i) {
        const auto k = r.below(7);
        QVERIFY(k < 7);
        ++counts[std::size_t(k)];
    }
    double chi2 = 0;
    for (int c : counts)
        chi2 += (c - n / 7.0) * (c - n / 7.0) / (n / 7.0);
    QVERIFY2(chi2 < 30, qPrintable(QString::number(chi2))); // 6 dof: P(χ² > 30) ≈ 4e-5
}

QTEST_GUILESS_MAIN(TestRandom)
#include "test_random.moc"
