#pragma once
// What the models' memory declarations (AlgorithmEntry::memory, core/run/memory_need.h) share:
// the parameters and data shapes they are written in. Each model's formulas sit in its
// *_registry.cpp, beside the entries that declare them; the registry-wide test holds them to
// the peak memory runs measure.

#include "core/base/params.h"
#include "core/data/count_data.h"
#include "core/run/memory_need.h"

#include <algorithm>
#include <cstdint>
#include <omp.h>
#include <string>

namespace svi::memory {

inline constexpr double kDouble = 8.0, kFloat = 4.0;

// A declared number (int or real) of `values`, or `fallback` when the entry has no such key.
inline double number(const ParamValues& values, const std::string& key, double fallback = 0.0)
{
    const auto it = values.find(key);
    if (it == values.end())
        return fallback;
    if (const auto* i = std::get_if<std::int64_t>(&it->second))
        return double(*i);
    if (const auto* d = std::get_if<double>(&it->second))
        return *d;
    return fallback;
}

// A declared choice of `values`, or "" when the entry has no such key.
inline std::string choice(const ParamValues& values, const std::string& key)
{
    const auto it = values.find(key);
    if (it == values.end())
        return {};
    const auto* s = std::get_if<std::string>(&it->second);
    return s ? *s : std::string();
}

// The threads a run's per-thread workspaces are made for.
inline double threads()
{
    return double(omp_get_max_threads());
}

// The most entries a row holds (a document's distinct words, a user's ratings).
inline double widestRow(const SparseRows& rows)
{
    std::int64_t widest = 0;
    for (std::int64_t r = 0; r < rows.rows(); ++r)
        widest = std::max(widest, rows.rowNonZeros(r));
    return double(widest);
}

// The recommenders' evaluation (core/metrics/ranking_metrics.h): the training ratings' scale,
// each chunk's ranking buffers over the items, the preview's factors as floats (`K` columns).
inline MemoryTerm recommenderEvaluation(const CountData& c, double K)
{
    const double N = double(c.rows()), M = double(c.cols());
    return {"the evaluation's rankings and preview",
            kDouble * double(c.train.nonZeros()) + 16 * 13 * M + kFloat * (N + M) * K, "K"};
}

} // namespace svi::memory
