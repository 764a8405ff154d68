// MainWindow: opening files and sessions; starting runs; what the actions allow; the runs'
// refresh.

#include "core/io/run_folder.h"
#include "ui/busy_indicator.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

void MainWindow::openPath(const QString& path)
{
    openPaths({path});
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    if (paths.size() == 1 && paths.front().endsWith(".json", Qt::CaseInsensitive)) {
        openSession(paths.front());
        return;
    }
    // Folders that `svi run --out` or `svi compare --out` wrote: their runs, not data.
    const auto holdsRuns = [](const QString& p) {
        if (!QFileInfo(p).isDir())
            return false;
        if (isRunFolder(p))
            return true;
        for (const QString& sub : QDir(p).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (isRunFolder(QDir(p).filePath(sub)))
                return true;
        return false;
    };
    if (std::all_of(paths.begin(), paths.end(), holdsRuns)) {
        for (const QString& p : paths)
            openRunFolder(p);
        return;
    }
    DataDescription d;
    for (const QString& p : paths)
        d.files.push_back(p.toStdString());
    m_data->read(d, true);
}

// ---------------------------------------------------------------------------------------------
// Sessions

void MainWindow::openSession(const QString& path)
{
    try {
        applySession(readSessionFile(path));
        m_sessionPath = path;
    } catch (const DataError& e) {
        showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                  QString::fromStdString(e.what()));
    }
}

void MainWindow::applySession(const Session& s)
{
    if (!s.runs.empty()) {
        // Applied now, and again once the data are read: a session of another kind of data
        // (a corpus after an image) offers its model only then.
        m_pendingSpec = s.runs.front().run;
        m_algorithms->applySpec(*m_pendingSpec);
    }
    m_sessionRuns = s.runs;
    m_data->read(s.data, false);
    restoreSessionRuns(s); // runs saved with their folders come back as they were
    updateActions();
    statusBar()->showMessage(
        tr("Session restored: %n run(s). Run ▸ Re-run Session runs them again.", "",
           int(s.runs.size())),
        10000);
}

