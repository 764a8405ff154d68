#pragma once
// Which reader a data file needs, and tables read from one or several files: FCS files
// (several are stacked into one table, channels matched by name) or one delimited text file,
// each recognised by its content whatever its name (an FCS file as .B08, .001 or without a
// suffix; a gzipped CSV without .gz).
// Text corpora are read by core/io/corpus_files.h, ratings by core/io/ratings_files.h.

#include "core/data/table.h"
#include "core/io/sniff.h"
#include "core/io/table_file.h"

#include <string>
#include <vector>

namespace svi {

// recogniseFile(path).kind (sniff.h): by content first, the name breaking ties. Throws
// DataError for a path that does not exist or cannot be read.
DataFileKind dataFileKind(const std::string& path);

// Reads one delimited file, or several FCS files and tables of numbers stacked into one table
// (their columns matched by name; Table::stacked says how many rows came from each file).
// Throws DataError naming the file (and line, field) that cannot be used, what it holds instead
// when it is not a table (a corpus, ratings, an image, or content svi does not read), or the
// first file whose columns differ from the first file's.
Table loadTable(const std::vector<std::string>& paths, const TableReadOptions& options = {});

// Repeats the rows of `table` cyclically until it has `rows` rows (benchmarks at the paper's
// full size from smaller real files). rows ≥ 1.
Table tiledRows(const Table& table, std::int64_t rows);

} // namespace svi
