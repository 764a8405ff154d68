// MainWindow: sessions, run specifications, starting, comparing and finishing runs.

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
    if (s.source.isRatings()) {
        m_ratingsForm->setValues(ratingsParamValues(s.source.ratings));
    } else if (s.source.isCorpus()) {
        m_corpusForm->setValues(corpusParamValues(s.source.corpus));
        m_tokenizerForm->setValues(tokenizerParamValues(s.source.tokenizer));
        m_subset->setText(s.source.subset);
    } else if (s.source.isTable()) {
        const TableOptions& t = s.source.table;
        m_tableForm->setText("arcsinh", QString::number(t.arcsinhCofactor));
        m_tableForm->setValues(
            {{"standardise", ParamValue(t.standardise)},
             {"split",
              ParamValue(std::string(t.split == HeldOutSplit::Rows ? "rows" : "entries"))}});
        m_tableForm->setText("subsample", QString::number(t.subsample));
        m_tableForm->setText("heldout", QString::number(t.heldOut));
        m_tableForm->setText("seed", QString::number(t.seed));
        m_pendingChannels = t.channels;
        const QSignalBlocker block(m_transpose);
        m_transpose->setChecked(s.source.transpose);
    } else {
        m_taskForm->setText("missing", QString::number(s.source.task.missing));
        m_taskForm->setText("noise", QString::number(s.source.task.noise));
        m_taskForm->setText("patch", QString::number(s.source.task.patch));
        m_taskForm->setText("seed", QString::number(s.source.task.seed));
    }
    m_taskDebounce->stop();
    m_readDebounce->stop();
    if (!s.runs.empty()) {
        // Applied now, and again once the data are read: a session of another kind of data
        // (a corpus after an image) offers its model only then.
        m_pendingSpec = s.runs.front().spec;
        applySpec(*m_pendingSpec);
    }
    m_sessionRuns = s.runs;
    openPaths(s.source.paths());
    updateActions();
    statusBar()->showMessage(
        tr("Session restored: %n run(s). Run ▸ Re-run Session runs them again.", "",
           int(s.runs.size())),
        10000);
}

void MainWindow::applySpec(const RunSpec& spec)
{
    const int m = m_model->findData(QString::fromStdString(spec.model));
    if (m >= 0)
        m_model->setCurrentIndex(m);
    const int a = m_algorithm->findData(QString::fromStdString(spec.algorithm));
    if (a >= 0)
        m_algorithm->setCurrentIndex(a);
    m_algorithmForm->setValues(spec.params);
    m_budgetForm->setText("seconds", QString::number(spec.seconds));
    m_budgetForm->setText("steps", QString::number(spec.steps));
    m_budgetForm->setText("eval_every", QString::number(spec.evalEvery));
    m_budgetForm->setText("full_every", QString::number(spec.fullEvery));
}

