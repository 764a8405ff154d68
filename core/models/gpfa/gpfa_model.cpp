#include "core/models/gpfa/gpfa_model.h"

#include "core/math/digamma.h"

#include <cmath>

namespace svi::gpfa {

ParamFields<Prior> Prior::declare()
{
    return ParamFields<Prior>()
        .add(positiveParam("noise_a", "Noise prior shape",
                           "1/σ² ~ Gamma(noise_a, noise_b) (shape, rate); paper 003: 0.1", 0.1),
             &Prior::noiseShape)
        .add(positiveParam("noise_b", "Noise prior rate",
                           "1/σ² ~ Gamma(noise_a, noise_b) (shape, rate); paper 003: 0.1", 0.1),
             &Prior::noiseRate);
}

const ParamFields<Prior>& Prior::fields()
{
    static const ParamFields<Prior> f = declare();
    return f;
}

namespace {

// log G(x; a, b) without the terms in x: a log b − log Γ(a).
double gammaNormaliser(double a, double b)
{
    return a * std::log(b) - std::lgamma(a);
}

} // namespace

double logPrior(const Layout& l, const Prior& prior, const Eigen::ArrayXd& x, Eigen::ArrayXd& grad)
{
    const int D = l.D, K = l.K;
    const double gamma = x[l.gamma()], gamma0 = x[l.gamma0()], c0 = x[l.c0()], tau = x[l.tau()];
    const double logGamma = std::log(gamma), logC0 = std::log(c0);
    double lp = 0.0, dGamma = 0.0, dGamma0 = 0.0, dC0 = 0.0, sumR = 0.0;
    const double shapeR = gamma0 / K;
    const double psiShapeR = digamma(shapeR);
    for (int k = 0; k < K; ++k) {
        const double r = x[l.r(k)];
        const double shape = gamma * r; // W_dk | r_k, γ ~ G(γ r_k, γ)
        const double psi = digamma(shape);
        double sumLogW = 0.0, sumW = 0.0;
        for (int d = 0; d < D; ++d) {
            const double w = x[l.w(d, k)];
            const double logW = std::log(w);
            sumLogW += logW;
            sumW += w;
            grad[l.w(d, k)] = (shape - 1.0) / w - gamma;
        }
        lp += D * (shape * logGamma - std::lgamma(shape)) + (shape - 1.0) * sumLogW - gamma * sumW;
        // ∂/∂r_k of Σ_d log G(W_dk; γ r_k, γ) = γ (D log γ − D ψ(γ r_k) + Σ_d log W_dk), and of
        // log G(r_k; γ0/K, c0) = (γ0/K − 1)/r_k − c0.
        const double logR = std::log(r);
        grad[l.r(k)] = gamma * (D * (logGamma - psi) + sumLogW) + (shapeR - 1.0) / r - c0;
        dGamma += r * (D * (logGamma + 1.0 - psi) + sumLogW) - sumW;
        lp += gammaNormaliser(shapeR, c0) + (shapeR - 1.0) * logR - c0 * r;
        dGamma0 += (logC0 - psiShapeR + logR) / K;
        sumR += r;
    }
    dC0 = gamma0 / c0 - sumR;
    // γ, γ0, c0 ~ G(1, 1): log density −x, derivative −1.
    lp += -gamma - gamma0 - c0;
    grad[l.gamma()] = dGamma - 1.0;
    grad[l.gamma0()] = dGamma0 - 1.0;
    grad[l.c0()] = dC0 - 1.0;
    // τ ~ G(a_τ, b_τ).
    const double a = prior.noiseShape, b = prior.noiseRate;
    lp += gammaNormaliser(a, b) + (a - 1.0) * std::log(tau) - b * tau;
    grad[l.tau()] = (a - 1.0) / tau - b;
    return lp;
}

Model::Model(const CollapsedLikelihood& likelihood, int K, const Prior& prior)
    : m_likelihood(likelihood), m_layout{likelihood.dims(), K}, m_prior(prior)
{
    m_gradW.resize(m_layout.D, K);
}

double Model::logJoint(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const
{
    GlobalStatistic unused;
    itemTerms(x, {0, itemCount()}, unused);
    return fromItemTerms(x, grad);
}

void Model::itemTerms(const Eigen::ArrayXd& x, Shard part, GlobalStatistic& statistic) const
{
    const Layout& l = m_layout;
    m_likelihood.batchTerms(l.loadings(x), 1.0 / x[l.tau()], m_key, part, statistic);
}

double Model::fromItemTerms(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const
{
    const Layout& l = m_layout;
    double lp = logPrior(l, m_prior, x, grad);
    const double tau = x[l.tau()];
    double gradNoise = 0.0;
    const double ll = m_likelihood.fromBatchTerms(l.loadings(x), 1.0 / tau, m_gradW, gradNoise);
    grad.head(Eigen::Index(l.D) * l.K) += m_gradW.reshaped().array();
    // σ² = 1/τ: ∂L/∂τ = −∂L/∂σ² / τ².
    grad[l.tau()] -= gradNoise / (tau * tau);
    return lp + ll;
}

double Model::blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const
{
    const Layout& l = m_layout;
    const int D = l.D, K = l.K;
    GlobalStatistic terms;
    itemTerms(x, {0, itemCount()}, terms);
    const double tau = x[l.tau()];
    double gradNoise = 0.0;
    const double ll = m_likelihood.fromBatchTerms(l.loadings(x), 1.0 / tau, m_gradW, gradNoise);
    const double gamma = x[l.gamma()], gamma0 = x[l.gamma0()], c0 = x[l.c0()];
    const double logGammaVar = std::log(gamma), shapeR = gamma0 / K;
    double loadings = 0.0, weights = 0.0;
    for (int k = 0; k < K; ++k) {
        const double r = x[l.r(k)], shape = gamma * r;
        const double normaliser = shape * logGammaVar - std::lgamma(shape);
        double column = 0.0;
        for (int d = 0; d < D; ++d) {
            const double w = x[l.w(d, k)];
            const double prior = normaliser + (shape - 1.0) * std::log(w) - gamma * w;
            blanket[l.w(d, k)] = ll + prior;
            column += prior;
        }
        const double prior = gammaNormaliser(shapeR, c0) + (shapeR - 1.0) * std::log(r) - c0 * r;
        blanket[l.r(k)] = column + prior;
        loadings += column;
        weights += prior;
    }
    // γ, γ0, c0 ~ G(1, 1): log density −x.
    blanket[l.gamma()] = loadings - gamma;
    blanket[l.gamma0()] = weights - gamma0;
    blanket[l.c0()] = weights - c0;
    const double a = m_prior.noiseShape, b = m_prior.noiseRate;
    const double noise = gammaNormaliser(a, b) + (a - 1.0) * std::log(tau) - b * tau;
    blanket[l.tau()] = ll + noise;
    return ll + loadings + weights - gamma - gamma0 - c0 + noise;
}

} // namespace svi::gpfa
