#pragma once
// Synthetic data drawn from the BPFA prior (paper 000, Sec. 5.1), with a seeded fraction of
// entries held out for testing.

#include "core/data/dense_data.h"

#include <cstdint>

namespace svi {

struct BpfaSyntheticOptions
{
    std::int64_t N = 100000;
    int D = 40;
    int K = 80;
    double gammaW = 1.0;
    double gammaObs = 100.0;
    double a = 10.0, b = 10.0; // π_k ~ Beta(a/K, b(K−1)/K)
    // Variance of the loadings φ_kd; ≤ 0 means 1/D, the prior of eq. 5. With 1/D an item holds
    // about one feature of variance 1/D, so after standardising the noise (1/γ_obs = 0.01) is
    // about 30 % of the variance; with 1 it is about 1 %, the level the paper's MSEs imply.
    double loadingVariance = 0.0;
    double heldOut = 0.075;  // fraction of entries held out, in [0, 1)
    bool standardise = true; // scale to empirical mean 0, variance 1 (as the paper does)
    std::uint64_t seed = 1;
};

struct BpfaSynthetic
{
    DenseDataPtr data;
    double noiseVariance = 0.0; // 1/γ_obs in the units of `data` (after standardising)
};

// Throws std::invalid_argument naming the field on bad options.
BpfaSynthetic makeBpfaSynthetic(const BpfaSyntheticOptions& options);

} // namespace svi
