// Tables: FCS files (several stacked into one table, channels matched by name) or one delimited
// text file, read as rows × channels; channels selected, transformed and standardised, and
// entries or rows held out for scoring (paper 000, Sec. 5.3).

#include "core/data/table.h"
#include "core/io/data_files.h"
#include "core/io/data_kinds.h"
#include "core/io/fcs_file.h"
#include "core/io/kinds/kinds.h"
#include "core/io/table_part.h"

#include <QFileInfo>
#include <QString>
#include <algorithm>

namespace svi::kinds {
namespace {

std::string fileNameOf(const std::string& path)
{
    return QFileInfo(QString::fromStdString(path)).fileName().toStdString();
}

// " · rows from each file: a.fcs 234, b.fcs 339" for a table stacked from several files.
std::string stackedNote(const Table& t)
{
    if (t.stacked.empty())
        return {};
    std::string out = " · rows from each file:";
    for (std::size_t i = 0; i < t.stacked.size(); ++i)
        out += (i ? ", " : " ") + fileNameOf(t.stacked[i].first) + " " +
               groupedNumber(t.stacked[i].second);
    return out;
}

class RawTable : public RawData
{
public:
    RawTable(Table table, bool fcs) : m_table(std::move(table)), m_fcs(fcs) {}
    // This rank's rows of a table read in parts.
    RawTable(TableRead read, bool fcs)
        : m_table(std::move(read.table)), m_fcs(fcs), m_part(read.where)
    {
    }
    std::string summary() const override
    {
        return groupedNumber(m_part ? m_part->wholeRows : m_table.rows()) + " rows × " +
               std::to_string(m_table.cols()) + " channels" +
               (m_part ? " · read in " + std::to_string(m_part->ranks->size()) + " parts" : "") +
               stackedNote(m_table);
    }
    std::vector<Name> names(const std::string& key) const override
    {
        std::vector<Name> out;
        if (key != "channels")
            return out;
        for (int c = 0; c < m_table.cols(); ++c)
            out.push_back(
                {m_table.columns[std::size_t(c)], m_table.label(c), tickedByDefault(m_table, c)});
        return out;
    }
    ParamValues suggestedSettings() const override
    {
        ParamValues s;
        // The papers' held-out shares: 5 % of CyTOF entries, 10 % of an expression matrix's.
        s["heldout"] = m_fcs ? 0.05 : 0.1;
        if (m_table.suggestedArcsinh > 0)
            s["arcsinh"] = m_table.suggestedArcsinh;
        std::string ticked;
        bool all = true;
        for (const Name& n : names("channels")) {
            all = all && n.ticked;
            if (n.ticked)
                ticked += (ticked.empty() ? "" : ",") + n.name;
        }
        if (!all && !ticked.empty())
            s["channels"] = ticked;
        if (m_fcs)
            s["transpose"] = false; // events are always the data points
        return s;
    }
    std::vector<std::string> ignoredSettings() const override
    {
        return m_fcs ? std::vector<std::string>{"transpose"} : std::vector<std::string>{};
    }
    const Table& table() const { return m_table; }
    // Set when read in parts: where this rank's rows lie in the whole table.
    const TablePart* part() const { return m_part ? &*m_part : nullptr; }

private:
    Table m_table;
    bool m_fcs;
    std::optional<TablePart> m_part;
};

// The channels of `o` without those `exclude` names (an empty selection is every channel).
std::vector<std::string> withoutExcluded(const Table& table, const std::vector<std::string>& kept,
                                         const std::vector<std::string>& exclude)
{
    std::string unknown;
    const auto dropped = selectColumns(table, exclude, &unknown);
    if (!dropped)
        throw std::invalid_argument("exclude: no channel or marker named '" + unknown + "' in '" +
                                    table.source + "'");
    std::vector<int> from;
    if (!kept.empty()) {
        const auto picked = selectColumns(table, kept, &unknown);
        if (!picked)
            throw std::invalid_argument("channels: no channel or marker named '" + unknown +
                                        "' in '" + table.source + "'");
        from = *picked;
    } else {
        for (int c = 0; c < table.cols(); ++c)
            from.push_back(c);
    }
    std::vector<std::string> out;
    for (int c : from)
        if (std::find(dropped->begin(), dropped->end(), c) == dropped->end())
            out.push_back(table.columns[std::size_t(c)]);
    return out;
}

// An FCS file's keywords, channels and events. The data are read too, so that a truncated
// file is reported here rather than at run time.
DataReport inspectFcs(const std::string& path)
{
    const FcsFile f = readFcs(path, true);
    const bool mass = isMassCytometry(f);
    std::vector<double> bits(f.bits.begin(), f.bits.end());
    return {{
        {"format", "format", std::string(f.gzip ? "FCS, gzip" : "FCS"), {}, {}},
        {"version", "version", f.version, {}, {}},
        {"rows", "rows", std::int64_t(f.events), "events", {}},
        {"cols", "cols", std::int64_t(f.parameters), "parameters", {}},
        {"datatype", "$DATATYPE", std::string(1, f.dataType), {}, {}},
        {"byte_order",
         "byte order",
         std::string(f.bigEndian ? "big-endian" : "little-endian"),
         {},
         {}},
        {"byteord", "$BYTEORD", f.byteOrder, {}, {}},
        {"mass_cytometry",
         "mass cytometry",
         mass,
         mass ? "(a run applies asinh(x / 5) unless the arcsinh setting says otherwise)"
              : "(flow: a run applies asinh(x / 150) unless the arcsinh setting says otherwise)",
         {}},
        {"names", "name ($PnN)", f.names, {}, "parameters"},
        {"markers", "marker ($PnS)", f.markers, {}, "parameters"},
        {"bits", "bits ($PnB)", bits, {}, "parameters"},
        {"notes", "note", f.notes, {}, "notes"},
    }};
}

// A delimited file's shape, delimiter and column names, read as read() would (transposed when
// the setting says so).
DataReport inspectDelimited(const std::string& path, const DataDescription& d)
{
    TableReadOptions ro;
    ro.transpose = getBool(d.settings, "transpose");
    const TableFileInfo t = inspectTableFile(path, ro);
    const std::string delimiter = t.delimiter == '\t'  ? "tab"
                                  : t.delimiter == ',' ? "comma"
                                  : t.delimiter == ';' ? "semicolon"
                                                       : std::string(1, t.delimiter);
    return {{
        {"format",
         "format",
         std::string(t.gzip ? "delimited text, gzip" : "delimited text"),
         {},
         {}},
        {"rows", "rows", t.rows, {}, {}},
        {"cols", "cols", std::int64_t(t.cols), {}, {}},
        {"delimiter", "delimiter", delimiter, {}, {}},
        {"row_names", "row names", t.hasRowNames, t.hasRowNames ? "(in column 1)" : "", {}},
        {"gzip", "gzip", t.gzip, {}, {}},
        {"names", "names", t.columns, {}, {}},
    }};
}

// Several files (a folder of them) as read() stacks them: the shape, the columns and the rows
// each file gave.
DataReport inspectStacked(const DataDescription& d)
{
    TableReadOptions ro;
    ro.transpose = getBool(d.settings, "transpose");
    const Table t = loadTable(d.files, ro);
    std::vector<std::string> files;
    std::vector<double> rows;
    for (const auto& [source, n] : t.stacked) {
        files.push_back(fileNameOf(source));
        rows.push_back(double(n));
    }
    const bool fcs = std::all_of(d.files.begin(), d.files.end(), [](const std::string& p) {
        return dataFileKind(p) == DataFileKind::Fcs;
    });
    return {{
        {"format",
         "format",
         std::to_string(d.files.size()) + (fcs ? " FCS files" : " files") + ", rows stacked",
         {},
         {}},
        {"rows", "rows", t.rows(), {}, {}},
        {"cols", "cols", std::int64_t(t.cols()), {}, {}},
        {"names", "names", t.columns, {}, {}},
        {"files", "file", files, {}, "rows from each file"},
        {"file_rows", "rows", rows, {}, "rows from each file"},
    }};
}

} // namespace

namespace {

// The table's channels the data leave out (unticked by default, such as scatter and time when
// the others name markers, or by the channels setting), so that a run says what it did not
// model: " · left out: FSC-A, SSC-A, Time".
std::string leftOutText(const Table& table, const DenseData& data)
{
    if (data.columnNames.empty())
        return {};
    std::string out;
    for (int c = 0; c < table.cols(); ++c) {
        // The data name a channel by its marker when it has one (makeTableData).
        const std::string& column = table.columns[std::size_t(c)];
        const std::string marker =
            c < int(table.markers.size()) ? table.markers[std::size_t(c)] : std::string();
        const std::string& name = marker.empty() ? column : marker;
        if (std::find(data.columnNames.begin(), data.columnNames.end(), name) ==
            data.columnNames.end())
            out += (out.empty() ? "" : ", ") + column;
    }
    return out.empty() ? out : " · left out: " + out;
}

// With `part`, the table holds one rank's rows (collective: the counts are summed over the
// ranks).
BuiltData buildTableData(const Table& table, const TableOptions& o, const TablePart* part)
{
    BuiltData out;
    const DenseDataPtr data = makeTableData(table, o, part);
    out.data = data;
    double heldOut = double((data->roles.array() == std::uint8_t(EntryRole::HeldOut)).count());
    if (part)
        part->ranks->sum({&heldOut, 1});
    out.summary =
        groupedNumber(data->rows()) + " rows × " + std::to_string(data->cols()) + " channels · " +
        groupedNumber(std::int64_t(heldOut)) + " held-out entries" +
        (o.arcsinhCofactor > 0 ? " · arcsinh(x/" + formatNumber(o.arcsinhCofactor) + ")"
                               : std::string()) +
        (data->trainingRows.empty()
             ? std::string()
             : " · " + groupedNumber(data->trainingRowCount()) + " training rows") +
        (part ? " · read in " + std::to_string(part->ranks->size()) + " parts" : std::string()) +
        leftOutText(table, *data) + stackedNote(table);
    out.facts = {{"rows", double(data->rows())},
                 {"channels", double(data->cols())},
                 {"training_rows", double(data->trainingRowCount())},
                 {"heldout_entries", heldOut}};
    return out;
}

} // namespace

// Shared with the synthetic kind, which makes its table in memory.
BuiltData buildTable(const Table& table, const TableOptions& o)
{
    return buildTableData(table, o, nullptr);
}

DataKindSpec table()
{
    DataKindSpec k;
    k.key = "table";
    k.label = "Table";
    k.task = "held-out entries (or rows) of a rows × channels table are predicted and scored";
    k.formats = "FCS 2.0–3.1 (any name), CSV / TSV / whitespace text, optionally gzip'd; several "
                "files (or a folder of them) stacked when their columns agree";
    k.settings = TableOptions::allParams();
    k.settings.insert(
        k.settings.begin() + 1,
        namesParam("exclude", "Exclude", "channels left out (of `channels`, or of every one)"));
    k.settings.push_back(boolParam("transpose", "Transpose",
                                   "rows ↔ columns (genes as data points): delimited text only",
                                   false));
    k.settings.push_back(
        intParam("tile", "Tile rows",
                 "repeat the rows cyclically up to this many (benchmarks at full size); 0 = off", 0,
                 0, 1e12));
    k.readSettings = {"transpose", "tile"};
    k.severalFiles = true;
    k.defaultModel = "bpfa";
    k.views = {DataView::Loadings};
    k.recognise = [](const FileProbe& f) { return f.content == "fcs" || f.content == "delimited"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        TableReadOptions ro;
        ro.transpose = getBool(d.settings, "transpose");
        Table t = loadTable(d.files, ro);
        if (const std::int64_t tile = getInt(d.settings, "tile"); tile > 0)
            t = tiledRows(t, tile);
        return std::make_shared<RawTable>(std::move(t),
                                          dataFileKind(d.files.front()) == DataFileKind::Fcs);
    };
    // FCS files and one plain delimited file split by rows: each rank reads its rows only.
    // Transposed or gzip'd text, and tiled rows, are read whole.
    k.readPart = [](const DataDescription& d,
                    Communicator& ranks) -> std::shared_ptr<const RawData> {
        TableReadOptions ro;
        ro.transpose = getBool(d.settings, "transpose");
        if (getInt(d.settings, "tile") > 0)
            return nullptr;
        std::optional<TableRead> read = readTablePart(d.files, ro, ranks);
        if (!read)
            return nullptr;
        return std::make_shared<RawTable>(std::move(*read),
                                          dataFileKind(d.files.front()) == DataFileKind::Fcs);
    };
    k.inspect = [](const DataDescription& d) {
        if (d.files.size() > 1)
            return inspectStacked(d);
        const std::string& path = d.files.front();
        return dataFileKind(path) == DataFileKind::Fcs ? inspectFcs(path)
                                                       : inspectDelimited(path, d);
    };
    k.build = [](const RawData& raw, const DataDescription& d) {
        const auto& rt = static_cast<const RawTable&>(raw);
        const Table& t = rt.table();
        TableOptions o = TableOptions::fromParams(d.settings);
        const std::vector<std::string> exclude = splitNames(getChoice(d.settings, "exclude"));
        if (!exclude.empty())
            o.channels = withoutExcluded(t, o.channels, exclude);
        return buildTableData(t, o, rt.part());
    };
    return k;
}

} // namespace svi::kinds
