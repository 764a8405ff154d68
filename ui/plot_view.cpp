// PlotView: series, their thinning and marks, the axes' ranges and ticks.

#include "ui/plot_view.h"

#include "ui/axis_ticks.h"
#include "ui/plot_view_impl.h"

#include <QGraphicsRectItem>
#include <QLabel>
#include <QVBoxLayout>
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

PlotView::PlotView(QWidget* parent)
    : QWidget(parent), d(new Impl), m_yLo(std::numeric_limits<double>::quiet_NaN()),
      m_yHi(std::numeric_limits<double>::quiet_NaN())
{
    d->baseFont = font();
    d->chart = new QChart;
    d->chart->setAnimationOptions(QChart::NoAnimation);
    d->chart->legend()->hide(); // ours wraps onto rows instead of cutting its entries
    d->chart->setMargins(QMargins(4, 4, 4, 4));
    d->xLinear = new QCategoryAxis;
    d->xLinear->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    d->xLog = new QLogValueAxis;
    d->xLog->setLabelFormat("%g");
    d->xLog->setBase(10);
    d->y = new QCategoryAxis;
    d->y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (QAbstractAxis* a :
         {static_cast<QAbstractAxis*>(d->xLinear), static_cast<QAbstractAxis*>(d->xLog),
          static_cast<QAbstractAxis*>(d->y)})
        a->setTruncateLabels(false); // the fitting makes room; a cut label would hide a bug
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
    // Ours, over the chart: children of the chart item, so they are drawn and exported with it.
    d->legend = new QGraphicsRectItem(d->chart);
    d->legend->setPen(Qt::NoPen);
    d->legend->setZValue(20);
    d->overlay = new QGraphicsRectItem(d->chart);
    d->overlay->setPen(Qt::NoPen);
    d->overlay->setZValue(20);
    d->fitTimer = new QTimer(this);
    d->fitTimer->setSingleShot(true);
    d->fitTimer->setInterval(0);
    connect(d->fitTimer, &QTimer::timeout, this, [this] { fitText(); });
    // A new size (the window resized, an export) fits the text again; a new plot area (longer
    // tick labels) moves the ticks and the marks over the plot.
    connect(d->chart, &QChart::geometryChanged, this, [this] { scheduleFit(); });
    connect(d->chart, &QChart::plotAreaChanged, this, [this] {
        if (d->fitting)
            return;
        applyTicks();
        placeOverlays();
    });
}

PlotView::~PlotView()
{
    // The chart (owned by its view, a child of ours) owns the Qt series, the attached axis and
    // our items over it; the detached axis is our child. They outlive d (QWidget deletes its
    // children after this), so nothing they signal may reach us any more.
    d->fitTimer->stop();
    disconnect(d->chart, nullptr, this, nullptr);
    for (Series* s : m_series) {
        disconnect(s->line, nullptr, this, nullptr);
        disconnect(s->marks, nullptr, this, nullptr);
    }
    qDeleteAll(m_series);
    delete d;
}

void PlotView::setTitle(const QString& title, const QString& shortTitle)
{
    if (d->title.full == title && d->title.brief == shortTitle)
        return;
    d->title = {title, shortTitle};
    d->chart->setTitle(title.toHtmlEscaped());
    scheduleFit();
}

void PlotView::setAxisTitles(const QString& x, const QString& y, const QString& xShort,
                             const QString& yShort)
{
    if (d->xTitle.full == x && d->xTitle.brief == xShort && d->yTitle.full == y &&
        d->yTitle.brief == yShort)
        return;
    d->xTitle = {x, xShort};
    d->yTitle = {y, yShort};
    fitText(); // the read-out names the x axis as drawn
}

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

void PlotView::showReadout(const QString& name, QPointF p)
{
    const QString x = d->xTitle.full.isEmpty() ? QString("x") : d->xTitle.full;
    d->readoutText = QString("%1: %2 = %3, y = %4").arg(name, x, number(p.x()), number(p.y()));
    d->readout->setText(d->readoutText);
    emit hovered(d->readoutText);
}

