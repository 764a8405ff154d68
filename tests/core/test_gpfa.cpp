// Gamma process factor analysis (paper 003, Sec. 3.2, 4.2): the collapsed likelihood against
// the sum of the rows' Gaussian densities (complete rows through their scatter, incomplete ones
// through their marginals), every block of the log joint's gradient against finite differences,
// the covariance baselines against hand calculation, the scores against closed forms, the Amari
// error's invariances, the synthetic generator and kind, and the recovery of planted sparse
// non-negative loadings.

#include "core/io/data_kinds.h"
#include "core/math/random.h"
#include "core/metrics/factor_metrics.h"
#include "core/models/gpfa/gpfa_covariance.h"
#include "core/models/gpfa/gpfa_likelihood.h"
#include "core/models/gpfa/gpfa_model.h"
#include "core/models/gpfa/gpfa_synthetic.h"
#include "core/models/gpfa/gpfa_trainer.h"
#include "core/run/registry.h"
#include "core/run/runner.h"
#include "tests/core/blanket_testing.h"

#include <Eigen/Cholesky>
#include <QtTest>
#include <cmath>
#include <numbers>

using namespace svi;

namespace {

constexpr double kLog2Pi = 1.8378770664093453;

// log N(y; 0, C) by a Cholesky factorisation of C itself.
double gaussianLogDensity(const Eigen::VectorXd& y, const Eigen::MatrixXd& c)
{
    const Eigen::LLT<Eigen::MatrixXd> llt(c);
    const Eigen::MatrixXd l = llt.matrixL();
    const double logDet = 2.0 * l.diagonal().array().log().sum();
    return -0.5 * (double(y.size()) * kLog2Pi + logDet + y.dot(llt.solve(y)));
}

// The marginal of row i over its Observed entries (brute force: C_oo built and factorised).
double marginalLogDensity(const DenseData& d, std::int64_t i, const Eigen::MatrixXd& c,
                          bool heldOutToo = false)
{
    std::vector<int> o;
    for (int k = 0; k < d.cols(); ++k)
        if (d.observed(i, k) || (heldOutToo && d.heldOut(i, k)))
            o.push_back(k);
    Eigen::VectorXd y(Eigen::Index(o.size()));
    Eigen::MatrixXd coo(y.size(), y.size());
    for (std::size_t a = 0; a < o.size(); ++a) {
        y[Eigen::Index(a)] = d.values(i, o[a]);
        for (std::size_t b = 0; b < o.size(); ++b)
            coo(Eigen::Index(a), Eigen::Index(b)) = c(o[a], o[b]);
    }
    return o.empty() ? 0.0 : gaussianLogDensity(y, coo);
}

// y = W x + ε with the given loadings (D × K), x ~ N(0, I), ε ~ N(0, σ² I); every entry
// Observed, then each held out with probability `held` and missing with probability `missing`.
DenseDataPtr drawData(const Eigen::MatrixXd& w, std::int64_t n, double sigma2, std::uint64_t seed,
                      double held = 0.0, double missing = 0.0)
{
    auto d = std::make_shared<DenseData>();
    const int D = int(w.rows());
    d->values.resize(n, D);
    d->roles.setConstant(n, D, std::uint8_t(EntryRole::Observed));
    Rng rng = Rng::stream(seed, 1);
    Eigen::VectorXd x(w.cols());
    for (std::int64_t i = 0; i < n; ++i) {
        for (Eigen::Index k = 0; k < x.size(); ++k)
            x[k] = rng.normal();
        const Eigen::VectorXd y = w * x;
        for (int c = 0; c < D; ++c) {
            d->values(i, c) = float(y[c] + std::sqrt(sigma2) * rng.normal());
            const double u = rng.uniform();
            if (u < held)
                d->roles(i, c) = std::uint8_t(EntryRole::HeldOut);
            else if (u < held + missing)
                d->roles(i, c) = std::uint8_t(EntryRole::Missing);
        }
    }
    d->source = "test rows";
    d->trueLoadings = w;
    return d;
}

Eigen::MatrixXd randomLoadings(int D, int K, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 2);
    Eigen::MatrixXd w(D, K);
    for (int d = 0; d < D; ++d)
        for (int k = 0; k < K; ++k)
            w(d, k) = 0.2 + rng.uniform();
    return w;
}

std::vector<std::int64_t> allRows(const DenseData& d)
{
    std::vector<std::int64_t> r(static_cast<std::size_t>(d.rows()));
    for (std::int64_t i = 0; i < d.rows(); ++i)
        r[std::size_t(i)] = i;
    return r;
}

// A point of the model's space with every variable at a moderate positive value.
Eigen::ArrayXd somePoint(const gpfa::Layout& l, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 3);
    Eigen::ArrayXd x(l.size());
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x[i] = 0.2 + rng.uniform();
    x[l.tau()] = 3.0;
    return x;
}

