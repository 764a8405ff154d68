#include "core/models/glm/gme.h"

#include "core/math/constants.h"
#include "core/math/log_sum_exp.h"
#include "core/models/glm/glm_trainer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {
namespace {

constexpr int kEvalNodes = 16; // per dimension of the evaluations' deterministic rules

} // namespace

std::string gmeBoundName(GmeBound b)
{
    return b == GmeBound::Optimal ? "optimal" : b == GmeBound::Simple ? "simple" : "mean-field";
}

GmeBound gmeBoundFromName(const std::string& name)
{
    if (name == "optimal")
        return GmeBound::Optimal;
    if (name == "simple")
        return GmeBound::Simple;
    if (name == "mean-field")
        return GmeBound::MeanField;
    throw std::invalid_argument(fieldError("bound", name, "must be optimal, simple or mean-field"));
}

GmeLocal::GmeLocal(LikelihoodKind kind, const GmeOptions& o)
    : LikelihoodLocal(makeLikelihood(kind, o.noiseSd)), m_bound(o.bound), m_estimator(o.estimator),
      m_samples(o.samples), m_inner(o.innerNodes), m_outer(std::clamp(o.samples, 1, 200)),
      m_eval(kEvalNodes), m_rOuter(std::clamp(o.samples, 1, 100)), m_rEval(kEvalNodes),
      m_tau(o.tau), m_sigma(o.initSigma), m_sigmaOpt(o.lgm.adagradRate)
{
    if (m_estimator == ExpectationEstimator::Reparameterised)
        throw std::invalid_argument(fieldError("estimator", "reparameterised",
                                               "must be monte-carlo or quadrature for GME"));
}

void GmeLocal::psi(double y, double a, double w2, double& value, double& da, double& daa,
                   double& dw2) const
{
    const double sd = std::sqrt(std::max(w2, 0.0));
    if (m_bound == GmeBound::Simple) {
        // ψ = E_N(f | a, w2)[ℓ(f)]: ∂ψ/∂a = E[ℓ′], ∂²ψ/∂a² = E[ℓ″], and ∂ψ/∂w2 as the
        // derivative of the quadrature itself, E[ℓ′(f) z] / (2√w2) with f = a + √w2 z (the
        // identity ½E[ℓ″] of the exact integral differs from it by the rule's error, which
        // would make the steps of σ aim elsewhere than the bound they are scored by).
        double v = 0, d1s = 0, d2s = 0, d1z = 0, d1 = 0, d2 = 0;
        for (int k = 0; k < m_inner.size(); ++k) {
            const double f = a + sd * m_inner.nodes()[k];
            const double w = m_inner.weights()[k];
            m_lik->derivatives(y, f, d1, d2);
            v += w * m_lik->logLik(y, f);
            d1s += w * d1;
            d2s += w * d2;
            d1z += w * d1 * m_inner.nodes()[k];
        }
        value = v;
        da = d1s;
        daa = d2s;
        dw2 = sd > 1e-8 ? d1z / (2.0 * sd) : 0.5 * d2s;
        return;
    }
    // ψ = log φ, φ = E_N(f | a, w2)[p(y | f)], each term scaled by e^{−max ℓ} (ratios keep).
    // Under the tilted weights p_k ∝ w_k p(y | f_k): ∂ψ/∂a = E_p[ℓ′], ∂²ψ/∂a² = E_p[ℓ″] +
    // Var_p[ℓ′] (φ″/φ − (φ′/φ)², taken in two passes: far in a likelihood's tail ℓ′² is huge
    // and the difference of the raw moments loses every digit), and ∂ψ/∂w2 as the derivative
    // of the quadrature, E_p[ℓ′ z] / (2√w2) (½φ″/φ, its value for the exact integral, is off by
    // the rule's error where p(y | f) is peaked: a count of 20).
    const int n = m_inner.size(); // ≤ 200 (declared range)
    std::array<double, 200> l{}, g1{}, g2{};
    double top = -std::numeric_limits<double>::infinity();
    for (int k = 0; k < n; ++k) {
        const double f = a + sd * m_inner.nodes()[k];
        l[std::size_t(k)] = m_lik->logLik(y, f);
        m_lik->derivatives(y, f, g1[std::size_t(k)], g2[std::size_t(k)]);
        top = std::max(top, l[std::size_t(k)]);
    }
    double phi = 0, e1 = 0, e2 = 0, ez = 0;
    for (int k = 0; k < n; ++k) {
        const std::size_t i = std::size_t(k);
        l[i] = m_inner.weights()[k] * std::exp(l[i] - top); // now the weight p_k
        if (l[i] == 0.0)
            continue; // its derivatives may be infinite; it weighs nothing
        phi += l[i];
        e1 += l[i] * g1[i];
        e2 += l[i] * g2[i];
        ez += l[i] * g1[i] * m_inner.nodes()[k];
    }
    e1 /= phi;
    e2 /= phi;
    ez /= phi;
    double var = 0.0;
    for (int k = 0; k < n; ++k) {
        const std::size_t i = std::size_t(k);
        if (l[i] != 0.0)
            var += l[i] * (g1[i] - e1) * (g1[i] - e1);
    }
    var /= phi;
    value = top + std::log(phi);
    da = e1;
    daa = e2 + var;
    dw2 = sd > 1e-8 ? ez / (2.0 * sd) : 0.5 * (e2 + var + e1 * e1);
}

