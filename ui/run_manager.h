#pragma once
// RunManager: the window's runs. Each run is a Runner (its own worker thread) on a shared,
// immutable data set; the trainer is built on a thread of its own first, because a Gibbs
// initialisation can take seconds. The GUI thread never runs inference.
//
// Every value that crosses from another thread (a built trainer, a snapshot, the end of a run)
// goes through one inbox guarded by a std::mutex, in the order it was sent; a queued call
// without arguments wakes the GUI thread to drain it. So the hand-offs are visible to
// ThreadSanitizer (which cannot see the locks inside Qt's own event and thread-pool code), and
// a long initialisation never occupies Qt's global thread pool, which loads the data.
//
// Runs started with start() run at once, side by side. Runs given to enqueue() run one after
// another (Compare, a re-opened session), so that their seconds per step are comparable.
//
// Destruction aborts every run (a full pass under way is interrupted), joins every worker and
// waits for trainers still being built: closing the window never leaves a thread behind.
// GUI thread only.

#include "core/data/data_set.h"
#include "core/run/registry.h"
#include "core/run/run_description.h"
#include "core/run/runner.h"

#include <QColor>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace svi {
class Trainer;
}

namespace svi::ui {

enum class RunStatus { Queued, Preparing, Running, Paused, Stopping, Finished };
QString statusText(RunStatus status);

struct RunRecord
{
    int id = 0;
    int group = 0;       // runs started together by Compare or a session share a group (0: none)
    RunDescription spec; // what runs, on which data (files, kind, settings)
    DataSet data;        // the shared, immutable data of the run
    QString label;       // "#3 Gibbs-SSVI"
    QColor color;
    RunStatus status = RunStatus::Queued;
    RunPhase phase = RunPhase::Idle;
    std::vector<Snapshot> trace;                 // every snapshot, previews dropped
    std::shared_ptr<const Preview> preview;      // the latest preview
    std::optional<Summary> summary;              // once finished
    double stepsPerSecond() const;               // training speed from the last snapshot
    double metric(const std::string& key) const; // from the last snapshot that has it; NaN if none
};

class RunManager : public QObject
{
    Q_OBJECT
public:
    explicit RunManager(QObject* parent = nullptr);
    ~RunManager() override;

    // Starts a run now. Returns its id; a spec the registry does not know, or a trainer that
    // cannot be built for the data (e.g. a patch size that does not match), ends the run at
    // once as InvalidInput with the reason in its summary (and runFinished is emitted).
    int start(const RunDescription& spec, DataSet data);
    // Queues runs to run one after another, after any queued before; they share a new group,
    // which is returned with their ids.
    int enqueue(const std::vector<RunDescription>& specs, DataSet data, QList<int>* ids = nullptr);

    void pause(int id);
    void resume(int id);
    void stop(int id);  // ends after the current step; the final full pass still runs
    void abort(int id); // ends at once, interrupting a full pass; drops queued runs
    void abortAll();
    void remove(int id); // forgets a finished run

    const RunRecord* record(int id) const;
    QList<int> ids() const;
    int activeCount() const; // preparing, running, paused or stopping
    // Reads the workers' phases (training, full pass, …); emits runChanged for those that moved.
    void pollPhases();

signals:
    void runAdded(int id);
    void runChanged(int id);
    void snapshotArrived(int id);
    void runFinished(int id);
    void groupFinished(int group);

private slots:
    // Handles every message in the inbox, in order (GUI thread).
    void drainInbox();

private:
    struct Built;
    // What another thread hands to the GUI thread: exactly one of the payloads is set.
    struct Message
    {
        int id = 0;
        std::shared_ptr<Built> built;
        std::optional<Snapshot> snapshot;
        std::optional<Summary> summary;
    };
    // Any thread: queues a message and wakes the GUI thread when the inbox was empty.
    void post(Message message);
    int add(const RunDescription& spec, DataSet data, int group, RunStatus status);
    void launch(int id);
    void onBuilt(int id, std::shared_ptr<Built> built);
    void onSnapshot(int id, Snapshot s);
    void onFinished(int id, Summary summary);
    void finishWithoutRunning(int id, TerminationReason reason, const std::string& message);
    void startNextQueued();
    void setPaused(int id, bool paused);
    RunRecord* find(int id);

    std::map<int, RunRecord> m_records;
    std::map<int, std::unique_ptr<Runner>> m_runners;
    std::map<int, std::thread> m_building; // trainers being built, by run id
    std::mutex m_inboxMutex;
    std::vector<Message> m_inbox; // guarded by m_inboxMutex
    std::vector<int> m_queue;
    int m_queueActive = 0; // id of the queued run now going, 0 when none
    int m_nextId = 1;
    int m_nextGroup = 1;
};

} // namespace svi::ui
