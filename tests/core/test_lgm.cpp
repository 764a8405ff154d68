// The latent-Gaussian engine of paper 002 checked against independent computations: Gauss–
// Hermite moments of the normal; each likelihood's derivatives against finite differences and
// its closed-form predictive against quadrature; the Monte Carlo and reparameterised estimates
// of α and γ unbiased against closed forms; the natural-gradient step (eq. 24–25) at ρ = 1
// against the fixed point written out with a general inverse; the gradients in the mean and in
// the Cholesky factor (eq. 63–64) against finite differences of the bound; AdaGrad's rule.

#include "core/inference/gaussian_q.h"
#include "core/inference/lgm_estimates.h"
#include "core/inference/likelihoods.h"
#include "core/inference/optimizers.h"
#include "core/math/gauss_hermite.h"
#include "core/math/random.h"

#include <Eigen/LU>
#include <QtTest>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>

using namespace svi;

// Named, not anonymous: the test class's lambdas capture these types (-Wsubobject-linkage).
namespace lgm_testing {

// An SPD matrix with a spread of eigenvalues.
Eigen::MatrixXd spd(int d, Rng& rng, double ridge)
{
    Eigen::MatrixXd a(d, d);
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
            a(i, j) = rng.normal();
    return a * a.transpose() / d + ridge * Eigen::MatrixXd::Identity(d, d);
}

// A full q away from any fixed point: mean N(0, 0.2² I), covariance spd(d, rng, 0.3).
GaussianQ randomFullQ(int d, Rng& rng)
{
    GaussianQ q(d, CovarianceForm::Full, 2.0);
    Eigen::VectorXd m(d);
    for (int j = 0; j < d; ++j)
        m[j] = 0.2 * rng.normal();
    q.setMean(m);
    q.setCovariance(spd(d, rng, 0.3));
    return q;
}

MatrixRD randomRows(int n, int d, Rng& rng)
{
    MatrixRD h(n, d);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j)
            h(i, j) = rng.normal();
    return h;
}

// A Poisson (log link) problem: rows, counts, and the exact T(m, S) = Σ_i E[log p(y_i | f_i)].
struct PoissonProblem
{
    MatrixRD h;
    Eigen::VectorXd y;
    double T(const Eigen::VectorXd& m, const Eigen::MatrixXd& S) const
    {
        double t = 0.0;
        for (Eigen::Index i = 0; i < h.rows(); ++i) {
            const Eigen::VectorXd hi = h.row(i).transpose();
            const double mi = hi.dot(m), vi = hi.dot(S * hi);
            t += y[i] * mi - std::exp(mi + 0.5 * vi) - boost::math::lgamma(y[i] + 1.0);
        }
        return t;
    }
    // g and Γ by quadrature (exact to rounding for this likelihood with 40 nodes).
    LgmGradients gradients(const GaussianQ& q) const
    {
        const auto lik = makeLikelihood(LikelihoodKind::Poisson);
        const LocalEstimator est(ExpectationEstimator::Quadrature, 40);
        Eigen::VectorXd m = h * q.mean(), v(h.rows()), alpha(h.rows()), gamma(h.rows());
        MatrixRD work;
        q.marginalVariances(h, v, work);
        Rng rng(1);
        for (Eigen::Index i = 0; i < h.rows(); ++i)
            est.estimate(*lik, y[i], m[i], v[i], rng, alpha[i], gamma[i]);
        LgmGradients g;
        g.reset(q.dim(), q.form());
        g.addRows(h, alpha, gamma, q.form());
        return g;
    }
};

PoissonProblem poissonProblem(int n, int d, Rng& rng)
{
    PoissonProblem p;
    p.h = randomRows(n, d, rng) * 0.4;
    p.y.resize(n);
    for (int i = 0; i < n; ++i)
        p.y[i] = double(rng.below(5));
    return p;
}

GaussianPrior generalPrior(int d, Rng& rng)
{
    GaussianPrior p;
    const Eigen::MatrixXd sigma = spd(d, rng, 0.5);
    p.mean = Eigen::VectorXd::Zero(d);
    for (int j = 0; j < d; ++j)
        p.mean[j] = 0.3 * rng.normal();
    p.precision = sigma.inverse();
    p.logDetCovariance = std::log(sigma.determinant());
    return p;
}

} // namespace lgm_testing

