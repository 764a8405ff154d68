// MainWindow: opening files, sessions and run folders; starting runs; what the actions allow;
// the runs' refresh.

#include "core/io/run_folder.h"
#include "ui/busy_indicator.h"
#include "ui/main_window_parts.h"
#include "ui/session_controller.h"
#include "ui/shown_messages.h"

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
        m_session->open(paths.front());
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

bool MainWindow::rerunSession()
{
    return m_session->rerun();
}

bool MainWindow::saveSession(const QString& path)
{
    return m_session->save(path);
}

bool MainWindow::saveSessionAs()
{
    return m_session->saveAs();
}

void MainWindow::openRunFolder(const QString& folder)
{
    m_session->openRunFolder(folder);
}

void MainWindow::resumeRun(const QString& folder)
{
    m_session->resumeRun(folder);
}

void MainWindow::saveRun(int id, const QString& folder)
{
    m_session->saveRun(id, folder);
}

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
    m_busy->showMessage(tr("Compare: %n run(s) queued, one after another", "",
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
        blocked = m_algorithms->blockedReason(m_data->description(), m_data->data());
    m_actRun->setEnabled(blocked.isEmpty());
    m_actCompare->setEnabled(m_algorithms->showBlocked(blocked));
    m_actCompare->setToolTip(m_algorithms->compareButton()->toolTip());
    m_actRerun->setEnabled(m_session->runCount() > 0);
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
                  shownMessage(r->summary->message, r->spec));
    else if (r->summary)
        m_busy->showMessage(
            QString("%1: %2").arg(r->label, shownMessage(r->summary->message, r->spec)), 8000);
    updateActions();
}

void MainWindow::onGroupFinished(int group)
{
    if (group == m_results->compareGroup()) {
        refreshNow();
        m_busy->showMessage(tr("Compare finished"), 8000);
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
