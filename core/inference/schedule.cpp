#include "core/inference/schedule.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace svi {

double RobbinsMonro::rho(std::int64_t t) const
{
    if (t < 1)
        throw std::invalid_argument("RobbinsMonro::rho: t = " + std::to_string(t) + ", but must be ≥ 1");
    return std::pow(double(t) + tau0, -kappa);
}

MinibatchSampler::MinibatchSampler(std::int64_t itemCount, std::int64_t batchSize, std::uint64_t seed)
    : m_n(itemCount), m_batch(batchSize), m_seed(seed)
{
    if (itemCount < 1)
        throw std::invalid_argument("MinibatchSampler: N = " + std::to_string(itemCount) + ", but must be ≥ 1");
    if (batchSize < 1)
        throw std::invalid_argument("MinibatchSampler: batch = " + std::to_string(batchSize) +
                                    ", but must be ≥ 1");
    m_batch = std::min(m_batch, m_n);
    m_perm.resize(static_cast<std::size_t>(m_n));
    m_inBatch.assign(static_cast<std::size_t>(m_n), 0);
    m_out.reserve(static_cast<std::size_t>(m_batch));
    reshuffle();
}

void MinibatchSampler::reshuffle()
{
    // A fresh seeded permutation for every epoch (Fisher–Yates), from a stream keyed by the
    // epoch, so epoch e's order does not depend on how earlier epochs were consumed.
    std::iota(m_perm.begin(), m_perm.end(), std::int64_t(0));
    Rng rng = Rng::stream(m_seed, 0x65706f6368ULL, std::uint64_t(m_epoch));
    for (std::size_t i = m_perm.size(); i > 1; --i)
        std::swap(m_perm[i - 1], m_perm[rng.below(i)]);
    m_pos = 0;
}

const std::vector<std::int64_t>& MinibatchSampler::next()
{
    // Invariant between calls: m_pos < N (an exhausted epoch is replaced at once, so epoch()
    // counts completed epochs exactly).
    const std::size_t batch = static_cast<std::size_t>(m_batch);
    m_out.clear();

    // The rest of the current epoch, up to a full batch.
    const std::size_t fromOld = std::min(batch, m_perm.size() - m_pos);
    m_out.insert(m_out.end(), m_perm.begin() + std::ptrdiff_t(m_pos),
                 m_perm.begin() + std::ptrdiff_t(m_pos + fromOld));
    m_pos += fromOld;
    if (m_pos == m_perm.size()) {
        ++m_epoch;
        reshuffle();
    }
    if (fromOld == batch)
        return m_out;

    // Top up from the new epoch. Items already in the batch are deferred: the block of
    // deferred items always sits at perm[w, p); taking an item rotates the block's first
    // element to its end. Every item taken lands at perm[w], so perm[0, w) is what the new
    // epoch has drawn, and perm[w, N) what it still owes (deferred block first). Since the
    // batch holds fromOld ≥ 1 old items and batch ≤ N, w = batch − fromOld < N at the end.
    for (std::size_t i = 0; i < fromOld; ++i)
        m_inBatch[std::size_t(m_out[i])] = 1;
    std::size_t w = 0;
    for (std::size_t p = 0; m_out.size() < batch; ++p) {
        // p < N: the new epoch holds N − fromOld ≥ batch − fromOld items not in the batch.
        if (m_inBatch[std::size_t(m_perm[p])])
            continue;
        std::swap(m_perm[w], m_perm[p]);
        m_out.push_back(m_perm[w]);
        ++w;
    }
    for (std::size_t i = 0; i < fromOld; ++i)
        m_inBatch[std::size_t(m_out[i])] = 0;
    m_pos = w;
    return m_out;
}

} // namespace svi
