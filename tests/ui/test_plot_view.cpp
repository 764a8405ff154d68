// The plotting adapter: thinning keeps the envelope, non-finite values become marked events,
// log-x, legend and files.

#include "core/io/data_error.h"
#include "ui/plot_view.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <limits>

using namespace svi::ui;

class TestPlotView : public QObject
{
    Q_OBJECT
private slots:
    void thinningKeepsTheEnvelope();
    void thinningEndsOnAwkwardSpacing();
    void shortSeriesAreNotThinned();
    void nonFiniteValuesAreEventsNotGaps();
    void logXDropsNonPositiveX();
    void seriesReplaceAndRemove();
    void yRangeAsAsked();
    void savesPngAndSvg();
    void lonePointIsDrawn();
    void flatSeriesGrownLiveIsFlat();
};

void TestPlotView::thinningKeepsTheEnvelope()
{
    QVector<QPointF> pts;
    for (int i = 0; i < 100000; ++i)
        pts.push_back(QPointF(i, std::sin(i * 0.01) + (i == 54321 ? 5.0 : 0.0)));
    const QVector<QPointF> thin = thinForDisplay(pts, 500);
    QVERIFY2(thin.size() <= 4 * 500 && thin.size() >= 500,
             qPrintable(QString::number(thin.size())));
    // Every extreme survives, and so do both ends; x stays ordered.
    double maxY = -1e9, minY = 1e9;
    for (const QPointF& p : thin) {
        maxY = std::max(maxY, p.y());
        minY = std::min(minY, p.y());
    }
    QCOMPARE(maxY, pts[54321].y());
    double trueMin = 1e9;
    for (const QPointF& p : pts)
        trueMin = std::min(trueMin, p.y());
    QCOMPARE(minY, trueMin);
    QCOMPARE(thin.front(), pts.front());
    QCOMPARE(thin.back(), pts.back());
    for (int i = 1; i < thin.size(); ++i)
        QVERIFY(thin[i].x() >= thin[i - 1].x());
}

void TestPlotView::thinningEndsOnAwkwardSpacing()
{
    // x steps of 0.01 make bucket edges fall between float roundings; thinning must still
    // advance through every point (it once looped forever here).
    QVector<QPointF> pts;
    for (int i = 0; i < 100001; ++i)
        pts.push_back(QPointF(i * 0.01, double(i % 7)));
    for (int buckets : {200, 333, 1000, 1021}) {
        const QVector<QPointF> thin = thinForDisplay(pts, buckets);
        QVERIFY2(thin.size() <= 4 * buckets,
                 qPrintable(QString("%1: %2").arg(buckets).arg(thin.size())));
        QCOMPARE(thin.back(), pts.back());
    }
}

void TestPlotView::shortSeriesAreNotThinned()
{
    QVector<QPointF> pts = {{0, 1}, {1, 2}, {2, std::nan("")}, {3, 4}};
    const QVector<QPointF> thin = thinForDisplay(pts, 100);
    QCOMPARE(thin.size(), 3); // the NaN is dropped, the rest kept as is
    QCOMPARE(thin[2], QPointF(3, 4));
}

void TestPlotView::nonFiniteValuesAreEventsNotGaps()
{
    PlotView plot;
    plot.resize(600, 400);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    plot.setSeries(1, "run", Qt::blue, {{1, -5}, {2, -4}, {3, nan}, {4, -3}}, {{4.0, "diverged"}});
    QCOMPARE(plot.drawnPoints(1), 3);
    QCOMPARE(plot.eventCount(1), 2); // the NaN and the declared event
    plot.setSeries(2, "clean", Qt::red, {{1, 1}, {2, 2}});
    QCOMPARE(plot.eventCount(2), 0);
    QCOMPARE(plot.legendNames(), QStringList({"run", "clean"})); // event marks have no entry
}

void TestPlotView::logXDropsNonPositiveX()
{
    PlotView plot;
    plot.setSeries(1, "run", Qt::blue, {{0, 1}, {1, 2}, {10, 3}, {100, 4}});
    QCOMPARE(plot.drawnPoints(1), 4);
    plot.setLogX(true);
    QVERIFY(plot.logX());
    QCOMPARE(plot.drawnPoints(1), 3);
    plot.setLogX(false);
    QCOMPARE(plot.drawnPoints(1), 4);
}

void TestPlotView::yRangeAsAsked()
{
    // An early transient (30) need not flatten the rest: the y axis ends where asked.
    PlotView plot;
    plot.setSeries(1, "run", Qt::blue, {{0.01, 30}, {0.5, 0.36}, {1, 0.33}, {10, 0.326}});
    QVERIFY(plot.yMax() >= 30);
    plot.setYRange(0.32, 0.4);
    QCOMPARE(plot.yMin(), 0.32);
    QCOMPARE(plot.yMax(), 0.4);
    QCOMPARE(plot.drawnPoints(1), 4); // clipped by the axis, not dropped
    // One end from the data: its lowest point less 5 % of the data's span.
    plot.setYRange(std::nan(""), 1.0);
    QVERIFY(std::abs(plot.yMin() - (0.326 - 0.05 * (30 - 0.326))) < 1e-9);
    QCOMPARE(plot.yMax(), 1.0);
    plot.setYRange(std::nan(""), std::nan(""));
    QVERIFY(plot.yMax() >= 30);
}

