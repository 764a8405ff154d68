// Black-box VI's engine (core/inference/black_box.h): the score-function gradient of every q
// family unbiased against the bound's exact gradient, the control variate's a* against its
// closed form, Rao-Blackwellised and plain gradients equal in expectation (and the first less
// noisy), and whole fits of conjugate Gaussian models, without and with local variables, against
// their exact (mean-field) posteriors.

#include "core/inference/black_box.h"
#include "core/inference/gamma_reparam.h"
#include "core/inference/positive_sgvb.h"
#include "core/math/digamma.h"
#include "core/math/logistic.h"
#include "core/math/random.h"

#include <QtTest>
#include <cmath>
#include <functional>
#include <numbers>

using namespace svi;

namespace {

// A model of one block of global variables with a log joint given per variable (its own
// factor, so that the blanket of variable v is its factor) plus an optional pairwise factor.
class ToyModel final : public BlackBoxModel
{
public:
    ToyModel(QBlock block, std::function<double(Eigen::Index, double)> factor)
        : m_layout({std::move(block)}), m_factor(std::move(factor))
    {
    }
    const QLayout& globals() const override { return m_layout; }
    std::int64_t itemCount() const override { return 1; }
    void factors(std::span<const std::int64_t>, const Eigen::Ref<const Eigen::ArrayXd>& z,
                 const Eigen::Ref<const Eigen::ArrayXd>&, FactorSums& out) const override
    {
        for (Eigen::Index v = 0; v < z.size(); ++v) {
            // With an offset, an unnormalised log joint, as a model's usually is: the
            // constant changes no gradient, only the noise the control variate removes.
            const double f = m_factor(v, z[v]) + offset;
            out.global += f;
            out.globalBlanket[v] += f;
            if (out.wantGradient)
                out.globalGradient[v] += slope(v, z[v]);
        }
        if (pair != 0.0 && z.size() >= 2) {
            // −pair (z₀ − z₁)²/2 holds both variables.
            const double f = -0.5 * pair * (z[0] - z[1]) * (z[0] - z[1]);
            out.global += f;
            out.globalBlanket[0] += f;
            out.globalBlanket[1] += f;
        }
    }
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd&, std::uint64_t) const override
    {
        global = lambda;
    }
    bool hasGradient() const override { return bool(slope); }

    Eigen::ArrayXd lambda;
    std::function<double(Eigen::Index, double)> slope; // ∂ factor/∂z (the reparameterised)
    double pair = 0.0;
    double offset = 0.0;

private:
    QLayout m_layout;
    std::function<double(Eigen::Index, double)> m_factor;
};

BbviOptions options(int samples, bool rb, bool cv)
{
    BbviOptions o;
    o.draws = samples;
    o.raoBlackwell = rb;
    o.controlVariate = cv;
    o.minibatch = 1;
    return o;
}

// Mean and standard error of `repeats` gradient estimates.
struct Spread
{
    Eigen::ArrayXd mean, se, var;
};
Spread estimates(const BlackBoxVi& engine, int repeats)
{
    const Eigen::Index P = engine.global().size();
    Eigen::ArrayXd sum = Eigen::ArrayXd::Zero(P), squares = Eigen::ArrayXd::Zero(P);
    Eigen::ArrayXd g(P);
    const std::int64_t item = 0;
    for (int r = 0; r < repeats; ++r) {
        engine.globalGradient(std::span(&item, 1), std::uint64_t(r + 1), g);
        sum += g, squares += g.square();
    }
    Spread s;
    s.mean = sum / repeats;
    s.var = (squares / repeats - s.mean.square()) * repeats / (repeats - 1.0);
    s.se = (s.var / repeats).sqrt();
    return s;
}

// The gradient of `bound` (a function of λ) by central differences.
Eigen::ArrayXd numericGradient(const std::function<double(const Eigen::ArrayXd&)>& bound,
                               Eigen::ArrayXd lambda)
{
    Eigen::ArrayXd g(lambda.size());
    const double h = 1e-5;
    for (Eigen::Index i = 0; i < lambda.size(); ++i) {
        const double keep = lambda[i];
        lambda[i] = keep + h;
        const double up = bound(lambda);
        lambda[i] = keep - h;
        const double down = bound(lambda);
        lambda[i] = keep;
        g[i] = (up - down) / (2 * h);
    }
    return g;
}

