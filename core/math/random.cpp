#include "core/math/random.h"

#include <cmath>
#include <initializer_list>

namespace svi {
namespace {

std::uint64_t splitmix64(std::uint64_t& x)
{
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

} // namespace

Rng::Rng(std::uint64_t seed)
{
    std::uint64_t x = seed;
    for (auto& s : m_s)
        s = splitmix64(x);
}

Rng Rng::stream(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    // Mix the ids one after another so that (a, b) and (b, a) give different streams.
    std::uint64_t x = seed;
    std::uint64_t h = splitmix64(x);
    for (std::uint64_t id : {a, b, c}) {
        x = h ^ (id * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
        h = splitmix64(x);
    }
    return Rng(h);
}

Rng::result_type Rng::operator()()
{
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

double Rng::uniform()
{
    return double((*this)() >> 11) * 0x1.0p-53;
}

double Rng::uniformOpen()
{
    return (double((*this)() >> 11) + 0.5) * 0x1.0p-53;
}

double Rng::normal()
{
    // Marsaglia's polar method; the second value is kept for the next call.
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    double u, v, s;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    m_spare = v * f;
    m_hasSpare = true;
    return u * f;
}

double Rng::gamma(double shape, double rate)
{
    // Marsaglia & Tsang (2000); shape < 1 through the boost Gamma(shape+1) * U^(1/shape).
    if (shape < 1.0) {
        const double g = gamma(shape + 1.0, 1.0);
        return g * std::pow(uniformOpen(), 1.0 / shape) / rate;
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal();
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = uniformOpen();
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v / rate;
        if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
            return d * v / rate;
    }
}

double Rng::beta(double a, double b)
{
    const double x = gamma(a, 1.0);
    const double y = gamma(b, 1.0);
    const double s = x + y;
    if (s > 0.0)
        return x / s;
    // Both gammas underflowed (tiny shapes): decide by the relative weights.
    return uniform() < a / (a + b) ? 1.0 : 0.0;
}

std::uint64_t Rng::below(std::uint64_t n)
{
    // Rejection of the top partial block removes the modulo bias.
    const std::uint64_t limit = max() - max() % n;
    std::uint64_t x;
    do {
        x = (*this)();
    } while (x >= limit);
    return x % n;
}

} // namespace svi
