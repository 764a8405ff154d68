// 'svi list' and 'svi info': the registry's models and what a data file holds.

#include "app/cli_parts.h"
#include "core/data/corpus.h"
#include "core/data/ratings.h"
#include "core/io/corpus_files.h"
#include "core/io/data_files.h"
#include "core/io/fcs_file.h"
#include "core/io/image_file.h"
#include "core/io/ratings_files.h"
#include "core/io/table_file.h"
#include "core/run/docs_tables.h"

#include <set>

namespace svi::cli::detail {

std::string typeName(ParamType t)
{
    switch (t) {
    case ParamType::Int:
        return "int";
    case ParamType::Real:
        return "real";
    case ParamType::Choice:
        return "choice";
    case ParamType::Bool:
        return "bool";
    case ParamType::Text:
        return "text";
    case ParamType::Names:
        return "names";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// svi list

int cmdList(const std::vector<std::string>& args)
{
    bool json = false;
    for (const auto& a : args) {
        if (a == "--json")
            json = true;
        else if (a == "--markdown") {
            std::fputs(markdownTables(Registry::builtin()).c_str(), stdout);
            return 0;
        } else
            throw UsageError("list: unknown option '" + a + "'");
    }
    const Registry& r = Registry::builtin();
    if (json) {
        QJsonArray entries;
        for (const AlgorithmEntry& e : r.entries()) {
            QJsonArray params;
            for (const ParamSpec& p : e.params) {
                QJsonObject o{{"key", QString::fromStdString(p.key)},
                              {"label", QString::fromStdString(p.label)},
                              {"help", QString::fromStdString(p.help)},
                              {"type", QString::fromStdString(typeName(p.type))},
                              {"default", QString::fromStdString(defaultText(p))}};
                if (p.type == ParamType::Choice) {
                    QJsonArray choices;
                    for (const auto& c : p.choices)
                        choices.append(QString::fromStdString(c));
                    o["choices"] = choices;
                } else if (p.type != ParamType::Bool) {
                    o["min"] = jsonNumber(p.minValue);
                    o["max"] = p.maxValue >= 1e300 ? QJsonValue() : jsonNumber(p.maxValue);
                }
                params.append(o);
            }
            entries.append(QJsonObject{{"model", QString::fromStdString(e.model)},
                                       {"model_label", QString::fromStdString(e.modelLabel)},
                                       {"algorithm", QString::fromStdString(e.algorithm)},
                                       {"label", QString::fromStdString(e.label)},
                                       {"help", QString::fromStdString(e.help)},
                                       {"params", params}});
        }
        std::fputs(QJsonDocument(entries).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::string lastModel;
    for (const AlgorithmEntry& e : r.entries()) {
        if (e.model != lastModel) {
            std::printf("model %s — %s\n\n", e.model.c_str(), e.modelLabel.c_str());
            lastModel = e.model;
        }
        std::printf("  --algorithm %-14s %s: %s\n", e.algorithm.c_str(), e.label.c_str(),
                    e.help.c_str());
        for (const ParamSpec& p : e.params)
            std::printf("      %-13s %-6s default %-8s range %-14s %s\n", p.key.c_str(),
                        typeName(p.type).c_str(), defaultText(p).c_str(), rangeText(p).c_str(),
                        p.help.c_str());
        std::printf("\n");
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi info

QJsonArray jsonStrings(const std::vector<std::string>& v)
{
    QJsonArray a;
    for (const auto& s : v)
        a.append(QString::fromStdString(s));
    return a;
}

int infoFcs(const std::string& path, bool json)
{
    const FcsFile f = readFcs(path, true); // the data too, so that a truncated file is reported
    const std::string type(1, f.dataType);
    if (json) {
        QJsonArray bits;
        for (int b : f.bits)
            bits.append(b);
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "fcs"},
                            {"format", QString::fromStdString(f.version)},
                            {"version", QString::fromStdString(f.version)},
                            {"rows", qint64(f.events)},
                            {"cols", f.parameters},
                            {"datatype", QString::fromStdString(type)},
                            {"byte_order", f.bigEndian ? "big-endian" : "little-endian"},
                            {"byteord", QString::fromStdString(f.byteOrder)},
                            {"bits", bits},
                            {"mass_cytometry", isMassCytometry(f)},
                            {"names", jsonStrings(f.names)},
                            {"markers", jsonStrings(f.markers)},
                            {"notes", jsonStrings(f.notes)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     fcs (%s, $DATATYPE %s, %s-endian $BYTEORD %s)\n  rows     %lld events\n"
        "  cols     %d parameters\n",
        path.c_str(), f.version.c_str(), type.c_str(), f.bigEndian ? "big" : "little",
        f.byteOrder.c_str(), (long long)f.events, f.parameters);
    if (isMassCytometry(f))
        std::printf(
            "  mass cytometry: svi run applies asinh(x / 5) unless --arcsinh says otherwise\n");
    for (int p = 0; p < f.parameters; ++p)
        std::printf("  P%-3d %-20s %-24s %d-bit\n", p + 1, f.names[std::size_t(p)].c_str(),
                    f.markers[std::size_t(p)].c_str(), f.bits[std::size_t(p)]);
    for (const auto& n : f.notes)
        std::printf("  note: %s\n", n.c_str());
    return 0;
}

int infoTable(const std::string& path, bool json)
{
    const TableFileInfo t = inspectTableFile(path);
    const std::string delim = t.delimiter == '\t'  ? "tab"
                              : t.delimiter == ',' ? "comma"
                              : t.delimiter == ';' ? "semicolon"
                                                   : std::string(1, t.delimiter);
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "table"},
                            {"format", t.gzip ? "delimited text, gzip" : "delimited text"},
                            {"rows", qint64(t.rows)},
                            {"cols", t.cols},
                            {"delimiter", QString::fromStdString(delim)},
                            {"row_names", t.hasRowNames},
                            {"gzip", t.gzip},
                            {"names", jsonStrings(t.columns)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     table (delimiter %s%s%s)\n  rows     %lld\n  cols     %d\n  names   ",
        path.c_str(), delim.c_str(), t.hasRowNames ? ", row names in column 1" : "",
        t.gzip ? ", gzip" : "", (long long)t.rows, t.cols);
    for (std::size_t i = 0; i < t.columns.size() && i < 50; ++i)
        std::printf(" %s", t.columns[i].c_str());
    std::printf("%s\n", t.columns.size() > 50 ? " …" : "");
    return 0;
}

int infoCorpus(const std::string& path, bool json)
{
    const Corpus corpus = loadCorpus({path});
    const CorpusStats s = corpus.stats();
    const auto format = corpusFormatOf(path);
    const char* formatName = !format                                ? "text"
                             : *format == CorpusFormat::Ldac        ? "LDA-C"
                             : *format == CorpusFormat::Uci         ? "UCI bag-of-words"
                             : *format == CorpusFormat::TextArchive ? "text files in a tar archive"
                             : *format == CorpusFormat::TextFolder  ? "text files in a folder"
                                                                    : "text files";
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "corpus"},
                            {"format", formatName},
                            {"rows", qint64(s.documents)},
                            {"cols", qint64(s.vocabulary)},
                            {"documents", qint64(s.documents)},
                            {"vocabulary", qint64(s.vocabulary)},
                            {"tokens", qint64(s.tokens)},
                            {"empty_documents", qint64(s.emptyDocuments)},
                            {"dropped_documents", qint64(s.droppedDocuments)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("%s\n  kind        corpus (%s)\n  documents   %lld\n  vocabulary  %lld words\n"
                "  tokens      %lld\n",
                path.c_str(), formatName, (long long)s.documents, (long long)s.vocabulary,
                (long long)s.tokens);
    if (s.emptyDocuments > 0)
        std::printf("  empty       %lld documents without any word\n", (long long)s.emptyDocuments);
    if (s.droppedDocuments > 0)
        std::printf("  dropped     %lld documents left without any word by the filters\n",
                    (long long)s.droppedDocuments);
    std::printf("  words      ");
    for (std::size_t i = 0; i < corpus.vocabulary.size() && i < 20; ++i)
        std::printf(" %s", corpus.vocabulary[i].c_str());
    std::printf("%s\n", corpus.vocabulary.size() > 20 ? " …" : "");
    return 0;
}

int infoRatings(const std::string& path, bool json)
{
    const Ratings r = loadRatings(path);
    std::set<float> scale;
    for (const Rating& e : r.entries)
        scale.insert(e.value);
    std::int64_t titled = 0;
    for (std::size_t i = 0; i < r.itemTitles.size(); ++i)
        titled += r.itemTitles[i].empty() ? 0 : 1;
    QJsonArray values;
    for (float v : scale)
        values.append(double(v));
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)}, {"kind", "ratings"},
                            {"users", qint64(r.users())},           {"items", qint64(r.items())},
                            {"ratings", qint64(r.entries.size())},  {"values", values},
                            {"titled_items", qint64(titled)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     ratings (users × items)\n  users    %lld\n  items    %lld\n  ratings  %lld "
        "(%.2f %% of the matrix)\n  values  ",
        path.c_str(), (long long)r.users(), (long long)r.items(), (long long)r.entries.size(),
        100.0 * double(r.entries.size()) / std::max(1.0, double(r.users()) * double(r.items())));
    for (float v : scale)
        std::printf(" %g", double(v));
    std::printf("\n  titles   %lld of %lld items\n", (long long)titled, (long long)r.items());
    return 0;
}

int cmdInfo(const std::vector<std::string>& args)
{
    std::optional<std::string> file;
    bool json = false;
    int patch = 8;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json")
            json = true;
        else if (a == "--patch" && i + 1 < args.size())
            patch = int(parseInteger("--patch", args[++i]));
        else if (!a.empty() && a[0] == '-')
            throw UsageError("info: unknown option '" + a + "'");
        else if (!file)
            file = a;
        else
            throw UsageError("info: one file at a time ('" + a + "' is extra)");
    }
    if (!file)
        throw UsageError("info: which file? (svi info FILE [--json])");
    if (patch < 2)
        throw UsageError("--patch = " + std::to_string(patch) + ", but must be ≥ 2");
    const FileFormat format = recogniseFile(*file);
    switch (format.kind) {
    case DataFileKind::Fcs:
        return infoFcs(*file, json);
    case DataFileKind::Delimited:
        return infoTable(*file, json);
    case DataFileKind::Corpus:
        return infoCorpus(*file, json);
    case DataFileKind::Ratings:
        return infoRatings(*file, json);
    case DataFileKind::Unknown:
        throw DataError("cannot read '" + *file + "': its content (" + format.name +
                        ") is none that svi reads (FCS, delimited tables, images, text corpora, "
                        "MovieLens ratings)");
    case DataFileKind::Image:
        break;
    }
    const DataInfo info = inspectFile(*file, patch);
    if (json) {
        QJsonArray names;
        for (const auto& n : info.names)
            names.append(QString::fromStdString(n));
        QJsonObject o{{"path", QString::fromStdString(info.path)},
                      {"kind", QString::fromStdString(info.kind)},
                      {"format", QString::fromStdString(info.format)},
                      {"rows", qint64(info.rows)},
                      {"cols", qint64(info.cols)},
                      {"names", names}};
        if (info.kind == "image") {
            o["width"] = info.width;
            o["height"] = info.height;
            o["patch"] = info.patch;
            o["patches"] = qint64(info.patches);
            o["grayscale"] = info.grayscale;
            o["depth"] = info.depth;
        }
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("%s\n  kind     %s\n  format   %s\n", info.path.c_str(), info.kind.c_str(),
                info.format.c_str());
    if (info.kind == "image") {
        std::printf("  size     %d × %d pixels (%s, %d-bit)\n", info.width, info.height,
                    info.grayscale ? "grey" : "colour, read as grey", info.depth);
        std::printf("  patches  %lld of %d×%d → rows %lld, cols %lld\n", (long long)info.patches,
                    info.patch, info.patch, (long long)info.rows, (long long)info.cols);
    } else {
        std::printf("  rows     %lld\n  cols     %lld\n", (long long)info.rows,
                    (long long)info.cols);
    }
    if (!info.names.empty()) {
        std::printf("  names   ");
        for (const auto& n : info.names)
            std::printf(" %s", n.c_str());
        std::printf("\n");
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi run

} // namespace svi::cli::detail
