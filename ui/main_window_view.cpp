// MainWindow: refreshing charts and panels, busy state, errors, exports, closing, drops.

#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

void MainWindow::refreshNow()
{
    m_runs->pollPhases();
    m_runsModel->refresh();
    refreshCharts();
    refreshPanels();
    refreshStatus();
}

void MainWindow::refreshCharts()
{
    const bool all = m_chartsDirty;
    m_chartsDirty = false;
    const TraceAxis x =
        traceAxisOf(m_xAxis->currentData().toString().toStdString()).value_or(TraceAxis::Seconds);
    const std::string key = m_metric->currentData().toString().toStdString();
    m_elboChart->beginUpdate();
    m_metricChart->beginUpdate();
    for (int id : m_runs->ids()) {
        if (!all && !m_dirtyRuns.contains(id))
            continue;
        const RunRecord* r = m_runs->record(id);
        QString ending;
        if (r->summary && (r->summary->reason == TerminationReason::Diverged ||
                           r->summary->reason == TerminationReason::Failed))
            ending = QString::fromStdString(r->summary->message);
        // A run whose ELBO is undefined (the batch sampler) has no ELBO series.
        const TraceSeries elbo = traceSeries(r->trace, {}, x, ending);
        if (!elbo.empty())
            m_elboChart->setSeries(id, r->label, r->color, elbo.points, elbo.events);
        const TraceSeries metric = traceSeries(r->trace, key, x, ending);
        m_metricChart->setSeries(id, r->label, r->color, metric.points, metric.events);
    }
    m_elboChart->endUpdate();
    m_metricChart->endUpdate();
}

void MainWindow::updateRunPanel(int id)
{
    const RunRecord* r = m_runs->record(id);
    if (!r || !r->preview || !r->preview->reconstruction || !r->data.dense || !r->data.dense->image)
        return;
    const ImageLayout& img = *r->data.dense->image;
    const Eigen::ArrayXXf& rec = *r->preview->reconstruction;
    ImagePanel* p = m_images->panel(QString("run:%1").arg(id), r->label);
    p->setImage(m_difference->isChecked() ? differenceImage(rec, img.original) : toGrayImage(rec));
    const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
    QString caption = tr("PSNR %1 dB").arg(fixed(psnr(img.original, rec), 2));
    if (r->preview->reconstructionFull)
        caption += tr(" (missing %1 dB) · full pass")
                       .arg(fixed(psnrMasked(img.original, rec, img.pixelObserved), 2));
    else
        caption += tr(" · running");
    caption += tr(" · step %1").arg(QLocale().toString(qlonglong(step)));
    p->setCaption(caption);
}

void MainWindow::refreshPanels()
{
    for (int id : m_dirtyRuns)
        updateRunPanel(id);
    bool atoms = false;
    const QList<int> sel = selectedRuns();
    for (int id : m_dirtyRuns)
        atoms |= sel.contains(id);
    m_dirtyRuns.clear();
    if (atoms)
        updateAtoms();
}

std::vector<DataView> MainWindow::viewsOf(const RunRecord& r) const
{
    const DataKindSpec* kind = builtinDataKinds().find(r.spec.data.kind);
    return kind ? kind->views : std::vector<DataView>{};
}

int MainWindow::centrePage() const
{
    return m_centreTop->currentIndex();
}

WeightsView* MainWindow::weightsView() const
{
    return m_weightsPage->weightsView();
}

SliceView* MainWindow::sliceView() const
{
    return m_weightsPage->sliceView();
}

QLabel* MainWindow::weightsTitle() const
{
    return m_weightsPage->caption();
}

