#include "core/io/data_files.h"

#include "core/io/data_error.h"
#include "core/io/fcs_file.h"

#include <algorithm>

namespace svi {

DataFileKind dataFileKind(const std::string& path)
{
    return recogniseFile(path).kind;
}

Table loadTable(const std::vector<std::string>& paths, const TableReadOptions& options)
{
    if (paths.empty())
        throw DataError("no data file given");
    std::vector<FileFormat> formats;
    formats.reserve(paths.size());
    for (const std::string& p : paths)
        formats.push_back(recogniseFile(p));
    const auto notFcs = std::find_if(formats.begin(), formats.end(), [](const FileFormat& f) {
        return f.kind != DataFileKind::Fcs;
    });
    if (notFcs == formats.end()) {
        const Table t = readFcsFiles(paths);
        return options.transpose ? transposed(t) : t;
    }
    if (paths.size() > 1) {
        // FCS files and tables of numbers (a folder of them): their rows stacked when their
        // columns agree.
        std::vector<Table> tables;
        for (std::size_t i = 0; i < paths.size(); ++i) {
            const FileFormat& f = formats[i];
            if (f.kind == DataFileKind::Fcs)
                tables.push_back(std::move(readFcs(paths[i]).table));
            else if (f.kind == DataFileKind::Delimited && f.graph == GraphLayout::None)
                tables.push_back(readTableFile(paths[i], TableReadOptions{}));
            else
                throw DataError("several files can be read together only when all are FCS "
                                "files or tables of numbers ('" +
                                paths[i] + "' is " + f.name + ")");
        }
        Table t;
        try {
            t = combineTables(tables);
        } catch (const std::invalid_argument& e) {
            // combineTables names both files ("'b.csv' has no channel 'X' (which 'a.csv' has)").
            throw DataError(std::string("cannot stack the tables' rows: ") + e.what());
        }
        return options.transpose ? transposed(t) : t;
    }
    const std::string& path = paths.front();
    const FileFormat& format = formats.front();
    const std::string cannot = "cannot read '" + path + "' as a table: ";
    switch (format.kind) {
    case DataFileKind::Delimited:
        return readTableFile(path, options);
    case DataFileKind::Corpus:
        throw DataError(cannot + "it is a text corpus (documents × words), recognised as " +
                        format.name);
    case DataFileKind::Ratings:
        throw DataError(cannot + "it is a ratings file (users × items), recognised as " +
                        format.name);
    case DataFileKind::Image:
        throw DataError(cannot + "it is an image (" + format.name + ")");
    case DataFileKind::Libsvm:
        throw DataError(cannot + "it is labelled examples (features and a label), recognised as " +
                        format.name);
    case DataFileKind::Gml:
        throw DataError(cannot + "it is a graph, recognised as " + format.name);
    case DataFileKind::Fcs:
    case DataFileKind::Unknown:
        break;
    }
    throw DataError(cannot + "its content (" + format.name +
                    ") is neither an FCS file nor text in columns separated by commas, tabs or "
                    "semicolons (optionally gzip'd)");
}

Table tiledRows(const Table& table, std::int64_t rows)
{
    if (rows < 1 || table.rows() < 1)
        throw std::invalid_argument("tiledRows: rows = " + std::to_string(rows) +
                                    ", but must be ≥ 1 and the table non-empty");
    Table out = table;
    out.values.resize(rows, table.cols());
    out.rowNames.clear();
    for (std::int64_t r = 0; r < rows; r += table.rows()) {
        const std::int64_t n = std::min(table.rows(), rows - r);
        out.values.middleRows(r, n) = table.values.topRows(n);
    }
    if (rows != table.rows())
        out.source = table.source + " (rows tiled to " + std::to_string(rows) + ")";
    return out;
}

} // namespace svi
