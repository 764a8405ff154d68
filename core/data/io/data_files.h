#pragma once
// Which reader a data file needs, and tables read from one or several files: FCS files
// (several are stacked into one table, channels matched by name) or one delimited text file.
// Text corpora are read by core/data/io/corpus_files.h.

#include "core/data/io/table_file.h"
#include "core/data/table.h"

#include <string>
#include <vector>

namespace svi {

enum class DataFileKind { Image, Fcs, Delimited, Corpus };

// From the name: a text corpus (a folder; .tar, .tar.gz, .tgz; docword.*.txt(.gz); .ldac; .dat
// with a vocabulary beside it — see corpusFormatOf) → Corpus; .fcs (and .lmd) → Fcs; .csv,
// .tsv, .txt, optionally .gz → Delimited; anything else → Image (the image reader then says
// whether it is one).
DataFileKind dataFileKind(const std::string& path);

// Reads one delimited file, or one or more FCS files stacked into one table. Throws DataError
// naming the file (and line, field) that cannot be used, or asking for one delimited file or
// only FCS files when the kinds are mixed.
Table loadTable(const std::vector<std::string>& paths, const TableReadOptions& options = {});

// Repeats the rows of `table` cyclically until it has `rows` rows (benchmarks at the paper's
// full size from smaller real files). rows ≥ 1.
Table tiledRows(const Table& table, std::int64_t rows);

} // namespace svi
