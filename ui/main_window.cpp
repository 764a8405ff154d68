// The window: construction and layout.

#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("SVI Workbench"));
    setAcceptDrops(true);
    m_runs = new RunManager(this);
    buildUi();
    buildActions();
    loadSettings();
    connect(m_runs, &RunManager::snapshotArrived, this, [this](int id) {
        if (!m_dirtyRuns.contains(id))
            m_dirtyRuns << id;
    });
    connect(m_runs, &RunManager::runChanged, this, [this](int id) {
        if (!m_dirtyRuns.contains(id))
            m_dirtyRuns << id;
        const RunRecord* r = m_runs->record(id);
        if (r && m_compareRuns.contains(id) && !r->summary)
            fillResults(); // "running" in place of "queued"
        updateActions();
    });
    connect(m_runs, &RunManager::runAdded, this, [this](int id) {
        m_unsavedRuns.insert(id);
        populateMetrics(); // a run over other data brings its metrics
    });
    connect(m_runs, &RunManager::runFinished, this, &MainWindow::onRunFinished);
    connect(m_runs, &RunManager::groupFinished, this, &MainWindow::onGroupFinished);
    connect(m_runs, &RunManager::runSaved, this, &MainWindow::onRunSaved);
    connect(m_runs, &RunManager::folderOpened, this, [this](const QString& folder, QList<int> ids) {
        int watching = 0;
        for (int id : ids) {
            m_unsavedRuns.remove(id); // saved in their folder; not the session's
            watching += m_runs->record(id)->status == RunStatus::Watching;
        }
        m_chartsDirty = true;
        if (const int row = m_runsModel->rowOf(ids.value(ids.size() - 1)); row >= 0)
            m_runsView->selectRow(row);
        statusBar()->showMessage(tr("%1: %n run(s), %2 still being written", "", int(ids.size()))
                                     .arg(QDir::toNativeSeparators(folder))
                                     .arg(watching),
                                 8000);
    });
    connect(m_runs, &RunManager::folderFailed, this,
            [this](const QString& folder, const QString& message) {
                showError(tr("Cannot open %1").arg(QFileInfo(folder).fileName()), message);
            });
    m_refresh = new QTimer(this);
    m_refresh->setInterval(200); // 5 Hz: charts, panels and tables in batches
    connect(m_refresh, &QTimer::timeout, this, &MainWindow::refreshNow);
    m_refresh->start();
    updateActions();
    openPath(kDefaultImage);
}

