#pragma once
// Reparameterised draws from gamma and softplus-normal distributions (paper 003, Sec. 2.2–2.4):
// x = ψ(u, θ) with u drawn from a fixed distribution, and ∂x/∂θ, so that the gradient of an
// expectation under q_θ is estimated from the gradient of the integrand (eq. 4).
//
// Gamma(a, b) (shape a, rate b) through its inverse CDF, x = F⁻¹(u; a, 1)/b with u ~ U(0, 1)
// (eq. 5): ∂x/∂b = −x/b (eq. 8); ∂x/∂a has no closed form and is taken by the paper's route,
// by regime of a:
//   - small shapes: F(x; a, 1) ≈ x^a / Γ(a + 1), so x ≈ x0 = (u Γ(a + 1))^(1/a)/b (eq. 10),
//     differentiated in closed form. The paper uses it for a < 1 and (1 − 0.94u) log a < −0.42
//     and says the relative error stays below 10⁻⁴ there; it does not (0.27 % at a = 0.54,
//     u = 0.3; 10 % at a = 0.3, u = 0.6). We multiply x0 by the next two terms of its series,
//     exp(x0/(a + 1) + c(a) x0²), and use it only inside the paper's region where also
//     x0 ≤ kSmallShapeX, so that the error, O(x0³), stays below 10⁻⁶ (tested against Boost's
//     inverse); elsewhere the exact inverse below. The same formula is used wherever the exact
//     quantile would underflow (u so small that x < 10⁻²⁸⁰): there it is exact to double
//     precision.
//   - moderate shapes: Boost.Math's gamma_p_inv for x, and a forward difference in a (eq. 9)
//     with a relative step of 10⁻⁷ for ∂x/∂a.
//   - large shapes, a > 1000: the paper matches a normal, x ≈ (a + √a z)/b with z = Φ⁻¹(u);
//     we take Wilson–Hilferty's cube instead, x ≈ a (1 − 1/(9a) + z/(3√a))³/b, whose error
//     at a = 1000 is about 10⁻⁶ of x in the bulk (3·10⁻⁵ at u = 10⁻⁶) against the normal's
//     10⁻³ (the normal misses the skewness 2/√a), and differentiate it in closed form. (The paper's
//     ∂x/∂a ≈ (1 + z/√a)/b for its normal should read (1 + z/(2√a))/b, as its code has it.)
// Everything is returned on the log scale as well, log x and ∂ log x/∂a, so that a model whose
// gradient is steep near 0 ((a₀ − 1)/x) can form x ∂L/∂x × ∂ log x/∂a without overflow.
//
// Thread-safety: pure functions.

#include <cstdint>

namespace svi {

struct GammaDraw
{
    double x = 0.0;       // the draw, ≥ the smallest normal double (never 0)
    double logX = 0.0;    // log x, exact even where x itself was clamped
    double dLogXdA = 0.0; // ∂ log x/∂a; ∂ log x/∂b = −1/b
    bool approx = false;  // from the small- or large-shape approximation, not the inverse
};

// The draw of Gamma(a, b) at u. Throws std::invalid_argument ("gammaQuantileDraw: a = -1,
// but must be > 0") on a or b not positive and finite, or u outside (0, 1).
GammaDraw gammaQuantileDraw(double a, double b, double u);

// Whether gammaQuantileDraw takes (a, u) by the small-shape formula: the paper's test and
// x0 ≤ kSmallShapeX (at rate 1).
bool gammaSmallShapeRegime(double a, double u);
constexpr double kSmallShapeX = 0.01;
constexpr double kGammaLargeShape = 1000.0;

// The inverse of softplus r(θ) = log(1 + e^θ) (core/math/logistic.h), the map paper 003 puts
// on every positive parameter (Sec. 2.4): log(e^r − 1), stable for any r > 0.
double softplusInverse(double r);

// The gamma entropy H = a − log b + log Γ(a) +
// (1 − a) ψ(a) and its derivative ∂H/∂a = 1 + (1 − a) ψ′(a), ∂H/∂b = −1/b.
double gammaEntropy(double a, double b);
double gammaEntropyDA(double a);

} // namespace svi
