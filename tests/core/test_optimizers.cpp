// The gradient-ascent rules of paper 003, Sec. 2.4 (and Adam): each rule's first steps against
// its formula worked by hand, and each on a quadratic with and without noise in the gradient.

#include "core/inference/optimizers.h"
#include "core/math/random.h"

#include <QtTest>
#include <cmath>

using namespace svi;

namespace {

OptimizerOptions options(const QString& kind, double momentum = 0.0)
{
    OptimizerOptions o;
    o.kind = optimizerFromName(kind.toStdString());
    o.momentum = momentum;
    return o;
}

} // namespace

class TestOptimizers : public QObject
{
    Q_OBJECT

private slots:
    void firstStepsFollowTheirFormulas();
    void adadeltaRecursionsOverSeveralSteps();
    void momentumAveragesTheGradients();
    void rateSchedule();
    void quadratic_data();
    void quadratic();
    void noisyQuadratic_data();
    void noisyQuadratic();
    void rejectsBadInput();
    void declarationsRoundTrip();
};

// Two steps of each rule on one coordinate, g = 2 then −1, against the update written out.
void TestOptimizers::firstStepsFollowTheirFormulas()
{
    const double g1 = 2.0, g2 = -1.0;
    auto run = [&](const OptimizerOptions& o) {
        Optimizer opt(o);
        Eigen::ArrayXd x = Eigen::ArrayXd::Zero(1);
        Eigen::ArrayXd g(1);
        g[0] = g1;
        opt.ascend(x, g);
        const double first = x[0];
        g[0] = g2;
        opt.ascend(x, g);
        return std::pair{first, x[0]};
    };
    {
        const auto [x1, x2] = run(options("sgd"));
        QCOMPARE(x1, 0.001 * g1);
        QCOMPARE(x2, 0.001 * (g1 + g2));
    }
    {
        const auto [x1, x2] = run(options("adagrad"));
        const double s1 = g1 * g1, s2 = s1 + g2 * g2;
        QVERIFY(qFuzzyCompare(x1, 0.1 * g1 / (1e-6 + std::sqrt(s1))));
        QVERIFY(qFuzzyCompare(x2, x1 + 0.1 * g2 / (1e-6 + std::sqrt(s2))));
    }
    {
        const auto [x1, x2] = run(options("rmsprop"));
        const double m1 = 0.1 * g1 * g1, m2 = 0.9 * m1 + 0.1 * g2 * g2;
        QVERIFY(qFuzzyCompare(x1, 0.01 * g1 / (1e-6 + std::sqrt(m1))));
        QVERIFY(qFuzzyCompare(x2, x1 + 0.01 * g2 / (1e-6 + std::sqrt(m2))));
    }
    {
        const auto [x1, x2] = run(options("adadelta"));
        const double rho = 0.9, eps = 1e-4;
        const double mg1 = rho * g1 * g1;
        const double d1 = g1 * std::sqrt(0.0 + eps) / std::sqrt(mg1 + eps);
        const double mx1 = rho * d1 * d1;
        const double mg2 = rho * g2 * g2 + (1 - rho) * mg1;
        const double d2 = g2 * std::sqrt(mx1 + eps) / std::sqrt(mg2 + eps);
        QVERIFY(qFuzzyCompare(x1, d1));
        QVERIFY(qFuzzyCompare(x2, d1 + d2));
    }
    {
        const auto [x1, x2] = run(options("adam"));
        const double b1 = 0.9, b2 = 0.999;
        double m = (1 - b1) * g1, s = (1 - b2) * g1 * g1;
        const double d1 = 0.01 * (m / (1 - b1)) / (std::sqrt(s / (1 - b2)) + 1e-8);
        m = b1 * m + (1 - b1) * g2;
        s = b2 * s + (1 - b2) * g2 * g2;
        const double d2 = 0.01 * (m / (1 - b1 * b1)) / (std::sqrt(s / (1 - b2 * b2)) + 1e-8);
        QVERIFY(qFuzzyCompare(x1, d1));
        QVERIFY(qFuzzyCompare(x2, d1 + d2));
    }
}

// v starts at g and then follows v ← λ v + (1 − λ) g.
// AdaDelta over five steps against its recursions written out: both running averages keep
// their memory (1 − ρ) of the past, which the first two steps cannot show (m_x starts at 0).
void TestOptimizers::adadeltaRecursionsOverSeveralSteps()
{
    OptimizerOptions o = options("adadelta");
    o.adadeltaRho = 0.7;
    Optimizer opt(o);
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(1), g(1);
    const double rho = 0.7, eps = 1e-4, gs[] = {2.0, -1.0, 0.5, 3.0, -0.25};
    double mg = 0.0, mx = 0.0, expected = 0.0;
    for (double gt : gs) {
        g[0] = gt;
        opt.ascend(x, g);
        mg = rho * gt * gt + (1 - rho) * mg;
        const double d = gt * std::sqrt(mx + eps) / std::sqrt(mg + eps);
        mx = rho * d * d + (1 - rho) * mx;
        expected += d;
        QVERIFY2(std::abs(x[0] - expected) <= 1e-12 * std::abs(expected),
                 qPrintable(QString("%1 vs %2").arg(x[0], 0, 'g', 15).arg(expected, 0, 'g', 15)));
    }
}

void TestOptimizers::momentumAveragesTheGradients()
{
    OptimizerOptions o = options("sgd", 0.9);
    o.rate = 1.0;
    Optimizer opt(o);
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(1), g(1);
    double v = 0.0, expected = 0.0;
    const double gs[] = {1.0, -3.0, 2.0, 0.5};
    for (int t = 0; t < 4; ++t) {
        g[0] = gs[t];
        opt.ascend(x, g);
        v = t == 0 ? gs[t] : 0.9 * v + 0.1 * gs[t];
        expected += v;
        QVERIFY(qFuzzyCompare(x[0], expected));
    }
}

