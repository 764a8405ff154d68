#include "core/io/data_files.h"

#include "core/io/corpus_files.h"
#include "core/io/data_error.h"
#include "core/io/fcs_file.h"
#include "core/io/ratings_files.h"

#include <QFileInfo>
#include <QString>

namespace svi {

DataFileKind dataFileKind(const std::string& path)
{
    QString name = QFileInfo(QString::fromStdString(path)).fileName().toLower();
    if (name.endsWith(".gz"))
        name.chop(3);
    const bool fcs = name.endsWith(".fcs") || name.endsWith(".lmd");
    const bool table = name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt");
    if (!fcs) {
        const std::optional<RatingsFormat> ratings = ratingsFormatOf(path);
        if (ratings && (!table || *ratings == RatingsFormat::Csv))
            return DataFileKind::Ratings;
    }
    if (corpusFormatOf(path))
        return DataFileKind::Corpus;
    if (fcs)
        return DataFileKind::Fcs;
    if (table)
        return DataFileKind::Delimited;
    return DataFileKind::Image;
}

Table loadTable(const std::vector<std::string>& paths, const TableReadOptions& options)
{
    if (paths.empty())
        throw DataError("no data file given");
    bool allFcs = true;
    for (const std::string& p : paths)
        allFcs = allFcs && dataFileKind(p) == DataFileKind::Fcs;
    if (allFcs) {
        const Table t = readFcsFiles(paths);
        return options.transpose ? transposed(t) : t;
    }
    if (paths.size() > 1)
        throw DataError("several files can be read together only when all are FCS files ('" +
                        paths[1] + "' is not)");
    if (dataFileKind(paths.front()) == DataFileKind::Corpus)
        throw DataError("cannot read '" + paths.front() +
                        "' as a table: it is a text corpus (documents × words)");
    if (dataFileKind(paths.front()) == DataFileKind::Ratings)
        throw DataError("cannot read '" + paths.front() +
                        "' as a table: it is a ratings file (users × items)");
    if (dataFileKind(paths.front()) != DataFileKind::Delimited)
        throw DataError("cannot read '" + paths.front() +
                        "' as a table: expected .fcs, .csv, .tsv or .txt (optionally .gz)");
    return readTableFile(paths.front(), options);
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
