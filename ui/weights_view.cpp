#include "ui/weights_view.h"

#include "ui/axis_ticks.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace svi::ui {

namespace {
constexpr double kWeightsLeft = 190;  // feature names
constexpr double kWeightsTop = 26;    // title
constexpr double kWeightsBottom = 34; // axis labels
constexpr double kWeightsRight = 24;
} // namespace

WeightsView::WeightsView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void WeightsView::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void WeightsView::clear()
{
    m_weights.reset();
    m_rows.clear();
    update();
}

void WeightsView::setWeights(std::shared_ptr<const WeightSummary> weights)
{
    m_weights = std::move(weights);
    m_rows.clear();
    if (!m_weights) {
        update();
        return;
    }
    const WeightSummary& w = *m_weights;
    std::vector<int> order(std::size_t(w.mean.size()));
    std::iota(order.begin(), order.end(), 0);
    const auto size = [&](int j) { return std::isfinite(w.mean[j]) ? std::abs(w.mean[j]) : -1.0; };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return size(a) > size(b); });
    order.resize(std::min<std::size_t>(order.size(), kMaxRows));
    m_rows = order;
    m_lo = 0.0;
    m_hi = 0.0;
    for (int j : m_rows) {
        const double sd = j < w.sd.size() && std::isfinite(w.sd[j]) ? w.sd[j] : 0.0;
        if (!std::isfinite(w.mean[j]))
            continue;
        m_lo = std::min(m_lo, w.mean[j] - 2.0 * sd);
        m_hi = std::max(m_hi, w.mean[j] + 2.0 * sd);
    }
    if (!(m_hi > m_lo)) {
        m_lo = -1.0;
        m_hi = 1.0;
    }
    const double pad = 0.05 * (m_hi - m_lo);
    m_lo -= pad;
    m_hi += pad;
    update();
}

QRectF WeightsView::plotArea(const QSizeF& size) const
{
    return QRectF(kWeightsLeft, kWeightsTop,
                  std::max(10.0, size.width() - kWeightsLeft - kWeightsRight),
                  std::max(10.0, size.height() - kWeightsTop - kWeightsBottom));
}

int WeightsView::visibleRows(const QSizeF& size) const
{
    const int fit = std::max(1, int(plotArea(size).height() / kRowHeight));
    return std::min(int(m_rows.size()), fit);
}

int WeightsView::featureAt(const QPoint& pos) const
{
    const QRectF area = plotArea(size());
    const int rows = visibleRows(size());
    if (rows == 0 || pos.y() < area.top() || pos.y() >= area.bottom())
        return -1;
    const int r = int((pos.y() - area.top()) / (area.height() / double(rows)));
    return r >= 0 && r < rows ? m_rows[std::size_t(r)] : -1;
}

void WeightsView::paint(QPainter& p, const QSizeF& size) const
{
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(6, 2, size.width() - 12, kWeightsTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
               m_title);
    const QRectF area = plotArea(size);
    if (!m_weights || m_rows.empty()) {
        p.drawText(area, Qt::AlignCenter, tr("No weights yet: start a run."));
        return;
    }
    const WeightSummary& w = *m_weights;
    const auto xOf = [&](double v) {
        return area.left() + (v - m_lo) / (m_hi - m_lo) * area.width();
    };
    // Grid and axis.
    const double step = tickStep(m_hi - m_lo, 6);
    p.setPen(QPen(palette().color(QPalette::Mid), 0.5));
    for (double t = std::ceil(m_lo / step) * step; t <= m_hi; t += step) {
        const double x = xOf(t);
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        p.drawText(QRectF(x - 40, area.bottom() + 2, 80, 16), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(std::abs(t) < 1e-12 ? 0.0 : t, 'g', 3));
    }
    p.setPen(QPen(palette().color(QPalette::Text), 1.2));
    p.drawLine(QPointF(xOf(0.0), area.top()), QPointF(xOf(0.0), area.bottom()));
    p.drawText(QRectF(area.left(), area.bottom() + 16, area.width(), 16), Qt::AlignCenter,
               tr("posterior mean ± 2 sd"));

    const int rows = visibleRows(size);
    const double rowH = area.height() / double(rows);
    for (std::size_t r = 0; r < std::size_t(rows); ++r) {
        const int j = m_rows[r];
        const double y = area.top() + (double(r) + 0.5) * rowH;
        const QString name = std::size_t(j) < w.names.size()
                                 ? QString::fromStdString(w.names[std::size_t(j)])
                                 : QString("x%1").arg(j + 1);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(4, y - rowH / 2, kWeightsLeft - 10, rowH),
                   Qt::AlignRight | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(name, Qt::ElideMiddle, int(kWeightsLeft - 14)));
        const double mean = w.mean[j];
        const double sd = j < w.sd.size() ? w.sd[j] : 0.0;
        if (!std::isfinite(mean))
            continue;
        // A bar that crosses zero: the sign is not settled (grey); otherwise by sign.
        const bool settled = mean - 2 * sd > 0 || mean + 2 * sd < 0;
        const QColor c = !settled   ? QColor(130, 130, 130)
                         : mean > 0 ? QColor(178, 24, 43)
                                    : QColor(33, 102, 172);
        p.setPen(QPen(c, std::clamp(rowH * 0.2, 1.0, 3.0)));
        p.drawLine(QPointF(xOf(mean - 2 * sd), y), QPointF(xOf(mean + 2 * sd), y));
        p.setBrush(c);
        const double rad = std::clamp(rowH * 0.25, 2.0, 5.0);
        p.drawEllipse(QPointF(xOf(mean), y), rad, rad);
    }
}

void WeightsView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, size());
}

QImage WeightsView::render(double factor) const
{
    QImage img((QSizeF(size()) * factor).toSize(), QImage::Format_ARGB32);
    img.fill(palette().color(QPalette::Base));
    QPainter p(&img);
    p.scale(factor, factor);
    paint(p, size());
    return img;
}

void WeightsView::mouseMoveEvent(QMouseEvent* event)
{
    const int j = featureAt(event->position().toPoint());
    if (j < 0 || !m_weights) {
        QToolTip::hideText();
        return;
    }
    const WeightSummary& w = *m_weights;
    const QString name = std::size_t(j) < w.names.size()
                             ? QString::fromStdString(w.names[std::size_t(j)])
                             : QString("x%1").arg(j + 1);
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1: mean %2, sd %3")
                           .arg(name)
                           .arg(w.mean[j], 0, 'g', 4)
                           .arg(j < w.sd.size() ? w.sd[j] : 0.0, 0, 'g', 3),
                       this);
}

} // namespace svi::ui
