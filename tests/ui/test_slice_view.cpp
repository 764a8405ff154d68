// The predictive slice on the real widget, offscreen: the axes cover the band and the test
// rows with round ticks, hovering reports the nearest slice point, the export image has the
// asked size and shows the band and the mean, clearing empties it, and a slice that cannot be
// drawn (no points, sizes that differ, values that are not finite) shows its reason instead.

#include "ui/axis_ticks.h"
#include "ui/slice_view.h"

#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QToolTip>
#include <QtTest>
#include <cmath>
#include <limits>
#include <memory>

using namespace svi;
using namespace svi::ui;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// mean = sin x, sd = 0.1 + 0.05 x over 50 points of [0, 5]; 200 test rows at x in
// [−0.5, 5.5] (wider than the slice) around the mean, one of them far above it.
std::shared_ptr<PredictionSlice> sineSlice()
{
    auto s = std::make_shared<PredictionSlice>();
    s->feature = "x1";
    s->label = "y";
    s->x = Eigen::VectorXd::LinSpaced(50, 0.0, 5.0);
    s->mean = s->x.array().sin();
    s->sd = 0.1 + 0.05 * s->x.array();
    s->pointX = Eigen::VectorXd::LinSpaced(200, -0.5, 5.5);
    s->pointY.resize(200);
    for (Eigen::Index i = 0; i < 200; ++i)
        s->pointY[i] = std::sin(s->pointX[i]) + 0.3 * std::sin(37.0 * double(i));
    s->pointY[120] = 3.0;
    return s;
}

// The number of pixels of `img` inside `rect` that are not (nearly) white.
int inkIn(const QImage& img, const QRect& rect)
{
    int ink = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            if (qGray(img.pixel(x, y)) < 235)
                ++ink;
    return ink;
}

} // namespace

class TestSliceView : public QObject
{
    Q_OBJECT
private slots:
    void ticksAreRound();
    void axesCoverTheBandAndThePoints();
    void hoverReportsTheNearestPoint_data();
    void hoverReportsTheNearestPoint();
    void hoverOutsideThePlotReportsNothing();
    void renderHasTheAskedSizeAndShowsTheBand();
    void clearShowsNothing();
    void badSlicesShowTheirReason_data();
    void badSlicesShowTheirReason();
    void aSinglePointIsDrawn();
};

void TestSliceView::ticksAreRound()
{
    QCOMPARE(tickStep(1.0, 5), 0.2);
    QCOMPARE(tickStep(2.4, 5), 0.5);
    QCOMPARE(tickStep(2.67, 5), 1.0); // 0.534 a step: 0.5 would give more than 5
    QCOMPARE(tickStep(730.0, 6), 200.0);
    const std::vector<double> t = niceTicks(-0.37, 2.03, 5);
    QCOMPARE(t.size(), std::size_t(5));
    QCOMPARE(t.front(), 0.0);
    QCOMPARE(t.back(), 2.0);
    // k × step, not repeated sums: 0.3 and 0.6 print as such.
    const std::vector<double> tenths = niceTicks(0.0, 1.0, 10);
    QCOMPARE(tenths.size(), std::size_t(11));
    QCOMPARE(tickLabel(tenths[3], 0.1), QString("0.3"));
    QCOMPARE(tickLabel(tenths[6], 0.1), QString("0.6"));
    QCOMPARE(tickLabel(-1e-17, 0.5), QString("0.0"));
    QCOMPARE(tickLabel(40.0, 20.0), QString("40"));
    QCOMPARE(tickLabel(1.5e9, 5e8), QString("1.5e+09"));
    QVERIFY(niceTicks(1.0, 1.0, 5).empty());
    QVERIFY(niceTicks(0.0, kNaN, 5).empty());
}

