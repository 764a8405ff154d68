#include "ui/slice_view.h"

#include "ui/axis_ticks.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace svi::ui {

namespace {
constexpr double kSliceLeft = 76;   // y tick labels and the label's name
constexpr double kSliceTop = 26;    // title
constexpr double kSliceBottom = 42; // x tick labels and the feature's name
constexpr double kSliceRight = 18;
constexpr double kPad = 0.04; // of each range, on each side
constexpr double kDotRadius = 2.5;

const QColor kBand(33, 102, 172, 55);
const QColor kMean(33, 102, 172);
const QColor kDots(40, 40, 40, 90);

// Why `s` cannot be drawn; empty when it can.
QString problemOf(const PredictionSlice& s)
{
    const Eigen::Index n = s.x.size();
    if (n == 0)
        return SliceView::tr("The predictive slice has no points.");
    if (s.mean.size() != n || s.sd.size() != n)
        return SliceView::tr("The predictive slice does not fit together: %1 feature values, %2 "
                             "means, %3 sds.")
            .arg(n)
            .arg(s.mean.size())
            .arg(s.sd.size());
    if (s.pointX.size() != s.pointY.size())
        return SliceView::tr("The test rows of the slice do not fit together: %1 feature values, "
                             "%2 labels.")
            .arg(s.pointX.size())
            .arg(s.pointY.size());
    for (Eigen::Index i = 0; i < n; ++i)
        if (!std::isfinite(s.x[i]) || !std::isfinite(s.mean[i]) || !std::isfinite(s.sd[i]) ||
            s.sd[i] < 0)
            return SliceView::tr("The predictive at %1 = %2 is not a finite mean with a finite, "
                                 "non-negative sd (has the run diverged?).")
                .arg(QString::fromStdString(s.feature))
                .arg(s.x[i], 0, 'g', 4);
    for (Eigen::Index i = 1; i < n; ++i)
        if (s.x[i] < s.x[i - 1])
            return SliceView::tr("The feature values of the slice are not in ascending order.");
    return {};
}

// [lo, hi] widened by kPad of its span on each side; a point becomes a unit-wide range.
void pad(double& lo, double& hi)
{
    if (!(hi > lo)) {
        const double half = std::max(0.5, 0.05 * std::abs(lo));
        lo -= half;
        hi += half;
    }
    const double d = kPad * (hi - lo);
    lo -= d;
    hi += d;
}

QString nameOr(const std::string& name, const QString& fallback)
{
    return name.empty() ? fallback : QString::fromStdString(name);
}
} // namespace

SliceView::SliceView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void SliceView::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void SliceView::clear()
{
    setSlice(nullptr);
}

void SliceView::setSlice(std::shared_ptr<const PredictionSlice> slice)
{
    m_slice = std::move(slice);
    m_problem.clear();
    m_shownPoints = 0;
    m_hover = -1;
    m_x0 = 0.0;
    m_x1 = 1.0;
    m_y0 = 0.0;
    m_y1 = 1.0;
    if (m_slice)
        m_problem = problemOf(*m_slice);
    if (!drawable()) {
        update();
        return;
    }
    const PredictionSlice& s = *m_slice;
    m_x0 = s.x.minCoeff();
    m_x1 = s.x.maxCoeff();
    m_y0 = (s.mean - 2.0 * s.sd).minCoeff();
    m_y1 = (s.mean + 2.0 * s.sd).maxCoeff();
    for (Eigen::Index i = 0; i < s.pointX.size(); ++i) {
        if (!std::isfinite(s.pointX[i]) || !std::isfinite(s.pointY[i]))
            continue;
        ++m_shownPoints;
        m_x0 = std::min(m_x0, s.pointX[i]);
        m_x1 = std::max(m_x1, s.pointX[i]);
        m_y0 = std::min(m_y0, s.pointY[i]);
        m_y1 = std::max(m_y1, s.pointY[i]);
    }
    pad(m_x0, m_x1);
    pad(m_y0, m_y1);
    update();
}

QRectF SliceView::plotArea(const QSizeF& size) const
{
    return QRectF(kSliceLeft, kSliceTop, std::max(10.0, size.width() - kSliceLeft - kSliceRight),
                  std::max(10.0, size.height() - kSliceTop - kSliceBottom));
}

QPointF SliceView::toPixel(const QRectF& area, double x, double y) const
{
    return {area.left() + (x - m_x0) / (m_x1 - m_x0) * area.width(),
            area.bottom() - (y - m_y0) / (m_y1 - m_y0) * area.height()};
}

