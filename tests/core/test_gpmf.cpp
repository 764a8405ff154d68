// Generalized PMF (paper 002, Sec. 3.6, 4.4): the observations each likelihood reads from
// ratings and counts, the column update at ρ = 1 against the fixed-point update computed here
// from the equations, the draws of the other column against q's covariance, eq. 68, the
// predictive variance of uᵀv against sampling, the artificial matrices, and recovery of planted
// factors for each likelihood.

#include "core/models/gpmf/gpmf.h"
#include "core/models/gpmf/gpmf_trainer.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <QtTest>
#include <cmath>
#include <initializer_list>
#include <set>
#include <span>

using namespace svi;
using gpmf::Observation;
using Side = GpmfTrainer::Side;

namespace {

// A users × items CountData holding `y` (dense; NaN = unobserved) with a seeded share of the
// observed entries held out.
CountDataPtr matrixData(const Eigen::MatrixXd& y, const std::string& values, bool zeros,
                        double heldOut = 0.0, std::uint64_t seed = 3)
{
    auto d = std::make_shared<CountData>();
    d->kind = "ratings";
    d->values = values;
    d->observedZeros = zeros;
    d->vocabularySize = y.cols();
    d->source = "test matrix";
    Rng rng(seed);
    for (Eigen::Index u = 0; u < y.rows(); ++u) {
        std::vector<std::int32_t> tc, hc;
        std::vector<float> ty, hy;
        for (Eigen::Index i = 0; i < y.cols(); ++i) {
            if (std::isnan(y(u, i)))
                continue;
            const bool held = rng.uniform() < heldOut;
            (held ? hc : tc).push_back(std::int32_t(i));
            (held ? hy : ty).push_back(float(y(u, i)));
        }
        d->train.appendRow(tc, ty);
        d->heldOut.appendRow(hc, hy);
    }
    d->finalise();
    return d;
}

GpmfOptions smallOptions(int D)
{
    GpmfOptions o;
    o.D = D;
    o.evalEntries = 100000;
    return o;
}

// Planted factors U, V ~ N(0, 2 I) (D × N, D × M) and every entry drawn from `lik` at
// f = UᵀV; returns y and sets f.
Eigen::MatrixXd plantedMatrix(int D, int N, int M, const Likelihood& lik, Rng& rng,
                              Eigen::MatrixXd& f)
{
    Eigen::MatrixXd U(D, N), V(D, M);
    for (Eigen::Index k = 0; k < U.size(); ++k)
        U.data()[k] = std::sqrt(2.0) * rng.normal();
    for (Eigen::Index k = 0; k < V.size(); ++k)
        V.data()[k] = std::sqrt(2.0) * rng.normal();
    f = U.transpose() * V;
    Eigen::MatrixXd y(N, M);
    for (Eigen::Index k = 0; k < y.size(); ++k)
        y.data()[k] = lik.sample(f.data()[k], rng);
    return y;
}

double correlation(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    const Eigen::ArrayXd x = a.array() - a.mean(), y = b.array() - b.mean();
    return (x * y).sum() / std::sqrt((x * x).sum() * (y * y).sum());
}

} // namespace

