// GME (paper 002, Sec. 3.4): a row's estimates α, γ and δ = ∂/∂σ are the derivatives of its
// term of the bound (finite differences of the same quadrature), for both bounds; the optimal
// bound is above the simple one (Jensen) and matches its closed form for a Gaussian likelihood;
// the Monte Carlo estimates are unbiased; the natural-gradient steps of q(w2) stop where the
// bound is stationary in σ; on data drawn from GME, GME fits better than the GLM and finds the
// noise's scale.

#include "core/math/random.h"
#include "core/models/glm/glm_trainer.h"
#include "core/models/glm/gme.h"
#include "core/run/registry.h"
#include "tests/core/labelled_testing.h"

#include <QtTest>
#include <cmath>

using namespace svi;

namespace {

GmeOptions gmeOptions(const std::string& likelihood, GmeBound bound)
{
    GmeOptions o;
    o.likelihood = likelihood;
    o.bound = bound;
    o.estimator = ExpectationEstimator::Quadrature;
    o.samples = 16; // the evaluations' rule: estimates and bound share their nodes
    o.innerNodes = 30;
    o.tau = 2.0;
    o.initSigma = 0.8;
    return o;
}

template <typename Label>
LabelledDataPtr gmeData(int n, int test, const Eigen::VectorXd& w, double w2, LabelKind kind,
                        std::uint64_t seed, Label&& label)
{
    return test_support::plantedLabelled(n, test, w, w2, kind, seed, label);
}

// A Poisson count of rate e^f, by the library's own sampler (tested in test_lgm).
double poissonDraw(double f, Rng& rng)
{
    static const auto poisson = makeLikelihood(LikelihoodKind::Poisson);
    return poisson->sample(f, rng);
}

} // namespace

class TestGme : public QObject
{
    Q_OBJECT

private slots:
    void estimatesAreTheDerivativesOfTheBound_data()
    {
        QTest::addColumn<QString>("likelihood");
        QTest::addColumn<int>("bound");
        QTest::addColumn<double>("y");
        for (const char* lik : {"poisson-logistic", "logistic", "poisson"})
            for (int b : {int(GmeBound::Optimal), int(GmeBound::Simple), int(GmeBound::MeanField)})
                QTest::addRow("%s %s", lik, gmeBoundName(GmeBound(b)).c_str())
                    << QString(lik) << b << (QString(lik) == "logistic" ? 1.0 : 2.0);
    }
    void estimatesAreTheDerivativesOfTheBound()
    {
        QFETCH(QString, likelihood);
        QFETCH(int, bound);
        QFETCH(double, y);
        GmeLocal local(likelihoodFromName(likelihood.toStdString()),
                       gmeOptions(likelihood.toStdString(), GmeBound(bound)));
        const double m = 0.3, v = 0.4, sigma = local.sigma();
        Rng rng(1);
        double alpha = 0, gamma = 0, delta = 0;
        local.estimate(0, y, m, v, rng, alpha, gamma, delta);
        const double h = 1e-5;
        const double dm =
            (local.expectedTerm(0, y, m + h, v) - local.expectedTerm(0, y, m - h, v)) / (2 * h);
        const double dv =
            (local.expectedTerm(0, y, m, v + h) - local.expectedTerm(0, y, m, v - h)) / (2 * h);
        local.setSigma(sigma + h);
        const double up = local.expectedTerm(0, y, m, v);
        local.setSigma(sigma - h);
        const double ds = (up - local.expectedTerm(0, y, m, v)) / (2 * h);
        local.setSigma(sigma);
        QVERIFY2(std::abs(alpha - dm) < 1e-6 * (1 + std::abs(dm)),
                 qPrintable(QString("α %1 vs %2").arg(alpha).arg(dm)));
        QVERIFY2(std::abs(gamma - dv) < 1e-5 * (1 + std::abs(dv)),
                 qPrintable(QString("γ %1 vs %2").arg(gamma).arg(dv)));
        QVERIFY2(std::abs(delta - ds) < 1e-5 * (1 + std::abs(ds)),
                 qPrintable(QString("δ %1 vs %2").arg(delta).arg(ds)));
        QVERIFY(std::abs(delta) > 1e-4); // σ matters
    }

