#pragma once
// Numeric constants that several models use, declared once.

#include <limits>

namespace svi {

// log(2π), of the normal density.
inline constexpr double kLog2Pi = 1.8378770664093454836;
// "No value": a metric that cannot be computed, a statistic not yet estimated.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace svi