// GPFA's collapsed model on 60 drawn rows (D = 5, K = 3) with entries held out and missing as
// given, a minibatch of the incomplete rows, a noise prior away from the paper's, and the
// minibatch fixed by a key: a function of x alone.
struct OddModel
{
    OddModel(double held, double missing, std::int64_t minibatch)
        : data(drawData(randomLoadings(5, 2, 6), 60, 0.3, 6, held, missing)),
          lik(data, allRows(*data), minibatch, 9), model(lik, 3, prior())
    {
        model.setKey(11);
    }
    static gpfa::Prior prior()
    {
        gpfa::Prior p;
        p.noiseShape = 0.7;
        p.noiseRate = 0.4;
        return p;
    }
    DenseDataPtr data;
    gpfa::CollapsedLikelihood lik;
    gpfa::Model model;
};

// Sparse non-negative loadings: factor k loads on a block of its own (values in [0.5, 1]) and,
// with probability 0.15, on any other dimension (the overlap a sparse model must untangle).
Eigen::MatrixXd plantedLoadings(int D, int K, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 4);
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(D, K);
    const int block = D / K;
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            if ((d >= k * block && d < (k + 1) * block) || rng.uniform() < 0.15)
                w(d, k) = 0.5 + 0.5 * rng.uniform();
    return w;
}

GpfaOptions smallOptions(int K)
{
    GpfaOptions o;
    o.K = K;
    o.covDraws = 50;
    o.sgvb.elboSamples = 2;
    return o;
}

double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& truth)
{
    return (a - truth).norm() / truth.norm();
}

} // namespace

class TestGpfa : public QObject
{
    Q_OBJECT

private slots:
    void collapsedLikelihoodIsTheSumOfRowDensities();
    void incompleteRowsAreTheirMarginals();
    void minibatchEstimateIsUnbiased();
    void logJointGradientMatchesFiniteDifferences_data();
    void logJointGradientMatchesFiniteDifferences();
    void blanketsHoldEachVariablesFactors();
    void ledoitWolfHandCase();
    void ledoitWolfMatchesItsDefinition();
    void empiricalBaselineIsTheMle();
    void scoresAreGaussianDensities();
    void amariErrorIsInvariantAndZeroOnlyAtTheTruth();
    void amariErrorHandCase();
    void syntheticGeneratorDrawsThePapersData();
    void syntheticKindCarriesTheTruth();
    void trainingCapIsSharedAndNested();
    void badInputIsNamed();
    void recoversPlantedSparseLoadings();
    void beatsTheEmpiricalCovarianceAtSmallN();
};

// Complete rows: −N/2 (D log 2π + log |C|) − ½ tr(S C⁻¹) equals Σ_n log N(y_n; 0, C).
void TestGpfa::collapsedLikelihoodIsTheSumOfRowDensities()
{
    const Eigen::MatrixXd w = randomLoadings(6, 3, 1);
    const DenseDataPtr data = drawData(w, 300, 0.3, 1);
    const gpfa::CollapsedLikelihood lik(data, allRows(*data), 0, 5);
    QCOMPARE(lik.completeCount(), std::int64_t(300));
    QCOMPARE(lik.incompleteCount(), std::int64_t(0));
    const Eigen::MatrixXd wt = 0.7 * randomLoadings(6, 4, 2); // another W, K = 4
    const double s2 = 0.45;
    Eigen::MatrixXd c = wt * wt.transpose();
    c.diagonal().array() += s2;
    double brute = 0.0;
    for (std::int64_t i = 0; i < data->rows(); ++i)
        brute += gaussianLogDensity(data->values.row(i).cast<double>().transpose(), c);
    Eigen::MatrixXd g;
    double gs = 0.0;
    const double value = lik.evaluate(wt, s2, 0, g, gs);
    QVERIFY2(std::abs(value - brute) < 1e-9 * std::abs(brute),
             qPrintable(QString("%1 vs %2").arg(value, 0, 'g', 15).arg(brute, 0, 'g', 15)));
    QCOMPARE(g.rows(), Eigen::Index(6));
    QCOMPARE(g.cols(), Eigen::Index(4));
    // A σ² that makes C singular is no density: NaN, not a number that looks like one.
    const Eigen::MatrixXd rankOne = Eigen::MatrixXd::Ones(6, 1);
    QVERIFY(std::isnan(lik.evaluate(rankOne, 0.0, 0, g, gs)));
    QVERIFY(std::isnan(gs));
}

// Rows with held-out and missing entries: each enters by the density of its observed entries
// under C_oo (built and factorised here, where the likelihood uses the Schur complement).
void TestGpfa::incompleteRowsAreTheirMarginals()
{
    const Eigen::MatrixXd w = randomLoadings(7, 2, 3);
    const DenseDataPtr data = drawData(w, 400, 0.2, 3, 0.15, 0.1);
    const gpfa::CollapsedLikelihood lik(data, allRows(*data), 0, 5);
    QVERIFY(lik.completeCount() > 20);
    QVERIFY(lik.incompleteCount() > 200);
    Eigen::MatrixXd c = w * w.transpose();
    c.diagonal().array() += 0.2;
    double brute = 0.0;
    for (std::int64_t i = 0; i < data->rows(); ++i)
        brute += marginalLogDensity(*data, i, c);
    Eigen::MatrixXd g;
    double gs = 0.0;
    const double value = lik.evaluate(w, 0.2, 0, g, gs);
    QVERIFY2(std::abs(value - brute) < 1e-9 * std::abs(brute),
             qPrintable(QString("%1 vs %2").arg(value, 0, 'g', 15).arg(brute, 0, 'g', 15)));
}