// A log p of one continuous variable whose bound L(λ) is known in closed form:
//   normal: log p = −(z − 1)²/2; log-normal: the log-normal density of log z ~ N(1, 1),
//   −(log z − 1)²/2 − log z — either way L = −((m − 1)² + s²)/2 + log s + const;
//   gamma: log p = c log z − 2z (a gamma unnormalised), L = c(ψ(a) − log b) − 2a/b + H.
// With its slope ∂ log p/∂z (the reparameterised estimator's) and a λ away from the optimum.
struct Continuous
{
    std::function<double(Eigen::Index, double)> logP, slope;
    std::function<double(const Eigen::ArrayXd&)> bound;
    Eigen::ArrayXd lambda = Eigen::ArrayXd(2);
};
Continuous continuousCase(QFamily f, double c)
{
    Continuous k;
    if (f == QFamily::Gamma) {
        k.logP = [c](Eigen::Index, double z) { return c * std::log(z) - 2.0 * z; };
        k.slope = [c](Eigen::Index, double z) { return c / z - 2.0; };
        k.bound = [c](const Eigen::ArrayXd& l) {
            const double a = flooredSoftplus(l[0]), b = flooredSoftplus(l[1]);
            const double entropy = a - std::log(b) + std::lgamma(a) + (1.0 - a) * digamma(a);
            return c * (digamma(a) - std::log(b)) - 2.0 * a / b + entropy;
        };
        k.lambda << softplusInverse(2.0), softplusInverse(1.5);
        return k;
    }
    if (f == QFamily::Normal) {
        k.logP = [](Eigen::Index, double z) { return -0.5 * (z - 1) * (z - 1); };
        k.slope = [](Eigen::Index, double z) { return 1.0 - z; };
    } else {
        k.logP = [](Eigen::Index, double z) {
            const double n = std::log(z);
            return -0.5 * (n - 1) * (n - 1) - n;
        };
        k.slope = [](Eigen::Index, double z) { return (-(std::log(z) - 1.0) - 1.0) / z; };
    }
    k.bound = [](const Eigen::ArrayXd& l) {
        const double s = flooredSoftplus(l[1]);
        return -0.5 * ((l[0] - 1) * (l[0] - 1) + s * s) + std::log(s);
    };
    k.lambda << 0.3, softplusInverse(0.8);
    return k;
}

const double kHalfLog2PiE = 0.5 * std::log(2.0 * std::numbers::pi * std::numbers::e);

} // namespace

class TestBlackBox : public QObject
{
    Q_OBJECT

private slots:
    void scoreGradientIsUnbiased_data();
    void scoreGradientIsUnbiased();
    void reparameterisedGradientIsUnbiased_data();
    void reparameterisedGradientIsUnbiased();
    void controlVariateScaleMatchesClosedForm();
    void raoBlackwellAndPlainAgreeInExpectation();
    void fitsAConjugateGaussianPosterior();
    void fitsLocalVariablesWithMinibatches_data();
    void fitsLocalVariablesWithMinibatches();
    void rejectsBadOptions();
};

// Per family: log p(z) with a closed-form (or enumerated) bound L(λ); the plain score-function
// estimate (no control variate: exactly unbiased) averages, over 4,000 estimates of 50 draws,
// to L's gradient by central differences within five standard errors in every entry (a score
// or a log q scaled by 0.9 is caught).
void TestBlackBox::scoreGradientIsUnbiased_data()
{
    QTest::addColumn<int>("family");
    QTest::newRow("normal") << int(QFamily::Normal);
    QTest::newRow("log-normal") << int(QFamily::LogNormal);
    QTest::newRow("gamma") << int(QFamily::Gamma);
    QTest::newRow("bernoulli") << int(QFamily::Bernoulli);
    QTest::newRow("categorical") << int(QFamily::Categorical);
    QTest::newRow("poisson") << int(QFamily::Poisson);
}

