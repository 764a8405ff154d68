#pragma once
// What the window's sources (main_window*.cpp) and its panels' share: their includes and small
// helpers. Private to the window and its panels.

#include "core/data/image_task.h"
#include "core/io/compare_results.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/image_file.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/metrics/image_metrics.h"
#include "core/run/registry.h"
#include "ui/covariance_view.h"
#include "ui/graph_page.h"
#include "ui/image_panel.h"
#include "ui/loadings_view.h"
#include "ui/main_window.h"
#include "ui/matrix_view.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/quit_guard.h"
#include "ui/recommendations_view.h"
#include "ui/runs_table.h"
#include "ui/slice_view.h"
#include "ui/topic_correlations_view.h"
#include "ui/topics_view.h"
#include "ui/trace_plot.h"
#include "ui/weights_page.h"
#include "ui/weights_view.h"

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
#include <QSpinBox>
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
inline QString displayName(const QString& path)
{
    return path == MainWindow::kDefaultImage ? QObject::tr("default image")
                                             : QFileInfo(path).fileName();
}

inline QString fixed(double v, int decimals)
{
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QString();
}

// "house.png", or "a.fcs + 2 more".
inline QString filesName(const std::vector<std::string>& files)
{
    if (files.empty())
        return {};
    const QString first = displayName(QString::fromStdString(files.front()));
    return files.size() == 1 ? first
                             : QObject::tr("%1 + %n more", "", int(files.size() - 1)).arg(first);
}

// An image as PNG bytes, for writeFileAtomically.
inline QByteArray pngBytes(const QImage& img)
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    img.save(&buffer, "PNG");
    return png;
}

} // namespace svi::ui::window_parts
