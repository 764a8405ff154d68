#pragma once
// The digamma function ψ, vectorised for the variational updates of Dirichlet and gamma
// factors (E[log x] = ψ(shape) − log(rate) or ψ(γ_k) − ψ(Σγ)).

#include <Eigen/Core>

namespace svi {

// ψ(x) = d/dx log Γ(x) for x > 0, NaN for x ≤ 0 or NaN. Error ≤ 1e-12 · max(1, |ψ(x)|)
// (measured against Boost.Math over 1e-8 … 1e8: 2e-14). The absolute error is what matters
// here (ψ enters through exp(E[log ·])); near the root of ψ (1.4616…) the relative error is
// larger, as for any evaluation that sums terms of opposite sign. The array form is
// vectorised and about 7× faster than boost::math::digamma value by value (bench_lda).
double digamma(double x);
// out[i] = ψ(x[i]) for i < n; out may equal x.
void digamma(const double* x, double* out, Eigen::Index n);

} // namespace svi
