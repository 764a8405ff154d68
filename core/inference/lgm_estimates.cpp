#include "core/inference/lgm_estimates.h"

#include "core/base/params.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace svi {

std::vector<std::string> estimatorNames()
{
    return {"monte-carlo", "reparameterised", "quadrature"};
}

std::string estimatorName(ExpectationEstimator e)
{
    return estimatorNames()[std::size_t(e)];
}

ExpectationEstimator estimatorFromName(const std::string& name)
{
    const auto names = estimatorNames();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
        throw std::invalid_argument(
            fieldError("estimator", name, "must be monte-carlo, reparameterised or quadrature"));
    return ExpectationEstimator(it - names.begin());
}

LocalEstimator::LocalEstimator(ExpectationEstimator kind, int samples)
    : m_kind(kind), m_samples(samples),
      m_gh(kind == ExpectationEstimator::Quadrature ? std::clamp(samples, 1, 200) : 1)
{
    if (samples < 1 || (kind == ExpectationEstimator::Quadrature && samples > 200))
        throw std::invalid_argument(fieldError("samples", std::to_string(samples),
                                               kind == ExpectationEstimator::Quadrature
                                                   ? "must be in [1, 200] for quadrature"
                                                   : "must be ≥ 1"));
}

void LocalEstimator::estimate(const Likelihood& lik, double y, double m, double v, Rng& rng,
                              double& alpha, double& gamma) const
{
    const double sd = v > 0.0 ? std::sqrt(v) : 0.0;
    double a = 0.0, c = 0.0, d1 = 0.0, d2 = 0.0;
    switch (m_kind) {
    case ExpectationEstimator::Quadrature:
        for (int k = 0; k < m_gh.size(); ++k) {
            lik.derivatives(y, m + sd * m_gh.nodes()[k], d1, d2);
            a += m_gh.weights()[k] * d1;
            c += m_gh.weights()[k] * d2;
        }
        alpha = a;
        gamma = 0.5 * c;
        return;
    case ExpectationEstimator::MonteCarlo:
        for (int k = 0; k < m_samples; ++k) {
            lik.derivatives(y, m + sd * rng.normal(), d1, d2);
            a += d1;
            c += d2;
        }
        alpha = a / m_samples;
        gamma = 0.5 * c / m_samples;
        return;
    case ExpectationEstimator::Reparameterised:
        // ∂/∂v E[ℓ(m + √v ε)] = E[ℓ′(f) ε] / (2√v). At v = 0 the Hessian form is the limit.
        for (int k = 0; k < m_samples; ++k) {
            const double eps = rng.normal();
            lik.derivatives(y, m + sd * eps, d1, d2);
            a += d1;
            c += sd > 0.0 ? d1 * eps / (2.0 * sd) : 0.5 * d2;
        }
        alpha = a / m_samples;
        gamma = c / m_samples;
        return;
    }
}

} // namespace svi
