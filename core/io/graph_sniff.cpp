// Recognition of delimited text laid out as a graph (delimitedGraphOf, graph_files.h): an edge
// list by its header, an adjacency matrix by its shape and entries.

#include "core/io/graph_files.h"
#include "core/io/graph_text.h"

#include <cmath>
#include <cstdlib>

namespace svi {
namespace {

using namespace graph_text;

struct HeadLine
{
    std::string_view text; // without its terminator
    std::size_t start = 0; // offset in the head
    std::size_t next = 0;  // offset of the line after it
};

// The head's lines (CR before LF removed); the last only when the head is the whole file.
std::vector<HeadLine> linesOf(std::string_view head, bool whole)
{
    std::vector<HeadLine> out;
    std::size_t pos = head.starts_with(kBom) ? kBom.size() : 0;
    while (pos < head.size()) {
        const std::size_t nl = head.find('\n', pos);
        if (nl == std::string_view::npos && !whole)
            break;
        const std::size_t end = nl == std::string_view::npos ? head.size() : nl;
        std::string_view text = head.substr(pos, end - pos);
        if (text.ends_with('\r'))
            text.remove_suffix(1);
        out.push_back({text, pos, end + 1});
        pos = end + 1;
    }
    return out;
}

// The words of a comment line after its marker.
std::vector<std::string_view> commentWords(std::string_view line)
{
    line = trimmed(line);
    line.remove_prefix(1);
    std::vector<std::string_view> words;
    splitFields(line, words);
    return words;
}

// An edge list's header line, SNAP's comment naming the columns or KONECT's "% sym" line.
std::optional<DelimitedGraph> edgeListOf(const std::vector<HeadLine>& lines)
{
    std::vector<std::string_view> f;
    std::string scratch;
    std::string name;
    std::size_t k = 0;
    for (; k < lines.size(); ++k) {
        const std::string_view line = lines[k].text;
        if (trimmed(line).empty())
            continue;
        if (!isComment(line, true)) {
            if (!name.empty())
                break; // a comment named the columns: this is the first edge
            splitLine(line, delimiterOf(line), f, scratch);
            if (f.size() < 2 || !namesEdgeColumns(f[0], f[1]))
                return std::nullopt;
            name = "edge list (" + delimiterName(delimiterOf(line)) + ")";
            ++k;
            break;
        }
        const std::vector<std::string_view> words = commentWords(line);
        if (name.empty() && trimmed(line).front() == '%' && !words.empty() &&
            (words[0] == "sym" || words[0] == "asym"))
            name = "edge list (KONECT)";
        for (std::size_t w = 0; w + 1 < words.size() && name.empty(); ++w)
            if (namesEdgeColumns(words[w], words[w + 1]))
                name = "edge list (SNAP)";
    }
    if (name.empty())
        return std::nullopt;
    // The next line that holds data, if the head has one, is an edge.
    for (; k < lines.size(); ++k) {
        const std::string_view line = lines[k].text;
        if (trimmed(line).empty() || isComment(line, true))
            continue;
        splitLine(line, delimiterOf(line), f, scratch);
        if (f.size() < 2)
            return std::nullopt;
        break;
    }
    return DelimitedGraph{GraphLayout::EdgeList, name};
}

// A square matrix of 0/1 entries (see delimitedGraphOf).
std::optional<DelimitedGraph> adjacencyOf(const std::vector<HeadLine>& lines, bool whole,
                                          std::int64_t totalBytes)
{
    std::vector<std::string_view> f;
    std::string scratch;
    char delimiter = 0;
    bool headerSeen = false, named = false;
    std::size_t columns = 0, headerCells = 0, firstStart = 0, lastNext = 0;
    std::vector<std::vector<std::uint8_t>> rows;
    for (const HeadLine& l : lines) {
        if (trimmed(l.text).empty() || isComment(l.text, false))
            continue;
        if (!delimiter) {
            delimiter = delimiterOf(l.text);
            if (delimiter == ' ')
                return std::nullopt; // not a table the table reader would read either
        }
        if (!splitLine(l.text, delimiter, f, scratch))
            return std::nullopt;
        if (rows.empty() && !headerSeen && f.size() > 1) {
            double v = 0;
            bool text = false;
            for (std::size_t c = 1; c < f.size() && !text; ++c)
                text = !parseNumber(f[c], v);
            if (text) {
                headerSeen = true;
                headerCells = f.size();
                continue;
            }
        }
        if (rows.empty()) {
            double v = 0;
            named = !parseNumber(f[0], v);
            columns = f.size() - (named ? 1 : 0);
            if (columns < 3 || (headerSeen && headerCells != columns && headerCells != columns + 1))
                return std::nullopt;
            firstStart = l.start;
        }
        if (f.size() != columns + (named ? 1 : 0) || rows.size() >= columns)
            return std::nullopt;
        std::vector<std::uint8_t> row(columns);
        for (std::size_t c = 0; c < columns; ++c) {
            const std::string_view cell = f[c + (named ? 1 : 0)];
            double v = 0;
            if (cell != "0" && cell != "1" && !(parseNumber(cell, v) && (v == 0 || v == 1)))
                return std::nullopt;
            row[c] = cell == "1" || v == 1 ? 1 : 0;
        }
        rows.push_back(std::move(row));
        lastNext = l.next;
    }
    const std::size_t seen = rows.size();
    if (seen == 0)
        return std::nullopt;
    if (whole && seen != columns)
        return std::nullopt;
    if (!whole && totalBytes > 0) {
        // The rows of a 0/1 matrix are about as long as each other: the file's size tells
        // their number.
        const double mean = double(lastNext - firstStart) / double(seen);
        const double estimated = double(totalBytes - std::int64_t(firstStart)) / mean;
        if (std::abs(estimated - double(columns)) > 0.05 * double(columns))
            return std::nullopt;
    }
    bool zeroDiagonal = true, symmetric = true;
    for (std::size_t r = 0; r < seen; ++r) {
        zeroDiagonal = zeroDiagonal && rows[r][r] == 0;
        for (std::size_t c = 0; c < r; ++c)
            symmetric = symmetric && rows[r][c] == rows[c][r];
    }
    if (!zeroDiagonal && !symmetric)
        return std::nullopt;
    return DelimitedGraph{GraphLayout::Adjacency,
                          "adjacency matrix (" + delimiterName(delimiter) + ")"};
}

} // namespace

std::optional<DelimitedGraph> delimitedGraphOf(std::string_view head, bool whole,
                                               std::int64_t totalBytes)
{
    if (head.find('\0') != std::string_view::npos)
        return std::nullopt;
    const std::vector<HeadLine> lines = linesOf(head, whole);
    if (auto edges = edgeListOf(lines))
        return edges;
    return adjacencyOf(lines, whole, totalBytes);
}

} // namespace svi
