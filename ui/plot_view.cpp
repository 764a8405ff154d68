#include "ui/plot_view.h"

#include "core/io/data_error.h"
#include "core/io/run_files.h"

#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

namespace svi::ui {

QVector<QPointF> thinForDisplay(const QVector<QPointF>& points, int buckets)
{
    QVector<QPointF> finite;
    finite.reserve(points.size());
    for (const QPointF& p : points)
        if (std::isfinite(p.x()) && std::isfinite(p.y()))
            finite.push_back(p);
    buckets = std::max(buckets, 1);
    if (finite.size() <= 4 * buckets)
        return finite;
    const double x0 = finite.front().x(), x1 = finite.back().x();
    const double width = (x1 - x0) / buckets;
    if (!(width > 0))
        return {finite.front(), finite.back()};
    QVector<QPointF> out;
    out.reserve(4 * buckets + 2);
    qsizetype i = 0;
    const qsizetype n = finite.size();
    while (i < n) {
        const int b = std::min(buckets - 1, int((finite[i].x() - x0) / width));
        const double end = x0 + (b + 1) * width;
        // The bucket holds at least point i, even when rounding puts x_i on its upper edge.
        qsizetype j = i + 1, lo = i, hi = i;
        while (j < n && (finite[j].x() < end || b == buckets - 1)) {
            if (finite[j].y() < finite[lo].y())
                lo = j;
            if (finite[j].y() > finite[hi].y())
                hi = j;
            ++j;
        }
        // first, min and max in x order, last: the column's envelope and its ends.
        qsizetype keep[4] = {i, std::min(lo, hi), std::max(lo, hi), j - 1};
        qsizetype previous = -1;
        for (qsizetype k : keep)
            if (k != previous) {
                out.push_back(finite[k]);
                previous = k;
            }
        i = j;
    }
    return out;
}

struct PlotView::Series
{
    QString name;
    QColor color;
    QVector<QPointF> raw;
    QVector<QPair<double, QString>> events;
    QLineSeries* line = nullptr;
    QScatterSeries* marks = nullptr;
    QVector<QString> markLabels; // one per mark point
    QVector<int> edgeMarks;      // marks with no finite value before them
    QVector<QPointF> shown;      // the thinned line as handed to the chart
    bool dirty = true;           // raw data or scale changed since `shown` was made
};

struct PlotView::Impl
{
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QValueAxis* xLinear = nullptr;
    QLogValueAxis* xLog = nullptr;
    QValueAxis* y = nullptr;
    QLabel* readout = nullptr;
    QString readoutText;
    QString xTitle;

