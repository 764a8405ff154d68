#pragma once
// GraphData: an undirected simple graph among N nodes, with a held-out share of its node pairs
// (edges and non-edges alike) for link prediction: what the edge partition model of paper 003
// (Sec. 3.1) fits. Whatever the file held (duplicate edges, self-loops, an asymmetric
// adjacency matrix, weights) has been resolved by the reader as the graph data kind declares,
// so a model sees only the pairs below. Immutable once built and shared through
// std::shared_ptr<const GraphData>.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace svi {

// A node pair i < j (0-based node indices).
struct NodePair
{
    std::int32_t i = 0;
    std::int32_t j = 0;
    bool operator==(const NodePair&) const = default;
};

// A held-out pair and whether the graph links it.
struct LabelledPair
{
    std::int32_t i = 0; // i < j
    std::int32_t j = 0;
    bool linked = false;
    bool operator==(const LabelledPair&) const = default;
};

struct GraphData
{
    std::int32_t nodes = 0;
    std::vector<std::string> nodeNames; // one per node: the file's label, name or id
    // Every edge of the graph (training and held out), i < j, sorted by (i, j).
    std::vector<NodePair> edges;
    // The edges a model learns from: `edges` less the held-out ones, sorted by (i, j).
    std::vector<NodePair> trainEdges;
    // The held-out pairs, edges and non-edges, sorted by (i, j): a model treats them as
    // missing in training and is scored on them. Empty when nothing is held out.
    std::vector<LabelledPair> heldOut;
    std::string source; // file name, for messages

    std::int64_t rows() const { return nodes; }
    std::int64_t cols() const { return nodes; }
    // Every node is seen in training (only pairs are held out).
    std::int64_t trainingRowCount() const { return nodes; }
    // N(N − 1)/2.
    std::int64_t pairCount() const { return std::int64_t(nodes) * (nodes - 1) / 2; }
};

using GraphDataPtr = std::shared_ptr<const GraphData>;

} // namespace svi
