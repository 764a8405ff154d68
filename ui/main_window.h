#pragma once
// The workbench window: data and task on the left, image panels and live charts in the
// middle, runs / compare results / atoms below. All inference runs in RunManager's workers
// and loading and patch cutting on pool threads; results superseded by a newer request are
// dropped. Errors are shown in a dialog naming the file and the reason; nothing already
// computed is lost. GUI thread only.

#include "core/data/dense_data.h"
#include "core/run/data_kinds.h"
#include "ui/run_manager.h"
#include "ui/session.h"

#include <QMainWindow>
#include <QPointer>
#include <QSet>
#include <memory>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QGroupBox;
class QStackedWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;
class QTabWidget;
class QTimer;
class QToolButton;

namespace svi::ui {

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
    static constexpr const char* kDefaultImage = ":/images/default.png";

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens data of any kind (core/io/data_kinds.h: recognised by their content, read and
    // built in the background with the kind's settings) or a session (.json).
    void openPath(const QString& path);
    // Several files make one data set where their kind allows (FCS files stacked by channel).
    void openPaths(const QStringList& paths);
    // The data kind shown ("image", "table", "corpus", "ratings"); empty before any data.
    QString dataKind() const;
    bool dataReady() const { return bool(m_data); }
    DenseDataPtr currentData() const { return m_data.dense; }
    CountDataPtr currentCounts() const { return m_data.counts; }
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
    QString sessionPath() const { return m_sessionPath; }

    // Parts, for tests and for the tour.
    RunManager* runs() const { return m_runs; }
    // The data kind's settings (those a Names list does not show).
    ParamForm* settingsForm() const { return m_settingsForm; }
    QGroupBox* settingsBox() const { return m_settingsBox; }
    // "Read as": the kinds that can read the files (shown when there is a choice).
    QComboBox* readAsPicker() const { return m_readAs; }
    // The names a Names setting picks from (a table's channels), ticked as selected.
    QListWidget* namesList() const { return m_names; }
    LoadingsView* loadingsView() const { return m_loadings; }
    // The weights page shows the selected run's weights (WeightsView) or, for a regression
    // model that publishes one instead, its predictive along a feature (SliceView).
    WeightsPage* weightsPage() const { return m_weightsPage; }
    GraphPage* graphPage() const { return m_graphPage; }
    CovarianceView* covarianceView() const { return m_covariance; }
    WeightsView* weightsView() const;
    SliceView* sliceView() const;
    QLabel* weightsTitle() const;
    // The page the centre shows (DataView's order: image, loadings, topics, recommendations,
    // weights).
    int centrePage() const;
    RecommendationsView* recommendationsView() const { return m_recommendations; }
    QListWidget* compareList() const { return m_compareList; }
    QSpinBox* repeatsBox() const { return m_repeats; }
    TopicsView* topicsView() const { return m_topics; }
    // Beside the topics table: their correlations, shown when the run's preview has them.
    TopicCorrelationsView* topicCorrelationsView() const { return m_correlations; }
    QLabel* topicsTitle() const { return m_topicsRun; }
    QLabel* dataLabel() const { return m_dataLabel; }
    QPushButton* compareButton() const { return m_compareButton; }
    ParamForm* algorithmForm() const { return m_algorithmForm; }
    ParamForm* budgetForm() const { return m_budgetForm; }
    QComboBox* modelPicker() const { return m_model; }
    QComboBox* algorithmPicker() const { return m_algorithm; }
    QComboBox* metricPicker() const { return m_metric; }
    PlotView* elboChart() const { return m_elboChart; }
    PlotView* metricChart() const { return m_metricChart; }
    ImageStrip* images() const { return m_images; }
    ImagePanel* atomsPanel() const { return m_atoms; }
    QTableView* runsView() const { return m_runsView; }
    QStandardItemModel* resultsModel() const { return m_results; }
    QAction* runAction() const { return m_actRun; }
    QLabel* runBlockedReason() const { return m_runBlocked; }
    QStringList recentFiles() const;
    int sessionRunCount() const { return int(m_sessionRuns.size()); }
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
    void loadSettings();
    void saveSettings() const;
    void onAlgorithmChanged();
    void onModelChanged();
    // Reads `data` (its kind recognised when empty) off the UI thread, then builds it; with
    // `fresh`, the settings the files suggest replace the form's (a file opened anew), else
    // the given settings stand (a session, a setting that changes what is read).
    void readData(const DataDescription& data, bool fresh);
    // Builds the data set from what was read, with the forms' settings, off the UI thread.
    void buildData();
    // After an edit of the settings: reads again when a setting that changes what is read
    // moved, else builds again.
    void onSettingsEdited();
    // The form, the names list and the views for the kind and what was read.
    void showKind(const DataKindSpec& kind, const RawData& raw, const ParamValues& settings);
    void showBuilt();
    // The models that accept the current data's kind; keeps the current one when it fits.
    void populateModels();
    void populateMetrics();
    void populateCompare();
    void updateChartAxes();
    void openSession(const QString& path);
    void applySession(const Session& session);
    // A session's runs with folders: finished ones shown as they ended, the others queued to go
    // on from their checkpoints (or from the start when their folder cannot be used).
    void restoreSessionRuns(const Session& session);
    void onRunSaved(int id, const QString& folder, const QString& error);
    void applySpec(const RunDescription& spec); // model, algorithm, parameters and budget
    void updateActions();
    void showError(const QString& title, const QString& message);
    // Writes atomically; on failure shows `failure` with the reason and returns false.
    bool writeOrReport(const QString& path, const QByteArray& bytes, const QString& failure);
    void setBusy(const QString& text, int generation);
    void clearBusy(int generation);
    void cancelBusy();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    QList<int> selectedRuns() const;
    RunDescription specFor(const std::string& algorithm) const;
    void refreshCharts();
    void refreshPanels();
    void refreshStatus();
    void updateRunPanel(int id);
    void updateAtoms();
    void onRunFinished(int id);
    void onGroupFinished(int group);
    void fillResults();
    // The names ticked in the names list.
    int tickedNames() const;
    // The views the kind of a run's data offers (DataView), empty when unknown.
    std::vector<DataView> viewsOf(const RunRecord& r) const;

    RunManager* m_runs = nullptr;
    RunsTableModel* m_runsModel = nullptr;

    // Data: what was read (files, kind, the settings it was read with) and built.
    const DataKindSpec* m_kind = nullptr;
    DataDescription m_read; // settings as read and last built
    std::shared_ptr<const RawData> m_raw;
    DataSet m_data;
    QString m_dataSummary;    // what the kind says of the built data
    int m_loadGeneration = 0; // newer requests make older results stale
    int m_busyGeneration = -1;
    bool m_loading = false;
    std::vector<SessionRun> m_sessionRuns;
    QString m_sessionPath;                       // last saved to or opened from
    QSet<int> m_unsavedRuns;                     // runs added since the session was last saved
    std::optional<RunDescription> m_pendingSpec; // a session's run, applied once its data are read
    QString m_formModel; // the model whose parameters the algorithm form shows

    // Widgets.
    QLabel* m_dataLabel = nullptr;
    QLabel* m_dataError = nullptr;
    QGroupBox* m_settingsBox = nullptr;
    QLabel* m_settingsTask = nullptr;
    QWidget* m_readAsRow = nullptr;
    QComboBox* m_readAs = nullptr;
    std::vector<const DataKindSpec*> m_readers; // what m_readAs offers
    ParamForm* m_settingsForm = nullptr;
    QWidget* m_namesArea = nullptr;
    QLabel* m_namesCount = nullptr;
    QListWidget* m_names = nullptr;
    std::string m_namesKey; // the Names setting the list shows; empty when none
    QTimer* m_settingsDebounce = nullptr;
    RecommendationsView* m_recommendations = nullptr;
    QStackedWidget* m_centreTop = nullptr;
    TopicsView* m_topics = nullptr;
    TopicCorrelationsView* m_correlations = nullptr;
    QLabel* m_topicsRun = nullptr;
    LoadingsView* m_loadings = nullptr;
    QLabel* m_loadingsRun = nullptr;
    WeightsPage* m_weightsPage = nullptr;
    GraphPage* m_graphPage = nullptr;
    CovarianceView* m_covariance = nullptr;
    QComboBox* m_model = nullptr;
    QComboBox* m_algorithm = nullptr;
    QLabel* m_algorithmHelp = nullptr;
    ParamForm* m_algorithmForm = nullptr;
    ParamForm* m_budgetForm = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_compareButton = nullptr;
    QListWidget* m_compareList = nullptr;
    QSpinBox* m_repeats = nullptr;
    QLabel* m_runBlocked = nullptr;
    ImageStrip* m_images = nullptr;
    QCheckBox* m_difference = nullptr;
    PlotView* m_elboChart = nullptr;
    PlotView* m_metricChart = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_xAxis = nullptr;
    QCheckBox* m_logX = nullptr;
    QTableView* m_runsView = nullptr;
    QStandardItemModel* m_results = nullptr;
    QTableView* m_resultsView = nullptr;
    ImagePanel* m_atoms = nullptr;
    QLabel* m_atomsRun = nullptr;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_busyLabel = nullptr;
    QProgressBar* m_busyBar = nullptr;
    QPushButton* m_busyCancel = nullptr;
    QLabel* m_speedLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QTimer* m_refresh = nullptr;

    QAction* m_actOpen = nullptr;
    QAction* m_actRun = nullptr;
    QAction* m_actPause = nullptr;
    QAction* m_actResume = nullptr;
    QAction* m_actStop = nullptr;
    QAction* m_actStopAll = nullptr;
    QAction* m_actCompare = nullptr;
    QAction* m_actRerun = nullptr;
    QAction* m_actSaveRun = nullptr;
    // Saving a session: errors of the runs written at once are gathered into one message.
    bool m_savingSession = false;
    QStringList m_saveErrors;
    // Quitting after a save whose runs' checkpoints are still to come.
    bool m_quitWhenSaved = false;
    bool m_quitting = false;

    QList<int> m_dirtyRuns; // snapshots not yet drawn
    bool m_chartsDirty = false;
    int m_compareGroup = 0;
    QList<int> m_compareRuns; // the runs of the last Compare, in the order queued
    int m_fullPassRun = 0;    // the run whose full pass the busy bar shows
};

} // namespace svi::ui
