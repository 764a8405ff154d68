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
// Run folders (core/io/run_resume.h, the layout `svi run --out` writes): a run can go on from a
// folder's checkpoint (resume(), or a QueuedRun with resumeFrom), read into its trainer on the
// build thread; save() writes a run into a folder, a run that is going being checkpointed at
// its next step boundary (or where it is paused) first. The window keeps each run's latest
// checkpoint (its periodic ones, those asked for, and the one at its end) as a file in a
// scratch folder of its own, written by the run's worker. openFolder() shows runs another
// process writes: read off the GUI thread, and read again while they grow (a file-system
// watcher on the folder and its trace, and a timer every second, as a file replaced by a
// rename can drop the watch) until their summary.json says how they ended.
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
#include <QTemporaryDir>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace svi {
class Trainer;
struct RunFolder;
} // namespace svi

class QFileSystemWatcher;
class QTimer;

namespace svi::ui {

// Watching: a run read from a folder that another process is still writing.
enum class RunStatus { Queued, Preparing, Running, Paused, Stopping, Finished, Watching };
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
    // Where a running run stands between snapshots (Runner::progress: step and clocks),
    // polled with its phase.
    Snapshot live;
    std::vector<Snapshot> trace;            // every snapshot, previews dropped
    std::shared_ptr<const Preview> preview; // the latest preview
    std::optional<Summary> summary;         // once finished
    // A run read from a folder (openFolder): not run here, its trace is the folder's; empty for
    // the window's own runs.
    QString readFrom;
    // The run folder whose checkpoint the run goes on from (empty: it started at step 0).
    QString resumeFrom;
    // The latest checkpoint kept of the run (a file in the manager's scratch folder, or the one
    // a finished run was read with) and where the run stood then; empty and absent before one.
    QString checkpointFile;
    std::optional<RunProgress> checkpoint;
    // The folder the run was last saved to or restored from (empty when none).
    QString savedTo;
    QStringList pendingSaves;      // folders to write once the checkpoint asked for arrives
    double stepsPerSecond() const; // training speed from the last snapshot
    double metric(const std::string& key) const; // from the last snapshot that has it; NaN if none
};

// How a run read from a folder ended (its summary.json's termination and message, its last
// trace row), for a folder whose summary.json is there.
Summary endingOf(const RunFolder& folder);

// A run to queue: its description and, to go on from a run folder's checkpoint, that folder;
// `trace` is shown until the run is built (the folder's trace so far).
struct QueuedRun
{
    RunDescription spec;
    QString resumeFrom;
    std::vector<Snapshot> trace;
};

// Whether run b repeats run a: the same model, algorithm and parameters (another seed, budget
// or cadence). Compare's repeats are; runs of one algorithm with other settings (Rao-
// Blackwellisation on and off) are not, and get colours and legend entries of their own.
bool isRepeatOf(const RunDescription& a, const RunDescription& b);

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
    int enqueue(const std::vector<RunDescription>& specs, const DataSet& data,
                QList<int>* ids = nullptr);
    int enqueue(const std::vector<QueuedRun>& runs, const DataSet& data, QList<int>* ids = nullptr);
    // Starts now a run that goes on from the checkpoint in `folder` (written by a run of `spec`
    // on these data): the trainer is built, the checkpoint and the trace up to it read into it
    // on the build thread, and the run continues to its budget. A folder without a checkpoint,
    // a damaged one or another run's ends the run as InvalidInput, the message naming the file.
    int resume(const RunDescription& spec, DataSet data, const QString& folder);
    // A run that ended before (a session's): shown as finished, with its trace and ending; its
    // checkpoint file (may be empty) is kept for saving it again.
    int addFinished(const RunDescription& spec, std::vector<Snapshot> trace, Summary summary,
                    const QString& checkpointFile, const QString& folder);

    // Reads `folder` off the GUI thread: a run folder gives one run, a compare folder (`svi
    // compare --out`) each of its runs. Runs still being written (no summary.json) are watched.
    // Then folderOpened, or folderFailed with a message naming the file.
    void openFolder(const QString& folder);
    // Writes run `id` into `folder` as `svi run --out` does (core/io/run_resume.h): at once for
    // a run that has finished or not started, else once the run has reached its next step
    // boundary (at once when it is paused) and been checkpointed there, without summary.json;
    // a run that ends first is written as finished. Then runSaved (error empty on success).
    // Runs read from a folder are not saved again.
    void save(int id, const QString& folder);
    // Saves asked for and not written yet.
    int pendingSaves() const;

    void pause(int id);
    void resume(int id);
    void stop(int id);  // ends after the current step; the final full pass still runs
    void abort(int id); // ends at once, interrupting a full pass; drops queued runs
    void abortAll();
    void remove(int id); // forgets a finished run, or stops watching a folder's run and forgets it

    const RunRecord* record(int id) const;
    QList<int> ids() const;
    int activeCount() const; // preparing, running, paused or stopping (watching is not)
    // Reads the workers' phases (training, full pass, …); emits runChanged for those that moved.
    void pollPhases();

