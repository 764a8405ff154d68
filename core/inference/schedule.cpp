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
    m_out.reserve(static_cast<std::size_t>(m_batch));
    reshuffle();
}

void MinibatchSampler::reshuffle()
{
    // A fresh seeded permutation for every epoch (Fisher–Yates).
    std::iota(m_perm.begin(), m_perm.end(), std::int64_t(0));
    Rng rng = Rng::stream(m_seed, 0x65706f6368ULL, std::uint64_t(m_epoch));
    for (std::size_t i = m_perm.size(); i > 1; --i)
        std::swap(m_perm[i - 1], m_perm[rng.below(i)]);
    m_pos = 0;
}

const std::vector<std::int64_t>& MinibatchSampler::next()
{
    m_out.clear();
    bool straddles = false; // only a batch that spans two epochs can repeat an item
    while (std::int64_t(m_out.size()) < m_batch) {
        if (m_pos == m_perm.size()) {
            ++m_epoch;
            reshuffle();
            straddles = !m_out.empty();
        }
        // Within one batch indices stay distinct: an item of the new epoch that is already in
        // the batch (drawn at the end of the previous epoch) is swapped with a later one.
        std::int64_t item = m_perm[m_pos];
        if (straddles && std::find(m_out.begin(), m_out.end(), item) != m_out.end()) {
            std::size_t j = m_pos + 1;
            while (j < m_perm.size() &&
                   std::find(m_out.begin(), m_out.end(), m_perm[j]) != m_out.end())
                ++j;
            std::swap(m_perm[m_pos], m_perm[j]); // j < size: the batch holds < N items
            item = m_perm[m_pos];
        }
        m_out.push_back(item);
        ++m_pos;
    }
    return m_out;
}

} // namespace svi
