#pragma once
// The workbench window: data and task on the left, image panels and live charts in the
// middle, runs / compare results / atoms below. All inference runs in RunManager's workers
// and loading and patch cutting on pool threads; results superseded by a newer request are
// dropped. Errors are shown in a dialog naming the file and the reason; nothing already
// computed is lost. GUI thread only.

#include "core/data/dense_data.h"
#include "core/data/table.h"
#include "ui/run_manager.h"
#include "ui/session.h"

#include <Eigen/Core>
#include <QMainWindow>
#include <QPointer>
#include <QSet>
#include <functional>
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
class QStandardItemModel;
class QTableView;
class QTabWidget;
class QTimer;
class QToolButton;

namespace svi::ui {

class ImagePanel;
class ImageStrip;
class LoadingsView;
class RecommendationsView;
class ParamForm;
class PlotView;
class RunsTableModel;
class TopicsView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    static constexpr const char* kDefaultImage = ":/images/default.png";

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens an image (loaded and cut into patches in the background), a table (an FCS or
    // CSV/TSV file, read and split in the background), a text corpus (LDA-C, UCI, a folder or
    // tar archive of text; read, tokenized and split in the background) or a session (.json).
    void openPath(const QString& path);
    // Several FCS files are stacked into one table (channels matched by name).
    void openPaths(const QStringList& paths);
    bool tableMode() const { return m_table.has_value(); }
    // A text corpus is open (documents × words counts; topic models).
    bool corpusMode() const { return bool(m_corpus); }
    // Ratings are open (users × items; recommenders).
    bool ratingsMode() const { return bool(m_ratings); }
    bool dataReady() const { return bool(m_data); }
    DenseDataPtr currentData() const { return m_data.dense; }
    CountDataPtr currentCounts() const { return m_data.counts; }
    DataSource currentSource() const;

    // Starts a run with the pickers' and forms' values; 0 when Run is disabled.
    int startRun();
    // Runs the five SVI algorithms (and optionally the batch Gibbs sampler) one after another
    // on the current data with the same seed and budget; fills the results table.
    int compare(bool includeBatchGibbs);
    // Queues again the runs of the last opened session; false when there are none.
    bool rerunSession();

    // Exports; each returns false after showing the error. Files are written atomically.
    bool exportChart(PlotView* chart, const QString& path);
    bool exportTraces(const QString& path);
    bool exportResults(const QString& path);
    bool exportRunsTable(const QString& path);
    // Images: original, corrupted, each run's reconstruction and atoms. Tables: each run's
    // loadings as CSV and as a heatmap PNG. Corpora: each run's topics as CSV.
    bool exportReconstructions(const QString& folder);
    // Writes the session to `path`; it becomes the session's file.
    bool saveSession(const QString& path);
    // Asks where (a file dialog) and saves; false when cancelled or the save failed.
    bool saveSessionAs();
    // The file the session was last saved to or opened from; empty when none.
    QString sessionPath() const { return m_sessionPath; }

    // Parts, for tests and for the tour.
    RunManager* runs() const { return m_runs; }
    ParamForm* taskForm() const { return m_taskForm; }
    ParamForm* tableForm() const { return m_tableForm; }
    QListWidget* channelList() const { return m_channels; }
    QCheckBox* transposeToggle() const { return m_transpose; }
    LoadingsView* loadingsView() const { return m_loadings; }
    QGroupBox* corpusBox() const { return m_corpusBox; }
    QGroupBox* ratingsBox() const { return m_ratingsBox; }
    ParamForm* ratingsForm() const { return m_ratingsForm; }
    RecommendationsView* recommendationsView() const { return m_recommendations; }
    ParamForm* corpusForm() const { return m_corpusForm; }
    ParamForm* tokenizerForm() const { return m_tokenizerForm; }
    QLineEdit* subsetEdit() const { return m_subset; }
    TopicsView* topicsView() const { return m_topics; }
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
    void rebuildTaskData();
    void rebuildTableData();
    void rebuildCorpusData();
    // Reads the corpus again with the tokenizer form and the subset (raw text only).
    void rereadCorpus();
    // The models that accept the current data's kind; keeps the current one when it fits.
    void populateModels();
    void updateChartAxes();
    // Builds the data of `source` off the UI thread with `make`; on success installs it as the
    // current data and calls `onReady`, on failure shows the error beside the data. A newer
    // request supersedes an older one still running.
    void prepareData(const DataSource& source, const QString& busyText,
                     std::function<DataSet()> make, std::function<void()> onReady);
    void openSession(const QString& path);
    void applySession(const Session& session);
    void applySpec(const RunSpec& spec); // model, algorithm, parameters and budget
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
    RunSpec specFor(const std::string& algorithm) const;
    void refreshCharts();
    void refreshPanels();
    void refreshStatus();
    void updateRunPanel(int id);
    void updateAtoms();
    enum class DataMode { Image, Table, Corpus, Ratings };
    void rebuildRatingsData();
    void showTaskFor(DataMode mode);
    void populateChannels(const std::vector<std::string>& keep);
    std::vector<std::string> checkedChannels() const;
    const Table* shownTable() const; // the table as the model sees its columns (transposed or not)
    void onRunFinished(int id);
    void onGroupFinished(int group);
    void fillResultRow(int id);

    RunManager* m_runs = nullptr;
    RunsTableModel* m_runsModel = nullptr;

    // Data and task.
    QString m_imagePath;
    QStringList m_morePaths; // further FCS files stacked under m_imagePath
    std::optional<Eigen::ArrayXXf> m_image;
    std::optional<Table> m_table;             // as read
    std::optional<Table> m_tableShown;        // transposed when asked
    std::shared_ptr<const Corpus> m_corpus;   // as read (before the subsample and split)
    std::shared_ptr<const Ratings> m_ratings; // as read (before the split)
    // A session's channels for the table being read; unset when the file was opened afresh
    // (then its suggested arcsinh cofactor is put in the form).
    std::optional<std::vector<std::string>> m_pendingChannels;
    DataSet m_data;
    int m_loadGeneration = 0; // newer requests make older results stale
    int m_busyGeneration = -1;
    bool m_loading = false;
    std::vector<SessionRun> m_sessionRuns;
    QString m_sessionPath;                // last saved to or opened from
    QSet<int> m_unsavedRuns;              // runs added since the session was last saved
    std::optional<RunSpec> m_pendingSpec; // a session's first run, applied once its data are read
    QString m_formModel;                  // the model whose parameters the algorithm form shows

    // Widgets.
    QLabel* m_dataLabel = nullptr;
    QLabel* m_dataError = nullptr;
    ParamForm* m_taskForm = nullptr;
    QGroupBox* m_taskBox = nullptr;
    QGroupBox* m_tableBox = nullptr;
    ParamForm* m_tableForm = nullptr;
    QListWidget* m_channels = nullptr;
    QCheckBox* m_transpose = nullptr;
    QLabel* m_channelCount = nullptr;
    QGroupBox* m_corpusBox = nullptr;
    QGroupBox* m_ratingsBox = nullptr;
    ParamForm* m_ratingsForm = nullptr;
    RecommendationsView* m_recommendations = nullptr;
    ParamForm* m_corpusForm = nullptr;
    QWidget* m_textOptions = nullptr; // tokenizer form and subset: raw text only
    ParamForm* m_tokenizerForm = nullptr;
    QLineEdit* m_subset = nullptr;
    QTimer* m_readDebounce = nullptr;
    QStackedWidget* m_centreTop = nullptr;
    TopicsView* m_topics = nullptr;
    QLabel* m_topicsRun = nullptr;
    LoadingsView* m_loadings = nullptr;
    QLabel* m_loadingsRun = nullptr;
    QComboBox* m_model = nullptr;
    QComboBox* m_algorithm = nullptr;
    QLabel* m_algorithmHelp = nullptr;
    ParamForm* m_algorithmForm = nullptr;
    ParamForm* m_budgetForm = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_compareButton = nullptr;
    QCheckBox* m_compareBatch = nullptr;
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
    QTimer* m_taskDebounce = nullptr;

    QAction* m_actOpen = nullptr;
    QAction* m_actRun = nullptr;
    QAction* m_actPause = nullptr;
    QAction* m_actResume = nullptr;
    QAction* m_actStop = nullptr;
    QAction* m_actStopAll = nullptr;
    QAction* m_actCompare = nullptr;
    QAction* m_actRerun = nullptr;

    QList<int> m_dirtyRuns; // snapshots not yet drawn
    bool m_chartsDirty = false;
    int m_compareGroup = 0;
    int m_fullPassRun = 0; // the run whose full pass the busy bar shows
};

} // namespace svi::ui
