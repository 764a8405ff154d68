// ChartsPanel: the ELBO and metric charts, their axes and the metric picked.

#include "ui/charts_panel.h"

#include "core/models/builtin.h"
#include "core/run/no_bound.h"
#include "ui/main_window_parts.h"

#include <map>
#include <tuple>

namespace svi::ui {

using namespace window_parts;

ChartsPanel::ChartsPanel(RunManager* runs, QWidget* parent) : QWidget(parent), m_runs(runs)
{
    auto* layout = new QVBoxLayout(this);
    setMinimumHeight(230); // room for the axis labels whatever the view above wants
    layout->setContentsMargins(0, 0, 0, 0);
    auto* chartBar = new QHBoxLayout;
    m_metric = new QComboBox;
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents); // metric titles are long
    m_metric->setObjectName("metricPicker");
    m_xAxis = new QComboBox;
    m_xAxis->setObjectName("xAxisPicker");
    for (const TraceAxisInfo& a : traceAxes())
        m_xAxis->addItem(QCoreApplication::translate("TracePlot", a.choice), QString(a.key));
    m_logX = new QCheckBox(tr("Log x"));
    m_logX->setObjectName("logX");
    chartBar->addWidget(new QLabel(tr("Held-out metric")));
    chartBar->addWidget(m_metric);
    chartBar->addSpacing(12);
    chartBar->addWidget(new QLabel(tr("x axis")));
    chartBar->addWidget(m_xAxis);
    chartBar->addWidget(m_logX);
    chartBar->addStretch(1);
    layout->addLayout(chartBar);
    auto* chartSplit = new QSplitter(Qt::Horizontal);
    m_elboChart = new PlotView;
    m_elboChart->setObjectName("elboChart");
    m_elboChart->setTitle(tr("ELBO"));
    m_metricChart = new PlotView;
    m_metricChart->setObjectName("metricChart");
    for (PlotView* chart : {m_elboChart, m_metricChart})
        chart->setXFromZero(true); // a run's clocks and counts start at 0
    chartSplit->addWidget(m_elboChart);
    chartSplit->addWidget(m_metricChart);
    layout->addWidget(chartSplit, 1);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &ChartsPanel::updateAxes);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, &ChartsPanel::updateAxes);
    connect(m_logX, &QCheckBox::toggled, this, &ChartsPanel::updateAxes);
}

void ChartsPanel::updateAxes()
{
    const TraceAxis axis =
        traceAxisOf(m_xAxis->currentData().toString().toStdString()).value_or(TraceAxis::Seconds);
    const QString x = QCoreApplication::translate("TracePlot", traceAxis(axis).title);
    const QString xShort = QCoreApplication::translate("TracePlot", traceAxis(axis).shortTitle);
    m_elboChart->setAxisTitles(x, tr("ELBO"), xShort);
    const std::string key = m_metric->currentData().toString().toStdString();
    const auto picked = std::find_if(m_metrics.begin(), m_metrics.end(),
                                     [&](const MetricSpec& m) { return m.key == key; });
    if (picked != m_metrics.end()) {
        const MetricSpec& m = *picked;
        m_metricChart->setTitle(QString::fromStdString(m.label),
                                QString::fromStdString(m.shortLabel));
        m_metricChart->setAxisTitles(x, QString::fromStdString(metricTitle(m)), xShort,
                                     QString::fromStdString(metricShortTitle(m)));
    } else {
        m_metricChart->setTitle(m_metric->currentText());
        m_metricChart->setAxisTitles(x, m_metric->currentText(), xShort);
    }
    m_elboChart->setLogX(m_logX->isChecked());
    m_metricChart->setLogX(m_logX->isChecked());
    m_allDirty = true;
    refresh({});
}

