#pragma once
// The correlated topic model of Blei & Lafferty (2006) as paper 002 fits it (Sec. 3.7, App.
// A.2): per document η_d ~ N(μ, Σ) in R^{K−1}, θ_d = h(η_d) (eq. 54), words from Σ_k θ_dk β_k
// with the topic assignments summed out (the optimal bound, eq. 56); q(η_d) = N(m_d, S_d),
// diagonal as in the paper's runs or full; documents visited in a round robin by H-MC-SSVI or
// S-DSVI, μ and Σ by eq. 60–61 and the topics β by stochastic gradient (eq. 62) after each.

#include "core/base/param_fields.h"
#include "core/inference/gaussian_q.h"
#include "core/inference/lgm_update.h"

#include <string>
#include <vector>

namespace svi {

class Registry;
// Registers model "ctm" with algorithms "h-mc-ssvi", "s-dsvi" and the baseline "mean-field";
// corpora only.
void registerCtm(Registry& registry);

// The bound q is fitted to: the optimal (8), eq. 56, the words' topics summed out inside the
// logarithm; or the simple structured approximation (3), eq. 73, Σ_k log β_kw E_q[h_k(η)].
enum class CtmBound { Optimal, Simple };
// How the documents' q(η_d) and the globals are fitted: by paper 002's structured algorithms
// (the LgmAlgorithm given), or by Blei & Lafferty's mean-field variational EM, the baseline
// (ctm_mean_field.h): each document's E-step in turn, the M-step (β, μ, Σ) after each pass.
enum class CtmMethod { Structured, MeanField };
std::string ctmBoundName(CtmBound b);
CtmBound ctmBoundFromName(const std::string& name);

// The settings; defaults and ranges are those declared by declare(), the paper's where it
// states them (10 samples, μ = 0 and Σ = I to start, 1/n for the natural steps, AdaGrad at
// rate 1.0 for the others).
struct CtmOptions : DeclaredOptions<CtmOptions>
{
    CtmOptions() { readDefaults(); }

    int K{}; // topics
    CtmBound bound{};
    CovarianceForm covariance{}; // of each q(η_d)
    int samples{};               // draws of η per document update (N_MC)
    // Natural steps: ρ = (n + τ0)^−κ at a document's n-th visit, or each document's adaptive
    // rate (QStepSizes), started from adaptive_init gradients at its first visit.
    StepSchedule schedule{};
    double kappa{}, tau0{};
    int adaptiveInit{};
    double adagradRate{}; // the gradient steps of m_d (and of S_d's factor for S-DSVI)
    double topicsRate{};  // AdaGrad's rate for the topics' logits (eq. 62)
    int topicsBatch{};    // documents whose eq. 62 gradients make one step
    bool learnPrior{};    // μ, Σ by eq. 60–61 after each document
    int localIters{};     // natural steps fitting a test document's observed half
    int evalDocs{};       // documents a cheap evaluation uses
    int topWords{};       // words listed per topic in the preview
    int varIters{};       // mean-field: rounds of a document's E-step at most

    // The declarations of the structured algorithm `algorithm` (the step sizes for H-MC-SSVI only)
    // and of the mean-field baseline, each bound to its field.
    static ParamFields<CtmOptions> declare(LgmAlgorithm algorithm);
    static ParamFields<CtmOptions> declareMeanField();
    // Every key: those of H-MC-SSVI, then var_iters.
    static const ParamFields<CtmOptions>& fields();
};

} // namespace svi