// The minibatch's N_inc/B-scaled sum, averaged over keys, is the exact sum (within 4 standard
// errors), for the value and the gradient.
void TestGpfa::minibatchEstimateIsUnbiased()
{
    const Eigen::MatrixXd w = randomLoadings(5, 2, 4);
    const DenseDataPtr data = drawData(w, 300, 0.3, 4, 0.2, 0.0);
    const gpfa::CollapsedLikelihood exact(data, allRows(*data), 0, 5);
    const gpfa::CollapsedLikelihood batch(data, allRows(*data), 16, 5);
    QVERIFY(batch.rowsPerEvaluation() == batch.completeCount() + 16);
    Eigen::MatrixXd g0, g;
    double s0 = 0.0, s = 0.0;
    const double v0 = exact.evaluate(w, 0.3, 0, g0, s0);
    const int reps = 4000;
    double mean = 0.0, sq = 0.0, gMean = 0.0, gSq = 0.0;
    for (int r = 0; r < reps; ++r) {
        const double v = batch.evaluate(w, 0.3, std::uint64_t(r), g, s);
        mean += v / reps;
        sq += v * v / reps;
        gMean += g(1, 0) / reps;
        gSq += g(1, 0) * g(1, 0) / reps;
    }
    const double se = std::sqrt((sq - mean * mean) / reps);
    const double gSe = std::sqrt((gSq - gMean * gMean) / reps);
    QVERIFY(se > 0.0);
    QVERIFY2(std::abs(mean - v0) < 4.0 * se,
             qPrintable(QString("mean %1, exact %2, se %3").arg(mean).arg(v0).arg(se)));
    QVERIFY2(
        std::abs(gMean - g0(1, 0)) < 4.0 * gSe,
        qPrintable(QString("∂/∂W mean %1, exact %2, se %3").arg(gMean).arg(g0(1, 0)).arg(gSe)));
    // The same key draws the same minibatch.
    QCOMPARE(batch.evaluate(w, 0.3, 7, g, s), batch.evaluate(w, 0.3, 7, g, s));
}

void TestGpfa::logJointGradientMatchesFiniteDifferences_data()
{
    QTest::addColumn<double>("held");
    QTest::addColumn<double>("missing");
    QTest::addColumn<int>("minibatch");
    QTest::newRow("complete rows") << 0.0 << 0.0 << 0;
    QTest::newRow("incomplete rows, all") << 0.2 << 0.1 << 0;
    QTest::newRow("incomplete rows, minibatch") << 0.2 << 0.1 << 10;
}

// Every variable of every block — W, r, γ, γ0, c0, τ — against central differences (the
// minibatch fixed by its key, so that the estimate is a function of x).
void TestGpfa::logJointGradientMatchesFiniteDifferences()
{
    QFETCH(double, held);
    QFETCH(double, missing);
    QFETCH(int, minibatch);
    OddModel odd(held, missing, minibatch);
    const gpfa::Model& model = odd.model;
    const gpfa::Layout& l = model.layout();
    const Eigen::ArrayXd x = somePoint(l, 7);
    Eigen::ArrayXd grad(l.size()), scratch(l.size());
    model.logJoint(x, grad);
    for (Eigen::Index i = 0; i < l.size(); ++i) {
        const double h = 1e-5 * x[i];
        Eigen::ArrayXd xp = x, xm = x;
        xp[i] += h;
        xm[i] -= h;
        const double fd = (model.logJoint(xp, scratch) - model.logJoint(xm, scratch)) / (2 * h);
        QVERIFY2(std::abs(fd - grad[i]) < 1e-5 * std::max(1.0, std::abs(fd)),
                 qPrintable(QString("x[%1]: analytic %2, finite difference %3")
                                .arg(i)
                                .arg(grad[i], 0, 'g', 10)
                                .arg(fd, 0, 'g', 10)));
    }
    // The prior alone, against its densities written out: log G(x; a, b) summed.
    auto logGamma = [](double x, double a, double b) {
        return a * std::log(b) - std::lgamma(a) + (a - 1) * std::log(x) - b * x;
    };
    double expected = logGamma(x[l.gamma()], 1, 1) + logGamma(x[l.gamma0()], 1, 1) +
                      logGamma(x[l.c0()], 1, 1) + logGamma(x[l.tau()], 0.7, 0.4);
    for (int k = 0; k < l.K; ++k) {
        expected += logGamma(x[l.r(k)], x[l.gamma0()] / l.K, x[l.c0()]);
        for (int d = 0; d < l.D; ++d)
            expected += logGamma(x[l.w(d, k)], x[l.gamma()] * x[l.r(k)], x[l.gamma()]);
    }
    QVERIFY(std::abs(gpfa::logPrior(l, OddModel::prior(), x, scratch) - expected) <
            1e-10 * std::abs(expected));
}

