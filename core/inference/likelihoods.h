#pragma once
// The observation models of a latent Gaussian model: the log-likelihood log p(y | f) of one
// label y given its latent value f, and its first two derivatives in f, which is all that the
// Monte Carlo structured updates of paper 002 (Sec. 3.3, eq. 22–25) need of it. The GLM reads
// them for f_i = x_iᵀw; generalized PMF (binary, count) reads the same functions for
// f_ij = u_iᵀv_j.
//
// Thread-safety: immutable values; call from any thread.

#include "core/math/gauss_hermite.h"
#include "core/math/random.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

enum class LikelihoodKind {
    Logistic,        // y ∈ {0, 1}, p(y = 1 | f) = σ(f)
    Probit,          // y ∈ {0, 1}, p(y = 1 | f) = Φ(f)
    Poisson,         // y ∈ {0, 1, …}, y ~ Poisson(e^f) (log link)
    PoissonLogistic, // y ∈ {0, 1, …}, y ~ Poisson(log(1 + e^f)): the "logistic" link of the
                     // GPML toolbox paper 002 ran (4.2, 4.4)
    Gaussian,        // y real, y ~ N(f, σ²) with σ the noise setting
    Ordinal          // y ∈ {1, …, C}, cut points and a slope (makeOrdinalLikelihood)
};

// "logistic", "probit", "poisson", "poisson-logistic", "gaussian", "ordinal";
// fromName throws std::invalid_argument naming the field "likelihood" otherwise.
std::string likelihoodName(LikelihoodKind kind);
LikelihoodKind likelihoodFromName(const std::string& name);
std::vector<std::string> likelihoodNames();
// Those whose only setting is the Gaussian's noise (all but "ordinal", whose cut points a
// model declares): the GLM's and the synthetic labels' choices.
std::vector<std::string> unparameterisedLikelihoodNames();

class Likelihood
{
public:
    virtual ~Likelihood() = default;
    virtual LikelihoodKind kind() const = 0;
    // log p(y | f), including its normalising constant (log y! for the Poisson ones).
    virtual double logLik(double y, double f) const = 0;
    // ∂/∂f and ∂²/∂f² of log p(y | f).
    virtual void derivatives(double y, double f, double& d1, double& d2) const = 0;
    // E[y | f].
    virtual double mean(double f) const = 0;
    // Why y is outside the support ("2 is not 0 or 1"), or nullopt when it is inside.
    virtual std::optional<std::string> outsideSupport(double y) const = 0;
    // Whether the labels are class labels (a zero-one error is reported) or values (an RMSE).
    virtual bool classifies() const = 0;
    // A draw of y given f (synthetic labels).
    virtual double sample(double f, Rng& rng) const = 0;

    // log E_{N(f | m, v)}[p(y | f)]: the log predictive density of y when q(f) = N(m, v),
    // by Gauss–Hermite quadrature (in closed form where there is one).
    virtual double logPredictive(double y, double m, double v, const GaussHermite& gh) const;
    // E_{N(f | m, v)}[E[y | f]], the predictive mean.
    virtual double predictiveMean(double m, double v, const GaussHermite& gh) const;
    // E_{N(f | m, v)}[log p(y | f)], the term of the bound (3).
    virtual double expectedLogLik(double y, double m, double v, const GaussHermite& gh) const;
};

// `noiseSd` is σ of the Gaussian likelihood (ignored by the others); Ordinal gets paper 002's
// settings, 5 categories, δ = 15, slope 100. Throws std::invalid_argument when noiseSd ≤ 0 for
// the Gaussian.
std::unique_ptr<Likelihood> makeLikelihood(LikelihoodKind kind, double noiseSd = 1.0);

// The ordinal likelihood p(y = c | f) = σ(s(b_c − f)) − σ(s(b_{c−1} − f)) of categories
// 1…cuts.size() + 1. Throws std::invalid_argument naming the field unless the cut points are
// finite and increasing and the slope is > 0.
std::unique_ptr<Likelihood> makeOrdinalLikelihood(std::vector<double> cuts, double slope);
// An ordinal likelihood's parts: ∂/∂b_c and ∂/∂b_{c−1} of log p(y = c | f) (0 for a cut the
// category does not have), its cut points and its slope. Throw std::invalid_argument for another
// likelihood.
void ordinalCutDerivatives(const Likelihood& lik, double y, double f, double& dUpper,
                           double& dLower);
std::vector<double> ordinalCutsOf(const Likelihood& lik);
double ordinalSlopeOf(const Likelihood& lik);
// C − 1 cut points spaced `spacing` apart, centred on 0: b_k = δ(k − C/2) (paper 002's runs:
// C = 5, δ = 15, so ±7.5 and ±22.5). Throws std::invalid_argument unless C ≥ 2 and δ > 0.
std::vector<double> ordinalCuts(int categories, double spacing);

} // namespace svi