    void klOfTheNoiseAndItsGradient()
    {
        // KL(Rayleigh(σ) ‖ Rayleigh(τ)) by quadrature of q log(q/p), and its σ-derivative.
        GmeOptions o = gmeOptions("poisson", GmeBound::Optimal);
        o.tau = 1.7;
        o.initSigma = 0.6;
        GmeLocal g(LikelihoodKind::Poisson, o);
        const auto logRayleigh = [](double x, double s) {
            return std::log(x / (s * s)) - x * x / (2 * s * s);
        };
        double kl = 0.0;
        const int n = 200000;
        for (int j = 0; j < n; ++j) {
            const double x = 0.6 * std::sqrt(-2.0 * std::log(1.0 - (j + 0.5) / n));
            kl += (logRayleigh(x, 0.6) - logRayleigh(x, 1.7)) / n;
        }
        QVERIFY2(std::abs(g.extraKl() - kl) < 1e-4,
                 qPrintable(QString("%1 vs %2").arg(g.extraKl()).arg(kl)));
        const double h = 1e-6;
        g.setSigma(0.6 + h);
        const double up = -g.extraKl();
        g.setSigma(0.6 - h);
        const double down = -g.extraKl();
        g.setSigma(0.6);
        QVERIFY(std::abs(g.klSigmaGradient() - (up - down) / (2 * h)) < 1e-6);
    }

    void optimalIsAboveSimpleAndExactForAGaussian()
    {
        // For the same q(w), the optimal bound is above the simple one (Jensen) and above the
        // mean-field one (q(f | w) = p(f | w, y) beats any q(f_i) independent of w).
        for (const char* lik : {"poisson-logistic", "logistic", "poisson"}) {
            GmeLocal opt(likelihoodFromName(lik), gmeOptions(lik, GmeBound::Optimal));
            GmeLocal simple(likelihoodFromName(lik), gmeOptions(lik, GmeBound::Simple));
            GmeLocal mf(likelihoodFromName(lik), gmeOptions(lik, GmeBound::MeanField));
            for (double m : {-1.0, 0.5})
                for (double y : {0.0, 1.0}) {
                    QVERIFY(opt.expectedTerm(0, y, m, 0.3) >
                            simple.expectedTerm(0, y, m, 0.3) + 1e-4);
                    QVERIFY2(opt.expectedTerm(0, y, m, 0.3) > mf.expectedTerm(0, y, m, 0.3) + 1e-4,
                             qPrintable(QString("%1 m %2 y %3: %4 vs %5")
                                            .arg(lik)
                                            .arg(m)
                                            .arg(y)
                                            .arg(opt.expectedTerm(0, y, m, 0.3))
                                            .arg(mf.expectedTerm(0, y, m, 0.3))));
                }
        }
        // Gaussian likelihood (σ_n = 0.5): φ(a, w2) = N(y | a, w2 + σ_n²), so the optimal term
        // is E_w2[−½ log 2π(w2 + σ_n²) − ((y − m)² + v) / (2(w2 + σ_n²))], here by a fine
        // midpoint rule over the quantiles of w2 ~ Rayleigh(σ).
        GmeOptions o = gmeOptions("gaussian", GmeBound::Optimal);
        o.noiseSd = 0.5;
        GmeLocal g(LikelihoodKind::Gaussian, o);
        const double y = 1.2, m = 0.4, v = 0.3;
        double exact = 0.0;
        const int n = 200000;
        for (int j = 0; j < n; ++j) {
            const double w2 = g.sigma() * std::sqrt(-2.0 * std::log(1.0 - (j + 0.5) / n));
            const double s2 = w2 + 0.25;
            exact += (-0.5 * std::log(2 * M_PI * s2) - ((y - m) * (y - m) + v) / (2 * s2)) / n;
        }
        QVERIFY2(std::abs(g.expectedTerm(0, y, m, v) - exact) < 1e-5,
                 qPrintable(QString("%1 vs %2").arg(g.expectedTerm(0, y, m, v)).arg(exact)));
    }

