// The plotting adapter: thinning keeps the envelope, non-finite values become marked events,
// log-x, legend and files; axes fitted to the data; nothing cut at a column's width.

#include "core/io/data_error.h"
#include "ui/plot_view.h"

#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
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
    void axesEndAtTheData();
    void earlyOutlierGoesOffTheAxis();
    void largeValuesAreScaledInTheTitle();
    void repeatsShareALegendEntry();
    void lonePointShowsItsValue();
    void nothingIsCut_data();
    void nothingIsCut();
    void savesPngAndSvg();
    void lonePointIsDrawn();
    void flatSeriesGrownLiveIsFlat();
    void emptyChartSaysWhy();
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
    // The y axis ends where asked, whatever the data.
    PlotView plot;
    plot.setSeries(1, "run", Qt::blue, {{0.01, 30}, {0.5, 0.36}, {1, 0.33}, {10, 0.326}});
    plot.setYRange(0.32, 0.4);
    QCOMPARE(plot.yMin(), 0.32);
    QCOMPARE(plot.yMax(), 0.4);
    QCOMPARE(plot.drawnPoints(1), 4); // clipped by the axis, not dropped
    // One end from the data (the points after the start's transient): its lowest point less
    // 4 % of their span.
    plot.setYRange(std::nan(""), 1.0);
    QVERIFY2(std::abs(plot.yMin() - (0.326 - 0.04 * (0.33 - 0.326))) < 1e-9,
             qPrintable(QString::number(plot.yMin(), 'g', 10)));
    QCOMPARE(plot.yMax(), 1.0);
    plot.setYRange(-100, 100);
    QVERIFY(plot.offAxisNote().isEmpty()); // every value within the range asked
}

void TestPlotView::axesEndAtTheData()
{
    // The faults seen: an ELBO axis running to +20,000 for values below -890, and an x axis
    // running to 4 for data ending at 3.
    PlotView plot;
    plot.resize(600, 400);
    plot.setSeries(1, "a", Qt::blue, {{0.2, -1000}, {1, -950}, {2, -900}, {3, -890}});
    QCOMPARE(plot.xMin(), 0.2);
    QCOMPARE(plot.xMax(), 3.0);
    const double span = 110;
    QVERIFY2(plot.yMin() < -1000 && plot.yMin() >= -1000 - 0.05 * span,
             qPrintable(QString::number(plot.yMin())));
    QVERIFY2(plot.yMax() > -890 && plot.yMax() <= -890 + 0.05 * span,
             qPrintable(QString::number(plot.yMax())));
    // Training time, steps and epochs start at 0.
    plot.setXFromZero(true);
    QCOMPARE(plot.xMin(), 0.0);
    QCOMPARE(plot.xMax(), 3.0);
    // The ticks are round values inside the range: the x axis shows 3, the y axis -900.
    const PlotView::Drawn drawn = plot.drawnAt(QSize(600, 400));
    QStringList texts;
    for (const PlotView::DrawnText& t : drawn.texts)
        texts << t.text;
    for (const QStringList& tick : {QStringList{"3", "3.0"}, {"-900"}, {"-1000"}})
        QVERIFY2(texts.contains(tick[0]) || texts.contains(tick.value(1, tick[0])),
                 qPrintable(tick[0] + " not in " + texts.join('|')));
    for (const char* beyond : {"3.5", "4", "4.0", "-880", "-1020", "-0", "-0.0"})
        QVERIFY2(!texts.contains(beyond), qPrintable(texts.join('|')));
}

void TestPlotView::earlyOutlierGoesOffTheAxis()
{
    // One early point far below the rest (an ELBO's first estimate) would flatten the curve: it
    // is left below the axis, which says so.
    PlotView plot;
    plot.resize(600, 400);
    QVector<QPointF> elbo = {{0.01, -50000}};
    for (int i = 1; i <= 20; ++i)
        elbo.push_back({0.15 * i, -1000 + 110 * (1 - std::exp(-0.3 * i))});
    plot.setSeries(1, "a", Qt::blue, elbo);
    QVERIFY2(plot.yMin() > -1100 && plot.yMax() < -850,
             qPrintable(QString("%1 .. %2").arg(plot.yMin()).arg(plot.yMax())));
    QVERIFY2(plot.offAxisNote().contains("min -50000"), qPrintable(plot.offAxisNote()));
    QCOMPARE(plot.drawnPoints(1), 21); // still drawn (to the edge), not dropped
    // The note and the arrow are drawn over the plot.
    const PlotView::Drawn drawn = plot.drawnAt(QSize(600, 400));
    bool note = false;
    for (const PlotView::DrawnText& t : drawn.texts)
        note = note || (t.text == plot.offAxisNote() && drawn.plotArea.contains(t.box));
    QVERIFY(note);
    // A start only somewhat lower is part of the curve: everything on the axis.
    elbo[0].setY(-980);
    plot.setSeries(1, "a", Qt::blue, elbo);
    QVERIFY(plot.yMin() < -980);
    QVERIFY(plot.offAxisNote().isEmpty());
    // A late excursion is data, not a transient: on the axis too.
    elbo[0].setY(-1000);
    elbo[15].setY(-50000);
    plot.setSeries(1, "a", Qt::blue, elbo);
    QVERIFY(plot.yMin() < -50000);
    QVERIFY(plot.offAxisNote().isEmpty());
}

