// MainWindow: sessions, run descriptions, starting and finishing runs, what Run needs.

#include "core/models/builtin.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

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
        applySpec(*m_pendingSpec);
    }
    m_sessionRuns = s.runs;
    readData(s.data, false);
    restoreSessionRuns(s); // runs saved with their folders come back as they were
    updateActions();
    statusBar()->showMessage(
        tr("Session restored: %n run(s). Run ▸ Re-run Session runs them again.", "",
           int(s.runs.size())),
        10000);
}

void MainWindow::applySpec(const RunDescription& spec)
{
    const int m = m_model->findData(QString::fromStdString(spec.model));
    if (m >= 0)
        m_model->setCurrentIndex(m);
    const int a = m_algorithm->findData(QString::fromStdString(spec.algorithm));
    if (a >= 0)
        m_algorithm->setCurrentIndex(a);
    m_algorithmForm->setValues(spec.params);
    m_budgetForm->setValues(runSettingValues(spec));
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
    if (m_data && !m_loading)
        for (Group& g : *groups)
            if (g.data == dataDescription())
                g.built = m_data;
    const int gen = ++m_loadGeneration;
    setBusy(tr("Preparing the session's data…"), gen);
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, gen, groups] {
        watcher->deleteLater();
        clearBusy(gen);
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
    s.data = dataDescription();
    // Each run into a folder of <name>.runs: a run restored from (or saved before into) this
    // session's folders keeps its own, the others take numbers no folder there has yet, so
    // that no run's files are written over another's.
    const QString runsDir = QDir::cleanPath(QFileInfo(sessionRunsFolder(path)).absoluteFilePath());
    const QDir sessionDir = QFileInfo(path).absoluteDir();
    std::vector<std::pair<int, QString>> folders;
    QSet<QString> taken;
    int next = 1;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
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
        m_runs->save(id, folder);
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
// Model, algorithm, runs

void MainWindow::onModelChanged()
{
    const QString model = m_model->currentData().toString();
    const QString keep = m_algorithm->currentData().toString();
    // Shared keys keep their values between the algorithms of a model, not across models
    // (BPFA's K = 256 atoms is no number of topics).
    if (model != m_formModel)
        m_algorithmForm->setSpecs({});
    m_formModel = model;
    const QSignalBlocker block(m_algorithm);
    m_algorithm->clear();
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        if (QString::fromStdString(e.model) == model)
            m_algorithm->addItem(QString::fromStdString(e.label),
                                 QString::fromStdString(e.algorithm));
    // The model's first algorithm unless the one picked is the model's too.
    m_algorithm->setCurrentIndex(std::max(m_algorithm->findData(keep), 0));
    populateCompare();
    onAlgorithmChanged();
}

void MainWindow::onAlgorithmChanged()
{
    const AlgorithmEntry* e =
        builtinRegistry().find(m_model->currentData().toString().toStdString(),
                               m_algorithm->currentData().toString().toStdString());
    if (!e) {
        m_algorithmForm->setSpecs({});
        m_algorithmHelp->clear();
        updateActions();
        return;
    }
    m_algorithmHelp->setText(QString::fromStdString(e->help));
    m_algorithmForm->setSpecs(e->params);
    updateActions();
}

RunDescription MainWindow::specFor(const std::string& algorithm) const
{
    RunDescription spec;
    spec.data = dataDescription();
    spec.model = m_model->currentData().toString().toStdString();
    spec.algorithm = algorithm;
    if (const AlgorithmEntry* e = builtinRegistry().find(spec.model, algorithm)) {
        spec.params = defaultValues(e->params);
        // Shared keys (K, minibatch, κ, τ0, …) take the form's values, so that a comparison
        // differs in the algorithm only.
        const ParamValues form = m_algorithmForm->values();
        for (auto& [k, v] : spec.params)
            if (const auto it = form.find(k); it != form.end())
                v = it->second;
    }
    setRunSettings(spec, m_budgetForm->values());
    return spec;
}

RunDescription MainWindow::runDescription() const
{
    return specFor(m_algorithm->currentData().toString().toStdString());
}

int MainWindow::startRun()
{
    if (!m_actRun->isEnabled())
        return 0;
    const int id = m_runs->start(runDescription(), m_data);
    const int row = m_runsModel->rowOf(id);
    if (row >= 0)
        m_runsView->selectRow(row);
    return id;
}

void MainWindow::onRunFinished(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r)
        return;
    if (m_compareRuns.contains(id))
        fillResults();
    if (!m_dirtyRuns.contains(id))
        m_dirtyRuns << id;
    m_chartsDirty = true;
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
    if (group == m_compareGroup) {
        refreshNow();
        statusBar()->showMessage(tr("Compare finished"), 8000);
        emit compareFinished();
    }
}

QList<int> MainWindow::selectedRuns() const
{
    QList<int> ids;
    for (const QModelIndex& i : m_runsView->selectionModel()->selectedRows())
        ids << m_runsModel->idAt(i.row());
    if (ids.isEmpty() && m_runsModel->rowCount() > 0)
        ids << m_runsModel->idAt(m_runsModel->rowCount() - 1); // the newest run
    return ids;
}

void MainWindow::updateActions()
{
    if (!m_actRun)
        return; // still building the window
    QString blocked;
    if (m_loading)
        blocked = tr("Preparing the data…");
    else if (!m_data)
        blocked = !m_dataError->text().isEmpty() ? m_dataError->text()
                  : m_raw ? tr("The data cannot be prepared with these settings (see Data).")
                          : tr("Open data first.");
    else if (auto e = m_settingsForm->firstError())
        blocked = QString::fromStdString(e->message);
    else if (auto e = m_algorithmForm->firstError())
        blocked = QString::fromStdString(e->message);
    else if (auto e = m_budgetForm->firstError())
        blocked = QString::fromStdString(e->message);
    else if (!m_algorithm->currentData().isValid())
        blocked = tr("Pick an algorithm.");
    else if (auto problem = runDescription().runOptions().validate())
        blocked = tr("Set a budget: seconds or steps.");
    m_runBlocked->setText(blocked.isEmpty() ? QString() : tr("Run is disabled: %1").arg(blocked));
    const bool ok = blocked.isEmpty();
    m_actRun->setEnabled(ok);
    m_runButton->setEnabled(ok);
    bool ticked = false;
    for (int i = 0; i < m_compareList->count() && !ticked; ++i)
        ticked = m_compareList->item(i)->checkState() == Qt::Checked;
    m_actCompare->setEnabled(ok && ticked);
    m_compareButton->setEnabled(ok && ticked);
    const QString compareTip =
        ticked ? tr("Run the ticked algorithms of %1 one after another on these data with the "
                    "same split, seed and budget")
                     .arg(m_model->currentText())
               : tr("Tick at least one algorithm to compare.");
    m_compareButton->setToolTip(compareTip);
    m_actCompare->setToolTip(compareTip);
    m_actRerun->setEnabled(!m_sessionRuns.empty());
    bool anyRunning = false, anyPaused = false, anyActive = false, anyOwn = false;
    for (int id : selectedRuns()) {
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

// ---------------------------------------------------------------------------------------------
// Live views

} // namespace svi::ui
