#pragma once
// GME: the GLM with Gaussian noise of Rayleigh-distributed variance on its local values (paper
// 002, Sec. 3.4, App. A.3, experiment 4.2): w1 ~ N(0, σ_p² I), w2 ~ Rayleigh(τ),
// f_i | w ~ N(x_iᵀw1, w2), y_i ~ p(y | f_i). The variational family is q(w1) q(w2) =
// N(m, S) · Rayleigh(σ), fitted by MC-SSVI, H-MC-SSVI and S-DSVI (LinearLgmTrainer), with one of
// two bounds:
//   - optimal, (8): Σ_i E_q(w)[log φ_i(x_iᵀw1, w2)] with φ_i(a, s) = E_N(f | a, s)[p(y_i | f)],
//     q(f | w) = p(f | w, y) left implicit (the model is in 2L-LVMi);
//   - simple, (3): Σ_i E_q(w) E_N(f | x_iᵀw1, w2)[log p(y_i | f)], Jensen's step below (8);
//   - mean-field, (92) of App. A.4: q(w) Π_i q(f_i) with q(f_i) = N(β_i, g_i), each row's
//     E_q(f_i)[log p(y_i | f_i)] + E_q(w)q(f_i)[log p(f_i | w)] + H(q(f_i)) maximised over
//     (β_i, g_i) in the row's local step (Newton on the stationarity conditions, quadrature for
//     the likelihood's expectations), so that α_i, γ_i, δ_i are the derivatives of the row's
//     optimum (the envelope theorem). With c = E[1/w2] = √(π/2)/σ and E[log w2] = log σ +
//     (log 2 − γ_Euler)/2 for Rayleigh(σ) — the paper's eq. 95–99 use √(2π)/σ, twice this —
//     α_i = c(β_i − m_i), γ_i = −c/2 and δ_i = −1/(2σ) + c z_i / (2σ) with
//     z_i = (β_i − m_i)² + g_i + v_i.
//
// A row's estimates (gme.cpp): with a = x_iᵀw1 ~ N(m_i, v_i) and w2 = σ r, r ~ Rayleigh(1),
//   α_i = E[∂ψ/∂a], γ_i = ½ E[∂²ψ/∂a²], δ_i = ∂/∂σ E[ψ] = E[(w2/σ) ∂ψ/∂w2],
// where ψ = log φ (optimal) or E_N(f | a, w2)[log p] (simple). For the optimal bound
// ∂ψ/∂a = φ′/φ, ∂²ψ/∂a² = φ″/φ − (φ′/φ)² with φ′ = E[p ℓ′], φ″ = E[p (ℓ″ + ℓ′²)] over f by
// Gauss–Hermite quadrature, and ∂ψ/∂w2 the derivative of that quadrature (= ½ φ″/φ for the exact
// integral: the variance w2 of f acts as ½ ∂²/∂a²). The paper's eq. 34–36, 41 and 44 write
// w2² where this derivation (f's variance w2, as Sec. 3.4 defines it) gives w2, and its eq. 40
// and 43 omit a 1/E_i; the tests check these derivatives against finite differences of the
// bound.
//
// q(w2) is updated as the paper does: natural-gradient steps of its natural parameter
// −1/(2σ²) (sufficient statistic w2², expectation 2σ²): −1/(2σ²) ← (1 − ρ)(−1/(2σ²)) +
// ρ(−1/(2τ²) + N/|M| Σ_i δ_i / (4σ)) for the natural-gradient algorithms, AdaGrad on σ with
// gradient 2/σ − 2σ/τ² + N/|M| Σ_i δ_i for S-DSVI.

#include "core/inference/lgm_estimates.h"
#include "core/inference/likelihoods.h"
#include "core/inference/optimizers.h"
#include "core/math/gauss_hermite.h"
#include "core/models/lgm/linear_lgm.h"
#include "core/run/registry.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace svi {

enum class GmeBound { Optimal, Simple, MeanField };

