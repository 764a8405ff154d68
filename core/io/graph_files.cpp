// Graph files (graph_files.h): the format of a file, and the edge-list and adjacency-matrix
// readers (GML is read by graph_gml.cpp, recognition by graph_sniff.cpp).

#include "core/io/graph_files.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/graph_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace svi {
namespace {

using namespace graph_text;

std::string counted(std::int64_t n, const std::string& one, const std::string& many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Reads `path` line by line, skipping blank lines and comment lines, with the BOM of the first
// line removed; calls f(fields, line number) with each other line split at the file's
// delimiter (decided by its first such line).
template <class F> char forEachRow(const std::string& path, bool percentComments, F&& f)
{
    ByteSource source(path);
    LineReader reader(source);
    std::string_view line;
    std::int64_t number = 0;
    std::vector<std::string_view> fields;
    std::string scratch;
    char delimiter = 0;
    while (reader.next(line, number)) {
        if (number == 1 && line.starts_with(kBom))
            line.remove_prefix(kBom.size());
        if (trimmed(line).empty() || isComment(line, percentComments))
            continue;
        if (line.find('\0') != std::string_view::npos)
            failLine(path, number, "binary data (a NUL byte), not text");
        if (!delimiter)
            delimiter = delimiterOf(line);
        std::size_t bad = 0;
        if (!splitLine(line, delimiter, fields, scratch, &bad))
            failField(path, number, "field " + std::to_string(bad),
                      "a quoted field is not closed, or text follows its closing quote");
        f(fields, number);
    }
    return delimiter;
}

std::string gzipPrefix(const std::string& path)
{
    return ByteSource(path).gzip() ? "gzip'd " : "";
}

// A string-keyed map looked up by string_view without a copy.
struct NameHash
{
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, std::int32_t, NameHash, std::equal_to<>>;

// The nodes of an edge list as they are met, and its links between them.
class EdgeListBuilder
{
public:
    explicit EdgeListBuilder(const std::string& path) : m_path(path) {}

    // One line "source target [weight] …".
    void add(const std::vector<std::string_view>& f, std::int64_t line)
    {
        if (f.size() < 2)
            failLine(m_path, line, "1 field, but an edge needs a source and a target");
        for (int k = 0; k < 2; ++k)
            if (f[std::size_t(k)].empty())
                failField(m_path, line, k == 0 ? "field 1 (source)" : "field 2 (target)",
                          "empty: every edge names two nodes");
        bool link = true;
        if (f.size() >= 3 && !f[2].empty()) {
            double w = 0;
            const std::string field = "field 3 (weight)";
            if (!parseNumber(f[2], w) || std::isnan(w))
                failField(m_path, line, field, inQuotes(f[2]) + " is not a number");
            if (!std::isfinite(w))
                failField(m_path, line, field, inQuotes(f[2]) + " is not finite");
            if (w < 0)
                failField(m_path, line, field,
                          inQuotes(f[2]) + " is negative: a weight is 0 (no edge) or more (an "
                                           "edge)");
            link = w > 0;
            m_zeroWeights += link ? 0 : 1;
            m_otherWeights += link && w != 1 ? 1 : 0;
        }
        m_extraFields += f.size() > 3 ? 1 : 0;
        std::int64_t whole = 0;
        m_allWhole = m_allWhole && parseWhole(f[0], whole) && parseWhole(f[1], whole);
        const std::int32_t a = node(f[0], line), b = node(f[1], line);
        if (link)
            m_links.push_back({a, b});
        ++m_lines;
    }

    std::int64_t lines() const { return m_lines; }
    bool allWhole() const { return m_allWhole; }
    std::vector<ListedLink>& links() { return m_links; }

    // The graph, nodes numbered in ascending numeric order when every name is a whole number,
    // else in order of first appearance with the nodes of `firstNames` (a first line read
    // last) first.
    GraphFile finish(const std::vector<std::string>& firstNames)
    {
        const std::size_t n = m_names.size();
        std::vector<std::int32_t> order(n); // new index → provisional index
        std::iota(order.begin(), order.end(), 0);
        if (m_allWhole) {
            std::vector<std::int64_t> value(n);
            for (std::size_t k = 0; k < n; ++k)
                parseWhole(m_names[k], value[k]);
            std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
                return value[std::size_t(a)] != value[std::size_t(b)]
                           ? value[std::size_t(a)] < value[std::size_t(b)]
                           : m_names[std::size_t(a)] < m_names[std::size_t(b)];
            });
        } else if (!firstNames.empty()) {
            std::vector<std::int32_t> front;
            for (const std::string& name : firstNames) {
                const std::int32_t k = m_index.find(name)->second;
                if (std::find(front.begin(), front.end(), k) == front.end())
                    front.push_back(k);
            }
            std::stable_partition(order.begin(), order.end(), [&](std::int32_t k) {
                return std::find(front.begin(), front.end(), k) != front.end();
            });
            std::sort(order.begin(), order.begin() + std::ptrdiff_t(front.size()),
                      [&](std::int32_t a, std::int32_t b) {
                          return std::find(front.begin(), front.end(), a) <
                                 std::find(front.begin(), front.end(), b);
                      });
        }
        std::vector<std::int32_t> renumbered(n);
        GraphFile g;
        for (std::size_t k = 0; k < n; ++k) {
            renumbered[std::size_t(order[k])] = std::int32_t(k);
            g.graph.nodeNames.push_back(m_names[std::size_t(order[k])]);
        }
        for (ListedLink& l : m_links)
            l = {renumbered[std::size_t(l.from)], renumbered[std::size_t(l.to)]};
        g.graph.nodes = std::int32_t(n);
        g.graph.links = std::move(m_links);
        g.graph.source = m_path;
        g.format = GraphFormat::EdgeList;
        g.namesFrom = m_allWhole ? "the file's ids (in ascending order)" : "the file's names";
        if (m_zeroWeights > 0)
            g.notes.push_back(counted(m_zeroWeights, "line", "lines") +
                              " of weight 0 skipped (no edge; their nodes kept)");
        if (m_otherWeights > 0)
            g.notes.push_back(counted(m_otherWeights, "edge", "edges") +
                              " of weight other than 1 read as links (weights are not modelled)");
        if (m_extraFields > 0)
            g.notes.push_back(counted(m_extraFields, "line has", "lines have") +
                              " fields after the third: ignored");
        return g;
    }

private:
    std::int32_t node(std::string_view name, std::int64_t line)
    {
        const auto it = m_index.find(name);
        if (it != m_index.end())
            return it->second;
        if (m_names.size() >= std::size_t(std::numeric_limits<std::int32_t>::max()))
            failLine(m_path, line, "more than 2³¹ − 1 nodes");
        const auto k = std::int32_t(m_names.size());
        m_names.emplace_back(name);
        m_index.emplace(std::string(name), k);
        return k;
    }

    const std::string& m_path;
    NameIndex m_index;
    std::vector<std::string> m_names; // provisional index → name
    std::vector<ListedLink> m_links;
    std::int64_t m_lines = 0, m_zeroWeights = 0, m_otherWeights = 0, m_extraFields = 0;
    bool m_allWhole = true;
};

// A cell a header holds rather than an entry: text that is neither a number nor a marker of a
// missing value (which is an entry, and an error, not a name).
bool isName(std::string_view cell)
{
    double v = 0;
    if (parseNumber(cell, v))
        return false;
    const std::string l = lowered(cell);
    return !(l.empty() || l == "na" || l == "nan");
}

} // namespace

