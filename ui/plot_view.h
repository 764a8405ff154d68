#pragma once
// PlotView: the one place that knows Qt Charts. Everything else hands it plain point lists, so
// moving to another plotting module touches these files only (plot_view.cpp: series, ranges and
// ticks; plot_view_layout.cpp: fonts, titles, legend and the marks drawn over the plot).
//
// Series are replaced whole (replace(), animations off) by the caller's refresh timer. Long
// series are thinned to a few points per pixel column (first, min, max, last of each column)
// before they reach the chart, so 10^5-point traces stay cheap to draw. Points whose y is NaN
// or infinite are not drawn as part of the line: each becomes a marked event (a red square at
// the last finite value) with a label in the hover read-out.
//
// The axes are fitted to the data: they end at the data (plus a small margin in y) with round
// ticks inside, and the y axis leaves out a transient at the start of the traces (fitAxisRange
// in axis_ticks.h), saying so with a note and arrows at the edge. Whatever the chart's size,
// no title, tick label or legend entry is cut: the text shrinks with the chart (never below
// kMinTextPt), titles fall back to their short forms, then to two lines, and the legend (drawn
// here, not by Qt Charts) wraps onto more rows. A series of one point is drawn as a marker with
// its value. GUI thread only.

#include <QColor>
#include <QFont>
#include <QMap>
#include <QPointF>
#include <QRectF>
#include <QVector>
#include <QWidget>

class QLabel;

namespace svi::ui {

// How a series looks beyond its colour. Series with the same legend name share one legend
// entry (the repeats of one algorithm, drawn thin, in one colour).
struct PlotSeriesLook
{
    QString legendName; // empty: the series' name
    bool thin = false;  // one of several lines of one entry
};

class PlotView : public QWidget
{
    Q_OBJECT
public:
    // The smallest text drawn, in points: legible in a figure printed at a column's width.
    static constexpr double kMinTextPt = 7.0;

    explicit PlotView(QWidget* parent = nullptr);
    ~PlotView() override;

    // Titles with the shorter forms used where the full ones do not fit (empty: none).
    void setTitle(const QString& title, const QString& shortTitle = {});
    void setAxisTitles(const QString& x, const QString& y, const QString& xShort = {},
                       const QString& yShort = {});

    using SeriesLook = PlotSeriesLook;

    // Adds or replaces the series `id`. `events` are extra marked x positions with a label
    // (e.g. "diverged"); non-finite y values in `points` are marked the same way. `name` is
    // what the hover read-out calls it.
    void setSeries(int id, const QString& name, const QColor& color, const QVector<QPointF>& points,
                   const QVector<QPair<double, QString>>& events = {}, const SeriesLook& look = {});
    void removeSeries(int id);
    void clear();

    // Between beginUpdate() and endUpdate(), setSeries/removeSeries only record their data;
    // endUpdate() thins the changed series and sets the axes once. Qt Charts recomputes every
    // series' geometry whenever an axis range changes, so a refresh of five runs done one by
    // one costs five times a batched one.
    void beginUpdate();
    void endUpdate();

    void setLogX(bool on);
    bool logX() const { return m_logX; }
    // The linear x axis starts at 0 when no x is below it (training time, steps, epochs: the
    // run's start), else at the data. Off by default (a table's x may be anything).
    void setXFromZero(bool on);
    // Fixes the y axis's ends (NaN: from the data, the default); points beyond are clipped.
    void setYRange(double lo, double hi);
    // Shown in the middle of the plot while no series has a point (e.g. why a sampler's run has
    // no ELBO); empty: nothing.
    void setEmptyNote(const QString& text);
    double yMin() const;
    double yMax() const;
    double xMin() const;
    double xMax() const;

    // Writes the chart laid out at `size` as PNG (of size × pixelRatio pixels: by default twice
    // the screen resolution) or SVG, chosen by the suffix, atomically. Throws DataError naming
    // the file on failure.
    void save(const QString& path, QSize size = QSize(900, 560), double pixelRatio = 2.0) const;

    // For tests and the status bar.
    int seriesCount() const { return int(m_series.size()); }
    int drawnPoints(int id) const; // after thinning
    int eventCount(int id) const;
    QString readout() const; // the last hover read-out
    QStringList legendNames() const;
    // The note on values beyond the y axis ("▼ min −50000 off the axis"); empty when none.
    QString offAxisNote() const;
    // The empty-chart note when it is drawn now (no series has a point), else empty.
    QString emptyNoteShown() const;
    // The titles as drawn now (short or wrapped forms included; lines joined by '\n').
    QString titleShown() const;
    QString xTitleShown() const;
    QString yTitleShown() const;

    // What the chart draws when laid out at `size` (as save() lays it out): the plot area and
    // every visible text with its font and box, in the chart's coordinates. For tests that check
    // nothing is cut.
    struct DrawnText
    {
        QString text; // plain text
        QFont font;
        QRectF box;
    };
    struct Drawn
    {
        QRectF plotArea;
        QString title, xTitle, yTitle; // as titleShown() etc.
        QList<DrawnText> texts;
    };
    Drawn drawnAt(QSize size) const;

signals:
    void hovered(const QString& text);

private:
    struct Series;
    struct Impl;
    void rebuildAxes();
    void applyTicks();
    void fitText();
    void placeOverlays();
    void scheduleFit();
    bool updateLegend();
    bool layOutLegend(double width, double height, bool last);
    void showReadout(const QString& name, QPointF p);
    void layOutAt(QSizeF size) const;

    Impl* d;
    QMap<int, Series*> m_series;
    bool m_logX = false;
    bool m_xFromZero = false;
    double m_yLo, m_yHi; // NaN: from the data
    int m_batch = 0;
};

// Thins a polyline with increasing x to at most about 4 points per bucket of `buckets` equal
// x-ranges (first, min, max, last), keeping its visual envelope. Non-finite points are dropped.
QVector<QPointF> thinForDisplay(const QVector<QPointF>& points, int buckets);

} // namespace svi::ui
