#pragma once
// Round axis ticks for the custom-painted views (weights, predictive slice): steps of 1, 2 or
// 5 × 10^k, and tick labels without the −0 or 1e-17 of accumulated rounding. Pure functions.

#include <QString>
#include <algorithm>
#include <cmath>
#include <vector>

namespace svi::ui {

// A round step (1, 2 or 5 × 10^k) giving about `ticks` intervals over `span` (> 0, finite);
// 1 when `span` is not.
inline double tickStep(double span, int ticks)
{
    if (!(span > 0) || !std::isfinite(span))
        return 1.0;
    const double raw = span / std::max(ticks, 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw)
            return m * mag;
    return 10.0 * mag;
}

// The multiples of tickStep(hi − lo, ticks) in [lo, hi], ascending; empty when lo < hi does
// not hold. Each is computed as k × step (not by repeated addition), so 0.3 stays 0.3.
inline std::vector<double> niceTicks(double lo, double hi, int ticks)
{
    std::vector<double> out;
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
        return out;
    const double step = tickStep(hi - lo, ticks);
    const double eps = 1e-9 * step;
    for (double k = std::ceil((lo - eps) / step); k * step <= hi + eps && out.size() < 100; ++k)
        out.push_back(k * step);
    return out;
}

// A tick's label on an axis of ticks `step` apart: as many decimals as the step needs (0.5,
// 1.0, 1.5; 20, 40), in exponent form for very large or very small steps; 0 for a value within
// rounding of it.
inline QString tickLabel(double value, double step)
{
    if (!(step > 0) || !std::isfinite(step) || !std::isfinite(value))
        return QString::number(value, 'g', 4);
    if (std::abs(value) < 1e-9 * step)
        value = 0.0;
    const int stepExp = int(std::floor(std::log10(step) + 1e-9));
    if (step >= 1e-4 && std::max(std::abs(value), step) < 1e7)
        return QString::number(value, 'f', std::max(0, -stepExp));
    const int valueExp = value == 0.0 ? stepExp : int(std::floor(std::log10(std::abs(value))));
    return QString::number(value, 'g', std::clamp(valueExp - stepExp + 1, 1, 15));
}

} // namespace svi::ui