void TestBlackBox::scoreGradientIsUnbiased()
{
    QFETCH(int, family);
    const auto f = QFamily(family);
    QBlock block{"z", f, 1, 3};
    std::function<double(Eigen::Index, double)> logP;
    std::function<double(const Eigen::ArrayXd&)> bound;
    Eigen::ArrayXd lambda;
    const double c0 = 0.7, c1 = -0.4, c2 = 0.2;
    switch (f) {
    case QFamily::Normal:
    case QFamily::LogNormal:
    case QFamily::Gamma: {
        // Gamma(3, 2) unnormalised for the gamma.
        const Continuous k = continuousCase(f, 2.0);
        logP = k.logP, bound = k.bound, lambda = k.lambda;
        break;
    }
    case QFamily::Bernoulli:
        logP = [&](Eigen::Index, double z) { return c0 * z; };
        bound = [&](const Eigen::ArrayXd& l) {
            const double p = sigmoid(l[0]);
            return c0 * p - p * std::log(p) - (1 - p) * std::log(1 - p);
        };
        lambda = Eigen::ArrayXd::Constant(1, -0.4);
        break;
    case QFamily::Categorical:
        logP = [&](Eigen::Index, double z) { return z == 0 ? c0 : z == 1 ? c1 : c2; };
        bound = [&](const Eigen::ArrayXd& l) {
            const Eigen::ArrayXd p = l.exp() / l.exp().sum();
            return p[0] * c0 + p[1] * c1 + p[2] * c2 - (p * p.log()).sum();
        };
        lambda = Eigen::ArrayXd(3);
        lambda << 0.2, -0.5, 0.4;
        break;
    case QFamily::Poisson:
        // log p: a Poisson(3) prior; L enumerated over z < 200.
        logP = [](Eigen::Index, double z) { return z * std::log(3.0) - 3.0 - std::lgamma(z + 1); };
        bound = [](const Eigen::ArrayXd& l) {
            const double rate = std::exp(l[0]);
            double sum = 0.0;
            for (int z = 0; z < 200; ++z) {
                const double logQ = z * l[0] - rate - std::lgamma(z + 1.0);
                const double logP = z * std::log(3.0) - 3.0 - std::lgamma(z + 1.0);
                sum += std::exp(logQ) * (logP - logQ);
            }
            return sum;
        };
        lambda = Eigen::ArrayXd::Constant(1, std::log(1.7));
        break;
    }
    ToyModel model(block, logP);
    model.lambda = lambda;
    BlackBoxVi engine(model, options(50, true, false), 7);
    const Spread s = estimates(engine, 4000);
    const Eigen::ArrayXd exact = numericGradient(bound, lambda);
    for (Eigen::Index d = 0; d < lambda.size(); ++d) {
        const double z = std::abs(s.mean[d] - exact[d]) / s.se[d];
        if (!(z < 5.0))
            QFAIL(qPrintable(QString("entry %1: mean %2 ± %3, exact %4")
                                 .arg(d)
                                 .arg(s.mean[d])
                                 .arg(s.se[d])
                                 .arg(exact[d])));
    }
    // On the log joint offset by 5 (the evidence e⁵ of an unnormalised model), with and without
    // the control variate (a* from the same draws: biased by O(1/S)): its estimate stays within
    // a tenth of the exact gradient's scale and is less noisy.
    model.offset = 5.0;
    BlackBoxVi plain(model, options(50, true, false), 7), withCv(model, options(50, true, true), 7);
    const Spread o = estimates(plain, 400), c = estimates(withCv, 400);
    const double scale = exact.abs().maxCoeff() + 1e-3;
    QVERIFY2(((c.mean - exact).abs() < 0.1 * scale + 5 * c.se).all(),
             qPrintable(QString("with a*: %1 vs %2").arg(c.mean[0]).arg(exact[0])));
    QVERIFY2(c.var.sum() < o.var.sum(),
             qPrintable(QString("with a* %1, without %2").arg(c.var.sum()).arg(o.var.sum())));
}

// The reparameterised estimator (z = T(ε; λ), the factor's ∂/∂z, the entropy's gradient in
// closed form) of the continuous families, on the same log p and bound as above: the mean of
// 4,000 estimates of 10 draws within five standard errors of the exact gradient (the path
// derivatives and the entropy's gradient scaled by 0.9 are caught), and less noisy than the
// score function's at the same S.
void TestBlackBox::reparameterisedGradientIsUnbiased_data()
{
    QTest::addColumn<int>("family");
    QTest::newRow("normal") << int(QFamily::Normal);
    QTest::newRow("log-normal") << int(QFamily::LogNormal);
    QTest::newRow("gamma") << int(QFamily::Gamma);
}

