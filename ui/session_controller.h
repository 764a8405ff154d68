#pragma once
// The window's session and run folders: opening a session (its data read, its first run's
// settings applied, its saved runs brought back), re-running its runs, saving it with each run
// in a folder beside it, saving and resuming single runs, opening run folders, and the question
// before quitting when runs would be lost. Data are prepared off the GUI thread; files are
// written atomically. Errors go out as failed(), for the window to show. GUI thread only.

#include "ui/session.h"

#include <QObject>
#include <QSet>
#include <QStringList>
#include <optional>
#include <vector>

class QWidget;

namespace svi::ui {

class AlgorithmPanel;
class BusyIndicator;
class DataPanel;
class RunManager;

// What the session controller works with; each outlives it. `window` parents its dialogs.
struct SessionParts
{
    RunManager* runs = nullptr;
    DataPanel* data = nullptr;
    AlgorithmPanel* algorithms = nullptr;
    BusyIndicator* busy = nullptr;
    QWidget* window = nullptr;
};

class SessionController : public QObject
{
    Q_OBJECT
public:
    explicit SessionController(const SessionParts& parts, QObject* parent = nullptr);

    // Reads the session file at `path` and applies it; a file that cannot be read is reported.
    void open(const QString& path);
    // Queues again the runs of the last opened session; false when there are none.
    bool rerun();
    // Writes the session to `path` and each of the window's runs as a run folder beside it;
    // it becomes the session's file. Runs that are going are written once their next
    // checkpoint is in. False after reporting an error.
    bool save(const QString& path);
    // Asks where (a file dialog) and saves; false when cancelled or the save failed.
    bool saveAs();
    // The file the session was last saved to or opened from; empty when none.
    QString path() const { return m_path; }
    int runCount() const { return int(m_sessionRuns.size()); }

    // The first run of a session being opened, applied once its data's kind shows its models;
    // dropped when the data cannot be read.
    void applyPendingRun();
    void dropPendingRun() { m_pendingRun.reset(); }

    // Run folders (the layout `svi run --out` writes): see MainWindow's functions of the same
    // names.
    void openRunFolder(const QString& folder);
    void saveRun(int id, const QString& folder);
    void resumeRun(const QString& folder);

    // Whether the window may close now: asks once when runs are going or not in a session, and
    // saves the session when asked to. False while the runs being saved are still to come (the
    // window closes itself once they are in).
    bool mayClose();

signals:
    void failed(const QString& title, const QString& message);
    // The session's runs changed (Re-run Session follows them).
    void runsChanged();
    // Runs came back from the session's folders: every chart is to be drawn again.
    void runsRestored();

private:
    void apply(const Session& session);
    // A session's runs with folders: finished ones shown as they ended, the others queued to go
    // on from their checkpoints (or from the start when their folder cannot be used).
    void restoreRuns(const Session& session);
    void onRunSaved(int id, const QString& folder, const QString& error);

    SessionParts m_parts;
    std::vector<SessionRun> m_sessionRuns;
    QString m_path;                             // last saved to or opened from
    QSet<int> m_unsavedRuns;                    // runs added since the session was last saved
    std::optional<RunDescription> m_pendingRun; // applied once its data are read
    // Saving a session: errors of the runs written at once are gathered into one message.
    bool m_saving = false;
    QStringList m_saveErrors;
    // Quitting after a save whose runs' checkpoints are still to come.
    bool m_quitWhenSaved = false;
    bool m_quitting = false;
};

} // namespace svi::ui