void TestSliceView::axesCoverTheBandAndThePoints()
{
    SliceView view;
    view.resize(640, 420);
    const auto s = sineSlice();
    view.setSlice(s);
    QVERIFY2(view.problem().isEmpty(), qPrintable(view.problem()));
    QCOMPARE(view.shownPoints(), 200);
    const double xLo = std::min(s->x.minCoeff(), s->pointX.minCoeff());
    const double xHi = std::max(s->x.maxCoeff(), s->pointX.maxCoeff());
    const double yLo = std::min((s->mean - 2 * s->sd).minCoeff(), s->pointY.minCoeff());
    const double yHi = std::max((s->mean + 2 * s->sd).maxCoeff(), s->pointY.maxCoeff());
    QCOMPARE(yHi, 3.0); // the outlier
    QVERIFY(view.xMin() <= xLo && view.xMax() >= xHi);
    QVERIFY(view.yMin() <= yLo && view.yMax() >= yHi);
    // Padded a little, not a lot: the data fill most of the plot.
    QVERIFY(view.xMax() - view.xMin() < 1.2 * (xHi - xLo));
    QVERIFY(view.yMax() - view.yMin() < 1.2 * (yHi - yLo));

    // Round ticks inside the ranges, evenly spaced by 1, 2 or 5 × 10^k.
    for (const std::vector<double>& ticks : {view.xTicks(), view.yTicks()}) {
        QVERIFY(ticks.size() >= 3);
        const double step = ticks[1] - ticks[0];
        const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
        QVERIFY2(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                     std::abs(mantissa - 5) < 1e-9,
                 qPrintable(QString::number(step)));
        for (std::size_t i = 1; i < ticks.size(); ++i)
            QVERIFY(std::abs(ticks[i] - ticks[i - 1] - step) < 1e-9 * step);
        for (double t : ticks)
            QVERIFY(std::abs(t / step - std::round(t / step)) < 1e-9);
    }
    for (double t : view.xTicks())
        QVERIFY(t >= view.xMin() && t <= view.xMax());
    for (double t : view.yTicks())
        QVERIFY(t >= view.yMin() && t <= view.yMax());
    // The axes run the usual way: x to the right, y up.
    QVERIFY(view.toPixel(1.0, 0.0).x() < view.toPixel(2.0, 0.0).x());
    QVERIFY(view.toPixel(1.0, 0.0).y() > view.toPixel(1.0, 1.0).y());
}

void TestSliceView::hoverReportsTheNearestPoint_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<double>("offset"); // of the gap to the next point (negative: previous)
    QTest::newRow("first") << 0 << 0.0;
    QTest::newRow("left of the first") << 0 << -0.4; // in the padding, still over the plot
    QTest::newRow("a third past 17") << 17 << 0.3;
    QTest::newRow("a third before 18") << 18 << -0.3;
    QTest::newRow("last") << 49 << 0.0;
}

void TestSliceView::hoverReportsTheNearestPoint()
{
    QFETCH(int, index);
    QFETCH(double, offset);
    SliceView view;
    view.resize(640, 420);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto s = sineSlice();
    view.setSlice(s);
    const double gap = s->x[1] - s->x[0];
    const QPoint pos = view.toPixel(s->x[index] + offset * gap, s->mean[index]).toPoint();
    QCOMPARE(view.nearestAt(pos), index);
    const QString tip = view.toolTipAt(pos);
    QVERIFY2(tip.contains(QString("x1 = %1").arg(s->x[index], 0, 'g', 4)), qPrintable(tip));
    QVERIFY2(tip.contains(QString("mean %1").arg(s->mean[index], 0, 'g', 4)), qPrintable(tip));
    QVERIFY2(tip.contains(QString("sd %1").arg(s->sd[index], 0, 'g', 3)), qPrintable(tip));

    // A real mouse move: the tooltip shows that text and the guide marks the point.
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), QPointF(view.mapToGlobal(pos)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QCOMPARE(view.hovered(), index);
    QTRY_COMPARE(QToolTip::text(), tip);
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&view, &leave);
    QCOMPARE(view.hovered(), -1);
}

void TestSliceView::hoverOutsideThePlotReportsNothing()
{
    SliceView view;
    view.resize(640, 420);
    view.setSlice(sineSlice());
    const QPointF inside = view.toPixel(2.5, 0.0);
    for (const QPoint& pos : {QPoint(5, int(inside.y())), QPoint(int(inside.x()), 5),
                              QPoint(int(inside.x()), view.height() - 3)}) {
        QCOMPARE(view.nearestAt(pos), -1);
        QVERIFY(view.toolTipAt(pos).isEmpty());
    }
}

void TestSliceView::renderHasTheAskedSizeAndShowsTheBand()
{
    SliceView view;
    view.resize(500, 300);
    view.setTitle("Predictive of #1 SGP along x1");
    const auto s = sineSlice();
    s->feature = "median income";
    s->label = "median house value";
    s->pointX.resize(0); // no dots in the way of the band
    s->pointY.resize(0);
    view.setSlice(s);
    QCOMPARE(view.render(2.0).size(), QSize(1000, 600));
    const QImage img = view.render(1.0);
    QCOMPARE(img.size(), QSize(500, 300));
    // On the mean line: its colour (blue). Inside the band, away from the line: a light tint.
    // Well outside the band: the background.
    const QPoint onLine = view.toPixel(s->x[25], s->mean[25]).toPoint();
    const QColor line = img.pixelColor(onLine);
    QVERIFY2(line.blue() > line.red() + 60, qPrintable(line.name()));
    const QPoint inBand = view.toPixel(s->x[25], s->mean[25] + 1.3 * s->sd[25]).toPoint();
    const QColor band = img.pixelColor(inBand);
    QVERIFY2(band.blue() > band.red() + 10 && band.red() > 120, qPrintable(band.name()));
    const QPoint outside = view.toPixel(s->x[25], s->mean[25] + 3.0 * s->sd[25]).toPoint();
    QVERIFY(view.yMax() > s->mean[25] + 3.5 * s->sd[25]);
    QCOMPARE(img.pixelColor(outside), view.palette().color(QPalette::Base));
    // The axis names are drawn: ink under the plot and left of it.
    QVERIFY(inkIn(img, QRect(60, 280, 400, 18)) > 10);
    QVERIFY(inkIn(img, QRect(0, 60, 20, 180)) > 10);
}