// Rows (1, 0), (0, 1), (2, 1), (1, 1): S_n = [[1.5, 0.75], [0.75, 0.75]], μ = 1.125,
// ‖S_n‖²_F = 3.9375, d² = 3.9375/2 − μ² = 0.703125, Σ‖y‖⁴ = 1 + 1 + 25 + 4 = 31,
// b̄² = (31 − 4 · 3.9375)/(16 · 2) = 0.4765625 = b², δ = b²/d² = 61/90, and
// Σ* = δ μ I + (1 − δ) S_n = [[112.125, 21.75], [21.75, 90.375]]/90.
// scikit-learn 1.2.1 (LedoitWolf(assume_centered=True)) gives the same to 3e-17.
// Black-box VI's Markov blankets (gpfa::Model::blankets): test_support::checkBlankets on
// incomplete rows with a minibatch (fixed by its key), and a loading's blanket does not move
// with c0 or γ0 (which hold only the r_k's priors).
void TestGpfa::blanketsHoldEachVariablesFactors()
{
    OddModel odd(0.2, 0.1, 10);
    const gpfa::Model& model = odd.model;
    const gpfa::Layout& l = model.layout();
    const Eigen::ArrayXd x = somePoint(l, 7);
    test_support::checkBlankets(model, x);
    Eigen::ArrayXd blanket(l.size()), moved(l.size());
    model.blankets(x, blanket);
    Eigen::ArrayXd y = x;
    y[l.c0()] *= 2.0;
    y[l.gamma0()] *= 2.0;
    model.blankets(y, moved);
    QCOMPARE(moved[l.w(0, 0)], blanket[l.w(0, 0)]);
}

void TestGpfa::ledoitWolfHandCase()
{
    auto d = std::make_shared<DenseData>();
    d->values.resize(4, 2);
    d->values << 1, 0, 0, 1, 2, 1, 1, 1;
    d->roles.setConstant(4, 2, std::uint8_t(EntryRole::Observed));
    const gpfa::SecondMoments m = gpfa::secondMoments(*d, allRows(*d));
    QCOMPARE(m.fourth, 31.0);
    const gpfa::Shrinkage s = gpfa::ledoitWolf(m);
    QVERIFY(std::abs(s.target - 1.125) < 1e-15);
    QVERIFY(std::abs(s.intensity - 61.0 / 90.0) < 1e-14);
    Eigen::Matrix2d expected;
    expected << 112.125, 21.75, 21.75, 90.375;
    expected /= 90.0;
    QVERIFY2((s.covariance - expected).norm() < 1e-14, qPrintable(QString("%1 %2 %3")
                                                                      .arg(s.covariance(0, 0))
                                                                      .arg(s.covariance(0, 1))
                                                                      .arg(s.covariance(1, 1))));
    // The empirical covariance: S/n.
    Eigen::Matrix2d sn;
    sn << 1.5, 0.75, 0.75, 0.75;
    QVERIFY((gpfa::empiricalCovariance(m) - sn).norm() < 1e-15);
    // Rows (1, 0), (0, 1), (0, 1): S_n = diag(1/3, 2/3), μ = 1/2, d² = 1/36, ‖S_n‖²_F = 5/9,
    // b̄² = (3 − 3 · 5/9)/(9 · 2) = 2/27 > d²: b² is capped at d², δ = 1, Σ* = μI (scikit-learn
    // 1.2.1 agrees).
    auto capped = std::make_shared<DenseData>();
    capped->values.resize(3, 2);
    capped->values << 1, 0, 0, 1, 0, 1;
    capped->roles.setConstant(3, 2, std::uint8_t(EntryRole::Observed));
    const gpfa::Shrinkage full = gpfa::ledoitWolf(gpfa::secondMoments(*capped, allRows(*capped)));
    QCOMPARE(full.intensity, 1.0);
    QVERIFY((full.covariance - 0.5 * Eigen::Matrix2d::Identity()).norm() < 1e-15);
    // No rows: a clear error, not a division by zero.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gpfa::ledoitWolf(gpfa::SecondMoments{}));
}

// On random rows, δ from the moments equals δ from the definition written out (b̄² as the mean
// over rows of ‖y yᵀ − S_n‖², the normalised norm), and b² is capped at d² (δ ≤ 1).
void TestGpfa::ledoitWolfMatchesItsDefinition()
{
    for (int n : {3, 12, 200}) {
        const DenseDataPtr data = drawData(randomLoadings(5, 2, 8), n, 0.5, std::uint64_t(n));
        const gpfa::SecondMoments m = gpfa::secondMoments(*data, allRows(*data));
        const Eigen::MatrixXd sn = m.scatter / n;
        const double D = 5.0;
        const double mu = sn.trace() / D;
        Eigen::MatrixXd centred = sn;
        centred.diagonal().array() -= mu;
        const double d2 = centred.squaredNorm() / D;
        double b2bar = 0.0;
        for (int i = 0; i < n; ++i) {
            const Eigen::VectorXd y = data->values.row(i).cast<double>().transpose();
            b2bar += (y * y.transpose() - sn).squaredNorm() / D / (double(n) * n);
        }
        const double delta = std::min(b2bar, d2) / d2;
        const gpfa::Shrinkage s = gpfa::ledoitWolf(m);
        QVERIFY2(std::abs(s.intensity - delta) < 1e-12,
                 qPrintable(QString("n %1: %2 vs %3").arg(n).arg(s.intensity).arg(delta)));
        QVERIFY(s.intensity >= 0.0 && s.intensity <= 1.0);
    }
}

