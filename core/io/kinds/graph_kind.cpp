// Graphs (GML, edge lists, adjacency matrices) read as an undirected simple graph among N
// nodes, a seeded share of ALL node pairs held out for link prediction (paper 003, Sec. 5.3:
// the edge partition model on NIPS N = 234, "10 training-test splits taking 20 % of pairs as
// test data").
//
// What the file held beyond a simple graph (repeats, self-loops, one-way links, weights) is
// resolved as core/data/graph.h and core/io/graph_files.h declare and never an error; the
// front ends have no warning channel, so each such thing is a line of the summaries (the
// window's data line and svi run's stderr), of `svi info` ("warnings") and a count in the
// facts of summary.json.

#include "core/data/graph.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/graph_files.h"
#include "core/io/kinds/kinds.h"
#include "core/io/run_files.h"

#include <QString>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace svi::kinds {
namespace {

class RawGraph : public RawData
{
public:
    explicit RawGraph(GraphFile f) : m_file(std::move(f)) {}
    std::string summary() const override
    {
        std::string s = m_file.formatName + ": " + groupedNumber(m_file.graph.nodes) + " nodes, " +
                        groupedNumber(std::int64_t(m_file.graph.links.size())) + " links listed";
        for (const std::string& note : m_file.notes)
            s += " · " + note;
        return s;
    }
    // Only a directed file has one-way links to resolve.
    std::vector<std::string> ignoredSettings() const override
    {
        return m_file.graph.directed ? std::vector<std::string>{}
                                     : std::vector<std::string>{"asymmetric"};
    }
    const GraphFile& file() const { return m_file; }

private:
    GraphFile m_file;
};

GraphFile readFile(const DataDescription& d)
{
    return readGraphFile(d.files.front(), graphFormatFromKey(getChoice(d.settings, "format")));
}

// What the build resolved and what the reader did not model, one line each.
std::vector<std::string> warningsOf(const GraphFile& f, const GraphBuildStats& s)
{
    std::vector<std::string> out = s.warnings();
    out.insert(out.end(), f.notes.begin(), f.notes.end());
    return out;
}

std::string percent(double share)
{
    return formatNumber(std::round(share * 1000.0) / 10.0) + " %";
}

// A name as one TSV field: tabs and line breaks would split it.
QByteArray field(const std::string& name)
{
    QByteArray out = QByteArray::fromStdString(name);
    for (char& c : out)
        c = c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
    return out;
}

// The longest line appendPair writes without a label: two 10-digit indices, a TAB, a newline.
constexpr qsizetype kPairLine = 22;

// "i TAB j [TAB linked] NEWLINE".
void appendPair(QByteArray& out, std::int32_t i, std::int32_t j, std::optional<bool> linked)
{
    char line[kPairLine + 2];
    char* end = std::to_chars(line, line + 11, i).ptr;
    *end++ = '\t';
    end = std::to_chars(end, end + 11, j).ptr;
    if (linked) {
        *end++ = '\t';
        *end++ = *linked ? '1' : '0';
    }
    *end++ = '\n';
    out.append(line, qsizetype(end - line));
}

// The split as TSV files other tools read: nodes.tsv (index, name), train_edges.tsv (the
// edges a model learns from) and test_pairs.tsv (the held-out pairs, linked 1 or 0), with
// 0-based node indices, i < j, and a header line each. train_edges.tsv and test_pairs.tsv are
// edge lists svi reads back (test_pairs' third column reads as a weight: its edges).
std::string writeGraphSplit(const BuiltData& built, const std::string& folder)
{
    const GraphData& g = *built.data.graph;
    const QString dir = QString::fromStdString(folder);
    QByteArray nodes = "index\tname\n";
    for (std::int32_t i = 0; i < g.nodes; ++i)
        nodes += QByteArray::number(i) + '\t' + field(g.nodeNames[std::size_t(i)]) + '\n';
    QByteArray train = "source\ttarget\n";
    train.reserve(train.size() + qsizetype(g.trainEdges.size()) * kPairLine);
    for (const NodePair& e : g.trainEdges)
        appendPair(train, e.i, e.j, std::nullopt);
    // Tens of millions of lines for a graph of 20,000 nodes: formatted in place.
    QByteArray test = "source\ttarget\tlinked\n";
    test.reserve(test.size() + qsizetype(g.heldOut.size()) * (kPairLine + 2));
    std::int64_t linked = 0;
    for (const LabelledPair& p : g.heldOut) {
        appendPair(test, p.i, p.j, p.linked);
        linked += p.linked ? 1 : 0;
    }
    writeFileAtomically(dir + "/nodes.tsv", nodes);
    writeFileAtomically(dir + "/train_edges.tsv", train);
    writeFileAtomically(dir + "/test_pairs.tsv", test);
    return groupedNumber(std::int64_t(g.trainEdges.size())) + " training edges and " +
           groupedNumber(std::int64_t(g.heldOut.size())) + " test pairs (" + groupedNumber(linked) +
           " linked) among " + groupedNumber(g.nodes) +
           " nodes (train_edges.tsv, test_pairs.tsv, nodes.tsv)";
}

// What the file holds, read as read() reads it and resolved as build() resolves it.
DataReport inspectGraph(const DataDescription& d)
{
    const GraphFile f = readFile(d);
    const GraphOptions o = GraphOptions::fromParams(d.settings);
    GraphBuildStats s;
    const GraphData g = buildGraph(f.graph, o.asymmetric, &s);
    std::vector<std::int64_t> degree = nodeDegrees(g.nodes, g.edges);
    std::sort(degree.begin(), degree.end());
    const std::size_t n = degree.size();
    const double median =
        n % 2 == 1 ? double(degree[n / 2]) : 0.5 * double(degree[n / 2 - 1] + degree[n / 2]);
    const GraphComponents c = connectedComponents(g.nodes, g.edges);
    const auto edges = std::int64_t(g.edges.size());
    const double pairs = double(g.pairCount());
    const std::vector<std::string> warnings = warningsOf(f, s);
    DataReport r;
    r.lines = {
        {"format", "format", f.formatName, {}, {}},
        {"nodes", "nodes", std::int64_t(g.nodes), {}, {}},
        {"edges",
         "edges",
         edges,
         warnings.empty() ? "(undirected)" : "(undirected; see the warnings)",
         {}},
        {"density", "density", pairs > 0 ? double(edges) / pairs : 0.0, "of the node pairs", {}},
        {"listed", "links listed", s.listed, f.graph.directed ? "(directed)" : "", {}},
        {"duplicates_merged", "duplicates merged", s.duplicates, {}, {}},
        {"self_loops_dropped", "self-loops dropped", s.selfLoops, {}, {}},
    };
    if (f.graph.directed)
        r.lines.push_back({"one_way_pairs",
                           "one-way pairs",
                           s.oneWayPairs,
                           o.asymmetric == Asymmetry::Either
                               ? "(linked one way only: edges, as asymmetric = either)"
                               : "(linked one way only: no edges, as asymmetric = mutual)",
                           {}});
    r.lines.push_back({"degree",
                       "degree",
                       std::vector<double>{double(degree.front()), median, double(degree.back())},
                       "(min, median, max)",
                       {}});
    r.lines.push_back({"isolated_nodes",
                       "isolated nodes",
                       std::int64_t(std::count(degree.begin(), degree.end(), 0)),
                       {},
                       {}});
    r.lines.push_back({"components",
                       "components",
                       c.count,
                       "(the largest: " + groupedNumber(c.largest) + " nodes)",
                       {}});
    r.lines.push_back({"names_from", "names from", f.namesFrom, {}, {}});
    r.lines.push_back({"test_pairs",
                       "test pairs",
                       std::int64_t(std::llround(o.testShare * pairs)),
                       "(" + percent(o.testShare) + " of " + groupedNumber(g.pairCount()) +
                           " pairs, by test_share)",
                       {}});
    r.lines.push_back({"warnings", "warnings", warnings, {}, "warnings"});
    return r;
}

BuiltData buildGraph(const RawData& raw, const DataDescription& d)
{
    const GraphFile& f = static_cast<const RawGraph&>(raw).file();
    const GraphOptions o = GraphOptions::fromParams(d.settings);
    GraphBuildStats bs;
    GraphSplitStats ss;
    const GraphDataPtr g = makeGraphData(f.graph, o, &bs, &ss);
    const auto edges = std::int64_t(g->edges.size());
    if (edges == 0)
        failFile(f.graph.source, "the graph has no edges" +
                                     (bs.selfLoops > 0 || bs.oneWayPairs > 0
                                          ? " once its self-loops and one-way links are resolved"
                                          : std::string()) +
                                     ": a link-prediction model has nothing to learn");
    BuiltData out;
    out.data = g;
    out.summary = groupedNumber(g->nodes) + " nodes, " + groupedNumber(edges) + " edges · " +
                  percent(o.testShare) + " of pairs held out (" + groupedNumber(ss.testPairs) +
                  " pairs, " + groupedNumber(ss.testEdges) + " edges)";
    if (ss.nodesWithoutTrainingEdges > 0)
        out.summary += " · " + groupedNumber(ss.nodesWithoutTrainingEdges) +
                       (ss.nodesWithoutTrainingEdges == 1 ? " node has" : " nodes have") +
                       " no training edge";
    for (const std::string& w : warningsOf(f, bs))
        out.summary += " · " + w;
    out.facts = {{"nodes", double(g->nodes)},
                 {"edges", double(edges)},
                 {"train_edges", double(ss.trainEdges)},
                 {"test_pairs", double(ss.testPairs)},
                 {"test_edges", double(ss.testEdges)},
                 {"nodes_without_training_edges", double(ss.nodesWithoutTrainingEdges)},
                 {"duplicates_merged", double(bs.duplicates)},
                 {"self_loops_dropped", double(bs.selfLoops)},
                 {"one_way_pairs", double(bs.oneWayPairs)}};
    return out;
}

} // namespace

