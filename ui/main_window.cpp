#include "ui/main_window.h"

#include "core/data/image_task.h"
#include "core/data/io/corpus_files.h"
#include "core/data/io/data_error.h"
#include "core/data/io/data_files.h"
#include "core/data/io/image_file.h"
#include "core/data/io/run_files.h"
#include "core/metrics/image_metrics.h"
#include "core/run/registry.h"
#include "ui/image_panel.h"
#include "ui/loadings_view.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/quit_guard.h"
#include "ui/recommendations_view.h"
#include "ui/runs_table.h"
#include "ui/topics_view.h"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <set>

namespace svi::ui {

namespace {

constexpr int kMaxRecent = 8;
// Columns of the Compare results table.
enum ResultColumn {
    ResRun,
    ResAlgorithm,
    ResPsnr,
    ResPsnrMissing,
    ResHeldOut,
    ResMse,
    ResSecondsPerStep,
    ResSteps,
    ResEpochs,
    ResTermination,
    ResColumnCount
};

std::vector<ParamSpec> budgetSpecs()
{
    return {
        realParam("seconds", "Seconds",
                  "Training-seconds budget (evaluation time excluded); 0 = none", 60, 0, 1e6),
        intParam("steps", "Steps",
                 "Step budget; 0 = none (the run ends at whichever budget comes first)", 0, 0, 1e9),
        realParam("eval_every", "Snapshot every (s)",
                  "A snapshot (held-out scores, live image) every this many training seconds", 0.5,
                  0.05, 3600),
        realParam("full_every", "Full pass every (s)",
                  "A full pass (whole-image reconstruction and PSNR) every this many training "
                  "seconds; 0 = only "
                  "at the end. The live image needs none: each minibatch refreshes its patches",
                  0, 0, 1e6),
    };
}

struct MetricChoice
{
    const char* key;
    const char* label;
};

const MetricChoice kMetrics[] = {
    {"psnr_running", "PSNR, running reconstruction (dB)"},
    {"psnr", "PSNR, full pass (dB)"},
    {"psnr_missing", "PSNR on missing pixels (dB)"},
    {"heldout_loglik", "Held-out log-likelihood per entry"},
    {"heldout_loglik_total", "Held-out log-likelihood, test-set total"},
    {"mse", "Held-out MSE (normalised units)"},
    {"atoms_per_item", "Atoms per patch"},
    {"features_used", "Features in use"},
    {"noise_sd", "Learned noise σ (0–255)"},
};

// Topic models on a corpus (Hoffman et al. 2013, §4: perplexity of the held-out halves).
const MetricChoice kCorpusMetrics[] = {
    {"perplexity", "Perplexity, held-out words"},
    {"heldout_loglik_per_word", "Held-out LL per word"},
    {"topics_used", "Topics in use"},
};

// Recommenders on ratings (Gopalan et al. 2015, §4: ranking all unrated items).
const MetricChoice kRatingsMetrics[] = {
    {"precision_at_20", "Precision@20, held-out ratings"},
    {"recall_at_20", "Recall@20, held-out ratings"},
    {"heldout_loglik", "Held-out log-likelihood per rating"},
    {"rmse", "RMSE, held-out ratings"},
    {"accuracy", "Accuracy (rounded prediction = rating)"},
    {"validation_loglik", "Validation log-likelihood per rating"},
    {"popularity_precision_at_20", "Popularity baseline: precision@20"},
};

QString displayName(const QString& path)
{
    return path == MainWindow::kDefaultImage ? QObject::tr("default image")
                                             : QFileInfo(path).fileName();
}

QString fixed(double v, int decimals)
{
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QString();
}

struct LoadResult
{
    Eigen::ArrayXXf image;
    std::optional<Table> table;
    std::shared_ptr<const Corpus> corpus;
    std::shared_ptr<const Ratings> ratings;
    QString error;
};

// The channels checked when a table is first opened: those with a marker name ($PnS) when
// some have one (CyTOF files name the antibody there, and leave Time, Event_length, DNA and
// bead channels without or with their metal), else every channel but a time or event counter.
bool defaultChannel(const Table& t, int c)
{
    bool anyMarker = false;
    for (int j = 0; j < t.cols(); ++j)
        anyMarker |= j < int(t.markers.size()) && !t.markers[std::size_t(j)].empty() &&
                     t.markers[std::size_t(j)] != t.columns[std::size_t(j)];
    const QString name = QString::fromStdString(t.columns[std::size_t(c)]).toLower();
    if (name == "time" || name.startsWith("event") || name == "cell_length")
        return false;
    if (!anyMarker)
        return true;
    const std::string& m = c < int(t.markers.size()) ? t.markers[std::size_t(c)] : std::string();
    return !m.empty() && m != t.columns[std::size_t(c)];
}

struct CutResult
{
    DataSet data;
    QString error;
};

} // namespace

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
                     defaultChannel);
    tableLayout->addLayout(channelButtons);
    m_transpose = new QCheckBox(tr("Transpose (columns become data points)"));
    m_transpose->setObjectName("transposeToggle");
    m_transpose->setToolTip(
        tr("For a matrix stored the other way round, e.g. samples × genes when genes are "
           "to be the data points"));
    tableLayout->addWidget(m_transpose);
    m_tableForm = new ParamForm;
    m_tableForm->setObjectName("tableForm");
    m_tableForm->setSpecs(TableOptions::params());
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
    m_xAxis->addItem(tr("Training seconds"), "seconds");
    m_xAxis->addItem(tr("Steps"), "steps");
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
    const QString x = m_xAxis->currentData().toString() == "steps" ? tr("steps") : tr("training s");
    m_elboChart->setAxisTitles(x, tr("ELBO"));
    m_metricChart->setTitle(m_metric->currentText());
    m_metricChart->setAxisTitles(x, m_metric->currentText());
    m_elboChart->setLogX(m_logX->isChecked());
    m_metricChart->setLogX(m_logX->isChecked());
    m_chartsDirty = true;
    refreshCharts();
}

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

    m_actOpen = make(tr("&Open…"), "actionOpen", QKeySequence::Open);
    connect(m_actOpen, &QAction::triggered, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Open an image, a table, FCS files or a session"), QString(),
            tr("Data and sessions (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.pgm *.ppm *.fcs *.csv "
               "*.tsv *.txt *.gz "
               "*.tar *.tgz *.ldac *.dat *.data *.base *.test *.json);;Images (*.png *.jpg *.jpeg "
               "*.tif *.tiff *.bmp *.pgm *.ppm);;"
               "Cytometry (*.fcs);;Tables (*.csv *.tsv *.txt *.csv.gz *.tsv.gz *.txt.gz);;"
               "Text corpora (*.tar *.tar.gz *.tgz *.ldac *.dat docword.*.txt docword.*.txt.gz);;"
               "Ratings (u.data u*.base u*.test ratings.dat ratings.csv ratings.*.gz);;"
               "Sessions (*.json);;All files (*)"));
        if (!paths.isEmpty())
            openPaths(paths);
    });
    file->addAction(m_actOpen);
    auto* openFolder =
        make(tr("Open a &Folder of Text Files…"), "actionOpenFolder", QKeySequence("Ctrl+Shift+O"));
    openFolder->setToolTip(tr("A corpus: one document per file, read recursively"));
    connect(openFolder, &QAction::triggered, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open a folder of text files"));
        if (!dir.isEmpty())
            openPath(dir);
    });
    file->addAction(openFolder);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
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
            exportChart(m_elboChart, p);
    });
    auto* exportMetric =
        make(tr("Metric Chart (PNG or SVG)…"), "actionExportMetric", QKeySequence("Ctrl+Shift+E"));
    connect(exportMetric, &QAction::triggered, this, [this, saveDialog] {
        const QString p =
            saveDialog(tr("Export the metric chart"), tr("PNG (*.png);;SVG (*.svg)"), "png");
        if (!p.isEmpty())
            exportChart(m_metricChart, p);
    });
    auto* exportTrace = make(tr("Traces (CSV)…"), "actionExportTraces", QKeySequence("Ctrl+T"));
    connect(exportTrace, &QAction::triggered, this, [this, saveDialog] {
        const QString p = saveDialog(tr("Export traces"), tr("CSV (*.csv)"), "csv");
        if (!p.isEmpty())
            exportTraces(p);
    });
    auto* exportTable = make(tr("Compare Results (CSV)…"), "actionExportResults", {});
    connect(exportTable, &QAction::triggered, this, [this, saveDialog] {
        const QString p = saveDialog(tr("Export the results table"), tr("CSV (*.csv)"), "csv");
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
    connect(m_runButton, &QPushButton::clicked, m_actRun, &QAction::trigger);
    m_actPause = make(tr("&Pause"), "actionPause", QKeySequence("Ctrl+P"));
    connect(m_actPause, &QAction::triggered, this, [this] {
        for (int id : selectedRuns())
            m_runs->pause(id);
    });
    m_actResume = make(tr("Res&ume"), "actionResume", QKeySequence("Ctrl+Shift+P"));
    connect(m_actResume, &QAction::triggered, this, [this] {
        for (int id : selectedRuns())
            m_runs->resume(id);
    });
    m_actStop = make(tr("&Stop"), "actionStop", QKeySequence("Ctrl+."));
    m_actStop->setToolTip(tr("Stop the selected runs (a final full pass still runs; Cancel in the "
                             "status bar skips it)"));
    connect(m_actStop, &QAction::triggered, this, [this] {
        for (int id : selectedRuns())
            m_runs->stop(id);
    });
    m_actStopAll = make(tr("Stop &All"), "actionStopAll", QKeySequence("Ctrl+Shift+."));
    connect(m_actStopAll, &QAction::triggered, this, [this] {
        for (int id : m_runs->ids())
            m_runs->stop(id);
    });
    m_actCompare = make(tr("&Compare Algorithms"), "actionCompare", QKeySequence("Ctrl+K"));
    connect(m_actCompare, &QAction::triggered, this,
            [this] { compare(m_compareBatch->isChecked()); });
    connect(m_compareButton, &QPushButton::clicked, m_actCompare, &QAction::trigger);
    m_actRerun = make(tr("Re-run &Session"), "actionRerunSession", QKeySequence("Ctrl+Shift+R"));
    connect(m_actRerun, &QAction::triggered, this, [this] { rerunSession(); });
    run->addActions({m_actRun, m_actPause, m_actResume, m_actStop, m_actStopAll});
    run->addSeparator();
    run->addActions({m_actCompare, m_actRerun});

    auto* zoomIn = make(tr("Zoom &In"), "actionZoomIn", QKeySequence::ZoomIn);
    connect(zoomIn, &QAction::triggered, m_images, &ImageStrip::zoomIn);
    auto* zoomOut = make(tr("Zoom &Out"), "actionZoomOut", QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, m_images, &ImageStrip::zoomOut);
    auto* zoomFit = make(tr("&Fit Images"), "actionZoomFit", QKeySequence("Ctrl+0"));
    connect(zoomFit, &QAction::triggered, m_images, &ImageStrip::zoomToFit);
    auto* diff = make(tr("&Error View"), "actionErrorView", QKeySequence("Ctrl+D"));
    diff->setCheckable(true);
    connect(diff, &QAction::toggled, m_difference, &QCheckBox::setChecked);
    connect(m_difference, &QCheckBox::toggled, diff, &QAction::setChecked);
    view->addActions({zoomIn, zoomOut, zoomFit, diff});

    bar->addAction(m_actOpen);
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
    auto restoreForm = [&s](ParamForm* form, const QString& group) {
        for (const ParamSpec& p : form->specs()) {
            const QVariant v = s.value(group + "/" + QString::fromStdString(p.key));
            if (v.isValid())
                form->setText(p.key, v.toString());
        }
    };
    restoreForm(m_taskForm, "task");
    restoreForm(m_budgetForm, "budget");
    const int model = m_model->findData(s.value("run/model").toString());
    if (model >= 0)
        m_model->setCurrentIndex(model);
    const int algorithm = m_algorithm->findData(s.value("run/algorithm", "gibbs-ssvi").toString());
    if (algorithm >= 0)
        m_algorithm->setCurrentIndex(algorithm);
    if (s.value("run/model").toString() == m_model->currentData().toString())
        restoreForm(m_algorithmForm, "params");
    const int metric = m_metric->findData(s.value("chart/metric").toString());
    if (metric >= 0)
        m_metric->setCurrentIndex(metric);
    const int x = m_xAxis->findData(s.value("chart/x").toString());
    if (x >= 0)
        m_xAxis->setCurrentIndex(x);
    m_logX->setChecked(s.value("chart/logx", false).toBool());
    m_compareBatch->setChecked(s.value("compare/batch", false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    auto saveForm = [&s](const ParamForm* form, const QString& group) {
        s.remove(group);
        for (const ParamSpec& p : form->specs())
            if (form->editor(p.key))
                s.setValue(group + "/" + QString::fromStdString(p.key), form->text(p.key));
    };
    saveForm(m_taskForm, "task");
    saveForm(m_budgetForm, "budget");
    saveForm(m_algorithmForm, "params");
    s.setValue("run/model", m_model->currentData());
    s.setValue("run/algorithm", m_algorithm->currentData());
    s.setValue("chart/metric", m_metric->currentData());
    s.setValue("chart/x", m_xAxis->currentData());
    s.setValue("chart/logx", m_logX->isChecked());
    s.setValue("compare/batch", m_compareBatch->isChecked());
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
        const QString path = list[i];
        connect(a, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    m_recentMenu->setEnabled(!list.isEmpty());
}

// ---------------------------------------------------------------------------------------------
// Data

DataSource MainWindow::currentSource() const
{
    DataSource s;
    s.path = m_imagePath;
    if (m_ratings) {
        if (m_ratingsForm->isValid())
            s.ratings = RatingsOptions::fromParams(m_ratingsForm->values());
    } else if (m_corpus) {
        s.morePaths = m_morePaths;
        if (m_corpusForm->isValid())
            s.corpus = CorpusOptions::fromParams(m_corpusForm->values());
        if (isRawTextCorpus(s.path)) {
            if (m_tokenizerForm->isValid())
                s.tokenizer = TokenizerOptions::fromParams(m_tokenizerForm->values());
            s.subset = m_subset->text().trimmed();
        }
    } else if (m_table) {
        s.morePaths = m_morePaths;
        s.table = TableOptions::fromParams(m_tableForm->values());
        s.table.channels = checkedChannels();
        s.transpose = m_transpose->isChecked();
    } else {
        s.task = InpaintOptions::fromParams(m_taskForm->values());
    }
    return s;
}

const Table* MainWindow::shownTable() const
{
    return m_tableShown ? &*m_tableShown : nullptr;
}

std::vector<std::string> MainWindow::checkedChannels() const
{
    const Table* t = shownTable();
    std::vector<std::string> out;
    if (!t)
        return out;
    for (int i = 0; i < m_channels->count() && i < t->cols(); ++i)
        if (m_channels->item(i)->checkState() == Qt::Checked)
            out.push_back(t->columns[std::size_t(i)]);
    return out;
}

void MainWindow::populateChannels(const std::vector<std::string>& keep)
{
    const QSignalBlocker block(m_channels);
    m_channels->clear();
    const Table* t = shownTable();
    if (!t)
        return;
    std::string unknown;
    const auto picked = keep.empty() ? std::nullopt : selectColumns(*t, keep, &unknown);
    for (int c = 0; c < t->cols(); ++c) {
        auto* item = new QListWidgetItem(QString::fromStdString(t->label(c)), m_channels);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = picked ? std::find(picked->begin(), picked->end(), c) != picked->end()
                               : defaultChannel(*t, c);
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
}

void MainWindow::showTaskFor(DataMode mode)
{
    const bool table = mode == DataMode::Table;
    m_taskBox->setVisible(mode == DataMode::Image);
    m_tableBox->setVisible(table);
    m_corpusBox->setVisible(mode == DataMode::Corpus);
    m_ratingsBox->setVisible(mode == DataMode::Ratings);
    m_textOptions->setVisible(mode == DataMode::Corpus && isRawTextCorpus(m_imagePath));
    m_centreTop->setCurrentIndex(mode == DataMode::Image    ? 0
                                 : table                    ? 1
                                 : mode == DataMode::Corpus ? 2
                                                            : 3);
    m_difference->setEnabled(mode == DataMode::Image);
    if (auto* centre = findChild<QSplitter*>("centreSplitter");
        centre && (mode == DataMode::Corpus || mode == DataMode::Ratings)) {
        const int h = centre->height(); // a list of topics needs less height than images
        if (h > 0)
            centre->setSizes({h / 2, h - h / 2});
    }
    populateModels();
    if (m_pendingSpec) {
        applySpec(*m_pendingSpec);
        m_pendingSpec.reset();
    }

    // The metrics the mode's models report; the picker keeps its choice when it still applies.
    const bool corpus = mode == DataMode::Corpus;
    const bool ratings = mode == DataMode::Ratings;
    const QString metric = m_metric->currentData().toString();
    const bool wasCorpus = m_metric->findData("perplexity") >= 0;
    const bool wasRatings = m_metric->findData("precision_at_20") >= 0;
    if (m_metric->count() == 0 || wasCorpus != corpus || wasRatings != ratings) {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        if (corpus)
            for (const MetricChoice& m : kCorpusMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        else if (ratings)
            for (const MetricChoice& m : kRatingsMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        else
            for (const MetricChoice& m : kMetrics)
                m_metric->addItem(tr(m.label), QString(m.key));
        const int keep = m_metric->findData(metric);
        m_metric->setCurrentIndex(std::max(keep, 0)); // perplexity first for corpora
    }
    // Figure 5 of paper 000: held-out log-likelihood against time is what tables are judged by.
    const QString now = m_metric->currentData().toString();
    if (table && now.startsWith("psnr"))
        m_metric->setCurrentIndex(m_metric->findData("heldout_loglik"));
    else if (mode == DataMode::Image && (now.startsWith("heldout") || now == "mse"))
        m_metric->setCurrentIndex(m_metric->findData("psnr_running"));
    updateChartAxes();
}

void MainWindow::populateModels()
{
    const DataKind kind = m_corpus || m_ratings ? DataKind::Count : DataKind::Dense;
    const QString keep = m_model->currentData().toString();
    {
        const QSignalBlocker block(m_model);
        m_model->clear();
        for (const std::string& m : Registry::builtin().models()) {
            QString label = QString::fromStdString(m);
            bool fits = false;
            for (const AlgorithmEntry& e : Registry::builtin().entries())
                if (e.model == m) {
                    label = QString::fromStdString(e.modelLabel);
                    // Count data: recommenders for ratings, topic models for documents.
                    fits |= e.acceptsKind(kind) &&
                            (kind == DataKind::Dense ||
                             Registry::builtin().fitsRatings(m) == bool(m_ratings));
                }
            if (fits)
                m_model->addItem(label, QString::fromStdString(m));
        }
        m_model->setCurrentIndex(std::max(m_model->findData(keep), 0));
    }
    onModelChanged();
}

void MainWindow::openPath(const QString& path)
{
    openPaths({path});
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    const QString path = paths.front();
    if (path.endsWith(".json", Qt::CaseInsensitive)) {
        openSession(path);
        return;
    }
    DataSource probe;
    probe.path = path;
    // Raw text is read with the tokenizer form and the subset (a re-read, a session).
    if (m_tokenizerForm->isValid())
        probe.tokenizer = TokenizerOptions::fromParams(m_tokenizerForm->values());
    probe.subset = m_subset->text().trimmed();
    probe.morePaths = paths.mid(1);
    const bool corpus = probe.isCorpus();
    const bool table = probe.isTable();
    const bool ratings = probe.isRatings();
    if (ratings && paths.size() > 1) {
        showError(tr("Cannot open %n files", "", int(paths.size())),
                  tr("Open one ratings file at a time ('%1' is extra).")
                      .arg(QFileInfo(paths[1]).fileName()));
        return;
    }
    if (!corpus && !table && !ratings && paths.size() > 1) {
        showError(tr("Cannot open %n files", "", int(paths.size())),
                  tr("Several files can be opened together only when all are FCS files; '%1' is an "
                     "image.")
                      .arg(QFileInfo(path).fileName()));
        return;
    }
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(tr("Loading %1…")
                .arg(paths.size() > 1 ? tr("%n files", "", int(paths.size())) : displayName(path)),
            gen);
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this,
            [this, watcher, gen, paths, table, corpus, ratings] {
                watcher->deleteLater();
                if (gen != m_loadGeneration)
                    return; // superseded or cancelled
                LoadResult r = watcher->result();
                if (!r.error.isEmpty()) {
                    m_pendingSpec.reset();
                    m_loading = false;
                    clearBusy(gen);
                    updateActions();
                    showError(tr("Cannot open %1")
                                  .arg(paths.size() > 1
                                           ? (corpus ? tr("the corpus") : tr("the FCS files"))
                                           : displayName(paths.front())),
                              r.error);
                    return;
                }
                m_imagePath = paths.front();
                m_morePaths = paths.mid(1);
                m_ratings.reset();
                if (ratings) {
                    m_image.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_corpus.reset();
                    m_ratings = std::move(r.ratings);
                } else if (corpus) {
                    m_image.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_corpus = std::move(r.corpus);
                } else if (table) {
                    m_corpus.reset();
                    m_image.reset();
                    m_table = std::move(r.table);
                    if (dataFileKind(paths.front().toStdString()) == DataFileKind::Fcs) {
                        const QSignalBlocker block(
                            m_transpose); // events are always the data points
                        m_transpose->setChecked(false);
                    }
                    m_tableShown = m_transpose->isChecked() ? transposed(*m_table) : *m_table;
                    if (!m_pendingChannels)
                        m_tableForm->setText("arcsinh", QString::number(m_table->suggestedArcsinh));
                    populateChannels(m_pendingChannels.value_or(std::vector<std::string>{}));
                    m_pendingChannels.reset();
                } else {
                    m_corpus.reset();
                    m_table.reset();
                    m_tableShown.reset();
                    m_image = r.image;
                }
                showTaskFor(ratings  ? DataMode::Ratings
                            : corpus ? DataMode::Corpus
                            : table  ? DataMode::Table
                                     : DataMode::Image);
                if (paths.size() == 1)
                    addRecent(paths.front());
                rebuildTaskData();
            });
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    watcher->setFuture(QtConcurrent::run([files, table, corpus, ratings, probe] {
        LoadResult r;
        try {
            if (ratings)
                r.ratings = std::make_shared<const Ratings>(readSourceRatings(probe));
            else if (corpus)
                r.corpus = std::make_shared<const Corpus>(readSourceCorpus(probe));
            else if (table)
                r.table = loadTable(files);
            else
                r.image = loadGrayImage(files.front());
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        }
        return r;
    }));
}

void MainWindow::rebuildTaskData()
{
    m_taskDebounce->stop();
    if (m_ratings) {
        rebuildRatingsData();
        return;
    }
    if (m_corpus) {
        rebuildCorpusData();
        return;
    }
    if (m_table) {
        rebuildTableData();
        return;
    }
    if (!m_image)
        return;
    if (!m_taskForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    prepareData(
        source, tr("Cutting %1 into patches…").arg(displayName(source.path)),
        [image = *m_image, source] {
            return makeInpaintingData(image, source.task, source.path.toStdString());
        },
        [this, source] {
            const ImageLayout& img = *m_data.dense->image;
            m_dataLabel->setText(tr("<b>%1</b><br>%2×%3 grey · %4 patches of %5×%5")
                                     .arg(displayName(source.path).toHtmlEscaped())
                                     .arg(img.width)
                                     .arg(img.height)
                                     .arg(QLocale().toString(qlonglong(m_data.dense->rows())))
                                     .arg(img.patch));
            m_dataLabel->setToolTip(source.path);
            ImagePanel* original = m_images->panel("original", tr("Original"));
            original->setImage(toGrayImage(img.original));
            original->setCaption(tr("%1×%2").arg(img.width).arg(img.height));
            ImagePanel* corrupted = m_images->panel("corrupted", tr("Corrupted input"));
            corrupted->setImage(m_difference->isChecked()
                                    ? differenceImage(img.corrupted, img.original)
                                    : toGrayImage(img.corrupted));
            corrupted->setCaption(tr("%1 % missing, σ = %2 · PSNR %3 dB")
                                      .arg(source.task.missing * 100, 0, 'g', 3)
                                      .arg(source.task.noise)
                                      .arg(fixed(psnr(img.original, img.corrupted), 2)));
            m_images->zoomToFit();
        });
}

void MainWindow::prepareData(const DataSource& source, const QString& busyText,
                             std::function<DataSet()> make, std::function<void()> onReady)
{
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(busyText, gen);
    auto* watcher = new QFutureWatcher<CutResult>(this);
    connect(watcher, &QFutureWatcher<CutResult>::finished, this, [this, watcher, gen, onReady] {
        watcher->deleteLater();
        if (gen != m_loadGeneration)
            return;
        m_loading = false;
        clearBusy(gen);
        const CutResult r = watcher->result();
        if (!r.data) {
            // The settings do not fit the data (e.g. a patch larger than the image): say so
            // beside the data; the runs already made keep their own data and results.
            m_data = {};
            m_dataError->setText(r.error);
            m_dataError->setVisible(true);
            updateActions();
            emit dataReadyChanged(false);
            return;
        }
        m_dataError->setVisible(false);
        m_dataError->clear();
        m_data = r.data;
        onReady();
        updateActions();
        emit dataReadyChanged(true);
    });
    watcher->setFuture(QtConcurrent::run([make = std::move(make), name = displayName(source.path)] {
        CutResult r;
        try {
            r.data = make();
        } catch (const std::exception& e) {
            r.error = QString("%1: %2").arg(name, QString::fromStdString(e.what()));
        }
        return r;
    }));
}

void MainWindow::rebuildTableData()
{
    const Table* table = shownTable();
    const int checked = int(checkedChannels().size());
    m_channelCount->setText(
        tr("%1 of %2 channels selected").arg(checked).arg(table ? table->cols() : 0));
    if (!table || !m_tableForm->isValid() || checked == 0) {
        m_loading = false;
        m_data = {};
        if (table && checked == 0) {
            m_dataError->setText(tr("Select at least one channel."));
            m_dataError->setVisible(true);
        }
        updateActions();
        emit dataReadyChanged(false);
        return;
    }
    const DataSource source = currentSource();
    prepareData(
        source, tr("Preparing %1…").arg(displayName(source.path)),
        [table = *table, source] { return makeTableData(table, source.table); },
        [this, source] {
            const std::int64_t held =
                (m_data.dense->roles.array() == std::uint8_t(EntryRole::HeldOut)).count();
            const QString files = source.morePaths.isEmpty()
                                      ? displayName(source.path)
                                      : tr("%1 + %n more", "", int(source.morePaths.size()))
                                            .arg(displayName(source.path));
            m_dataLabel->setText(tr("<b>%1</b><br>%2 rows × %3 channels · %4 held-out entries%5")
                                     .arg(files.toHtmlEscaped())
                                     .arg(QLocale().toString(qlonglong(m_data.dense->rows())))
                                     .arg(m_data.dense->cols())
                                     .arg(QLocale().toString(qlonglong(held)))
                                     .arg(m_data.dense->trainingRows.empty()
                                              ? QString()
                                              : tr(" · %1 training rows")
                                                    .arg(QLocale().toString(qlonglong(
                                                        m_data.dense->trainingRowCount())))));
            m_dataLabel->setToolTip(source.paths().join("\n"));
        });
}

void MainWindow::rebuildCorpusData()
{
    if (!m_corpus || !m_corpusForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    auto tokens = std::make_shared<double>(0.0);
    prepareData(
        source, tr("Splitting %1 into training and test documents…").arg(displayName(source.path)),
        // The token count is one pass over the counts: made on the pool thread too, and
        // read only after the future has finished.
        [corpus = m_corpus, options = source.corpus, tokens]() -> DataSet {
            CountDataPtr c = makeCorpusData(*corpus, options);
            for (std::int64_t d = 0; d < c->rows(); ++d)
                *tokens +=
                    c->train.rowTotal(d) + (d < c->heldOut.rows() ? c->heldOut.rowTotal(d) : 0.0);
            return c;
        },
        [this, source, tokens] {
            const CountData& c = *m_data.counts;
            const QLocale l;
            m_dataLabel->setText(tr("<b>%1</b><br>%2 documents · %3 words in the vocabulary · %4 "
                                    "tokens · %5 test documents")
                                     .arg(displayName(source.path).toHtmlEscaped())
                                     .arg(l.toString(qlonglong(c.rows())))
                                     .arg(l.toString(qlonglong(c.cols())))
                                     .arg(l.toString(qlonglong(std::llround(*tokens))))
                                     .arg(l.toString(qlonglong(c.testRows.size()))));
            m_dataLabel->setToolTip(source.paths().join("\n"));
        });
}

void MainWindow::rebuildRatingsData()
{
    if (!m_ratings || !m_ratingsForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataSource source = currentSource();
    auto stats = std::make_shared<RatingsSplitStats>();
    prepareData(
        source,
        tr("Splitting %1 into training, test and validation ratings…")
            .arg(displayName(source.path)),
        // The split's counts are written on the pool thread and read only after the
        // future has finished.
        [ratings = m_ratings, options = source.ratings, stats]() -> DataSet {
            return makeRatingsData(*ratings, options, stats.get());
        },
        [this, source, stats] {
            const QLocale l;
            m_dataLabel->setText(
                tr("<b>%1</b><br>%2 users × %3 items · %4 training, %5 test and %6 "
                   "validation ratings")
                    .arg(displayName(source.path).toHtmlEscaped())
                    .arg(l.toString(qlonglong(stats->users)))
                    .arg(l.toString(qlonglong(stats->items)))
                    .arg(l.toString(qlonglong(stats->train)))
                    .arg(l.toString(qlonglong(stats->test)))
                    .arg(l.toString(qlonglong(stats->validation))));
            m_dataLabel->setToolTip(QString::fromStdString(m_ratings->source));
            m_recommendations->setData(m_data.counts);
        });
}

void MainWindow::rereadCorpus()
{
    m_readDebounce->stop();
    if (!m_corpus)
        return;
    if (!m_tokenizerForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    openPaths(QStringList{m_imagePath} + m_morePaths);
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
    for (const std::string& a :
         Registry::builtin().comparedAlgorithms(m_model->currentData().toString().toStdString()))
        specs.push_back(specFor(a));
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
    const bool comparable =
        !Registry::builtin()
             .comparedAlgorithms(m_model->currentData().toString().toStdString())
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
    const bool bySteps = m_xAxis->currentData().toString() == "steps";
    const std::string key = m_metric->currentData().toString().toStdString();
    m_elboChart->beginUpdate();
    m_metricChart->beginUpdate();
    for (int id : m_runs->ids()) {
        if (!all && !m_dirtyRuns.contains(id))
            continue;
        const RunRecord* r = m_runs->record(id);
        QVector<QPointF> elbo, metric;
        elbo.reserve(qsizetype(r->trace.size()));
        metric.reserve(qsizetype(r->trace.size()));
        for (const Snapshot& s : r->trace) {
            const double x = bySteps ? double(s.step) : s.trainSeconds;
            elbo.push_back(QPointF(x, s.elbo));
            if (const auto it = s.metrics.find(key); it != s.metrics.end())
                metric.push_back(QPointF(x, it->second));
        }
        QVector<QPair<double, QString>> events;
        if (r->summary && !r->trace.empty() &&
            (r->summary->reason == TerminationReason::Diverged ||
             r->summary->reason == TerminationReason::Failed)) {
            const Snapshot& s = r->trace.back();
            events.push_back({bySteps ? double(s.step) : s.trainSeconds,
                              QString::fromStdString(r->summary->message)});
        }
        // A run whose ELBO is undefined (the batch sampler) has no ELBO series.
        bool anyElbo = false;
        for (const QPointF& p : elbo)
            anyElbo |= std::isfinite(p.y());
        if (anyElbo || !events.isEmpty())
            m_elboChart->setSeries(id, r->label, r->color, anyElbo ? elbo : QVector<QPointF>{},
                                   events);
        m_metricChart->setSeries(id, r->label, r->color, metric, events);
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

void MainWindow::updateAtoms()
{
    const QList<int> sel = selectedRuns();
    const RunRecord* r = sel.isEmpty() ? nullptr : m_runs->record(sel.front());
    if (r && r->data.counts && r->preview && r->preview->factors) {
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
    if (r && r->data.counts) {
        if (!r->preview || r->preview->topics.empty())
            return;
        m_topics->setTopics(r->preview->topics);
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
    if (r && r->data.dense && !r->data.dense->image) {
        if (!r->preview || r->preview->atoms.rows() == 0)
            return;
        QStringList channels;
        for (const std::string& c : r->data.dense->columnNames)
            channels << QString::fromStdString(c);
        m_loadings->setLoadings(r->preview->atoms, r->preview->atomWeights, channels);
        m_loadings->setTitle(
            tr("Loadings of %1 (E[φ_k]; features with E[π_k] ≥ %2, most used first)")
                .arg(r->label)
                .arg(LoadingsView::kMinWeight));
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

bool MainWindow::exportResults(const QString& path)
{
    return writeOrReport(path, tableCsv(*m_results), tr("Cannot export the results"));
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
                view.setLoadings(r->preview->atoms, r->preview->atomWeights, channels);
                view.setTitle(tr("Loadings of %1").arg(r->label));
                const QImage img = view.render(2.0);
                QByteArray png;
                QBuffer buffer(&png);
                buffer.open(QIODevice::WriteOnly);
                img.save(&buffer, "PNG");
                writeFileAtomically(dir.filePath(stem + "-loadings.png"), png);
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
        if (r->status != RunStatus::Finished)
            state.activeRuns << r->label;
        if (m_unsavedRuns.contains(id))
            ++state.unsavedRuns;
    }
    switch (askBeforeQuitting(this, state)) {
    case QuitChoice::Stay:
        event->ignore();
        return;
    case QuitChoice::SaveAndQuit:
        if (!(m_sessionPath.isEmpty() ? saveSessionAs() : saveSession(m_sessionPath))) {
            event->ignore(); // cancelled, or the error was shown: nothing is lost
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
