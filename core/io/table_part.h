#pragma once
// A table read in parts by the ranks of a distributed run, each reading only its own rows,
// where the format allows it:
//   - FCS files (list mode): an event is a fixed-width record of the DATA segment, so the ranks
//     split the events of the files (stacked in order) evenly and each reads only its events'
//     bytes;
//   - one delimited text file (not gzip'd, not transposed): split by bytes into whole lines
//     (line_shard.h); every rank also reads the file's head (comments, header, first data line)
//     so that each reads its lines with the whole file's layout. A file whose quoted fields
//     hold line breaks does not split into its records by lines: it is read whole.
// The ranks then agree on the rows each holds (so that messages number lines and rows in the
// whole file), and on whether an unnamed last column is empty on every line (then dropped, as
// readTableFile does).
//
// Collective: every rank calls it, with the same arguments. A file that cannot be read, or a
// bad line in any rank's part, fails on every rank with the same DataError (naming the file
// and the line, numbered in the whole file).

#include "core/base/communicator.h"
#include "core/data/table.h"
#include "core/io/table_file.h"

#include <optional>
#include <string>
#include <vector>

namespace svi {

struct TableRead
{
    Table table;     // this rank's rows; the whole table's columns, markers and source
    TablePart where; // where they lie in the whole table (ranks set)
};

// This rank's part of the table `paths` (as loadTable reads them), or std::nullopt when they
// cannot be read in parts (read them whole with loadTable). Throws as above.
std::optional<TableRead> readTablePart(const std::vector<std::string>& paths,
                                       const TableReadOptions& options, Communicator& ranks);

} // namespace svi