class TestGpmf : public QObject
{
    Q_OBJECT

private slots:
    // Ratings 1 and 5 become 0 and 1 (the rest dropped); stars are ordinal categories, half
    // stars rounded up or doubled; counts stay counts; mappings that do not fit are refused
    // naming the field, a value outside the support naming the user and item.
    void observationsFromRatings()
    {
        Eigen::MatrixXd y(3, 4);
        y << 1, 5, 3, NAN, 4, 5, 1, 2, NAN, 2, 5, 1;
        const CountDataPtr stars = matrixData(y, "stars", false);
        const gpmf::Observations b =
            gpmf::makeObservations(*stars, Observation::Binary, 0, gpmf::HalfStars::Round);
        QCOMPARE(b.trainCount(), std::int64_t(6));
        QCOMPARE(b.dropped, std::int64_t(4)); // 3, 4, 2, 2
        QCOMPARE(b.byUser.y, (std::vector<float>{0, 1, 1, 0, 1, 0}));
        QCOMPARE(b.byUser.other, (std::vector<std::int32_t>{0, 1, 1, 2, 2, 3}));
        // The same entries by item: item 1 holds users 0, 1 (both 5 → 1).
        QCOMPARE(b.byItem.size(1), std::int64_t(2));
        QCOMPARE(b.byItem.y[std::size_t(b.byItem.start[1])], 1.0f);
        QVERIFY(QString::fromStdString(b.mapping).contains("1 → 0 and 5 → 1"));

        const gpmf::Observations o =
            gpmf::makeObservations(*stars, Observation::Ordinal, 0, gpmf::HalfStars::Round);
        QCOMPARE(o.categories, 5);
        QCOMPARE(o.trainCount(), std::int64_t(10));
        QCOMPARE(o.dropped, std::int64_t(0));

        Eigen::MatrixXd h(1, 3);
        h << 0.5, 3.5, 5;
        const CountDataPtr halves = matrixData(h, "stars", false);
        QCOMPARE(gpmf::makeObservations(*halves, Observation::Ordinal, 0, gpmf::HalfStars::Round)
                     .byUser.y,
                 (std::vector<float>{1, 4, 5}));
        const gpmf::Observations scaled =
            gpmf::makeObservations(*halves, Observation::Ordinal, 0, gpmf::HalfStars::Scale);
        QCOMPARE(scaled.byUser.y, (std::vector<float>{1, 7, 10}));
        QCOMPARE(scaled.categories, 10);

        const auto error = [](auto&& fn) {
            try {
                fn();
            } catch (const std::invalid_argument& e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        // Binarised ratings hold only 1s; counts cannot be ordinal; C below the data's largest.
        QVERIFY(error([&] {
                    gpmf::makeObservations(*matrixData(y.cwiseMin(1.0), "binary", false),
                                           Observation::Binary, 0, gpmf::HalfStars::Round);
                }).contains("binarize = 0"));
        QVERIFY(error([&] {
                    gpmf::makeObservations(*matrixData(y, "counts", false), Observation::Ordinal, 0,
                                           gpmf::HalfStars::Round);
                }).startsWith("likelihood = ordinal"));
        QVERIFY(error([&] {
                    gpmf::makeObservations(*stars, Observation::Ordinal, 4, gpmf::HalfStars::Round);
                }).contains("largest category in 'test matrix', 5"));
        // A half star read as a count names its user and item (ids 1-based when not given).
        QCOMPARE(error([&] {
                     gpmf::makeObservations(*halves, Observation::Count, 0, gpmf::HalfStars::Round);
                 }),
                 QString("'test matrix': user 1, item 1: 0.5 is not a count (a whole number ≥ 0) "
                         "(likelihood = count)"));
        // auto follows the data's values.
        QCOMPARE(observationFor("auto", *stars), Observation::Ordinal);
        QCOMPARE(observationFor("auto", *matrixData(y, "counts", false)), Observation::Count);
        QCOMPARE(observationFor("auto", *matrixData(y, "binary", true)), Observation::Binary);
    }

    // With q(u_i) collapsed to its mean (S = 10⁻²⁴ I) and quadrature over f, a column update of
    // MC-SSVI at ρ = 1 is the fixed-point update of eq. 51 and its mean's counterpart, computed
    // here from the old q(v_j): S⁻¹ = Σ⁻¹ − 2 Σ_i γ_i u_i u_iᵀ, S⁻¹m = Σ_i (α_i − 2γ_i u_iᵀm) u_i,
    // for each likelihood and for both covariance forms. A subsample of half the column scales
    // its sums by 2.
    void columnStepAtRhoOneIsTheFixedPoint_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("form");
        for (int k : {0, 1, 2})
            for (int f : {0, 1})
                QTest::addRow("%s %s", gpmf::observationName(Observation(k)).c_str(),
                              f == 0 ? "full" : "diagonal")
                    << k << f;
    }
    void columnStepAtRhoOneIsTheFixedPoint()
    {
        QFETCH(int, kind);
        QFETCH(int, form);
        const int D = 3, N = 12;
        Eigen::MatrixXd y(N, 2);
        Rng rng(11);
        for (int u = 0; u < N; ++u)
            for (int i = 0; i < 2; ++i)
                y(u, i) = kind == 0   ? double(rng.bernoulli(0.5))
                          : kind == 1 ? double(rng.below(6))
                                      : double(1 + rng.below(5));
        const char* values = kind == 0 ? "binary" : kind == 1 ? "counts" : "ordinal";
        GpmfOptions o = smallOptions(D);
        o.covariance = CovarianceForm(form);
        o.estimator = ExpectationEstimator::Quadrature;
        o.samples = 40;
        o.outerSamples = 1;
        o.learnPrior = false;
        o.priorVariance = 0.7;
        o.slope = 2.0; // a gentle ordinal, so that quadrature is exact to many digits
        o.delta = 1.0;
        GpmfTrainer tr(matrixData(y, values, true), LgmAlgorithm::McSsvi, o, 5);
        for (int u = 0; u < N; ++u)
            tr.q(Side::Users, u).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
        const GaussianQ before = tr.q(Side::Items, 1);
        Eigen::MatrixXd S0 = before.covariance();
        const Eigen::VectorXd m0 = before.mean();
        Eigen::MatrixXd precision = Eigen::MatrixXd::Identity(D, D) / 0.7;
        Eigen::VectorXd b = Eigen::VectorXd::Zero(D);
        const GaussHermite gh(40);
        const auto& lik = tr.likelihood();
        for (int u = 0; u < N; ++u) {
            const Eigen::VectorXd h = tr.q(Side::Users, u).mean();
            const double m = h.dot(m0), v = h.dot(S0 * h);
            const double alpha = gh.expect(m, v, [&](double f) {
                double d1, d2;
                lik.derivatives(y(u, 1), f, d1, d2);
                return d1;
            });
            const double gamma = 0.5 * gh.expect(m, v, [&](double f) {
                double d1, d2;
                lik.derivatives(y(u, 1), f, d1, d2);
                return d2;
            });
            precision -= 2.0 * gamma * h * h.transpose();
            b += (alpha - 2.0 * gamma * h.dot(m0)) * h;
        }
        QCOMPARE(tr.updateColumn(Side::Items, 1, 1.0, 1), 1.0);
        const GaussianQ& after = tr.q(Side::Items, 1);
        if (form == 1) { // diagonal q: the diagonal of the precision, the mean of its fixed point
            const Eigen::VectorXd p = precision.diagonal();
            QVERIFY2((after.variances().cwiseInverse() - p).norm() < 1e-8 * p.norm(),
                     qPrintable(QString("%1 vs %2").arg(after.variances()[0]).arg(1 / p[0])));
            const Eigen::VectorXd mean =
                (b - (precision - Eigen::MatrixXd(p.asDiagonal())) * m0).cwiseQuotient(p);
            QVERIFY2((after.mean() - mean).norm() < 1e-8 * (1 + mean.norm()),
                     qPrintable(QString("%1").arg((after.mean() - mean).norm())));
            return;
        }
        const Eigen::MatrixXd Sinv = after.covariance().inverse();
        QVERIFY2((Sinv - precision).norm() < 1e-8 * precision.norm(),
                 qPrintable(QString("%1").arg((Sinv - precision).norm())));
        const Eigen::VectorXd mean = precision.ldlt().solve(b);
        QVERIFY2((after.mean() - mean).norm() < 1e-8 * (1 + mean.norm()),
                 qPrintable(QString("%1 vs %2").arg(after.mean()[0]).arg(mean[0])));
    }

    // A subsample of a column's entries is scaled by |O_j|/|M|: where every entry of the column
    // is alike (one y, one q(u)), half of them give the derivatives of all of them.
    void subsampleIsScaled()
    {
        const int D = 2, N = 10;
        const Eigen::MatrixXd y = Eigen::MatrixXd::Constant(N, 1, 3.0);
        GpmfOptions o = smallOptions(D);
        o.estimator = ExpectationEstimator::Quadrature;
        o.outerSamples = 1;
        const auto gradients = [&](std::int64_t subsample) {
            o.subsample = subsample;
            GpmfTrainer tr(matrixData(y, "counts", true), LgmAlgorithm::McSsvi, o, 5);
            for (int u = 0; u < N; ++u) {
                tr.q(Side::Users, u).setMean(Eigen::Vector2d(0.3, -0.8));
                tr.q(Side::Users, u).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
            }
            tr.updateColumn(Side::Items, 0, 1.0, 1);
            return tr.lastGradients();
        };
        const LgmGradients all = gradients(0), half = gradients(N / 2), three = gradients(3);
        QVERIFY((half.g - all.g).norm() < 1e-12 * all.g.norm());
        QVERIFY((half.gammaFull - all.gammaFull).norm() < 1e-12 * all.gammaFull.norm());
        QVERIFY((three.g - all.g).norm() < 1e-12 * all.g.norm());
        QVERIFY(all.g.norm() > 0.0);
    }

    // Unobserved entries as zeros (implicit feedback): with every zero read, a column's
    // derivatives and the bound are those of the same matrix with its zeros stored as observed
    // entries; with a sample of them, the sample is scaled to their number (its expectation).
    // Refused for the ordinal likelihood.
    void unobservedZerosAreTheFullMatrix()
    {
        const int D = 2, N = 9, M = 7;
        Eigen::MatrixXd full(N, M), sparse(N, M);
        Rng rng(31);
        for (int u = 0; u < N; ++u)
            for (int i = 0; i < M; ++i) {
                full(u, i) = double(rng.below(4));
                sparse(u, i) = full(u, i) > 0 ? full(u, i) : NAN;
            }
        GpmfOptions o = smallOptions(D);
        o.estimator = ExpectationEstimator::Quadrature;
        o.outerSamples = 1;
        o.likelihood = "count";
        const auto collapse = [&](GpmfTrainer& tr) {
            for (int u = 0; u < N; ++u)
                tr.q(Side::Users, u).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
        };
        GpmfTrainer explicitZeros(matrixData(full, "counts", true), LgmAlgorithm::McSsvi, o, 5);
        o.unobserved = "zero";
        o.zeroSamples = 1000;
        GpmfTrainer implicitZeros(matrixData(sparse, "counts", false), LgmAlgorithm::McSsvi, o, 5);
        collapse(explicitZeros);
        collapse(implicitZeros);
        QVERIFY(std::abs(implicitZeros.bound() / explicitZeros.bound() - 1.0) < 1e-12);
        explicitZeros.updateColumn(Side::Items, 3, 1.0, 1);
        implicitZeros.updateColumn(Side::Items, 3, 1.0, 1);
        const LgmGradients& a = explicitZeros.lastGradients();
        const LgmGradients& b = implicitZeros.lastGradients();
        QVERIFY((a.g - b.g).norm() < 1e-12 * a.g.norm());
        QVERIFY((a.gammaFull - b.gammaFull).norm() < 1e-12 * a.gammaFull.norm());

        // Two zeros per update: the average over many updates approaches all of them.
        o.zeroSamples = 2;
        Eigen::Vector2d mean = Eigen::Vector2d::Zero();
        const int runs = 400;
        GpmfTrainer sampled(matrixData(sparse, "counts", false), LgmAlgorithm::McSsvi, o, 5);
        collapse(sampled);
        const GaussianQ start = sampled.q(Side::Items, 3);
        for (int t = 1; t <= runs; ++t) {
            sampled.q(Side::Items, 3) = start;
            sampled.updateColumn(Side::Items, 3, 1.0, t);
            mean += sampled.lastGradients().g / runs;
        }
        QVERIFY2((mean - a.g).norm() < 0.1 * a.g.norm(),
                 qPrintable(QString("%1 vs %2").arg(mean[0]).arg(a.g[0])));

        o.likelihood = "ordinal";
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            GpmfTrainer(matrixData(sparse, "stars", false), LgmAlgorithm::McSsvi, o, 5));
    }

