#pragma once
// What a chart of run traces shows, shared by the window's ELBO and metric charts and by
// `svi plot`, so that a figure made headless is the one the window draws: the x axis a trace is
// drawn against, a trace turned into a PlotView series (its points and marked events), and the
// runs' colours. Pure functions; any thread (QColor and QString are plain values here).

#include "core/run/runner.h"

#include <QColor>
#include <QPair>
#include <QPointF>
#include <QString>
#include <QVector>
#include <optional>
#include <string>
#include <vector>

namespace svi::ui {

enum class TraceAxis { Seconds, Steps, Epochs };

struct TraceAxisInfo
{
    TraceAxis axis;
    const char* key;        // "seconds": the window's settings and `svi plot --x`
    const char* choice;     // "Training seconds": the window's x-axis picker
    const char* title;      // "training time (s)": the axis title
    const char* shortTitle; // "time (s)": the title where the full one does not fit
};

// Every x axis, in the window picker's order (the first is the default).
const std::vector<TraceAxisInfo>& traceAxes();
const TraceAxisInfo& traceAxis(TraceAxis axis);
// The axis whose key is `key`; std::nullopt when none.
std::optional<TraceAxis> traceAxisOf(const std::string& key);
// A snapshot's x on `axis` (steps as a real number).
double traceX(const Snapshot& s, TraceAxis axis);

// One run's series as PlotView::setSeries takes it.
struct TraceSeries
{
    QVector<QPointF> points;
    QVector<QPair<double, QString>> events;
    bool empty() const { return points.isEmpty() && events.isEmpty(); }
};

// The series of `trace` against `axis`: the ELBO when `metric` is empty, else the metric of
// that key, one point per snapshot that holds it (NaN and infinite values included: PlotView
// marks them). A trace whose ELBO is nowhere finite (the batch sampler has no bound) gives no
// ELBO points. `ending`, when not empty, is marked at the last snapshot (the message of a run
// that diverged or failed).
TraceSeries traceSeries(const std::vector<Snapshot>& trace, const std::string& metric,
                        TraceAxis axis, const QString& ending = {});

// The colour of the n-th run (from 1): distinct, print-safe colours (Okabe–Ito, then darker
// variants), repeating after ten.
QColor runColor(int n);

} // namespace svi::ui