void TestBlackBox::reparameterisedGradientIsUnbiased()
{
    QFETCH(int, family);
    const auto f = QFamily(family);
    // Gamma(6, 2) unnormalised for the gamma: the log z term's share of the shape's gradient,
    // 5 ψ′(a), outweighs the rest (at 2 log z it nearly cancels −2/b, and ∂z/∂α went
    // untested).
    const Continuous k = continuousCase(f, 5.0);
    const auto& logP = k.logP;
    const auto& bound = k.bound;
    const Eigen::ArrayXd& lambda = k.lambda;
    ToyModel model(QBlock{"z", f, 1}, logP);
    model.slope = k.slope;
    model.lambda = lambda;
    BbviOptions o = options(10, true, false);
    o.estimator = BbviEstimator::Reparam;
    BlackBoxVi engine(model, o, 7);
    const Spread s = estimates(engine, 4000);
    const Eigen::ArrayXd exact = numericGradient(bound, lambda);
    for (Eigen::Index d = 0; d < lambda.size(); ++d)
        QVERIFY2(std::abs(s.mean[d] - exact[d]) < 5.0 * s.se[d] + 1e-9,
                 qPrintable(QString("entry %1: mean %2 ± %3, exact %4")
                                .arg(d)
                                .arg(s.mean[d])
                                .arg(s.se[d])
                                .arg(exact[d])));
    BlackBoxVi score(model, options(10, true, false), 7);
    const Spread sf = estimates(score, 400);
    QVERIFY2(
        s.var.sum() < sf.var.sum(),
        qPrintable(QString("reparameterised %1, score %2").arg(s.var.sum()).arg(sf.var.sum())));
}

// a* = Σ Cov(f, h)/Σ Var(h) with f = h·w: for q = N(m, s²) and w = c·z, each entry gives c·m
// (Cov(f_m, h_m) = c m/s², Var(h_m) = 1/s²; the scale entry likewise, 2k²cm over 2k² with
// k = r′(σ)/s), so a* = c·m (a narrow q keeps the scale entry's heavy tails, eighth moments of
// ε, from dominating the estimate); for a bernoulli of p and w = c·z, a* = c (1 − p).
void TestBlackBox::controlVariateScaleMatchesClosedForm()
{
    const double c = 2.0;
    // a* and the gradient from 400,000 draws of one variable of `family` at λ, w = c·z.
    const auto estimate = [c](QFamily family, const Eigen::ArrayXd& lambda, std::uint64_t seed) {
        const int S = 400000;
        const QLayout layout({{"z", family, 1}});
        Eigen::MatrixXd scores(lambda.size(), S), weights(1, S);
        Eigen::ArrayXd z(1), logQ(1), gradient(lambda.size()), aStar;
        Rng rng(seed);
        for (int s = 0; s < S; ++s) {
            layout.draw(lambda, rng, z, logQ, scores.col(s).array());
            weights(0, s) = c * z[0];
        }
        scoreGradient(layout, scores, weights, true, gradient, &aStar);
        return std::pair{aStar[0], gradient};
    };
    Eigen::ArrayXd normal(2);
    normal << 0.5, softplusInverse(0.4);
    const auto [aNormal, gNormal] = estimate(QFamily::Normal, normal, 11);
    QVERIFY2(std::abs(aNormal - c * 0.5) < 0.02, qPrintable(QString::number(aNormal)));
    // The control variate takes out the noise of w's constant part: the estimate of
    // ∂/∂m E[c z] = c is close to c.
    QVERIFY2(std::abs(gNormal[0] - c) < 0.02, qPrintable(QString::number(gNormal[0])));
    const double p = 0.3;
    const auto [aBernoulli, gBernoulli] =
        estimate(QFamily::Bernoulli, Eigen::ArrayXd::Constant(1, std::log(p / (1 - p))), 12);
    QVERIFY2(std::abs(aBernoulli - c * (1 - p)) < 0.01, qPrintable(QString::number(aBernoulli)));
    // ∂/∂ℓ E[c z] = c p (1 − p).
    QVERIFY2(std::abs(gBernoulli[0] - c * p * (1 - p)) < 0.01,
             qPrintable(QString::number(gBernoulli[0])));
}

