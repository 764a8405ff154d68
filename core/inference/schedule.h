#pragma once
// Step-size schedules and minibatch sampling.

#include "core/math/random.h"

#include <cstdint>
#include <vector>

namespace svi {

// Robbins–Monro schedule ρ_t = (t + τ0)^(−κ), t = 1, 2, …; κ in (0.5, 1] satisfies the
// Robbins–Monro conditions, τ0 ≥ 0 slows the early steps.
struct RobbinsMonro
{
    double kappa = 0.75;
    double tau0 = 0.0;
    double rho(std::int64_t t) const;
};

// Draws minibatches without replacement within an epoch: each epoch is a fresh seeded
// permutation of 0..N−1 consumed in order; a minibatch never straddles two epochs' draws of
// the same item. Deterministic for a given (seed, N, batch).
class MinibatchSampler
{
public:
    MinibatchSampler(std::int64_t itemCount, std::int64_t batchSize, std::uint64_t seed);
    // The next minibatch (size min(batch, N)); indices are distinct.
    const std::vector<std::int64_t>& next();
    std::int64_t epoch() const { return m_epoch; }

private:
    void reshuffle();

    std::int64_t m_n;
    std::int64_t m_batch;
    std::uint64_t m_seed;
    std::int64_t m_epoch = 0;
    std::size_t m_pos = 0;
    std::vector<std::int64_t> m_perm;
    std::vector<std::int64_t> m_out;
};

} // namespace svi