    // The draws of the other column follow q(u) = N(m, RᵀR): with a correlated q(u) and many
    // draws, the mean derivative g of a column matches its expectation sampled here with the
    // covariance's own Cholesky factor (a draw as m + R z, not m + Rᵀz, has covariance RRᵀ and
    // misses it by far).
    void drawsFollowTheOtherColumnsCovariance()
    {
        const int D = 2;
        const Eigen::MatrixXd y = Eigen::MatrixXd::Constant(1, 1, 1.0);
        GpmfOptions o = smallOptions(D);
        o.estimator = ExpectationEstimator::Quadrature;
        o.outerSamples = 1000;
        GpmfTrainer tr(matrixData(y, "binary", true), LgmAlgorithm::McSsvi, o, 5);
        Eigen::Matrix2d S;
        S << 4.0, 1.9, 1.9, 1.0;
        const Eigen::Vector2d mu(0.5, -1.0), mv(1.0, 2.0);
        tr.q(Side::Users, 0).setMean(mu);
        tr.q(Side::Users, 0).setCovariance(S);
        tr.q(Side::Items, 0).setMean(mv);
        tr.q(Side::Items, 0).setCovariance(0.05 * Eigen::Matrix2d::Identity());
        Eigen::Vector2d g = Eigen::Vector2d::Zero();
        const int runs = 40;
        for (int t = 1; t <= runs; ++t) {
            tr.q(Side::Items, 0).setMean(mv);
            tr.q(Side::Items, 0).setCovariance(0.05 * Eigen::Matrix2d::Identity());
            tr.updateColumn(Side::Items, 0, 1.0, t);
            g += tr.lastGradients().g / runs;
        }
        const Eigen::Matrix2d L = S.llt().matrixL();
        const GaussHermite gh(40);
        Eigen::Vector2d expected = Eigen::Vector2d::Zero();
        Rng rng(99);
        const int n = 200000;
        for (int k = 0; k < n; ++k) {
            const Eigen::Vector2d u = mu + L * Eigen::Vector2d(rng.normal(), rng.normal());
            const double alpha = gh.expect(u.dot(mv), 0.05 * u.squaredNorm(), [&](double f) {
                double d1, d2;
                tr.likelihood().derivatives(1.0, f, d1, d2);
                return d1;
            });
            expected += alpha * u / n;
        }
        QVERIFY2((g - expected).norm() < 0.02 * expected.norm(),
                 qPrintable(QString("g (%1, %2) vs (%3, %4)")
                                .arg(g[0])
                                .arg(g[1])
                                .arg(expected[0])
                                .arg(expected[1])));
    }