void TestPlotView::seriesReplaceAndRemove()
{
    PlotView plot;
    plot.setSeries(1, "a", Qt::blue, {{0, 1}, {1, 2}});
    plot.setSeries(1, "a2", Qt::blue, {{0, 1}, {1, 2}, {2, 3}});
    QCOMPARE(plot.seriesCount(), 1);
    QCOMPARE(plot.drawnPoints(1), 3);
    QCOMPARE(plot.legendNames(), QStringList({"a2"}));
    // In a batch, the data are taken at once and drawn at the end.
    plot.beginUpdate();
    plot.setSeries(1, "a2", Qt::blue, {{0, 1}, {1, 2}, {2, 3}, {3, 4}});
    plot.setSeries(2, "b", Qt::red, {{0, 1}, {1, 2}});
    QCOMPARE(plot.drawnPoints(1), 3);
    plot.endUpdate();
    QCOMPARE(plot.drawnPoints(1), 4);
    QCOMPARE(plot.drawnPoints(2), 2);
    plot.removeSeries(2);
    plot.removeSeries(1);
    QCOMPARE(plot.seriesCount(), 0);
    QCOMPARE(plot.drawnPoints(1), 0);
}

void TestPlotView::savesPngAndSvg()
{
    QTemporaryDir dir;
    PlotView plot;
    plot.setTitle("Held-out PSNR");
    plot.resize(500, 300);
    plot.setSeries(1, "Gibbs-SSVI", Qt::blue, {{0, 20}, {1, 25}, {2, 27}});
    plot.save(dir.filePath("c.png"), QSize(400, 250));
    const QImage img(dir.filePath("c.png"));
    QCOMPARE(img.size(), QSize(800, 500));
    // Not blank: the blue line is drawn.
    int blue = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            blue += c.blue() > 200 && c.red() < 80 && c.green() < 80;
        }
    QVERIFY2(blue > 100, qPrintable(QString::number(blue)));
    plot.save(dir.filePath("c.svg"));
    QFile svg(dir.filePath("c.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray text = svg.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Held-out PSNR"));
    QVERIFY_THROWS_EXCEPTION(svi::DataError, plot.save(dir.filePath("c.bmp")));
    QVERIFY_THROWS_EXCEPTION(svi::DataError, plot.save(dir.filePath("missing/dir/c.png")));
}

void TestPlotView::lonePointIsDrawn()
{
    // A metric of the final full pass only is one point per run: a line through it draws
    // nothing, so it is drawn as a dot.
    QTemporaryDir dir;
    PlotView plot;
    plot.setSeries(1, "one", Qt::blue, {{1, 20}});
    plot.setSeries(2, "two", Qt::red, {{0, 10}, {2, 30}});
    plot.save(dir.filePath("p1.png"), QSize(400, 250), 1.0);
    QCOMPARE(QImage(dir.filePath("p1.png")).size(), QSize(400, 250)); // pixelRatio 1
    plot.save(dir.filePath("p.png"), QSize(400, 250), 3.0);
    const QImage img(dir.filePath("p.png"));
    QCOMPARE(img.size(), QSize(1200, 750));
    int blue = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            blue += c.blue() > 200 && c.red() < 80 && c.green() < 80;
        }
    // Well beyond what the legend's marker and a line through one point alone give (+17 pixels
    // here without the dot, +100 with it).
    plot.removeSeries(1);
    plot.setSeries(1, "one", Qt::blue, {});
    plot.save(dir.filePath("q.png"), QSize(400, 250), 3.0);
    const QImage none(dir.filePath("q.png"));
    int blueWithout = 0;
    for (int y = 0; y < none.height(); ++y)
        for (int x = 0; x < none.width(); ++x) {
            const QColor c = none.pixelColor(x, y);
            blueWithout += c.blue() > 200 && c.red() < 80 && c.green() < 80;
        }
    QVERIFY2(blue >= blueWithout + 60, qPrintable(QString("%1 vs %2").arg(blue).arg(blueWithout)));
}

void TestPlotView::flatSeriesGrownLiveIsFlat()
{
    // A closed form's metric: the same value at its two snapshots but for the last bit (a
    // cheap and a full pass sum in different orders), arriving one at a time.
    QTemporaryDir dir;
    PlotView plot;
    plot.resize(500, 300);
    plot.show(); // as the window's charts: shown, updated in batches
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.beginUpdate();
    plot.setSeries(1, "flat", Qt::blue, {{0.165, 5.5355}});
    plot.endUpdate();
    QTest::qWait(50);
    plot.beginUpdate();
    plot.setSeries(1, "flat", Qt::blue, {{0.165, 5.5355}, {0.315, std::nextafter(5.5355, 6.0)}});
    plot.endUpdate();
    QTest::qWait(50);
    const QImage img = plot.grab().toImage();
    int top = img.height(), bottom = -1;
    for (int y = 0; y < img.height() * 3 / 4; ++y) // above the legend
        for (int x = img.width() / 3; x < img.width() * 2 / 3; ++x) {
            const QColor c = img.pixelColor(x, y);
            if (c.blue() > 200 && c.red() < 80 && c.green() < 80) {
                top = std::min(top, y);
                bottom = std::max(bottom, y);
            }
        }
    QVERIFY(bottom >= 0);
    QVERIFY2(bottom - top <= 4,
             qPrintable(QString("the line spans rows %1–%2").arg(top).arg(bottom)));
}

QTEST_MAIN(TestPlotView)
#include "test_plot_view.moc"
