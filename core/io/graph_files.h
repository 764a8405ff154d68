#pragma once
// Graph files read into a ListedGraph (core/data/graph.h): the links as the file lists them,
// before the graph kind resolves repeats, self-loops and one-way links. Three formats:
//
// GML (Newman's networks: karate, dolphins, polbooks, football; igraph's and networkx's
// writers): nested "key value" pairs, a value being a whole or real number, a "quoted string"
// (which may span lines; its text is kept as is, HTML entities such as &amp; and backslashes
// included) or a list "[ key value … ]"; "#" starts a comment to the end of the line (outside
// strings). One top-level `graph [ … ]` is read: its `node [ id N label "…" … ]` and
// `edge [ source S target T … ]` lists, and `directed 1` (the links are then one-way, and the
// graph kind reads them as undirected). Node ids are any whole numbers, nodes numbered 0 … N − 1
// in file order; a node is named by its label (a string or a number) or else by its id. Other
// keys, and lists inside a node or an edge (graphics [ … ]), are skipped. An edge's `value` (a
// weight) is not modelled: every listed edge is a link, and a note says how many carried one.
// Edges may come before the nodes they name.
//
// Edge lists (CSV, TSV, ';' or runs of spaces, decided by the first line that is not a
// comment: TAB if it holds one, else ',', else ';', else spaces): a line per edge, "source
// target [weight] …", fields in double quotes ("" for a quote) with the one-character
// delimiters. Lines starting with '#' or '%' (SNAP, KONECT) and blank lines are skipped. The
// first line is a header when its first two fields name the columns (source/target, from/to,
// node1/node2, u/v, i/j, src/dst, id1/id2, FromNodeId/ToNodeId, any case) or when they are not
// both whole numbers while those of every later line are. Node names are any text; when every
// one is a whole number the nodes are numbered in ascending numeric order, otherwise in the
// order they first appear. A third field is a weight: 0 = no edge (the line is skipped, its
// nodes kept), > 0 = an edge (the graph is binary: a note counts weights other than 1),
// empty = an edge; negative, infinite, NaN or not a number is an error. Further fields
// (KONECT's timestamps) are ignored, with a note. An edge list has no direction: "a b" and
// "b a" are one pair listed twice.
//
// Adjacency matrices (CSV, TSV, ';' or runs of spaces, decided as above): N rows of N numbers;
// optionally a header row of names (a row whose cells after the first are not all numbers;
// its first cell may be an empty corner) and/or a first column of names (a first cell that is
// not a number), which must then agree with the header's. Entry (i, j) ≠ 0 is a link i → j
// (the rows are directed: the graph kind reads a pair linked one way as it declares); entries
// other than 0 and 1 are noted; '#' comment lines and blank lines are skipped. Nodes are named
// by the header, else the row names, else their row number from 1.
//
// Every file may be gzip'd, whatever its name, and may start with a UTF-8 byte-order mark; LF or
// CRLF. Every failure is a DataError naming the file and, for a bad line, its number (from 1,
// blank and comment lines included) and the field: "cannot read 'k.gml' line 12, target: no
// node has id 99", "cannot read 'e.csv' line 7, field 3 (weight): '-1' is negative …",
// "cannot read 'a.csv' line 5: 233 fields, but the matrix has 234 columns". Uses QtCore and
// zlib; reentrant, any thread.

#include "core/data/graph.h"
#include "core/io/sniff.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svi {

enum class GraphFormat { Gml, EdgeList, Adjacency };

// "gml", "edges", "adjacency": the graph kind's `format` choices besides "auto".
std::string graphFormatKey(GraphFormat format);
// The format of a key; std::nullopt for "auto". Throws std::invalid_argument naming the field
// "format" for anything else.
std::optional<GraphFormat> graphFormatFromKey(const std::string& key);

struct GraphFile
{
    ListedGraph graph;
    GraphFormat format = GraphFormat::Gml;
    std::string formatName; // "GML", "edge list (CSV)", "gzip'd adjacency matrix (TSV)"
    // Where the node names came from: "labels", "ids", "labels and ids" (GML), "the file's
    // names" (edge lists), "header", "row names", "row numbers" (adjacency matrices).
    std::string namesFrom;
    // What was read but not modelled, one line each: "3 edges carry a value (a weight):
    // ignored, every listed edge is a link".
    std::vector<std::string> notes;
};

// The format of `path` read as a graph: GML or the delimited layout recognition found
// (sniff.h); for other delimited or unrecognised text, an edge list when the first line that
// is not a comment has 2 to 4 fields and an adjacency matrix otherwise. Throws DataError when
// the file cannot be read or holds something else svi recognises (an image, an FCS file, a
// corpus, ratings), naming what it holds.
GraphFormat graphFormatOf(const std::string& path);

// Reads the file in `format`, or in graphFormatOf(path) when none is given. Throws DataError as
// described at the top of this file, and when the file has no nodes.
GraphFile readGraphFile(const std::string& path, std::optional<GraphFormat> format = std::nullopt);

// --- recognition (sniff.cpp) ---

// Whether `head` (a file's first bytes, gunzipped) is GML: after a UTF-8 byte-order mark,
// comments and up to 64 top-level pairs whose values are numbers or strings (Creator "…",
// Version 1), the first list is "graph [".
bool looksLikeGml(std::string_view head);

struct DelimitedGraph
{
    GraphLayout layout = GraphLayout::None;
    std::string name; // "adjacency matrix (CSV)", "edge list (TSV)", "edge list (SNAP)"
};

// Whether `head` (the first bytes of delimited text; `whole` when they are all of it;
// `totalBytes` the file's size, or −1 when unknown as for gzip) is laid out as a graph:
//   - an edge list when its first line that is not blank is a header naming an edge's columns
//     (see the top of this file), or a comment line naming them (SNAP's "# FromNodeId
//     ToNodeId"), or KONECT's first line "% sym …" / "% asym …", and the next line has at
//     least two fields;
//   - an adjacency matrix when, split at TAB, ',' or ';' (comment lines starting with '#' and
//     blank lines skipped; an optional header row of names and column of row names), it has
//     C ≥ 3 columns of entries 0 or 1 only, every row C of them, and C rows: counted when the
//     head is the whole file, else estimated from the file's size and the rows' mean length in
//     the head (within 5 %) — for gzip, whose size is unknown, the head's rows must only not
//     exceed C — and the rows seen either have a zero diagonal or are symmetric. A 0/1 table
//     that is not square, or too small to tell (fewer than 3 columns), stays a table.
std::optional<DelimitedGraph> delimitedGraphOf(std::string_view head, bool whole,
                                               std::int64_t totalBytes);

} // namespace svi
