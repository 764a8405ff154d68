#pragma once
// What the data kinds' held-out splits share: the stream ids of Rng::stream, the same in every
// kind so that one seed means the same thing everywhere, and the partial shuffle that chooses a
// subset. Internal to core/data.

#include "core/math/random.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace svi {

inline constexpr std::uint64_t kSubsampleStream = 0x7375627361ULL; // "subsa"
inline constexpr std::uint64_t kSplitStream = 0x73706c6974ULL;     // "split"

// The first `take` entries of `v` become a uniform random subset, in the order drawn (partial
// Fisher–Yates): the first k of them do not depend on `take` ≥ k.
template <class T> void chooseFirst(std::vector<T>& v, std::size_t take, Rng& rng)
{
    for (std::size_t j = 0; j < take && j < v.size(); ++j)
        std::swap(v[j], v[j + rng.below(v.size() - j)]);
}

} // namespace svi
