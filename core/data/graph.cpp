#include "core/data/graph.h"

#include "core/data/split_streams.h"
#include "core/math/random.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// Stream ids of Rng::stream(seed, kSplitStream, kGraphStream): the "split" id every data kind's
// split uses (split_streams.h), and "graph".
constexpr std::uint64_t kGraphStream = 0x6772617068ULL; // "graph"

std::string plural(std::int64_t n, const std::string& one, const std::string& many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

[[noreturn]] void invalid(const std::string& function, const std::string& what)
{
    throw std::invalid_argument(function + ": " + what);
}

std::string sourceName(const ListedGraph& g)
{
    return "'" + (g.source.empty() ? std::string("graph") : g.source) + "'";
}

// One listing keyed by its unordered pair: key = i·N + j with i < j, and the direction it was
// listed in (1: i → j, 2: j → i; 1 for every listing of an undirected source).
struct Keyed
{
    std::uint64_t key;
    std::uint8_t direction;
    bool operator<(const Keyed& o) const
    {
        return key != o.key ? key < o.key : direction < o.direction;
    }
};

// The index of pair (i, j), i < j, in the order (0,1), (0,2), …, (0,N−1), (1,2), …: the first
// index of row i is i·(2N − i − 1)/2.
std::int64_t rowStart(std::int64_t i, std::int64_t n)
{
    return i * (2 * n - i - 1) / 2;
}

// Calls f(p) for `count` distinct pair indices p in [0, pairs), in increasing order, drawn
// uniformly among all sets of that size, in one of two exact ways chosen by the sizes alone (so
// that a seed always means the same split):
//   - when the set is dense (pairs ≤ 64 · count, so a bit per pair costs no more than a word
//     per drawn pair), Floyd's algorithm over a bitset (Bentley & Floyd 1987): for
//     j = pairs − count … pairs − 1, t uniform in [0, j], and j is taken instead of t when t
//     already is. Time O(count + pairs / 64), memory pairs / 8 bytes;
//   - otherwise, i.i.d. uniform draws in rounds, each round drawing as many as are still
//     missing, sorted and merged, until `count` distinct values have been seen. A round adds
//     at most what is missing, so the set is exactly the first `count` distinct values of one
//     i.i.d. sequence: by symmetry, every set of that size is equally likely. With fewer than
//     1 in 64 pairs drawn, repeats are rare and the rounds few. Memory 8 · count bytes.
template <class F> void forEachDrawn(std::uint64_t pairs, std::uint64_t count, Rng& rng, F&& f)
{
    if (count == 0)
        return;
    if (pairs <= 64 * count) {
        std::vector<std::uint64_t> bits((pairs + 63) / 64, 0);
        for (std::uint64_t j = pairs - count; j < pairs; ++j) {
            const std::uint64_t t = rng.below(j + 1);
            const bool taken = (bits[t >> 6] >> (t & 63)) & 1;
            const std::uint64_t pick = taken ? j : t;
            bits[pick >> 6] |= std::uint64_t(1) << (pick & 63);
        }
        for (std::size_t w = 0; w < bits.size(); ++w)
            for (std::uint64_t b = bits[w]; b != 0; b &= b - 1)
                f(std::uint64_t(w) * 64 + std::uint64_t(std::countr_zero(b)));
        return;
    }
    std::vector<std::uint64_t> chosen, batch, merged;
    while (chosen.size() < count) {
        batch.resize(count - chosen.size());
        for (std::uint64_t& b : batch)
            b = rng.below(pairs);
        std::sort(batch.begin(), batch.end());
        batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
        merged.clear();
        merged.reserve(chosen.size() + batch.size());
        std::set_union(chosen.begin(), chosen.end(), batch.begin(), batch.end(),
                       std::back_inserter(merged));
        chosen.swap(merged);
    }
    for (const std::uint64_t p : chosen)
        f(p);
}

} // namespace

std::string asymmetryName(Asymmetry a)
{
    return a == Asymmetry::Mutual ? "mutual" : "either";
}

Asymmetry asymmetryFromName(const std::string& name)
{
    if (name == "either")
        return Asymmetry::Either;
    if (name == "mutual")
        return Asymmetry::Mutual;
    throw std::invalid_argument(fieldError("asymmetric", name, "must be one of: either, mutual"));
}