void TestPlotView::largeValuesAreScaledInTheTitle()
{
    // A ratings run's ELBO (~ -6e7) reads -62 .. -58 with the power of ten in the title, not
    // -6.2e+07.
    PlotView plot;
    const QSize size(600, 400);
    plot.setAxisTitles("training time (s)", "ELBO");
    plot.setSeries(1, "a", Qt::blue, {{1, -6.2e7}, {2, -6.0e7}, {3, -5.8e7}});
    QCOMPARE(plot.drawnAt(size).yTitle, QString::fromUtf8("ELBO (×10⁶)"));
    plot.setAxisTitles("training time (s)", "Held-out log-likelihood (nats)");
    const PlotView::Drawn drawn = plot.drawnAt(size);
    QCOMPARE(drawn.yTitle, QString::fromUtf8("Held-out log-likelihood (nats, ×10⁶)"));
    QStringList texts;
    for (const PlotView::DrawnText& t : drawn.texts)
        texts << t.text;
    QVERIFY2(texts.contains("-60"), qPrintable(texts.join('|')));
    QVERIFY(!texts.join('|').contains("e+"));
    plot.setSeries(1, "a", Qt::blue, {{1, -62}, {2, -60}, {3, -58}});
    QCOMPARE(plot.drawnAt(size).yTitle, QString("Held-out log-likelihood (nats)"));
}

void TestPlotView::repeatsShareALegendEntry()
{
    PlotView plot;
    const PlotView::SeriesLook look{"MF-SSVI", true};
    plot.setSeries(1, "MF-SSVI #1", Qt::blue, {{0, 1}, {1, 2}}, {}, look);
    plot.setSeries(2, "MF-SSVI #2", Qt::blue, {{0, 1.5}, {1, 2.5}}, {}, look);
    plot.setSeries(3, "Gibbs-SSVI", Qt::red, {{0, 1}, {1, 3}});
    plot.setSeries(4, "nothing", Qt::green, {});
    QCOMPARE(plot.legendNames(), QStringList({"MF-SSVI", "Gibbs-SSVI"}));
    QCOMPARE(plot.seriesCount(), 4);
}

void TestPlotView::lonePointShowsItsValue()
{
    // A metric of the final full pass only (PSNR) is one point per run: a marker with its value.
    PlotView plot;
    plot.setXFromZero(true);
    plot.setSeries(1, "a", Qt::blue, {{6.08, 31.36881111}});
    plot.setSeries(2, "b", Qt::red, {{6.03, 31.52024395}});
    QCOMPARE(plot.xMin(), 0.0);
    const PlotView::Drawn drawn = plot.drawnAt(QSize(320, 200));
    for (const char* value : {"31.37", "31.52"}) {
        const auto it = std::find_if(drawn.texts.begin(), drawn.texts.end(),
                                     [&](const PlotView::DrawnText& t) { return t.text == value; });
        QVERIFY2(it != drawn.texts.end(), value);
        QVERIFY(QRectF(0, 0, 320, 200).contains(it->box)); // beside its marker, on the figure
    }
}

// At a column's width and at the default export size nothing drawn is cut: no title, tick label
// or legend entry elided by Qt Charts ("Held-o..."), none past the figure's edge, no two texts on
// top of each other; each axis title no longer than its axis; text no smaller than the minimum.
void TestPlotView::nothingIsCut_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("column 320x200") << QSize(320, 200);
    QTest::newRow("window 500x230") << QSize(500, 230);
    QTest::newRow("export 900x560") << QSize(900, 560);
}

