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

#include "core/base/params.h"
#include "core/data/corpus.h"
#include "core/data/dense_data.h"
#include "core/data/image_task.h"
#include "core/data/ratings.h"
#include "core/data/table.h"
#include "core/io/tokenizer.h"
#include "core/run/registry.h"
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

// What to run: the registry entry, its resolved parameters, the seed and the budget.
struct RunSpec
{
    std::string model;     // a registry key
    std::string algorithm; // a registry key
    ParamValues params;    // resolved against the entry's declarations
    std::uint64_t seed = 1;
    double seconds = 60.0;  // training-seconds budget; 0 = none
    std::int64_t steps = 0; // step budget; 0 = none
    double evalEvery = 0.5; // snapshot cadence, training seconds
    double fullEvery = 0.0; // a full pass every this many training seconds; 0 = only at the end

    RunOptions runOptions() const;
};

// Where a run's data came from, to save it and build it again.
struct DataSource
{
    QString path;               // a file, or the embedded default image ":/images/default.png"
    QStringList morePaths;      // further FCS files whose rows are stacked under the first's
    InpaintOptions task;        // images
    TableOptions table;         // tables (FCS, CSV/TSV): channels, transform, split
    bool transpose = false;     // delimited tables: rows ↔ columns (genes as data points)
    CorpusOptions corpus;       // corpora: subsample and held-out documents
    TokenizerOptions tokenizer; // corpora of raw text (a folder or an archive)
    QString subset;             // raw text: only the files below a folder of this name
    RatingsOptions ratings;     // ratings: binarisation and the held-out split

    // True when one of the paths is a text corpus (a folder, a tar archive, LDA-C, UCI
    // bag-of-words; see recogniseFile, or the name when the file cannot be read).
    bool isCorpus() const;
    // True for a MovieLens ratings file or a folder holding one (as isCorpus).
    bool isRatings() const;
    // True for FCS and delimited files (as isCorpus), false for images, corpora, ratings and
    // content of no kind svi reads (loaded as an image, whose reader says what is wrong).
    bool isTable() const;
    QStringList paths() const { return QStringList{path} + morePaths; }
    bool operator==(const DataSource&) const = default;
};

// Builds the data set a source describes: the image cut into patches, or the table(s) read,
// selected, transformed and split. Throws DataError / std::invalid_argument naming the file
// or field. Any thread.
DataSet buildSourceData(const DataSource& source);
// The table(s) of a table source, as read (before selection and transforms). Any thread.
Table readSourceTable(const DataSource& source);
// The corpus of a corpus source, as read (before the subsample and split). Throws DataError
// naming the file, also for a corpus without any word. Any thread.
Corpus readSourceCorpus(const DataSource& source);
// Raw text (a folder or an archive) is tokenized by the workbench, so its tokenizer settings
// and subset apply; counts files (LDA-C, UCI) are read as they are.
bool isRawTextCorpus(const QString& path);
// The options as form values (the keys of CorpusOptions::params() / TokenizerOptions::params()).
ParamValues corpusParamValues(const CorpusOptions& options);
ParamValues ratingsParamValues(const RatingsOptions& options);
// The ratings of a ratings source, as read (before the split). Any thread.
Ratings readSourceRatings(const DataSource& source);
ParamValues tokenizerParamValues(const TokenizerOptions& options);

enum class RunStatus { Queued, Preparing, Running, Paused, Stopping, Finished };
QString statusText(RunStatus status);

struct RunRecord
{
    int id = 0;
    int group = 0; // runs started together by Compare or a session share a group (0: none)
    RunSpec spec;
    DataSource source;
    DataSet data;  // the shared, immutable data of the run
    QString label; // "#3 Gibbs-SSVI"
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
    int start(const RunSpec& spec, DataSet data, const DataSource& source);
    // Queues runs to run one after another, after any queued before; they share a new group,
    // which is returned with their ids.
    int enqueue(const std::vector<RunSpec>& specs, DataSet data, const DataSource& source,
                QList<int>* ids = nullptr);

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
    int add(const RunSpec& spec, DataSet data, const DataSource& source, int group,
            RunStatus status);
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