bool MainWindow::rerunSession()
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
    const DataPanel* data = m_data;
    if (data->data() && !data->loading())
        for (Group& g : *groups)
            if (g.data == data->description())
                g.built = data->data();
    // Shown as the window's work: it supersedes data being read meanwhile.
    const int gen = m_busy->start(tr("Preparing the session's data…"));
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, gen, groups] {
        watcher->deleteLater();
        m_busy->finish(gen);
        QStringList errors;
        for (const Group& g : *groups) {
            if (!g.built) {
                errors << g.error;
                continue;
            }
            m_runs->enqueue(g.specs, g.built);
        }
        if (!errors.isEmpty())
            showError(tr("Some runs of the session cannot be re-run"), errors.join("\n"));
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

bool MainWindow::saveSession(const QString& path)
{
    Session s;
    s.data = m_data->description();
    // Each run into a folder of <name>.runs: a run restored from (or saved before into) this
    // session's folders keeps its own, the others take numbers no folder there has yet, so
    // that no run's files are written over another's.
    const QString runsDir = QDir::cleanPath(QFileInfo(sessionRunsFolder(path)).absoluteFilePath());
    const QDir sessionDir = QFileInfo(path).absoluteDir();
    std::vector<std::pair<int, QString>> folders;
    QSet<QString> taken;
    int next = 1;
    RunManager* runs = m_runs;
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
    m_savingSession = true;
    m_saveErrors.clear();
    for (const auto& [id, folder] : folders)
        runs->save(id, folder);
    m_savingSession = false;
    if (!m_saveErrors.isEmpty()) {
        showError(tr("Cannot save the session's runs"), m_saveErrors.join("\n"));
        return false;
    }
    if (!writeOrReport(path, QJsonDocument(sessionToJson(s)).toJson(QJsonDocument::Indented),
                       tr("Cannot save the session")))
        return false;
    statusBar()->showMessage(tr("Session saved to %1").arg(QFileInfo(path).fileName()), 5000);
    m_sessionPath = path;
    m_unsavedRuns.clear();
    return true;
}

bool MainWindow::saveSessionAs()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"), m_sessionPath,
                                                tr("Session (*.json)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += ".json";
    return saveSession(path);
}

// ---------------------------------------------------------------------------------------------
// Runs

int MainWindow::startRun()
{
    if (!m_actRun->isEnabled())
        return 0;
    const int id = m_runs->start(runDescription(), m_data->data());
    m_results->selectRun(id);
    return id;
}

int MainWindow::compare()
{
    if (!m_actCompare->isEnabled())
        return 0;
    const int group =
        m_results->compare(m_algorithms->compareSpecs(m_data->description()), m_data->data());
    statusBar()->showMessage(tr("Compare: %n run(s) queued, one after another", "",
                                int(m_results->compareRuns().size())),
                             5000);
    return group;
}

void MainWindow::updateActions()
{
    if (!m_actRun)
        return; // still building the window
    QString blocked = m_data->blockedReason();
    if (blocked.isEmpty())
        blocked = m_algorithms->blockedReason(m_data->description());
    m_actRun->setEnabled(blocked.isEmpty());
    m_actCompare->setEnabled(m_algorithms->showBlocked(blocked));
    m_actCompare->setToolTip(m_algorithms->compareButton()->toolTip());
    m_actRerun->setEnabled(!m_sessionRuns.empty());
    bool anyRunning = false, anyPaused = false, anyActive = false, anyOwn = false;
    for (int id : m_results->selectedRuns()) {
        const RunRecord* r = m_runs->record(id);
        anyRunning |= r && r->status == RunStatus::Running;
        anyPaused |= r && r->status == RunStatus::Paused;
        anyActive |= r && r->status != RunStatus::Finished && r->status != RunStatus::Watching;
        anyOwn |= r && r->readFrom.isEmpty();
    }
    m_actPause->setEnabled(anyRunning);
    m_actResume->setEnabled(anyPaused);
    m_actStop->setEnabled(anyActive);
    m_actSaveRun->setEnabled(anyOwn);
    m_actStopAll->setEnabled(m_runs->activeCount() > 0);
}

void MainWindow::onRunFinished(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r)
        return;
    markDirty(id);
    m_charts->markAllDirty();
    if (r->summary && r->readFrom.isEmpty() &&
        (r->summary->reason == TerminationReason::InvalidInput ||
         r->summary->reason == TerminationReason::Failed))
        showError(tr("Run %1 could not run").arg(r->label),
                  QString::fromStdString(r->summary->message));
    else if (r->summary)
        statusBar()->showMessage(
            QString("%1: %2").arg(r->label, QString::fromStdString(r->summary->message)), 8000);
    updateActions();
}

void MainWindow::onGroupFinished(int group)
{
    if (group == m_results->compareGroup()) {
        refreshNow();
        statusBar()->showMessage(tr("Compare finished"), 8000);
        emit compareFinished();
    }
}

// ---------------------------------------------------------------------------------------------
// Live views: the runs whose snapshots changed are drawn in batches.

void MainWindow::markDirty(int id)
{
    if (!m_dirtyRuns.contains(id))
        m_dirtyRuns << id;
}

void MainWindow::refreshNow()
{
    m_runs->pollPhases();
    m_results->refresh();
    m_charts->refresh(m_dirtyRuns);
    refreshPanels();
    m_busy->refresh();
}

void MainWindow::refreshPanels()
{
    m_centre->refresh(m_dirtyRuns, m_results->selectedRuns());
    m_dirtyRuns.clear();
}

void MainWindow::updateAtoms()
{
    const QList<int> selected = m_results->selectedRuns();
    m_centre->showRun(selected.isEmpty() ? 0 : selected.front());
}

} // namespace svi::ui