// Two normals with factors −(z₀ − 1)²/2, −(z₁ + 2)²/2 and −0.3 (z₀ − z₁)²/2: the bound's
// gradient is known in closed form; the Rao-Blackwellised and the plain estimates both average
// to it, and the first has the smaller variance.
void TestBlackBox::raoBlackwellAndPlainAgreeInExpectation()
{
    const double centre[2] = {1.0, -2.0};
    ToyModel model({"z", QFamily::Normal, 2}, [&](Eigen::Index v, double z) {
        return -0.5 * (z - centre[v]) * (z - centre[v]);
    });
    model.pair = 0.3;
    model.lambda = Eigen::ArrayXd(4);
    model.lambda << 0.2, softplusInverse(0.7), 0.5, softplusInverse(1.1);
    // L = Σ_v [−((m_v − c_v)² + s_v²)/2 + log s_v] − 0.3((m₀ − m₁)² + s₀² + s₁²)/2.
    const auto bound = [&](const Eigen::ArrayXd& l) {
        double sum = 0.0;
        const double s0 = flooredSoftplus(l[1]), s1 = flooredSoftplus(l[3]);
        sum += -0.5 * ((l[0] - 1) * (l[0] - 1) + s0 * s0) + std::log(s0);
        sum += -0.5 * ((l[2] + 2) * (l[2] + 2) + s1 * s1) + std::log(s1);
        sum += -0.15 * ((l[0] - l[2]) * (l[0] - l[2]) + s0 * s0 + s1 * s1);
        return sum;
    };
    const Eigen::ArrayXd exact = numericGradient(bound, model.lambda);
    BlackBoxVi rb(model, options(20, true, false), 3);
    BlackBoxVi plain(model, options(20, false, false), 3);
    const Spread a = estimates(rb, 1000), b = estimates(plain, 1000);
    for (Eigen::Index d = 0; d < 4; ++d) {
        QVERIFY2(std::abs(a.mean[d] - exact[d]) < 5 * a.se[d],
                 qPrintable(QString("RB entry %1: %2 vs %3").arg(d).arg(a.mean[d]).arg(exact[d])));
        QVERIFY2(
            std::abs(b.mean[d] - exact[d]) < 5 * b.se[d],
            qPrintable(QString("plain entry %1: %2 vs %3").arg(d).arg(b.mean[d]).arg(exact[d])));
    }
    QVERIFY2(a.var.sum() < b.var.sum(),
             qPrintable(QString("RB %1, plain %2").arg(a.var.sum()).arg(b.var.sum())));
}

namespace {

// y_i ~ N(μ, 1), i < N, μ ~ N(0, 10²): the posterior of μ is normal, and so is q.
class NormalMean final : public BlackBoxModel
{
public:
    explicit NormalMean(std::vector<double> y)
        : m_y(std::move(y)), m_layout({{"mu", QFamily::Normal, 1}})
    {
    }
    const QLayout& globals() const override { return m_layout; }
    std::int64_t itemCount() const override { return std::int64_t(m_y.size()); }
    void factors(std::span<const std::int64_t> items, const Eigen::Ref<const Eigen::ArrayXd>& z,
                 const Eigen::Ref<const Eigen::ArrayXd>&, FactorSums& out) const override
    {
        const double prior = -0.5 * z[0] * z[0] / 100.0;
        out.global += prior;
        out.globalBlanket[0] += prior;
        for (const std::int64_t i : items) {
            const double d = m_y[std::size_t(i)] - z[0], f = -0.5 * d * d;
            out.items += f;
            if (out.wantItemBlanket)
                out.itemBlanket[0] += f;
        }
    }
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd&, std::uint64_t) const override
    {
        m_layout.setMoments(global, Eigen::Index(0), 0.0, 1.0);
    }

private:
    std::vector<double> m_y;
    QLayout m_layout;
};

