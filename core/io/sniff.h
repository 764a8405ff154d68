#pragma once
// What a data file holds, recognised from its content rather than its name: users name files
// anything (an FCS file as .B08 or .001, a gzipped CSV without .gz, LDA-C counts as .txt), so
// the readers (data_files.h, corpus_files.h, ratings_files.h, image_file.h, graph_files.h)
// dispatch on this.
// Uses QtCore, QtGui's image readers and zlib; reentrant, safe on any thread.

#include <string>

namespace svi {

enum class DataFileKind { Image, Fcs, Delimited, Corpus, Ratings, Libsvm, Gml, Unknown };

// Delimited text laid out as a graph (graph_files.h says the exact rules): recognised so that it
// is read as a graph rather than as a table, though the table reader could read it too.
enum class GraphLayout {
    None,
    Adjacency, // a square 0/1 matrix: node i's row holds a 1 in column j when i links to j
    EdgeList   // a line per edge under a header naming its columns ("source,target")
};

struct FileFormat
{
    DataFileKind kind = DataFileKind::Unknown;
    // What was recognised, for messages: "FCS 3.1", "gzip'd CSV", "tar archive of text",
    // "LDA-C", "UCI bag-of-words", "MovieLens u.data", "LIBSVM text", "PNG image", "folder of
    // text files"; for Unknown what the content looked like ("empty file", "binary data",
    // "text").
    std::string name;
    // Delimited only: a graph's adjacency matrix or edge list, recognised by its content.
    GraphLayout graph = GraphLayout::None;
};

// Looks at the first 256 KiB of the content (gunzipped when the file starts with the gzip magic
// 1f 8b, whatever its name) and decides, in this order:
//   - a folder → the kind of the files it holds, sniffed one by one (data_folder.h): Ratings
//     when it holds u.data, ratings.dat, ratings.csv or user_artists.dat (ratingsFileIn),
//     Corpus for text files only, Fcs for FCS files, Image for images, …; refused (DataError)
//     when it holds several kinds;
//   - Reuters-21578 markup (a first element <REUTERS …>, after an optional <?xml …?> or
//     <!DOCTYPE lewis …>) → Corpus (reuters_sgml.h);
//   - "FCS" + version + 4 spaces + numeric offsets → Fcs (gzipped too: its reader inflates it);
//   - an image by its signature (QImageReader; gzipped too) → Image. TGA and WBMP have no
//     real signature and count only with their suffix (the one under ".gz");
//   - a tar header (checksum, ustar magic at byte 257), plain or gzipped → Corpus, unless the
//     first member holds binary data;
//   - GML text ("graph [" after top-level key–value lines such as Creator "…" and # comments)
//     → Gml; delimited text laid out as an adjacency matrix or an edge list
//     (delimitedGraphOf, graph_files.h) → Delimited with `graph` set: both before ratings, as
//     a 0/1 matrix with TABs would pass for u.data;
//   - text whose first line is a MovieLens rating or header → Ratings: the MovieLens header
//     "userId,movieId,rating…" or "UserID::MovieID::Rating…" lines for any name, TAB-separated
//     numbers (u.data) only when the name is not a table's (.csv, .tsv, .txt): a headerless
//     table of whole numbers looks the same;
//   - text of UCI docword lines (D, W, NNZ, then "docID wordID count") or of LDA-C lines
//     ("N id:count …" with N pairs) → Corpus;
//   - text of LIBSVM lines ("label idx:val …", a number, then pairs with indices from 1 strictly
//     increasing within a line, an optional "# comment"; at least one pair) → Libsvm. LDA-C is
//     tried first and keeps lines that are both (its ids count from 0 and are seldom sorted, its
//     first number is the count of pairs); a name that says a corpus (.ldac) keeps it a Corpus;
//   - text whose lines split into the same number of fields on tab, comma or semicolon → Delimited;
//     one column of numbers too, unless the name says another kind ("0" lines are also empty
//     LDA-C documents).
// When the content matches none of these (binary data, prose, a truncated header), a name that
// says a kind decides so that that kind's reader names what is wrong: .fcs and .lmd → Fcs;
// MovieLens names → Ratings; .tar, .tgz, docword.*.txt, .ldac, .dat with a vocabulary beside it
// → Corpus; .gml → Gml; .csv, .tsv, .txt → Delimited; an image suffix → Image (each optionally
// .gz).
// Otherwise Unknown. Throws DataError "cannot read '<path>': file does not exist" for a missing
// path, and naming the reason for a file that cannot be opened.
FileFormat recogniseFile(const std::string& path);

// recogniseFile(path).kind when the file can be read; otherwise what its name says (Unknown when
// it says nothing). For front ends that choose a task or a form before reading the data and
// must not fail there: a session or a run configuration may name a file that has since moved,
// and reading it then reports that, as it reports everything else wrong with the file.
DataFileKind guessFileKind(const std::string& path);

} // namespace svi