void GmeLocal::meanFieldFit(double y, double m, double c, double& beta, double& g) const
{
    // Stationarity of E_N(β, g)[ℓ] − (c/2)((β − m)² + g) + ½ log g: in g, g = 1/(c − E[ℓ″]);
    // in β, E[ℓ′] = c(β − m), solved by Newton steps with the curvature c − E[ℓ″] > 0 for a
    // log-concave likelihood (clamped at c otherwise).
    beta = m;
    g = 1.0 / c;
    for (int it = 0; it < 50; ++it) {
        double e1 = 0, e2 = 0, d1 = 0, d2 = 0;
        const double sd = std::sqrt(g);
        for (int k = 0; k < m_inner.size(); ++k) {
            m_lik->derivatives(y, beta + sd * m_inner.nodes()[k], d1, d2);
            e1 += m_inner.weights()[k] * d1;
            e2 += m_inner.weights()[k] * d2;
        }
        const double curvature = std::max(c - e2, c);
        const double stepB = (e1 - c * (beta - m)) / curvature;
        beta += std::isfinite(stepB) ? stepB : 0.0;
        const double gNew = 1.0 / curvature;
        const bool done =
            std::abs(stepB) < 1e-12 * (1.0 + std::abs(beta)) && std::abs(gNew - g) < 1e-12 * g;
        g = gNew;
        if (done)
            break;
    }
}

double GmeLocal::meanFieldTerm(double y, double m, double v, double beta, double g) const
{
    constexpr double kEuler = 0.57721566490153286061;
    const double c = std::sqrt(std::numbers::pi / 2.0) / m_sigma;
    const double elogw2 = std::log(m_sigma) + 0.5 * (std::numbers::ln2 - kEuler);
    const double z = (beta - m) * (beta - m) + g + v;
    return m_lik->expectedLogLik(y, beta, g, m_inner) - 0.5 * elogw2 - 0.5 * kLog2Pi - 0.5 * c * z +
           0.5 * (kLog2Pi + 1.0 + std::log(g));
}

void GmeLocal::estimate(std::int64_t, double y, double m, double v, Rng& rng, double& alpha,
                        double& gamma, double& extra) const
{
    if (m_bound == GmeBound::MeanField) {
        const double c = std::sqrt(std::numbers::pi / 2.0) / m_sigma;
        double beta = 0, g = 0;
        meanFieldFit(y, m, c, beta, g);
        const double z = (beta - m) * (beta - m) + g + v;
        alpha = c * (beta - m);
        gamma = -0.5 * c;
        extra = -0.5 / m_sigma + 0.5 * c * z / m_sigma;
        return;
    }
    const double sdA = std::sqrt(std::max(v, 0.0));
    double a1 = 0, g1 = 0, e1 = 0, total = 0;
    const auto add = [&](double weight, double a, double r) {
        const double w2 = m_sigma * r;
        double value = 0, da = 0, daa = 0, dw2 = 0;
        psi(y, a, w2, value, da, daa, dw2);
        a1 += weight * da;
        g1 += weight * 0.5 * daa;
        e1 += weight * r * dw2; // (w2/σ) ∂ψ/∂w2
        total += weight;
    };
    if (m_estimator == ExpectationEstimator::Quadrature) {
        for (int i = 0; i < m_outer.size(); ++i)
            for (int j = 0; j < m_rOuter.size(); ++j)
                add(m_outer.weights()[i] * m_rOuter.weights()[j], m + sdA * m_outer.nodes()[i],
                    m_rOuter.nodes()[j]);
    } else {
        for (int k = 0; k < m_samples; ++k) {
            const double a = m + sdA * rng.normal();
            const double r = std::sqrt(-2.0 * std::log(rng.uniformOpen()));
            add(1.0, a, r);
        }
    }
    alpha = a1 / total;
    gamma = g1 / total;
    extra = e1 / total;
}

