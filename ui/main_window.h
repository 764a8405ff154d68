#pragma once
// The workbench window: data and task on the left, image panels and live charts in the
// middle, runs / compare results / atoms below. All inference runs in RunManager's workers
// and loading and patch cutting on pool threads; results superseded by a newer request are
// dropped. Errors are shown in a dialog naming the file and the reason; nothing already
// computed is lost. GUI thread only.
//
// The window is a frame: each dock and page is a panel that builds its widgets and keeps its
// state (DataPanel, AlgorithmPanel, CentrePages, ChartsPanel, ResultsPanel; the session and run
// folders in SessionController, the status bar's busy indicator in BusyIndicator). The window
// places them, wires them together, and keeps the menus and actions, the runs' refresh and what
// spans them all (errors, exports, closing).

#include "core/data/dense_data.h"
#include "core/io/samples.h"
#include "core/run/data_kinds.h"
#include "ui/algorithm_panel.h"
#include "ui/centre_pages.h"
#include "ui/charts_panel.h"
#include "ui/data_panel.h"
#include "ui/results_panel.h"
#include "ui/run_manager.h"
#include "ui/session.h"

#include <QMainWindow>
#include <QPointer>
#include <QSet>
#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QGroupBox;
class QMenu;
class QPushButton;
class QSpinBox;
class QSplitter;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace svi::ui {

class BusyIndicator;
class SessionController;
class ImagePanel;
class ImageStrip;
class LoadingsView;
class WeightsView;
class WeightsPage;
class GraphPage;
class CovarianceView;
class SliceView;
class RecommendationsView;
class ParamForm;
class PlotView;
class RunsTableModel;
class TopicCorrelationsView;
class TopicsView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    static constexpr const char* kDefaultImage = svi::kDefaultImage; // core/io/samples.h

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens data of any kind (core/io/data_kinds.h: recognised by their content, read and
    // built in the background with the kind's settings) or a session (.json).
    void openPath(const QString& path);
    // Several files make one data set where their kind allows (FCS files stacked by channel).
    void openPaths(const QStringList& paths);
    // The data kind shown ("image", "table", "corpus", "ratings"); empty before any data.
    QString dataKind() const;
    bool dataReady() const { return bool(m_data->data()); }
    DenseDataPtr currentData() const { return m_data->data().dense; }
    CountDataPtr currentCounts() const { return m_data->data().counts; }
    // The data as the forms describe them: files, kind and every setting.
    DataDescription dataDescription() const;
    // The run Run would start: the data, the pickers, the forms, the budget.
    RunDescription runDescription() const;

    // Starts a run with the pickers' and forms' values; 0 when Run is disabled.
    int startRun();
    // Runs the ticked algorithms of the model's comparison group one after another on the
    // current data with the same split and budget, each `repeats` times (seeds seed, seed + 1,
    // …); fills the results table (mean ± sd per algorithm). Returns the group, 0 when Compare
    // is disabled.
    int compare();
    // Queues again the runs of the last opened session; false when there are none.
    bool rerunSession();

    // Run folders (the layout `svi run --out` writes). Shows the runs of a run folder or a
    // compare folder, read off the GUI thread, marked as read from there and charted as their
    // traces grow until their summary.json is written; a folder that holds no run is reported
    // naming it.
    void openRunFolder(const QString& folder);
    // Goes on with the run saved in `folder`: its run.json's data prepared off the GUI thread
    // (the window's own when they are the same), its trainer built and its checkpoint read on
    // the build thread; the trace so far is shown and the run continues to its budget.
    void resumeRun(const QString& folder);
    // Writes run `id` into `folder` (RunManager::save): a run that is going is checkpointed at
    // its next step boundary first. The outcome is shown in the status bar, or as an error.
    void saveRun(int id, const QString& folder);

    // Exports; each returns false after showing the error. Files are written atomically.
    bool exportChart(PlotView* chart, const QString& path);
    bool exportTraces(const QString& path);
    bool exportResults(const QString& path);
    bool exportRunsTable(const QString& path);
    // Images: original, corrupted, each run's reconstruction and atoms. Tables: each run's
    // loadings as CSV and as a heatmap PNG. Corpora: each run's topics as CSV. Labelled data:
    // each run's weights, or its predictive slice, as CSV and as a plot PNG.
    bool exportReconstructions(const QString& folder);
    // Writes the session to `path` and each of the window's runs as a run folder beside it
    // (session.h); it becomes the session's file. Runs that are going are written once their
    // next checkpoint is in (RunManager::pendingSaves).
    bool saveSession(const QString& path);
    // Asks where (a file dialog) and saves; false when cancelled or the save failed.
    bool saveSessionAs();
    // The file the session was last saved to or opened from; empty when none.
    QString sessionPath() const;

    // Parts, for tests and for the tour.
    RunManager* runs() const { return m_runs; }
    // The data kind's settings (those a Names list does not show).
    ParamForm* settingsForm() const { return m_data->settingsForm(); }
    QGroupBox* settingsBox() const { return m_data->settingsBox(); }
    // "Read as": the kinds that can read the files (shown when there is a choice).
    QComboBox* readAsPicker() const { return m_data->readAsPicker(); }
    // The names a Names setting picks from (a table's channels), ticked as selected.
    QListWidget* namesList() const { return m_data->namesList(); }
    LoadingsView* loadingsView() const { return m_centre->loadingsView(); }
    // The weights page shows the selected run's weights (WeightsView) or, for a regression
    // model that publishes one instead, its predictive along a feature (SliceView).
    WeightsPage* weightsPage() const { return m_centre->weightsPage(); }
    GraphPage* graphPage() const { return m_centre->graphPage(); }
    CovarianceView* covarianceView() const { return m_centre->covarianceView(); }
    WeightsView* weightsView() const;
    SliceView* sliceView() const;
    QLabel* weightsTitle() const;
    // The page the centre shows (DataView's order: image, loadings, topics, recommendations,
    // weights).
    int centrePage() const { return m_centre->currentIndex(); }
    RecommendationsView* recommendationsView() const { return m_centre->recommendationsView(); }
    QListWidget* compareList() const { return m_algorithms->compareList(); }
    QSpinBox* repeatsBox() const { return m_algorithms->repeatsBox(); }
    TopicsView* topicsView() const { return m_centre->topicsView(); }
    // Beside the topics table: their correlations, shown when the run's preview has them.
    TopicCorrelationsView* topicCorrelationsView() const
    {
        return m_centre->topicCorrelationsView();
    }
    QLabel* topicsTitle() const { return m_centre->topicsTitle(); }
    QLabel* dataLabel() const { return m_data->label(); }
    QPushButton* compareButton() const { return m_algorithms->compareButton(); }
    ParamForm* algorithmForm() const { return m_algorithms->algorithmForm(); }
    ParamForm* budgetForm() const { return m_algorithms->budgetForm(); }
    QComboBox* modelPicker() const { return m_algorithms->modelPicker(); }
    QComboBox* algorithmPicker() const { return m_algorithms->algorithmPicker(); }
    QComboBox* metricPicker() const { return m_charts->metricPicker(); }
    PlotView* elboChart() const { return m_charts->elboChart(); }
    PlotView* metricChart() const { return m_charts->metricChart(); }
    ImageStrip* images() const { return m_centre->images(); }
    ImagePanel* atomsPanel() const { return m_centre->atomsPanel(); }
    QTableView* runsView() const { return m_results->runsView(); }
    QStandardItemModel* resultsModel() const { return m_results->resultsModel(); }
    QAction* runAction() const { return m_actRun; }
    QLabel* runBlockedReason() const { return m_algorithms->blockedLabel(); }
    QStringList recentFiles() const;
    int sessionRunCount() const;
    // Brings charts, panels and tables up to date now (normally done on a 5 Hz timer).
    void refreshNow();

signals:
    void dataReadyChanged(bool ready);
    void errorShown(const QString& message);
    void compareFinished();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildUi();
    void buildActions();
    void connectRuns();
    void loadSettings();
    void saveSettings() const;
    // The data's kind is shown: its page, its models and metrics, a session's run.
    void onKindShown(const DataKindSpec& kind);
    // The data were built, or cannot be with the settings.
    void onDataReady(bool ready);
    void updateActions();
    void showError(const QString& title, const QString& message);
    // Writes atomically; on failure shows `failure` with the reason and returns false.
    bool writeOrReport(const QString& path, const QByteArray& bytes, const QString& failure);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    // File ▸ Open Sample (main_window_samples.cpp).
    void buildSampleMenu(QMenu* file);
    void openSample(const std::string& key);
    void markDirty(int id);
    void refreshPanels();
    void updateAtoms();
    void onRunFinished(int id);
    void onGroupFinished(int group);

    RunManager* m_runs = nullptr;
    BusyIndicator* m_busy = nullptr;
    DataPanel* m_data = nullptr;
    AlgorithmPanel* m_algorithms = nullptr;
    CentrePages* m_centre = nullptr;
    ChartsPanel* m_charts = nullptr;
    ResultsPanel* m_results = nullptr;
    SessionController* m_session = nullptr;
    QSplitter* m_centreSplit = nullptr; // the centre pages above the charts
    QMenu* m_recentMenu = nullptr;
    QTimer* m_refresh = nullptr;
    QList<int> m_dirtyRuns; // runs whose snapshots the charts and panels have not drawn yet

    QAction* m_actRun = nullptr;
    QAction* m_actPause = nullptr;
    QAction* m_actResume = nullptr;
    QAction* m_actStop = nullptr;
    QAction* m_actStopAll = nullptr;
    QAction* m_actCompare = nullptr;
    QAction* m_actRerun = nullptr;
    QAction* m_actSaveRun = nullptr;
};

} // namespace svi::ui
