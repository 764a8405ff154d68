#pragma once
// Helpers shared by the trainers' steps: a fixed split of [0, n) into chunks, so that
// per-chunk partial sums are added in a fixed order and results do not depend on the number
// of OpenMP threads; one workspace per thread; and a seeded subset of rows for cheap
// evaluations.

#include "core/math/random.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <omp.h>
#include <utility>
#include <vector>

namespace svi {

// Chunks per parallel loop: more than any thread count we run, few enough that per-chunk
// buffers (one workspace, one partial sum each) stay small.
constexpr int kChunks = 16;

// Calls fn(chunk, begin, end) for min(kChunks, n) contiguous ranges of [0, n), in parallel
// unless `parallel` is false (work too small to pay for waking the threads); chunk c always
// covers the same range, whatever the thread count, so the result is the same either way.
template <typename Fn> void forChunks(std::int64_t n, Fn&& fn, bool parallel = true)
{
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (int c = 0; c < chunks; ++c)
        fn(c, n * c / chunks, n * (c + 1) / chunks);
}

// Σ of chunkSum(begin, end) over the chunks of forChunks(n, …), each chunk's partial sum
// computed by one thread and the partial sums added in chunk order: the same result whatever
// the thread count. chunkSum adds its range's terms in order, starting from 0.
template <typename ChunkSum> double sumChunks(std::int64_t n, ChunkSum&& chunkSum)
{
    std::vector<double> partial(kChunks, 0.0);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        partial[std::size_t(c)] = chunkSum(begin, end);
    });
    return std::accumulate(partial.begin(), partial.end(), 0.0);
}

// One workspace per OpenMP thread for a parallel loop's scratch: prepared (sized) before the
// loop, so that nothing allocates inside it; inside, each thread takes its own with local().
// Driven by the owner's thread outside parallel regions; local() is safe inside them.
template <typename Workspace> class PerThread
{
public:
    // Makes one workspace per thread that a parallel region may use, and calls resize(ws) on
    // each one for which fits(ws) is false (new ones included).
    template <typename Fits, typename Resize> void prepare(Fits&& fits, Resize&& resize)
    {
        const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
        if (m_items.size() < threads)
            m_items.resize(threads);
        for (Workspace& ws : m_items)
            if (!fits(ws))
                resize(ws);
    }
    // The calling thread's workspace (after prepare).
    Workspace& local() { return m_items[std::size_t(omp_get_thread_num())]; }

private:
    std::vector<Workspace> m_items;
};

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