bool MainWindow::rerunSession()
{
    if (m_sessionRuns.empty())
        return false;
    // Runs are grouped by their data (file and task); each group's data is built once, off the
    // GUI thread, then the runs are queued in the session's order.
    struct Group
    {
        DataSource source;
        std::vector<RunSpec> specs;
        DataSet data;
        QString error;
    };
    auto groups = std::make_shared<std::vector<Group>>();
    for (const SessionRun& r : m_sessionRuns) {
        const DataSource& src = r.source;
        if (groups->empty() || !(groups->back().source == src))
            groups->push_back(Group{src, {}, {}, {}});
        groups->back().specs.push_back(r.spec);
    }
    // Reuse the window's data where it matches.
    if (m_data)
        for (Group& g : *groups)
            if (g.source == currentSource())
                g.data = m_data;
    const int gen = ++m_loadGeneration;
    setBusy(tr("Preparing the session's data…"), gen);
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, gen, groups] {
        watcher->deleteLater();
        clearBusy(gen);
        QStringList errors;
        for (const Group& g : *groups) {
            if (!g.data) {
                errors << g.error;
                continue;
            }
            m_runs->enqueue(g.specs, g.data, g.source);
        }
        if (!errors.isEmpty())
            showError(tr("Some runs of the session cannot be re-run"), errors.join("\n"));
    });
    watcher->setFuture(QtConcurrent::run([groups] {
        for (Group& g : *groups) {
            if (g.data)
                continue;
            try {
                g.data = buildSourceData(g.source);
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
    s.source = currentSource();
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        SessionRun sr;
        sr.spec = r->spec;
        sr.source = r->source;
        if (r->summary) {
            sr.reason = terminationName(r->summary->reason);
            sr.steps = r->summary->steps;
            if (r->summary->last)
                sr.metrics = r->summary->last->metrics;
        }
        s.runs.push_back(std::move(sr));
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
    for (const AlgorithmEntry& e : Registry::builtin().entries())
        if (QString::fromStdString(e.model) == model)
            m_algorithm->addItem(QString::fromStdString(e.label),
                                 QString::fromStdString(e.algorithm));
    int i = m_algorithm->findData(keep.isEmpty() ? QString("gibbs-ssvi") : keep);
    m_algorithm->setCurrentIndex(std::max(i, 0));
    onAlgorithmChanged();
}

void MainWindow::onAlgorithmChanged()
{
    const AlgorithmEntry* e =
        Registry::builtin().find(m_model->currentData().toString().toStdString(),
                                 m_algorithm->currentData().toString().toStdString());
    if (!e) {
        m_algorithmForm->setSpecs({});
        m_algorithmHelp->clear();
        updateActions();
        return;
    }
    m_algorithmHelp->setText(QString::fromStdString(e->help));
    // The patch size belongs to the task: the form does not repeat it.
    m_algorithmForm->setSpecs(e->params, {"patch"});
    updateActions();
}

RunSpec MainWindow::specFor(const std::string& algorithm) const
{
    RunSpec spec;
    const DataSource source = currentSource();
    const InpaintOptions& task = source.task;
    spec.model = m_model->currentData().toString().toStdString();
    spec.algorithm = algorithm;
    const AlgorithmEntry* e = Registry::builtin().find(spec.model, algorithm);
    const ParamValues form = m_algorithmForm->values();
    if (e) {
        spec.params = defaultValues(e->params);
        // Shared keys (K, minibatch, κ, τ0, …) take the form's values, so that a comparison
        // differs in the algorithm only.
        for (auto& [k, v] : spec.params)
            if (const auto it = form.find(k); it != form.end())
                v = it->second;
        if (spec.params.count("patch"))
            spec.params["patch"] = ParamValue(std::int64_t(task.patch));
    }
    const ParamValues budget = m_budgetForm->values();
    spec.seed = source.isCorpus()  ? source.corpus.seed
                : source.isTable() ? source.table.seed
                                   : task.seed;
    spec.seconds = getReal(budget, "seconds");
    spec.steps = getInt(budget, "steps");
    spec.evalEvery = getReal(budget, "eval_every");
    spec.fullEvery = getReal(budget, "full_every");
    return spec;
}

int MainWindow::startRun()
{
    if (!m_actRun->isEnabled())
        return 0;
    const RunSpec spec = specFor(m_algorithm->currentData().toString().toStdString());
    const int id = m_runs->start(spec, m_data, currentSource());
    const int row = m_runsModel->rowOf(id);
    if (row >= 0)
        m_runsView->selectRow(row);
    return id;
}

int MainWindow::compare(bool includeBatchGibbs)
{
    if (!m_actCompare->isEnabled())
        return 0;
    std::vector<RunSpec> specs;
    for (const AlgorithmEntry* a :
         Registry::builtin().comparisonGroup(m_model->currentData().toString().toStdString()))
        specs.push_back(specFor(a->algorithm));
    if (includeBatchGibbs)
        specs.push_back(specFor("gibbs"));
    QList<int> ids;
    m_compareGroup = m_runs->enqueue(specs, m_data, currentSource(), &ids);
    m_results->setRowCount(0);
    for (int id : ids) {
        const RunRecord* r = m_runs->record(id);
        QList<QStandardItem*> row;
        for (int c = 0; c < m_results->columnCount(); ++c)
            row << new QStandardItem;
        row[ResRun]->setText(QString("#%1").arg(id));
        row[ResRun]->setData(id, Qt::UserRole);
        row[ResRun]->setData(r->color, Qt::DecorationRole);
        row[ResAlgorithm]->setText(r->label.section(' ', 1));
        m_results->appendRow(row);
        fillResultRow(id); // "queued"
    }
    m_tabs->setCurrentIndex(1);
    statusBar()->showMessage(
        tr("Compare: %n run(s) queued, one after another", "", int(ids.size())), 5000);
    return m_compareGroup;
}

void MainWindow::fillResultRow(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r)
        return;
    for (int row = 0; row < m_results->rowCount(); ++row) {
        if (m_results->item(row, ResRun)->data(Qt::UserRole).toInt() != id)
            continue;
        const Summary* s = r->summary ? &*r->summary : nullptr;
        auto metric = [&](const char* key) {
            if (s && s->last) {
                const auto it = s->last->metrics.find(key);
                if (it != s->last->metrics.end())
                    return it->second;
            }
            return std::nan("");
        };
        auto set = [&](int c, const QString& text) {
            m_results->item(row, c)->setText(text);
            m_results->item(row, c)->setTextAlignment(c >= ResPsnr && c <= ResEpochs
                                                          ? Qt::AlignRight | Qt::AlignVCenter
                                                          : Qt::AlignLeft | Qt::AlignVCenter);
        };
        set(ResPsnr, fixed(metric("psnr"), 2));
        set(ResPsnrMissing, fixed(metric("psnr_missing"), 2));
        set(ResHeldOut, fixed(metric("heldout_loglik"), 4));
        set(ResMse, fixed(metric("mse"), 4));
        set(ResSecondsPerStep, s && s->steps > 0
                                   ? QString::number(s->trainSeconds / double(s->steps), 'g', 3)
                                   : QString());
        set(ResSteps, s ? QString::number(s->steps) : QString());
        set(ResEpochs, s ? fixed(s->epochs, 2) : QString());
        set(ResTermination, s ? QString(terminationName(s->reason)) : statusText(r->status));
        if (s)
            m_results->item(row, ResTermination)->setToolTip(QString::fromStdString(s->message));
    }
}

void MainWindow::onRunFinished(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r)
        return;
    if (r->group == m_compareGroup && m_compareGroup != 0)
        fillResultRow(id);
    if (!m_dirtyRuns.contains(id))
        m_dirtyRuns << id;
    m_chartsDirty = true;
    if (r->summary && (r->summary->reason == TerminationReason::InvalidInput ||
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
        blocked =
            m_ratings
                ? (m_dataError->text().isEmpty() ? tr("The ratings cannot be prepared (see Data).")
                                                 : m_dataError->text())
            : m_corpus
                ? (m_dataError->text().isEmpty() ? tr("The corpus cannot be prepared (see Data).")
                                                 : m_dataError->text())
            : m_image ? tr("The task does not fit the image (see Data).")
            : m_table
                ? (m_dataError->text().isEmpty() ? tr("The table cannot be prepared (see Data).")
                                                 : m_dataError->text())
                : tr("Open an image or a table first.");
    else if (auto e = (m_ratings  ? m_ratingsForm
                       : m_corpus ? m_corpusForm
                       : m_table  ? m_tableForm
                                  : m_taskForm)
                          ->firstError())
        blocked = QString::fromStdString(e->message);
    else if (auto e = m_corpus ? m_tokenizerForm->firstError() : std::nullopt)
        blocked = QString::fromStdString(e->message);
    else if (auto e = m_algorithmForm->firstError())
        blocked = QString::fromStdString(e->message);
    else if (auto e = m_budgetForm->firstError())
        blocked = QString::fromStdString(e->message);
    else if (!m_algorithm->currentData().isValid())
        blocked = tr("Pick an algorithm.");
    else if (auto problem = specFor(m_algorithm->currentData().toString().toStdString())
                                .runOptions()
                                .validate())
        blocked = tr("Set a budget: seconds or steps.");
    m_runBlocked->setText(blocked.isEmpty() ? QString() : tr("Run is disabled: %1").arg(blocked));
    const bool ok = blocked.isEmpty();
    m_actRun->setEnabled(ok);
    m_runButton->setEnabled(ok);
    // Compare runs the algorithms the registry marks as the model's comparison set.
    const bool comparable = !Registry::builtin()
                                 .comparisonGroup(m_model->currentData().toString().toStdString())
                                 .empty();
    m_actCompare->setEnabled(ok && comparable);
    m_compareButton->setEnabled(ok && comparable);
    m_compareBatch->setEnabled(comparable);
    const QString compareTip =
        comparable ? tr("Run MF-SVI, MF-SSVI, Titsias-SSVI, Mimno-SVI and Gibbs-SSVI one after "
                        "another on these data with the same seed and budget")
                   : tr("Compare runs the five BPFA algorithms and needs images or tables; "
                        "for %1, start runs one by one with Run.")
                         .arg(m_model->currentText());
    m_compareButton->setToolTip(compareTip);
    m_actCompare->setToolTip(compareTip);
    m_actRerun->setEnabled(!m_sessionRuns.empty());
    bool anyRunning = false, anyPaused = false, anyActive = false;
    for (int id : selectedRuns()) {
        const RunRecord* r = m_runs->record(id);
        anyRunning |= r && r->status == RunStatus::Running;
        anyPaused |= r && r->status == RunStatus::Paused;
        anyActive |= r && r->status != RunStatus::Finished;
    }
    m_actPause->setEnabled(anyRunning);
    m_actResume->setEnabled(anyPaused);
    m_actStop->setEnabled(anyActive);
    m_actStopAll->setEnabled(m_runs->activeCount() > 0);
}

// ---------------------------------------------------------------------------------------------
// Live views

} // namespace svi::ui