// y_i ~ N(b_i, 1), b_i ~ N(μ, 1), μ ~ N(0, 10²): b_i local. The mean-field optimum of a
// Gaussian posterior has its exact means and variances 1/Λ_ii of the joint precision Λ.
class NormalEffects final : public BlackBoxModel
{
public:
    explicit NormalEffects(std::vector<double> y)
        : m_y(std::move(y)), m_global({{"mu", QFamily::Normal, 1}}),
          m_local({{"b", QFamily::Normal, 1}})
    {
    }
    const QLayout& globals() const override { return m_global; }
    const QLayout& locals() const override { return m_local; }
    std::int64_t itemCount() const override { return std::int64_t(m_y.size()); }
    void factors(std::span<const std::int64_t> items, const Eigen::Ref<const Eigen::ArrayXd>& z,
                 const Eigen::Ref<const Eigen::ArrayXd>& zl, FactorSums& out) const override
    {
        const double prior = -0.5 * z[0] * z[0] / 100.0;
        out.global += prior;
        out.globalBlanket[0] += prior;
        for (std::size_t j = 0; j < items.size(); ++j) {
            const double b = zl[Eigen::Index(j)], y = m_y[std::size_t(items[j])];
            const double link = -0.5 * (b - z[0]) * (b - z[0]), like = -0.5 * (y - b) * (y - b);
            out.items += link + like;
            if (out.wantItemBlanket)
                out.itemBlanket[0] += link;
            out.localBlanket[Eigen::Index(j)] += link + like;
            if (out.wantGradient) {
                if (out.wantItemBlanket)
                    out.itemGradient[0] += b - z[0];
                out.localGradient[Eigen::Index(j)] += (z[0] - b) + (y - b);
            }
        }
        if (out.wantGradient)
            out.globalGradient[0] -= z[0] / 100.0;
    }
    bool hasGradient() const override { return true; }
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd& local, std::uint64_t) const override
    {
        m_global.setMoments(global, Eigen::Index(0), 0.0, 1.0);
        for (Eigen::Index i = 0; i < local.cols(); ++i) {
            Eigen::ArrayXd column(local.rows());
            m_local.setMoments(column, Eigen::Index(0), 0.0, 1.0);
            local.col(i) = column.matrix();
        }
    }

private:
    std::vector<double> m_y;
    QLayout m_global, m_local;
};

std::vector<double> draws(int n, double mean, std::uint64_t seed)
{
    Rng rng(seed);
    std::vector<double> y(static_cast<std::size_t>(n));
    for (double& v : y)
        v = mean + rng.normal();
    return y;
}

} // namespace

// Minibatches of 5 of 40 observations, S = 16, AdaGrad: q(μ) reaches the exact posterior
// N(Σy/(N + 0.01), 1/(N + 0.01)).
void TestBlackBox::fitsAConjugateGaussianPosterior()
{
    const std::vector<double> y = draws(40, 1.5, 5);
    NormalMean model(y);
    BbviOptions o = options(16, true, true);
    o.minibatch = 5;
    o.optimizer.rate = 0.2;
    BlackBoxVi engine(model, o, 9);
    Eigen::ArrayXd mean(1), variance(1), sumMean = Eigen::ArrayXd::Zero(1),
                                         sumVar = Eigen::ArrayXd::Zero(1);
    const int steps = 6000, kept = 2000;
    for (int t = 1; t <= steps; ++t) {
        engine.step(t);
        if (t > steps - kept) {
            model.globals().moments(engine.global(), mean, variance);
            sumMean += mean, sumVar += variance;
        }
    }
    double sum = 0.0;
    for (const double v : y)
        sum += v;
    const double precision = 40.0 + 0.01;
    const double m = sumMean[0] / kept, v = sumVar[0] / kept;
    QVERIFY2(std::abs(m - sum / precision) < 0.03,
             qPrintable(QString("mean %1, exact %2").arg(m).arg(sum / precision)));
    QVERIFY2(
        std::abs(std::sqrt(v) - std::sqrt(1 / precision)) < 0.25 * std::sqrt(1 / precision),
        qPrintable(QString("sd %1, exact %2").arg(std::sqrt(v)).arg(std::sqrt(1 / precision))));
}