using namespace lgm_testing;

class TestLgm : public QObject
{
    Q_OBJECT

private slots:
    void gaussHermiteMatchesNormalMoments()
    {
        const GaussHermite gh(10);
        QCOMPARE(gh.size(), 10);
        QVERIFY(std::abs(gh.weights().sum() - 1.0) < 1e-14);
        // E z^{2k} = (2k − 1)!!, exact for 2k ≤ 19.
        double dfact = 1.0;
        for (int k = 1; k <= 9; ++k) {
            dfact *= 2 * k - 1;
            const double e = gh.expect(0.0, 1.0, [k](double z) { return std::pow(z, 2 * k); });
            QVERIFY2(std::abs(e / dfact - 1.0) < 1e-11, qPrintable(QString::number(k)));
            QVERIFY(std::abs(gh.expect(0.0, 1.0, [k](double z) {
                        return std::pow(z, 2 * k - 1);
                    })) < 1e-9 * dfact);
        }
        // E e^f under N(m, v) is e^{m + v/2}.
        const GaussHermite gh20(20);
        QVERIFY(
            std::abs(gh20.expect(0.3, 0.8, [](double f) { return std::exp(f); }) / std::exp(0.7) -
                     1.0) < 1e-12);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, GaussHermite(0));
    }

    void gaussRayleighMatchesRayleighMoments()
    {
        // E r^{2j} = 2^j j!, E r = √(π/2), E r³ = 3√(π/2): exact for degree ≤ 2n − 1 = 31.
        const GaussRayleigh gr(16);
        QVERIFY(std::abs(gr.weights().sum() - 1.0) < 1e-14);
        QVERIFY(gr.nodes().minCoeff() > 0.0);
        double expected = 1.0;
        for (int j = 1; j <= 15; ++j) {
            expected *= 2.0 * j;
            double e = 0.0;
            for (int k = 0; k < gr.size(); ++k)
                e += gr.weights()[k] * std::pow(gr.nodes()[k], 2 * j);
            QVERIFY2(std::abs(e / expected - 1.0) < 1e-9, qPrintable(QString::number(j)));
        }
        double e1 = 0.0, e3 = 0.0;
        for (int k = 0; k < gr.size(); ++k) {
            e1 += gr.weights()[k] * gr.nodes()[k];
            e3 += gr.weights()[k] * std::pow(gr.nodes()[k], 3);
        }
        QVERIFY(std::abs(e1 - std::sqrt(M_PI / 2)) < 1e-12);
        QVERIFY(std::abs(e3 - 3 * std::sqrt(M_PI / 2)) < 1e-11);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, GaussRayleigh(0));
    }

    void derivativesMatchFiniteDifferences_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("y");
        for (double y : {0.0, 1.0}) {
            QTest::addRow("logistic y=%g", y) << int(LikelihoodKind::Logistic) << y;
            QTest::addRow("probit y=%g", y) << int(LikelihoodKind::Probit) << y;
        }
        for (double y : {0.0, 3.0, 40.0}) {
            QTest::addRow("poisson y=%g", y) << int(LikelihoodKind::Poisson) << y;
            QTest::addRow("poisson-logistic y=%g", y) << int(LikelihoodKind::PoissonLogistic) << y;
        }
        QTest::addRow("gaussian") << int(LikelihoodKind::Gaussian) << 0.7;
    }
    void derivativesMatchFiniteDifferences()
    {
        QFETCH(int, kind);
        QFETCH(double, y);
        const auto lik = makeLikelihood(LikelihoodKind(kind), 0.6);
        for (double f : {-6.0, -1.3, 0.0, 0.4, 2.5, 7.0}) {
            const double h = 1e-4;
            double d1 = 0.0, d2 = 0.0, a = 0.0, b = 0.0;
            lik->derivatives(y, f, d1, d2);
            const double fd1 = (lik->logLik(y, f + h) - lik->logLik(y, f - h)) / (2 * h);
            lik->derivatives(y, f + h, a, b);
            const double up = a;
            lik->derivatives(y, f - h, a, b);
            const double fd2 = (up - a) / (2 * h);
            QVERIFY2(std::abs(d1 - fd1) < 1e-6 * (1 + std::abs(d1)),
                     qPrintable(QString("f %1: ℓ′ %2 vs %3").arg(f).arg(d1).arg(fd1)));
            QVERIFY2(std::abs(d2 - fd2) < 1e-6 * (1 + std::abs(d2)),
                     qPrintable(QString("f %1: ℓ″ %2 vs %3").arg(f).arg(d2).arg(fd2)));
        }
    }

    // The ordinal likelihood at the paper's slope (100) and at a gentle one, every category: its
    // derivatives against finite differences, its probabilities summing to 1 over the categories
    // (and matching σ(a) − σ(b) computed directly), its mean Σ c p(c | f).
    void ordinalLikelihood()
    {
        for (double slope : {100.0, 1.5}) {
            const auto lik = makeOrdinalLikelihood(ordinalCuts(5, 15.0), slope);
            const std::vector<double> cuts = ordinalCuts(5, 15.0);
            QCOMPARE(cuts, (std::vector<double>{-22.5, -7.5, 7.5, 22.5}));
            const double h = slope > 10 ? 1e-6 : 1e-4;
            for (double f : {-30.0, -21.0, -7.6, -7.0, 0.0, 7.45, 10.0, 23.0, 40.0}) {
                double total = 0.0, mean = 0.0;
                for (int c = 1; c <= 5; ++c) {
                    const double y = c;
                    const double p = std::exp(lik->logLik(y, f));
                    const auto sig = [&](double b) { return 1.0 / (1.0 + std::exp(-slope * b)); };
                    const double hi = c == 5 ? 1.0 : sig(cuts[std::size_t(c - 1)] - f);
                    const double lo = c == 1 ? 0.0 : sig(cuts[std::size_t(c - 2)] - f);
                    QVERIFY2(std::abs(p - (hi - lo)) < 1e-12,
                             qPrintable(
                                 QString("c %1 f %2: %3 vs %4").arg(c).arg(f).arg(p).arg(hi - lo)));
                    total += p;
                    mean += c * p;
                    double d1 = 0, d2 = 0, a = 0, b = 0;
                    lik->derivatives(y, f, d1, d2);
                    if (p > 1e-250) { // log p itself is finite to difference
                        const double fd1 =
                            (lik->logLik(y, f + h) - lik->logLik(y, f - h)) / (2 * h);
                        QVERIFY2(std::abs(d1 - fd1) < 1e-5 * (1 + std::abs(d1)),
                                 qPrintable(QString("s %1 c %2 f %3: ℓ′ %4 vs %5")
                                                .arg(slope)
                                                .arg(c)
                                                .arg(f)
                                                .arg(d1)
                                                .arg(fd1)));
                    }
                    lik->derivatives(y, f + h, a, b);
                    const double up = a;
                    lik->derivatives(y, f - h, a, b);
                    const double fd2 = (up - a) / (2 * h);
                    QVERIFY2(std::abs(d2 - fd2) < 1e-4 * (1 + std::abs(d2)),
                             qPrintable(QString("s %1 c %2 f %3: ℓ″ %4 vs %5")
                                            .arg(slope)
                                            .arg(c)
                                            .arg(f)
                                            .arg(d2)
                                            .arg(fd2)));
                    QVERIFY(d2 <= 0.0);
                }
                QVERIFY(std::abs(total - 1.0) < 1e-12);
                QVERIFY(std::abs(mean - lik->mean(f)) < 1e-9);
            }
            QVERIFY(lik->outsideSupport(0.0) && lik->outsideSupport(6.0) &&
                    lik->outsideSupport(2.5) && !lik->outsideSupport(5.0));
        }
        // The derivatives in the cut points against finite differences of log p in each cut.
        const std::vector<double> cuts = {-2.0, -0.5, 1.0, 3.0};
        const auto base = makeOrdinalLikelihood(cuts, 2.5);
        for (int c = 1; c <= 5; ++c)
            for (double f : {-3.0, -0.7, 0.2, 2.0, 4.5}) {
                double up = 0, low = 0;
                ordinalCutDerivatives(*base, c, f, up, low);
                const auto fd = [&](int k) { // ∂ log p/∂b_k by central differences
                    if (k < 1 || k > 4)
                        return 0.0;
                    std::vector<double> a = cuts, b = cuts;
                    a[std::size_t(k - 1)] += 1e-6;
                    b[std::size_t(k - 1)] -= 1e-6;
                    return (makeOrdinalLikelihood(a, 2.5)->logLik(c, f) -
                            makeOrdinalLikelihood(b, 2.5)->logLik(c, f)) /
                           2e-6;
                };
                QVERIFY2(
                    std::abs(up - fd(c)) < 1e-6 * (1 + std::abs(up)),
                    qPrintable(QString("c %1 f %2: %3 vs %4").arg(c).arg(f).arg(up).arg(fd(c))));
                QVERIFY2(std::abs(low - fd(c - 1)) < 1e-6 * (1 + std::abs(low)),
                         qPrintable(
                             QString("c %1 f %2: %3 vs %4").arg(c).arg(f).arg(low).arg(fd(c - 1))));
            }
        QCOMPARE(ordinalCutsOf(*base), cuts);
        QCOMPARE(ordinalSlopeOf(*base), 2.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 ordinalCutsOf(*makeLikelihood(LikelihoodKind::Logistic)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ordinalCuts(1, 15.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeOrdinalLikelihood({1.0, 1.0}, 1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeOrdinalLikelihood({0.0}, 0.0));
    }

    // Paper 002's count likelihood is GPML's Poisson with the "logistic" link, λ = log(1 + e^f):
    // its rate passes 1 (a σ(f) rate could not), and far in the lower tail it is e^f.
    void poissonLogisticIsSoftplusRate()
    {
        const auto lik = makeLikelihood(LikelihoodKind::PoissonLogistic);
        for (double f : {-40.0, -2.0, 0.3, 5.0, 250.0}) {
            const double lambda = f > 30 ? f : std::log1p(std::exp(f));
            QVERIFY(std::abs(lik->mean(f) / lambda - 1.0) < 1e-12);
            for (double y : {0.0, 4.0, 1000.0}) {
                const double expected = y * std::log(lambda) - lambda - std::lgamma(y + 1.0);
                QVERIFY2(std::abs(lik->logLik(y, f) - expected) < 1e-9 * (1 + std::abs(expected)),
                         qPrintable(QString("f %1 y %2").arg(f).arg(y)));
            }
        }
        double d1 = 0, d2 = 0; // at f = 250 a count of 250 is the rate's own mean: ℓ′ ≈ 0
        lik->derivatives(250.0, 250.0, d1, d2);
        QVERIFY(std::abs(d1) < 1e-9 && d2 < 0.0);
    }

    void closedFormsMatchQuadrature()
    {
        const GaussHermite gh(60);
        for (LikelihoodKind k :
             {LikelihoodKind::Logistic, LikelihoodKind::Probit, LikelihoodKind::Poisson,
              LikelihoodKind::PoissonLogistic, LikelihoodKind::Gaussian}) {
            const auto lik = makeLikelihood(k, 0.8);
            const double y = lik->classifies() ? 1.0 : 2.0;
            for (double m : {-1.0, 0.5})
                for (double v : {0.1, 1.5}) {
                    const double p = lik->logPredictive(y, m, v, gh);
                    const double pq = lik->Likelihood::logPredictive(y, m, v, gh);
                    QVERIFY2(std::abs(p - pq) < 1e-8,
                             qPrintable(QString::fromStdString(likelihoodName(k))));
                    QVERIFY(std::abs(lik->predictiveMean(m, v, gh) -
                                     lik->Likelihood::predictiveMean(m, v, gh)) < 1e-8);
                    QVERIFY(std::abs(lik->expectedLogLik(y, m, v, gh) -
                                     lik->Likelihood::expectedLogLik(y, m, v, gh)) < 1e-8);
                }
        }
        // The probit far in the tail, where erfc underflows: log Φ(−40) ≈ −804.608.
        const auto probit = makeLikelihood(LikelihoodKind::Probit);
        QVERIFY(std::abs(probit->logLik(1.0, -40.0) - (-804.60844201)) < 1e-6);
        double d1 = 0, d2 = 0;
        probit->derivatives(1.0, -40.0, d1, d2);
        QVERIFY(std::abs(d1 - 40.02498) < 1e-4 && d2 < 0.0 && d2 > -1.01);
    }

    void samplesHaveTheLikelihoodsMean()
    {
        for (LikelihoodKind k :
             {LikelihoodKind::Logistic, LikelihoodKind::Probit, LikelihoodKind::Poisson,
              LikelihoodKind::PoissonLogistic, LikelihoodKind::Gaussian, LikelihoodKind::Ordinal}) {
            const auto lik = k == LikelihoodKind::Ordinal
                                 ? makeOrdinalLikelihood({-1.0, 0.0, 1.2}, 2.0)
                                 : makeLikelihood(k, 0.7);
            for (double f : {-0.8, 0.4, 1.5}) {
                Rng rng = Rng::stream(5, std::uint64_t(k), std::uint64_t(10 * f + 10));
                const int n = 40000;
                double s = 0, s2 = 0;
                for (int i = 0; i < n; ++i) {
                    const double y = lik->sample(f, rng);
                    QVERIFY(!lik->outsideSupport(y));
                    s += y;
                    s2 += y * y;
                }
                const double mean = s / n, var = s2 / n - mean * mean;
                QVERIFY2(std::abs(mean - lik->mean(f)) < 4 * std::sqrt(var / n),
                         qPrintable(QString("%1 f %2: %3 vs %4")
                                        .arg(QString::fromStdString(likelihoodName(k)))
                                        .arg(f)
                                        .arg(mean)
                                        .arg(lik->mean(f))));
                if (k == LikelihoodKind::Poisson) // a Poisson's variance is its mean
                    QVERIFY(std::abs(var / lik->mean(f) - 1.0) < 0.05);
            }
        }
    }

    void estimatorsAreUnbiased_data()
    {
        QTest::addColumn<int>("estimator");
        QTest::addRow("monte-carlo") << int(ExpectationEstimator::MonteCarlo);
        QTest::addRow("reparameterised") << int(ExpectationEstimator::Reparameterised);
    }
    void estimatorsAreUnbiased()
    {
        // Poisson, log link: α = y − e^{m + v/2}, γ = −½ e^{m + v/2}.
        QFETCH(int, estimator);
        const auto lik = makeLikelihood(LikelihoodKind::Poisson);
        const double y = 3.0, m = 0.3, v = 0.5;
        const double alpha = y - std::exp(m + 0.5 * v), gamma = -0.5 * std::exp(m + 0.5 * v);
        const LocalEstimator est(ExpectationEstimator(estimator), 10);
        const int reps = 20000;
        double sa = 0, sa2 = 0, sg = 0, sg2 = 0;
        for (int r = 0; r < reps; ++r) {
            Rng rng = Rng::stream(7, 1, std::uint64_t(r));
            double a = 0, g = 0;
            est.estimate(*lik, y, m, v, rng, a, g);
            sa += a;
            sa2 += a * a;
            sg += g;
            sg2 += g * g;
        }
        const double ma = sa / reps, mg = sg / reps;
        const double sea = std::sqrt((sa2 / reps - ma * ma) / reps);
        const double seg = std::sqrt((sg2 / reps - mg * mg) / reps);
        QVERIFY2(std::abs(ma - alpha) < 4 * sea,
                 qPrintable(QString("α %1 vs %2 ± %3").arg(ma).arg(alpha).arg(sea)));
        QVERIFY2(std::abs(mg - gamma) < 4 * seg,
                 qPrintable(QString("γ %1 vs %2 ± %3").arg(mg).arg(gamma).arg(seg)));
        // Not trivially so: one estimate is noisy.
        QVERIFY(sea * std::sqrt(double(reps)) > 0.05);
        // Quadrature is exact.
        const LocalEstimator quad(ExpectationEstimator::Quadrature, 30);
        Rng rng(1);
        double a = 0, g = 0;
        quad.estimate(*lik, y, m, v, rng, a, g);
        QVERIFY(std::abs(a - alpha) < 1e-12 && std::abs(g - gamma) < 1e-12);
    }

    void naturalStepIsTheFixedPoint_data()
    {
        QTest::addColumn<double>("rho");
        QTest::addRow("rho 1") << 1.0;
        QTest::addRow("rho 0.3") << 0.3;
    }
    void naturalStepIsTheFixedPoint()
    {
        // Eq. 24–25 written out with general inverses, for a non-isotropic prior with μ ≠ 0.
        QFETCH(double, rho);
        Rng rng(11);
        const int d = 4, n = 9;
        const GaussianPrior prior = generalPrior(d, rng);
        const PoissonProblem p = poissonProblem(n, d, rng);
        GaussianQ q = randomFullQ(d, rng);
        const Eigen::VectorXd m0 = q.mean();
        const Eigen::MatrixXd S0 = q.covariance();
        LgmGradients g = p.gradients(q);
        g.scale(3.0, CovarianceForm::Full); // N/|M| = 3

        const Eigen::MatrixXd P0 = S0.inverse();
        const Eigen::MatrixXd Ptarget = prior.precision - 2.0 * g.gammaFull;
        const Eigen::VectorXd btarget = prior.precision * prior.mean + g.g - 2.0 * g.gammaFull * m0;
        const Eigen::MatrixXd P = (1 - rho) * P0 + rho * Ptarget;
        const Eigen::VectorXd m = P.fullPivLu().solve((1 - rho) * P0 * m0 + rho * btarget);

        QCOMPARE(q.naturalStep(rho, g, prior, true), rho);
        QVERIFY2((q.covariance() - P.inverse()).norm() < 1e-10 * P.inverse().norm(),
                 "covariance after eq. 24");
        QVERIFY2((q.mean() - m).norm() < 1e-10 * (1 + m.norm()), "mean after eq. 25");
        // The fixed point is not the start: the step moved q.
        QVERIFY((q.mean() - m0).norm() > 1e-3);

        // Diagonal q with a diagonal prior: the same equations coordinate by coordinate.
        GaussianPrior diagPrior = prior;
        diagPrior.precision = Eigen::MatrixXd(prior.precision.diagonal().asDiagonal());
        GaussianQ qd(d, CovarianceForm::Diagonal, 2.0);
        qd.setMean(m0);
        LgmGradients gd = p.gradients(qd);
        const Eigen::ArrayXd p0 = Eigen::ArrayXd::Constant(d, 0.5);
        const Eigen::ArrayXd pt =
            diagPrior.precision.diagonal().array() - 2.0 * gd.gammaDiag.array();
        const Eigen::ArrayXd bt = (diagPrior.precision * diagPrior.mean + gd.g).array() -
                                  2.0 * gd.gammaDiag.array() * m0.array();
        const Eigen::ArrayXd pn = (1 - rho) * p0 + rho * pt;
        const Eigen::ArrayXd mn = ((1 - rho) * p0 * m0.array() + rho * bt) / pn;
        qd.naturalStep(rho, gd, diagPrior, true);
        QVERIFY((qd.variances().array() - pn.inverse()).abs().maxCoeff() < 1e-12);
        QVERIFY((qd.mean().array() - mn).abs().maxCoeff() < 1e-12);
    }

    // The adaptive rate's gradient is the natural step's direction: target − current in the
    // precision and in S⁻¹m, so that the step is current + ρ · it.
    void naturalGradientIsTheStepsDirection()
    {
        Rng rng(13);
        const int d = 4, n = 9;
        const GaussianPrior prior = generalPrior(d, rng);
        const PoissonProblem p = poissonProblem(n, d, rng);
        GaussianQ q = randomFullQ(d, rng);
        const Eigen::VectorXd m0 = q.mean();
        const LgmGradients g = p.gradients(q);
        const Eigen::MatrixXd P0 = q.covariance().inverse();
        Eigen::VectorXd grad;
        q.naturalGradient(g, prior, true, grad);
        QCOMPARE(grad.size(), Eigen::Index(d * d + d));
        const double rho = 0.4;
        QCOMPARE(q.naturalStep(rho, g, prior, true), rho);
        const Eigen::MatrixXd P1 = q.covariance().inverse();
        const Eigen::MatrixXd dP = (P0 + rho * grad.head(d * d).reshaped(d, d)) - P1;
        QVERIFY2(dP.norm() < 1e-9 * P1.norm(), "precision");
        const Eigen::VectorXd db = P0 * m0 + rho * grad.tail(d) - P1 * q.mean();
        QVERIFY2(db.norm() < 1e-9 * (1 + (P1 * q.mean()).norm()), "precision × mean");
        Eigen::VectorXd covOnly;
        q.naturalGradient(g, prior, false, covOnly);
        QCOMPARE(covOnly.size(), Eigen::Index(d * d));

        GaussianPrior diagPrior = prior;
        diagPrior.precision = Eigen::MatrixXd(prior.precision.diagonal().asDiagonal());
        GaussianQ qd(d, CovarianceForm::Diagonal, 2.0);
        qd.setMean(m0);
        const LgmGradients gd = p.gradients(qd);
        qd.naturalGradient(gd, diagPrior, true, grad);
        QCOMPARE(grad.size(), Eigen::Index(2 * d));
        const Eigen::ArrayXd p0 = qd.variances().array().inverse();
        QCOMPARE(qd.naturalStep(rho, gd, diagPrior, true), rho);
        const Eigen::ArrayXd p1 = qd.variances().array().inverse();
        QVERIFY(((p0 + rho * grad.head(d).array()) - p1).abs().maxCoeff() < 1e-12);
        QVERIFY(((p0 * m0.array() + rho * grad.tail(d).array()) - p1 * qd.mean().array())
                    .abs()
                    .maxCoeff() < 1e-12);
    }

    void naturalStepsStopWhereTheBoundIsStationary_data()
    {
        QTest::addColumn<int>("form");
        QTest::addRow("full") << int(CovarianceForm::Full);
        QTest::addRow("diagonal") << int(CovarianceForm::Diagonal);
    }
    void naturalStepsStopWhereTheBoundIsStationary()
    {
        // Repeated ρ = 1 steps with exact (quadrature) derivatives, under a prior with
        // correlations and μ ≠ 0: where they stop, the bound's gradients in m and in R (each
        // checked against finite differences above) vanish. For diagonal q this checks the
        // prior's off-diagonal term of its mean update.
        QFETCH(int, form);
        const CovarianceForm f = CovarianceForm(form);
        Rng rng(17);
        const int d = 4;
        const GaussianPrior prior = generalPrior(d, rng);
        const PoissonProblem p = poissonProblem(30, d, rng);
        GaussianQ q(d, f, 0.5);
        for (int it = 0; it < 200; ++it)
            QVERIFY(q.naturalStep(0.5, p.gradients(q), prior, true) > 0.0);
        const LgmGradients g = p.gradients(q);
        const double gm = q.meanGradient(g, prior).cwiseAbs().maxCoeff();
        const double gr = q.rootGradient(g, prior).cwiseAbs().maxCoeff();
        QVERIFY2(gm < 1e-8, qPrintable(QString("∂/∂m %1").arg(gm)));
        QVERIFY2(gr < 1e-8, qPrintable(QString("∂/∂R %1").arg(gr)));
        QVERIFY(q.mean().norm() > 0.05); // the data moved it
    }

    void gradientsMatchFiniteDifferencesOfTheBound_data()
    {
        QTest::addColumn<int>("form");
        QTest::addRow("full") << int(CovarianceForm::Full);
        QTest::addRow("diagonal") << int(CovarianceForm::Diagonal);
    }
    void gradientsMatchFiniteDifferencesOfTheBound()
    {
        QFETCH(int, form);
        const CovarianceForm f = CovarianceForm(form);
        Rng rng(5);
        const int d = 3;
        const GaussianPrior prior = generalPrior(d, rng);
        const PoissonProblem p = poissonProblem(12, d, rng);
        GaussianQ q(d, f, 1.0);
        Eigen::VectorXd m0(d);
        for (int j = 0; j < d; ++j)
            m0[j] = 0.3 * rng.normal();
        q.setMean(m0);
        q.setCovariance(f == CovarianceForm::Full
                            ? spd(d, rng, 0.2)
                            : Eigen::MatrixXd(spd(d, rng, 0.2).diagonal().asDiagonal()));
        const auto vlb = [&](const GaussianQ& x) {
            return -x.kl(prior) + p.T(x.mean(), x.covariance());
        };
        const LgmGradients g = p.gradients(q);
        const Eigen::VectorXd gm = q.meanGradient(g, prior);
        const Eigen::MatrixXd gr = q.rootGradient(g, prior);
        const double h = 1e-6;
        for (int j = 0; j < d; ++j) {
            GaussianQ up = q, down = q;
            Eigen::VectorXd mu = m0, md = m0;
            mu[j] += h;
            md[j] -= h;
            up.setMean(mu);
            down.setMean(md);
            const double fd = (vlb(up) - vlb(down)) / (2 * h);
            QVERIFY2(std::abs(fd - gm[j]) < 1e-6 * (1 + std::abs(fd)),
                     qPrintable(QString("∂/∂m_%1: %2 vs %3").arg(j).arg(gm[j]).arg(fd)));
        }
        const Eigen::MatrixXd R = q.root();
        int checked = 0;
        for (Eigen::Index i = 0; i < R.rows(); ++i)
            for (Eigen::Index j = 0; j < R.cols(); ++j) {
                if (f == CovarianceForm::Full && j < i) {
                    QCOMPARE(gr(i, j), 0.0); // triu
                    continue;
                }
                GaussianQ up = q, down = q;
                Eigen::MatrixXd ru = R, rd = R;
                ru(i, j) += h;
                rd(i, j) -= h;
                up.setRoot(ru);
                down.setRoot(rd);
                const double fd = (vlb(up) - vlb(down)) / (2 * h);
                QVERIFY2(
                    std::abs(fd - gr(i, j)) < 1e-5 * (1 + std::abs(fd)),
                    qPrintable(QString("∂/∂R_%1%2: %3 vs %4").arg(i).arg(j).arg(gr(i, j)).arg(fd)));
                ++checked;
            }
        QCOMPARE(checked, f == CovarianceForm::Full ? d * (d + 1) / 2 : d);
    }

    // draw(): m + Rᵀz has q's mean and covariance (a correlated full q; a diagonal one).
    void drawsHaveQsMoments()
    {
        Eigen::Matrix3d S;
        S << 2.0, 0.9, -0.3, 0.9, 1.0, 0.2, -0.3, 0.2, 0.5;
        const Eigen::Vector3d m(0.5, -1.0, 2.0);
        for (CovarianceForm form : {CovarianceForm::Full, CovarianceForm::Diagonal}) {
            GaussianQ q(3, form, 1.0);
            q.setMean(m);
            q.setCovariance(S);
            const Eigen::MatrixXd target = q.covariance(); // the diagonal form keeps diag S
            Rng rng(21);
            const int n = 200000;
            Eigen::Vector3d z, w, mean = Eigen::Vector3d::Zero();
            Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
            for (int k = 0; k < n; ++k) {
                z << rng.normal(), rng.normal(), rng.normal();
                q.draw(z, w);
                mean += w / n;
                second += w * w.transpose() / n;
            }
            QVERIFY((mean - m).norm() < 0.02);
            QVERIFY2(
                (second - mean * mean.transpose() - target).norm() < 0.03,
                qPrintable(QString::number((second - mean * mean.transpose() - target).norm())));
        }
    }

    void adaGradScalesEachCoordinateByItsHistory()
    {
        AdaGrad opt(0.5);
        Eigen::ArrayXd x = Eigen::ArrayXd::Zero(3);
        Eigen::ArrayXd g(3);
        g << 2.0, -1.0, 0.0;
        opt.ascend(x, g);
        // First step: η g / |g| = ±η; a zero gradient does not move.
        QVERIFY(std::abs(x[0] - 0.5) < 1e-8 && std::abs(x[1] + 0.5) < 1e-8 && x[2] == 0.0);
        g << 1.0, 1.0, 0.0;
        opt.ascend(x, g);
        QVERIFY(std::abs(x[0] - (0.5 + 0.5 / std::sqrt(5.0))) < 1e-8);
        QVERIFY(std::abs(x[1] - (-0.5 + 0.5 / std::sqrt(2.0))) < 1e-8);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, opt.ascend(x, Eigen::ArrayXd::Zero(2)));
    }
};

QTEST_GUILESS_MAIN(TestLgm)
#include "test_lgm.moc"
