#include "ui/run_manager.h"

#include "core/io/checkpoint_file.h"
#include "core/io/data_error.h"
#include "core/io/output_folder.h"
#include "core/io/run_pipeline.h"
#include "core/io/run_resume.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/run_checkpoint.h"
#include "ui/trace_plot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <limits>

namespace svi::ui {

QString statusText(RunStatus status)
{
    switch (status) {
    case RunStatus::Queued:
        return QObject::tr("queued");
    case RunStatus::Preparing:
        return QObject::tr("preparing");
    case RunStatus::Running:
        return QObject::tr("running");
    case RunStatus::Paused:
        return QObject::tr("paused");
    case RunStatus::Stopping:
        return QObject::tr("stopping");
    case RunStatus::Finished:
        return QObject::tr("finished");
    case RunStatus::Watching:
        return QObject::tr("watching");
    }
    return {};
}

double RunRecord::stepsPerSecond() const
{
    if (trace.empty() || trace.back().trainSeconds <= 0)
        return std::numeric_limits<double>::quiet_NaN();
    return double(trace.back().step) / trace.back().trainSeconds;
}

double RunRecord::metric(const std::string& key) const
{
    for (auto it = trace.rbegin(); it != trace.rend(); ++it) {
        const auto m = it->metrics.find(key);
        if (m != it->metrics.end())
            return m->second;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

struct RunManager::Built
{
    std::unique_ptr<Trainer> trainer;
    std::string error;
    // A run going on from a folder's checkpoint: where it stood, and its trace up to there.
    std::optional<RunProgress> resumeFrom;
    std::vector<Snapshot> trace;
};

RunManager::RunManager(QObject* parent) : QObject(parent)
{
    m_scratch.setAutoRemove(true);
}

RunManager::~RunManager()
{
    m_queue.clear();
    for (auto& [id, runner] : m_runners)
        runner->abort();
    m_runners.clear(); // joins every worker
    for (auto& [id, builder] : m_building)
        builder.join(); // the trainer it built waits in the inbox and is freed with it
    for (auto& [key, reader] : m_reading)
        reader.join();
    // Messages still in the inbox are dropped; the queued call that would have drained them
    // is discarded with this object.
}

void RunManager::post(Message message)
{
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(m_inboxMutex);
        wake = m_inbox.empty();
        m_inbox.push_back(std::move(message));
    }
    if (wake)
        QMetaObject::invokeMethod(this, "drainInbox", Qt::QueuedConnection);
}

void RunManager::drainInbox()
{
    std::vector<Message> batch;
    {
        std::lock_guard<std::mutex> lock(m_inboxMutex);
        batch.swap(m_inbox);
    }
    for (Message& m : batch) {
        if (m.built) {
            if (auto node = m_building.extract(m.id))
                node.mapped().join(); // it has posted its last message: a short join
            onBuilt(m.id, m.built);
        } else if (m.snapshot) {
            onSnapshot(m.id, std::move(*m.snapshot));
        } else if (m.summary) {
            onFinished(m.id, std::move(*m.summary));
        } else if (m.checkpoint) {
            onCheckpoint(m.id, *m.checkpoint);
        } else if (m.folder) {
            if (auto node = m_reading.extract(m.id))
                node.mapped().join();
            onFolderRead(m.id, m.folder);
        }
    }
}

RunRecord* RunManager::find(int id)
{
    const auto it = m_records.find(id);
    return it == m_records.end() ? nullptr : &it->second;
}

const RunRecord* RunManager::record(int id) const
{
    const auto it = m_records.find(id);
    return it == m_records.end() ? nullptr : &it->second;
}

QList<int> RunManager::ids() const
{
    QList<int> out;
    for (const auto& [id, r] : m_records)
        out << id;
    return out;
}

int RunManager::activeCount() const
{
    int n = 0;
    for (const auto& [id, r] : m_records)
        if (r.status != RunStatus::Finished && r.status != RunStatus::Queued &&
            r.status != RunStatus::Watching)
            ++n;
    return n;
}

bool isRepeatOf(const RunDescription& a, const RunDescription& b)
{
    return a.model == b.model && a.algorithm == b.algorithm && a.params == b.params;
}

int RunManager::add(const RunDescription& spec, DataSet data, int group, RunStatus status,
                    const std::function<void(RunRecord&)>& setUp)
{
    RunRecord r;
    r.id = m_nextId++;
    r.group = group;
    r.spec = spec;
    r.data = std::move(data);
    r.status = status;
    r.color = runColor(r.id);
    // The repeats of one algorithm started together (its settings, other seeds) share the
    // first's colour, in the runs table as in the charts; other settings of it get their own.
    if (group != 0)
        for (const auto& [other, rec] : m_records)
            if (rec.group == group && isRepeatOf(rec.spec, spec)) {
                r.color = rec.color;
                break;
            }
    const AlgorithmEntry* entry = builtinRegistry().find(spec.model, spec.algorithm);
    r.label = QString("#%1 %2").arg(r.id).arg(
        QString::fromStdString(entry ? entry->label : spec.algorithm));
    if (setUp)
        setUp(r);
    const int id = r.id;
    m_records.emplace(id, std::move(r));
    emit runAdded(id);
    return id;
}

int RunManager::start(const RunDescription& spec, DataSet data)
{
    const int id = add(spec, std::move(data), 0, RunStatus::Preparing);
    launch(id);
    return id;
}

int RunManager::enqueue(const std::vector<RunDescription>& specs, const DataSet& data,
                        QList<int>* ids)
{
    std::vector<QueuedRun> runs;
    runs.reserve(specs.size());
    for (const RunDescription& spec : specs)
        runs.push_back({spec, {}, {}});
    return enqueue(runs, data, ids);
}

int RunManager::enqueue(const std::vector<QueuedRun>& runs, const DataSet& data, QList<int>* ids)
{
    const int group = m_nextGroup++;
    for (const QueuedRun& run : runs) {
        const int id = add(run.spec, data, group, RunStatus::Queued, [&](RunRecord& r) {
            r.resumeFrom = run.resumeFrom;
            r.savedTo = run.resumeFrom;
            r.trace = run.trace;
        });
        m_queue.push_back(id);
        if (ids)
            *ids << id;
    }
    startNextQueued();
    return group;
}

int RunManager::resume(const RunDescription& spec, DataSet data, const QString& folder)
{
    const int id = add(spec, std::move(data), 0, RunStatus::Preparing,
                       [&](RunRecord& r) { r.resumeFrom = folder; });
    launch(id);
    return id;
}

int RunManager::addFinished(const RunDescription& spec, std::vector<Snapshot> trace,
                            Summary summary, const QString& checkpointFile, const QString& folder)
{
    const int id = add(spec, {}, 0, RunStatus::Finished, [&](RunRecord& r) {
        r.phase = RunPhase::Finished;
        r.trace = std::move(trace);
        r.summary = std::move(summary);
        r.checkpointFile = checkpointFile;
        r.savedTo = folder;
    });
    emit runChanged(id);
    return id;
}

void RunManager::startNextQueued()
{
    while (m_queueActive == 0 && !m_queue.empty()) {
        const int id = m_queue.front();
        m_queue.erase(m_queue.begin());
        RunRecord* r = find(id);
        if (!r || r->status != RunStatus::Queued)
            continue;
        m_queueActive = id;
        r->status = RunStatus::Preparing;
        emit runChanged(id);
        launch(id);
    }
}

void RunManager::launch(int id)
{
    RunRecord* r = find(id);
    const AlgorithmEntry* entry = builtinRegistry().find(r->spec.model, r->spec.algorithm);
    if (!entry) {
        finishWithoutRunning(id, TerminationReason::InvalidInput,
                             "no algorithm '" + r->spec.algorithm + "' for model '" +
                                 r->spec.model + "'");
        return;
    }
    if (!r->data) {
        finishWithoutRunning(id, TerminationReason::InvalidInput, "no data loaded");
        return;
    }
    auto resolved = resolveParams(entry->params, r->spec.params);
    if (auto* e = std::get_if<ParamError>(&resolved)) {
        finishWithoutRunning(id, TerminationReason::InvalidInput, e->message);
        return;
    }
    if (auto problem = r->spec.runOptions().validate()) {
        finishWithoutRunning(id, TerminationReason::InvalidInput, *problem);
        return;
    }
    r->spec.params = std::get<ParamValues>(resolved);
    // The builder gets copies only: the entry (the registry outlives the window), the shared
    // immutable data, the description.
    m_building[id] = std::thread(
        [this, id, entry, data = r->data, spec = r->spec, folder = r->resumeFrom.toStdString()] {
            auto built = std::make_shared<Built>();
            try {
                BuiltRun run = buildRun(*entry, data, spec, QString::fromStdString(folder), true);
                built->trainer = std::move(run.trainer);
                if (run.resumed) {
                    built->resumeFrom = run.resumed->progress;
                    built->trace = std::move(run.resumed->trace);
                }
            } catch (const std::exception& e) {
                built->trainer.reset();
                built->error = e.what();
            } catch (...) {
                built->trainer.reset();
                built->error = "the model could not be built";
            }
            Message m;
            m.id = id;
            m.built = std::move(built);
            post(std::move(m));
        });
}

void RunManager::onBuilt(int id, const std::shared_ptr<Built>& built)
{
    RunRecord* r = find(id);
    if (!r)
        return;
    if (r->status == RunStatus::Stopping) {
        finishWithoutRunning(id, TerminationReason::Cancelled, "cancelled before the first step");
        return;
    }
    if (!built->trainer) {
        finishWithoutRunning(id, TerminationReason::InvalidInput, built->error);
        return;
    }
    // Every checkpoint is written by the worker into a file of its own in the scratch folder
    // (a newer one never overwrites a file the GUI thread may be copying), then announced.
    Checkpoints checkpoints;
    checkpoints.atEnd = true;
    checkpoints.save = [this, id, identity = checkpointIdentity(r->spec),
                        stem = QDir(m_scratch.path()).filePath(QString("run-%1-").arg(id)),
                        n = 0](const RunProgress& progress, Trainer& trainer) mutable {
        CheckpointNote note;
        note.progress = progress;
        note.file = stem + QString::number(++n) + ".bin";
        try {
            if (!m_scratch.isValid())
                throw DataError("no scratch folder for checkpoints: " +
                                m_scratch.errorString().toStdString());
            writeCheckpointFile(note.file, checkpointState(identity, progress, trainer));
        } catch (const std::exception& e) {
            note.error = QString::fromStdString(e.what()); // the run goes on
        }
        Message m;
        m.id = id;
        m.checkpoint = std::move(note);
        post(std::move(m));
    };
    if (built->resumeFrom) {
        checkpoints.resumeFrom = built->resumeFrom;
        r->trace = std::move(built->trace);
    }
    const AlgorithmEntry* entry = builtinRegistry().find(r->spec.model, r->spec.algorithm);
    RunOptions options = entry ? runOptionsFor(*entry, r->data, r->spec) : r->spec.runOptions();
    auto runner = std::make_unique<Runner>(std::move(built->trainer), std::move(options),
                                           std::move(checkpoints));
    Runner* raw = runner.get();
    m_runners[id] = std::move(runner);
    // The callbacks run on the worker: they copy what they report into the inbox. This
    // object outlives every worker (its destructor joins them).
    raw->start(
        [this, id](const Snapshot& s) {
            Message m;
            m.id = id;
            m.snapshot = s;
            post(std::move(m));
            return CallbackResult::Continue;
        },
        [this, id](const Summary& s) {
            Message m;
            m.id = id;
            m.summary = s;
            post(std::move(m));
        });
    r->status = RunStatus::Running;
    if (!r->pendingSaves.isEmpty()) // asked for while it was being built
        raw->requestCheckpoint();
    emit runChanged(id);
}

void RunManager::onSnapshot(int id, Snapshot s)
{
    RunRecord* r = find(id);
    if (!r)
        return;
    if (s.preview)
        r->preview = s.preview;
    s.preview.reset();                      // the trace keeps numbers only
    appendSnapshot(r->trace, std::move(s)); // a final evaluation of the last step replaces it
    emit snapshotArrived(id);
}

void RunManager::onFinished(int id, Summary summary)
{
    m_runners.erase(id); // the worker has returned from its last callback: a short join
    RunRecord* r = find(id);
    if (!r)
        return;
    if (summary.last)
        summary.last->preview.reset();
    r->summary = std::move(summary);
    r->status = RunStatus::Finished;
    r->phase = RunPhase::Finished;
    // Saves whose checkpoint did not come before the end: the finished run.
    for (const QString& folder : std::exchange(r->pendingSaves, {}))
        writeNow(*r, folder, true);
    emit runChanged(id);
    emit runFinished(id);
    const int group = r->group;
    if (m_queueActive == id) {
        m_queueActive = 0;
        startNextQueued();
    }
    if (group != 0) {
        bool done = true;
        for (const auto& [other, rec] : m_records)
            if (rec.group == group && rec.status != RunStatus::Finished)
                done = false;
        if (done)
            emit groupFinished(group);
    }
}

void RunManager::finishWithoutRunning(int id, TerminationReason reason, const std::string& message)
{
    Summary s;
    s.reason = reason;
    s.message = message;
    onFinished(id, s);
}

void RunManager::pause(int id)
{
    setPaused(id, true);
}

void RunManager::resume(int id)
{
    setPaused(id, false);
}

void RunManager::setPaused(int id, bool paused)
{
    RunRecord* r = find(id);
    const auto it = m_runners.find(id);
    const RunStatus from = paused ? RunStatus::Running : RunStatus::Paused;
    if (!r || it == m_runners.end() || r->status != from)
        return;
    paused ? it->second->pause() : it->second->resume();
    r->status = paused ? RunStatus::Paused : RunStatus::Running;
    emit runChanged(id);
}

void RunManager::stop(int id)
{
    RunRecord* r = find(id);
    if (!r || r->status == RunStatus::Finished)
        return;
    if (r->status == RunStatus::Queued) {
        m_queue.erase(std::remove(m_queue.begin(), m_queue.end(), id), m_queue.end());
        finishWithoutRunning(id, TerminationReason::Cancelled, "cancelled before it started");
        return;
    }
    if (const auto it = m_runners.find(id); it != m_runners.end()) {
        it->second->requestStop();
        it->second->resume();
    }
    r->status = RunStatus::Stopping;
    emit runChanged(id);
}

void RunManager::abort(int id)
{
    if (const auto it = m_runners.find(id); it != m_runners.end())
        it->second->abort();
    stop(id);
}

void RunManager::abortAll()
{
    // Queued runs first, so that none starts while the others end.
    for (int id : std::vector<int>(m_queue))
        stop(id);
    for (const auto& [id, r] : m_records)
        if (r.status != RunStatus::Finished)
            abort(id);
}

void RunManager::remove(int id)
{
    const RunRecord* r = record(id);
    if (!r || (r->status != RunStatus::Finished && r->status != RunStatus::Watching))
        return;
    unwatch(id);
    if (r->checkpointFile.startsWith(m_scratch.path()))
        QFile::remove(r->checkpointFile);
    m_records.erase(id);
}

// ---------------------------------------------------------------------------------------------
// Checkpoints and saving

void RunManager::onCheckpoint(int id, const CheckpointNote& note)
{
    RunRecord* r = find(id);
    if (!r) {
        QFile::remove(note.file);
        return;
    }
    if (note.error.isEmpty()) {
        // The previous one is no longer needed; nothing writes it any more.
        if (r->checkpointFile.startsWith(m_scratch.path()) && r->checkpointFile != note.file)
            QFile::remove(r->checkpointFile);
        r->checkpointFile = note.file;
        r->checkpoint = note.progress;
    }
    // The trace has every snapshot published before the checkpoint (the inbox keeps the
    // worker's order): the folder gets those rows, as svi run writes them at a checkpoint.
    for (const QString& folder : std::exchange(r->pendingSaves, {})) {
        if (!note.error.isEmpty())
            emit runSaved(id, folder, note.error);
        else
            writeNow(*r, folder, true);
    }
}

void RunManager::save(int id, const QString& folder)
{
    RunRecord* r = find(id);
    if (!r) {
        emit runSaved(id, folder, tr("no run #%1").arg(id));
        return;
    }
    if (!r->readFrom.isEmpty()) {
        emit runSaved(id, folder,
                      tr("%1 was read from '%2', where it is saved already")
                          .arg(r->label, QDir::toNativeSeparators(r->readFrom)));
        return;
    }
    switch (r->status) {
    case RunStatus::Finished:
        writeNow(*r, folder, true);
        return;
    case RunStatus::Queued: // not started: its description, and the trace it shows
        writeNow(*r, folder, false);
        return;
    case RunStatus::Watching:
        return; // runs read from folders are refused above
    case RunStatus::Preparing:
    case RunStatus::Running:
    case RunStatus::Paused:
    case RunStatus::Stopping:
        if (!r->pendingSaves.contains(folder))
            r->pendingSaves << folder;
        if (const auto it = m_runners.find(id); it != m_runners.end())
            it->second->requestCheckpoint();
        return; // a run being built is asked once it starts
    }
}

int RunManager::pendingSaves() const
{
    int n = 0;
    for (const auto& [id, r] : m_records)
        n += int(r.pendingSaves.size());
    return n;
}

void RunManager::writeNow(RunRecord& r, const QString& folder, bool withCheckpoint)
{
    RunFolderContents c;
    c.run = r.spec;
    const AlgorithmEntry* entry = builtinRegistry().find(r.spec.model, r.spec.algorithm);
    c.label = entry ? entry->label : r.spec.algorithm;
    c.trace = r.trace;
    if (withCheckpoint)
        c.checkpointFile = r.checkpointFile;
    else if (r.status == RunStatus::Queued && !r.resumeFrom.isEmpty())
        c.checkpointFile = QDir(r.resumeFrom).filePath(kCheckpointFile); // still to go on from
    if (r.status == RunStatus::Finished)
        c.summary = r.summary;
    // The task's images and the latest preview's files, as svi run leaves them.
    if (r.data)
        c.data = &r.data;
    c.preview = r.preview;
    QString error;
    try {
        // Never beside another run's files, nor over a folder of the user's own.
        checkOutputFolder(folder, &r.spec, false, "choose an empty or new folder");
        writeRunFolder(folder, c);
        r.savedTo = folder;
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
    }
    emit runSaved(r.id, folder, error);
}

void RunManager::pollPhases()
{
    for (auto& [id, runner] : m_runners) {
        RunRecord* r = find(id);
        if (!r)
            continue;
        const RunPhase p = runner->phase();
        const Snapshot live = runner->progress();
        if (p != r->phase || live.step != r->live.step) {
            r->phase = p;
            r->live = live;
            emit runChanged(id);
        }
    }
}

} // namespace svi::ui
