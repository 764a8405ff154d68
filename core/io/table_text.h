#pragma once
// Pieces of the delimited-text reader (table_file.cpp) that the reading of a table in parts
// (table_part.cpp) shares: not part of core/io's public interface.

#include "core/io/table_file.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace svi::tabletext {

// V1, V2, …: the names of unnamed columns, as R gives them (i from 0).
std::string numberedName(std::int64_t i);
std::vector<std::string> numberedNames(std::int64_t n);
// Row names as column names must not be empty: an empty one becomes V<row>.
std::vector<std::string> rowNamesAsColumns(std::vector<std::string> names);

// Whether a decimal number that from_chars found out of double range is too large (rather
// than too small, which is 0 in float anyway).
bool overflows(std::string_view number);

// The name's delimiter when the first line holds it; else the most frequent of tab, comma and
// semicolon outside quotes (a .txt or .csv file is often something else).
char guessDelimiter(const std::string& path, std::string_view firstLine);

// The data lines among some whole lines of a delimited file, read as readTableFile reads them:
// the layout (delimiter, header, row-name column, the number of fields) comes from the file's
// head — its comments, header and first data line — which is read here from the file itself,
// so that every part is read alike whatever lines it holds.
struct DelimitedLines
{
    MatrixRF values;                  // the data lines' values, in order (rows × columns)
    std::vector<std::string> columns; // the file's value columns
    bool gzip = false;
    // The last column is unnamed, and here every data line ends with a delimiter: readTableFile
    // drops it when that holds for every line of the file.
    bool lastColumnUnnamed = false;
    bool lastColumnEmpty = true;
    // A data line leaves a quoted field open (a line break inside quotes): then the lines do
    // not split the file into its records, and the file must be read whole. `values` are then
    // incomplete.
    bool quotedBreak = false;
};

// The next chunk of whole lines (a view valid until the next call) and the number (from 1) of
// its first line in the file; false when there is none.
using LineChunks = std::function<bool(std::string_view& bytes, std::int64_t& firstLine)>;

// The data lines among the chunks `chunks` gives, in order, of the file `path` (`sizeHint`: about
// how many bytes they hold, for reserving); the head's lines among them are skipped. Throws
// DataError as readTableFile does for those lines (numbered as the chunks say), or for the
// file's head.
DelimitedLines readDelimitedLines(const std::string& path, const TableReadOptions& options,
                                  std::int64_t sizeHint, const LineChunks& chunks);

} // namespace svi::tabletext
