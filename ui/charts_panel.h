#pragma once
// The charts under the centre pages: every run's ELBO and a held-out metric against the x axis
// picked (seconds, steps, epochs), drawn in batches as the runs' traces grow. The metrics
// offered are those the loaded data's models declare, then those of any other run shown. The
// repeats of one algorithm started together (Compare's seeds) share a colour and a legend
// entry, each drawn as a thin line. GUI thread only.

#include "core/base/metric_spec.h"

#include <QList>
#include <QWidget>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QSettings;

namespace svi::ui {

class PlotView;
class RunManager;

class ChartsPanel : public QWidget
{
    Q_OBJECT
public:
    // `runs` outlives the panel.
    explicit ChartsPanel(RunManager* runs, QWidget* parent = nullptr);

    // The metrics of the models for data of `kind` (empty before any data) and of every run.
    void populateMetrics(const std::string& kind);
    // Draws again the runs in `dirty`, or every run after markAllDirty().
    void refresh(const QList<int>& dirty);
    // Every run is drawn again at the next refresh (runs added or restored together).
    void markAllDirty() { m_allDirty = true; }
    // Every run's trace as CSV (one row per snapshot, every metric any run has).
    QByteArray tracesCsv() const;

    void restoreSettings(const QSettings& s);
    void saveSettings(QSettings& s) const;

    QComboBox* metricPicker() const { return m_metric; }
    PlotView* elboChart() const { return m_elboChart; }
    PlotView* metricChart() const { return m_metricChart; }

private:
    void updateAxes();

    RunManager* m_runs;
    bool m_allDirty = false;
    QComboBox* m_metric = nullptr;
    QComboBox* m_xAxis = nullptr;
    QCheckBox* m_logX = nullptr;
    PlotView* m_elboChart = nullptr;
    PlotView* m_metricChart = nullptr;
    std::vector<MetricSpec> m_metrics; // the declarations of the picker's metrics
};

} // namespace svi::ui
