#include "core/io/run_resume.h"

#include "core/io/checkpoint_file.h"
#include "core/io/data_error.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <cmath>

namespace svi {

QJsonObject runSummaryJson(const RunDescription& run, const std::string& label,
                           const Summary& summary)
{
    QJsonObject metrics;
    double elbo = std::nan("");
    if (summary.last) {
        for (const auto& [k, v] : summary.last->metrics)
            metrics[QString::fromStdString(k)] = jsonNumber(v);
        elbo = summary.last->elbo;
    }
    // The kind and its settings in one object, as a reader of summary.json looks for them.
    QJsonObject task = paramsToJson(run.data.settings);
    task["kind"] = QString::fromStdString(run.data.kind);
    return {
        {"model", QString::fromStdString(run.model)},
        {"algorithm", QString::fromStdString(run.algorithm)},
        {"label", QString::fromStdString(label)},
        {"data", dataToJson(run.data)},
        {"task", task},
        {"seed", qint64(run.seed)},
        {"steps", qint64(summary.steps)},
        {"epochs", jsonNumber(summary.epochs)},
        {"train_seconds", jsonNumber(summary.trainSeconds)},
        {"seconds_per_step",
         jsonNumber(summary.steps > 0 ? summary.trainSeconds / double(summary.steps)
                                      : std::nan(""))},
        {"termination", terminationName(summary.reason)},
        {"message", QString::fromStdString(summary.message)},
        {"elbo", jsonNumber(elbo)},
        {"metrics", metrics},
    };
}

namespace {

void removeStale(const QString& path)
{
    if (QFileInfo::exists(path) && !QFile::remove(path))
        failFile(path.toStdString(), "cannot remove the previous run's file");
}

} // namespace

void writeRunFolder(const QString& dir, const RunFolderContents& c)
{
    if (!QDir().mkpath(dir))
        throw DataError("cannot create the folder '" + dir.toStdString() + "'");
    const QDir d(dir);
    // A reader watching the folder sees run.json first and summary.json last, as svi run
    // writes them.
    writeFileAtomically(d.filePath(kRunJsonFile),
                        QJsonDocument(runToJson(c.run)).toJson(QJsonDocument::Indented));
    writeFileAtomically(d.filePath(kTraceFile), traceCsv(c.trace, metricKeys(c.trace)));
    const QString checkpoint = d.filePath(kCheckpointFile);
    if (c.checkpointFile.isEmpty()) {
        removeStale(checkpoint);
    } else if (QFileInfo(c.checkpointFile).canonicalFilePath() !=
               QFileInfo(checkpoint).canonicalFilePath()) {
        QFile from(c.checkpointFile);
        if (!from.open(QIODevice::ReadOnly))
            failFile(c.checkpointFile.toStdString(), from.errorString().toStdString());
        writeFileAtomically(checkpoint, from.readAll());
    }
    const QString summary = d.filePath(kSummaryFile);
    if (c.summary)
        writeFileAtomically(summary, QJsonDocument(runSummaryJson(c.run, c.label, *c.summary))
                                         .toJson(QJsonDocument::Indented));
    else
        removeStale(summary);
}

ResumePoint readResumePoint(const QString& dir, const CheckpointIdentity& expected,
                            Trainer& trainer)
{
    ResumePoint r;
    const QString file = QDir(dir).filePath(kCheckpointFile);
    const QString tracePath = QDir(dir).filePath(kTraceFile);
    try {
        r.progress = restoreCheckpoint(readCheckpointFile(file), expected, trainer);
    } catch (const StateError& e) {
        throw DataError("cannot resume from '" + file.toStdString() + "': " + e.what());
    }
    if (r.progress.snapshots > 0) {
        QFile trace(tracePath);
        if (!trace.open(QIODevice::ReadOnly))
            throw DataError("cannot read '" + tracePath.toStdString() +
                            "': " + trace.errorString().toStdString());
        r.trace = parseTraceCsv(trace.readAll(), tracePath.toStdString());
    }
    if (std::int64_t(r.trace.size()) < r.progress.snapshots)
        throw DataError("cannot resume: '" + tracePath.toStdString() + "' has " +
                        std::to_string(r.trace.size()) + " rows, but the checkpoint follows " +
                        std::to_string(r.progress.snapshots));
    // The rows written after the checkpoint (before the run was killed) are written again.
    r.trace.resize(std::size_t(r.progress.snapshots));
    return r;
}

} // namespace svi
