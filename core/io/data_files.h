#pragma once
// Which reader a data file needs, and tables read from one or several files: FCS files
// (several are stacked into one table, channels matched by name) or one delimited text file.
// Text corpora are read by core/io/corpus_files.h, ratings by core/io/ratings_files.h.

#include "core/data/table.h"
#include "core/io/table_file.h"

#include <string>
#include <vector>

namespace svi {

enum class DataFileKind { Image, Fcs, Delimited, Corpus, Ratings };

// MovieLens ratings (u.data, u*.base, u*.test, ratings.dat, ratings.csv, a folder holding one of
// the first three, or another file whose first line is a rating — see ratingsFormatOf) →
// Ratings; checked first, since such a folder would otherwise be a text corpus and ratings.csv
// a table. A table name (.csv, .tsv, .txt) is a ratings file only with MovieLens's header
// "userId,movieId,rating…": a headerless table of whole numbers can look like u.data. Then from
// the name: a text corpus (a folder; .tar, .tar.gz, .tgz; docword.*.txt(.gz); .ldac; .dat with a
// vocabulary beside it — see corpusFormatOf) → Corpus; .fcs (and .lmd) → Fcs; .csv, .tsv, .txt,
// optionally .gz → Delimited; anything else → Image (the image reader then says whether it is
// one). Opens the file (its first 4 KB) only when the name does not decide.
DataFileKind dataFileKind(const std::string& path);

// Reads one delimited file, or one or more FCS files stacked into one table. Throws DataError
// naming the file (and line, field) that cannot be used, or asking for one delimited file or
// only FCS files when the kinds are mixed.
Table loadTable(const std::vector<std::string>& paths, const TableReadOptions& options = {});

// Repeats the rows of `table` cyclically until it has `rows` rows (benchmarks at the paper's
// full size from smaller real files). rows ≥ 1.
Table tiledRows(const Table& table, std::int64_t rows);

} // namespace svi
