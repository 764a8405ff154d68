#pragma once
// Delimited text matrices (CSV, TSV, optionally gzip-compressed): cells × channels exported from
// cytometry software, genes × samples expression matrices written by R or pandas.
// Reads the file once, streaming (gzip decompressed in blocks with zlib), and parses numbers in
// place from the buffer. Uses QtCore's QFile only, so Qt resources (":/…") work too; the
// functions are reentrant and may run on any thread.
//
// What is accepted: a UTF-8 byte-order mark; CRLF or LF line endings; '#' comment lines and
// blank lines before the header; blank lines anywhere else (skipped, as R and pandas do);
// fields in double quotes with "" for a quote (line breaks inside quotes too, for any
// delimiter); spaces around fields; R's write.table layout, whose header lacks the row-name
// column; a delimiter at the end of every line (the empty last column is dropped when it is
// empty everywhere and has no name); with ';' as delimiter, a decimal comma ("1,5").
// Missing values: "", "NA", "NaN"/"nan" (any case) become NaN; callers turn NaN into Missing
// entries. Everything else that is not a finite number within float range is an error.

#include "core/data/table.h"
#include "core/io/data_error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svi {

struct TableReadOptions
{
    // 0 = guess: ',' for .csv(.gz), '\t' for .tsv/.tab/.txt(.gz); otherwise, or when the
    // suffix's delimiter does not occur in the first line, the most frequent of tab, comma and
    // semicolon outside quotes in that line (',' when none occurs: a single column).
    char delimiter = 0;
    bool header = true; // the first line (after comments) holds column names
    // -1 = guess: the first column holds row names when its header cell is empty, when the
    // header has one cell fewer than the data lines (R's write.table), or when the first data
    // line's first cell is neither a number nor a missing value. 0 = no; 1 = yes.
    int rowNames = -1;
    bool transpose = false; // return cols × rows (genes as data points); rowNames ↔ columns

    // Empty when valid; otherwise "field = value, but must be …".
    std::optional<std::string> validate() const;
};

// Reads the whole file into rows × cols floats. columns = header cells (an empty cell becomes
// "V<k>", k counting data columns from 1) or "V1".."Vn" without a header; markers all "";
// rowNames = the row-name column when there is one; source = path. With transpose, rows and
// columns swap as svi::transposed does ("V1".."Vn" column names when there were no row names).
// Throws DataError naming the file and, for a bad line, the line (counted from 1 in the file,
// comments and blank lines included), field number and column name, e.g.
// "cannot read 'cells.csv' line 17: 38 fields, but the header has 39" or
// "cannot read 'cells.csv' line 5, column 3 ('CD4'): 'abc' is not a number".
// Throws std::invalid_argument when the options are invalid.
Table readTableFile(const std::string& path, const TableReadOptions& options = {});

struct TableFileInfo
{
    // The shape readTableFile returns with the same options (after transposition).
    std::int64_t rows = 0;
    int cols = 0;
    std::vector<std::string> columns;
    // Facts about the file itself.
    bool hasRowNames = false; // the file has a row-name column (guessed or forced)
    char delimiter = ',';
    bool gzip = false;
};

// Says what readTableFile would return (for 'svi info') without keeping the values: one pass
// that converts every cell as readTableFile does and throws the same DataError for the same
// file (a ragged line, a cell that is not a number), so that a file `svi info` describes is
// one a run reads. Throws as readTableFile does.
TableFileInfo inspectTableFile(const std::string& path, const TableReadOptions& options = {});

// A delimited file read as text, cell by cell, without converting any: for readers that
// decide per column what the cells are (the labelled kind's factor columns). The syntax of
// readTableFile (a UTF-8 byte-order mark, CRLF, '#' comments and blank lines before the header,
// blank lines anywhere, quoted fields, spaces around fields; the delimiter guessed as there
// when `delimiter` is 0) with a header required and no row-name column: every data line has as
// many fields as the header.
struct DelimitedHeader
{
    std::vector<std::string> columns; // the header's cells; an empty one becomes "V<k>"
    char delimiter = ',';
    bool gzip = false;
};

// Called with each data line's fields (unquoted, trimmed; valid during the call only) and its
// line number in the file (from 1).
using DelimitedRow =
    std::function<void(const std::vector<std::string_view>& fields, std::int64_t line)>;

// Reads the file once, calling `header` (when set) once the header is read and `row` for every
// data line in order. Throws DataError naming the file and line: "cannot read 'x.csv' line 7: 3
// fields, but the header has 4", a quoted field not closed (naming the column), no data rows;
// and whatever the callbacks throw.
DelimitedHeader scanDelimitedFile(const std::string& path,
                                  const std::function<void(const DelimitedHeader&)>& header,
                                  const DelimitedRow& row, char delimiter = 0);

} // namespace svi
