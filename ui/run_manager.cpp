#include "ui/run_manager.h"

#include "core/run/registry.h"
#include "ui/trace_plot.h"

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
};

RunManager::RunManager(QObject* parent) : QObject(parent) {}

RunManager::~RunManager()
{
    m_queue.clear();
    for (auto& [id, runner] : m_runners)
        runner->abort();
    m_runners.clear(); // joins every worker
    for (auto& [id, builder] : m_building)
        builder.join(); // the trainer it built waits in the inbox and is freed with it
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
            onBuilt(m.id, std::move(m.built));
        } else if (m.snapshot) {
            onSnapshot(m.id, std::move(*m.snapshot));
        } else if (m.summary) {
            onFinished(m.id, std::move(*m.summary));
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
        if (r.status != RunStatus::Finished && r.status != RunStatus::Queued)
            ++n;
    return n;
}

int RunManager::add(const RunDescription& spec, DataSet data, int group, RunStatus status)
{
    RunRecord r;
    r.id = m_nextId++;
    r.group = group;
    r.spec = spec;
    r.data = std::move(data);
    r.status = status;
    r.color = runColor(r.id);
    const AlgorithmEntry* entry = Registry::builtin().find(spec.model, spec.algorithm);
    r.label = QString("#%1 %2").arg(r.id).arg(
        QString::fromStdString(entry ? entry->label : spec.algorithm));
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

int RunManager::enqueue(const std::vector<RunDescription>& specs, DataSet data, QList<int>* ids)
{
    const int group = m_nextGroup++;
    for (const RunDescription& spec : specs) {
        const int id = add(spec, data, group, RunStatus::Queued);
        m_queue.push_back(id);
        if (ids)
            *ids << id;
    }
    startNextQueued();
    return group;
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
    const AlgorithmEntry* entry = Registry::builtin().find(r->spec.model, r->spec.algorithm);
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
    // The builder gets copies only: the factory, the shared immutable data, the values.
    m_building[id] = std::thread([this, id, make = entry->make, data = r->data,
                                  params = r->spec.params, seed = r->spec.seed] {
        auto built = std::make_shared<Built>();
        try {
            built->trainer = make(data, params, seed);
            built->trainer->setLivePreview(true);
        } catch (const std::exception& e) {
            built->error = e.what();
        } catch (...) {
            built->error = "the model could not be built";
        }
        post({id, std::move(built), {}, {}});
    });
}

void RunManager::onBuilt(int id, std::shared_ptr<Built> built)
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
    auto runner = std::make_unique<Runner>(std::move(built->trainer), r->spec.runOptions());
    Runner* raw = runner.get();
    m_runners[id] = std::move(runner);
    // Both callbacks run on the worker: they copy what they report into the inbox. This
    // object outlives every worker (its destructor joins them).
    raw->start(
        [this, id](const Snapshot& s) {
            post({id, {}, s, {}});
            return CallbackResult::Continue;
        },
        [this, id](const Summary& s) {
            post({id, {}, {}, s});
        });
    r->status = RunStatus::Running;
    emit runChanged(id);
}

void RunManager::onSnapshot(int id, Snapshot s)
{
    RunRecord* r = find(id);
    if (!r)
        return;
    if (s.preview)
        r->preview = s.preview;
    s.preview.reset(); // the trace keeps numbers only
    r->trace.push_back(std::move(s));
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
    if (r && r->status == RunStatus::Finished)
        m_records.erase(id);
}

void RunManager::pollPhases()
{
    for (auto& [id, runner] : m_runners) {
        RunRecord* r = find(id);
        const RunPhase p = runner->phase();
        if (r && p != r->phase) {
            r->phase = p;
            emit runChanged(id);
        }
    }
}

} // namespace svi::ui
