#pragma once
// The synthetic data of paper 003's GPFA experiment (Sec. 4.2, Figure 4): y_n = W x_n + ε_n with
// x_n ~ N(0, I_K), ε_n ~ N(0, σ² I_D), and loadings drawn elementwise from the mixture
// (1 − ρ) δ₀ + ρ U[0, 1] (the paper: D = 50, K = 10, ρ = 0.2, σ² = 0.1).
//
// The data are left as drawn: zero mean by construction (what the model assumes) and not
// standardised, so that the true loadings and noise variance are in the data's units.

#include "core/data/dense_data.h"

#include <cstdint>

namespace svi {

struct GpfaSyntheticOptions
{
    std::int64_t N = 1000;
    int D = 50;
    int K = 10;
    double density = 0.2;       // ρ: P(W_dk ≠ 0)
    double noiseVariance = 0.1; // σ²
    std::uint64_t seed = 1;
};

// Every entry Observed, trueLoadings set (D × K). Rows are drawn from their own streams
// (seed, row), so the first n rows of a larger draw are the draw of n rows. Throws
// std::invalid_argument naming the field on bad options.
DenseDataPtr makeGpfaSynthetic(const GpfaSyntheticOptions& options);

} // namespace svi
