// MainWindow: actions and menus, settings, recent files.

#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

void MainWindow::buildActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName("mainToolBar");

    auto make = [this](const QString& text, const QString& name, const QKeySequence& key) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        if (!key.isEmpty())
            a->setShortcut(key);
        return a;
    };
    auto saveDialog = [this](const QString& title, const QString& filter, const QString& suffix) {
        QString path = QFileDialog::getSaveFileName(this, title, QString(), filter);
        if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
            path += "." + suffix;
        return path;
    };

    auto* open = make(tr("&Open…"), "actionOpen", QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Open data or a session"), QString(),
            // Data are recognised by their content, whatever their names (see svi list).
            tr("Data and sessions (*);;Sessions (*.json)"));
        if (!paths.isEmpty())
            openPaths(paths);
    });
    connect(m_data, &DataPanel::openRequested, open, &QAction::trigger);
    file->addAction(open);
    auto* openFolder =
        make(tr("Open a Data &Folder…"), "actionOpenFolder", QKeySequence("Ctrl+Shift+O"));
    // The folder's kind is that of the files it holds (core/io/data_folder.h).
    openFolder->setToolTip(tr("Read as the kind of the files it holds: FCS files or tables "
                              "stacked, text files as a corpus, MovieLens ratings, a LIBSVM "
                              "pair, the first of its images or graphs"));
    connect(openFolder, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a data folder"));
        if (!dir.isEmpty())
            openPath(dir);
    });
    file->addAction(openFolder);
    auto* openRuns = make(tr("Open R&un Folder…"), "actionOpenRunFolder", {});
    openRuns->setToolTip(tr("Chart the runs of a folder written by 'svi run --out' or 'svi "
                            "compare --out', following them while they are written"));
    connect(openRuns, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a run folder"));
        if (!dir.isEmpty())
            openRunFolder(dir);
    });
    file->addAction(openRuns);
    auto* resumeRunAct = make(tr("Resu&me Run…"), "actionResumeRun", {});
    resumeRunAct->setToolTip(tr("Go on with a run saved in a folder (its checkpoint.bin), to "
                                "its budget"));
    connect(resumeRunAct, &QAction::triggered, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Resume the run saved in a folder"));
        if (!dir.isEmpty())
            resumeRun(dir);
    });
    file->addAction(resumeRunAct);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    buildSampleMenu(file);
    auto* openDefault = make(tr("Open the &Default Image"), "actionOpenDefault", {});
    connect(openDefault, &QAction::triggered, this, [this] { openPath(kDefaultImage); });
    file->addAction(openDefault);
    file->addSeparator();
    auto* saveSessionAct = make(tr("&Save Session…"), "actionSaveSession", QKeySequence::Save);
    connect(saveSessionAct, &QAction::triggered, this, [this] { saveSessionAs(); });
    file->addAction(saveSessionAct);
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    auto* exportElbo =
        make(tr("ELBO Chart (PNG or SVG)…"), "actionExportElbo", QKeySequence("Ctrl+E"));
    connect(exportElbo, &QAction::triggered, this, [this, saveDialog] {
        const QString p =
            saveDialog(tr("Export the ELBO chart"), tr("PNG (*.png);;SVG (*.svg)"), "png");
        if (!p.isEmpty())
            exportChart(m_charts->elboChart(), p);
    });
    auto* exportMetric =
        make(tr("Metric Chart (PNG or SVG)…"), "actionExportMetric", QKeySequence("Ctrl+Shift+E"));
    connect(exportMetric, &QAction::triggered, this, [this, saveDialog] {
        const QString p =
            saveDialog(tr("Export the metric chart"), tr("PNG (*.png);;SVG (*.svg)"), "png");
        if (!p.isEmpty())
            exportChart(m_charts->metricChart(), p);
    });
    auto* exportTrace = make(tr("Traces (CSV)…"), "actionExportTraces", QKeySequence("Ctrl+T"));
    connect(exportTrace, &QAction::triggered, this, [this, saveDialog] {
        const QString p = saveDialog(tr("Export traces"), tr("CSV (*.csv)"), "csv");
        if (!p.isEmpty())
            exportTraces(p);
    });
    auto* exportTable = make(tr("Compare Results (CSV, JSON, LaTeX)…"), "actionExportResults", {});
    connect(exportTable, &QAction::triggered, this, [this, saveDialog] {
        const QString p = saveDialog(tr("Export the Compare results"),
                                     tr("CSV (*.csv);;JSON (*.json);;LaTeX table (*.tex)"), "csv");
        if (!p.isEmpty())
            exportResults(p);
    });
    auto* exportRuns = make(tr("Runs Table (CSV)…"), "actionExportRuns", {});
    connect(exportRuns, &QAction::triggered, this, [this, saveDialog] {
        const QString p = saveDialog(tr("Export the runs table"), tr("CSV (*.csv)"), "csv");
        if (!p.isEmpty())
            exportRunsTable(p);
    });
    auto* exportImages =
        make(tr("Reconstructions, Atoms, Loadings or Topics…"), "actionExportImages", {});
    connect(exportImages, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export images into"));
        if (!dir.isEmpty())
            exportReconstructions(dir);
    });
    exportMenu->addActions(
        {exportElbo, exportMetric, exportTrace, exportTable, exportRuns, exportImages});
    file->addSeparator();
    auto* quit = make(tr("&Quit"), "actionQuit", QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    file->addAction(quit);

    m_actRun = make(tr("&Run"), "actionRun", QKeySequence("Ctrl+R"));
    m_actRun->setToolTip(
        tr("Start a run with these settings (Ctrl+R); several runs can go at once"));
    connect(m_actRun, &QAction::triggered, this, [this] { startRun(); });
    connect(m_algorithms, &AlgorithmPanel::runRequested, m_actRun, &QAction::trigger);
    m_actPause = make(tr("&Pause"), "actionPause", QKeySequence("Ctrl+P"));
    connect(m_actPause, &QAction::triggered, this, [this] {
        for (int id : m_results->selectedRuns())
            m_runs->pause(id);
    });
    m_actResume = make(tr("Res&ume"), "actionResume", QKeySequence("Ctrl+Shift+P"));
    connect(m_actResume, &QAction::triggered, this, [this] {
        for (int id : m_results->selectedRuns())
            m_runs->resume(id);
    });
    m_actStop = make(tr("&Stop"), "actionStop", QKeySequence("Ctrl+."));
    m_actStop->setToolTip(tr("Stop the selected runs (a final full pass still runs; Cancel in the "
                             "status bar skips it)"));
    connect(m_actStop, &QAction::triggered, this, [this] {
        for (int id : m_results->selectedRuns())
            m_runs->stop(id);
    });
    m_actStopAll = make(tr("Stop &All"), "actionStopAll", QKeySequence("Ctrl+Shift+."));
    connect(m_actStopAll, &QAction::triggered, this, [this] {
        for (int id : m_runs->ids())
            m_runs->stop(id);
    });
    m_actCompare = make(tr("&Compare Algorithms"), "actionCompare", QKeySequence("Ctrl+K"));
    connect(m_actCompare, &QAction::triggered, this, [this] { compare(); });
    connect(m_algorithms, &AlgorithmPanel::compareRequested, m_actCompare, &QAction::trigger);
    m_actRerun = make(tr("Re-run &Session"), "actionRerunSession", QKeySequence("Ctrl+Shift+R"));
    connect(m_actRerun, &QAction::triggered, this, [this] { rerunSession(); });
    m_actSaveRun = make(tr("Sa&ve Run…"), "actionSaveRun", {});
    m_actSaveRun->setToolTip(tr("Write the selected run into a folder as 'svi run --out' does "
                                "(a run that is going is checkpointed at its next step): 'svi "
                                "run --resume' or Resume Run goes on with it"));
    connect(m_actSaveRun, &QAction::triggered, this, [this] {
        const QList<int> ids = m_results->selectedRuns();
        if (ids.isEmpty())
            return;
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Save %1 into a folder").arg(m_runs->record(ids.front())->label));
        if (!dir.isEmpty())
            saveRun(ids.front(), dir);
    });
    run->addActions({m_actRun, m_actPause, m_actResume, m_actStop, m_actStopAll});
    run->addSeparator();
    run->addActions({m_actCompare, m_actRerun});
    run->addSeparator();
    run->addAction(m_actSaveRun);
    // The runs table's context menu: what acts on the selected runs.
    m_results->runsView()->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_results->runsView()->addActions({m_actPause, m_actResume, m_actStop, m_actSaveRun});

    auto* zoomIn = make(tr("Zoom &In"), "actionZoomIn", QKeySequence::ZoomIn);
    connect(zoomIn, &QAction::triggered, m_centre->images(), &ImageStrip::zoomIn);
    auto* zoomOut = make(tr("Zoom &Out"), "actionZoomOut", QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, m_centre->images(), &ImageStrip::zoomOut);
    auto* zoomFit = make(tr("&Fit Images"), "actionZoomFit", QKeySequence("Ctrl+0"));
    connect(zoomFit, &QAction::triggered, m_centre->images(), &ImageStrip::zoomToFit);
    auto* diff = make(tr("&Error View"), "actionErrorView", QKeySequence("Ctrl+D"));
    diff->setCheckable(true);
    connect(diff, &QAction::toggled, m_centre->differenceToggle(), &QCheckBox::setChecked);
    connect(m_centre->differenceToggle(), &QCheckBox::toggled, diff, &QAction::setChecked);
    view->addActions({zoomIn, zoomOut, zoomFit, diff});

    bar->addAction(open);
    bar->addSeparator();
    bar->addActions({m_actRun, m_actPause, m_actResume, m_actStop, m_actStopAll});
    bar->addSeparator();
    bar->addAction(m_actCompare);
    bar->addSeparator();
    bar->addActions({saveSessionAct, exportElbo, exportTrace});
}

// ---------------------------------------------------------------------------------------------
// Settings

void MainWindow::loadSettings()
{
    QSettings s;
    resize(1500, 940);
    restoreGeometry(s.value("window/geometry").toByteArray());
    restoreState(s.value("window/state").toByteArray());
    m_algorithms->restoreSettings(s);
    m_charts->restoreSettings(s);
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    m_algorithms->saveSettings(s);
    m_charts->saveSettings(s);
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value("recent").toStringList();
}

void MainWindow::addRecent(const QString& path)
{
    if (path == kDefaultImage)
        return;
    QStringList list = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent)
        list.removeLast();
    QSettings().setValue("recent", list);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList list = recentFiles();
    for (int i = 0; i < list.size(); ++i) {
        QAction* a = m_recentMenu->addAction(
            QString("&%1 %2").arg(i + 1).arg(QFileInfo(list[i]).fileName()));
        a->setToolTip(list[i]);
        const QString& path = list[i];
        connect(a, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    m_recentMenu->setEnabled(!list.isEmpty());
}

} // namespace svi::ui
