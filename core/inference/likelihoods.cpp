#include "core/inference/likelihoods.h"

#include "core/base/params.h"
#include "core/math/log_sum_exp.h"
#include "core/math/logistic.h"

#include <algorithm>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {
namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178; // ½ log 2π

// log Φ(x). erfc underflows below x ≈ −37; from −20 down the asymptotic series of Mills' ratio
// (Abramowitz & Stegun 26.2.12) is exact to double precision.
double logPhi(double x)
{
    if (x > -20.0)
        return std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));
    const double x2 = x * x;
    const double series = 1.0 - 1.0 / x2 + 3.0 / (x2 * x2) - 15.0 / (x2 * x2 * x2);
    return -0.5 * x2 - kLogSqrt2Pi - std::log(-x) + std::log(series);
}

// φ(x) / Φ(x).
double inverseMills(double x)
{
    return std::exp(-0.5 * x * x - kLogSqrt2Pi - logPhi(x));
}

double logFactorial(double y)
{
    return boost::math::lgamma(y + 1.0);
}

// Poisson(mean) by inversion of its CDF: the smallest k with F(k) ≥ u (Boost.Math's quantile,
// rounded up; its default rounding outwards would take the k below in the lower tail).
double poissonDraw(double mean, Rng& rng)
{
    using namespace boost::math::policies;
    using RoundUp = policy<discrete_quantile<integer_round_up>>;
    if (!(mean > 0.0))
        return 0.0;
    return boost::math::quantile(boost::math::poisson_distribution<double, RoundUp>(mean),
                                 rng.uniformOpen());
}

std::optional<std::string> notCount(double y)
{
    if (!(y >= 0.0) || y != std::floor(y) || !std::isfinite(y))
        return formatNumber(y) + " is not a count (a whole number ≥ 0)";
    return std::nullopt;
}

std::optional<std::string> notBinary(double y)
{
    if (y != 0.0 && y != 1.0)
        return formatNumber(y) + " is not a class label 0 or 1";
    return std::nullopt;
}

class Logistic final : public Likelihood
{
public:
    LikelihoodKind kind() const override { return LikelihoodKind::Logistic; }
    double logLik(double y, double f) const override { return y * f - softplus(f); }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const double s = sigmoid(f);
        d1 = y - s;
        d2 = -s * (1.0 - s);
    }
    double mean(double f) const override { return sigmoid(f); }
    std::optional<std::string> outsideSupport(double y) const override { return notBinary(y); }
    bool classifies() const override { return true; }
    double sample(double f, Rng& rng) const override { return rng.bernoulli(sigmoid(f)) ? 1 : 0; }
};

class Probit final : public Likelihood
{
public:
    LikelihoodKind kind() const override { return LikelihoodKind::Probit; }
    double logLik(double y, double f) const override { return logPhi((2.0 * y - 1.0) * f); }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const double s = 2.0 * y - 1.0;
        const double x = s * f;
        const double r = inverseMills(x);
        d1 = s * r;
        d2 = -r * (x + r);
    }
    double mean(double f) const override { return std::exp(logPhi(f)); }
    std::optional<std::string> outsideSupport(double y) const override { return notBinary(y); }
    bool classifies() const override { return true; }
    double sample(double f, Rng& rng) const override { return rng.normal() < f ? 1 : 0; }
    // ∫ Φ(s f) N(f | m, v) df = Φ(s m / √(1 + v)).
    double logPredictive(double y, double m, double v, const GaussHermite&) const override
    {
        return logPhi((2.0 * y - 1.0) * m / std::sqrt(1.0 + v));
    }
    double predictiveMean(double m, double v, const GaussHermite&) const override
    {
        return std::exp(logPhi(m / std::sqrt(1.0 + v)));
    }
};

class Poisson final : public Likelihood
{
public:
    LikelihoodKind kind() const override { return LikelihoodKind::Poisson; }
    double logLik(double y, double f) const override
    {
        return y * f - std::exp(f) - logFactorial(y);
    }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const double e = std::exp(f);
        d1 = y - e;
        d2 = -e;
    }
    double mean(double f) const override { return std::exp(f); }
    std::optional<std::string> outsideSupport(double y) const override { return notCount(y); }
    bool classifies() const override { return false; }
    double sample(double f, Rng& rng) const override { return poissonDraw(std::exp(f), rng); }
    // E[e^f] = e^{m + v/2}.
    double predictiveMean(double m, double v, const GaussHermite&) const override
    {
        return std::exp(m + 0.5 * v);
    }
    double expectedLogLik(double y, double m, double v, const GaussHermite&) const override
    {
        return y * m - std::exp(m + 0.5 * v) - logFactorial(y);
    }
};