DataKindSpec graph()
{
    DataKindSpec k;
    k.key = "graph";
    k.label = "Graph";
    k.task = "link prediction: a share of all node pairs (edges and non-edges) is held out and "
             "each pair's link probability scored (AUC)";
    k.formats = "GML (any name); edge lists (CSV / TSV / spaces, a source,target header, optional "
                "weight); square 0/1 adjacency matrices (CSV / TSV); optionally gzip'd";
    k.settings = GraphOptions::allParams();
    k.settings.push_back(choiceParam(
        "format", "Read as",
        "auto: by the content; gml, edges (an edge list) or adjacency (a matrix) to force one",
        {"auto", "gml", "edges", "adjacency"}, "auto"));
    k.readSettings = {"format"};
    k.defaultModel = "epm";
    k.views = {DataView::Graph};
    k.recognise = [](const FileProbe& f) { return f.content == "graph"; };
    // Only what it recognises is offered as a graph ("Read as"): any delimited file could be
    // read as an edge list or a matrix, but offering it for every table would be noise. The
    // command line's --kind graph (with --format) reads any text.
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        return std::make_shared<RawGraph>(readFile(d));
    };
    k.inspect = inspectGraph;
    k.build = buildGraph;
    k.writeSplit = writeGraphSplit;
    return k;
}

} // namespace svi::kinds
