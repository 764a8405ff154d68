// MainWindow: errors, exports, closing, drops.

#include "ui/busy_indicator.h"
#include "ui/main_window_parts.h"
#include "ui/session_controller.h"
#include "ui/shown_messages.h"

namespace svi::ui {

using namespace window_parts;

void MainWindow::showError(const QString& title, const QString& shown)
{
    // A message from core that names a setting names it by the label of its field in these forms
    // (the run's own messages are shown so already: shownMessage with the run's settings).
    std::vector<ParamSpec> specs = m_data->settingsForm()->specs();
    for (const ParamForm* form : {algorithmForm(), budgetForm()})
        specs.insert(specs.end(), form->specs().begin(), form->specs().end());
    const QString message = shownMessage(shown.toStdString(), specs);
    m_busy->showMessage(message, 10000);
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
    m_busy->showMessage(tr("Chart written to %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::exportTraces(const QString& path)
{
    return writeOrReport(path, m_charts->tracesCsv(), tr("Cannot export the traces"));
}

bool MainWindow::exportRunsTable(const QString& path)
{
    return writeOrReport(path, m_results->runsCsv(), tr("Cannot export the runs table"));
}

bool MainWindow::exportResults(const QString& path)
{
    // The files `svi compare` writes: CSV, JSON or a booktabs table, by the suffix.
    return writeOrReport(path, m_results->resultsFile(QFileInfo(path).suffix().toLower()),
                         tr("Cannot export the results"));
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
    try {
        m_centre->exportViews(folder);
    } catch (const DataError& e) {
        showError(tr("Cannot export the images"), QString::fromStdString(e.what()));
        return false;
    }
    m_busy->showMessage(tr("Exports written to %1").arg(folder), 5000);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Window events

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_session->mayClose()) {
        event->ignore();
        return;
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
