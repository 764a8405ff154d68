#include "core/io/run_folder.h"

#include "core/io/data_error.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/io/run_resume.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace svi {

namespace {

// The JSON object in `path`; empty when the file is absent. Throws DataError when it is there
// but cannot be read or is not a JSON object.
QJsonObject readObject(const QString& path)
{
    QFile f(path);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        failFile(path.toStdString(), f.errorString().toStdString());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError)
        failFile(path.toStdString(), "not JSON (" + err.errorString().toStdString() + ")");
    if (!doc.isObject())
        failFile(path.toStdString(), "not a JSON object");
    return doc.object();
}

// Names with runs of digits compared as numbers ("-r2" before "-r10"), whatever the locale
// (QCollator's numeric mode does nothing in the C locale).
bool naturalLess(const QString& a, const QString& b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit())
                ++ei;
            while (ej < b.size() && b[ej].isDigit())
                ++ej;
            // Without leading zeros the longer number is the larger one.
            const QStringView na = QStringView(a).mid(i, ei - i),
                              nb = QStringView(b).mid(j, ej - j);
            qsizetype za = 0, zb = 0;
            while (za + 1 < na.size() && na[za] == '0')
                ++za;
            while (zb + 1 < nb.size() && nb[zb] == '0')
                ++zb;
            const QStringView ta = na.mid(za), tb = nb.mid(zb);
            if (ta.size() != tb.size())
                return ta.size() < tb.size();
            if (const int c = ta.compare(tb); c != 0)
                return c < 0;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

} // namespace

bool isRunFolder(const QString& dir)
{
    return QFileInfo(QDir(dir).filePath(kTraceFile)).isFile();
}

RunFolder readRunFolder(const QString& dir)
{
    const QFileInfo info(dir);
    if (!info.exists())
        throw DataError("'" + dir.toStdString() + "': no such folder");
    if (!info.isDir())
        throw DataError("'" + dir.toStdString() + "' is not a folder");
    RunFolder r;
    r.path = dir;
    const QString tracePath = QDir(dir).filePath(kTraceFile);
    QFile trace(tracePath);
    if (!trace.exists())
        throw DataError("'" + dir.toStdString() + "' holds no " + kTraceFile +
                        ": it is not the folder of a run (one holds the run.json, " + kTraceFile +
                        " and summary.json a run writes)");
    if (!trace.open(QIODevice::ReadOnly))
        failFile(tracePath.toStdString(), trace.errorString().toStdString());
    r.trace = parseTraceCsv(trace.readAll(), tracePath.toStdString());

    QJsonObject about = readObject(QDir(dir).filePath(kSummaryFile));
    if (about.isEmpty()) { // killed before its summary: run.json is written first
        const QJsonObject run = readObject(QDir(dir).filePath(kRunJsonFile));
        if (!run.isEmpty())
            about = upgradeRunJson(run);
    } else {
        r.termination = about.value("termination").toString().toStdString();
        r.message = about.value("message").toString().toStdString();
    }
    r.model = about.value("model").toString().toStdString();
    r.algorithm = about.value("algorithm").toString().toStdString();
    if (const auto seed = jsonInteger(about.value("seed"), 0, std::numeric_limits<qint64>::max())) {
        r.seed = std::uint64_t(*seed);
        r.hasSeed = true;
    }
    if (const AlgorithmEntry* e = builtinRegistry().find(r.model, r.algorithm))
        r.label = e->label;
    else if (about.value("label").isString())
        r.label = about.value("label").toString().toStdString();
    else
        r.label = r.algorithm.empty() ? info.fileName().toStdString() : r.algorithm;
    return r;
}

std::vector<RunFolder> readCompareFolder(const QString& dir)
{
    QStringList names = QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(names.begin(), names.end(), naturalLess);
    std::vector<RunFolder> runs;
    for (const QString& name : names)
        if (isRunFolder(QDir(dir).filePath(name)))
            runs.push_back(readRunFolder(QDir(dir).filePath(name)));

    // results.json's rows give Compare's order (the comparison group's, or the one asked for).
    std::map<std::pair<std::string, std::string>, int> rowOf;
    const QJsonArray rows = readObject(QDir(dir).filePath("results.json")).value("rows").toArray();
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonObject row = rows[i].toObject();
        rowOf.emplace(std::pair(row.value("model").toString().toStdString(),
                                row.value("algorithm").toString().toStdString()),
                      i);
    }
    const auto rank = [&](const RunFolder& r) {
        const auto it = rowOf.find({r.model, r.algorithm});
        return it == rowOf.end() ? int(rowOf.size()) : it->second;
    };
    std::stable_sort(runs.begin(), runs.end(), [&](const RunFolder& a, const RunFolder& b) {
        const int ra = rank(a), rb = rank(b);
        if (ra != rb)
            return ra < rb;
        if (ra < int(rowOf.size()))
            return a.seed < b.seed; // one row: its repeats by seed
        return false;               // the rest stay in name order
    });
    // Repeats by seed within each (model, algorithm).
    std::map<std::pair<std::string, std::string>, std::vector<RunFolder*>> groups;
    for (RunFolder& r : runs)
        groups[{r.model, r.algorithm}].push_back(&r);
    for (auto& [key, group] : groups) {
        std::vector<RunFolder*> bySeed = group;
        std::stable_sort(bySeed.begin(), bySeed.end(),
                         [](const RunFolder* a, const RunFolder* b) { return a->seed < b->seed; });
        for (std::size_t i = 0; i < bySeed.size(); ++i) {
            bySeed[i]->repeat = int(i) + 1;
            bySeed[i]->repeats = int(bySeed.size());
        }
    }
    return runs;
}

} // namespace svi
