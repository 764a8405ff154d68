#pragma once
// The correlated topic model's per-document likelihood with its topic assignments summed out
// (paper 002, Sec. 3.7, eq. 56): η ∈ R^{K−1}, θ = h(η) the softmax of (η, 0) over K topics
// (eq. 54), and each word ξ_n(η) = log Σ_k h_k(η) β_{k,w_n}. With r_{w,k} = h_k β_{k,w} / Σ_l
// h_l β_{l,w} (the topic posterior of word w given η) and a tilde for the first K − 1 entries,
//   ∇ξ_w = r̃_w − h̃,   ∇²ξ_w = (diag r̃_w − r̃_w r̃_wᵀ) − (diag h̃ − h̃ h̃ᵀ),
// which is the paper's pair of identities after ∇h_k = h_k(ẽ_k − h̃) and ∇²h_k are summed: the
// Hessian is the difference of two categorical covariances. A document's terms weight each
// distinct word by its count c_w.
//
// Thread-safety: pure functions; any thread.

#include "core/data/labelled_data.h" // MatrixRD
#include "core/math/random.h"

#include <Eigen/Core>
#include <cstdint>
#include <span>

namespace svi::ctm {

// θ = h(η) (K = η.size() + 1 entries), without overflow.
void logisticNormal(const Eigen::Ref<const Eigen::VectorXd>& eta,
                    Eigen::Ref<Eigen::VectorXd> theta);

// Σ_w c_w ξ_w(η) and its gradient and Hessian in η (when `hess` is given; its diagonal alone,
// K per word instead of K², when `hessDiag` is), for a document's distinct words `words` with
// counts `counts`; `topicsByWord` is β word-major (V × K, row w holding β_{·,w}). `theta` and
// `r` are scratch of K entries. The sums are added to grad, hess and hessDiag (which the caller
// zeroes); the value is returned.
double documentTerms(const Eigen::Ref<const Eigen::VectorXd>& eta,
                     std::span<const std::int32_t> words, std::span<const float> counts,
                     const MatrixRD& topicsByWord, Eigen::Ref<Eigen::VectorXd> grad,
                     Eigen::MatrixXd* hess, Eigen::VectorXd& theta, Eigen::VectorXd& r,
                     Eigen::VectorXd* hessDiag = nullptr);

// The simple structured bound's word terms (App. A.2, eq. 73): Σ_w c_w Σ_k log β_kw h_k(η) =
// hᵀL with L = Σ_w c_w log β_{·,w} (K entries, `wordLogs`), whose gradient is ã − A h̃ and
// Hessian diag ã − ã h̃ᵀ − h̃ ãᵀ + 2A h̃ h̃ᵀ − A diag h̃, with a = h ∘ L and A = hᵀL. Added to
// grad and hess (or hessDiag) as documentTerms does; the value is returned.
double simpleTerms(const Eigen::Ref<const Eigen::VectorXd>& eta, const Eigen::VectorXd& wordLogs,
                   Eigen::Ref<Eigen::VectorXd> grad, Eigen::MatrixXd* hess,
                   Eigen::VectorXd* hessDiag, Eigen::VectorXd& theta);

// log p(w | μ, Σ, β) = log ∫ p(w | η, β) N(η | μ, Σ) dη of a document (App. A.5, eq. 105) by
// importance sampling from N(m, S + inflation · I) — a posterior fitted to the document, its
// covariance inflated against narrow posteriors (the paper: 0.1 and 1) — with `samples` draws
// from `rng`: log (1/n) Σ_s p(w | η_s) N(η_s | μ, Σ) / N(η_s | m, S + inflation · I), by
// log-sum-exp. p(w | η) = Π_n Σ_k h_k(η) β_{k,w_n} (the words' order does not matter: no
// multinomial coefficient). `priorPrecision` is Σ⁻¹ and `logDetPrior` log|Σ|. The log of an
// unbiased estimate: low by Jensen's gap, less so the better the proposal.
double importanceLogLikelihood(std::span<const std::int32_t> words, std::span<const float> counts,
                               const MatrixRD& topicsByWord, const Eigen::VectorXd& mu,
                               const Eigen::MatrixXd& priorPrecision, double logDetPrior,
                               const Eigen::VectorXd& m, const Eigen::MatrixXd& S, double inflation,
                               int samples, Rng& rng);

} // namespace svi::ctm
