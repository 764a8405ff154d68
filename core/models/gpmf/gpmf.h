#pragma once
// Generalized probabilistic matrix factorization (paper 002, Sec. 3.6 and 4.4): the columns of
// U (D × users) and V (D × items) drawn from N(0, σ_U² I) and N(0, σ_V² I), each observed entry
// y_ij ~ p(y | u_iᵀv_j) with a binary (logistic), count (Poisson, logistic link) or ordinal
// likelihood, and q(U, V) = Π_i N(u_i | m, S) Π_j N(v_j | m, S) fitted column by column in a
// round robin by H-MC-SSVI, MC-SSVI or S-DSVI (gpmf_trainer.h), on ratings (MovieLens, Last.fm)
// or the paper's artificial fully observed matrices.

#include "core/base/param_fields.h"
#include "core/inference/gaussian_q.h"
#include "core/inference/lgm_estimates.h"
#include "core/inference/lgm_update.h"
#include "core/models/gpmf/gpmf_data.h"
#include "core/run/registry.h"

namespace svi {

// Registers model "gpmf" with algorithms "h-mc-ssvi", "s-dsvi" and "mc-ssvi", on ratings and
// synthetic ratings.
void registerGeneralizedPmf(Registry& registry);

// The settings; defaults and ranges are those declared by declare() (gpmf_registry.cpp), the
// paper's where it states them (10 × 10 samples, slope 100 and δ = 15, σ² = 1, 1/t for the
// natural-gradient steps, AdaGrad with rate 1.0 for the others).
struct GpmfOptions : DeclaredOptions<GpmfOptions>
{
    GpmfOptions() { readDefaults(); }

    int D{};                // latent dimensions
    std::string likelihood; // "auto" (from CountData::values) or an observationName
    int categories{};       // ordinal: C; 0 = the largest category in the data
    gpmf::HalfStars halfStars{};
    double slope{}, delta{}; // ordinal: p(y = c | f) = σ(s(b_c − f)) − σ(s(b_{c−1} − f))
    bool learnCuts{};        // ordinal: the cut points by AdaGrad after each users' half-sweep
    double cutsRate{};       // its rate
    CovarianceForm covariance{};
    std::int64_t subsample{};   // entries per column update; 0 = all of the column's
    std::string unobserved;     // "missing" (the paper's) or "zero" (implicit feedback)
    std::int64_t zeroSamples{}; // unobserved zeros: per column update; 0 = as many as entries
    int samples{};              // draws of f (k2) per draw of the other side's column
    int outerSamples{};         // draws of the other side's column (k1) per entry
    ExpectationEstimator estimator{};
    // Natural steps: ρ = (n + τ0)^−κ at a column's n-th update, or each column's adaptive rate
    // (QStepSizes), started from adaptive_init gradients at its first update.
    StepSchedule schedule{};
    double kappa{}, tau0{};
    int adaptiveInit{};
    double adagradRate{};
    double priorVariance{}; // σ_U², σ_V² at the start (and throughout unless learnt)
    bool learnPrior{};      // σ_U², σ_V² by eq. 68 after each column
    double initVariance{};  // q starts at N(m0, init_variance · I), m0 ~ N(0, init_variance · I)
    int evalEntries{};      // entries (training, test) a cheap evaluation uses
    int evalUsers{};        // users a cheap evaluation ranks
    int topN{};             // n of precision@n and recall@n

    // The declarations for `algorithm` (S-DSVI: no κ, τ0; MC-SSVI: no AdaGrad rate), each
    // bound to its field.
    static ParamFields<GpmfOptions> declare(LgmAlgorithm algorithm);
    // Every key: those of H-MC-SSVI, then MC-SSVI's.
    static const ParamFields<GpmfOptions>& fields();
};

// The likelihood `name` names, or for "auto" the one the data's values suggest: binary for 0/1,
// count for counts, ordinal for stars and categories. Throws std::invalid_argument naming
// "likelihood".
gpmf::Observation observationFor(const std::string& name, const CountData& data);

} // namespace svi
