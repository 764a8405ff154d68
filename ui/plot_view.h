#pragma once
// PlotView: the one place that knows Qt Charts. Everything else hands it plain point lists, so
// moving to another plotting module touches this file pair only.
//
// Series are replaced whole (replace(), animations off) by the caller's refresh timer. Long
// series are thinned to a few points per pixel column (first, min, max, last of each column)
// before they reach the chart, so 10^5-point traces stay cheap to draw. Points whose y is NaN
// or infinite are not drawn as part of the line: each becomes a marked event (a red cross at
// the last finite value) with a label in the hover read-out. GUI thread only.

#include <QColor>
#include <QMap>
#include <QPointF>
#include <QVector>
#include <QWidget>

class QLabel;

namespace svi::ui {

class PlotView : public QWidget
{
    Q_OBJECT
public:
    explicit PlotView(QWidget* parent = nullptr);
    ~PlotView() override;

    void setTitle(const QString& title);
    void setAxisTitles(const QString& x, const QString& y);

    // Adds or replaces the series `id`. `events` are extra marked x positions with a label
    // (e.g. "diverged"); non-finite y values in `points` are marked the same way.
    void setSeries(int id, const QString& name, const QColor& color, const QVector<QPointF>& points,
                   const QVector<QPair<double, QString>>& events = {});
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
    // Fixes the y axis's ends (NaN: from the data, the default); points beyond are clipped.
    void setYRange(double lo, double hi);
    double yMin() const;
    double yMax() const;

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

signals:
    void hovered(const QString& text);

private:
    struct Series;
    void rebuildAxes();
    void showReadout(const QString& name, QPointF p);

    struct Impl;
    Impl* d;
    QMap<int, Series*> m_series;
    bool m_logX = false;
    double m_yLo, m_yHi; // NaN: from the data
    int m_batch = 0;
};

// Thins a polyline with increasing x to at most about 4 points per bucket of `buckets` equal
// x-ranges (first, min, max, last), keeping its visual envelope. Non-finite points are dropped.
QVector<QPointF> thinForDisplay(const QVector<QPointF>& points, int buckets);

} // namespace svi::ui
