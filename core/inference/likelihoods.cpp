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

// Poisson with the "logistic" inverse link of the GPML toolbox, which paper 002 used (App. A.5):
// λ = g(f) = log(1 + e^f), the softplus (not σ(f), whose rate could not pass 1). log λ is
// concave and λ convex, so log p is concave in f.
class PoissonLogistic final : public Likelihood
{
public:
    LikelihoodKind kind() const override { return LikelihoodKind::PoissonLogistic; }
    double logLik(double y, double f) const override
    {
        return y * logRate(f) - softplus(f) - logFactorial(y);
    }
    // With r = σ(f)/λ = ∂ log λ/∂f: d1 = y r − σ, d2 = y r(1 − σ − r) − σ(1 − σ).
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const double s = sigmoid(f);
        if (f < kTail) { // λ = e^f − e^{2f}/2 + …, r = 1 − e^f/2 + … (1 to double precision)
            const double e = std::exp(f);
            d1 = y - s;
            d2 = -(0.5 * y + 1.0) * e;
            return;
        }
        const double r = s / softplus(f);
        d1 = y * r - s;
        d2 = y * r * (1.0 - s - r) - s * (1.0 - s);
    }
    double mean(double f) const override { return softplus(f); }
    std::optional<std::string> outsideSupport(double y) const override { return notCount(y); }
    bool classifies() const override { return false; }
    double sample(double f, Rng& rng) const override { return poissonDraw(softplus(f), rng); }

private:
    static constexpr double kTail = -35.0; // below, log λ = f to double precision
    static double logRate(double f) { return f < kTail ? f : std::log(softplus(f)); }
};

// The ordinal likelihood of Sheth, Wang & Khardon (2015) that paper 002 ran (Sec. 4.4, App.
// A.5): categories 1…C with cut points b_1 < … < b_{C−1} and slope s,
//   p(y = c | f) = σ(s(b_c − f)) − σ(s(b_{c−1} − f)),   b_0 = −∞, b_C = +∞.
// With a = s(b_c − f) and b = s(b_{c−1} − f), p = σ(a) σ(−b) (1 − e^{b−a}), whose last factor
// does not depend on f: log p = log σ(a) + log σ(−b) + log(1 − e^{b−a}), stable at any slope,
// and ∂/∂f log p = −s σ(−a) + s σ(b), ∂²/∂f² log p = −s²(σ(a)σ(−a) + σ(b)σ(−b)) ≤ 0.
class Ordinal final : public Likelihood
{
public:
    Ordinal(std::vector<double> cuts, double slope) : m_cuts(std::move(cuts)), m_slope(slope) {}
    LikelihoodKind kind() const override { return LikelihoodKind::Ordinal; }
    double logLik(double y, double f) const override
    {
        const int c = int(y);
        double lp = 0.0;
        if (c <= categories() - 1)
            lp -= softplus(-upper(c, f)); // log σ(a)
        if (c >= 2)
            lp -= softplus(lower(c, f)); // log σ(−b)
        if (c >= 2 && c <= categories() - 1)
            lp += std::log(
                -std::expm1(-m_slope * (m_cuts[std::size_t(c - 1)] - m_cuts[std::size_t(c - 2)])));
        return lp;
    }
    void derivatives(double y, double f, double& d1, double& d2) const override
    {
        const int c = int(y);
        d1 = 0.0;
        d2 = 0.0;
        if (c <= categories() - 1) {
            const double a = upper(c, f);
            d1 -= m_slope * sigmoid(-a);
            d2 -= m_slope * m_slope * sigmoid(a) * sigmoid(-a);
        }
        if (c >= 2) {
            const double b = lower(c, f);
            d1 += m_slope * sigmoid(b);
            d2 -= m_slope * m_slope * sigmoid(b) * sigmoid(-b);
        }
    }
    // Σ_c c p(c | f) = 1 + Σ_{k<C} P(y > k | f) = 1 + Σ_k σ(s(f − b_k)).
    double mean(double f) const override
    {
        double m = 1.0;
        for (double b : m_cuts)
            m += sigmoid(m_slope * (f - b));
        return m;
    }
    std::optional<std::string> outsideSupport(double y) const override
    {
        if (!(y >= 1.0 && y <= double(categories())) || y != std::floor(y))
            return formatNumber(y) + " is not a category 1…" + std::to_string(categories());
        return std::nullopt;
    }
    bool classifies() const override { return false; }
    // The smallest c with P(y ≤ c | f) = σ(s(b_c − f)) ≥ u.
    double sample(double f, Rng& rng) const override
    {
        const double u = rng.uniformOpen();
        int c = 1;
        for (double b : m_cuts) {
            if (sigmoid(m_slope * (b - f)) >= u)
                break;
            ++c;
        }
        return c;
    }