// The hierarchy with a local b_i per observation, minibatches of 4 of 20: the means of q(μ)
// and q(b_i) reach the posterior's, and q(b_i)'s variance the mean-field 1/Λ_bb = 1/2 (each
// b_i has its link to μ and its observation) — by the score function and by the
// reparameterised estimator (whose local steps read the model's ∂/∂b_i).
void TestBlackBox::fitsLocalVariablesWithMinibatches_data()
{
    QTest::addColumn<bool>("reparam");
    QTest::newRow("score function") << false;
    QTest::newRow("reparameterised") << true;
}

void TestBlackBox::fitsLocalVariablesWithMinibatches()
{
    QFETCH(bool, reparam);
    const int N = 20;
    const std::vector<double> y = draws(N, -1.0, 6);
    NormalEffects model(y);
    BbviOptions o = options(16, true, true);
    if (reparam)
        o.estimator = BbviEstimator::Reparam;
    o.minibatch = 4;
    o.localSteps = 3;
    o.localRate = 0.3;
    o.optimizer.rate = 0.05;
    BlackBoxVi engine(model, o, 10);
    const int steps = 8000, kept = 2000;
    double sumMu = 0.0;
    Eigen::ArrayXd mean(1), variance(1), bMean(1), bVar(1);
    Eigen::ArrayXd sumVar = Eigen::ArrayXd::Zero(N); // each q(b_i)'s variance, over the kept
    for (int t = 1; t <= steps; ++t) {
        engine.step(t);
        if (t > steps - kept) {
            model.globals().moments(engine.global(), mean, variance);
            sumMu += mean[0];
            for (int i = 0; i < N; ++i) {
                model.locals().moments(engine.local().col(i).array(), bMean, bVar);
                sumVar[i] += bVar[0] / kept;
            }
        }
    }
    // Exact posterior means: Λ = [[N + 0.01, −1ᵀ], [−1, 2 I]], Λ (μ, b) = (0, y): eliminating b,
    // (N + 0.01 − N/2) μ = Σ y / 2.
    double sumY = 0.0;
    for (const double v : y)
        sumY += v;
    const double mu = 0.5 * sumY / (N + 0.01 - 0.5 * N);
    QVERIFY2(std::abs(sumMu / kept - mu) < 0.1,
             qPrintable(QString("E[mu] %1, exact %2").arg(sumMu / kept).arg(mu)));
    double worst = 0.0;
    for (int i = 0; i < N; ++i) {
        model.locals().moments(engine.local().col(i).array(), bMean, bVar);
        worst = std::max(worst, std::abs(bMean[0] - 0.5 * (y[std::size_t(i)] + mu)));
        // Averaged over the kept steps, the reparameterised local steps' variance is within
        // 0.03 (a local gradient scaled by 0.9 moves it to 0.56).
        QVERIFY2(std::abs(sumVar[i] - 0.5) < (reparam ? 0.03 : 0.2),
                 qPrintable(QString::number(sumVar[i])));
    }
    QVERIFY2(worst < 0.25, qPrintable(QString("worst E[b_i] off by %1").arg(worst)));
}

void TestBlackBox::rejectsBadOptions()
{
    NormalMean model({1.0, 2.0});
    BbviOptions o;
    o.draws = 0;
    try {
        BlackBoxVi engine(model, o, 1);
        QFAIL("draws = 0 accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("draws = 0"), e.what());
    }
    NormalMean empty({});
    try {
        BlackBoxVi engine(empty, BbviOptions{}, 1);
        QFAIL("no items accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY(QString(e.what()).contains("no items"));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, QLayout({{"z", QFamily::Categorical, 1, 1}}));
    // The reparameterised estimator of a model without gradients, or of a discrete q.
    BbviOptions reparam;
    reparam.estimator = BbviEstimator::Reparam;
    try {
        BlackBoxVi engine(model, reparam, 1);
        QFAIL("reparam without gradients accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("estimator"), e.what());
    }
    ToyModel discrete(QBlock{"z", QFamily::Bernoulli, 1}, [](Eigen::Index, double z) { return z; });
    discrete.slope = [](Eigen::Index, double) { return 1.0; };
    discrete.lambda = Eigen::ArrayXd::Zero(1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, BlackBoxVi(discrete, reparam, 1));
}

QTEST_GUILESS_MAIN(TestBlackBox)
#include "test_black_box.moc"