MainWindow::~MainWindow()
{
    m_refresh->stop();
    // Workers first (joined by the manager), then the views that read the manager.
    m_runsView->setModel(nullptr);
    delete m_runsModel;
    delete m_runs;
    m_runs = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Layout

void MainWindow::buildUi()
{
    // --- Setup dock: data, task, model, algorithm, budget, Run / Compare.
    auto* setup = new QWidget;
    auto* setupLayout = new QVBoxLayout(setup);

    auto* dataBox = new QGroupBox(tr("Data"));
    auto* dataLayout = new QVBoxLayout(dataBox);
    m_dataLabel = new QLabel(tr("No data"));
    m_dataLabel->setWordWrap(true);
    m_dataLabel->setObjectName("dataLabel");
    m_dataError = new QLabel;
    m_dataError->setWordWrap(true);
    m_dataError->setStyleSheet("color: #c0392b");
    m_dataError->setVisible(false);
    auto* openButton = new QPushButton(tr("Open…"));
    connect(openButton, &QPushButton::clicked, this, [this] { m_actOpen->trigger(); });
    dataLayout->addWidget(m_dataLabel);
    dataLayout->addWidget(m_dataError);
    dataLayout->addWidget(openButton);
    setupLayout->addWidget(dataBox);

    // The data kind's task settings: one form generated from the kind's declarations, and a
    // checklist for a setting that picks names (a table's channels).
    m_settingsBox = new QGroupBox(tr("Task"));
    m_settingsBox->setObjectName("settingsBox");
    auto* settingsLayout = new QVBoxLayout(m_settingsBox);
    m_settingsTask = new QLabel;
    m_settingsTask->setWordWrap(true);
    m_settingsTask->setStyleSheet("color: palette(mid)");
    settingsLayout->addWidget(m_settingsTask);
    // Files more than one kind can read (a CSV: a table, or labelled data): which one.
    m_readAsRow = new QWidget;
    auto* readAsLayout = new QHBoxLayout(m_readAsRow);
    readAsLayout->setContentsMargins(0, 0, 0, 0);
    readAsLayout->addWidget(new QLabel(tr("Read as")));
    m_readAs = new QComboBox;
    m_readAs->setObjectName("readAsPicker");
    m_readAs->setToolTip(tr("The kind of data to read the files as; the task and the models "
                            "follow it"));
    readAsLayout->addWidget(m_readAs, 1);
    m_readAsRow->setVisible(false);
    settingsLayout->addWidget(m_readAsRow);
    connect(m_readAs, &QComboBox::activated, this, [this](int index) {
        const std::string key = m_readAs->itemData(index).toString().toStdString();
        if (m_kind && key != m_kind->key) {
            DataDescription d;
            d.files = m_read.files;
            d.kind = key;
            readData(d, true);
        }
    });
    m_namesArea = new QWidget;
    auto* namesLayout = new QVBoxLayout(m_namesArea);
    namesLayout->setContentsMargins(0, 0, 0, 0);
    m_namesCount = new QLabel;
    m_namesCount->setObjectName("namesCount");
    namesLayout->addWidget(m_namesCount);
    m_names = new QListWidget;
    m_names->setObjectName("namesList");
    m_names->setMinimumHeight(140);
    namesLayout->addWidget(m_names);
    auto* nameButtons = new QHBoxLayout;
    auto addNameButton = [&](const QString& text, const QString& tip, int pick) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, [this, pick] {
            const std::vector<RawData::Name> names =
                m_raw ? m_raw->names(m_namesKey) : std::vector<RawData::Name>{};
            const QSignalBlocker block(m_names);
            for (int i = 0; i < m_names->count() && i < int(names.size()); ++i) {
                const bool on = pick == 2 ? names[std::size_t(i)].ticked : pick == 1;
                m_names->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
            }
            emit m_names->itemChanged(nullptr);
        });
        nameButtons->addWidget(b);
    };
    addNameButton(tr("All"), tr("Select every name"), 1);
    addNameButton(tr("None"), tr("Clear the selection"), 0);
    addNameButton(tr("Default"), tr("The selection the data suggest (for FCS: marker names)"), 2);
    namesLayout->addLayout(nameButtons);
    settingsLayout->addWidget(m_namesArea);
    m_settingsForm = new ParamForm;
    m_settingsForm->setObjectName("settingsForm");
    settingsLayout->addWidget(m_settingsForm);
    setupLayout->addWidget(m_settingsBox);
    m_settingsDebounce = new QTimer(this);
    m_settingsDebounce->setSingleShot(true);
    m_settingsDebounce->setInterval(300);
    auto settingsEdited = [this] {
        m_loading = bool(m_raw); // the data shown no longer match the form
        m_settingsDebounce->start();
        updateActions();
    };
    connect(m_settingsForm, &ParamForm::edited, this, settingsEdited);
    connect(m_names, &QListWidget::itemChanged, this, settingsEdited);
    connect(m_settingsDebounce, &QTimer::timeout, this, &MainWindow::onSettingsEdited);

    auto* modelBox = new QGroupBox(tr("Model and algorithm"));
    auto* modelLayout = new QVBoxLayout(modelBox);
    auto* pickers = new QFormLayout;
    m_model = new QComboBox;
    m_model->setObjectName("modelPicker");
    m_algorithm = new QComboBox;
    m_algorithm->setObjectName("algorithmPicker");
    pickers->addRow(tr("Model"), m_model);
    pickers->addRow(tr("Algorithm"), m_algorithm);
    modelLayout->addLayout(pickers);
    m_algorithmHelp = new QLabel;
    m_algorithmHelp->setWordWrap(true);
    m_algorithmHelp->setStyleSheet("color: palette(mid)");
    modelLayout->addWidget(m_algorithmHelp);
    m_algorithmForm = new ParamForm;
    m_algorithmForm->setObjectName("algorithmForm");
    modelLayout->addWidget(m_algorithmForm);
    setupLayout->addWidget(modelBox);
    connect(m_model, &QComboBox::currentIndexChanged, this, &MainWindow::onModelChanged);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &MainWindow::onAlgorithmChanged);
    connect(m_algorithmForm, &ParamForm::edited, this, &MainWindow::updateActions);

    auto* budgetBox = new QGroupBox(tr("Budget and cadence"));
    auto* budgetLayout = new QVBoxLayout(budgetBox);
    m_budgetForm = new ParamForm;
    m_budgetForm->setObjectName("budgetForm");
    m_budgetForm->setSpecs(runSettings(), {"threads"}); // runs share the machine's threads
    m_budgetForm->setText("seconds", "60");             // a budget to start with: a minute
    budgetLayout->addWidget(m_budgetForm);
    setupLayout->addWidget(budgetBox);
    connect(m_budgetForm, &ParamForm::edited, this, &MainWindow::updateActions);

    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setObjectName("runButton");
    m_runButton->setDefault(true);
    m_compareButton = new QPushButton(tr("Compare"));
    m_compareButton->setObjectName("compareButton");
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 1);
    buttons->addWidget(m_compareButton, 1);
    setupLayout->addLayout(buttons);
    // Compare: the model's comparison group, ticked; its baselines unticked.
    auto* compareBox = new QGroupBox(tr("Compare"));
    auto* compareLayout = new QVBoxLayout(compareBox);
    m_compareList = new QListWidget;
    m_compareList->setObjectName("compareList");
    m_compareList->setToolTip(tr("The algorithms Compare runs one after another on these data, "
                                 "with the same split, seed and budget"));
    m_compareList->setMaximumHeight(130);
    compareLayout->addWidget(m_compareList);
    auto* repeatsRow = new QFormLayout;
    m_repeats = new QSpinBox;
    m_repeats->setObjectName("repeatsBox");
    m_repeats->setRange(1, 100);
    m_repeats->setToolTip(tr("Runs of each algorithm, with seeds seed, seed + 1, …: the results "
                             "show mean ± sd"));
    repeatsRow->addRow(tr("Repeats"), m_repeats);
    compareLayout->addLayout(repeatsRow);
    setupLayout->addWidget(compareBox);
    connect(m_compareList, &QListWidget::itemChanged, this, &MainWindow::updateActions);
    m_runBlocked = new QLabel;
    m_runBlocked->setObjectName("runBlocked");
    m_runBlocked->setWordWrap(true);
    m_runBlocked->setStyleSheet("color: #c0392b");
    setupLayout->addWidget(m_runBlocked);
    setupLayout->addStretch(1);

    auto* setupScroll = new QScrollArea;
    setupScroll->setWidget(setup);
    setupScroll->setWidgetResizable(true);
    setupScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setupScroll->setMinimumWidth(300);
    auto* setupDock = new QDockWidget(tr("Setup"), this);
    setupDock->setObjectName("setupDock");
    setupDock->setWidget(setupScroll);
    setupDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, setupDock);

    // --- Centre: image panels above, charts below.
    auto* imagesArea = new QWidget;
    auto* imagesLayout = new QVBoxLayout(imagesArea);
    imagesLayout->setContentsMargins(0, 0, 0, 0);
    auto* imageBar = new QHBoxLayout;
    m_images = new ImageStrip;
    m_images->setObjectName("imageStrip");
    auto addZoom = [&](const QString& text, const QString& tip, auto slot) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        b->setMaximumWidth(60);
        connect(b, &QPushButton::clicked, m_images, slot);
        imageBar->addWidget(b);
    };
    addZoom(tr("Fit"), tr("Fit the image to the panels"), &ImageStrip::zoomToFit);
    addZoom(tr("1:1"), tr("One image pixel per screen pixel"), &ImageStrip::zoomActualSize);
    addZoom(tr("+"), tr("Zoom in (or turn the wheel over a panel)"), &ImageStrip::zoomIn);
    addZoom(tr("−"), tr("Zoom out"), &ImageStrip::zoomOut);
    m_difference = new QCheckBox(tr("Error view |estimate − original| × 4"));
    m_difference->setObjectName("differenceToggle");
    connect(m_difference, &QCheckBox::toggled, this, [this] {
        for (int id : m_runs->ids())
            if (!m_dirtyRuns.contains(id))
                m_dirtyRuns << id;
        if (m_data.dense && m_data.dense->image) {
            const ImageLayout& img = *m_data.dense->image;
            if (ImagePanel* p = m_images->find("corrupted"))
                p->setImage(m_difference->isChecked() ? differenceImage(img.corrupted, img.original)
                                                      : toGrayImage(img.corrupted));
        }
        refreshPanels();
    });
    imageBar->addSpacing(12);
    imageBar->addWidget(m_difference);
    imageBar->addStretch(1);
    imagesLayout->addLayout(imageBar);
    imagesLayout->addWidget(m_images, 1);

    auto* chartsArea = new QWidget;
    auto* chartsLayout = new QVBoxLayout(chartsArea);
    chartsArea->setMinimumHeight(230); // room for the axis labels whatever the view above wants
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    auto* chartBar = new QHBoxLayout;
    m_metric = new QComboBox;
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents); // metric titles are long
    m_metric->setObjectName("metricPicker");
    m_xAxis = new QComboBox;
    m_xAxis->setObjectName("xAxisPicker");
    for (const TraceAxisInfo& a : traceAxes())
        m_xAxis->addItem(QCoreApplication::translate("TracePlot", a.choice), QString(a.key));
    m_logX = new QCheckBox(tr("Log x"));
    m_logX->setObjectName("logX");
    chartBar->addWidget(new QLabel(tr("Held-out metric")));
    chartBar->addWidget(m_metric);
    chartBar->addSpacing(12);
    chartBar->addWidget(new QLabel(tr("x axis")));
    chartBar->addWidget(m_xAxis);
    chartBar->addWidget(m_logX);
    chartBar->addStretch(1);
    chartsLayout->addLayout(chartBar);
    auto* chartSplit = new QSplitter(Qt::Horizontal);
    m_elboChart = new PlotView;
    m_elboChart->setObjectName("elboChart");
    m_elboChart->setTitle(tr("ELBO"));
    m_metricChart = new PlotView;
    m_metricChart->setObjectName("metricChart");
    chartSplit->addWidget(m_elboChart);
    chartSplit->addWidget(m_metricChart);
    chartsLayout->addWidget(chartSplit, 1);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &MainWindow::updateChartAxes);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, &MainWindow::updateChartAxes);
    connect(m_logX, &QCheckBox::toggled, this, &MainWindow::updateChartAxes);

    // Tables have no images: the loadings heatmap of the selected (or latest) run stands there.
    auto* loadingsArea = new QWidget;
    auto* loadingsLayout = new QVBoxLayout(loadingsArea);
    loadingsLayout->setContentsMargins(0, 0, 0, 0);
    m_loadingsRun =
        new QLabel(tr("Loadings of the selected run (features × channels, ordered by E[π_k])."));
    m_loadings = new LoadingsView;
    m_loadings->setObjectName("loadingsView");
    // Beside the loadings, the covariance a model estimates when it has one (hidden otherwise).
    m_covariance = new CovarianceView;
    m_covariance->setObjectName("covarianceView");
    auto* loadingsSplit = new QSplitter(Qt::Horizontal);
    loadingsSplit->addWidget(m_loadings);
    loadingsSplit->addWidget(m_covariance);
    loadingsSplit->setStretchFactor(0, 1);
    loadingsSplit->setStretchFactor(1, 1);
    loadingsLayout->addWidget(m_loadingsRun);
    loadingsLayout->addWidget(loadingsSplit, 1);
    // Corpora: the topics of the selected (or latest) run.
    auto* topicsArea = new QWidget;
    auto* topicsLayout = new QVBoxLayout(topicsArea);
    topicsLayout->setContentsMargins(0, 0, 0, 0);
    m_topicsRun = new QLabel(tr("Topics of the selected run appear here once it has started."));
    m_topicsRun->setObjectName("topicsTitle");
    m_topics = new TopicsView;
    m_topics->setObjectName("topicsView");
    // Beside the table, the correlations between the topics when the fit has them (it hides
    // itself otherwise, and the table takes the width).
    m_correlations = new TopicCorrelationsView;
    m_correlations->setObjectName("topicCorrelations");
    auto* topicsSplit = new QSplitter(Qt::Horizontal);
    topicsSplit->setObjectName("topicsSplitter");
    topicsSplit->addWidget(m_topics);
    topicsSplit->addWidget(m_correlations);
    topicsSplit->setStretchFactor(0, 1);
    topicsSplit->setStretchFactor(1, 0); // the heatmap is as tall as the page allows: no wider
    topicsLayout->addWidget(m_topicsRun);
    topicsLayout->addWidget(topicsSplit, 1);
    m_centreTop = new QStackedWidget;
    m_centreTop->addWidget(imagesArea);
    m_centreTop->addWidget(loadingsArea);
    m_centreTop->addWidget(topicsArea);
    // Ratings: any user's recommendations from the selected (or latest) run.
    m_recommendations = new RecommendationsView;
    m_recommendations->setObjectName("recommendationsView");
    m_centreTop->addWidget(m_recommendations);
    // Labelled data: the posterior over the weights of the selected (or latest) run, or its
    // predictive slice.
    m_weightsPage = new WeightsPage;
    m_centreTop->addWidget(m_weightsPage);
    // Graphs: the adjacency ordered by the selected (or latest) run's communities, and the
    // links it predicts.
    m_graphPage = new GraphPage;
    m_graphPage->setObjectName("graphPage");
    m_centreTop->addWidget(m_graphPage); // the pages in DataView's order

    auto* centre = new QSplitter(Qt::Vertical);
    centre->setObjectName("centreSplitter");
    centre->addWidget(m_centreTop);
    centre->addWidget(chartsArea);
    centre->setStretchFactor(0, 3);
    centre->setStretchFactor(1, 2);
    setCentralWidget(centre);

    // --- Bottom dock: runs, compare results, atoms.
    m_tabs = new QTabWidget;
    m_tabs->setObjectName("bottomTabs");
    auto* runsPage = new QWidget;
    auto* runsLayout = new QVBoxLayout(runsPage);
    runsLayout->setContentsMargins(2, 2, 2, 2);
    m_runsModel = new RunsTableModel(m_runs, this);
    m_runsView = new QTableView;
    m_runsView->setObjectName("runsTable");
    m_runsView->setModel(m_runsModel);
    m_runsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runsView->verticalHeader()->hide();
    m_runsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_runsView->horizontalHeader()->setSectionResizeMode(RunsTableModel::Parameters,
                                                         QHeaderView::Stretch);
    runsLayout->addWidget(m_runsView);
    m_tabs->addTab(runsPage, tr("Runs"));
    connect(m_runsView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        updateAtoms();
    });

    m_results = new QStandardItemModel(this);
    m_resultsView = new QTableView;
    m_resultsView->setObjectName("resultsTable");
    m_resultsView->setModel(m_results);
    m_resultsView->verticalHeader()->hide();
    m_resultsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resultsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tabs->addTab(m_resultsView, tr("Compare results"));

    auto* atomsPage = new QWidget;
    auto* atomsLayout = new QVBoxLayout(atomsPage);
    atomsLayout->setContentsMargins(2, 2, 2, 2);
    m_atomsRun = new QLabel(tr("Select a run to see its dictionary."));
    m_atoms = new ImagePanel(tr("Dictionary atoms"));
    m_atoms->setObjectName("atomsPanel");
    atomsLayout->addWidget(m_atomsRun);
    atomsLayout->addWidget(m_atoms, 1);
    m_tabs->addTab(atomsPage, tr("Atoms"));

    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName("runsDock");
    runsDock->setWidget(m_tabs);
    runsDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    resizeDocks({runsDock}, {170}, Qt::Vertical);
    resizeDocks({setupDock}, {320}, Qt::Horizontal);

    // --- Status bar: busy indicator with Cancel, and the speed of the runs.
    m_busyLabel = new QLabel;
    m_busyBar = new QProgressBar;
    m_busyBar->setRange(0, 0);
    m_busyBar->setMaximumWidth(140);
    m_busyCancel = new QPushButton(tr("Cancel"));
    m_busyCancel->setObjectName("busyCancel");
    connect(m_busyCancel, &QPushButton::clicked, this, &MainWindow::cancelBusy);
    statusBar()->addWidget(m_busyLabel);
    statusBar()->addWidget(m_busyBar);
    statusBar()->addWidget(m_busyCancel);
    m_busyLabel->hide();
    m_busyBar->hide();
    m_busyCancel->hide();
    m_speedLabel = new QLabel;
    m_speedLabel->setObjectName("speedLabel");
    statusBar()->addPermanentWidget(m_speedLabel);

    m_settingsBox->setVisible(false);
}

void MainWindow::updateChartAxes()
{
    const TraceAxis axis =
        traceAxisOf(m_xAxis->currentData().toString().toStdString()).value_or(TraceAxis::Seconds);
    const QString x = QCoreApplication::translate("TracePlot", traceAxis(axis).title);
    m_elboChart->setAxisTitles(x, tr("ELBO"));
    m_metricChart->setTitle(m_metric->currentText());
    m_metricChart->setAxisTitles(x, m_metric->currentText());
    m_elboChart->setLogX(m_logX->isChecked());
    m_metricChart->setLogX(m_logX->isChecked());
    m_chartsDirty = true;
    refreshCharts();
}

} // namespace svi::ui
