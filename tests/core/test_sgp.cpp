// Sparse GP regression (paper 002, Sec. 3.5): each objective at its closed-form solution against
// its known value (the optimal bound is the exact GP's marginal likelihood, the standard one
// Titsias' collapsed bound, v1 the FITC marginal likelihood), the sparse GP with every training
// row inducing against the full GP, the row terms' derivatives against finite differences, v2's
// coordinate ascent, SVGP's minibatch steps against the closed form, the hyperparameter search,
// the slice, and the errors.

#include "core/models/sgp/sgp.h"
#include "core/run/runner.h"
#include "tests/core/labelled_testing.h"

#include <QtTest/QtTest>
#include <cmath>
#include <numbers>

using namespace svi;

namespace {

// n rows (the last `test` of them test rows): y = sin(2 x1) + 0.15 x2 + 0.2 ε over three
// standard-normal features (x3 pure noise).
LabelledDataPtr wave(int n, int test, std::uint64_t seed = 5)
{
    Eigen::VectorXd w(3);
    w << 1.0, 0.0, 0.0;
    auto base = test_support::plantedLabelled(n, test, w, 0.0, LabelKind::Real, seed,
                                              [](double f, Rng&) { return f; });
    auto d = std::make_shared<LabelledData>(*base);
    Rng rng(seed + 100);
    for (Eigen::Index i = 0; i < d->rows(); ++i)
        d->y[i] = std::sin(2.0 * d->x(i, 0)) + 0.15 * d->x(i, 1) + 0.2 * rng.normal();
    d->featureNames = {"a", "b", "c"};
    d->labelName = "y";
    return d;
}

SgpOptions options(const std::string& bound, std::int64_t inducing = 20)
{
    SgpOptions o;
    o.bound = sgpBoundFromName(bound);
    o.inducing = inducing;
    o.hyperparameters = "given";
    o.lengthScale = 0.8;
    o.kernelVariance = 1.2;
    o.noiseVariance = 0.05;
    o.lgm.minibatch = 40;
    return o;
}

MatrixRD trainX(const SgpTrainer& t)
{
    const SgpSetup& s = t.setup();
    const std::int64_t n = s.features->trainingRowCount();
    MatrixRD x(n, s.source->cols());
    for (std::int64_t r = 0; r < n; ++r)
        x.row(r) = s.source->x.row(s.sourceRows[std::size_t(r)]);
    return x;
}

Eigen::VectorXd trainY(const SgpTrainer& t)
{
    const SgpSetup& s = t.setup();
    return s.features->y.head(s.features->trainingRowCount());
}

// log N(y | 0, C).
double logNormal(const Eigen::VectorXd& y, const Eigen::MatrixXd& c)
{
    const Eigen::LLT<Eigen::MatrixXd> llt(c);
    const Eigen::VectorXd a = llt.matrixL().solve(y);
    return -0.5 * (a.squaredNorm() + 2.0 * llt.matrixLLT().diagonal().array().log().sum() +
                   double(y.size()) * std::log(2.0 * std::numbers::pi));
}

// Q_ff = K_fz (K_zz + jitter)⁻¹ K_zf, computed without the basis' transform.
Eigen::MatrixXd nystrom(const SgpTrainer& t, const MatrixRD& x)
{
    const InducingBasis& b = *t.setup().basis;
    Eigen::MatrixXd kzz = b.kernel().cross(b.inducing(), b.inducing());
    kzz.diagonal().array() += b.jitter() * b.kernel().variance;
    const Eigen::MatrixXd kzf = b.kernel().cross(b.inducing(), x);
    return kzf.transpose() * kzz.ldlt().solve(kzf);
}

void solve(SgpTrainer& t, int maxSteps = 500)
{
    for (int s = 1; s <= maxSteps && !t.converged(); ++s)
        t.step(s);
    QVERIFY2(t.converged(), "the closed form did not converge");
}

double relative(double a, double b)
{
    return std::abs(a - b) / std::max(1.0, std::abs(b));
}

} // namespace