// "optimal" / "simple" / "mean-field"; fromName throws std::invalid_argument naming the field
// "bound".
std::string gmeBoundName(GmeBound b);
GmeBound gmeBoundFromName(const std::string& name);

struct GmeOptions : DeclaredOptions<GmeOptions>
{
    GmeOptions() { readDefaults(); }

    std::string likelihood; // "auto" (binary → logistic, counts → poisson, values → gaussian)
    GmeBound bound{};
    int samples{};                    // outer draws of (a, w2) per row (quadrature: nodes of each)
    int innerNodes{};                 // Gauss–Hermite nodes of the inner expectation over f
    ExpectationEstimator estimator{}; // monte-carlo or quadrature (outer)
    double tau{};                     // the prior Rayleigh(τ) of w2 (paper: 5)
    double initSigma{};               // q(w2) starts at Rayleigh(σ) (paper: 1)
    double noiseSd{};                 // σ of a Gaussian likelihood
    LgmOptions lgm;                   // not damping: the GME has no closed form

    // The declarations for `algorithm`, each bound to its field.
    static ParamFields<GmeOptions> declare(LgmAlgorithm algorithm);
    // Every key: those of H-MC-SSVI, then MC-SSVI's.
    static const ParamFields<GmeOptions>& fields();
};

class GmeLocal final : public LikelihoodLocal
{
public:
    // Throws std::invalid_argument naming the field on bad options.
    GmeLocal(LikelihoodKind kind, const GmeOptions& options);
    void estimate(std::int64_t i, double y, double m, double v, Rng& rng, double& alpha,
                  double& gamma, double& extra) const override;
    double expectedTerm(std::int64_t i, double y, double m, double v) const override;
    double logPredictive(std::int64_t i, double y, double m, double v) const override;
    double predictiveMean(std::int64_t i, double m, double v) const override;
    double extraKl() const override;
    // ∂/∂σ of −KL(q(w2) ‖ p(w2)) = 2/σ − 2σ/τ²: S-DSVI's step of σ adds N/|M| Σ_i δ_i to it.
    double klSigmaGradient() const;
    void updateExtra(std::int64_t t, double rho, bool natural, double meanExtra,
                     double scaledExtra) override;
    bool extraFinite() const override { return std::isfinite(m_sigma) && m_sigma > 0; }
    // σ of q(w2) and its AdaGrad state (S-DSVI's steps); nothing is derived.
    void visitState(StateArchive& archive) override;

    double sigma() const { return m_sigma; }         // q(w2) = Rayleigh(σ): E[w2] = σ √(π/2)
    void setSigma(double sigma) { m_sigma = sigma; } // tests
    double tau() const { return m_tau; }
    GmeBound bound() const { return m_bound; }

private:
    // The mean-field row: its local optimum (β, g) given m, v and c = E[1/w2], and its term.
    void meanFieldFit(double y, double m, double c, double& beta, double& g) const;
    double meanFieldTerm(double y, double m, double v, double beta, double g) const;
    // ψ and its derivatives at (a, w2): ψ, ∂ψ/∂a, ∂²ψ/∂a², ∂ψ/∂w2.
    void psi(double y, double a, double w2, double& value, double& da, double& daa,
             double& dw2) const;

    GmeBound m_bound;
    ExpectationEstimator m_estimator;
    int m_samples;
    GaussHermite m_inner, m_outer, m_eval; // over f given w; over x_iᵀw1 (estimates, evaluations)
    GaussRayleigh m_rOuter, m_rEval;       // over w2 / σ (estimates, evaluations)
    double m_tau, m_sigma;
    AdaGrad m_sigmaOpt;
};

class GmeTrainer final : public LinearLgmTrainer
{
public:
    GmeTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm, const GmeOptions& options,
               std::uint64_t seed);
    const GmeLocal& gme() const { return static_cast<const GmeLocal&>(local()); }
    GmeLocal& gme() { return static_cast<GmeLocal&>(local()); }
};

// Registers model "gme" with algorithms "h-mc-ssvi", "mc-ssvi" and "s-dsvi"; labelled data.
void registerGme(Registry& registry);

} // namespace svi