    QAbstractAxis* xAxis(bool log) const
    {
        return log ? static_cast<QAbstractAxis*>(xLog) : xLinear;
    }
};

PlotView::PlotView(QWidget* parent)
    : QWidget(parent), d(new Impl), m_yLo(std::numeric_limits<double>::quiet_NaN()),
      m_yHi(std::numeric_limits<double>::quiet_NaN())
{
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->legend()->setAlignment(Qt::AlignBottom);
    d->chart->setMargins(QMargins(4, 4, 4, 4));
    d->xLinear = new QValueAxis;
    d->xLinear->setLabelFormat("%.4g");
    d->xLog = new QLogValueAxis;
    d->xLog->setLabelFormat("%g");
    d->xLog->setBase(10);
    d->y = new QValueAxis;
    d->y->setLabelFormat("%.5g");
    d->chart->addAxis(d->xLinear, Qt::AlignBottom);
    d->chart->addAxis(d->y, Qt::AlignLeft);
    d->view = new QChartView(d->chart);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->readout = new QLabel;
    d->readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->readout->setMinimumHeight(d->readout->fontMetrics().height());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(d->view, 1);
    layout->addWidget(d->readout);
    d->xLog->setParent(this); // owned by us while detached from the chart
}

PlotView::~PlotView()
{
    // The chart (owned by its view, a child of ours) owns the Qt series and the attached axis;
    // the detached axis is our child.
    qDeleteAll(m_series);
    delete d;
}

void PlotView::setTitle(const QString& title)
{
    d->chart->setTitle(title);
}

void PlotView::setAxisTitles(const QString& x, const QString& y)
{
    d->xTitle = x;
    d->xLinear->setTitleText(x);
    d->xLog->setTitleText(x + " (log)");
    d->y->setTitleText(y);
}

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

void PlotView::showReadout(const QString& name, QPointF p)
{
    d->readoutText =
        QString("%1: %2 = %3, y = %4")
            .arg(name, d->xTitle.isEmpty() ? "x" : d->xTitle, number(p.x()), number(p.y()));
    d->readout->setText(d->readoutText);
    emit hovered(d->readoutText);
}

void PlotView::setSeries(int id, const QString& name, const QColor& color,
                         const QVector<QPointF>& points,
                         const QVector<QPair<double, QString>>& events)
{
    Series* s = m_series.value(id, nullptr);
    if (!s) {
        s = new Series;
        s->line = new QLineSeries;
        s->marks = new QScatterSeries;
        s->marks->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        s->marks->setMarkerSize(9);
        s->marks->setColor(QColor(200, 30, 30));
        s->marks->setBorderColor(QColor(120, 0, 0));
        d->chart->addSeries(s->line);
        d->chart->addSeries(s->marks);
        s->line->attachAxis(d->xAxis(m_logX));
        s->line->attachAxis(d->y);
        s->marks->attachAxis(d->xAxis(m_logX));
        s->marks->attachAxis(d->y);
        // Event marks have no legend entry of their own: the line's entry names the run.
        for (QLegendMarker* m : d->chart->legend()->markers(s->marks))
            m->setVisible(false);
        connect(s->line, &QLineSeries::hovered, this, [this, s](const QPointF& p, bool state) {
            if (state)
                showReadout(s->name, p);
        });
        connect(s->marks, &QScatterSeries::hovered, this, [this, s](const QPointF& p, bool state) {
            if (!state)
                return;
            const auto pts = s->marks->points();
            for (int i = 0; i < pts.size(); ++i)
                if (std::abs(pts[i].x() - p.x()) <= 1e-9 * std::max(1.0, std::abs(p.x()))) {
                    d->readoutText =
                        s->name + ": " + s->markLabels.value(i) + " at " + number(p.x());
                    d->readout->setText(d->readoutText);
                    emit hovered(d->readoutText);
                    return;
                }
        });
        m_series.insert(id, s);
    }
    s->name = name;
    s->color = color;
    s->raw = points;
    s->events = events;
    s->dirty = true;
    s->line->setName(name);
    QPen pen(color);
    pen.setWidthF(1.6);
    s->line->setPen(pen);
    rebuildAxes();
}

void PlotView::removeSeries(int id)
{
    Series* s = m_series.take(id);
    if (!s)
        return;
    d->chart->removeSeries(s->line);
    d->chart->removeSeries(s->marks);
    delete s->line;
    delete s->marks;
    delete s;
    rebuildAxes();
}

void PlotView::clear()
{
    for (int id : m_series.keys())
        removeSeries(id);
}

void PlotView::setYRange(double lo, double hi)
{
    m_yLo = lo;
    m_yHi = hi;
    rebuildAxes();
}

double PlotView::yMin() const
{
    return d->y->min();
}

double PlotView::yMax() const
{
    return d->y->max();
}

void PlotView::setLogX(bool on)
{
    if (on == m_logX)
        return;
    QAbstractAxis* from = d->xAxis(m_logX);
    QAbstractAxis* to = d->xAxis(on);
    for (Series* s : m_series) {
        s->line->detachAxis(from);
        s->marks->detachAxis(from);
    }
    d->chart->removeAxis(from);
    from->setParent(this);
    d->chart->addAxis(to, Qt::AlignBottom);
    for (Series* s : m_series) {
        s->line->attachAxis(to);
        s->marks->attachAxis(to);
    }
    m_logX = on;
    for (Series* s : m_series)
        s->dirty = true;
    rebuildAxes();
}

void PlotView::beginUpdate()
{
    ++m_batch;
}

void PlotView::endUpdate()
{
    if (m_batch > 0 && --m_batch == 0)
        rebuildAxes();
}

void PlotView::rebuildAxes()
{
    if (m_batch > 0)
        return; // endUpdate() does it once
    // About two columns of the plot per bucket: up to four points each, so about two points
    // per pixel column at most, which keeps Qt Charts' per-point geometry work small.
    const int buckets = std::max(100, d->view->width() / 2);
    double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
    double ymin = xmin, ymax = -xmin;
    for (Series* s : m_series) {
        if (!s->dirty) { // only the range of an unchanged series is needed
            for (const QPointF& p : s->shown) {
                xmin = std::min(xmin, p.x());
                xmax = std::max(xmax, p.x());
                ymin = std::min(ymin, p.y());
                ymax = std::max(ymax, p.y());
            }
            for (const QPointF& m : s->marks->points()) {
                xmin = std::min(xmin, m.x());
                xmax = std::max(xmax, m.x());
            }
            continue;
        }
        s->dirty = false;
        // In log mode only x > 0 can be drawn; thinning happens on the drawn scale.
        QVector<QPointF> pts;
        pts.reserve(s->raw.size());
        for (const QPointF& p : s->raw)
            if (!m_logX || p.x() > 0)
                pts.push_back(m_logX ? QPointF(std::log10(p.x()), p.y()) : p);
        QVector<QPointF> shown = thinForDisplay(pts, buckets);
        if (m_logX)
            for (QPointF& p : shown)
                p.setX(std::pow(10.0, p.x()));
        s->line->replace(shown);
        // A line through one point draws nothing: a lone value (a metric of the final full
        // pass only) is shown as a dot.
        s->line->setPointsVisible(shown.size() == 1);
        s->shown = shown;

        // Events: non-finite values and the caller's events, each at the last finite y.
        QVector<QPointF> marks;
        s->markLabels.clear();
        double lastY = std::numeric_limits<double>::quiet_NaN();
        auto yAt = [&](double x) {
            double y = std::numeric_limits<double>::quiet_NaN();
            for (const QPointF& p : s->raw) {
                if (p.x() > x)
                    break;
                if (std::isfinite(p.y()))
                    y = p.y();
            }
            return y;
        };
        for (const QPointF& p : s->raw) {
            if (std::isfinite(p.y())) {
                lastY = p.y();
            } else if (std::isfinite(p.x()) && (!m_logX || p.x() > 0)) {
                marks.push_back(QPointF(p.x(), lastY));
                s->markLabels.push_back(std::isnan(p.y()) ? "NaN" : "infinite value");
            }
        }
        for (const auto& [x, label] : s->events)
            if (std::isfinite(x) && (!m_logX || x > 0)) {
                marks.push_back(QPointF(x, yAt(x)));
                s->markLabels.push_back(label);
            }
        s->edgeMarks.clear();
        for (int i = 0; i < marks.size(); ++i)
            if (!std::isfinite(marks[i].y())) {
                marks[i].setY(0.0); // placed on the lower edge once the range is known
                s->edgeMarks.push_back(i);
            }
        for (const QPointF& p : shown) {
            xmin = std::min(xmin, p.x());
            xmax = std::max(xmax, p.x());
            ymin = std::min(ymin, p.y());
            ymax = std::max(ymax, p.y());
        }
        for (const QPointF& m : marks) {
            xmin = std::min(xmin, m.x());
            xmax = std::max(xmax, m.x());
        }
        s->marks->replace(marks);
    }
    if (!std::isfinite(xmin)) {
        xmin = m_logX ? 1 : 0;
        xmax = m_logX ? 10 : 1;
    }
    if (!std::isfinite(ymin)) {
        ymin = 0;
        ymax = 1;
    }
    if (xmax <= xmin)
        xmax = m_logX ? xmin * 10 : xmin + 1;
    // A flat series (to rounding: a metric from two passes that sum in different orders) gets a
    // range of ± 5 % of its value; Qt's axis cannot draw a span of a few ulps.
    const double scale = std::max(std::abs(ymin), std::abs(ymax));
    double pad = (ymax - ymin) * 0.05;
    if (!(pad > 1e-9 * scale))
        pad = std::max(1e-6, scale * 0.05);
    if (std::isfinite(m_yLo) || std::isfinite(m_yHi)) {
        const double lo = std::isfinite(m_yLo) ? m_yLo : ymin - pad;
        const double hi = std::isfinite(m_yHi) ? m_yHi : ymax + pad;
        d->y->setRange(lo, hi > lo ? hi : lo + 1.0); // as asked: no rounding of the ends
    } else {
        d->y->setRange(ymin - pad, ymax + pad);
        d->y->applyNiceNumbers(); // round tick values
    }
    if (m_logX) {
        d->xLog->setRange(xmin, xmax);
    } else {
        d->xLinear->setRange(xmin, xmax);
        d->xLinear->applyNiceNumbers();
    }
    // Marks with no finite value before them sit on the lower edge.
    for (Series* s : m_series) {
        if (s->edgeMarks.isEmpty())
            continue;
        auto pts = s->marks->points();
        for (int i : s->edgeMarks)
            pts[i].setY(d->y->min());
        s->marks->replace(pts);
    }
}

int PlotView::drawnPoints(int id) const
{
    const Series* s = m_series.value(id, nullptr);
    return s ? int(s->line->count()) : 0;
}

int PlotView::eventCount(int id) const
{
    const Series* s = m_series.value(id, nullptr);
    return s ? int(s->marks->count()) : 0;
}

QString PlotView::readout() const
{
    return d->readoutText;
}

QStringList PlotView::legendNames() const
{
    QStringList names;
    for (QLegendMarker* m : d->chart->legend()->markers())
        if (m->series()->type() == QAbstractSeries::SeriesTypeLine)
            names << m->label();
    return names;
}

void PlotView::save(const QString& path, QSize size, double pixelRatio) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "png" && suffix != "svg")
        throw DataError("cannot write '" + path.toStdString() +
                        "': the chart can be saved as .png or .svg");
    // Lay the chart out at the export size, draw it, and put it back.
    const QRectF before = d->chart->geometry();
    d->chart->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
    const QRectF source(QPointF(0, 0), QSizeF(size));
    QByteArray bytes;
    if (suffix == "svg") {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(d->chart->title());
        QPainter painter(&svg);
        d->chart->scene()->render(&painter, source, source);
    } else {
        QImage image(size * pixelRatio, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        d->chart->scene()->render(&painter, QRectF(image.rect()), source);
        painter.end();
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
    }
    d->chart->setGeometry(before);
    writeFileAtomically(path, bytes);
}

} // namespace svi::ui