std::string graphFormatKey(GraphFormat format)
{
    switch (format) {
    case GraphFormat::EdgeList:
        return "edges";
    case GraphFormat::Adjacency:
        return "adjacency";
    case GraphFormat::Gml:
        break;
    }
    return "gml";
}

std::optional<GraphFormat> graphFormatFromKey(const std::string& key)
{
    for (const GraphFormat f : {GraphFormat::Gml, GraphFormat::EdgeList, GraphFormat::Adjacency})
        if (key == graphFormatKey(f))
            return f;
    if (key == "auto")
        return std::nullopt;
    throw std::invalid_argument(
        fieldError("format", key, "must be one of: auto, gml, edges, adjacency"));
}

GraphFile readEdgeListFile(const std::string& path)
{
    EdgeListBuilder builder(path);
    std::vector<std::string> first;
    std::int64_t firstLine = 0;
    const char delimiter = forEachRow(path, true, [&](const auto& fields, std::int64_t line) {
        if (firstLine == 0) {
            first.assign(fields.begin(), fields.end());
            firstLine = line;
        } else {
            builder.add(fields, line);
        }
    });
    if (firstLine == 0)
        failFile(path, "no edges: every line is blank or a comment");
    // The first line names the columns, or is an edge; read last, its nodes still come first.
    std::int64_t whole = 0;
    const bool header =
        first.size() >= 2 && (namesEdgeColumns(first[0], first[1]) ||
                              (builder.lines() > 0 && builder.allWhole() &&
                               !(parseWhole(first[0], whole) && parseWhole(first[1], whole))));
    if (!header) {
        const std::vector<std::string_view> fields(first.begin(), first.end());
        const std::size_t before = builder.links().size();
        builder.add(fields, firstLine);
        std::rotate(builder.links().begin(), builder.links().begin() + std::ptrdiff_t(before),
                    builder.links().end());
    } else if (builder.lines() == 0) {
        failFile(path, "no edges: only the header line " + std::to_string(firstLine));
    }
    GraphFile g = builder.finish(header ? std::vector<std::string>{}
                                        : std::vector<std::string>{first[0], first[1]});
    g.formatName = gzipPrefix(path) + "edge list (" + delimiterName(delimiter) + ")";
    return g;
}

