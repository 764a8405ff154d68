#pragma once
// Graphs built in memory for the edge partition model's tests: a planted block graph with a
// seeded held-out share of its pairs.

#include "core/data/graph_data.h"
#include "core/math/random.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace test_support {

struct PlantedGraph
{
    svi::GraphDataPtr data;
    std::vector<int> block; // each node's planted community
};

// N nodes in `blocks` communities (node i in block i % blocks); a pair is linked with
// probability pIn within a block and pOut across; each pair is held out with probability
// `heldOut`. Seeded: the same arguments give the same graph.
inline PlantedGraph plantedGraph(int N, int blocks, double pIn, double pOut, double heldOut,
                                 std::uint64_t seed)
{
    auto d = std::make_shared<svi::GraphData>();
    d->nodes = N;
    d->source = "planted graph in memory";
    PlantedGraph out;
    for (int i = 0; i < N; ++i) {
        d->nodeNames.push_back("n" + std::to_string(i));
        out.block.push_back(i % blocks);
    }
    svi::Rng rng = svi::Rng::stream(seed, 77);
    for (int i = 0; i < N; ++i)
        for (int j = i + 1; j < N; ++j) {
            const bool linked = rng.uniform() < (out.block[i] == out.block[j] ? pIn : pOut);
            const bool held = rng.uniform() < heldOut;
            if (linked)
                d->edges.push_back({i, j});
            if (held)
                d->heldOut.push_back({i, j, linked});
            else if (linked)
                d->trainEdges.push_back({i, j});
        }
    out.data = d;
    return out;
}

} // namespace test_support