    // Var(uᵀv) of two independent Gaussians against sampling.
    void productVarianceMatchesSampling()
    {
        Eigen::Matrix3d A, B;
        A << 2, 0.5, 0, 0.5, 1, 0.3, 0, 0.3, 0.5;
        B << 1, -0.4, 0.2, -0.4, 0.8, 0, 0.2, 0, 1.5;
        const Eigen::Vector3d mu(1, -0.5, 2), mv(0.3, 1.2, -0.7);
        const Eigen::Matrix3d La = A.llt().matrixL(), Lb = B.llt().matrixL();
        Rng rng(4);
        const int n = 400000;
        double s = 0, s2 = 0;
        for (int k = 0; k < n; ++k) {
            const Eigen::Vector3d u =
                mu + La * Eigen::Vector3d(rng.normal(), rng.normal(), rng.normal());
            const Eigen::Vector3d v =
                mv + Lb * Eigen::Vector3d(rng.normal(), rng.normal(), rng.normal());
            const double f = u.dot(v);
            s += f;
            s2 += f * f;
        }
        const double mean = s / n, var = s2 / n - mean * mean;
        QVERIFY(std::abs(mean - mu.dot(mv)) < 0.03);
        QVERIFY2(std::abs(var / productVariance(mu, A, mv, B) - 1.0) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(var).arg(productVariance(mu, A, mv, B))));
    }

    // σ² by eq. 68 after each column when learnt, fixed otherwise.
    void priorVarianceFollowsEq68()
    {
        Eigen::MatrixXd y(6, 5);
        Rng rng(2);
        for (Eigen::Index k = 0; k < y.size(); ++k)
            y.data()[k] = double(rng.bernoulli(0.4));
        GpmfOptions o = smallOptions(3);
        GpmfTrainer tr(matrixData(y, "binary", true), LgmAlgorithm::HybridMcSsvi, o, 5);
        for (std::int64_t t = 1; t <= 20; ++t) {
            tr.step(t);
            Side side;
            std::int64_t column = 0, n = 0;
            tr.columnOf(t, side, column, n);
            QVERIFY(std::abs(tr.priorVariance(side) / tr.priorVarianceFit(side) - 1) < 1e-12);
            if (t <= 6) // no item updated yet: σ_V² is still the start
                QCOMPARE(tr.priorVariance(Side::Items), 1.0);
        }
        o.learnPrior = false;
        GpmfTrainer fixed(matrixData(y, "binary", true), LgmAlgorithm::HybridMcSsvi, o, 5);
        for (std::int64_t t = 1; t <= 20; ++t)
            fixed.step(t);
        QCOMPARE(fixed.priorVariance(Side::Items), 1.0);
        // The round robin: users first, then items, then again with n = 2.
        Side side;
        std::int64_t column = 0, n = 0;
        tr.columnOf(6, side, column, n);
        QVERIFY(side == Side::Users && column == 5 && n == 1);
        tr.columnOf(7, side, column, n);
        QVERIFY(side == Side::Items && column == 0 && n == 1);
        tr.columnOf(12, side, column, n);
        QVERIFY(side == Side::Users && column == 0 && n == 2);
    }

    // The artificial matrices: fully observed, the held-out share as asked, values in the
    // likelihood's support, reproducible from the seed.
    void syntheticMatrices()
    {
        for (Observation kind : {Observation::Binary, Observation::Count, Observation::Ordinal}) {
            gpmf::SyntheticMatrixOptions o;
            o.users = 60;
            o.items = 50;
            o.dim = 10;
            o.kind = kind;
            const CountDataPtr d = gpmf::makeSyntheticMatrix(o);
            QCOMPARE(d->train.nonZeros() + d->heldOut.nonZeros(), std::int64_t(3000));
            QVERIFY(std::abs(double(d->heldOut.nonZeros()) / 3000 - 0.2) < 0.03);
            QVERIFY(d->observedZeros);
            const auto lik = gpmf::makeObservationLikelihood(kind, 5, 100, 15);
            std::set<float> seen;
            for (float v : d->train.counts) {
                QVERIFY(!lik->outsideSupport(v));
                seen.insert(v);
            }
            QVERIFY(seen.size() >= 2);
            QCOMPARE(gpmf::makeSyntheticMatrix(o)->train.counts, d->train.counts);
            o.seed = 2;
            QVERIFY(gpmf::makeSyntheticMatrix(o)->train.counts != d->train.counts);
        }
    }

    // Planted factors are recovered: U, V ~ N(0, 2 I) with D = 2, every entry drawn from the
    // likelihood, 20 % held out; after H-MC-SSVI's sweeps the posterior means' products follow
    // the true f_ij, and the test measures beat what the data alone give. Under the sanitizers
    // (8,800 steps a row, 2 minutes for six) binary data alone, by both algorithms: the other
    // likelihoods' code is checked there by columnStepAtRhoOneIsTheFixedPoint.
    void recoversPlantedFactors_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("algorithm");