class PoissonLogistic final : public Likelihood
{
public:
    LikelihoodKind kind() const override { return LikelihoodKind::PoissonLogistic; }
    // log σ(f) = −softplus(−f).
    double logLik(double y, double f) const override
    {
        return -y * softplus(-f) - sigmoid(f) - logFactorial(y);
    }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const double s = sigmoid(f);
        const double ds = s * (1.0 - s); // σ′
        d1 = y * (1.0 - s) - ds;
        d2 = -y * ds - ds * (1.0 - 2.0 * s);
    }
    double mean(double f) const override { return sigmoid(f); }
    std::optional<std::string> outsideSupport(double y) const override { return notCount(y); }
    bool classifies() const override { return false; }
    double sample(double f, Rng& rng) const override { return poissonDraw(sigmoid(f), rng); }
};

class Gaussian final : public Likelihood
{
public:
    explicit Gaussian(double sd) : m_var(sd * sd) {}
    LikelihoodKind kind() const override { return LikelihoodKind::Gaussian; }
    double logLik(double y, double f) const override
    {
        return -0.5 * std::log(m_var) - kLogSqrt2Pi - 0.5 * (y - f) * (y - f) / m_var;
    }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        d1 = (y - f) / m_var;
        d2 = -1.0 / m_var;
    }
    double mean(double f) const override { return f; }
    std::optional<std::string> outsideSupport(double y) const override
    {
        if (!std::isfinite(y))
            return formatNumber(y) + " is not a finite number";
        return std::nullopt;
    }
    bool classifies() const override { return false; }
    double sample(double f, Rng& rng) const override { return f + std::sqrt(m_var) * rng.normal(); }
    // N(y | m, v + σ²).
    double logPredictive(double y, double m, double v, const GaussHermite&) const override
    {
        const double s2 = v + m_var;
        return -0.5 * std::log(s2) - kLogSqrt2Pi - 0.5 * (y - m) * (y - m) / s2;
    }
    double predictiveMean(double m, double, const GaussHermite&) const override { return m; }
    double expectedLogLik(double y, double m, double v, const GaussHermite&) const override
    {
        return -0.5 * std::log(m_var) - kLogSqrt2Pi - 0.5 * ((y - m) * (y - m) + v) / m_var;
    }

private:
    double m_var;
};

} // namespace

double Likelihood::logPredictive(double y, double m, double v, const GaussHermite& gh) const
{
    // log Σ_k w_k p(y | f_k), by log-sum-exp so that a tiny predictive density keeps its digits.
    const double sd = std::sqrt(std::max(v, 0.0));
    LogSumExp lse;
    for (int k = 0; k < gh.size(); ++k)
        lse.add(std::log(gh.weights()[k]) + logLik(y, m + sd * gh.nodes()[k]));
    return lse.value();
}

double Likelihood::predictiveMean(double m, double v, const GaussHermite& gh) const
{
    return gh.expect(m, v, [this](double f) { return mean(f); });
}

double Likelihood::expectedLogLik(double y, double m, double v, const GaussHermite& gh) const
{
    return gh.expect(m, v, [this, y](double f) { return logLik(y, f); });
}

std::vector<std::string> likelihoodNames()
{
    return {"logistic", "probit", "poisson", "poisson-logistic", "gaussian"};
}

std::string likelihoodName(LikelihoodKind kind)
{
    return likelihoodNames()[std::size_t(kind)];
}

LikelihoodKind likelihoodFromName(const std::string& name)
{
    const auto names = likelihoodNames();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
        throw std::invalid_argument(fieldError(
            "likelihood", name, "must be logistic, probit, poisson, poisson-logistic or gaussian"));
    return LikelihoodKind(it - names.begin());
}

std::unique_ptr<Likelihood> makeLikelihood(LikelihoodKind kind, double noiseSd)
{
    switch (kind) {
    case LikelihoodKind::Logistic:
        return std::make_unique<Logistic>();
    case LikelihoodKind::Probit:
        return std::make_unique<Probit>();
    case LikelihoodKind::Poisson:
        return std::make_unique<Poisson>();
    case LikelihoodKind::PoissonLogistic:
        return std::make_unique<PoissonLogistic>();
    case LikelihoodKind::Gaussian:
        if (!(noiseSd > 0.0) || !std::isfinite(noiseSd))
            throw std::invalid_argument(
                fieldError("noise_sd", formatNumber(noiseSd), "must be > 0"));
        return std::make_unique<Gaussian>(noiseSd);
    }
    throw std::invalid_argument("likelihood: unknown kind");
}

} // namespace svi