// γ_t = rate (1 + t/τ)^(−κ), t counted from 0.
void TestOptimizers::rateSchedule()
{
    OptimizerOptions o = options("sgd");
    o.rate = 0.5;
    o.rateKappa = 0.75;
    o.rateTau = 10.0;
    Optimizer opt(o);
    QCOMPARE(opt.rate(), 0.5);
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(2), g = Eigen::ArrayXd::Ones(2);
    for (int t = 0; t < 30; ++t)
        opt.ascend(x, g);
    QVERIFY(qFuzzyCompare(opt.rate(), 0.5 * std::pow(1.0 + 30.0 / 10.0, -0.75)));
    QCOMPARE(opt.steps(), std::int64_t(30));
}

void TestOptimizers::quadratic_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<double>("momentum");
    QTest::addColumn<double>("rate");
    for (double m : {0.0, 0.9}) {
        const QString suffix = m > 0 ? "+momentum" : "";
        QTest::newRow(qPrintable("sgd" + suffix)) << "sgd" << m << 0.05;
        QTest::newRow(qPrintable("adagrad" + suffix)) << "adagrad" << m << 0.0;
        QTest::newRow(qPrintable("rmsprop" + suffix)) << "rmsprop" << m << 0.0;
        QTest::newRow(qPrintable("adadelta" + suffix)) << "adadelta" << m << 0.0;
    }
    QTest::newRow("adam") << "adam" << 0.0 << 0.0;
}

// f(x) = −½ Σ c_i (x_i − x*_i)² with curvatures over three decades: every rule reaches x* to
// 10⁻³ from x = 0 (the adaptive rules with their own rates, a falling rate to settle).
void TestOptimizers::quadratic()
{
    QFETCH(QString, kind);
    QFETCH(double, momentum);
    QFETCH(double, rate);
    Eigen::ArrayXd c(4), target(4);
    c << 0.1, 1.0, 10.0, 0.5;
    target << 1.5, -2.0, 0.3, 4.0;
    OptimizerOptions o = options(kind, momentum);
    o.rate = rate;
    o.rateKappa = 0.6;
    o.rateTau = 500.0;
    Optimizer opt(o);
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(4);
    for (int t = 0; t < 40000; ++t)
        opt.ascend(x, c * (target - x));
    const double err = (x - target).abs().maxCoeff();
    QVERIFY2(err < 1e-3, qPrintable(QString("max error %1").arg(err)));
}

void TestOptimizers::noisyQuadratic_data()
{
    quadratic_data();
}

// AdaGrad's steps already fall as 1/√t; a schedule on top would stop it short.
static double noisyKappa(const QString& kind)
{
    return kind == "adagrad" ? 0.0 : 0.9;
}

// The same with unit Gaussian noise added to every gradient: with a Robbins–Monro decay the
// iterates settle within 0.05 of x* (the average of the last 2,000 iterates).
void TestOptimizers::noisyQuadratic()
{
    QFETCH(QString, kind);
    QFETCH(double, momentum);
    QFETCH(double, rate);
    Eigen::ArrayXd c(3), target(3);
    c << 0.5, 1.0, 4.0;
    target << 1.5, -2.0, 0.3;
    OptimizerOptions o = options(kind, momentum);
    o.rate = rate;
    o.rateKappa = noisyKappa(kind);
    o.rateTau = 200.0;
    Optimizer opt(o);
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(3), avg = Eigen::ArrayXd::Zero(3), g(3);
    Rng rng(17);
    const int steps = 60000, tail = 2000;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < 3; ++i)
            g[i] = c[i] * (target[i] - x[i]) + rng.normal();
        opt.ascend(x, g);
        if (t >= steps - tail)
            avg += x / tail;
    }
    const double err = (avg - target).abs().maxCoeff();
    QVERIFY2(err < 0.05, qPrintable(QString("max error %1").arg(err)));
}

void TestOptimizers::rejectsBadInput()
{
    Optimizer opt;
    Eigen::ArrayXd x = Eigen::ArrayXd::Zero(3), g = Eigen::ArrayXd::Zero(2);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, opt.ascend(x, g));
    OptimizerOptions o;
    o.momentum = 1.0;
    try {
        Optimizer bad(o);
        QFAIL("momentum = 1 accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith("momentum = 1, but"),
                 e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, optimizerFromName("adamw"));
}

// Every rule's name reads back, and the options read from their declared values.
void TestOptimizers::declarationsRoundTrip()
{
    for (OptimizerKind k : {OptimizerKind::Sgd, OptimizerKind::AdaGrad, OptimizerKind::RmsProp,
                            OptimizerKind::AdaDelta, OptimizerKind::Adam})
        QVERIFY(optimizerFromName(optimizerName(k)) == k);
    ParamValues v = defaultValues(OptimizerOptions::declare(OptimizerKind::Adam, 0.5).specs());
    v["adadelta_rho"] = 0.95;
    const OptimizerOptions o = OptimizerOptions::fromParams(v);
    QVERIFY(o.kind == OptimizerKind::Adam);
    QCOMPARE(o.momentum, 0.5);
    QCOMPARE(o.adadeltaRho, 0.95);
    QCOMPARE(o.baseRate(), 0.01);
    QCOMPARE(OptimizerOptions().kind, OptimizerKind::AdaDelta);
}

QTEST_GUILESS_MAIN(TestOptimizers)
#include "test_optimizers.moc"
