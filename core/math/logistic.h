#pragma once
// The logistic function and its log-partner, without overflow: σ(x) = 1 / (1 + e^−x) and
// softplus(x) = log(1 + e^x), so that log σ(x) = −softplus(−x). Pure functions; any thread.

#include <cmath>

namespace svi {

inline double sigmoid(double x)
{
    if (x >= 0.0)
        return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}

inline double softplus(double x)
{
    return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

} // namespace svi
