// MainWindow: File ▸ Open Sample, one item per data set embedded in the program
// (core/io/samples.h), each opened as a file of its kind is, ready to run with the kind's model.

#include "core/io/data_error.h"
#include "core/io/samples.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

void MainWindow::buildSampleMenu(QMenu* file)
{
    QMenu* samples = file->addMenu(tr("Open Sa&mple"));
    samples->setObjectName("menuOpenSample");
    samples->setToolTipsVisible(true);
    for (const SampleData& s : sampleData()) {
        QAction* open = samples->addAction(QString::fromStdString(s.label));
        open->setObjectName(QString::fromStdString("actionOpenSample_" + s.key));
        open->setToolTip(QString::fromStdString(s.about + " (" + s.licence + ")"));
        const std::string key = s.key;
        connect(open, &QAction::triggered, this, [this, key] { openSample(key); });
    }
}

void MainWindow::openSample(const std::string& key)
{
    const SampleData* s = findSample(key);
    if (!s)
        return;
    DataDescription d;
    try {
        d.files = sampleFiles(*s);
    } catch (const DataError& e) {
        showError(tr("Cannot open the sample"), QString::fromStdString(e.what()));
        return;
    }
    d.kind = s->kind;
    m_data->read(d, true);
}

} // namespace svi::ui