void MainWindow::updateAtoms()
{
    const QList<int> sel = selectedRuns();
    const RunRecord* r = sel.isEmpty() ? nullptr : m_runs->record(sel.front());
    const std::vector<DataView> views = r ? viewsOf(*r) : std::vector<DataView>{};
    auto offers = [&](DataView v) {
        return std::find(views.begin(), views.end(), v) != views.end();
    };
    if (r && offers(DataView::Recommendations) && r->data.counts && r->preview &&
        r->preview->factors) {
        if (m_recommendations->data() != r->data.counts)
            m_recommendations->setData(r->data.counts); // another run's split: its own users
        m_recommendations->setFactors(r->preview->factors);
        const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
        m_recommendations->setTitle(
            tr("Recommendations of %1 %2 · step %3 (the items the user rated in "
               "training are left out; ✓ marks a held-out test rating)")
                .arg(QString("#%1").arg(r->id), QString::fromStdString(r->spec.model).toUpper() +
                                                    " " + r->label.section(' ', 1))
                .arg(QLocale().toString(qlonglong(step))));
        return;
    }
    if (r && offers(DataView::Topics)) {
        if (!r->preview || r->preview->topics.empty())
            return;
        m_topics->setTopics(r->preview->topics);
        m_correlations->setCorrelations(r->preview->topics, r->preview->correlations);
        const std::int64_t step = r->trace.empty() ? 0 : r->trace.back().step;
        m_topicsRun->setText(
            tr("Topics of %1 %2 · step %3 · %n topic(s) in use, most used first "
               "(hover a row for its word probabilities)",
               "", m_topics->topicCount())
                .arg(QString("#%1").arg(r->id), QString::fromStdString(r->spec.model).toUpper() +
                                                    " " + r->label.section(' ', 1))
                .arg(QLocale().toString(qlonglong(step))));
        return;
    }
    if (r && offers(DataView::Graph) && r->data.graph) {
        m_graphPage->setGraph(r->data.graph); // another run's split: its own held-out pairs
        if (r->preview)
            m_graphPage->showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                     *r->preview);
        return;
    }
    if (r && offers(DataView::Weights)) {
        if (r->preview)
            m_weightsPage->showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                       *r->preview);
        return;
    }
    if (r && offers(DataView::Loadings) && r->data.dense) {
        if (!r->preview || r->preview->atoms.rows() == 0)
            return;
        QStringList channels;
        for (const std::string& c : r->data.dense->columnNames)
            channels << QString::fromStdString(c);
        const Preview& pv = *r->preview;
        const QString weightName = QString::fromStdString(pv.atomWeightName);
        m_loadings->setLoadings(pv.atoms, pv.atomWeights, channels, weightName);
        m_loadings->setTitle(tr("Loadings of %1 (%2; features with %3 ≥ %4, most used first)")
                                 .arg(r->label, QString::fromStdString(pv.atomName), weightName)
                                 .arg(LoadingsView::kMinWeight));
        m_covariance->setCovariance(pv.covariance, channels);
        m_loadingsRun->setText(tr("Run %1: %2 of %3 features shown. Hover a cell for its value.")
                                   .arg(r->label)
                                   .arg(m_loadings->shownFeatures())
                                   .arg(r->preview->atoms.rows()));
        return;
    }
    if (!r || !r->preview || r->preview->atoms.rows() == 0 || r->preview->atomWidth <= 0) {
        m_atomsRun->setText(tr("Select a run to see its dictionary."));
        return;
    }
    const Preview& pv = *r->preview;
    const int shown = int(std::min<Eigen::Index>(pv.atoms.rows(), 256));
    m_atoms->setImage(toGrayImage(tileAtoms(pv.atoms, pv.atomWidth, shown)));
    m_atoms->setTitle(tr("Dictionary of %1").arg(r->label));
    int used = 0;
    for (Eigen::Index k = 0; k < pv.atomWeights.size(); ++k)
        used += pv.atomWeights[k] > 1e-3;
    m_atoms->setCaption(tr("%1 of %2 atoms (Φ rows as %3×%3 tiles), ordered by E[π_k]: %4 … %5; %6 "
                           "with E[π_k] > 0.001")
                            .arg(shown)
                            .arg(pv.atoms.rows())
                            .arg(pv.atomWidth)
                            .arg(pv.atomWeights[0], 0, 'g', 3)
                            .arg(pv.atomWeights[shown - 1], 0, 'g', 3)
                            .arg(used));
    m_atomsRun->setText(tr("Run %1; the first tiles are the most used atoms.").arg(r->label));
}

void MainWindow::refreshStatus()
{
    int running = 0;
    double speed = 0;
    m_fullPassRun = 0;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        if (r->status == RunStatus::Running || r->status == RunStatus::Stopping) {
            ++running;
            if (std::isfinite(r->stepsPerSecond()))
                speed += r->stepsPerSecond();
            if (r->phase == RunPhase::FullEvaluation && !m_fullPassRun)
                m_fullPassRun = id;
        }
    }
    m_speedLabel->setText(
        running ? tr("%n run(s) going · %1 steps/s", "", running).arg(speed, 0, 'f', 1)
                : tr("idle"));
    // The busy indicator shows loading first, else a full pass under way (Cancel skips it).
    if (m_busyGeneration >= 0)
        return;
    if (m_fullPassRun) {
        m_busyLabel->setText(tr("Full pass of %1…").arg(m_runs->record(m_fullPassRun)->label));
        m_busyLabel->show();
        m_busyBar->show();
        m_busyCancel->show();
    } else {
        m_busyLabel->hide();
        m_busyBar->hide();
        m_busyCancel->hide();
    }
}

void MainWindow::setBusy(const QString& text, int generation)
{
    m_busyGeneration = generation;
    m_busyLabel->setText(text);
    m_busyLabel->show();
    m_busyBar->show();
    m_busyCancel->show();
}

