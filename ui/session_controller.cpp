// SessionController: sessions (open, re-run, save) and the question before quitting.

#include "ui/session_controller.h"

#include "ui/algorithm_panel.h"
#include "ui/busy_indicator.h"
#include "ui/data_panel.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

SessionController::SessionController(const SessionParts& parts, QObject* parent)
    : QObject(parent), m_parts(parts)
{
    RunManager* runs = m_parts.runs;
    connect(runs, &RunManager::runAdded, this, [this](int id) { m_unsavedRuns.insert(id); });
    connect(runs, &RunManager::runSaved, this, &SessionController::onRunSaved);
    connect(runs, &RunManager::folderOpened, this, [this](const QString&, const QList<int>& ids) {
        for (int id : ids)
            m_unsavedRuns.remove(id); // saved in their folder; not the session's
    });
}

void SessionController::open(const QString& path)
{
    try {
        apply(readSessionFile(path));
        m_path = path;
    } catch (const DataError& e) {
        emit failed(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                    QString::fromStdString(e.what()));
    }
}

void SessionController::apply(const Session& s)
{
    if (!s.runs.empty()) {
        // Applied now, and again once the data are read: a session of another kind of data
        // (a corpus after an image) offers its model only then.
        m_pendingRun = s.runs.front().run;
        m_parts.algorithms->applySpec(*m_pendingRun);
    }
    m_sessionRuns = s.runs;
    m_parts.data->read(s.data, false);
    restoreRuns(s); // runs saved with their folders come back as they were
    emit runsChanged();
    m_parts.busy->showMessage(
        tr("Session restored: %n run(s). Run ▸ Re-run Session runs them again.", "",
           int(s.runs.size())),
        10000);
}

void SessionController::applyPendingRun()
{
    if (m_pendingRun) {
        m_parts.algorithms->applySpec(*m_pendingRun);
        m_pendingRun.reset();
    }
}

bool SessionController::rerun()
{
    if (m_sessionRuns.empty())
        return false;
    // Runs are grouped by their data (files, kind and settings); each group's data is built
    // once, off the GUI thread, then the runs are queued in the session's order.
    struct Group
    {
        DataDescription data;
        std::vector<RunDescription> specs;
        DataSet built;
        QString error;
    };
    auto groups = std::make_shared<std::vector<Group>>();
    for (const SessionRun& r : m_sessionRuns) {
        if (groups->empty() || !(groups->back().data == r.run.data))
            groups->push_back(Group{r.run.data, {}, {}, {}});
        groups->back().specs.push_back(r.run);
    }
    // Reuse the window's data where they match.
    const DataPanel* data = m_parts.data;
    if (data->data() && !data->loading())
        for (Group& g : *groups)
            if (g.data == data->description())
                g.built = data->data();
    // Shown as the window's work: it supersedes data being read meanwhile.
    const int gen = m_parts.busy->start(tr("Preparing the session's data…"));
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, gen, groups] {
        watcher->deleteLater();
        m_parts.busy->finish(gen);
        QStringList errors;
        for (const Group& g : *groups) {
            if (!g.built) {
                errors << g.error;
                continue;
            }
            m_parts.runs->enqueue(g.specs, g.built);
        }
        if (!errors.isEmpty())
            emit failed(tr("Some runs of the session cannot be re-run"), errors.join("\n"));
    });
    watcher->setFuture(QtConcurrent::run([groups] {
        for (Group& g : *groups) {
            if (g.built)
                continue;
            try {
                g.built = prepareData(g.data).built.data;
            } catch (const std::exception& e) {
                g.error = QString::fromStdString(e.what());
            }
        }
    }));
    return true;
}

bool SessionController::save(const QString& path)
{
    Session s;
    s.data = m_parts.data->description();
    // Each run into a folder of <name>.runs: a run restored from (or saved before into) this
    // session's folders keeps its own, the others take numbers no folder there has yet, so
    // that no run's files are written over another's.
    const QString runsDir = QDir::cleanPath(QFileInfo(sessionRunsFolder(path)).absoluteFilePath());
    const QDir sessionDir = QFileInfo(path).absoluteDir();
    std::vector<std::pair<int, QString>> folders;
    QSet<QString> taken;
    int next = 1;
    RunManager* runs = m_parts.runs;
    for (int id : runs->ids()) {
        const RunRecord* r = runs->record(id);
        if (!r->readFrom.isEmpty())
            continue; // another process's run, in its own folder
        QString folder = QDir::cleanPath(QFileInfo(r->savedTo).absoluteFilePath());
        if (r->savedTo.isEmpty() || QFileInfo(folder).absolutePath() != runsDir ||
            taken.contains(folder)) {
            do
                folder = QDir(runsDir).filePath(QString::number(next++));
            while (QFileInfo::exists(folder) || taken.contains(folder));
        }
        taken.insert(folder);
        folders.emplace_back(id, folder);
        SessionRun sr;
        sr.run = r->spec;
        sr.folder = sessionDir.relativeFilePath(folder);
        if (r->summary) {
            sr.reason = terminationName(r->summary->reason);
            sr.steps = r->summary->steps;
            if (r->summary->last)
                sr.metrics = r->summary->last->metrics;
        }
        s.runs.push_back(std::move(sr));
    }
    // Finished runs are written now; runs that are going once their checkpoints are in.
    m_saving = true;
    m_saveErrors.clear();
    for (const auto& [id, folder] : folders)
        runs->save(id, folder);
    m_saving = false;
    if (!m_saveErrors.isEmpty()) {
        emit failed(tr("Cannot save the session's runs"), m_saveErrors.join("\n"));
        return false;
    }
    try {
        writeFileAtomically(path, QJsonDocument(sessionToJson(s)).toJson(QJsonDocument::Indented));
    } catch (const DataError& e) {
        emit failed(tr("Cannot save the session"), QString::fromStdString(e.what()));
        return false;
    }
    m_parts.busy->showMessage(tr("Session saved to %1").arg(QFileInfo(path).fileName()), 5000);
    m_path = path;
    m_unsavedRuns.clear();
    return true;
}

bool SessionController::saveAs()
{
    QString path = QFileDialog::getSaveFileName(m_parts.window, tr("Save session"), m_path,
                                                tr("Session (*.json)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += ".json";
    return save(path);
}

bool SessionController::mayClose()
{
    // One question when something would be lost: runs still going, runs no session holds.
    QuitState state;
    RunManager* runs = m_parts.runs;
    for (int id : runs->ids()) {
        const RunRecord* r = runs->record(id);
        if (r->status != RunStatus::Finished && r->status != RunStatus::Watching)
            state.activeRuns << r->label;
        if (m_unsavedRuns.contains(id))
            ++state.unsavedRuns;
    }
    if (m_quitWhenSaved) // the runs' checkpoints are still coming: quit once they are in
        return false;
    switch (m_quitting ? QuitChoice::Quit : askBeforeQuitting(m_parts.window, state)) {
    case QuitChoice::Stay:
        return false;
    case QuitChoice::SaveAndQuit:
        if (!(m_path.isEmpty() ? saveAs() : save(m_path)))
            return false; // cancelled, or the error was shown: nothing is lost
        if (runs->pendingSaves() > 0) {
            // Runs that are going are written at their next step boundary; the window closes
            // once they are (onRunSaved).
            m_quitWhenSaved = true;
            m_parts.busy->showMessage(tr("Saving the runs that are going, then quitting…"));
            return false;
        }
        break;
    case QuitChoice::Quit:
        break;
    }
    return true;
}

} // namespace svi::ui
