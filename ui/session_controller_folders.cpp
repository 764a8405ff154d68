// SessionController: run folders (the layout `svi run --out` writes). Opening and watching them,
// saving a run into one, resuming a run from one, and a session's runs restored from theirs.
// Nothing here knows a model or a data kind: the folders' run.json say what they hold.

#include "core/io/checkpoint_file.h"
#include "core/io/run_folder.h"
#include "core/io/run_resume.h"
#include "core/run/run_checkpoint.h"
#include "ui/busy_indicator.h"
#include "ui/data_panel.h"
#include "ui/main_window_parts.h"
#include "ui/session_controller.h"

namespace svi::ui {

using namespace window_parts;

void SessionController::openRunFolder(const QString& folder)
{
    m_parts.busy->showMessage(tr("Reading %1…").arg(QDir::toNativeSeparators(folder)), 5000);
    m_parts.runs->openFolder(folder);
}

void SessionController::saveRun(int id, const QString& folder)
{
    const RunRecord* r = m_parts.runs->record(id);
    if (r && r->status != RunStatus::Finished && r->status != RunStatus::Queued)
        m_parts.busy->showMessage(tr("%1: saving at its next step boundary…").arg(r->label), 5000);
    m_parts.runs->save(id, folder);
}

void SessionController::onRunSaved(int id, const QString& folder, const QString& error)
{
    const RunRecord* r = m_parts.runs->record(id);
    const QString label = r ? r->label : QString("#%1").arg(id);
    if (!error.isEmpty()) {
        if (m_saving)
            m_saveErrors << error;
        else
            emit failed(tr("Cannot save %1").arg(label), error);
    } else if (!m_saving) {
        m_parts.busy->showMessage(tr("%1 saved to %2").arg(label, QDir::toNativeSeparators(folder)),
                                  8000);
    }
    if (m_quitWhenSaved && m_parts.runs->pendingSaves() == 0) {
        m_quitWhenSaved = false;
        m_quitting = true; // asked already
        QTimer::singleShot(0, m_parts.window, &QWidget::close);
    }
}

void SessionController::resumeRun(const QString& folder)
{
    RunDescription spec;
    try {
        spec = readRunFile(QDir(folder).filePath(kRunJsonFile).toStdString());
    } catch (const std::exception& e) {
        emit failed(tr("Cannot resume %1").arg(QFileInfo(folder).fileName()),
                    QString::fromStdString(e.what()));
        return;
    }
    const DataPanel* data = m_parts.data;
    const bool same = data->data() && !data->loading() && spec.data == data->description();
    if (same) {
        m_parts.runs->resume(spec, data->data(), folder);
        return;
    }
    // The run's own data, prepared off the GUI thread; the window's stay as they are.
    struct Prepared
    {
        DataSet data;
        QString error;
    };
    // A message, not the busy indicator's work: that follows the window's own data, whose
    // loading this must not supersede.
    m_parts.busy->showMessage(tr("Preparing the data of %1…").arg(QFileInfo(folder).fileName()));
    auto* watcher = new QFutureWatcher<Prepared>(this);
    connect(watcher, &QFutureWatcher<Prepared>::finished, this, [this, watcher, spec, folder] {
        watcher->deleteLater();
        m_parts.busy->showMessage({});
        const Prepared p = watcher->result();
        if (!p.data) {
            emit failed(tr("Cannot resume %1").arg(QFileInfo(folder).fileName()), p.error);
            return;
        }
        m_parts.runs->resume(spec, p.data, folder);
    });
    watcher->setFuture(QtConcurrent::run([data = spec.data] {
        Prepared p;
        try {
            p.data = prepareData(data).built.data;
        } catch (const std::exception& e) {
            p.error = QString::fromStdString(e.what());
        }
        return p;
    }));
}

namespace {

// How a session's run comes back.
enum class Comeback { Finished, Resume, FromStart };

struct RestoredRun
{
    RunDescription spec;
    Comeback how = Comeback::FromStart;
    QString folder;
    std::vector<Snapshot> trace;
    std::optional<Summary> summary;
    QString checkpointFile; // a finished run's, when its folder has one
    QString note;           // why a run starts again
};

// What the folder of a session's run allows (a pool thread): read whole, its checkpoint
// checked to be this run's and to follow the trace, before anything is queued.
RestoredRun restoreRun(const SessionRun& s)
{
    RestoredRun r;
    r.spec = s.run;
    r.folder = s.folder;
    try {
        const RunFolder f = readRunFolder(s.folder);
        r.trace = f.trace;
        const QString checkpoint = QDir(s.folder).filePath(kCheckpointFile);
        const bool hasCheckpoint = QFileInfo(checkpoint).isFile();
        if (!f.termination.empty()) {
            r.summary = endingOf(f);
            r.how = Comeback::Finished;
            if (hasCheckpoint)
                r.checkpointFile = checkpoint;
            return r;
        }
        if (!hasCheckpoint) {
            if (!r.trace.empty())
                r.note = QObject::tr("%1: no %2 to go on from")
                             .arg(QDir::toNativeSeparators(s.folder), kCheckpointFile);
            r.trace.clear();
            return r;
        }
        CheckpointIdentity found;
        const RunProgress progress = checkpointProgress(readCheckpointFile(checkpoint), &found);
        if (!(found == checkpointIdentity(s.run)))
            throw DataError("'" + checkpoint.toStdString() + "' was written by a run of " +
                            found.model + "/" + found.algorithm + " with seed " +
                            std::to_string(found.seed));
        if (std::int64_t(r.trace.size()) < progress.snapshots)
            throw DataError("'" + QDir(s.folder).filePath(kTraceFile).toStdString() + "' has " +
                            std::to_string(r.trace.size()) + " rows, but the checkpoint follows " +
                            std::to_string(progress.snapshots));
        r.trace.resize(std::size_t(progress.snapshots));
        r.how = Comeback::Resume;
    } catch (const std::exception& e) {
        r.how = Comeback::FromStart;
        r.trace.clear();
        r.note = QString::fromStdString(e.what());
    }
    return r;
}

} // namespace

void SessionController::restoreRuns(const Session& session)
{
    struct Restore
    {
        std::vector<RestoredRun> runs;
        std::vector<DataSet> data; // per run, for those that run again
        QStringList errors;        // data that cannot be prepared
    };
    auto work = std::make_shared<Restore>();
    std::vector<SessionRun> withFolders;
    for (const SessionRun& r : session.runs)
        if (!r.folder.isEmpty())
            withFolders.push_back(r);
    if (withFolders.empty())
        return;
    // The window's data are being read meanwhile (applySession): its busy indicator is theirs.
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, work] {
        watcher->deleteLater();
        QStringList notes = work->errors;
        QList<int> restored;
        // In the session's order; consecutive runs on the same data queued together.
        std::vector<QueuedRun> queue;
        DataSet queueData;
        const auto flush = [&] {
            if (queue.empty())
                return;
            QList<int> ids;
            m_parts.runs->enqueue(queue, queueData, &ids);
            restored << ids;
            queue.clear();
        };
        for (std::size_t i = 0; i < work->runs.size(); ++i) {
            RestoredRun& r = work->runs[i];
            if (!r.note.isEmpty())
                notes << tr("%1 starts again: %2").arg(r.folder, r.note);
            if (r.how == Comeback::Finished) {
                flush();
                restored << m_parts.runs->addFinished(r.spec, std::move(r.trace), *r.summary,
                                                      r.checkpointFile, r.folder);
                continue;
            }
            const DataSet& data = work->data[i];
            if (!data)
                continue; // its data could not be prepared (in errors)
            const bool sameData =
                data.dense == queueData.dense && data.counts == queueData.counts &&
                data.labelled == queueData.labelled && data.graph == queueData.graph;
            if (!sameData)
                flush();
            queueData = data;
            QueuedRun q;
            q.spec = r.spec;
            if (r.how == Comeback::Resume) {
                q.resumeFrom = r.folder;
                q.trace = std::move(r.trace);
            }
            queue.push_back(std::move(q));
        }
        flush();
        for (int id : restored)
            m_unsavedRuns.remove(id); // the session holds them
        emit runsRestored();
        if (!notes.isEmpty())
            emit failed(tr("Some runs of the session start again"), notes.join("\n"));
    });
    watcher->setFuture(QtConcurrent::run([work, withFolders] {
        std::vector<std::pair<DataDescription, DataSet>> prepared;
        for (const SessionRun& s : withFolders) {
            work->runs.push_back(restoreRun(s));
            DataSet data;
            if (work->runs.back().how != Comeback::Finished) {
                const auto it = std::find_if(prepared.begin(), prepared.end(),
                                             [&](const auto& p) { return p.first == s.run.data; });
                if (it != prepared.end()) {
                    data = it->second;
                } else {
                    try {
                        data = prepareData(s.run.data).built.data;
                    } catch (const std::exception& e) {
                        work->errors << QString::fromStdString(e.what());
                    }
                    prepared.emplace_back(s.run.data, data);
                }
            }
            work->data.push_back(data);
        }
    }));
}

} // namespace svi::ui
