#include "ui/session.h"

#include "core/io/data_error.h"
#include "core/io/run_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace svi::ui {

namespace {

constexpr const char* kFormat = "svi-workbench-session";
constexpr int kVersion = 3;

[[noreturn]] void fail(const QString& file, const QString& field, const QString& why)
{
    throw DataError(
        QString("%1: %2: %3").arg(QFileInfo(file).fileName(), field, why).toStdString());
}

QJsonObject resultJson(const SessionRun& r)
{
    QJsonObject metrics;
    for (const auto& [k, v] : r.metrics)
        metrics[QString::fromStdString(k)] = std::isfinite(v) ? QJsonValue(v) : QJsonValue();
    return {{"termination", r.reason}, {"steps", qint64(r.steps)}, {"metrics", metrics}};
}

void readResult(const QJsonObject& o, SessionRun& r)
{
    if (!o.value("result").isObject())
        return;
    const QJsonObject res = o.value("result").toObject();
    r.reason = res.value("termination").toString();
    r.steps = res.value("steps").toInteger();
    const QJsonObject m = res.value("metrics").toObject();
    for (auto it = m.begin(); it != m.end(); ++it)
        r.metrics[it.key().toStdString()] =
            it.value().isDouble() ? it.value().toDouble() : std::nan("");
}

// A data object with its relative files made relative to `folder` (none when empty).
QJsonObject withFolder(QJsonObject data, const QString& folder)
{
    if (folder.isEmpty() || !data.value("files").isArray())
        return data;
    QJsonArray files;
    for (const auto& v : data.value("files").toArray()) {
        const QString p = v.toString();
        files.append(v.isString() && !p.startsWith(":/") && QFileInfo(p).isRelative()
                         ? QJsonValue(QDir(folder).absoluteFilePath(p))
                         : v);
    }
    data["files"] = files;
    return data;
}

Session readSession(const QJsonObject& json, const QString& file, const QString& folder)
{
    const QString format = json.value("format").toString();
    if (format != kFormat)
        fail(file, "format",
             QString("'%1', but a session's format is '%2'").arg(format, QString(kFormat)));
    const int version = json.value("version").toInt();
    if (version < 1 || version > kVersion || json.value("version").toDouble() != version)
        fail(file, "version",
             QString("%1, but this version of the workbench reads sessions of version 1 to %2")
                 .arg(json.value("version").toVariant().toString())
                 .arg(kVersion));
    if (!json.value("runs").isArray())
        fail(file, "runs", "missing or not a list");
    const std::string name = QFileInfo(file).fileName().toStdString();
    if (version != 1 && !json.value("data").isObject())
        fail(file, "data", "missing or not an object");
    Session s;
    // Version 1: the window's data and task, and each run's own (or the window's).
    const QJsonValue data1 = json.value("data"), task1 = json.value("task");
    const QJsonObject data =
        version == 1
            ? upgradeRunJson(QJsonObject{{"version", 1}}, data1, task1).value("data").toObject()
            : json.value("data").toObject();
    s.data = dataFromJson(withFolder(data, folder), name);
    const QJsonArray runs = json.value("runs").toArray();
    for (qsizetype i = 0; i < runs.size(); ++i) {
        const QString where = QString("runs[%1]").arg(i);
        if (!runs[i].isObject())
            fail(file, where, "not an object");
        QJsonObject o = runs[i].toObject();
        if (version == 1) {
            o = upgradeRunJson(o, data1, task1);
            o.remove("result");
        }
        o["data"] = withFolder(o.value("data").toObject(), folder);
        SessionRun r;
        const QJsonValue runFolder = o.value("folder");
        o.remove("folder"); // not a field of a run description
        r.run = runFromJson(o, name, (where + ".").toStdString());
        readResult(runs[i].toObject(), r);
        if (!runFolder.isUndefined()) {
            if (!runFolder.isString() || runFolder.toString().isEmpty())
                fail(file, where + ".folder", "must be the path of the run's folder");
            r.folder = runFolder.toString();
            if (!folder.isEmpty() && QFileInfo(r.folder).isRelative())
                r.folder = QDir::cleanPath(QDir(folder).absoluteFilePath(r.folder));
        }
        s.runs.push_back(std::move(r));
    }
    return s;
}

} // namespace

QJsonObject sessionToJson(const Session& session)
{
    QJsonArray runs;
    for (const SessionRun& r : session.runs) {
        QJsonObject o = runToJson(r.run);
        if (!r.reason.isEmpty())
            o["result"] = resultJson(r);
        if (!r.folder.isEmpty())
            o["folder"] = r.folder;
        runs.append(o);
    }
    return {{"format", kFormat},
            {"version", kVersion},
            {"data", dataToJson(session.data)},
            {"runs", runs}};
}

Session sessionFromJson(const QJsonObject& json, const QString& file)
{
    return readSession(json, file, {});
}

Session readSessionFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw DataError(QString("cannot read '%1': %2").arg(path, f.errorString()).toStdString());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw DataError(
            QString("%1: not valid JSON at byte %2: %3")
                .arg(QFileInfo(path).fileName())
                .arg(err.offset)
                .arg(err.error != QJsonParseError::NoError ? err.errorString() : "not an object")
                .toStdString());
    return readSession(doc.object(), path, QFileInfo(path).absolutePath());
}

QString sessionRunsFolder(const QString& path)
{
    const QFileInfo info(path);
    return info.dir().filePath(info.completeBaseName() + ".runs");
}

} // namespace svi::ui