signals:
    void runAdded(int id);
    void runChanged(int id);
    void snapshotArrived(int id);
    void runFinished(int id);
    void groupFinished(int group);
    void folderOpened(const QString& folder, const QList<int>& ids);
    void folderFailed(const QString& folder, const QString& message);
    void runSaved(int id, const QString& folder, const QString& error);

private slots:
    // Handles every message in the inbox, in order (GUI thread).
    void drainInbox();

private:
    struct Built;
    struct FolderRead;
    // A checkpoint the run's worker wrote (its file, where the run stood), or why it could not.
    struct CheckpointNote
    {
        RunProgress progress;
        QString file;
        QString error;
    };
    // What another thread hands to the GUI thread: exactly one of the payloads is set. A
    // folder read carries the run's id when it is read again, a negative token when opened.
    struct Message
    {
        int id = 0;
        std::shared_ptr<Built> built;
        std::optional<Snapshot> snapshot;
        std::optional<Summary> summary;
        std::optional<CheckpointNote> checkpoint;
        std::shared_ptr<FolderRead> folder;
    };
    // Any thread: queues a message and wakes the GUI thread when the inbox was empty.
    void post(Message message);
    // A new record; `setUp` fills in the rest before runAdded is emitted.
    int add(const RunDescription& spec, DataSet data, int group, RunStatus status,
            const std::function<void(RunRecord&)>& setUp = {});
    void launch(int id);
    void onBuilt(int id, const std::shared_ptr<Built>& built);
    void onSnapshot(int id, Snapshot s);
    void onFinished(int id, Summary summary);
    void onCheckpoint(int id, const CheckpointNote& note);
    void finishWithoutRunning(int id, TerminationReason reason, const std::string& message);
    // Writes `r` into `folder` now, with its latest checkpoint when `withCheckpoint` (a queued
    // run that is to go on from a folder keeps that folder's); emits runSaved.
    void writeNow(RunRecord& r, const QString& folder, bool withCheckpoint);
    // Folders (run_manager_folders.cpp).
    void onFolderRead(int key, const std::shared_ptr<FolderRead>& read);
    int addFolderRun(const RunFolder& folder, const std::optional<RunDescription>& spec, int group);
    void watch(int id);
    void unwatch(int id);
    void readAgain(int id);
    void onFileChanged(const QString& path);
    void startNextQueued();
    void setPaused(int id, bool paused);
    RunRecord* find(int id);

    std::map<int, RunRecord> m_records;
    std::map<int, std::unique_ptr<Runner>> m_runners;
    std::map<int, std::thread> m_building; // trainers being built, by run id
    std::map<int, std::thread> m_reading;  // folders being read: by run id, or negative token
    int m_nextReadToken = -1;
    std::map<int, QString> m_watched; // runs read from folders still being written: their folder
    std::set<int> m_readAgain;        // watched runs changed while being read
    QFileSystemWatcher* m_fileWatcher = nullptr;
    QTimer* m_watchTimer = nullptr;
    QTemporaryDir m_scratch; // the runs' latest checkpoints
    std::mutex m_inboxMutex;
    std::vector<Message> m_inbox; // guarded by m_inboxMutex
    std::vector<int> m_queue;
    int m_queueActive = 0; // id of the queued run now going, 0 when none
    int m_nextId = 1;
    int m_nextGroup = 1;
};

} // namespace svi::ui
