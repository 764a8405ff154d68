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
        if (r && r->group == m_compareGroup && m_compareGroup != 0 && !r->summary)
            fillResultRow(id); // "running" in place of "queued"
        updateActions();
    });
    connect(m_runs, &RunManager::runAdded, this, [this](int id) { m_unsavedRuns.insert(id); });
    connect(m_runs, &RunManager::runFinished, this, &MainWindow::onRunFinished);
    connect(m_runs, &RunManager::groupFinished, this, &MainWindow::onGroupFinished);
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

    auto* taskBox = new QGroupBox(tr("Inpainting task"));
    m_taskBox = taskBox;
    auto* taskLayout = new QVBoxLayout(taskBox);
    m_taskForm = new ParamForm;
    m_taskForm->setObjectName("taskForm");
    m_taskForm->setSpecs(InpaintOptions::params());
    taskLayout->addWidget(m_taskForm);
    setupLayout->addWidget(taskBox);
    m_taskDebounce = new QTimer(this);
    m_taskDebounce->setSingleShot(true);
    m_taskDebounce->setInterval(250);
    connect(m_taskForm, &ParamForm::edited, this, [this] {
        m_loading = bool(m_image); // the data shown no longer matches the form
        m_taskDebounce->start();
        updateActions();
    });
    connect(m_taskDebounce, &QTimer::timeout, this, &MainWindow::rebuildTaskData);

    // Tables: channels, transform and held-out split (shown instead of the inpainting task).
    m_tableBox = new QGroupBox(tr("Channels and held-out task"));
    auto* tableLayout = new QVBoxLayout(m_tableBox);
    m_channelCount = new QLabel;
    m_channelCount->setObjectName("channelCount");
    tableLayout->addWidget(m_channelCount);
    m_channels = new QListWidget;
    m_channels->setObjectName("channelList");
    m_channels->setToolTip(tr("The channels the model sees; marker names ($PnS) first, channel "
                              "names ($PnN) in brackets"));
    m_channels->setMinimumHeight(140);
    tableLayout->addWidget(m_channels);
    auto* channelButtons = new QHBoxLayout;
    auto addChannelButton = [&](const QString& text, const QString& tip, auto pick) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, [this, pick] {
            const Table* t = shownTable();
            if (!t)
                return;
            const QSignalBlocker block(m_channels);
            for (int i = 0; i < m_channels->count(); ++i)
                m_channels->item(i)->setCheckState(pick(*t, i) ? Qt::Checked : Qt::Unchecked);
            emit m_channels->itemChanged(nullptr);
        });
        channelButtons->addWidget(b);
    };
    addChannelButton(tr("All"), tr("Model every channel"), [](const Table&, int) { return true; });
    addChannelButton(tr("None"), tr("Clear the selection"),
                     [](const Table&, int) { return false; });
    addChannelButton(tr("Markers"), tr("Channels with a marker name (the default)"),
                     tickedByDefault);
    tableLayout->addLayout(channelButtons);
    m_transpose = new QCheckBox(tr("Transpose (columns become data points)"));
    m_transpose->setObjectName("transposeToggle");
    m_transpose->setToolTip(
        tr("For a matrix stored the other way round, e.g. samples × genes when genes are "
           "to be the data points"));
    tableLayout->addWidget(m_transpose);
    m_tableForm = new ParamForm;
    m_tableForm->setObjectName("tableForm");
    m_tableForm->setSpecs(TableOptions::params(), {"channels"});
    tableLayout->addWidget(m_tableForm);
    setupLayout->addWidget(m_tableBox);
    m_tableBox->setVisible(false);
    auto tableEdited = [this] {
        m_loading = bool(m_table);
        m_taskDebounce->start();
        updateActions();
    };
    connect(m_tableForm, &ParamForm::edited, this, tableEdited);
    connect(m_channels, &QListWidget::itemChanged, this, tableEdited);
    connect(m_transpose, &QCheckBox::toggled, this, [this, tableEdited] {
        if (!m_table)
            return;
        m_tableShown = m_transpose->isChecked() ? transposed(*m_table) : *m_table;
        populateChannels({});
        tableEdited();
    });

    // Corpora: the subsample and the held-out documents; for raw text also the tokenizer.
    m_corpusBox = new QGroupBox(tr("Corpus and held-out documents"));
    m_corpusBox->setObjectName("corpusBox");
    auto* corpusLayout = new QVBoxLayout(m_corpusBox);
    m_corpusForm = new ParamForm;
    m_corpusForm->setObjectName("corpusForm");
    m_corpusForm->setSpecs(CorpusOptions::params());
    corpusLayout->addWidget(m_corpusForm);
    m_textOptions = new QWidget;
    auto* textLayout = new QVBoxLayout(m_textOptions);
    textLayout->setContentsMargins(0, 0, 0, 0);
    auto* textTitle = new QLabel(tr("<b>Words</b> (raw text: edits read the corpus again)"));
    textLayout->addWidget(textTitle);
    m_tokenizerForm = new ParamForm;
    m_tokenizerForm->setObjectName("tokenizerForm");
    m_tokenizerForm->setSpecs(TokenizerOptions::params());
    textLayout->addWidget(m_tokenizerForm);
    auto* subsetRow = new QFormLayout;
    m_subset = new QLineEdit;
    m_subset->setObjectName("subsetEdit");
    m_subset->setPlaceholderText(tr("every file"));
    m_subset->setToolTip(tr("Only the files below a folder of this name, at any depth (e.g. "
                            "20news-bydate-train); empty = every file"));
    subsetRow->addRow(tr("Subset folder"), m_subset);
    textLayout->addLayout(subsetRow);
    corpusLayout->addWidget(m_textOptions);
    setupLayout->addWidget(m_corpusBox);
    m_corpusBox->setVisible(false);
    connect(m_corpusForm, &ParamForm::edited, this, [this] {
        m_loading = bool(m_corpus);
        m_taskDebounce->start();
        updateActions();
    });
    m_readDebounce = new QTimer(this);
    m_readDebounce->setSingleShot(true);
    m_readDebounce->setInterval(600); // reading raw text takes a while: wait for the typing to end
    auto textEdited = [this] {
        if (!m_corpus)
            return;
        m_loading = true;
        m_readDebounce->start();
        updateActions();
    };
    connect(m_tokenizerForm, &ParamForm::edited, this, textEdited);
    connect(m_subset, &QLineEdit::textEdited, this, textEdited);
    connect(m_readDebounce, &QTimer::timeout, this, &MainWindow::rereadCorpus);

    // Ratings: binarisation and the held-out split (Gopalan et al. 2015).
    m_ratingsBox = new QGroupBox(tr("Ratings and held-out split"));
    m_ratingsBox->setObjectName("ratingsBox");
    auto* ratingsLayout = new QVBoxLayout(m_ratingsBox);
    m_ratingsForm = new ParamForm;
    m_ratingsForm->setObjectName("ratingsForm");
    m_ratingsForm->setSpecs(RatingsOptions::params());
    ratingsLayout->addWidget(m_ratingsForm);
    setupLayout->addWidget(m_ratingsBox);
    m_ratingsBox->setVisible(false);
    connect(m_ratingsForm, &ParamForm::edited, this, [this] {
        m_loading = bool(m_ratings);
        m_taskDebounce->start();
        updateActions();
    });

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
    m_budgetForm->setSpecs(budgetSpecs());
    budgetLayout->addWidget(m_budgetForm);
    setupLayout->addWidget(budgetBox);
    connect(m_budgetForm, &ParamForm::edited, this, &MainWindow::updateActions);

    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setObjectName("runButton");
    m_runButton->setDefault(true);
    m_compareButton = new QPushButton(tr("Compare"));
    m_compareButton->setObjectName("compareButton");
    m_compareButton->setToolTip(
        tr("Run MF-SVI, MF-SSVI, Titsias-SSVI, Mimno-SVI and Gibbs-SSVI one after "
           "another on these data with the same seed and budget"));
    m_compareBatch = new QCheckBox(tr("with batch Gibbs"));
    m_compareBatch->setObjectName("compareBatch");
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 1);
    buttons->addWidget(m_compareButton, 1);
    setupLayout->addLayout(buttons);
    setupLayout->addWidget(m_compareBatch);
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
    loadingsLayout->addWidget(m_loadingsRun);
    loadingsLayout->addWidget(m_loadings, 1);
    // Corpora: the topics of the selected (or latest) run.
    auto* topicsArea = new QWidget;
    auto* topicsLayout = new QVBoxLayout(topicsArea);
    topicsLayout->setContentsMargins(0, 0, 0, 0);
    m_topicsRun = new QLabel(tr("Topics of the selected run appear here once it has started."));
    m_topicsRun->setObjectName("topicsTitle");
    m_topics = new TopicsView;
    m_topics->setObjectName("topicsView");
    topicsLayout->addWidget(m_topicsRun);
    topicsLayout->addWidget(m_topics, 1);
    m_centreTop = new QStackedWidget;
    m_centreTop->addWidget(imagesArea);
    m_centreTop->addWidget(loadingsArea);
    m_centreTop->addWidget(topicsArea);
    // Ratings: any user's recommendations from the selected (or latest) run.
    m_recommendations = new RecommendationsView;
    m_recommendations->setObjectName("recommendationsView");
    m_centreTop->addWidget(m_recommendations);

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

    m_results = new QStandardItemModel(0, ResColumnCount, this);
    m_results->setHorizontalHeaderLabels({tr("Run"), tr("Algorithm"), tr("PSNR all (dB)"),
                                          tr("PSNR missing (dB)"), tr("Held-out LL"),
                                          tr("Held-out MSE"), tr("s/step"), tr("Steps"),
                                          tr("Epochs"), tr("Termination")});
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

    showTaskFor(DataMode::Image);
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