    void meanFieldMatchesItsClosedFormForAGaussian()
    {
        // Gaussian likelihood (σ_n): the row's optimum is g = 1/(c + 1/σ_n²),
        // β = g (y/σ_n² + c m), with c = E[1/w2]; the term is E_q(f)[log N(y | f, σ_n²)] −
        // ½E[log w2] − ½ log 2π − ½ c ((β − m)² + g + v) + ½ log(2πe g), the Rayleigh moments
        // here by a fine quantile rule (independent of the model's constants).
        GmeOptions o = gmeOptions("gaussian", GmeBound::MeanField);
        o.noiseSd = 0.7;
        GmeLocal g(LikelihoodKind::Gaussian, o);
        double c = 0.0, elog = 0.0;
        const int n = 400000;
        for (int j = 0; j < n; ++j) {
            const double w2 = g.sigma() * std::sqrt(-2.0 * std::log(1.0 - (j + 0.5) / n));
            c += 1.0 / w2 / n;
            elog += std::log(w2) / n;
        }
        const double y = 0.9, m = 0.2, v = 0.35, s2 = 0.49;
        const double gg = 1.0 / (c + 1.0 / s2), beta = gg * (y / s2 + c * m);
        const double lik =
            -0.5 * std::log(2 * M_PI * s2) - ((y - beta) * (y - beta) + gg) / (2 * s2);
        const double exact = lik - 0.5 * elog - 0.5 * std::log(2 * M_PI) -
                             0.5 * c * ((beta - m) * (beta - m) + gg + v) +
                             0.5 * std::log(2 * M_PI * std::exp(1.0) * gg);
        QVERIFY2(std::abs(g.expectedTerm(0, y, m, v) - exact) < 2e-3,
                 qPrintable(QString("%1 vs %2").arg(g.expectedTerm(0, y, m, v)).arg(exact)));
    }

    void monteCarloEstimatesAreUnbiased()
    {
        GmeOptions o = gmeOptions("poisson-logistic", GmeBound::Optimal);
        GmeLocal quad(LikelihoodKind::PoissonLogistic, [&] {
            GmeOptions q = o;
            q.samples = 80;
            return q;
        }());
        o.estimator = ExpectationEstimator::MonteCarlo;
        o.samples = 10;
        GmeLocal mc(LikelihoodKind::PoissonLogistic, o);
        Rng unused(1);
        double ea = 0, eg = 0, ed = 0;
        quad.estimate(0, 2.0, 0.3, 0.4, unused, ea, eg, ed);
        const int reps = 4000;
        double s[3] = {0, 0, 0}, s2[3] = {0, 0, 0};
        for (int r = 0; r < reps; ++r) {
            Rng rng = Rng::stream(3, 1, std::uint64_t(r));
            double v[3];
            mc.estimate(0, 2.0, 0.3, 0.4, rng, v[0], v[1], v[2]);
            for (int k = 0; k < 3; ++k) {
                s[k] += v[k];
                s2[k] += v[k] * v[k];
            }
        }
        const double exact[3] = {ea, eg, ed};
        for (int k = 0; k < 3; ++k) {
            const double mean = s[k] / reps, se = std::sqrt((s2[k] / reps - mean * mean) / reps);
            QVERIFY2(
                std::abs(mean - exact[k]) < 4 * se + 1e-3 * std::abs(exact[k]),
                qPrintable(QString("%1: %2 vs %3 ± %4").arg(k).arg(mean).arg(exact[k]).arg(se)));
        }
    }

