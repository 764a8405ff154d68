// Graph files (GML, edge lists, adjacency matrices; plain or gzip), read as the graph kind reads
// them: by content (readGraphFile) and in each of the three formats; what reads is made simple
// (buildGraph, both ways of reading one-way links) and split (splitGraph, 20 % of the pairs).

#include "core/data/graph.h"
#include "core/io/graph_files.h"
#include "tests/fuzz/fuzz_input.h"

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>

using namespace svi;
using namespace svi::fuzz;

namespace {

bool ordered(const NodePair& a, const NodePair& b)
{
    return a.i < b.i || (a.i == b.i && a.j < b.j);
}

void checkEdges(const GraphData& g)
{
    for (std::size_t k = 0; k < g.edges.size(); ++k) {
        const NodePair& e = g.edges[k];
        require(e.i >= 0 && e.i < e.j && e.j < g.nodes, "edges i < j among the nodes");
        require(k == 0 || ordered(g.edges[k - 1], e), "edges sorted and distinct");
    }
}

void check(const GraphFile& f)
{
    const ListedGraph& l = f.graph;
    require(l.nodes >= 1, "a graph that reads has a node");
    require(std::int64_t(l.nodeNames.size()) == l.nodes || l.nodeNames.empty(),
            "no names or one per node");
    require(!f.formatName.empty() && !f.namesFrom.empty(), "the format and the names are said");
    for (const ListedLink& k : l.links)
        require(k.from >= 0 && k.from < l.nodes && k.to >= 0 && k.to < l.nodes,
                "links among the nodes");
    GraphBuildStats s, m;
    GraphData g, mutual;
    try {
        g = buildGraph(l, Asymmetry::Either, &s);
        mutual = buildGraph(l, Asymmetry::Mutual, &m);
    } catch (const std::exception& e) {
        finding(std::string("a graph that reads does not build: ") + e.what());
    }
    checkEdges(g);
    checkEdges(mutual);
    // Every listing is a self-loop, a repeat, or the first listing of its pair in its direction:
    // one per edge, and one more per pair linked both ways.
    const auto edges = std::int64_t(g.edges.size());
    const std::int64_t mutualPairs = l.directed ? edges - s.oneWayPairs : 0;
    require(s.listed == std::int64_t(l.links.size()) &&
                s.listed == s.selfLoops + s.duplicates + edges + mutualPairs,
            "the build accounts for every listed link");
    require(std::int64_t(mutual.edges.size()) == edges - (l.directed ? s.oneWayPairs : 0),
            "mutual keeps the pairs linked both ways");
    require(int(g.nodeNames.size()) == g.nodes, "one name per node");

    if (g.pairCount() > 10'000'000)
        return; // the split's own limits are tested in test_graph
    GraphOptions o;
    GraphSplitStats split;
    if (!expectOnly<std::invalid_argument>([&] { splitGraph(g, o, &split); }))
        finding("a graph of at most 10⁷ pairs does not split");
    require(std::int64_t(g.heldOut.size()) == std::llround(0.2 * double(g.pairCount())),
            "round(0.2 · pairs) held out");
    std::set<std::pair<int, int>> train;
    for (const NodePair& e : g.trainEdges)
        train.insert({e.i, e.j});
    std::int64_t linked = 0;
    for (const LabelledPair& p : g.heldOut) {
        require(p.i >= 0 && p.i < p.j && p.j < g.nodes, "held-out pairs among the nodes");
        require(!train.count({p.i, p.j}), "no held-out pair is trained on");
        linked += p.linked ? 1 : 0;
    }
    require(linked + std::int64_t(g.trainEdges.size()) == edges,
            "training and held-out edges partition the edges");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input", {reinterpret_cast<const char*>(data), size});
    for (const std::optional<GraphFormat> format :
         {std::optional<GraphFormat>(), std::optional(GraphFormat::Gml),
          std::optional(GraphFormat::EdgeList), std::optional(GraphFormat::Adjacency)}) {
        GraphFile f;
        if (expectOnly([&] { f = readGraphFile(path, format); }))
            check(f);
    }
    return 0;
}