// The empirical algorithm's estimate is S/n over the complete training rows (row split: the
// test rows are left out), converges in one step, and its perplexity is the mean of −log N(y;
// 0, S/n) over the test rows.
void TestGpfa::empiricalBaselineIsTheMle()
{
    auto base = drawData(randomLoadings(6, 2, 9), 200, 0.3, 9);
    auto d = std::make_shared<DenseData>(*base);
    for (std::int64_t i = 0; i < 160; ++i)
        d->trainingRows.push_back(i);
    for (std::int64_t i = 160; i < 200; ++i)
        for (int c = 0; c < 3; ++c)
            d->roles(i, c) = std::uint8_t(EntryRole::HeldOut);
    d->roles(3, 2) = std::uint8_t(EntryRole::Missing); // an incomplete training row: left out
    Eigen::MatrixXd s = Eigen::MatrixXd::Zero(6, 6);
    int n = 0;
    for (std::int64_t i = 0; i < 160; ++i) {
        if (i == 3)
            continue;
        const Eigen::VectorXd y = d->values.row(i).cast<double>().transpose();
        s += y * y.transpose();
        ++n;
    }
    s /= n;
    GpfaTrainer t(d, GpfaAlgorithm::Empirical, GpfaOptions(), 1);
    QVERIFY(!t.converged());
    t.step(1);
    QVERIFY(t.converged());
    QVERIFY(!t.diverged());
    QVERIFY((t.covariance(0) - s).norm() < 1e-10);
    double perplexity = 0.0;
    for (std::int64_t i = 160; i < 200; ++i)
        perplexity -= gaussianLogDensity(d->values.row(i).cast<double>().transpose(), s) / 40.0;
    const Evaluation ev = t.evaluate(false);
    QVERIFY(!ev.hasBound);
    QVERIFY2(std::abs(ev.metrics.at("perplexity") - perplexity) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(ev.metrics.at("perplexity")).arg(perplexity)));
    QVERIFY(ev.preview && ev.preview->covariance);
    QVERIFY((ev.preview->covariance->empirical - s).norm() < 1e-10);
    // Ledoit–Wolf on the same rows is the shrinkage of that estimate.
    GpfaTrainer lw(d, GpfaAlgorithm::LedoitWolf, GpfaOptions(), 1);
    lw.step(1);
    QVERIFY(lw.shrinkage() > 0.0 && lw.shrinkage() < 1.0);
    Eigen::MatrixXd shrunk = (1 - lw.shrinkage()) * s;
    shrunk.diagonal().array() += lw.shrinkage() * s.trace() / 6.0;
    QVERIFY((lw.covariance(0) - shrunk).norm() < 1e-10);
    // One training row: a singular estimate, which cannot score — the run says diverged.
    GpfaOptions one;
    one.trainRows = 1;
    GpfaTrainer single(d, GpfaAlgorithm::Empirical, one, 1);
    single.step(1);
    QVERIFY(single.diverged());
}

// The scorer against closed forms: a row's density (Missing entries marginalised), and the
// conditional of held-out entries given observed ones for a correlated pair, y2 | y1 ~ N(ρ
// s2/s1 y1, s2²(1 − ρ²)).
void TestGpfa::scoresAreGaussianDensities()
{
    const double s1 = 1.5, s2 = 0.8, rho = 0.6;
    Eigen::Matrix3d c;
    c << s1 * s1, rho * s1 * s2, 0.1, rho * s1 * s2, s2 * s2, -0.2, 0.1, -0.2, 2.0;
    const gpfa::GaussianScorer scorer(c);
    QVERIFY(scorer.valid());
    DenseData d;
    d.values.resize(1, 3);
    d.values << 0.7f, -0.4f, 1.1f;
    d.roles.setConstant(1, 3, std::uint8_t(EntryRole::Observed));
    gpfa::GaussianScorer::Workspace ws(3);
    const double full = gaussianLogDensity(d.values.row(0).cast<double>().transpose(), c);
    QVERIFY(std::abs(scorer.logDensity(d, 0, ws) - full) < 1e-12);
    // Entry 3 missing: the pair's bivariate density.
    d.roles(0, 2) = std::uint8_t(EntryRole::Missing);
    const double pair = gaussianLogDensity(d.values.row(0).head(2).cast<double>().transpose(),
                                           c.topLeftCorner(2, 2));
    QVERIFY(std::abs(scorer.logDensity(d, 0, ws) - pair) < 1e-12);
    // Entry 2 held out, given entry 1 (entry 3 still missing).
    d.roles(0, 1) = std::uint8_t(EntryRole::HeldOut);
    const double y1 = d.values(0, 0), y2 = d.values(0, 1);
    const double mean = rho * s2 / s1 * y1, var = s2 * s2 * (1 - rho * rho);
    const double ll = -0.5 * (kLog2Pi + std::log(var) + (y2 - mean) * (y2 - mean) / var);
    const auto r = scorer.heldOutGivenObserved(d, 0, ws);
    QCOMPARE(r.count, 1);
    QVERIFY2(std::abs(r.logLik - ll) < 1e-12,
             qPrintable(QString("%1 vs %2").arg(r.logLik).arg(ll)));
    QVERIFY(std::abs(r.squaredError - (y2 - mean) * (y2 - mean)) < 1e-12);
    // Entry 3 observed again: the conditional of y2 given (y1, y3), from C's blocks.
    d.roles(0, 2) = std::uint8_t(EntryRole::Observed);
    Eigen::Matrix2d coo;
    coo << c(0, 0), c(0, 2), c(2, 0), c(2, 2);
    const Eigen::Vector2d cho(c(1, 0), c(1, 2));
    const Eigen::Vector2d yo(d.values(0, 0), d.values(0, 2));
    const double m2 = cho.dot(coo.ldlt().solve(yo));
    const double v2 = c(1, 1) - cho.dot(coo.ldlt().solve(cho));
    const auto r2 = scorer.heldOutGivenObserved(d, 0, ws);
    QVERIFY(std::abs(r2.logLik + 0.5 * (kLog2Pi + std::log(v2) + (y2 - m2) * (y2 - m2) / v2)) <
            1e-12);
    // A singular covariance scores nothing.
    const gpfa::GaussianScorer singular(Eigen::MatrixXd::Ones(3, 3));
    QVERIFY(!singular.valid());
    QVERIFY(std::isnan(singular.logDensity(d, 0, ws)));
}

