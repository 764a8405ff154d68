// What the window's charts and `svi plot` both draw from a trace: the x axes, the series of the
// ELBO or of a metric with their marked events, and the runs' colours.

#include "ui/trace_plot.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace svi;
using namespace svi::ui;

class TestTracePlot : public QObject
{
    Q_OBJECT
private slots:
    void axesByKey();
    void elboSeries();
    void metricSeriesOnlyWhereHeld();
    void endingIsMarkedAtTheLastSnapshot();
    void coloursAreDistinctThenRepeat();
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<Snapshot> threeSnapshots()
{
    std::vector<Snapshot> t(3);
    for (int i = 0; i < 3; ++i) {
        t[std::size_t(i)].step = 10 * (i + 1);
        t[std::size_t(i)].epochs = 0.5 * (i + 1);
        t[std::size_t(i)].trainSeconds = 0.25 * (i + 1);
        t[std::size_t(i)].elbo = -100.0 + i;
    }
    return t;
}

} // namespace

void TestTracePlot::axesByKey()
{
    std::set<std::string> keys;
    for (const TraceAxisInfo& a : traceAxes()) {
        QVERIFY(keys.insert(a.key).second);
        QCOMPARE(traceAxisOf(a.key), std::optional<TraceAxis>(a.axis));
        QCOMPARE(traceAxis(a.axis).key, a.key);
    }
    QCOMPARE(keys, (std::set<std::string>{"seconds", "steps", "epochs"}));
    // Titles a figure can carry: what is counted and in what unit, with a shorter form.
    QCOMPARE(QString(traceAxis(TraceAxis::Seconds).title), QString("training time (s)"));
    QCOMPARE(QString(traceAxis(TraceAxis::Steps).title), QString("training steps"));
    for (const TraceAxisInfo& a : traceAxes())
        QVERIFY(std::strlen(a.shortTitle) > 0 && std::strlen(a.shortTitle) < std::strlen(a.title));
    QCOMPARE(traceAxes().front().axis, TraceAxis::Seconds); // the default
    QVERIFY(!traceAxisOf("minutes"));
    Snapshot s;
    s.step = 7;
    s.epochs = 1.5;
    s.trainSeconds = 2.25;
    QCOMPARE(traceX(s, TraceAxis::Steps), 7.0);
    QCOMPARE(traceX(s, TraceAxis::Epochs), 1.5);
    QCOMPARE(traceX(s, TraceAxis::Seconds), 2.25);
}

void TestTracePlot::elboSeries()
{
    std::vector<Snapshot> t = threeSnapshots();
    t[1].elbo = kNaN; // a NaN point stays: PlotView marks it
    TraceSeries s = traceSeries(t, {}, TraceAxis::Steps);
    QCOMPARE(s.points.size(), 3);
    QCOMPARE(s.points[0], QPointF(10, -100));
    QVERIFY(std::isnan(s.points[1].y()));
    QCOMPARE(s.points[2], QPointF(30, -98));
    QVERIFY(s.events.isEmpty());
    // No finite ELBO anywhere (the batch sampler): no ELBO series at all.
    for (Snapshot& x : t)
        x.elbo = kNaN;
    s = traceSeries(t, {}, TraceAxis::Steps);
    QVERIFY(s.empty());
}

void TestTracePlot::metricSeriesOnlyWhereHeld()
{
    std::vector<Snapshot> t = threeSnapshots();
    t[0].metrics["psnr_running"] = 20;
    t[2].metrics["psnr_running"] = 22;
    t[2].metrics["psnr"] = 23; // the final full pass only
    TraceSeries s = traceSeries(t, "psnr_running", TraceAxis::Epochs);
    QCOMPARE(s.points, (QVector<QPointF>{{0.5, 20}, {1.5, 22}}));
    s = traceSeries(t, "psnr", TraceAxis::Seconds);
    QCOMPARE(s.points, (QVector<QPointF>{{0.75, 23}}));
    QVERIFY(traceSeries(t, "mse", TraceAxis::Seconds).empty());
}

void TestTracePlot::endingIsMarkedAtTheLastSnapshot()
{
    const std::vector<Snapshot> t = threeSnapshots();
    const TraceSeries s = traceSeries(t, {}, TraceAxis::Seconds, "diverged at step 30");
    QCOMPARE(s.events.size(), 1);
    QCOMPARE(s.events[0].first, 0.75);
    QCOMPARE(s.events[0].second, QString("diverged at step 30"));
    // Even a metric the run never reported keeps the mark: the chart says where it stopped.
    const TraceSeries m = traceSeries(t, "mse", TraceAxis::Steps, "failed");
    QVERIFY(m.points.isEmpty());
    QCOMPARE(m.events.size(), 1);
    QCOMPARE(m.events[0].first, 30.0);
    QVERIFY(traceSeries({}, {}, TraceAxis::Steps, "failed").empty());
}

void TestTracePlot::coloursAreDistinctThenRepeat()
{
    std::set<QRgb> seen;
    for (int n = 1; n <= 10; ++n)
        QVERIFY(seen.insert(runColor(n).rgb()).second);
    QCOMPARE(runColor(11), runColor(1));
    QCOMPARE(runColor(0), runColor(10));
}

QTEST_GUILESS_MAIN(TestTracePlot)
#include "test_trace_plot.moc"