GraphFile readAdjacencyFile(const std::string& path)
{
    std::vector<std::string> header, rowNames;
    std::int64_t headerLine = 0, columns = -1, row = 0, firstRowLine = 0, others = 0;
    bool named = false; // a first column of row names
    std::vector<ListedLink> links;
    const auto columnName = [&](std::int64_t c) {
        return "column " + std::to_string(c + 1) +
               (header.empty() ? std::string() : " (" + inQuotes(header[std::size_t(c)]) + ")");
    };
    const char delimiter = forEachRow(path, false, [&](const auto& f, std::int64_t line) {
        if (headerLine == 0 && columns < 0 && std::any_of(f.begin() + 1, f.end(), isName)) {
            header.assign(f.begin(), f.end());
            headerLine = line;
            return;
        }
        if (columns < 0) {
            named = isName(f[0]) || f[0].empty();
            columns = std::int64_t(f.size()) - (named ? 1 : 0);
            firstRowLine = line;
            if (columns < 1)
                failLine(path, line, "a row of names without entries");
            if (!header.empty() && std::int64_t(header.size()) == columns + 1)
                header.erase(header.begin()); // the corner above the row names
            if (!header.empty() && std::int64_t(header.size()) != columns)
                failLine(path, headerLine,
                         std::to_string(header.size()) +
                             " names in the header, but the row at "
                             "line " +
                             std::to_string(line) + " has " + std::to_string(columns) + " entries");
        }
        const std::int64_t expected = columns + (named ? 1 : 0);
        if (std::int64_t(f.size()) != expected)
            failLine(path, line,
                     std::to_string(f.size()) + " fields, but the matrix has " +
                         std::to_string(columns) + " columns" +
                         (named ? " after its row names" : "") + " (line " +
                         std::to_string(firstRowLine) + ")");
        if (row >= columns)
            failLine(path, line,
                     "row " + std::to_string(row + 1) + " of a matrix of " +
                         std::to_string(columns) + " columns: an adjacency matrix is square");
        if (named) {
            if (!header.empty() && f[0] != header[std::size_t(row)])
                failField(path, line, "row name",
                          inQuotes(f[0]) + " differs from the header's name of column " +
                              std::to_string(row + 1) + ", " + inQuotes(header[std::size_t(row)]));
            rowNames.emplace_back(f[0]);
        }
        for (std::int64_t c = 0; c < columns; ++c) {
            const std::string_view cell = f[std::size_t(c + (named ? 1 : 0))];
            if (cell == "0")
                continue;
            double v = 1;
            if (cell != "1") {
                if (!parseNumber(cell, v) || std::isnan(v))
                    failField(path, line, columnName(c),
                              (cell.empty() ? std::string("an empty entry")
                                            : inQuotes(cell) + " is not a number") +
                                  ": an adjacency matrix has no missing entries");
                if (!std::isfinite(v) || v < 0)
                    failField(path, line, columnName(c),
                              inQuotes(cell) + " is " + (v < 0 ? "negative" : "not finite") +
                                  ": an entry is 0 (no link) or more (a link)");
                others += v != 0 && v != 1 ? 1 : 0;
            }
            if (v != 0)
                links.push_back({std::int32_t(row), std::int32_t(c)});
        }
        ++row;
    });
    if (columns < 0)
        failFile(path, "no rows: an adjacency matrix has N rows of N entries");
    if (row < columns)
        failFile(path, std::to_string(columns) + " columns but " + std::to_string(row) +
                           " rows: an adjacency matrix is square (N rows of N entries)");
    if (columns > std::numeric_limits<std::int32_t>::max())
        failFile(path, "more than 2³¹ − 1 nodes");
    GraphFile g;
    g.format = GraphFormat::Adjacency;
    g.formatName = gzipPrefix(path) + "adjacency matrix (" + delimiterName(delimiter) + ")";
    g.graph.nodes = std::int32_t(columns);
    g.graph.directed = true;
    g.graph.links = std::move(links);
    g.graph.source = path;
    g.graph.nodeNames = !header.empty() ? header : rowNames;
    g.namesFrom = !header.empty() ? "header" : named ? "row names" : "row numbers";
    if (others > 0)
        g.notes.push_back(counted(others, "entry", "entries") +
                          " other than 0 and 1 read as links (weights are not modelled)");
    return g;
}