void TestPlotView::nothingIsCut()
{
    QFETCH(QSize, size);
    PlotView plot;
    plot.setTitle("Test NLL per word (importance sampling)", "Test NLL per word");
    plot.setAxisTitles("training time (s)", "Test NLL per word (importance sampling) (nats)",
                       "time (s)", "Test NLL per word (nats)");
    plot.setXFromZero(true);
    const QStringList names = {"GLM H-MC-SSVI", "GME H-MC-SSVI", "MF-SSVI (run1)", "Titsias-SSVI",
                               "Gibbs-SSVI"};
    for (int i = 0; i < names.size(); ++i) {
        QVector<QPointF> pts;
        for (int k = 0; k < 30; ++k)
            pts.push_back({0.2 * k, 7.5 - i * 0.1 - std::log1p(k) * 0.2});
        plot.setSeries(i + 1, names[i], QColor::fromHsv(i * 60, 200, 200), pts);
    }
    const PlotView::Drawn drawn = plot.drawnAt(size);
    QVERIFY(drawn.plotArea.width() > 0.45 * size.width());
    QVERIFY(drawn.plotArea.height() > 0.35 * size.height());
    QStringList texts;
    for (const PlotView::DrawnText& t : drawn.texts)
        texts << t.text;
    const QString all = texts.join('|');
    for (const PlotView::DrawnText& t : drawn.texts) {
        QVERIFY2(!t.text.endsWith("...") && !t.text.contains(QChar(0x2026)), qPrintable(all));
        QVERIFY2(QRectF(0, 0, size.width(), size.height()).contains(t.box),
                 qPrintable(t.text + " past the edge"));
        QVERIFY2(t.font.pointSizeF() >= PlotView::kMinTextPt, qPrintable(t.text));
        for (const PlotView::DrawnText& u : drawn.texts)
            QVERIFY2(&t == &u ||
                         !t.box.adjusted(1, 1, -1, -1).intersects(u.box.adjusted(1, 1, -1, -1)),
                     qPrintable(t.text + " over " + u.text));
    }
    // Every legend entry in full, once.
    for (const QString& name : names)
        QVERIFY2(texts.count(name) == 1, qPrintable(name + " not in " + all));
    // The titles as chosen are drawn, each within its room: the x title along the plot's
    // width, the y title (turned) along its height, line by line, measured independently.
    const auto fitsAlong = [&](const QString& title, double room) {
        const auto it = std::find_if(drawn.texts.begin(), drawn.texts.end(),
                                     [&](const PlotView::DrawnText& t) { return t.text == title; });
        if (it == drawn.texts.end())
            return false;
        const QFontMetricsF fm(it->font);
        for (const QString& line : title.split('\n'))
            if (fm.horizontalAdvance(line) > room)
                return false;
        return true;
    };
    QVERIFY2(fitsAlong(drawn.xTitle, drawn.plotArea.width()), qPrintable(drawn.xTitle));
    QVERIFY2(fitsAlong(drawn.yTitle, drawn.plotArea.height()), qPrintable(drawn.yTitle));
    QVERIFY2(fitsAlong(drawn.title, size.width()), qPrintable(drawn.title));
    // Where they fit, the full titles.
    if (size.width() >= 900)
        QCOMPARE(drawn.yTitle, QString("Test NLL per word (importance sampling) (nats)"));
    else
        QVERIFY2(QString(drawn.yTitle).replace('\n', ' ').startsWith("Test NLL per word"),
                 qPrintable(drawn.yTitle));
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

void TestPlotView::emptyChartSaysWhy()
{
    // A chart with nothing to draw (a sampler's run has no ELBO) says why, over its plot area,
    // at a column's width too; once a series has points the note goes.
    PlotView plot;
    plot.resize(320, 200);
    const QString why = "No ELBO for Gibbs sampler: a sampler has no bound. The held-out "
                        "metric shows its progress.";
    plot.setEmptyNote(why);
    QCOMPARE(plot.emptyNoteShown(), why);
    const auto noteDrawn = [&] {
        const PlotView::Drawn drawn = plot.drawnAt(QSize(320, 200));
        for (const PlotView::DrawnText& t : drawn.texts)
            if (t.text.simplified() == why)
                return drawn.plotArea.contains(t.box);
        return false;
    };
    QVERIFY(noteDrawn());
    plot.setSeries(1, "a", Qt::blue, {{0.0, 1.0}, {1.0, 2.0}});
    QVERIFY(plot.emptyNoteShown().isEmpty());
    QVERIFY(!noteDrawn());
}

QTEST_MAIN(TestPlotView)
#include "test_plot_view.moc"