void ChartsPanel::refresh(const QList<int>& dirty)
{
    const bool all = m_allDirty;
    m_allDirty = false;
    const TraceAxis x =
        traceAxisOf(m_xAxis->currentData().toString().toStdString()).value_or(TraceAxis::Seconds);
    const std::string key = m_metric->currentData().toString().toStdString();
    // The repeats of one algorithm started together, with its settings and other seeds (one
    // colour, given by the run manager): one legend entry naming them all, "#3, #5 MF-SSVI".
    using RepeatKey = std::tuple<int, std::string, std::string, ParamValues>;
    const auto keyOf = [](const RunRecord* r) {
        return RepeatKey{r->group, r->spec.model, r->spec.algorithm, r->spec.params};
    };
    std::map<RepeatKey, QList<int>> repeats;
    for (int id : m_runs->ids()) {
        const RunRecord* r = m_runs->record(id);
        if (r->group != 0)
            repeats[keyOf(r)] << id;
    }
    m_elboChart->beginUpdate();
    m_metricChart->beginUpdate();
    for (int id : m_runs->ids()) {
        if (!all && !dirty.contains(id))
            continue;
        const RunRecord* r = m_runs->record(id);
        PlotView::SeriesLook look;
        if (r->group != 0) {
            const QList<int>& ids = repeats[keyOf(r)];
            if (ids.size() > 1) {
                QStringList numbers;
                for (int other : ids)
                    numbers << QString("#%1").arg(other);
                const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm);
                look.legendName = numbers.join(", ") + " " +
                                  QString::fromStdString(e ? e->label : r->spec.algorithm);
                look.thin = true;
            }
        }
        QString ending;
        if (r->summary && (r->summary->reason == TerminationReason::Diverged ||
                           r->summary->reason == TerminationReason::Failed))
            ending = QString::fromStdString(r->summary->message);
        // A run whose ELBO is undefined (the batch sampler) has no ELBO series.
        const TraceSeries elbo = traceSeries(r->trace, {}, x, ending);
        if (!elbo.empty())
            m_elboChart->setSeries(id, r->label, r->color, elbo.points, elbo.events, look);
        const TraceSeries metric = traceSeries(r->trace, key, x, ending);
        m_metricChart->setSeries(id, r->label, r->color, metric.points, metric.events, look);
    }
    // No ELBO drawn, and a run whose algorithm declares none (a sampler): the chart says why
    // it is empty.
    QString note;
    if (m_elboChart->seriesCount() == 0)
        for (int id : m_runs->ids()) {
            const RunRecord* r = m_runs->record(id);
            const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm);
            if (const auto why = e ? noBoundReason(*e) : std::nullopt) {
                note = tr("No ELBO for %1: %2. The held-out metric shows its progress.")
                           .arg(QString::fromStdString(e->label), QString::fromStdString(*why));
                break;
            }
        }
    m_elboChart->setEmptyNote(note);
    m_elboChart->endUpdate();
    m_metricChart->endUpdate();
}

void ChartsPanel::populateMetrics(const std::string& kind)
{
    const QString keep = m_metric->currentData().toString();
    // The loaded data's metrics, then those of every run shown that the data's models lack (a
    // run folder opened over other data, a session's runs), so that each run's can be charted.
    std::vector<MetricSpec> metrics =
        builtinRegistry().metricsOf(builtinRegistry().modelsFor(kind), kind);
    for (int id : m_runs->ids()) {
        const RunDescription& spec = m_runs->record(id)->spec;
        for (const MetricSpec& m : builtinRegistry().metricsOf({spec.model}, spec.data.kind))
            if (std::none_of(metrics.begin(), metrics.end(),
                             [&](const MetricSpec& o) { return o.key == m.key; }))
                metrics.push_back(m);
    }
    bool same = int(metrics.size()) == m_metric->count();
    for (int i = 0; same && i < m_metric->count(); ++i)
        same = m_metric->itemData(i).toString().toStdString() == metrics[std::size_t(i)].key;
    if (same)
        return;
    m_metrics = metrics;
    {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        for (const MetricSpec& m : metrics)
            m_metric->addItem(QString::fromStdString(metricTitle(m)),
                              QString::fromStdString(m.key));
        // The kind's first metric (the one its models lead with live) unless the choice applies.
        m_metric->setCurrentIndex(std::max(m_metric->findData(keep), 0));
    }
    updateAxes();
}

QByteArray ChartsPanel::tracesCsv() const
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
    return csv;
}

void ChartsPanel::restoreSettings(const QSettings& s)
{
    const int metric = m_metric->findData(s.value("chart/metric").toString());
    if (metric >= 0)
        m_metric->setCurrentIndex(metric);
    const int x = m_xAxis->findData(s.value("chart/x").toString());
    if (x >= 0)
        m_xAxis->setCurrentIndex(x);
    m_logX->setChecked(s.value("chart/logx", false).toBool());
}

void ChartsPanel::saveSettings(QSettings& s) const
{
    s.setValue("chart/metric", m_metric->currentData());
    s.setValue("chart/x", m_xAxis->currentData());
    s.setValue("chart/logx", m_logX->isChecked());
}

} // namespace svi::ui
