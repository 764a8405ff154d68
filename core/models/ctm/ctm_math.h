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

#include <Eigen/Core>
#include <cstdint>
#include <span>

namespace svi::ctm {

// θ = h(η) (K = η.size() + 1 entries), without overflow.
void logisticNormal(const Eigen::Ref<const Eigen::VectorXd>& eta,
                    Eigen::Ref<Eigen::VectorXd> theta);

// Σ_w c_w ξ_w(η) and its gradient and (when `hessian`) Hessian in η, for a document's distinct
// words `words` with counts `counts`; `topicsByWord` is β word-major (V × K, row w holding
// β_{·,w}). `theta` and `r` are scratch of K entries. The sums are added to grad and hess (which
// the caller zeroes); the value is returned.
double documentTerms(const Eigen::Ref<const Eigen::VectorXd>& eta,
                     std::span<const std::int32_t> words, std::span<const float> counts,
                     const MatrixRD& topicsByWord, Eigen::Ref<Eigen::VectorXd> grad,
                     Eigen::MatrixXd* hess, Eigen::VectorXd& theta, Eigen::VectorXd& r);

} // namespace svi::ctm