class TestSgp : public QObject
{
    Q_OBJECT

private slots:
    void kernelIsTheRbf();
    void optimalBoundIsTheExactMarginalLikelihood();
    void standardClosedFormIsTitsiasBound();
    void v1ClosedFormIsTheFitcMarginal();
    void everyTrainingRowInducingIsTheFullGp();
    void rowTermDerivativesMatchFiniteDifferences_data();
    void rowTermDerivativesMatchFiniteDifferences();
    void v2CoordinateAscentRisesToAStationaryPoint();
    void minibatchStepsReachTheClosedForm();
    void gridSearchFindsTheBestOfItsGrid();
    void sliceIsThePredictiveAlongTheFeature();
    void runnerEndsAClosedFormAsConverged();
    void badSettingsAreNamed();
};

void TestSgp::kernelIsTheRbf()
{
    MatrixRD a(2, 2), b(3, 2);
    a << 0.0, 0.0, 1.0, -2.0;
    b << 0.0, 0.0, 0.5, 0.5, 3.0, 1.0;
    const RbfKernel k{0.7, 2.5};
    const Eigen::MatrixXd c = k.cross(a, b);
    QCOMPARE(c.rows(), Eigen::Index(2));
    QCOMPARE(c.cols(), Eigen::Index(3));
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            const double d2 = (a.row(i) - b.row(j)).squaredNorm();
            const double want = 2.5 * std::exp(-d2 / (2.0 * 0.7 * 0.7));
            QVERIFY2(
                std::abs(c(i, j) - want) < 1e-14,
                qPrintable(QString("k(%1, %2) = %3, not %4").arg(i).arg(j).arg(c(i, j)).arg(want)));
        }
}

void TestSgp::optimalBoundIsTheExactMarginalLikelihood()
{
    // Integrating f out exactly, (6) at its optimum q(w) = p(w | y) is log p(y) itself.
    SgpTrainer t(wave(160, 40), LgmAlgorithm::FixedPoint, options("optimal"), 3);
    t.step(1);
    QVERIFY(t.converged());
    const double exact = gpLogMarginal(trainX(t), trainY(t), t.setup().hyper);
    QVERIFY2(relative(t.objective(), exact) < 1e-8,
             qPrintable(QString("%1 vs %2").arg(t.objective()).arg(exact)));
    // And every other q is below it: the standard solution's q, scored by (6).
    SgpTrainer s(wave(160, 40), LgmAlgorithm::FixedPoint, options("standard"), 3);
    solve(s);
    t.posterior().setMean(s.posterior().mean());
    t.posterior().setCovariance(s.posterior().covariance());
    QVERIFY(t.objective() < exact - 1e-3);
}

void TestSgp::standardClosedFormIsTitsiasBound()
{
    SgpTrainer t(wave(160, 40), LgmAlgorithm::FixedPoint, options("standard"), 3);
    solve(t);
    QCOMPARE(int(t.setup().features->trainingRowCount()), 120);
    const MatrixRD x = trainX(t);
    const Eigen::MatrixXd q = nystrom(t, x);
    const double s2 = t.setup().hyper.noiseVariance;
    Eigen::MatrixXd c = q;
    c.diagonal().array() += s2;
    const double kff = t.setup().hyper.kernel.variance * double(x.rows());
    const double titsias = logNormal(trainY(t), c) - (kff - q.trace()) / (2.0 * s2);
    QVERIFY2(relative(t.objective(), titsias) < 1e-7,
             qPrintable(QString("%1 vs %2").arg(t.objective()).arg(titsias)));
}

void TestSgp::v1ClosedFormIsTheFitcMarginal()
{
    SgpTrainer t(wave(160, 40), LgmAlgorithm::FixedPoint, options("v1"), 3);
    solve(t);
    const MatrixRD x = trainX(t);
    const Eigen::MatrixXd q = nystrom(t, x);
    Eigen::MatrixXd c = q;
    c.diagonal().array() +=
        t.setup().hyper.kernel.variance - q.diagonal().array() + t.setup().hyper.noiseVariance;
    const double fitc = logNormal(trainY(t), c);
    QVERIFY2(relative(t.objective(), fitc) < 1e-7,
             qPrintable(QString("%1 vs %2").arg(t.objective()).arg(fitc)));
}