QPointF SliceView::toPixel(double x, double y) const
{
    return toPixel(plotArea(size()), x, y);
}

// About one tick per 70 pixels across and per 45 pixels up, at least two.
std::vector<double> SliceView::xTicks(const QRectF& area) const
{
    return drawable() ? niceTicks(m_x0, m_x1, std::max(2, int(area.width() / 70)))
                      : std::vector<double>{};
}

std::vector<double> SliceView::yTicks(const QRectF& area) const
{
    return drawable() ? niceTicks(m_y0, m_y1, std::max(2, int(area.height() / 45)))
                      : std::vector<double>{};
}

std::vector<double> SliceView::xTicks() const
{
    return xTicks(plotArea(size()));
}

std::vector<double> SliceView::yTicks() const
{
    return yTicks(plotArea(size()));
}

int SliceView::nearestAt(const QPoint& pos) const
{
    const QRectF area = plotArea(size());
    if (!drawable() || !area.contains(QPointF(pos)))
        return -1;
    const double x = m_x0 + (pos.x() - area.left()) / area.width() * (m_x1 - m_x0);
    const Eigen::VectorXd& xs = m_slice->x;
    // x ascending (checked in setSlice): the nearest is next to the first not below x.
    const auto first = std::lower_bound(xs.data(), xs.data() + xs.size(), x);
    Eigen::Index i = first - xs.data();
    if (i == xs.size() || (i > 0 && x - xs[i - 1] <= xs[i] - x))
        --i;
    return int(i);
}

QString SliceView::toolTipAt(const QPoint& pos) const
{
    const int i = nearestAt(pos);
    if (i < 0)
        return {};
    const PredictionSlice& s = *m_slice;
    return tr("%1 = %2\n%3: mean %4, sd %5\n± 2 sd: %6 … %7")
        .arg(nameOr(s.feature, tr("x")))
        .arg(s.x[i], 0, 'g', 4)
        .arg(nameOr(s.label, tr("y")))
        .arg(s.mean[i], 0, 'g', 4)
        .arg(s.sd[i], 0, 'g', 3)
        .arg(s.mean[i] - 2.0 * s.sd[i], 0, 'g', 4)
        .arg(s.mean[i] + 2.0 * s.sd[i], 0, 'g', 4);
}

