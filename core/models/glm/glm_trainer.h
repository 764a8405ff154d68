#pragma once
// GlmTrainer: a Bayesian GLM on LabelledData (glm.h), q(w) = N(m, S) full or diagonal, fitted by
// one of the algorithms of paper 002 for latent Gaussian models through LinearLgmTrainer
// (linear_lgm.h). A row's part is its likelihood: α̂_i, γ̂_i by the LocalEstimator (Monte
// Carlo, reparameterised or quadrature), its term of the bound (3) and its predictive by
// 32-node Gauss–Hermite quadrature (in closed form where there is one).
//
// With the Gaussian likelihood and learn_noise, the noise variance follows the stochastic
// M-step of the bound after each step's estimates: σ² ← (1 − ρ)σ² + ρ · mean_i E_q[(y_i − f_i)²]
// over the minibatch (at the q the step started from), with ρ_t = t^−0.6 so that the first
// steps' estimates (under the broad initial q) are forgotten, not averaged in as 1/t would.

#include "core/inference/lgm_estimates.h"
#include "core/inference/likelihoods.h"
#include "core/models/glm/glm.h"
#include "core/models/lgm/linear_lgm.h"

#include <memory>
#include <string>
#include <vector>

namespace svi {

// The GLM's settings; defaults and ranges are those declared by declare() (glm_registry.cpp),
// the paper's where it states them (minibatch 2,000, 10 samples, S = 10 I, prior N(0, I), 1/t
// for the natural-gradient steps, AdaGrad with rate 1.0 for the others).
struct GlmOptions : DeclaredOptions<GlmOptions>
{
    GlmOptions() { readDefaults(); }

    std::string likelihood; // "auto" (from the labels: binary → logistic, counts → poisson,
                            // values → gaussian) or a likelihoodName
    int samples{};          // Monte Carlo draws (or quadrature nodes) per row
    ExpectationEstimator estimator{};
    double noiseSd{};  // σ of the Gaussian likelihood, on the standardised label's scale
    bool learnNoise{}; // Gaussian: σ² follows its stochastic M-step (see above)
    // covariance, minibatch, step sizes, prior, start, eval_rows (not damping: the GLM has no
    // closed form)
    LgmOptions lgm;

    // The declarations for `algorithm` (batch: no minibatch; S-DSVI: no κ, τ0; MC-SSVI: no
    // AdaGrad rate), each bound to its field.
    static ParamFields<GlmOptions> declare(LgmAlgorithm algorithm);
    // Every key: those of H-MC-SSVI, then MC-SSVI's.
    static const ParamFields<GlmOptions>& fields();
};

// The GLM's part of a row: its likelihood.
class GlmLocal final : public LikelihoodLocal
{
public:
    GlmLocal(LikelihoodKind kind, const GlmOptions& options);
    void estimate(std::int64_t i, double y, double m, double v, Rng& rng, double& alpha,
                  double& gamma, double& extra) const override;
    double expectedTerm(std::int64_t i, double y, double m, double v) const override;
    double logPredictive(std::int64_t i, double y, double m, double v) const override;
    double predictiveMean(std::int64_t i, double m, double v) const override;
    void updateExtra(std::int64_t t, double rho, bool natural, double meanExtra,
                     double scaledExtra) override;
    // The learnt noise sd (nothing when it is fixed); the likelihood is rebuilt from it.
    void visitState(StateArchive& archive) override;

    double noiseSd() const { return m_noiseSd; }

private:
    bool learning() const;

    double m_noiseSd;
    bool m_learnNoise;
    LocalEstimator m_estimator;
    GaussHermite m_gh;
};

class GlmTrainer final : public LinearLgmTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options, and naming the file, line
    // and label for a label outside the likelihood's support ("cannot fit 'a.csv' line 7,
    // label: 2 is not a class label 0 or 1 (likelihood = logistic)"), or when there is no
    // training row.
    GlmTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm, const GlmOptions& options,
               std::uint64_t seed);

    const Likelihood& likelihood() const { return glm().likelihood(); }
    double noiseSd() const { return glm().noiseSd(); }

private:
    const GlmLocal& glm() const { return static_cast<const GlmLocal&>(local()); }
};

} // namespace svi
