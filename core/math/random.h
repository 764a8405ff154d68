#pragma once
// Reproducible random number streams.
//
// Every random draw in the library comes from an Rng built by Rng::stream(seed, a, b, c): a
// xoshiro256** generator whose state is derived by SplitMix64 from the tuple. Work that is
// split across threads derives one stream per (seed, step, item), so the result does not
// depend on the thread count or on the order in which items are processed.
//
// Thread-safety: an Rng is a value; one instance must not be shared between threads.

#include <cstdint>
#include <limits>

namespace svi {

class Rng
{
public:
    using result_type = std::uint64_t;

    explicit Rng(std::uint64_t seed = 0x5eed);

    // A stream identified by a seed and up to three ids (e.g. step and item).
    static Rng stream(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0,
                      std::uint64_t c = 0);

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
    result_type operator()();

    double uniform();                        // in [0, 1)
    double uniformOpen();                    // in (0, 1)
    double normal();                         // standard normal
    double gamma(double shape, double rate); // Gamma(shape, rate), shape > 0, rate > 0
    double beta(double a, double b);         // Beta(a, b), a > 0, b > 0
    bool bernoulli(double p) { return uniform() < p; }
    // Uniform integer in [0, n), n > 0, without modulo bias.
    std::uint64_t below(std::uint64_t n);

private:
    std::uint64_t m_s[4];
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

} // namespace svi