void SliceView::paintAxes(QPainter& p, const QRectF& area) const
{
    const QColor text = palette().color(QPalette::Text);
    const QPen grid(palette().color(QPalette::Mid), 0.5);
    const std::vector<double> xs = xTicks(area), ys = yTicks(area);
    const double xStep = xs.size() > 1 ? xs[1] - xs[0] : m_x1 - m_x0;
    const double yStep = ys.size() > 1 ? ys[1] - ys[0] : m_y1 - m_y0;
    for (double t : xs) {
        const double x = toPixel(area, t, m_y0).x();
        p.setPen(grid);
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        p.setPen(text);
        p.drawText(QRectF(x - 45, area.bottom() + 3, 90, 16), Qt::AlignHCenter | Qt::AlignTop,
                   tickLabel(t, xStep));
    }
    for (double t : ys) {
        const double y = toPixel(area, m_x0, t).y();
        p.setPen(grid);
        p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        p.setPen(text);
        p.drawText(QRectF(20, y - 8, kSliceLeft - 26, 16), Qt::AlignRight | Qt::AlignVCenter,
                   tickLabel(t, yStep));
    }
    p.setPen(QPen(text, 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(area);
    // The axes' names: the feature below, the label turned along the left edge.
    const PredictionSlice& s = *m_slice;
    p.drawText(
        QRectF(area.left(), area.bottom() + 21, area.width(), 18), Qt::AlignCenter,
        p.fontMetrics().elidedText(nameOr(s.feature, tr("x")), Qt::ElideMiddle, int(area.width())));
    p.save();
    p.translate(2, area.center().y());
    p.rotate(-90);
    p.drawText(
        QRectF(-area.height() / 2, 0, area.height(), 18), Qt::AlignCenter,
        p.fontMetrics().elidedText(nameOr(s.label, tr("y")), Qt::ElideMiddle, int(area.height())));
    p.restore();
}

void SliceView::paintLegend(QPainter& p, const QRectF& area) const
{
    const QString items[] = {tr("mean"), tr("± 2 sd"), tr("test rows (%1)").arg(m_shownPoints)};
    const QFontMetricsF fm(p.font());
    double width = 0;
    for (const QString& t : items)
        width = std::max(width, fm.horizontalAdvance(t));
    const double rowH = fm.height() + 2, keyW = 22;
    const QRectF box(area.right() - width - keyW - 16, area.top() + 6, width + keyW + 10,
                     3 * rowH + 6);
    if (box.left() < area.left() || box.bottom() > area.bottom())
        return; // no room: the title and the line above the plot say as much
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(210);
    p.setPen(QPen(palette().color(QPalette::Mid), 0.5));
    p.setBrush(back);
    p.drawRect(box);
    for (int r = 0; r < 3; ++r) {
        const double y = box.top() + 3 + (r + 0.5) * rowH;
        const QPointF key(box.left() + 5 + keyW / 2, y);
        if (r == 0) {
            p.setPen(QPen(kMean, 2));
            p.drawLine(key - QPointF(keyW / 2 - 2, 0), key + QPointF(keyW / 2 - 2, 0));
        } else if (r == 1) {
            p.setPen(Qt::NoPen);
            p.setBrush(kBand);
            p.drawRect(QRectF(key - QPointF(keyW / 2 - 2, 5), QSizeF(keyW - 4, 10)));
        } else {
            p.setPen(Qt::NoPen);
            p.setBrush(kDots);
            p.drawEllipse(key, kDotRadius, kDotRadius);
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(box.left() + keyW + 8, y - rowH / 2, width + 2, rowH),
                   Qt::AlignLeft | Qt::AlignVCenter, items[r]);
    }
}

void SliceView::paint(QPainter& p, const QSizeF& size, int hover) const
{
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(6, 2, size.width() - 12, kSliceTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(m_title, Qt::ElideRight, int(size.width() - 12)));
    const QRectF area = plotArea(size);
    if (!m_slice || !m_problem.isEmpty()) {
        p.drawText(QRectF(12, kSliceTop, std::max(10.0, size.width() - 24),
                          std::max(10.0, size.height() - kSliceTop - 12)),
                   Qt::AlignCenter | Qt::TextWordWrap,
                   m_slice ? m_problem : tr("No predictive yet: start a run."));
        return;
    }
    const PredictionSlice& s = *m_slice;
    paintAxes(p, area);

    p.save();
    p.setClipRect(area);
    // The band: along the upper edge, back along the lower.
    QPolygonF band;
    const Eigen::Index n = s.x.size();
    for (Eigen::Index i = 0; i < n; ++i)
        band << toPixel(area, s.x[i], s.mean[i] + 2.0 * s.sd[i]);
    for (Eigen::Index i = n; i-- > 0;)
        band << toPixel(area, s.x[i], s.mean[i] - 2.0 * s.sd[i]);
    p.setPen(Qt::NoPen);
    p.setBrush(kBand);
    p.drawPolygon(band);
    // The test rows under the mean, so the line stays readable through a dense cloud.
    p.setBrush(kDots);
    for (Eigen::Index i = 0; i < s.pointX.size(); ++i)
        if (std::isfinite(s.pointX[i]) && std::isfinite(s.pointY[i]))
            p.drawEllipse(toPixel(area, s.pointX[i], s.pointY[i]), kDotRadius, kDotRadius);
    QPolygonF mean;
    for (Eigen::Index i = 0; i < n; ++i)
        mean << toPixel(area, s.x[i], s.mean[i]);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kMean, 2.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    if (n == 1)
        p.drawEllipse(mean.front(), 3.0, 3.0);
    else
        p.drawPolyline(mean);
    if (hover >= 0 && hover < n) {
        const QPointF at = toPixel(area, s.x[hover], s.mean[hover]);
        p.setPen(QPen(palette().color(QPalette::Text), 0.8, Qt::DashLine));
        p.drawLine(QPointF(at.x(), area.top()), QPointF(at.x(), area.bottom()));
        p.setPen(QPen(kMean, 1.5));
        p.setBrush(palette().color(QPalette::Base));
        p.drawEllipse(at, 4.0, 4.0);
    }
    p.restore();
    paintLegend(p, area);
}

void SliceView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, size(), m_hover);
}

QImage SliceView::render(double factor) const
{
    QImage img((QSizeF(size()) * factor).toSize(), QImage::Format_ARGB32);
    img.fill(palette().color(QPalette::Base));
    QPainter p(&img);
    p.scale(factor, factor);
    paint(p, size(), -1);
    return img;
}

void SliceView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    const int i = nearestAt(pos);
    if (i != m_hover) {
        m_hover = i;
        update();
    }
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), toolTipAt(pos), this);
}

void SliceView::leaveEvent(QEvent*)
{
    if (m_hover >= 0) {
        m_hover = -1;
        update();
    }
}

} // namespace svi::ui
