#pragma once
// What the parts of MainWindow (main_window*.cpp) share: their includes, the tables of
// metrics and result columns, and small helpers. Private to the window.

#include "core/data/image_task.h"
#include "core/io/corpus_files.h"
#include "core/io/data_error.h"
#include "core/io/data_files.h"
#include "core/io/image_file.h"
#include "core/io/run_files.h"
#include "core/metrics/image_metrics.h"
#include "core/run/registry.h"
#include "ui/image_panel.h"
#include "ui/loadings_view.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/quit_guard.h"
#include "ui/recommendations_view.h"
#include "ui/runs_table.h"
#include "ui/topics_view.h"
#include "ui/trace_plot.h"

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

namespace svi::ui::window_parts {

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

inline std::vector<ParamSpec> budgetSpecs()
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

inline QString displayName(const QString& path)
{
    return path == MainWindow::kDefaultImage ? QObject::tr("default image")
                                             : QFileInfo(path).fileName();
}

inline QString fixed(double v, int decimals)
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

struct CutResult
{
    DataSet data;
    QString error;
};

} // namespace svi::ui::window_parts