double GmeLocal::expectedTerm(std::int64_t, double y, double m, double v) const
{
    if (m_bound == GmeBound::MeanField) {
        double beta = 0, g = 0;
        meanFieldFit(y, m, std::sqrt(std::numbers::pi / 2.0) / m_sigma, beta, g);
        return meanFieldTerm(y, m, v, beta, g);
    }
    const double sdA = std::sqrt(std::max(v, 0.0));
    double s = 0.0;
    for (int j = 0; j < m_rEval.size(); ++j)
        for (int i = 0; i < m_eval.size(); ++i) {
            double value = 0, da = 0, daa = 0, dw2 = 0;
            psi(y, m + sdA * m_eval.nodes()[i], m_sigma * m_rEval.nodes()[j], value, da, daa, dw2);
            s += m_rEval.weights()[j] * m_eval.weights()[i] * value;
        }
    return s;
}

double GmeLocal::logPredictive(std::int64_t, double y, double m, double v) const
{
    // p(y | x) = E_q(w2)[p(y | f ~ N(m, v + w2))]: the likelihood's own predictive (closed where
    // it has one) at each Gauss–Rayleigh node of w2, added by log-sum-exp.
    LogSumExp lse;
    for (int j = 0; j < m_rEval.size(); ++j)
        lse.add(std::log(m_rEval.weights()[j]) +
                m_lik->logPredictive(y, m, v + m_sigma * m_rEval.nodes()[j], m_inner));
    return lse.value();
}

double GmeLocal::predictiveMean(std::int64_t, double m, double v) const
{
    double s = 0.0;
    for (int j = 0; j < m_rEval.size(); ++j)
        s += m_rEval.weights()[j] *
             m_lik->predictiveMean(m, v + m_sigma * m_rEval.nodes()[j], m_inner);
    return s;
}

double GmeLocal::extraKl() const
{
    // KL(Rayleigh(σ) ‖ Rayleigh(τ)) = log(τ²/σ²) + σ²/τ² − 1.
    const double q = m_sigma * m_sigma / (m_tau * m_tau);
    return -std::log(q) + q - 1.0;
}

double GmeLocal::klSigmaGradient() const
{
    return 2.0 / m_sigma - 2.0 * m_sigma / (m_tau * m_tau);
}

void GmeLocal::visitState(StateArchive& a)
{
    a.field("sigma", m_sigma);
    a.field("sigma_opt", m_sigmaOpt);
}

void GmeLocal::updateExtra(std::int64_t, double rho, bool natural, double, double scaledDelta)
{
    if (natural) {
        // θ = −1/(2σ²); ∂/∂η = (1/(4σ)) ∂/∂σ with η = E[w2²] = 2σ².
        const double theta = -0.5 / (m_sigma * m_sigma);
        const double target = -0.5 / (m_tau * m_tau) + scaledDelta / (4.0 * m_sigma);
        for (int halvings = 0; halvings <= 30; ++halvings, rho *= 0.5) {
            const double next = (1.0 - rho) * theta + rho * target;
            if (next < 0.0 && std::isfinite(next)) {
                m_sigma = std::sqrt(-0.5 / next);
                return;
            }
        }
        return;
    }
    Eigen::ArrayXd s(1), g(1);
    s[0] = m_sigma;
    g[0] = klSigmaGradient() + scaledDelta;
    m_sigmaOpt.ascend(s, g);
    m_sigma = s[0] > 0.0 ? s[0] : 0.5 * m_sigma; // σ stays positive
}

GmeTrainer::GmeTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm,
                       const GmeOptions& options, std::uint64_t seed)
    : LinearLgmTrainer(data, algorithm, options.checked().lgm,
                       std::make_unique<GmeLocal>(likelihoodFor(options.likelihood, data), options),
                       seed)
{
}

} // namespace svi