GraphFormat graphFormatOf(const std::string& path)
{
    const FileFormat f = recogniseFile(path);
    if (f.kind == DataFileKind::Gml)
        return GraphFormat::Gml;
    if (f.graph == GraphLayout::Adjacency)
        return GraphFormat::Adjacency;
    if (f.graph == GraphLayout::EdgeList)
        return GraphFormat::EdgeList;
    if (f.kind != DataFileKind::Delimited && f.kind != DataFileKind::Unknown)
        failFile(path,
                 "it is not a graph (GML, an edge list or an adjacency matrix) but " + f.name);
    // Text recognition did not place: an edge list has 2 to 4 columns (KONECT: a weight and a
    // time), a matrix more.
    std::size_t fields = 0;
    try {
        ByteSource source(path);
        LineReader reader(source);
        std::string_view line;
        std::int64_t number = 0;
        std::vector<std::string_view> f2;
        std::string scratch;
        while (fields == 0 && reader.next(line, number)) {
            if (trimmed(line).empty() || isComment(line, true))
                continue;
            splitLine(line, delimiterOf(line), f2, scratch);
            fields = f2.size();
        }
    } catch (const DataError&) {
        // Unreadable: the reader says why.
    }
    return fields >= 2 && fields <= 4 ? GraphFormat::EdgeList : GraphFormat::Adjacency;
}

GraphFile readGraphFile(const std::string& path, std::optional<GraphFormat> format)
{
    switch (format ? *format : graphFormatOf(path)) {
    case GraphFormat::EdgeList:
        return readEdgeListFile(path);
    case GraphFormat::Adjacency:
        return readAdjacencyFile(path);
    case GraphFormat::Gml:
        break;
    }
    return readGmlFile(path);
}

} // namespace svi