void TestSgp::everyTrainingRowInducingIsTheFullGp()
{
    // With Z = X the sparse GP's standard solution is the GP's posterior, and its predictive the
    // GP's predictive.
    const LabelledDataPtr d = wave(140, 60);
    SgpTrainer t(d, LgmAlgorithm::FixedPoint, options("standard", 80), 3);
    solve(t);
    const Evaluation ev = t.evaluate(true);
    MatrixRD test(60, 3);
    Eigen::VectorXd y(60);
    for (int r = 0; r < 60; ++r) {
        test.row(r) = d->x.row(d->testRows[std::size_t(r)]);
        y[r] = d->y[d->testRows[std::size_t(r)]];
    }
    Eigen::VectorXd mean, var;
    gpPredict(trainX(t), trainY(t), t.setup().hyper, test, mean, var);
    const double nll = (0.5 * (2.0 * std::numbers::pi * var.array()).log() +
                        0.5 * (y - mean).array().square() / var.array())
                           .mean();
    QVERIFY2(std::abs(ev.metrics.at("test_nll") - nll) < 1e-4,
             qPrintable(QString("%1 vs %2").arg(ev.metrics.at("test_nll")).arg(nll)));
    const double rmse = std::sqrt((y - mean).squaredNorm() / 60.0);
    QVERIFY(std::abs(ev.metrics.at("test_rmse") - rmse) < 1e-4);
}

void TestSgp::rowTermDerivativesMatchFiniteDifferences_data()
{
    QTest::addColumn<QString>("bound");
    for (const char* b : {"standard", "v1", "v2"})
        QTest::newRow(b) << QString(b);
}

void TestSgp::rowTermDerivativesMatchFiniteDifferences()
{
    QFETCH(QString, bound);
    SgpTrainer t(wave(60, 10), LgmAlgorithm::FixedPoint, options(bound.toStdString(), 5), 3);
    const LocalModel& local = t.local();
    Rng rng(1);
    for (std::int64_t i : {0, 7, 33}) {
        QVERIFY(t.setup().residualVariance[i] > 1e-6); // the row's own variance plays a part
        for (const auto& [y, m, v] :
             {std::tuple{0.4, -0.3, 0.2}, std::tuple{2.5, 0.1, 0.05}, std::tuple{-1.0, 0.8, 1.3}}) {
            double alpha = 0, gamma = 0, extra = 0;
            local.estimate(i, y, m, v, rng, alpha, gamma, extra);
            const double h = 1e-5;
            const double dm =
                (local.expectedTerm(i, y, m + h, v) - local.expectedTerm(i, y, m - h, v)) / (2 * h);
            const double dv =
                (local.expectedTerm(i, y, m, v + h) - local.expectedTerm(i, y, m, v - h)) / (2 * h);
            QVERIFY2(std::abs(alpha - dm) < 1e-6 * (1 + std::abs(dm)),
                     qPrintable(QString("α %1 vs %2").arg(alpha).arg(dm)));
            QVERIFY2(std::abs(gamma - dv) < 1e-6 * (1 + std::abs(dv)),
                     qPrintable(QString("γ %1 vs %2").arg(gamma).arg(dv)));
        }
    }
}