void PlotView::setSeries(int id, const QString& name, const QColor& color,
                         const QVector<QPointF>& points,
                         const QVector<QPair<double, QString>>& events, const SeriesLook& look)
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
    s->look = look;
    s->raw = points;
    s->events = events;
    s->dirty = true;
    s->line->setName(name);
    QPen pen(color);
    pen.setWidthF(look.thin ? 1.0 : 1.6);
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

double PlotView::xMin() const
{
    return m_logX ? d->xLog->min() : d->xLinear->min();
}

double PlotView::xMax() const
{
    return m_logX ? d->xLog->max() : d->xLinear->max();
}

void PlotView::setXFromZero(bool on)
{
    if (on == m_xFromZero)
        return;
    m_xFromZero = on;
    rebuildAxes();
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
    fitText(); // the x title says "log scale"
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

namespace {

// Thins a series for the x scale drawn (log10 x in log mode, where only x > 0 is drawn).
QVector<QPointF> shownPoints(const QVector<QPointF>& raw, bool logX, int buckets)
{
    QVector<QPointF> pts;
    pts.reserve(raw.size());
    for (const QPointF& p : raw)
        if (!logX || p.x() > 0)
            pts.push_back(logX ? QPointF(std::log10(p.x()), p.y()) : p);
    QVector<QPointF> shown = thinForDisplay(pts, buckets);
    if (logX)
        for (QPointF& p : shown)
            p.setX(std::pow(10.0, p.x()));
    return shown;
}

} // namespace

void PlotView::rebuildAxes()
{
    if (m_batch > 0)
        return; // endUpdate() does it once
    // About two columns of the plot per bucket: up to four points each, so about two points
    // per pixel column at most, which keeps Qt Charts' per-point geometry work small.
    const int buckets = std::max(100, d->view->width() / 2);
    double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
    std::vector<const QVector<QPointF>*> lines;
    for (Series* s : m_series) {
        if (s->dirty) {
            s->dirty = false;
            const QVector<QPointF> shown = shownPoints(s->raw, m_logX, buckets);
            s->line->replace(shown);
            // A lone point is drawn by placeOverlays() as a marker with its value.
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
            s->marks->replace(marks);
        }
        for (const QPointF& p : s->shown) {
            xmin = std::min(xmin, p.x());
            xmax = std::max(xmax, p.x());
        }
        const auto marks = s->marks->points();
        for (int i = 0; i < marks.size(); ++i) {
            xmin = std::min(xmin, marks[i].x());
            xmax = std::max(xmax, marks[i].x());
        }
        lines.push_back(&s->shown);
    }
    // The marks' y values count too (an event after the last point stays on the axis), except
    // those placed on the edge.
    QVector<QPointF> markYs;
    for (Series* s : m_series) {
        const auto marks = s->marks->points();
        for (int i = 0; i < marks.size(); ++i)
            if (!s->edgeMarks.contains(i))
                markYs.push_back(marks[i]);
    }
    lines.push_back(&markYs);

    // x: from the data (or 0) to the data.
    if (!std::isfinite(xmin)) {
        xmin = m_logX ? 1 : 0;
        xmax = m_logX ? 10 : 1;
    }
    if (!m_logX && m_xFromZero && xmin >= 0)
        xmin = 0;
    if (xmax <= xmin)
        xmax = m_logX ? xmin * 10 : xmin + std::max(1.0, std::abs(xmin));

    // y: the data's range less a start-up transient, with a small margin; or as asked.
    const DataRange data = settledRange(lines);
    auto [ylo, yhi] = data.empty() ? std::pair{0.0, 1.0} : paddedRange(data.lo, data.hi);
    if (std::isfinite(m_yLo))
        ylo = m_yLo;
    if (std::isfinite(m_yHi))
        yhi = m_yHi;
    if (!(yhi > ylo))
        yhi = ylo + 1.0;
    d->y->setRange(ylo, yhi);
    if (m_logX)
        d->xLog->setRange(xmin, xmax);
    else
        d->xLinear->setRange(xmin, xmax);

    // What goes beyond the y axis: the most extreme value each way, and for each series an
    // arrow at the x of its most extreme one.
    d->offBelow = d->offAbove = std::numeric_limits<double>::quiet_NaN();
    d->offMarks.clear();
    for (Series* s : m_series) {
        const QPointF* low = nullptr;
        const QPointF* high = nullptr;
        for (const QPointF& p : s->shown) {
            if (p.y() < ylo && (!low || p.y() < low->y()))
                low = &p;
            if (p.y() > yhi && (!high || p.y() > high->y()))
                high = &p;
        }
        if (low) {
            d->offBelow = std::isnan(d->offBelow) ? low->y() : std::min(d->offBelow, low->y());
            d->offMarks.push_back({s->color, low->x(), true});
        }
        if (high) {
            d->offAbove = std::isnan(d->offAbove) ? high->y() : std::max(d->offAbove, high->y());
            d->offMarks.push_back({s->color, high->x(), false});
        }
    }

    // Marks with no finite value before them sit on the lower edge.
    for (Series* s : m_series) {
        if (s->edgeMarks.isEmpty())
            continue;
        auto pts = s->marks->points();
        for (int i : s->edgeMarks)
            pts[i].setY(ylo);
        s->marks->replace(pts);
    }

    // Tick labels of large or small numbers are scaled by a power of ten named in the title.
    const int xExponent = m_logX ? 0 : tickExponent(std::max(std::abs(xmin), std::abs(xmax)));
    const int yExponent = tickExponent(std::max(std::abs(ylo), std::abs(yhi)));
    const bool legendChanged = updateLegend();
    if (xExponent != d->xExponent || yExponent != d->yExponent || legendChanged) {
        d->xExponent = xExponent;
        d->yExponent = yExponent;
        fitText(); // titles and legend as drawn from now on
    }
    applyTicks();
    placeOverlays();
}

namespace {

// Puts `ticks` (values, labels) on a category axis whose labels sit on their values, unless it
// holds them already. The first category starts at the axis's lower end, where no label is.
void setTicks(QCategoryAxis* axis, const std::vector<double>& values, const QStringList& labels)
{
    const QStringList old = axis->categoriesLabels();
    bool same = old == labels && axis->startValue() == axis->min();
    for (int i = 0; same && i < old.size(); ++i)
        same = axis->endValue(old[i]) == values[std::size_t(i)];
    if (same)
        return;
    for (const QString& label : old)
        axis->remove(label);
    axis->setStartValue(axis->min());
    for (int i = 0; i < labels.size(); ++i)
        axis->append(labels[i], values[std::size_t(i)]);
}

// Round ticks over [lo, hi] on an axis `length` pixels long, labelled `value / 10^exponent`:
// the finest round step whose ticks leave room between their labels (`across`: the labels lie
// along the axis, so their width counts, else their height), and no more than about 7 (y) or
// 9 (x) ticks, which would crowd the grid.
void fitTicks(QCategoryAxis* axis, double length, int exponent, bool across)
{
    const double lo = axis->min(), hi = axis->max();
    const QFontMetricsF fm(axis->labelsFont());
    const double scale = std::pow(10.0, -exponent);
    std::vector<double> values;
    QStringList labels;
    for (double step : roundSteps(hi - lo)) {
        values = ticksWithStep(lo, hi, step);
        labels.clear();
        double widest = 0;
        for (double v : values) {
            labels << tickLabel(v * scale, step * scale);
            widest = std::max(widest, fm.horizontalAdvance(labels.back()));
        }
        const double apart = step / (hi - lo) * length;
        const double room = across ? std::max(widest + 1.5 * fm.height(), length / 9.0)
                                   : std::max(2.4 * fm.height(), length / 7.0);
        if (apart >= room)
            break;
    }
    setTicks(axis, values, labels);
}

} // namespace

void PlotView::applyTicks()
{
    QRectF plot = d->chart->plotArea();
    if (!(plot.width() > 0 && plot.height() > 0)) // not laid out yet: a guess from the size
        plot = QRectF(0, 0, std::max(100.0, d->chart->size().width() - 80),
                      std::max(60.0, d->chart->size().height() - 90));
    if (!m_logX)
        fitTicks(d->xLinear, plot.width(), d->xExponent, true);
    fitTicks(d->y, plot.height(), d->yExponent, false);
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
    return d->legendNames;
}

} // namespace svi::ui