    // ∂/∂b_c and ∂/∂b_{c−1} of log p(y = c | f): s[σ(−a) + 1/(e^{a−b} − 1)] and
    // −s[σ(b) + 1/(e^{a−b} − 1)] (the second term only between two cut points).
    void cutDerivatives(double y, double f, double& dUpper, double& dLower) const
    {
        const int c = int(y);
        dUpper = 0.0;
        dLower = 0.0;
        const bool interior = c >= 2 && c <= categories() - 1;
        const double gap = interior ? 1.0 / std::expm1(m_slope * (m_cuts[std::size_t(c - 1)] -
                                                                  m_cuts[std::size_t(c - 2)]))
                                    : 0.0;
        if (c <= categories() - 1)
            dUpper = m_slope * (sigmoid(-upper(c, f)) + gap);
        if (c >= 2)
            dLower = -m_slope * (sigmoid(lower(c, f)) + gap);
    }
    const std::vector<double>& cuts() const { return m_cuts; }
    double slope() const { return m_slope; }

private:
    int categories() const { return int(m_cuts.size()) + 1; }
    double upper(int c, double f) const { return m_slope * (m_cuts[std::size_t(c - 1)] - f); }
    double lower(int c, double f) const { return m_slope * (m_cuts[std::size_t(c - 2)] - f); }

    std::vector<double> m_cuts;
    double m_slope;
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
    return {"logistic", "probit", "poisson", "poisson-logistic", "gaussian", "ordinal"};
}

std::vector<std::string> unparameterisedLikelihoodNames()
{
    std::vector<std::string> names = likelihoodNames();
    std::erase(names, likelihoodName(LikelihoodKind::Ordinal));
    return names;
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
        throw std::invalid_argument(
            fieldError("likelihood", name,
                       "must be logistic, probit, poisson, poisson-logistic, gaussian or ordinal"));
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
    case LikelihoodKind::Ordinal:
        return makeOrdinalLikelihood(ordinalCuts(5, 15.0), 100.0);
    }
    throw std::invalid_argument("likelihood: unknown kind");
}

std::vector<double> ordinalCuts(int categories, double spacing)
{
    if (categories < 2)
        throw std::invalid_argument(
            fieldError("categories", std::to_string(categories), "must be ≥ 2"));
    if (!(spacing > 0.0) || !std::isfinite(spacing))
        throw std::invalid_argument(fieldError("delta", formatNumber(spacing), "must be > 0"));
    std::vector<double> cuts(std::size_t(categories - 1));
    for (int k = 1; k < categories; ++k)
        cuts[std::size_t(k - 1)] = spacing * (double(k) - 0.5 * double(categories));
    return cuts;
}

namespace {

const Ordinal& ordinal(const Likelihood& lik)
{
    const auto* o = dynamic_cast<const Ordinal*>(&lik);
    if (!o)
        throw std::invalid_argument("likelihood = " + likelihoodName(lik.kind()) +
                                    " has no cut points");
    return *o;
}

} // namespace

void ordinalCutDerivatives(const Likelihood& lik, double y, double f, double& dUpper,
                           double& dLower)
{
    ordinal(lik).cutDerivatives(y, f, dUpper, dLower);
}

std::vector<double> ordinalCutsOf(const Likelihood& lik)
{
    return ordinal(lik).cuts();
}

double ordinalSlopeOf(const Likelihood& lik)
{
    return ordinal(lik).slope();
}

std::unique_ptr<Likelihood> makeOrdinalLikelihood(std::vector<double> cuts, double slope)
{
    if (cuts.empty())
        throw std::invalid_argument("ordinal likelihood: no cut points (at least 2 categories)");
    for (std::size_t k = 0; k < cuts.size(); ++k)
        if (!std::isfinite(cuts[k]) || (k > 0 && !(cuts[k] > cuts[k - 1])))
            throw std::invalid_argument(
                fieldError("cut points", formatNumber(cuts[k]), "must be finite and increasing"));
    if (!(slope > 0.0) || !std::isfinite(slope))
        throw std::invalid_argument(fieldError("slope", formatNumber(slope), "must be > 0"));
    return std::make_unique<Ordinal>(std::move(cuts), slope);
}

} // namespace svi