    void naturalStepsStopWhereTheBoundIsStationaryInSigma()
    {
        const auto data = gmeData(150, 30, Eigen::Vector2d(0.8, -0.5), 1.0, LabelKind::Count, 4,
                                  [](double f, Rng& rng) { return poissonDraw(f, rng); });
        GmeOptions o = gmeOptions("poisson", GmeBound::Optimal);
        o.innerNodes = 16;
        o.initSigma = 0.3;      // away from where it settles (about 0.8 on these counts)
        o.lgm.minibatch = 1000; // every row
        // From S = 10 I the first MC-SSVI step with a log link meets rates of e^20 and
        // collapses q(w1) (the instability the paper reports); S = I starts it sanely.
        o.lgm.initVariance = 1.0;
        GmeTrainer t(data, LgmAlgorithm::McSsvi, o, 1);
        for (int s = 1; s <= 150; ++s) // ρ_t = 1/t averages the early targets out slowly
            t.step(s);
        GmeLocal& g = t.gme();
        const double sigma = g.sigma(), h = 1e-5 * sigma;
        g.setSigma(sigma + h);
        const double up = t.bound();
        g.setSigma(sigma - h);
        const double down = t.bound();
        g.setSigma(sigma);
        const double slope = (up - down) / (2 * h);
        // The data term's slope alone is O(1) here (−1.6 at the fixed point, 197 at the start).
        QVERIFY2(std::abs(slope) < 0.02,
                 qPrintable(QString("∂bound/∂σ = %1 at σ = %2").arg(slope).arg(sigma)));
        QVERIFY(std::abs(sigma - o.initSigma) > 0.05); // it moved
        // E[w2] = σ √(π/2) near the planted noise variance 1 (250 rows).
        QVERIFY2(std::abs(sigma * std::sqrt(M_PI / 2) - 1.0) < 0.35,
                 qPrintable(QString::number(sigma)));
    }

    void fitsGmeDataBetterThanTheGlm()
    {
        // Counts with extra-Poisson noise of variance 1.5 on the log rate.
        const auto data =
            gmeData(6000, 1500, Eigen::Vector3d(0.6, -0.4, 0.3), 1.5, LabelKind::Count, 5,
                    [](double f, Rng& rng) { return poissonDraw(f, rng); });
        GlmOptions glmo;
        glmo.likelihood = "poisson";
        glmo.lgm.minibatch = 500;
        glmo.lgm.initVariance = 1.0;
        GlmTrainer glm(data, LgmAlgorithm::HybridMcSsvi, glmo, 1);
        GmeOptions o = gmeOptions("poisson", GmeBound::Optimal);
        o.estimator = ExpectationEstimator::MonteCarlo;
        o.samples = 10;
        o.lgm.minibatch = 500;
        o.lgm.initVariance = 1.0;
        GmeTrainer gme(data, LgmAlgorithm::HybridMcSsvi, o, 1);
        o.bound = GmeBound::Simple;
        GmeTrainer simple(data, LgmAlgorithm::HybridMcSsvi, o, 1);
        for (int s = 1; s <= 250; ++s) {
            glm.step(s);
            gme.step(s);
            simple.step(s);
        }
        const double nllGlm = glm.evaluate(true).metrics.at("test_nll");
        const double nllGme = gme.evaluate(true).metrics.at("test_nll");
        const double nllSimple = simple.evaluate(true).metrics.at("test_nll");
        qInfo("test NLL: GLM %.4f, GME optimal %.4f, GME simple %.4f; E[w2] %.3f (true 1.5)",
              nllGlm, nllGme, nllSimple, gme.gme().sigma() * std::sqrt(M_PI / 2));
        QVERIFY2(nllGme < nllGlm - 0.05, qPrintable(QString("%1 vs %2").arg(nllGme).arg(nllGlm)));
        // One variance from 3,000 over-dispersed counts is loosely pinned: over data seeds 5–8
        // E[w2] came out 1.31–2.27 (drawn 1.5), so the check is the factor of 2, not a band.
        const double w2 = gme.gme().sigma() * std::sqrt(M_PI / 2);
        QVERIFY2(w2 > 0.75 && w2 < 3.0, qPrintable(QString::number(w2)));
    }
};

QTEST_GUILESS_MAIN(TestGme)
#include "test_gme.moc"