void TestSliceView::clearShowsNothing()
{
    SliceView fresh, view;
    for (SliceView* v : {&fresh, &view}) {
        v->resize(400, 300);
        v->setTitle("t");
    }
    view.setSlice(sineSlice());
    QVERIFY(view.nearestAt(view.rect().center()) >= 0);
    view.clear();
    QVERIFY(!view.slice());
    QVERIFY(view.problem().isEmpty());
    QCOMPARE(view.shownPoints(), 0);
    QCOMPARE(view.nearestAt(view.rect().center()), -1);
    QVERIFY(view.xTicks().empty() && view.yTicks().empty());
    QCOMPARE(view.title(), QString("t"));
    QCOMPARE(view.render(1.0), fresh.render(1.0));
}

void TestSliceView::badSlicesShowTheirReason_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no points") << 0 << "no points";
    QTest::newRow("mean NaN") << 1 << "not a finite";
    QTest::newRow("sd infinite") << 2 << "not a finite";
    QTest::newRow("sd negative") << 3 << "non-negative";
    QTest::newRow("x NaN") << 4 << "not a finite";
    QTest::newRow("mean shorter") << 5 << "50 feature values, 49 means, 50 sds";
    QTest::newRow("sd longer") << 6 << "51 sds";
    QTest::newRow("points and labels differ") << 7 << "200 feature values, 199 labels";
    QTest::newRow("x descending") << 8 << "ascending";
}

void TestSliceView::badSlicesShowTheirReason()
{
    QFETCH(int, kind);
    QFETCH(QString, reason);
    auto s = sineSlice();
    switch (kind) {
    case 0:
        *s = PredictionSlice{"x1", "y", {}, {}, {}, {}, {}};
        break;
    case 1:
        s->mean[10] = kNaN;
        break;
    case 2:
        s->sd[0] = std::numeric_limits<double>::infinity();
        break;
    case 3:
        s->sd[3] = -0.1;
        break;
    case 4:
        s->x[49] = kNaN;
        break;
    case 5:
        s->mean.conservativeResize(49);
        break;
    case 6:
        s->sd.conservativeResize(51);
        s->sd[50] = 0.1;
        break;
    case 7:
        s->pointY.conservativeResize(199);
        break;
    case 8:
        s->x.reverseInPlace();
        break;
    }
    SliceView empty, view;
    for (SliceView* v : {&empty, &view})
        v->resize(500, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSlice(s);
    QVERIFY(view.slice());
    QVERIFY2(view.problem().contains(reason), qPrintable(view.problem()));
    // Nothing to hover; painting on screen and for export does not crash and draws the
    // message, not the empty view's.
    const QPoint centre = view.rect().center();
    QCOMPARE(view.nearestAt(centre), -1);
    QVERIFY(view.toolTipAt(centre).isEmpty());
    QMouseEvent move(QEvent::MouseMove, QPointF(centre), QPointF(view.mapToGlobal(centre)),
                     Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QCOMPARE(view.hovered(), -1);
    QVERIFY(!view.grab().isNull());
    QVERIFY(view.xTicks().empty());
    const QImage img = view.render(1.0);
    QCOMPARE(img.size(), QSize(500, 320));
    QVERIFY(inkIn(img, img.rect()) > 20);
    QVERIFY(img != empty.render(1.0));
}

void TestSliceView::aSinglePointIsDrawn()
{
    auto s = std::make_shared<PredictionSlice>();
    s->feature = "x1";
    s->label = "y";
    s->x = Eigen::VectorXd::Constant(1, 2.0);
    s->mean = Eigen::VectorXd::Constant(1, 5.0);
    s->sd = Eigen::VectorXd::Zero(1);
    SliceView view;
    view.resize(400, 300);
    view.setSlice(s);
    QVERIFY(view.problem().isEmpty());
    QVERIFY(view.xMin() < 2.0 && view.xMax() > 2.0);
    QVERIFY(view.yMin() < 5.0 && view.yMax() > 5.0);
    QCOMPARE(view.nearestAt(view.toPixel(2.3, 5.0).toPoint()), 0);
    const QImage img = view.render(1.0);
    const QColor at = img.pixelColor(view.toPixel(2.0, 5.0).toPoint() + QPoint(0, 3));
    QVERIFY2(at.blue() > at.red() + 60, qPrintable(at.name()));
}

QTEST_MAIN(TestSliceView)
#include "test_slice_view.moc"
