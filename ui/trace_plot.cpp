#include "ui/trace_plot.h"

#include <QCoreApplication>
#include <cmath>
#include <iterator>

namespace svi::ui {

const std::vector<TraceAxisInfo>& traceAxes()
{
    static const std::vector<TraceAxisInfo> axes = {
        {TraceAxis::Seconds, "seconds", QT_TRANSLATE_NOOP("TracePlot", "Training seconds"),
         QT_TRANSLATE_NOOP("TracePlot", "training time (s)"),
         QT_TRANSLATE_NOOP("TracePlot", "time (s)")},
        {TraceAxis::Steps, "steps", QT_TRANSLATE_NOOP("TracePlot", "Steps"),
         QT_TRANSLATE_NOOP("TracePlot", "training steps"), QT_TRANSLATE_NOOP("TracePlot", "steps")},
        {TraceAxis::Epochs, "epochs", QT_TRANSLATE_NOOP("TracePlot", "Epochs"),
         QT_TRANSLATE_NOOP("TracePlot", "epochs (passes over the data)"),
         QT_TRANSLATE_NOOP("TracePlot", "epochs")},
    };
    return axes;
}

const TraceAxisInfo& traceAxis(TraceAxis axis)
{
    for (const TraceAxisInfo& a : traceAxes())
        if (a.axis == axis)
            return a;
    return traceAxes().front();
}

std::optional<TraceAxis> traceAxisOf(const std::string& key)
{
    for (const TraceAxisInfo& a : traceAxes())
        if (key == a.key)
            return a.axis;
    return std::nullopt;
}

double traceX(const Snapshot& s, TraceAxis axis)
{
    switch (axis) {
    case TraceAxis::Seconds:
        return s.trainSeconds;
    case TraceAxis::Steps:
        return double(s.step);
    case TraceAxis::Epochs:
        return s.epochs;
    }
    return s.trainSeconds;
}

TraceSeries traceSeries(const std::vector<Snapshot>& trace, const std::string& metric,
                        TraceAxis axis, const QString& ending)
{
    TraceSeries out;
    out.points.reserve(qsizetype(trace.size()));
    bool anyFinite = false;
    for (const Snapshot& s : trace) {
        double y = s.elbo;
        if (!metric.empty()) {
            const auto it = s.metrics.find(metric);
            if (it == s.metrics.end())
                continue;
            y = it->second;
        }
        anyFinite |= std::isfinite(y);
        out.points.push_back(QPointF(traceX(s, axis), y));
    }
    if (metric.empty() && !anyFinite)
        out.points.clear();
    if (!ending.isEmpty() && !trace.empty())
        out.events.push_back({traceX(trace.back(), axis), ending});
    return out;
}

QColor runColor(int n)
{
    static const QColor palette[] = {
        QColor(0, 114, 178), QColor(213, 94, 0),   QColor(0, 158, 115), QColor(204, 121, 167),
        QColor(230, 159, 0), QColor(86, 180, 233), QColor(0, 0, 0),     QColor(120, 60, 20),
        QColor(90, 90, 200), QColor(100, 140, 40),
    };
    const int size = int(std::size(palette));
    return palette[((n - 1) % size + size) % size];
}

} // namespace svi::ui