void TestSgp::v2CoordinateAscentRisesToAStationaryPoint()
{
    SgpTrainer t(wave(160, 40), LgmAlgorithm::FixedPoint, options("v2"), 3);
    double last = -std::numeric_limits<double>::infinity();
    int s = 1;
    for (; s <= 2000 && !t.converged(); ++s) {
        t.step(s);
        const double now = t.objective();
        QVERIFY2(now >= last - 1e-9 * std::abs(last),
                 qPrintable(QString("step %1: %2 after %3").arg(s).arg(now).arg(last)));
        last = now;
    }
    QVERIFY2(t.converged(), "no convergence in 2000 rounds");
    // Stationary in m: −m + Σ_i α_i x̃_i = 0.
    const LabelledData& f = *t.setup().features;
    const GaussianQ& q = t.posterior();
    Eigen::VectorXd grad = -q.mean();
    Rng rng(1);
    for (std::int64_t i : f.trainingRows) {
        const Eigen::VectorXd x = f.x.row(i).transpose();
        double a = 0, g = 0, e = 0;
        t.local().estimate(i, f.y[i], x.dot(q.mean()), x.dot(q.covariance() * x), rng, a, g, e);
        grad += a * x;
    }
    QVERIFY2(grad.norm() < 1e-3 * (1.0 + q.mean().norm()),
             qPrintable(QString("|∇m| = %1").arg(grad.norm())));
    // And better on its own objective than the standard solution is.
    SgpTrainer standard(wave(160, 40), LgmAlgorithm::FixedPoint, options("standard"), 3);
    solve(standard);
    t.posterior().setMean(standard.posterior().mean());
    t.posterior().setCovariance(standard.posterior().covariance());
    QVERIFY(t.objective() < last);
}

void TestSgp::minibatchStepsReachTheClosedForm()
{
    // SVGP: MC-SSVI on minibatches of 40 with ρ_t = 1/t averages the fixed points of the
    // minibatches, whose mean is the full data's.
    SgpTrainer exact(wave(400, 50), LgmAlgorithm::FixedPoint, options("standard"), 3);
    solve(exact);
    SgpTrainer svi(wave(400, 50), LgmAlgorithm::McSsvi, options("standard"), 3);
    for (int s = 1; s <= 3000; ++s)
        svi.step(s);
    const double gap = (svi.posterior().mean() - exact.posterior().mean()).norm() /
                       exact.posterior().mean().norm();
    QVERIFY2(gap < 0.05, qPrintable(QString("relative gap of the means %1").arg(gap)));
    const double nllGap = std::abs(svi.evaluate(true).metrics.at("test_nll") -
                                   exact.evaluate(true).metrics.at("test_nll"));
    QVERIFY2(nllGap < 0.01, qPrintable(QString("test NLL gap %1").arg(nllGap)));
}

void TestSgp::gridSearchFindsTheBestOfItsGrid()
{
    const LabelledDataPtr d = wave(60, 0);
    const GpHyper best = gridSearchHyper(d->x, d->y, 5);
    const double bestLog = gpLogMarginal(d->x, d->y, best);
    const auto grid = [](double lo, double hi, int j) { return lo * std::pow(hi / lo, j / 4.0); };
    int beaten = 0;
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b)
            for (int c = 0; c < 5; ++c) {
                const GpHyper h{RbfKernel{grid(0.1, 50, a), grid(0.01, 100, b)}, grid(0.01, 1, c)};
                const double log = gpLogMarginal(d->x, d->y, h);
                QVERIFY2(log <= bestLog + 1e-7 * std::abs(bestLog),
                         qPrintable(QString("%1 > %2").arg(log).arg(bestLog)));
                beaten += log < bestLog - 1e-6;
            }
    QCOMPARE(beaten, 124); // one triple is the best; the search found it
    // The data's noise variance is 0.04: the grid's nearest values are 0.01 and 0.0316.
    QVERIFY(best.noiseVariance < 0.2);
}

