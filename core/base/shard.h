#pragma once
// A contiguous part [begin, end) of n items (rows of a data set, positions in a list): what
// one rank of a distributed run holds or takes. No dependencies, so that the data shapes can
// say which rows a process holds.

#include <cstdint>

namespace svi {

struct Shard
{
    std::int64_t begin = 0, end = 0;
    bool contains(std::int64_t i) const { return i >= begin && i < end; }
    std::int64_t size() const { return end - begin; }
    bool operator==(const Shard&) const = default;
};

} // namespace svi