void MainWindow::clearBusy(int generation)
{
    if (generation != m_busyGeneration)
        return;
    m_busyGeneration = -1;
    m_busyLabel->hide();
    m_busyBar->hide();
    m_busyCancel->hide();
    refreshStatus();
}

void MainWindow::cancelBusy()
{
    if (m_busyGeneration >= 0) {
        // The pool thread finishes on its own; its result is dropped. The data already loaded
        // stays.
        ++m_loadGeneration;
        clearBusy(m_busyGeneration);
        m_loading = false;
        updateActions();
        statusBar()->showMessage(tr("Cancelled"), 4000);
        return;
    }
    if (m_fullPassRun)
        m_runs->abort(m_fullPassRun);
}

void MainWindow::showError(const QString& title, const QString& message)
{
    statusBar()->showMessage(message, 10000);
    emit errorShown(message);
    // Non-blocking: runs keep reporting while the message is up.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName("errorBox");
    box->open();
}

// ---------------------------------------------------------------------------------------------
// Exports

bool MainWindow::exportChart(PlotView* chart, const QString& path)
{
    try {
        chart->save(path);
    } catch (const DataError& e) {
        showError(tr("Cannot export the chart"), QString::fromStdString(e.what()));
        return false;
    }
    statusBar()->showMessage(tr("Chart written to %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::exportTraces(const QString& path)
{
    std::set<std::string> keys;
    for (int id : m_runs->ids()) {
        const std::set<std::string> k = metricKeys(m_runs->record(id)->trace);
        keys.insert(k.begin(), k.end());
    }
    QByteArray csv;
    bool header = true;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        const std::vector<std::pair<QString, QString>> lead = {
            {"run", QString::number(id)},
            {"algorithm", QString::fromStdString(r->spec.algorithm)},
            {"seed", QString::number(r->spec.seed)}};
        csv += traceCsv(r->trace, keys, lead, header);
        header = false;
    }
    if (header) // no runs: still a valid file with its header
        csv = traceCsv({}, keys, {{"run", ""}, {"algorithm", ""}, {"seed", ""}}, true);
    return writeOrReport(path, csv, tr("Cannot export the traces"));
}

bool MainWindow::exportRunsTable(const QString& path)
{
    return writeOrReport(path, tableCsv(*m_runsModel), tr("Cannot export the runs table"));
}

bool MainWindow::writeOrReport(const QString& path, const QByteArray& bytes, const QString& failure)
{
    try {
        writeFileAtomically(path, bytes);
    } catch (const DataError& e) {
        showError(failure, QString::fromStdString(e.what()));
        return false;
    }
    return true;
}

bool MainWindow::exportReconstructions(const QString& folder)
{
    const QDir dir(folder);
    try {
        if (m_data.dense && m_data.dense->image) {
            saveGrayImage(dir.filePath("original.png").toStdString(),
                          m_data.dense->image->original);
            saveGrayImage(dir.filePath("corrupted.png").toStdString(),
                          m_data.dense->image->corrupted);
        }
        for (int id : m_runs->ids()) {
            const RunRecord* r = m_runs->record(id);
            if (!r->preview)
                continue;
            const QString stem =
                QString("run-%1-%2").arg(id).arg(QString::fromStdString(r->spec.algorithm));
            if (r->data.counts && !r->preview->topics.empty())
                writeFileAtomically(dir.filePath(stem + "-topics.csv"),
                                    topicsCsv(r->preview->topics));
            if (r->data.counts && r->preview->factors &&
                m_recommendations->user() < r->data.counts->rows())
                writeFileAtomically(dir.filePath(stem + "-recommendations.csv"),
                                    recommendationsCsv(*r->preview->factors, *r->data.counts,
                                                       {m_recommendations->user()},
                                                       m_recommendations->count()));
            if (r->data.dense && !r->data.dense->image && r->preview->atoms.rows() > 0) {
                writeFileAtomically(dir.filePath(stem + "-loadings.csv"),
                                    loadingsCsv(*r->preview, r->data.dense->columnNames));
                LoadingsView view;
                QStringList channels;
                for (const std::string& c : r->data.dense->columnNames)
                    channels << QString::fromStdString(c);
                view.resize(m_loadings->size().expandedTo(view.sizeHint()));
                view.setLoadings(r->preview->atoms, r->preview->atomWeights, channels,
                                 QString::fromStdString(r->preview->atomWeightName));
                view.setTitle(tr("Loadings of %1").arg(r->label));
                writeFileAtomically(dir.filePath(stem + "-loadings.png"),
                                    pngBytes(view.render(2.0)));
            }
            if (r->data.dense && r->preview->covariance) {
                const CovarianceSummary& c = *r->preview->covariance;
                const std::vector<std::string>& names = r->data.dense->columnNames;
                writeFileAtomically(dir.filePath(stem + "-covariance-model.csv"),
                                    covarianceCsv(c.model, names));
                writeFileAtomically(dir.filePath(stem + "-covariance-empirical.csv"),
                                    covarianceCsv(c.empirical, names));
                CovarianceView view;
                QStringList channels;
                for (const std::string& n : names)
                    channels << QString::fromStdString(n);
                view.setCovariance(r->preview->covariance, channels);
                for (MatrixView* m : {view.empiricalView(), view.modelView()}) {
                    m->resize(m->sizeHint() * 1.5);
                    writeFileAtomically(dir.filePath(stem + "-" + m->objectName() + ".png"),
                                        pngBytes(m->render(2.0)));
                }
            }
            if (r->data.graph && r->preview->graph) {
                writeFileAtomically(dir.filePath(stem + "-communities.csv"),
                                    communitiesCsv(*r->preview->graph, *r->data.graph));
                writeFileAtomically(dir.filePath(stem + "-link-predictions.csv"),
                                    linkPredictionsCsv(*r->preview->graph, *r->data.graph));
                GraphPage page;
                page.setGraph(r->data.graph);
                if (page.showPreview(r->label, r->trace.empty() ? 0 : r->trace.back().step,
                                     *r->preview))
                    for (MatrixView* m : {page.adjacencyView(), page.predictionView()}) {
                        m->resize(m->sizeHint() * 1.5);
                        writeFileAtomically(dir.filePath(stem + "-" + m->objectName() + ".png"),
                                            pngBytes(m->render(2.0)));
                    }
            }
            if (r->preview->weights) {
                writeFileAtomically(dir.filePath(stem + "-weights.csv"),
                                    weightsCsv(*r->preview->weights));
                WeightsView view;
                view.resize(weightsView()->size().expandedTo(view.sizeHint()));
                view.setWeights(r->preview->weights);
                view.setTitle(WeightsPage::weightsTitle(r->label));
                writeFileAtomically(dir.filePath(stem + "-weights.png"),
                                    pngBytes(view.render(2.0)));
            }
            if (r->preview->slice) {
                const PredictionSlice& slice = *r->preview->slice;
                writeFileAtomically(dir.filePath(stem + "-slice.csv"), sliceCsv(slice));
                SliceView view;
                view.resize(sliceView()->size().expandedTo(view.sizeHint()));
                view.setSlice(r->preview->slice);
                view.setTitle(WeightsPage::sliceTitle(r->label, slice));
                writeFileAtomically(dir.filePath(stem + "-slice.png"), pngBytes(view.render(2.0)));
            }
            if (r->preview->reconstruction)
                saveGrayImage(dir.filePath(stem + ".png").toStdString(),
                              *r->preview->reconstruction);
            if (r->preview->atomWidth > 0 && r->preview->atoms.rows() > 0)
                saveGrayImage(dir.filePath(stem + "-atoms.png").toStdString(),
                              tileAtoms(r->preview->atoms, r->preview->atomWidth));
        }
    } catch (const DataError& e) {
        showError(tr("Cannot export the images"), QString::fromStdString(e.what()));
        return false;
    }
    statusBar()->showMessage(tr("Exports written to %1").arg(folder), 5000);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Window events

void MainWindow::closeEvent(QCloseEvent* event)
{
    // One question when something would be lost: runs still going, runs no session holds.
    QuitState state;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        if (r->status != RunStatus::Finished && r->status != RunStatus::Watching)
            state.activeRuns << r->label;
        if (m_unsavedRuns.contains(id))
            ++state.unsavedRuns;
    }
    if (m_quitWhenSaved) { // the runs' checkpoints are still coming: quit once they are in
        event->ignore();
        return;
    }
    switch (m_quitting ? QuitChoice::Quit : askBeforeQuitting(this, state)) {
    case QuitChoice::Stay:
        event->ignore();
        return;
    case QuitChoice::SaveAndQuit:
        if (!(m_sessionPath.isEmpty() ? saveSessionAs() : saveSession(m_sessionPath))) {
            event->ignore(); // cancelled, or the error was shown: nothing is lost
            return;
        }
        if (m_runs->pendingSaves() > 0) {
            // Runs that are going are written at their next step boundary; the window closes
            // once they are (onRunSaved).
            m_quitWhenSaved = true;
            statusBar()->showMessage(tr("Saving the runs that are going, then quitting…"));
            event->ignore();
            return;
        }
        break;
    case QuitChoice::Quit:
        break;
    }
    saveSettings();
    m_runs->abortAll(); // the workers end promptly; the manager joins them when destroyed
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        for (const QUrl& url : event->mimeData()->urls())
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    openPaths(paths);
}

} // namespace svi::ui