void TestSgp::sliceIsThePredictiveAlongTheFeature()
{
    const LabelledDataPtr d = wave(250, 50);
    SgpTrainer t(d, LgmAlgorithm::FixedPoint, options("standard", 60), 3);
    solve(t);
    const Evaluation ev = t.evaluate(false);
    QVERIFY(ev.preview && ev.preview->slice && !ev.preview->weights);
    const PredictionSlice& s = *ev.preview->slice;
    QCOMPARE(s.feature, std::string("a")); // sin(2a) + 0.15b: a carries the label
    QCOMPARE(s.label, std::string("y"));
    QVERIFY(s.x.size() > 10 && s.mean.size() == s.x.size() && s.sd.size() == s.x.size());
    QCOMPARE(s.pointX.size(), Eigen::Index(50));
    // Each point against the predictive computed here: the other features at their mean.
    Eigen::RowVectorXd centre = Eigen::RowVectorXd::Zero(3);
    for (std::int64_t i : d->trainingRows)
        centre += d->x.row(i);
    centre /= double(d->trainingRowCount());
    for (Eigen::Index k : {Eigen::Index(0), s.x.size() / 2, s.x.size() - 1}) {
        MatrixRD at = centre;
        at(0, 0) = s.x[k];
        MatrixRD f;
        Eigen::VectorXd res;
        t.setup().basis->transform(at, f, res);
        const Eigen::VectorXd fx = f.row(0).transpose();
        const double mean = fx.dot(t.posterior().mean());
        const double var =
            fx.dot(t.posterior().covariance() * fx) + res[0] + t.setup().hyper.noiseVariance;
        QVERIFY(std::abs(s.mean[k] - mean) < 1e-9);
        QVERIFY(std::abs(s.sd[k] - std::sqrt(var)) < 1e-9);
    }
    // It follows sin(2a) where the data are dense, |a| < 1.
    for (Eigen::Index k = 0; k < s.x.size(); ++k)
        if (std::abs(s.x[k]) < 1.0)
            QVERIFY2(std::abs(s.mean[k] - std::sin(2.0 * s.x[k])) < 0.25,
                     qPrintable(QString("at %1: %2").arg(s.x[k]).arg(s.mean[k])));
}

void TestSgp::runnerEndsAClosedFormAsConverged()
{
    SgpTrainer t(wave(100, 20), LgmAlgorithm::FixedPoint, options("standard"), 3);
    RunOptions o;
    o.maxSteps = 50;
    o.evalEverySteps = 1;
    const Summary s = Runner::runBlocking(t, o, {});
    QCOMPARE(s.reason, TerminationReason::Converged);
    QCOMPARE(s.steps, std::int64_t(2)); // solved at step 1, unchanged at step 2
    SgpTrainer opt(wave(100, 20), LgmAlgorithm::FixedPoint, options("optimal"), 3);
    const Summary so = Runner::runBlocking(opt, o, {});
    QCOMPARE(so.reason, TerminationReason::Converged);
    QCOMPARE(so.steps, std::int64_t(1));
    QVERIFY(so.last && std::abs(so.last->elbo - opt.objective()) < 1e-9);
}

void TestSgp::badSettingsAreNamed()
{
    const auto fails = [](LabelledDataPtr d, LgmAlgorithm a, const SgpOptions& o,
                          const QString& field) {
        try {
            SgpTrainer t(std::move(d), a, o, 1);
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith(field),
                     e.what());
            return;
        }
        QFAIL(qPrintable("no error for " + field));
    };
    fails(wave(100, 10), LgmAlgorithm::McSsvi, options("optimal"), "bound");
    fails(wave(100, 10), LgmAlgorithm::McSsvi, options("v2"), "bound");
    fails(wave(100, 10), LgmAlgorithm::FixedPoint, options("standard", 200), "inducing");
    SgpOptions o = options("standard");
    o.sliceFeature = "zz";
    fails(wave(100, 10), LgmAlgorithm::FixedPoint, o, "slice_feature");
    o = options("standard");
    o.noiseVariance = -1;
    fails(wave(100, 10), LgmAlgorithm::FixedPoint, o, "noise_variance");
    // The optimal bound is cubic: more than kMaxCubicRows training rows are refused unless
    // train_rows takes fewer.
    const int big = int(SgpTrainer::kMaxCubicRows) + 10;
    fails(wave(big, 0), LgmAlgorithm::FixedPoint, options("optimal", 5), "bound");
    SgpOptions few = options("optimal", 5);
    few.trainRows = 300;
    SgpTrainer t(wave(big, 0), LgmAlgorithm::FixedPoint, few, 1);
    QCOMPARE(t.setup().features->trainingRowCount(), std::int64_t(300));
}

QTEST_APPLESS_MAIN(TestSgp)
#include "test_sgp.moc"
