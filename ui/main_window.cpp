// The window: its panels, where they stand, and how they are wired together.

#include "ui/algorithm_panel.h"
#include "ui/busy_indicator.h"
#include "ui/centre_pages.h"
#include "ui/charts_panel.h"
#include "ui/data_panel.h"
#include "ui/main_window_parts.h"
#include "ui/results_panel.h"
#include "ui/session_controller.h"

#include <QScrollBar>

namespace svi::ui {

using namespace window_parts;

namespace {

// The setup column: it scrolls vertically only, so it is as wide as its widest row needs (a
// model's long name, the longest choice of a setting), following them as the data kind, the
// model and the forms change.
class SetupScrollArea : public QScrollArea
{
public:
    SetupScrollArea()
    {
        setWidgetResizable(true);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setMinimumWidth(300);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        // QScrollArea watches its widget; a layout request there may change what it needs.
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            QTimer::singleShot(0, this, [this] {
                if (widget())
                    setMinimumWidth(std::max(300, widget()->minimumSizeHint().width() +
                                                      verticalScrollBar()->sizeHint().width() +
                                                      2 * frameWidth()));
            });
        return QScrollArea::eventFilter(watched, event);
    }
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
    connectRuns();
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
    m_results->releaseRuns();
    delete m_runs;
    m_runs = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Layout

void MainWindow::buildUi()
{
    // The status bar first: the data panel shows its work there.
    m_busy = new BusyIndicator(m_runs, statusBar(), this);

    // --- Setup dock: data, task, model, algorithm, budget, Run / Compare.
    auto* setup = new QWidget;
    auto* setupLayout = new QVBoxLayout(setup);
    m_data = new DataPanel(m_busy);
    m_algorithms = new AlgorithmPanel;
    setupLayout->addWidget(m_data);
    setupLayout->addWidget(m_algorithms);
    setupLayout->addStretch(1);
    auto* setupScroll = new SetupScrollArea;
    setupScroll->setWidget(setup);
    auto* setupDock = new QDockWidget(tr("Setup"), this);
    setupDock->setObjectName("setupDock");
    setupDock->setWidget(setupScroll);
    setupDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, setupDock);

    // --- Centre: the data's pages above, charts below.
    m_centre = new CentrePages(m_runs);
    m_charts = new ChartsPanel(m_runs);
    m_centreSplit = new QSplitter(Qt::Vertical);
    m_centreSplit->setObjectName("centreSplitter");
    m_centreSplit->addWidget(m_centre);
    m_centreSplit->addWidget(m_charts);
    m_centreSplit->setStretchFactor(0, 3);
    m_centreSplit->setStretchFactor(1, 2);
    setCentralWidget(m_centreSplit);

    // --- Bottom dock: runs, compare results, atoms.
    m_results = new ResultsPanel(m_runs);
    m_results->addTab(m_centre->atomsPage(), tr("Atoms"));
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName("runsDock");
    runsDock->setWidget(m_results);
    runsDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    resizeDocks({runsDock}, {170}, Qt::Vertical);
    resizeDocks({setupDock}, {320}, Qt::Horizontal);

    m_session =
        new SessionController(SessionParts{m_runs, m_data, m_algorithms, m_busy, this}, this);

    connect(m_data, &DataPanel::opened, this, &MainWindow::addRecent);
    connect(m_data, &DataPanel::kindShown, this, &MainWindow::onKindShown);
    connect(m_data, &DataPanel::readyChanged, this, &MainWindow::onDataReady);
    connect(m_data, &DataPanel::stateChanged, this, &MainWindow::updateActions);
    connect(m_data, &DataPanel::readFailed, this,
            [this](const QString& title, const QString& message) {
                m_session->dropPendingRun();
                showError(title, message);
            });
    connect(m_algorithms, &AlgorithmPanel::edited, this, &MainWindow::updateActions);
    connect(m_centre, &CentrePages::differenceToggled, this, [this] {
        for (int id : m_runs->ids())
            markDirty(id);
        refreshPanels();
    });
    connect(m_results, &ResultsPanel::selectionChanged, this, [this] {
        updateActions();
        updateAtoms();
    });
    connect(m_session, &SessionController::failed, this, &MainWindow::showError);
    connect(m_session, &SessionController::runsChanged, this, &MainWindow::updateActions);
    connect(m_session, &SessionController::runsRestored, m_charts, &ChartsPanel::markAllDirty);
}

void MainWindow::connectRuns()
{
    connect(m_runs, &RunManager::snapshotArrived, this, &MainWindow::markDirty);
    connect(m_runs, &RunManager::runChanged, this, [this](int id) {
        markDirty(id);
        updateActions();
    });
    connect(m_runs, &RunManager::runAdded, this, [this] {
        m_charts->populateMetrics(dataKind().toStdString()); // a run over other data brings its
                                                             // metrics
    });
    connect(m_runs, &RunManager::runFinished, this, &MainWindow::onRunFinished);
    connect(m_runs, &RunManager::groupFinished, this, &MainWindow::onGroupFinished);
    connect(m_runs, &RunManager::folderOpened, this,
            [this](const QString& folder, const QList<int>& ids) {
                int watching = 0;
                for (int id : ids)
                    watching += m_runs->record(id)->status == RunStatus::Watching;
                m_charts->markAllDirty();
                m_results->selectRun(ids.value(ids.size() - 1));
                m_busy->showMessage(tr("%1: %n run(s), %2 still being written", "", int(ids.size()))
                                        .arg(QDir::toNativeSeparators(folder))
                                        .arg(watching),
                                    8000);
            });
    connect(m_runs, &RunManager::folderFailed, this,
            [this](const QString& folder, const QString& message) {
                showError(tr("Cannot open %1").arg(QFileInfo(folder).fileName()), message);
            });
}

void MainWindow::onKindShown(const DataKindSpec& kind)
{
    if (m_centre->showKind(kind) != DataView::Image) {
        const int h = m_centreSplit->height(); // lists need less height than images
        if (h > 0)
            m_centreSplit->setSizes({h / 2, h - h / 2});
    }
    m_algorithms->populateModels(kind);
    m_charts->populateMetrics(kind.key);
    m_session->applyPendingRun();
}

void MainWindow::onDataReady(bool ready)
{
    if (const DataKindSpec* kind = m_data->kind())
        m_centre->showData(*kind, m_data->data());
    updateActions();
    emit dataReadyChanged(ready);
}

// ---------------------------------------------------------------------------------------------
// Parts

QString MainWindow::dataKind() const
{
    return m_data->kind() ? QString::fromStdString(m_data->kind()->key) : QString();
}

DataDescription MainWindow::dataDescription() const
{
    return m_data->description();
}

RunDescription MainWindow::runDescription() const
{
    return m_algorithms->runDescription(m_data->description());
}

QString MainWindow::sessionPath() const
{
    return m_session->path();
}

int MainWindow::sessionRunCount() const
{
    return m_session->runCount();
}

WeightsView* MainWindow::weightsView() const
{
    return m_centre->weightsPage()->weightsView();
}

SliceView* MainWindow::sliceView() const
{
    return m_centre->weightsPage()->sliceView();
}

QLabel* MainWindow::weightsTitle() const
{
    return m_centre->weightsPage()->caption();
}

} // namespace svi::ui
