#include "core/math/digamma.h"

#include <algorithm>
#include <limits>

namespace svi {
namespace {

using ArrayMap = Eigen::Map<Eigen::ArrayXd>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

// ψ by recurrence and asymptotic series. For x < kDirect the recurrence
// ψ(x) = ψ(x + 6) − Σ_{i=0}^{5} 1/(x + i) moves the argument to y = x + 6 ≥ 6, where the
// asymptotic series ψ(y) ≈ log y − 1/(2y) − Σ_{n=1}^{7} B_2n / (2n y^2n) is accurate to
// 2e-13 (the first omitted term, B_16 / (16 y^16), is 1.6e-13 at y = 6). The six reciprocals are
// summed as p'(x)/p(x) with p(x) = x(x+1)…(x+5): all coefficients positive, so no cancellation, and
// one division instead of six. Past kDirect the series is used at x itself (p would overflow).
constexpr double kDirect = 1e5;

// Elements per slice of the array form: the intermediate arrays live on the stack, each
// step is one vectorised loop, and nothing is recomputed (Eigen does not share common
// subexpressions of a lazy expression).
constexpr Eigen::Index kSlice = 64;
using Slice = Eigen::Array<double, Eigen::Dynamic, 1, Eigen::ColMajor, kSlice, 1>;

void digammaSlice(const double* in, double* res, Eigen::Index m)
{
    const ConstArrayMap x(in, m);
    ArrayMap out(res, m);
    Slice xs = x.min(kDirect);
    // p(x) = x⁶ + 15x⁵ + 85x⁴ + 225x³ + 274x² + 120x (unsigned Stirling numbers s(6, k)).
    Slice p = (((((xs + 15.0) * xs + 85.0) * xs + 225.0) * xs + 274.0) * xs + 120.0) * xs;
    Slice dp = ((((6.0 * xs + 75.0) * xs + 340.0) * xs + 675.0) * xs + 548.0) * xs + 120.0;
    const Slice shift = (x < kDirect).select(dp / p, 0.0);
    const Slice y = (x < kDirect).select(x + 6.0, x);
    const Slice iy = y.inverse();
    const Slice z = iy.square();
    const Slice series =
        z * (1.0 / 12 -
             z * (1.0 / 120 -
                  z * (1.0 / 252 -
                       z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
    out = (x > 0.0).select(y.log() - 0.5 * iy - series - shift,
                           std::numeric_limits<double>::quiet_NaN());
}

} // namespace

double digamma(double x)
{
    double out = 0.0;
    digamma(&x, &out, 1);
    return out;
}

void digamma(const double* x, double* out, Eigen::Index n)
{
    for (Eigen::Index i = 0; i < n; i += kSlice)
        digammaSlice(x + i, out + i, std::min(kSlice, n - i));
}

} // namespace svi
