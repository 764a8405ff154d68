#pragma once
// Graphs as a file lists them, made into the undirected simple graph a link-prediction model
// fits (GraphData, core/data/graph_data.h), and its held-out split: what the edge partition
// model of paper 003 (Sec. 3.1: y_ij = y_ji ∈ {0, 1} for i ≠ j) is trained and scored on. No Qt
// and no file I/O: the readers in core/io/graph_files.h produce the ListedGraph. The functions
// are reentrant and may run on any thread.
//
// What a file may hold beyond a simple graph, and what becomes of it (each counted, so that the
// front ends can warn; none is an error, since every one has a single sensible reading):
//   - a pair listed twice (football.gml lists two games twice; an edge list both "a b" and
//     "b a"): one edge. The graph is binary, so a repeat adds nothing;
//   - a self-loop i — i: dropped. The model has no y_ii (a node's link to itself is not
//     data), and an adjacency matrix's diagonal says nothing about the pairs;
//   - a directed source (an adjacency matrix, a GML file with `directed 1`) linking a pair in
//     one direction only: an edge by default (Asymmetry::Either: a link either way), or no edge
//     when only reciprocated links count (Asymmetry::Mutual). An undirected source (an edge
//     list, a GML file without `directed 1`) has no direction: "a b" and "b a" are the same
//     pair listed twice.
//
// The held-out split (splitGraph) draws round(share · N(N − 1)/2) of ALL node pairs i < j,
// edges and non-edges alike, uniformly among the sets of that size, as Zhou (2015) and paper
// 003 (Sec. 5.3: "10 training-test splits taking 20 % of pairs as test data") do: a model
// treats them as missing while it trains and is scored on them (AUC). The draw is exact and
// reproducible: integers from one Rng stream (seed, "split", "graph"), so the same seed gives
// the same split on every platform and thread count. A node may be left with no training edge
// (every one of its links held out, or none to begin with): that is not an error — the model
// then places it by its prior alone — but it is counted (GraphSplitStats) for the front ends.

#include "core/base/param_fields.h"
#include "core/data/graph_data.h"

#include <cstdint>
#include <string>
#include <vector>

namespace svi {

// One link as a file lists it: 0-based node indices, from → to for a directed source, from —
// to otherwise. It may repeat, join a node to itself, or appear in both directions.
struct ListedLink
{
    std::int32_t from = 0;
    std::int32_t to = 0;
};

// A graph as read, before duplicates, self-loops and asymmetry are resolved.
struct ListedGraph
{
    std::int32_t nodes = 0;
    // One per node (the file's label, name or id); empty: the nodes are named "1" … "N".
    std::vector<std::string> nodeNames;
    std::vector<ListedLink> links; // in file order
    // Whether (i, j) and (j, i) are separate listings: an adjacency matrix's two triangles, a
    // GML graph with `directed 1`. Otherwise a pair listed both ways is listed twice.
    bool directed = false;
    std::string source; // file name, for messages
};

// How a directed source's one-way links are read.
enum class Asymmetry {
    Either, // an edge where either direction has a link (the default)
    Mutual  // an edge only where both directions have one
};

// "either" / "mutual" (the declared choices); asymmetryFromName throws std::invalid_argument
// naming the field "asymmetric" for anything else.
std::string asymmetryName(Asymmetry a);
Asymmetry asymmetryFromName(const std::string& name);

// What buildGraph resolved.
struct GraphBuildStats
{
    std::int64_t listed = 0;     // links as listed (self-loops and repeats included)
    std::int64_t duplicates = 0; // listings beyond a pair's first (in the same direction when
                                 // the source is directed), merged
    std::int64_t selfLoops = 0;  // listings i — i, dropped (repeats of one counted each)
    // Directed sources: pairs linked in one direction only (an edge under Either, none under
    // Mutual).
    std::int64_t oneWayPairs = 0;
    bool directed = false;
    Asymmetry asymmetry = Asymmetry::Either;

    // One line per thing resolved, for the front ends to show as warnings: "2 duplicate
    // edges merged", "3 self-loops dropped", "adjacency asymmetric at 5 pairs: read as
    // undirected (an edge where either direction has one)". Empty when the listing was a
    // simple undirected graph already.
    std::vector<std::string> warnings() const;
};

// The simple undirected graph of `listed`: edges i < j sorted by (i, j); nodeNames from the
// listing (or "1" … "N"); trainEdges = edges and no held-out pairs (splitGraph makes the split);
// source kept. Throws std::invalid_argument naming the problem: no nodes, names neither empty
// nor one per node, a link naming a node outside [0, nodes).
GraphData buildGraph(const ListedGraph& listed, Asymmetry asymmetry,
                     GraphBuildStats* stats = nullptr);

// The graph kind's settings that shape the data set (keys test_share, split_seed,
// asymmetric), declared once.
struct GraphOptions : DeclaredOptions<GraphOptions>
{
    GraphOptions() { readDefaults(); }

    double testShare{};       // of all node pairs, held out; in [0, 0.9]
    std::int64_t splitSeed{}; // the split's seed, apart from the run's
    Asymmetry asymmetric{};   // one-way links of a directed source

    // The declarations (allParams()) bound to the fields.
    static const ParamFields<GraphOptions>& fields();
};

// What splitGraph drew, and what it left the model to learn from.
struct GraphSplitStats
{
    std::int64_t pairs = 0;      // N(N − 1)/2
    std::int64_t testPairs = 0;  // round(share · pairs)
    std::int64_t testEdges = 0;  // of them, linked
    std::int64_t trainEdges = 0; // edges − testEdges
    // Nodes without a training edge: isolated in the graph, or every link of theirs held out.
    std::int64_t nodesWithoutTrainingEdges = 0;
};

// The most held-out pairs a split may draw (1.6 GB of LabelledPair): a share that asks for
// more on a very large graph is refused at once rather than exhausting memory.
constexpr std::int64_t kMaxHeldOutPairs = std::int64_t(1) << 27;

// Replaces graph.trainEdges and graph.heldOut by the split of `options` (testShare and
// splitSeed; see the top of this file): heldOut = round(testShare · N(N − 1)/2) pairs i < j
// drawn uniformly among all pairs without replacement, sorted by (i, j), each labelled with
// whether `edges` holds it; trainEdges = edges less those. testShare 0 holds nothing out.
// Time and memory: a bit per node pair (N = 20,000: 25 MB) and O(N + edges + held-out pairs)
// when at least 1 pair in 64 is held out, else O(held-out pairs · log) with 8 bytes each; the
// choice depends on the sizes alone, so a seed always draws the same split. Throws
// std::invalid_argument "test_share = 1.5, but must be in [0, 0.9]" on an invalid option, and
// naming test_share when the split would exceed kMaxHeldOutPairs.
void splitGraph(GraphData& graph, const GraphOptions& options, GraphSplitStats* stats = nullptr);

// buildGraph then splitGraph, shared for the models.
GraphDataPtr makeGraphData(const ListedGraph& listed, const GraphOptions& options,
                           GraphBuildStats* build = nullptr, GraphSplitStats* split = nullptr);

// Each node's number of edges (over `edges`), for `svi info`.
std::vector<std::int64_t> nodeDegrees(std::int32_t nodes, const std::vector<NodePair>& edges);

// The connected components of the graph (isolated nodes count as one each).
struct GraphComponents
{
    std::int64_t count = 0;
    std::int64_t largest = 0; // nodes in the largest
};
GraphComponents connectedComponents(std::int32_t nodes, const std::vector<NodePair>& edges);

} // namespace svi