std::vector<std::string> GraphBuildStats::warnings() const
{
    std::vector<std::string> out;
    if (duplicates > 0)
        out.push_back(plural(duplicates, "duplicate edge", "duplicate edges") + " merged");
    if (selfLoops > 0)
        out.push_back(plural(selfLoops, "self-loop", "self-loops") + " dropped");
    if (directed && oneWayPairs > 0)
        out.push_back("asymmetric at " + plural(oneWayPairs, "pair", "pairs") +
                      ": read as undirected " +
                      (asymmetry == Asymmetry::Either
                           ? "(an edge where either direction has one)"
                           : "(an edge only where both directions have one, so no edge there)"));
    return out;
}

GraphData buildGraph(const ListedGraph& listed, Asymmetry asymmetry, GraphBuildStats* stats)
{
    const std::int64_t n = listed.nodes;
    if (n < 1)
        invalid("buildGraph", sourceName(listed) + " has no nodes");
    if (!listed.nodeNames.empty() && std::int64_t(listed.nodeNames.size()) != n)
        invalid("buildGraph", sourceName(listed) + " names " +
                                  std::to_string(listed.nodeNames.size()) + " nodes of " +
                                  std::to_string(n));
    GraphBuildStats s;
    s.listed = std::int64_t(listed.links.size());
    s.directed = listed.directed;
    s.asymmetry = asymmetry;

    std::vector<Keyed> keyed;
    keyed.reserve(listed.links.size());
    for (std::size_t k = 0; k < listed.links.size(); ++k) {
        const ListedLink& l = listed.links[k];
        if (l.from < 0 || l.from >= n || l.to < 0 || l.to >= n)
            invalid("buildGraph", sourceName(listed) + ": link " + std::to_string(k + 1) + " (" +
                                      std::to_string(l.from) + ", " + std::to_string(l.to) +
                                      ") names a node outside [0, " + std::to_string(n) + ")");
        if (l.from == l.to) {
            ++s.selfLoops;
            continue;
        }
        const auto i = std::uint64_t(std::min(l.from, l.to));
        const auto j = std::uint64_t(std::max(l.from, l.to));
        const std::uint8_t direction = !listed.directed || l.from < l.to ? 1 : 2;
        keyed.push_back({i * std::uint64_t(n) + j, direction});
    }
    std::sort(keyed.begin(), keyed.end());

    GraphData g;
    g.nodes = std::int32_t(n);
    g.source = listed.source;
    g.nodeNames = listed.nodeNames;
    if (g.nodeNames.empty())
        for (std::int64_t i = 0; i < n; ++i)
            g.nodeNames.push_back(std::to_string(i + 1));
    // Each run of one key is one pair: its listings beyond one per direction are repeats.
    for (std::size_t a = 0; a < keyed.size();) {
        std::size_t b = a;
        std::uint8_t directions = 0;
        std::int64_t distinct = 0;
        for (; b < keyed.size() && keyed[b].key == keyed[a].key; ++b) {
            distinct += (directions & keyed[b].direction) ? 0 : 1;
            directions |= keyed[b].direction;
        }
        s.duplicates += std::int64_t(b - a) - distinct;
        const bool oneWay = listed.directed && directions != 3;
        s.oneWayPairs += oneWay ? 1 : 0;
        if (!(oneWay && asymmetry == Asymmetry::Mutual))
            g.edges.push_back({std::int32_t(keyed[a].key / std::uint64_t(n)),
                               std::int32_t(keyed[a].key % std::uint64_t(n))});
        a = b;
    }
    g.trainEdges = g.edges;
    if (stats)
        *stats = s;
    return g;
}

const ParamFields<GraphOptions>& GraphOptions::fields()
{
    using O = GraphOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(realParam("test_share", "Test share",
                           "share of ALL node pairs (edges and non-edges alike) held out for link "
                           "prediction (paper 003: 0.2)",
                           0.2, 0.0, 0.9),
                 &O::testShare)
            .add(splitSeedParam("seed of the held-out pairs (seeds 1 … 10: the paper's 10 splits)"),
                 &O::splitSeed)
            .add(choiceParam("asymmetric", "One-way links",
                             "a directed file (adjacency matrix, GML with directed 1): either = an "
                             "edge where either direction has a link; mutual = only where both "
                             "have",
                             {"either", "mutual"}, "either"),
                 &O::asymmetric, asymmetryName, asymmetryFromName);
    return f;
}

