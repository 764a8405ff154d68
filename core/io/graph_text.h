#pragma once
// What the graph readers and their recognition share (graph_files.cpp, graph_gml.cpp,
// graph_sniff.cpp): splitting a delimited line, the numbers they accept, and the names an edge
// list's header gives its columns. Internal to core/io.

#include "core/io/byte_source.h"
#include "core/io/graph_files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace svi::graph_text {

// '#' (and, for edge lists, '%': KONECT's headers) starts a comment line.
inline bool isComment(std::string_view line, bool percentToo)
{
    line = trimmed(line);
    return !line.empty() && (line.front() == '#' || (percentToo && line.front() == '%'));
}

// The delimiter of a file from its first line: TAB when it holds one, else ',', else ';',
// else ' ' (runs of blanks).
inline char delimiterOf(std::string_view line)
{
    for (const char d : {'\t', ',', ';'})
        if (line.find(d) != std::string_view::npos)
            return d;
    return ' ';
}

// "CSV", "TSV", "';'-separated", "space-separated", for format names.
inline std::string delimiterName(char d)
{
    return d == ',' ? "CSV" : d == '\t' ? "TSV" : d == ';' ? "';'-separated" : "space-separated";
}

// The fields of `line` into `out`: at runs of blanks for ' ', else at `delim` outside double
// quotes, each trimmed of blanks, a quoted field without its quotes and with "" read as one
// quote. Unescaped quoted fields are written into `scratch`, which is reserved to the line's
// length first so that the views into it stay valid. Returns false when a quote is not closed
// or text follows a closing quote (`bad` then holds the field's number from 1).
inline bool splitLine(std::string_view line, char delim, std::vector<std::string_view>& out,
                      std::string& scratch, std::size_t* bad = nullptr)
{
    out.clear();
    if (delim == ' ') {
        splitFields(line, out);
        return true;
    }
    scratch.clear();
    scratch.reserve(line.size());
    const std::size_t n = line.size();
    const auto skipBlanks = [&](std::size_t p) {
        while (p < n && line[p] != delim && isBlank(line[p]))
            ++p;
        return p;
    };
    const auto fail = [&] {
        if (bad)
            *bad = out.size() + 1;
        return false;
    };
    std::size_t p = 0;
    while (true) {
        p = skipBlanks(p);
        if (p < n && line[p] == '"') {
            const std::size_t start = scratch.size();
            bool closed = false;
            for (++p; p < n && !closed; ++p) {
                if (line[p] != '"')
                    scratch.push_back(line[p]);
                else if (p + 1 < n && line[p + 1] == '"')
                    scratch.push_back(line[p++]);
                else
                    closed = true;
            }
            p = skipBlanks(p);
            if (!closed || (p < n && line[p] != delim))
                return fail();
            out.push_back(std::string_view(scratch).substr(start));
        } else {
            const std::size_t end = std::min(line.find(delim, p), n);
            out.push_back(trimmed(line.substr(p, end - p)));
            p = end;
        }
        if (p >= n)
            return true;
        ++p; // the delimiter
    }
}

// A finite or non-finite number the whole of `s` spells (a leading '+' allowed).
inline bool parseNumber(std::string_view s, double& v)
{
    if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && r.ptr == s.data() + s.size() &&
           (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
}

// A whole number (optional sign, digits only) that fits std::int64_t.
inline bool parseWhole(std::string_view s, std::int64_t& v)
{
    if (s.size() > 1 && s.front() == '+' && s[1] != '-')
        s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && r.ptr == s.data() + s.size() && r.ec == std::errc();
}

inline std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return out;
}

// Whether two fields name an edge's columns (any case): source/target, from/to, …
inline bool namesEdgeColumns(std::string_view a, std::string_view b)
{
    static constexpr std::string_view kPairs[][2] = {
        {"source", "target"},
        {"from", "to"},
        {"node1", "node2"},
        {"node_1", "node_2"},
        {"u", "v"},
        {"i", "j"},
        {"src", "dst"},
        {"id1", "id2"},
        {"v1", "v2"},
        {"head", "tail"},
        {"fromnodeid", "tonodeid"},
    };
    const std::string x = lowered(a), y = lowered(b);
    return std::any_of(std::begin(kPairs), std::end(kPairs),
                       [&](const auto& p) { return x == p[0] && y == p[1]; });
}

} // namespace svi::graph_text

namespace svi {

// The readers of each format, behind readGraphFile (graph_files.h).
GraphFile readGmlFile(const std::string& path);       // graph_gml.cpp
GraphFile readEdgeListFile(const std::string& path);  // graph_files.cpp
GraphFile readAdjacencyFile(const std::string& path); // graph_files.cpp

} // namespace svi
