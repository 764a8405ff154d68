#pragma once
// How well a factor model recovered the loadings that generated the data (paper 003, Sec. 4.2,
// Figure 4): the Amari error (Amari, Cichocki & Yang 1996), which is zero exactly when the
// estimate equals the truth up to a permutation and a scaling of its columns.
//
// Pure functions; any thread.

#include <Eigen/Core>

namespace svi {

// The normalised Amari error between estimated loadings A and true loadings B, both D × K
// (a column per factor). With Ā, B̄ their columns scaled to unit norm and P = Ā⁺B̄ (K × K, Ā⁺
// the Moore–Penrose pseudo-inverse),
//
//   E = 1/(2K(K − 1)) [ Σ_i (Σ_j |p_ij| / max_j |p_ij| − 1) + Σ_j (Σ_i |p_ij| / max_i |p_ij| − 1) ]
//
// in [0, 1]: 0 when A = BΠΛ for a permutation Π and an invertible diagonal Λ (P is then a
// signed permutation), 1 when every entry of P has the same magnitude; unchanged by any
// permutation or non-zero scaling of either matrix's columns (the normalisation makes it so). A row
// or column of P that is all zero (an estimated factor orthogonal to every true one, a zero column
// of A) counts as the worst, K − 1. K = 1 gives 0 (one factor is always recovered up to scale).
// Throws std::invalid_argument when the shapes differ, either is empty, K > D or an entry is not
// finite.
double amariError(const Eigen::MatrixXd& estimated, const Eigen::MatrixXd& truth);

// The k columns of `m` with the largest Euclidean norms, heaviest first; columns of zeros are
// appended when m has fewer than k (so that a fit with fewer factors than the truth is charged
// for the factors it lacks). For scoring a fit of K factors against K' < K true ones.
Eigen::MatrixXd heaviestColumns(const Eigen::MatrixXd& m, Eigen::Index k);

} // namespace svi
