#pragma once
// Tables of measurements (cells × channels from FCS files or delimited text, genes × samples
// from expression matrices) and their preparation for dense models: channel selection,
// the arcsinh transform, standardisation, subsampling and a seeded held-out split.
// No Qt: the readers in core/io produce Tables; this turns them into DenseData.

#include "core/base/communicator.h"
#include "core/base/param_fields.h"
#include "core/data/dense_data.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace svi {

struct Table
{
    MatrixRF values; // rows × cols, raw values as read (may hold NaN)
    std::vector<std::string>
        columns; // one name per column ($PnN, header cell); never empty strings
    std::vector<std::string> markers;  // one per column: $PnS / a marker name, "" when none
    std::vector<std::string> rowNames; // empty, or one per row (the row-name column)
    std::string source;                // file name(s), for messages
    // The arcsinh cofactor usual for these data: 5 for mass cytometry (an FCS file whose $CYT
    // names a CyTOF or Helios, or whose channels are metal tags such as "Nd142Di"), else 0.
    double suggestedArcsinh = 0.0;
    // The tables stacked into this one (combineTables), in order: each one's source and rows.
    // Empty for a table read from one file.
    std::vector<std::pair<std::string, std::int64_t>> stacked;

    std::int64_t rows() const { return values.rows(); }
    int cols() const { return int(values.cols()); }
    // "CD3 (Nd142Di)" when a marker differs from the channel name, else the channel name.
    std::string label(int col) const;
};

enum class HeldOutSplit {
    Entries, // each entry held out with probability `heldOut`
    Rows     // a fraction `heldOut` of rows are test rows, excluded from training; half of each
             // test row's entries are held out and the other half condition its local inference
};

struct TableOptions : DeclaredOptions<TableOptions>
{
    TableOptions() { readDefaults(); }

    // Channels to keep, by channel name ($PnN / header) or marker name ($PnS), case-insensitive.
    // Empty keeps every column.
    std::vector<std::string> channels;
    double arcsinhCofactor{}; // y ← asinh(y / c); 0 = off (5 is usual for CyTOF)
    bool standardise{};       // per column: mean 0, variance 1 over the training entries
    std::int64_t subsample{}; // keep this many rows, drawn without replacement; 0 = all
    double heldOut{};         // fraction of entries (or rows) held out
    HeldOutSplit split{};
    std::uint64_t seed{};

    // The settings' declarations (keys channels, arcsinh, standardise, subsample, heldout,
    // split, split_seed) bound to the fields: forms, saved configurations, defaults and
    // validate() all come from them.
    static const ParamFields<TableOptions>& fields();

    bool operator==(const TableOptions&) const = default;
};

// Stacks the rows of several tables with the same channels (matched by name, in the first
// table's order), `stacked` saying where the rows came from. Throws std::invalid_argument
// naming the first table whose channels differ from the first table's.
Table combineTables(const std::vector<Table>& tables);

// Swaps rows and columns (genes as data points: an expression matrix read as probe sets ×
// samples becomes samples × probe sets, or back). Row names become column names.
Table transposed(const Table& table);

// A table read in parts by the ranks of a distributed run (core/io/table_part.h), each holding
// only its own rows, in the whole table's order: where this rank's rows lie in the whole table.
struct TablePart
{
    std::int64_t firstRow = 0;     // the whole table's index of the part's first row
    std::int64_t wholeRows = 0;    // rows of the whole table
    Communicator* ranks = nullptr; // the ranks that read the parts; not null
};

// Selects, transforms, subsamples, splits and standardises. NaN cells become Missing entries.
// Throws std::invalid_argument naming the field (an unknown channel lists the known ones).
// With `part`, `table` holds the part's rows only and the call is collective: every rank builds
// exactly what the whole table gives — the same subsample, split and standardisation, drawn
// from the same streams over the whole table's rows — holding only its own rows
// (DenseData::heldRows); an error in any rank's rows fails every rank with the same message.
DenseDataPtr makeTableData(const Table& table, const TableOptions& options,
                           const TablePart* part = nullptr);

// Per channel of `data` (built by makeTableData without standardisation), the mean and the
// standard deviation of the entries a model trains on (the observed entries of the training
// rows), so that nothing of the held-out values leaks into the scaling: what standardisation
// uses (scale 1 where the spread is nil). With `ranks` (data read in parts; collective) over
// every rank's rows.
struct ChannelMoments
{
    std::vector<double> mean, scale;
};
ChannelMoments trainingMoments(const DenseData& data, Communicator* ranks = nullptr);

// Whether column `col` is modelled unless the user says otherwise: the columns with a marker
// name ($PnS) when some have one (CyTOF files name the antibody there, and leave Time,
// Event_length, DNA and bead channels without one or with their metal), else every column but
// a time or event counter.
bool tickedByDefault(const Table& table, int col);

// Indices of `names` matching `wanted` (channel or marker, case-insensitive), in `wanted`'s
// order; std::nullopt and `unknown` set to the first name that matches nothing.
std::optional<std::vector<int>> selectColumns(const Table& table,
                                              const std::vector<std::string>& wanted,
                                              std::string* unknown = nullptr);

} // namespace svi