#ifdef SVI_SANITIZED
        const std::initializer_list<int> kinds = {0};
#else
        const std::initializer_list<int> kinds = {0, 1, 2};
#endif
        for (int k : kinds) {
            QTest::addRow("%s h-mc-ssvi", gpmf::observationName(Observation(k)).c_str())
                << k << int(LgmAlgorithm::HybridMcSsvi);
            QTest::addRow("%s s-dsvi", gpmf::observationName(Observation(k)).c_str())
                << k << int(LgmAlgorithm::SDsvi);
        }
    }
    void recoversPlantedFactors()
    {
        QFETCH(int, kind);
        QFETCH(int, algorithm);
        const int D = 2, N = 120, M = 100;
        Rng rng(17);
        const auto lik = gpmf::makeObservationLikelihood(Observation(kind), 5, 3.0, 2.0);
        Eigen::MatrixXd f;
        const Eigen::MatrixXd y = plantedMatrix(D, N, M, *lik, rng, f);
        GpmfOptions o = smallOptions(D);
        o.slope = 3.0;
        o.delta = 2.0;
        const char* values = kind == 0 ? "binary" : kind == 1 ? "counts" : "ordinal";
        GpmfTrainer tr(matrixData(y, values, true, 0.2), LgmAlgorithm(algorithm), o, 8);
        const Evaluation start = tr.evaluate(true);
        for (std::int64_t t = 1; t <= 40 * (N + M); ++t)
            tr.step(t);
        QVERIFY(!tr.diverged());
        Eigen::VectorXd fit(N * M), truth(N * M);
        for (int u = 0; u < N; ++u)
            for (int i = 0; i < M; ++i) {
                fit[u * M + i] = tr.q(Side::Users, u).mean().dot(tr.q(Side::Items, i).mean());
                truth[u * M + i] = f(u, i);
            }
        const double r = correlation(fit, truth);
        const Evaluation end = tr.evaluate(true);
        qInfo("%s: corr %.3f, test NLL %.3f → %.3f, bound %.0f → %.0f", values, r,
              start.metrics.at("test_nll"), end.metrics.at("test_nll"), start.elbo, end.elbo);
        QVERIFY2(r > 0.9, qPrintable(QString::number(r)));
        QVERIFY(end.metrics.at("test_nll") < start.metrics.at("test_nll"));
        QVERIFY(end.elbo > start.elbo);
        if (kind == 0) { // within 3 points of the Bayes error E σ(−|f|) of these factors
            double bayes = 0.0;
            for (Eigen::Index k = 0; k < truth.size(); ++k)
                bayes += 1.0 / (1.0 + std::exp(std::abs(truth[k]))) / double(truth.size());
            QVERIFY2(
                end.metrics.at("test_error") < 100.0 * bayes + 3.0,
                qPrintable(QString("%1 vs %2").arg(end.metrics.at("test_error")).arg(100 * bayes)));
        }
    }

    // learn_cuts: from cut points far too close (δ = 0.4 where the data were drawn with δ = 2),
    // the learnt ones spread out and the fit beats the same run with them fixed; the cut
    // points stay increasing. Off for other likelihoods.
    void learntCutPoints()
    {
        const int D = 2, N = 100, M = 80;
        Rng rng(23);
        const auto truth = makeOrdinalLikelihood(ordinalCuts(5, 2.0), 3.0);
        Eigen::MatrixXd f;
        const Eigen::MatrixXd y = plantedMatrix(D, N, M, *truth, rng, f);
        GpmfOptions o = smallOptions(D);
        o.slope = 3.0;
        o.delta = 0.4;
        const auto fit = [&](bool learn) {
            o.learnCuts = learn;
            GpmfTrainer tr(matrixData(y, "ordinal", true, 0.2), LgmAlgorithm::HybridMcSsvi, o, 4);
            for (std::int64_t t = 1; t <= 30 * (N + M); ++t)
                tr.step(t);
            return std::make_pair(tr.evaluate(true).metrics.at("test_nll"),
                                  ordinalCutsOf(tr.likelihood()));
        };
        const auto [fixedNll, fixedCuts] = fit(false);
        const auto [learntNll, learntCuts] = fit(true);
        QCOMPARE(fixedCuts, ordinalCuts(5, 0.4));
        qInfo("test NLL fixed %.4f, learnt %.4f; cuts %.3f %.3f %.3f %.3f", fixedNll, learntNll,
              learntCuts[0], learntCuts[1], learntCuts[2], learntCuts[3]);
        QVERIFY(learntNll < fixedNll);
        QVERIFY(learntCuts[3] - learntCuts[0] > 2.0 * (fixedCuts[3] - fixedCuts[0]));
        for (std::size_t k = 1; k < learntCuts.size(); ++k)
            QVERIFY(learntCuts[k] > learntCuts[k - 1]);
    }

    // The held-out measures on a case computed by hand: every q collapsed to its mean (S = 10⁻²⁴ I)
    // so that the predictive is the likelihood at f = m_uᵀm_v; every entry held out.
    void testMeasuresByHand()
    {
        const int D = 1;
        const auto collapsed = [&](GpmfTrainer& tr, const Eigen::VectorXd& u,
                                   const Eigen::VectorXd& v) {
            for (int k = 0; k < u.size(); ++k) {
                tr.q(Side::Users, k).setMean(u.segment(k, 1));
                tr.q(Side::Users, k).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
            }
            for (int k = 0; k < v.size(); ++k) {
                tr.q(Side::Items, k).setMean(v.segment(k, 1));
                tr.q(Side::Items, k).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
            }
        };
        // Counts: f = (1, −2; 0.5, −1) for users (1, 0.5) and items (1, −2); the rate is
        // log(1 + e^f). A training entry per user keeps every column fitted; the rest held out.
        Eigen::MatrixXd y(2, 3);
        y << 3, 0, 1, 0, 2, 4;
        GpmfOptions o = smallOptions(D);
        o.likelihood = "count";
        const auto data = [&](const Eigen::MatrixXd& values, const char* kind) {
            // Columns 0, 1 held out; column 2 the training entry of each user.
            auto d = std::const_pointer_cast<CountData>(matrixData(values.leftCols(2), kind, true));
            std::swap(d->train, d->heldOut);
            d->train = SparseRows();
            d->vocabularySize = 3;
            for (Eigen::Index u = 0; u < values.rows(); ++u) {
                const std::int32_t col = 2;
                const float v = float(values(u, 2));
                d->train.appendRow(std::span(&col, 1), std::span(&v, 1));
            }
            return CountDataPtr(d);
        };
        const Eigen::MatrixXd counts = y.leftCols(2);
        Eigen::MatrixXd withTrain(2, 3);
        withTrain << counts, Eigen::Vector2d(1, 1);
        GpmfTrainer tr(data(withTrain, "counts"), LgmAlgorithm::HybridMcSsvi, o, 5);
        collapsed(tr, Eigen::Vector2d(1, 0.5), Eigen::Vector3d(1, -2, 0));
        const auto lik = gpmf::makeObservationLikelihood(Observation::Count, 5, 1, 1);
        double nll = 0, sq = 0, rel = 0, relN = 0, zeroWrong = 0, zeroN = 0, n = 0;
        for (int u = 0; u < 2; ++u)
            for (int i = 0; i < 2; ++i) {
                const double f = (u == 0 ? 1.0 : 0.5) * (i == 0 ? 1.0 : -2.0);
                const double yy = counts(u, i), mean = std::log1p(std::exp(f));
                nll -= lik->logLik(yy, f);
                sq += (mean - yy) * (mean - yy);
                if (yy > 0) {
                    rel += std::abs(mean - yy) / yy;
                    ++relN;
                } else {
                    zeroWrong += mean >= 0.5 ? 1 : 0;
                    ++zeroN;
                }
                ++n;
            }
        const Evaluation ev = tr.evaluate(true);
        QVERIFY(std::abs(ev.metrics.at("test_nll") - nll / n) < 1e-9);
        QVERIFY(std::abs(ev.metrics.at("heldout_loglik") + nll / n) < 1e-9);
        QVERIFY(std::abs(ev.metrics.at("rmse") - std::sqrt(sq / n)) < 1e-9);
        QVERIFY(std::abs(ev.metrics.at("test_relative_error") - rel / relN) < 1e-9);
        QVERIFY(std::abs(ev.metrics.at("test_nonzero_error") - 100 * zeroWrong / zeroN) < 1e-9);
        QVERIFY(!ev.metrics.count("precision_at_20")); // fully observed: nothing to rank

        // Binary: p(y = 1) = σ(f); f = 1 → 1 (right), f = −2 → 0 (right), f = 0.5 → 0 (wrong),
        // f = −1 → 1 (wrong): 50 %.
        Eigen::MatrixXd b(2, 3);
        b << 1, 0, 1, 0, 1, 1;
        o.likelihood = "binary";
        GpmfTrainer bt(data(b, "binary"), LgmAlgorithm::HybridMcSsvi, o, 5);
        collapsed(bt, Eigen::Vector2d(1, 0.5), Eigen::Vector3d(1, -2, 0));
        QVERIFY(std::abs(bt.evaluate(true).metrics.at("test_error") - 50.0) < 1e-9);

        // Ordinal (cut points −1, 0, 1, slope 50, nearly a step): f = 1.5, −3, 0.75, −1.5 give
        // ŷ ≈ 4, 1, 3, 1, so |ŷ − y| for y = 3, 1, 3, 2 is 1, 0, 0, 1: 0.5.
        Eigen::MatrixXd c(2, 3);
        c << 3, 1, 2, 3, 2, 2;
        o.likelihood = "ordinal";
        o.categories = 4;
        o.slope = 50;
        o.delta = 1;
        GpmfTrainer ot(data(c, "ordinal"), LgmAlgorithm::HybridMcSsvi, o, 5);
        collapsed(ot, Eigen::Vector2d(1.5, 0.75), Eigen::Vector3d(1, -2, 0));
        QVERIFY2(std::abs(ot.evaluate(true).metrics.at("test_abs_error") - 0.5) < 1e-4,
                 qPrintable(QString::number(ot.evaluate(true).metrics.at("test_abs_error"))));
    }

    // The bound at collapsed users' q (so that its draws of u_i are exact): Σ of each entry's
    // E[log p(y | f)] under f ~ N(m_uᵀm_v, m_uᵀS_v m_u), by 60-node quadrature here, minus the
    // KL of every column to its prior, N(0, σ² I) in closed form.
    void boundByHand()
    {
        const int D = 2, N = 4, M = 3;
        Eigen::MatrixXd y(N, M);
        y << 0, 2, 5, 1, 0, 3, 4, 1, 0, 2, 2, 1;
        GpmfOptions o = smallOptions(D);
        o.likelihood = "count";
        GpmfTrainer tr(matrixData(y, "counts", true), LgmAlgorithm::HybridMcSsvi, o, 5);
        Rng rng(8);
        for (int u = 0; u < N; ++u)
            tr.q(Side::Users, u).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
        Eigen::Matrix2d S;
        S << 0.6, 0.2, 0.2, 0.3;
        for (int i = 0; i < M; ++i)
            tr.q(Side::Items, i).setCovariance((1.0 + i) * S);
        const GaussHermite gh(60);
        const auto lik = gpmf::makeObservationLikelihood(Observation::Count, 5, 1, 1);
        double expected = 0.0;
        for (int u = 0; u < N; ++u)
            for (int i = 0; i < M; ++i) {
                const Eigen::VectorXd mu = tr.q(Side::Users, u).mean();
                const Eigen::VectorXd mv = tr.q(Side::Items, i).mean();
                const double v = mu.dot((1.0 + i) * S * mu);
                expected +=
                    gh.expect(mu.dot(mv), v, [&](double f) { return lik->logLik(y(u, i), f); });
            }
        const auto kl = [&](const GaussianQ& q) { // KL(N(m, S) ‖ N(0, I)), σ² = 1 here
            const Eigen::MatrixXd c = q.covariance();
            const double logDet = std::log(c.determinant());
            return 0.5 * (c.trace() + q.mean().squaredNorm() - D - logDet);
        };
        for (int u = 0; u < N; ++u)
            expected -= kl(tr.q(Side::Users, u));
        for (int i = 0; i < M; ++i)
            expected -= kl(tr.q(Side::Items, i));
        QVERIFY2(std::abs(tr.bound() - expected) < 1e-6 * std::abs(expected),
                 qPrintable(QString("%1 vs %2").arg(tr.bound()).arg(expected)));
    }

    // learn_cuts: the gradient a pass over the users' columns gathers is Σ over the entries of
    // E[∂ log p(y | f)/∂b] under f ~ N(m_vᵀm_u, m_vᵀS_u m_v) — the q each user's update started
    // from, the items' collapsed — by quadrature here; and its chain rule into b_1 and the log
    // gaps against finite differences.
    void cutGradientOfAPass()
    {
        const int D = 2, N = 5, M = 4;
        Eigen::MatrixXd y(N, M);
        Rng rng(12);
        for (Eigen::Index k = 0; k < y.size(); ++k)
            y.data()[k] = double(1 + rng.below(4));
        GpmfOptions o = smallOptions(D);
        o.likelihood = "ordinal";
        o.slope = 2.0;
        o.delta = 1.0;
        o.learnCuts = true;
        o.outerSamples = 1;
        GpmfTrainer tr(matrixData(y, "ordinal", true), LgmAlgorithm::HybridMcSsvi, o, 5);
        for (int i = 0; i < M; ++i)
            tr.q(Side::Items, i).setCovariance(1e-24 * Eigen::MatrixXd::Identity(D, D));
        Eigen::Matrix2d S;
        S << 0.5, -0.1, -0.1, 0.4;
        for (int u = 0; u < N; ++u)
            tr.q(Side::Users, u).setCovariance(S);
        const auto lik = makeOrdinalLikelihood(ordinalCuts(4, 1.0), 2.0);
        const GaussHermite gh(60);
        Eigen::VectorXd expected = Eigen::VectorXd::Zero(3);
        for (int u = 0; u < N; ++u)
            for (int i = 0; i < M; ++i) {
                const Eigen::VectorXd mu = tr.q(Side::Users, u).mean();
                const Eigen::VectorXd mv = tr.q(Side::Items, i).mean();
                const int c = int(y(u, i));
                const auto part = [&](bool upper) {
                    return gh.expect(mu.dot(mv), mv.dot(S * mv), [&](double f) {
                        double up = 0, low = 0;
                        ordinalCutDerivatives(*lik, c, f, up, low);
                        return upper ? up : low;
                    });
                };
                if (c <= 3)
                    expected[c - 1] += part(true);
                if (c >= 2)
                    expected[c - 2] += part(false);
            }
        for (std::int64_t t = 1; t <= N; ++t)
            tr.step(t);
        QVERIFY2((tr.lastCutGradient() - expected).norm() < 1e-4 * expected.norm(),
                 qPrintable(QString("%1 vs %2").arg(tr.lastCutGradient()[0]).arg(expected[0])));
        QVERIFY(ordinalCutsOf(tr.likelihood()) != ordinalCuts(4, 1.0)); // and they moved

        // The chain rule: d/dθ of Σ_l dB_l b_l(θ) by central differences.
        const Eigen::ArrayXd theta = gpmf::paramsFromCuts({-1.0, 0.5, 0.7, 2.0});
        QVERIFY(std::abs(gpmf::cutsFromParams(theta)[2] - 0.7) < 1e-12);
        const Eigen::VectorXd dB = Eigen::Vector4d(0.3, -1.2, 0.8, 0.5);
        const Eigen::ArrayXd g = gpmf::cutParamGradient(theta, dB);
        for (Eigen::Index k = 0; k < theta.size(); ++k) {
            Eigen::ArrayXd a = theta, b = theta;
            a[k] += 1e-6;
            b[k] -= 1e-6;
            const auto value = [&](const Eigen::ArrayXd& th) {
                const std::vector<double> cuts = gpmf::cutsFromParams(th);
                return Eigen::Map<const Eigen::VectorXd>(cuts.data(), 4).dot(dB);
            };
            QVERIFY(std::abs(g[k] - (value(a) - value(b)) / 2e-6) < 1e-6);
        }
    }
};

QTEST_GUILESS_MAIN(TestGpmf)
#include "test_gpmf.moc"
