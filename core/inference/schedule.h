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
//
// Invariants: every item is drawn exactly once per epoch (after k·N draws, each item k times);
// indices within one minibatch are distinct. A batch that spans an epoch boundary takes the
// rest of the old epoch and tops up from the new one, deferring to later in the new epoch any
// item it already holds. No allocation after construction; O(batch) per call.
// Thread-safety: a value; not to be shared between threads without external locking.
class MinibatchSampler
{
public:
    // Throws std::invalid_argument when itemCount < 1 or batchSize < 1. A batch larger than N
    // is clamped to N (the whole data set, in a fresh order every step).
    MinibatchSampler(std::int64_t itemCount, std::int64_t batchSize, std::uint64_t seed);
    // The next minibatch (size min(batch, N)); indices are distinct. The reference stays valid
    // until the next call.
    const std::vector<std::int64_t>& next();
    // Number of completed epochs (N items drawn per epoch).
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
    // m_inBatch[i] != 0 while item i is in the part of the current batch taken from the old
    // epoch; all zero between calls.
    std::vector<unsigned char> m_inBatch;
};

} // namespace svi
