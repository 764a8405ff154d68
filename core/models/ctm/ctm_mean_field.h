#pragma once
// The mean-field variational inference of Blei & Lafferty (2006, 2007) for one document of the
// correlated topic model, the baseline paper 002 compares with (Sec. 4.5). The topic
// assignments are kept: q(η, z) = N(η | λ, diag ν²) Π_n Mult(z_n | φ_n), and E_q[log Σ_k e^η_k]
// is bounded by a first-order expansion around ζ. With η̃ = (η, 0) (K − 1 free entries, the
// K-th topic the reference, as ctm_math.h), N the document's word count, P = Σ⁻¹, c_w the
// count of distinct word w and e_k = exp(λ̃_k + ν̃²_k / 2) (e_K = 1), the per-document bound is
//   L = −½ Σ_k P_kk ν²_k − ½ (λ − μ)ᵀ P (λ − μ) − ½ log|Σ| + ½ Σ_k log ν²_k + (K − 1)/2
//       + Σ_w c_w Σ_k φ_wk (λ̃_k + log β_kw − log φ_wk) − N (ζ⁻¹ Σ_k e_k − 1 + log ζ),
// the first line −KL(q(η) ‖ N(μ, Σ)). Each update below maximises L in its block, the others
// fixed:
//   ζ = Σ_k e_k;   φ_wk ∝ β_kw exp λ̃_k;
//   λ by Newton's method on the concave −½ (λ − μ)ᵀP(λ − μ) + λᵀφ̄ − (N/ζ) Σ_k e_k (φ̄_k =
//     Σ_w c_w φ_wk; Hessian −P − (N/ζ) diag e, negative definite);
//   ν²_k by Newton's method on the root of ½ − ½ P_kk x − (N/2ζ) x exp(λ_k + x/2) (x = ν²_k; the
//     derivative of L times x, concave and decreasing from ½ at 0, so that Newton's iterates
//     from any x > 0 land at or above the root and fall to it).
//
// Thread-safety: pure functions of their arguments; any thread.

#include "core/data/labelled_data.h" // MatrixRD
#include "core/inference/gaussian_q.h"

#include <Eigen/Core>
#include <cstdint>
#include <span>

namespace svi::ctm {

// One document's variational parameters; φ is distinct words × K.
struct MeanFieldDocument
{
    Eigen::VectorXd lambda, nu2; // K − 1 each
    double zeta = 1.0;
    MatrixRD phi;
    MatrixRD logTopics; // fitMeanField's scratch: log β_kw at the words (words × K)
};

// A document's words, the topics word-major (V × K) and the prior: what its updates read.
struct MeanFieldInputs
{
    std::span<const std::int32_t> words;
    std::span<const float> counts;
    const MatrixRD& topicsByWord;
    const GaussianPrior& prior;
    // log β_kw at the words (words × K) when known, so that the bound need not take them again.
    const MatrixRD* logTopics = nullptr;
};

double meanFieldBound(const MeanFieldInputs& in, const MeanFieldDocument& doc);
void updateZeta(MeanFieldDocument& doc);
void updatePhi(const MeanFieldInputs& in, MeanFieldDocument& doc);
void updateLambda(const MeanFieldInputs& in, MeanFieldDocument& doc);
void updateNu(const MeanFieldInputs& in, MeanFieldDocument& doc);

// The updates in Blei & Lafferty's order (φ, ζ, λ, ζ, ν², ζ) from `doc`'s λ and ν² (φ and ζ
// are recomputed first) until L changes by less than `tolerance` relatively or `maxIters`
// rounds are done; returns the final L. The words' log β are taken once, into doc.logTopics.
double fitMeanField(const MeanFieldInputs& in, MeanFieldDocument& doc, int maxIters,
                    double tolerance = 1e-6);

} // namespace svi::ctm