// 0 at the truth, and unchanged by any permutation and (signed) scaling of either matrix's
// columns; grows as the estimate mixes the factors.
void TestGpfa::amariErrorIsInvariantAndZeroOnlyAtTheTruth()
{
    const Eigen::MatrixXd b = plantedLoadings(12, 4, 3);
    QVERIFY(amariError(b, b) < 1e-12);
    Eigen::MatrixXd permuted(12, 4);
    const int order[4] = {2, 0, 3, 1};
    const double scale[4] = {3.0, -0.5, 7.0, 0.01};
    for (int k = 0; k < 4; ++k)
        permuted.col(k) = scale[k] * b.col(order[k]);
    QVERIFY(amariError(permuted, b) < 1e-12);
    Rng rng(5);
    Eigen::MatrixXd noisy = b;
    for (Eigen::Index i = 0; i < noisy.size(); ++i)
        noisy.data()[i] += 0.2 * rng.normal();
    Eigen::MatrixXd noisyPermuted(12, 4);
    for (int k = 0; k < 4; ++k)
        noisyPermuted.col(k) = scale[k] * noisy.col(order[k]);
    const double e = amariError(noisy, b);
    QVERIFY(e > 0.01 && e < 1.0);
    QVERIFY(std::abs(amariError(noisyPermuted, b) - e) < 1e-10);
    Eigen::MatrixXd bScaled = b;
    bScaled.col(1) *= 4.0;
    QVERIFY(std::abs(amariError(noisy, bScaled) - e) < 1e-10);
    // Mixing the factors more gives a larger error.
    Eigen::Matrix4d mix = Eigen::Matrix4d::Identity();
    mix(0, 1) = 0.3;
    Eigen::Matrix4d more = Eigen::Matrix4d::Identity();
    more(0, 1) = 0.9;
    QVERIFY(amariError(b * more, b) > amariError(b * mix, b));
    // heaviestColumns keeps the largest columns, heaviest first, and pads with zeros.
    const Eigen::MatrixXd top = heaviestColumns(permuted, 2);
    QVERIFY(top.col(0) == permuted.col(2));
    QCOMPARE(heaviestColumns(b, 6).cols(), Eigen::Index(6));
    QVERIFY(heaviestColumns(b, 6).col(5).isZero());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, amariError(b, b.leftCols(3)));
}

// A = [[1, −1], [0, 1]] against B = I: with unit columns Ā = [[1, −1/√2], [0, 1/√2]] and
// P = Ā⁻¹ = [[1, 1], [0, √2]]; rows (1 + 1)/1 − 1 = 1 and √2/√2 − 1 = 0, columns 1/1 − 1 = 0
// and (1 + √2)/√2 − 1 = 1/√2: E = (1 + 1/√2)/(2 · 2 · 1). An all-zero estimated factor counts
// as the worst: P = [[1, 0], [0, 0]] → rows 0 + 1, columns 0 + 1 → 0.5.
void TestGpfa::amariErrorHandCase()
{
    Eigen::Matrix2d a;
    a << 1, -1, 0, 1;
    QVERIFY(std::abs(amariError(a, Eigen::Matrix2d::Identity()) - (1 + std::sqrt(0.5)) / 4) <
            1e-14);
    Eigen::Matrix2d z;
    z << 1, 0, 0, 0;
    QVERIFY(std::abs(amariError(z, Eigen::Matrix2d::Identity()) - 0.5) < 1e-14);
    QCOMPARE(amariError(Eigen::MatrixXd::Ones(3, 1), Eigen::MatrixXd::Ones(3, 1)), 0.0);
}

