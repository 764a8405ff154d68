#pragma once
// FCS (Flow Cytometry Standard 2.0, 3.0, 3.1) list-mode files: flow and mass cytometry events ×
// parameters. Written from the FCS 3.1 standard, tolerant of the deviations real writers make
// (padded values, Latin-1 text, blank HEADER offsets, $ENDDATA one byte past the data, empty
// values written as a doubled delimiter by FCS 2.0 writers such as CellQuest), strict where a
// guess could silently return wrong numbers (truncated data, unknown byte orders).
// A gzip'd FCS file (recognised by the gzip magic, whatever its name) is read from its inflated
// content; its messages say "(gzip of an FCS file)". Uses QtCore and zlib; the functions are
// reentrant and may run on any thread.

#include "core/base/shard.h"
#include "core/data/table.h"
#include "core/io/data_error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// The fixed 58-byte HEADER as written: the version and the byte offsets (inclusive) of the
// segments; 0 where the field is blank or 0 (a segment beyond 99,999,999 bytes).
struct FcsHeader
{
    std::string version; // "FCS3.1", "FCS3.0", "FCS2.0"
    std::int64_t textBegin = 0, textEnd = 0;
    std::int64_t dataBegin = 0, dataEnd = 0;
    std::int64_t analysisBegin = 0, analysisEnd = 0;
};

struct FcsFile
{
    std::string path;
    std::string version;              // "FCS3.1", "FCS3.0", "FCS2.0"
    char dataType = 'F';              // $DATATYPE: 'F' float32, 'D' float64, 'I' unsigned integers
    bool bigEndian = false;           // from $BYTEORD (4,3,2,1 / 2,1 = big; 1,2,3,4 / 1,2 = little)
    std::string byteOrder;            // $BYTEORD as written, e.g. "1,2,3,4"
    std::int64_t events = 0;          // $TOT, or derived from the DATA length when $TOT is absent
    int parameters = 0;               // $PAR
    std::vector<std::string> names;   // $PnN per parameter (trimmed, never empty)
    std::vector<std::string> markers; // $PnS per parameter, "" when absent
    std::vector<int> bits;            // $PnB per parameter
    // Every TEXT keyword (primary and supplemental TEXT; the primary wins on a duplicate), keys
    // upper-cased, values trimmed, both UTF-8 (bytes that are not valid UTF-8 read as Latin-1).
    std::map<std::string, std::string> keywords;

    FcsHeader header;               // the HEADER as written
    std::int64_t dataBegin = 0;     // DATA offsets used (first and last byte, inclusive)
    std::int64_t dataEnd = -1;      // after reconciling HEADER and TEXT, see readFcs
    std::vector<std::string> notes; // deviations tolerated, one sentence each (for logs)
    bool gzip = false;              // read from the inflated content of a gzip file

    // events × parameters as float (integers after the $PnR mask, float64 rounded); columns =
    // $PnN, markers = $PnS or "", source = path. Empty when only the metadata was read.
    Table table;
};

// Reads HEADER and TEXT (and a supplemental TEXT when present and in range); with readData
// also DATA into `table`, in one read. Only list mode ($MODE L or absent) with $DATATYPE F, D or
// I ($PnB a multiple of 8, up to 64; mixed widths allowed) and $BYTEORD in either plain order.
// Integers are masked to the next power of two ≥ $PnR minus 1 when that is narrower than $PnB.
// DATA offsets: the HEADER's when they are set and describe $TOT events, else $BEGINDATA /
// $ENDDATA. $ENDDATA one or two bytes past the data (or past the end of the file) is accepted.
// Throws DataError ("cannot read '<path>': <reason>") naming the field or offset at fault,
// e.g. "truncated: 6052 of 10000 events present".
// With `eventRange` ([begin, end) within the file's events), only those events' bytes are read
// (a list-mode record is fixed-width), after the same checks of the whole DATA segment: the
// table then holds those events alone, in order (one rank's part of a distributed run).
FcsFile readFcs(const std::string& path, bool readData = true,
                std::optional<Shard> eventRange = std::nullopt);

// True for mass cytometry: $CYT names a CyTOF or Helios (Fluidigm, DVS Sciences, Standard
// BioTools), or most channels are metal tags ("Nd142Di", "CD45(In115)Dd", "Yb171Di").
bool isMassCytometry(const FcsFile& file);

// Reads the files and stacks their rows (channels matched by $PnN, in the first file's order)
// into one Table via combineTables; `source` lists the files ("a.fcs + b.fcs"). Throws
// DataError naming the file that cannot be read or whose channels differ.
Table readFcsFiles(const std::vector<std::string>& paths);

} // namespace svi
