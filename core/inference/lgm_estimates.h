#pragma once
// Estimates of the two univariate expectations MC-SSVI needs for each local value f_i with
// q(f_i) = N(m_i, v_i) (paper 002, eq. 22 and 25):
//   α_i = E[∂/∂f log p(y_i | f)],   γ_i = ∂/∂v E[log p(y_i | f)] = ½ E[∂²/∂f² log p(y_i | f)].
// Three estimators:
//   - monte-carlo (the paper's): the sample means of ℓ′ and ½ℓ″ over draws f = m + √v ε;
//   - reparameterised (DSVI's, Titsias & Lázaro-Gredilla 2014): α from the same draws and
//     γ = E[ℓ′(f) ε] / (2√v), which needs no second derivative;
//   - quadrature: Gauss–Hermite with as many nodes as samples, deterministic (and exact for a
//     Gaussian likelihood).
// Each is unbiased (quadrature: exact to its order). Thread-safety: immutable; the Rng is the
// caller's (one stream per item).

#include "core/inference/likelihoods.h"
#include "core/math/random.h"

#include <string>
#include <vector>

namespace svi {

enum class ExpectationEstimator { MonteCarlo, Reparameterised, Quadrature };

// "monte-carlo", "reparameterised", "quadrature"; fromName throws std::invalid_argument naming
// the field "estimator".
std::string estimatorName(ExpectationEstimator e);
ExpectationEstimator estimatorFromName(const std::string& name);
std::vector<std::string> estimatorNames();

class LocalEstimator
{
public:
    // Throws std::invalid_argument when samples < 1 (or > 200 for quadrature).
    LocalEstimator(ExpectationEstimator kind, int samples);
    ExpectationEstimator kind() const { return m_kind; }
    int samples() const { return m_samples; }
    // α̂ and γ̂ for label y under q(f) = N(m, v), v ≥ 0; `rng` is used by the Monte Carlo kinds.
    void estimate(const Likelihood& lik, double y, double m, double v, Rng& rng, double& alpha,
                  double& gamma) const;

private:
    ExpectationEstimator m_kind;
    int m_samples;
    GaussHermite m_gh;
};

} // namespace svi