// Paper 003's data: about 20 % of loadings non-zero, in [0, 1]; the rows' covariance W Wᵀ + 0.1 I.
void TestGpfa::syntheticGeneratorDrawsThePapersData()
{
    GpfaSyntheticOptions o;
    o.N = 20000;
    const DenseDataPtr d = makeGpfaSynthetic(o);
    QCOMPARE(d->trueLoadings.rows(), Eigen::Index(50));
    QCOMPARE(d->trueLoadings.cols(), Eigen::Index(10));
    const double nonzero = double((d->trueLoadings.array() != 0.0).count()) / 500.0;
    QVERIFY2(std::abs(nonzero - 0.2) < 4.0 * std::sqrt(0.2 * 0.8 / 500),
             qPrintable(QString::number(nonzero)));
    QVERIFY(d->trueLoadings.minCoeff() >= 0.0 && d->trueLoadings.maxCoeff() <= 1.0);
    Eigen::MatrixXd truth = d->trueLoadings * d->trueLoadings.transpose();
    truth.diagonal().array() += 0.1;
    const Eigen::MatrixXd s = gpfa::empiricalCovariance(gpfa::secondMoments(*d, allRows(*d)));
    QVERIFY2(relativeError(s, truth) < 0.03, qPrintable(QString::number(relativeError(s, truth))));
    // The first rows of a larger draw are the draw of fewer rows.
    o.N = 10;
    QVERIFY(makeGpfaSynthetic(o)->values == d->values.topRows(10));
    o.density = 1.5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeGpfaSynthetic(o));
}

// generator = gpfa: the table is as drawn (not standardised), the truth reaches the DenseData;
// the default generator is BPFA's, with no truth.
void TestGpfa::syntheticKindCarriesTheTruth()
{
    const PreparedData p = prepareData({{"synthetic"},
                                        "synthetic",
                                        {{"generator", std::string("gpfa")},
                                         {"rows", std::int64_t(300)},
                                         {"cols", std::int64_t(50)},
                                         {"true_k", std::int64_t(10)},
                                         {"heldout", 0.0}}});
    const DenseDataPtr& d = p.built.data.dense;
    QVERIFY(d);
    QCOMPARE(d->trueLoadings.cols(), Eigen::Index(10));
    GpfaSyntheticOptions o;
    o.N = 300;
    o.seed = 1; // the kind's default split_seed
    const DenseDataPtr direct = makeGpfaSynthetic(o);
    QVERIFY(d->values == direct->values);
    QVERIFY(d->trueLoadings == direct->trueLoadings);
    const PreparedData b = prepareData({{"synthetic"}, "synthetic", {{"rows", std::int64_t(50)}}});
    QCOMPARE(b.built.data.dense->trueLoadings.size(), Eigen::Index(0));
}

// train_rows: the same rows for every algorithm and seed, nested as the cap grows.
void TestGpfa::trainingCapIsSharedAndNested()
{
    const DenseDataPtr d = drawData(randomLoadings(4, 2, 10), 500, 0.3, 10);
    auto rows = [&](GpfaAlgorithm a, std::int64_t cap, std::uint64_t seed) {
        GpfaOptions o = smallOptions(2);
        o.trainRows = cap;
        return GpfaTrainer(d, a, o, seed).trainingRows();
    };
    const auto small = rows(GpfaAlgorithm::GammaSgvb, 50, 1);
    QCOMPARE(small.size(), std::size_t(50));
    QVERIFY(small == rows(GpfaAlgorithm::Empirical, 50, 2));
    QVERIFY(small == rows(GpfaAlgorithm::LedoitWolf, 50, 3));
    const auto large = rows(GpfaAlgorithm::NormSgvb, 200, 4);
    for (std::int64_t i : small)
        QVERIFY(std::binary_search(large.begin(), large.end(), i));
    QCOMPARE(rows(GpfaAlgorithm::Map, 0, 1).size(), std::size_t(500));
}

void TestGpfa::badInputIsNamed()
{
    const DenseDataPtr d = drawData(randomLoadings(4, 2, 11), 40, 0.3, 11, 0.5);
    GpfaOptions o;
    o.K = 0;
    try {
        GpfaTrainer(d, GpfaAlgorithm::GammaSgvb, o, 1);
        QFAIL("K = 0 accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromStdString(plainSettingRefs(e.what())),
                 QString("K = 0, but must be in [1, 4096]"));
    }
    // An entry split with every training row incomplete: the baselines have nothing to
    // estimate from, and say which setting to change.
    auto holed = std::make_shared<DenseData>(*d);
    for (std::int64_t i = 0; i < holed->rows(); ++i)
        holed->roles(i, 0) = std::uint8_t(EntryRole::HeldOut);
    try {
        GpfaTrainer(holed, GpfaAlgorithm::Empirical, GpfaOptions(), 1);
        QFAIL("no complete row accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("split = rows"), e.what());
    }
    // …while the SGVB algorithms fit those rows through their marginals.
    GpfaTrainer t(holed, GpfaAlgorithm::GammaSgvb, smallOptions(2), 1);
    t.step(1);
    QVERIFY(!t.diverged());
    QVERIFY(t.evaluate(false).metrics.count("heldout_loglik"));
    // No observed entry at all.
    auto empty = std::make_shared<DenseData>(*d);
    empty->roles.setConstant(std::uint8_t(EntryRole::Missing));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             GpfaTrainer(empty, GpfaAlgorithm::GammaSgvb, smallOptions(2), 1));
}