void splitGraph(GraphData& graph, const GraphOptions& options, GraphSplitStats* stats)
{
    options.check();
    const std::int64_t n = graph.nodes;
    if (n < 1)
        invalid("splitGraph", "the graph has no nodes");
    const std::int64_t pairs = graph.pairCount();
    const auto count = std::int64_t(std::llround(options.testShare * double(pairs)));
    if (count > kMaxHeldOutPairs)
        throw std::invalid_argument(fieldError(
            "test_share", formatNumber(options.testShare),
            "would hold out " + std::to_string(count) + " of the " + std::to_string(pairs) +
                " node pairs, more than " + std::to_string(kMaxHeldOutPairs) +
                " fit in memory: lower it for a graph of " + std::to_string(n) + " nodes"));
    Rng rng = Rng::stream(std::uint64_t(options.splitSeed), kSplitStream, kGraphStream);

    // The draws come in (i, j) order, which is the edges' order: one merge labels the held-out
    // pairs and removes them from the training edges.
    graph.heldOut.clear();
    graph.heldOut.reserve(std::size_t(count));
    graph.trainEdges.clear();
    graph.trainEdges.reserve(graph.edges.size());
    std::size_t e = 0;
    std::int64_t row = 0;
    forEachDrawn(std::uint64_t(pairs), std::uint64_t(count), rng, [&](std::uint64_t p) {
        while (std::int64_t(p) >= rowStart(row + 1, n))
            ++row;
        const auto i = std::int32_t(row);
        const auto j = std::int32_t(row + 1 + (std::int64_t(p) - rowStart(row, n)));
        const NodePair pair{i, j};
        const auto before = [&](const NodePair& a) { return a.i < i || (a.i == i && a.j < j); };
        while (e < graph.edges.size() && before(graph.edges[e]))
            graph.trainEdges.push_back(graph.edges[e++]);
        const bool linked = e < graph.edges.size() && graph.edges[e] == pair;
        e += linked ? 1 : 0;
        graph.heldOut.push_back({i, j, linked});
    });
    graph.trainEdges.insert(graph.trainEdges.end(), graph.edges.begin() + std::ptrdiff_t(e),
                            graph.edges.end());

    if (stats) {
        GraphSplitStats s;
        s.pairs = pairs;
        s.testPairs = count;
        s.trainEdges = std::int64_t(graph.trainEdges.size());
        s.testEdges = std::int64_t(graph.edges.size()) - s.trainEdges;
        const std::vector<std::int64_t> degree = nodeDegrees(graph.nodes, graph.trainEdges);
        s.nodesWithoutTrainingEdges = std::count(degree.begin(), degree.end(), 0);
        *stats = s;
    }
}

GraphDataPtr makeGraphData(const ListedGraph& listed, const GraphOptions& options,
                           GraphBuildStats* build, GraphSplitStats* split)
{
    options.check();
    GraphData g = buildGraph(listed, options.asymmetric, build);
    splitGraph(g, options, split);
    return std::make_shared<const GraphData>(std::move(g));
}

std::vector<std::int64_t> nodeDegrees(std::int32_t nodes, const std::vector<NodePair>& edges)
{
    std::vector<std::int64_t> degree(std::size_t(std::max(nodes, 0)), 0);
    for (const NodePair& e : edges) {
        ++degree[std::size_t(e.i)];
        ++degree[std::size_t(e.j)];
    }
    return degree;
}

GraphComponents connectedComponents(std::int32_t nodes, const std::vector<NodePair>& edges)
{
    // Union–find with path halving and union by size.
    std::vector<std::int32_t> parent(std::size_t(std::max(nodes, 0)));
    std::vector<std::int64_t> size(parent.size(), 1);
    std::iota(parent.begin(), parent.end(), 0);
    const auto root = [&](std::int32_t x) {
        while (parent[std::size_t(x)] != x) {
            parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
            x = parent[std::size_t(x)];
        }
        return x;
    };
    GraphComponents c;
    c.count = nodes;
    for (const NodePair& e : edges) {
        std::int32_t a = root(e.i), b = root(e.j);
        if (a == b)
            continue;
        if (size[std::size_t(a)] < size[std::size_t(b)])
            std::swap(a, b);
        parent[std::size_t(b)] = a;
        size[std::size_t(a)] += size[std::size_t(b)];
        --c.count;
    }
    for (std::int32_t x = 0; x < nodes; ++x)
        if (parent[std::size_t(x)] == x)
            c.largest = std::max(c.largest, size[std::size_t(x)]);
    return c;
}

} // namespace svi
