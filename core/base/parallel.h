#pragma once
// Helpers shared by the trainers' steps: a fixed split of [0, n) into chunks, so that
// per-chunk partial sums are added in a fixed order and results do not depend on the number
// of OpenMP threads; and a seeded subset of rows for cheap evaluations.

#include "core/math/random.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace svi {

// Chunks per parallel loop: more than any thread count we run, few enough that per-chunk
// buffers (one workspace, one partial sum each) stay small.
constexpr int kChunks = 16;

// Calls fn(chunk, begin, end) for min(kChunks, n) contiguous ranges of [0, n), in parallel;
// chunk c always covers the same range, whatever the thread count.
template <typename Fn> void forChunks(std::int64_t n, Fn&& fn)
{
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; ++c)
        fn(c, n * c / chunks, n * (c + 1) / chunks);
}

// Wall-clock seconds since t0 (for the trainers' per-phase step timings).
using Clock = std::chrono::steady_clock;
inline double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// At most `take` of `rows`, drawn without replacement with `rng`, in ascending order.
inline std::vector<std::int64_t> seededSubset(std::vector<std::int64_t> rows, std::size_t take,
                                              Rng rng)
{
    take = std::min(take, rows.size());
    for (std::size_t j = 0; j < take; ++j)
        std::swap(rows[j], rows[j + rng.below(rows.size() - j)]);
    rows.resize(take);
    std::sort(rows.begin(), rows.end());
    return rows;
}

} // namespace svi