// Planted sparse non-negative loadings, D = 20, K' = 4, N = 2,000, noise variance 0.1: gamma
// SGVB with K = 5 (a truncation above the truth, as the gamma process allows) through the
// registry's defaults but K recovers them — its four heaviest factors have an Amari error below
// 0.05 after 1,500 steps (0.004–0.010 over seeds 1–3 when this was written), are non-negative
// and zero where the truth is. (With K = 8 the fit splits
// each true factor into two halves, w/√2 each — the same W Wᵀ at a higher bound — which the
// Amari error of the heaviest four columns charges as a failure.)
void TestGpfa::recoversPlantedSparseLoadings()
{
    const Eigen::MatrixXd w = plantedLoadings(20, 4, 12);
    const DenseDataPtr d = drawData(w, 2000, 0.1, 12);
    GpfaTrainer t(d, GpfaAlgorithm::GammaSgvb, smallOptions(5), 3);
    for (std::int64_t s = 1; s <= 1500; ++s)
        t.step(s);
    QVERIFY(!t.diverged());
    const Evaluation ev = t.evaluate(false);
    const double amari = ev.metrics.at("amari_error");
    QVERIFY2(amari < 0.05, qPrintable(QString("Amari error %1").arg(amari)));
    // Sparse and non-negative: where the truth is zero, the fitted loading (matched to its true
    // factor by the largest overlap, scaled to it) is below 0.05; where it is not, above 0.3.
    const Eigen::MatrixXd ew = heaviestColumns(t.meanLoadings(), 4);
    QVERIFY(ew.minCoeff() >= 0.0);
    for (int k = 0; k < 4; ++k) {
        Eigen::Index j = 0;
        (w.transpose() * ew.col(k)).maxCoeff(&j);
        const Eigen::VectorXd fitted = ew.col(k) * (w.col(j).norm() / ew.col(k).norm());
        for (int dim = 0; dim < 20; ++dim)
            QVERIFY2(w(dim, j) == 0.0 ? fitted[dim] < 0.05 : fitted[dim] > 0.3,
                     qPrintable(QString("factor %1, dimension %2: true %3, fitted %4")
                                    .arg(j)
                                    .arg(dim)
                                    .arg(w(dim, j))
                                    .arg(fitted[dim])));
    }
    Eigen::MatrixXd truth = w * w.transpose();
    truth.diagonal().array() += 0.1;
    // Ĉ is larger than the truth at this point (by 38 %, Frobenius, when this was written; the
    // empirical covariance is within 8 %): the factorised q is still broad (shapes about 20
    // where the posterior's would be about 1,000) and a broad q biases the means of W up, as
    // log |C| + tr(C⁻¹S) rises more slowly above its minimum than below. It shrinks slowly
    // with more steps (19 % after 10,000) — the reason GPFA loses to the empirical covariance
    // at large N in paper 003's Figure 5.
    const double err = relativeError(t.covariance(1), truth);
    QVERIFY2(err < 0.5, qPrintable(QString("covariance error %1").arg(err)));
    // σ converges last (AdaDelta moves its concentrated q slowly): within 25 % of √0.1.
    const double noise = ev.metrics.at("noise_sd");
    QVERIFY2(std::abs(noise - std::sqrt(0.1)) < 0.08, qPrintable(QString::number(noise)));
    QVERIFY(ev.metrics.at("factors_used") >= 4);
}

// Few rows (N = 40 of D = 20, Figure 5's left end): the expected NLL of a new row from the true
// N(0, C), ½ (D log 2π + log |Ĉ| + tr(Ĉ⁻¹ C)), the perplexity over an infinite test set. GPFA's
// Ĉ (eq. 20, 1,000 steps) beats the empirical covariance on each of five data sets (by 3–10
// nats when this was written), and Ledoit–Wolf's on average (by about 0.4 nats).
void TestGpfa::beatsTheEmpiricalCovarianceAtSmallN()
{
    const Eigen::MatrixXd w = plantedLoadings(20, 4, 13);
    Eigen::MatrixXd truth = w * w.transpose();
    truth.diagonal().array() += 0.1;
    auto expectedNll = [&](const Eigen::MatrixXd& c) {
        const Eigen::LLT<Eigen::MatrixXd> llt(c);
        const Eigen::MatrixXd l = llt.matrixL();
        return 0.5 *
               (20 * kLog2Pi + 2.0 * l.diagonal().array().log().sum() + llt.solve(truth).trace());
    };
    double gpfaSum = 0.0, lwSum = 0.0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        const DenseDataPtr d = drawData(w, 40, 0.1, 100 + seed);
        GpfaTrainer t(d, GpfaAlgorithm::GammaSgvb, smallOptions(5), seed);
        for (std::int64_t s = 1; s <= 1000; ++s)
            t.step(s);
        GpfaTrainer e(d, GpfaAlgorithm::Empirical, GpfaOptions(), seed);
        GpfaTrainer lw(d, GpfaAlgorithm::LedoitWolf, GpfaOptions(), seed);
        e.step(1);
        lw.step(1);
        const double g = expectedNll(t.covariance(1));
        const double em = expectedNll(e.covariance(0));
        const double l = expectedNll(lw.covariance(0));
        QVERIFY2(g < em, qPrintable(QString("seed %1: GPFA %2, empirical %3, Ledoit–Wolf %4")
                                        .arg(seed)
                                        .arg(g)
                                        .arg(em)
                                        .arg(l)));
        gpfaSum += g;
        lwSum += l;
    }
    QVERIFY2(
        gpfaSum < lwSum,
        qPrintable(QString("GPFA %1, Ledoit–Wolf %2 (means)").arg(gpfaSum / 5).arg(lwSum / 5)));
}

QTEST_GUILESS_MAIN(TestGpfa)
#include "test_gpfa.moc"
