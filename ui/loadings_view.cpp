#include "ui/loadings_view.h"

#include "ui/matrix_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace svi::ui {

namespace {
constexpr double kLoadingsLeft = 118;  // room for "k  E[π] = 0.123"
constexpr double kLoadingsTop = 26;    // title
constexpr double kLoadingsBottom = 96; // rotated channel names
constexpr double kLoadingsRight = 70;  // colour bar
} // namespace

QColor divergingColor(double t)
{
    t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
    // White to a saturated blue or red, linear in each channel.
    const QColor end = t < 0 ? QColor(33, 102, 172) : QColor(178, 24, 43);
    const double a = std::abs(t);
    return QColor(int(std::lround(255 + (end.red() - 255) * a)),
                  int(std::lround(255 + (end.green() - 255) * a)),
                  int(std::lround(255 + (end.blue() - 255) * a)));
}

LoadingsView::LoadingsView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void LoadingsView::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void LoadingsView::clear()
{
    m_rows.clear();
    m_channels.clear();
    m_loadings.resize(0, 0);
    m_weights.resize(0);
    update();
}

void LoadingsView::setLoadings(const Eigen::MatrixXd& loadings, const Eigen::VectorXd& weights,
                               const QStringList& channels, const QString& weightName)
{
    m_weightName = weightName;
    m_loadings = loadings;
    m_weights = weights;
    m_channels = channels;
    while (m_channels.size() < loadings.cols())
        m_channels << QString("V%1").arg(m_channels.size() + 1);
    m_rows.clear();
    for (Eigen::Index k = 0; k < loadings.rows() && int(m_rows.size()) < kMaxRows; ++k)
        if (k < weights.size() && weights[k] >= kMinWeight)
            m_rows.push_back(int(k));
    m_scale = 0.0;
    for (int k : m_rows)
        for (Eigen::Index d = 0; d < loadings.cols(); ++d)
            if (std::isfinite(loadings(k, d)))
                m_scale = std::max(m_scale, std::abs(loadings(k, d)));
    if (!(m_scale > 0))
        m_scale = 1.0;
    update();
}

LoadingsView::Geometry LoadingsView::geometry(const QSizeF& size) const
{
    Geometry g;
    const int rows = std::max<int>(1, int(m_rows.size()));
    const int cols = std::max<int>(1, int(m_loadings.cols()));
    g.grid = QRectF(kLoadingsLeft, kLoadingsTop,
                    std::max(10.0, size.width() - kLoadingsLeft - kLoadingsRight),
                    std::max(10.0, size.height() - kLoadingsTop - kLoadingsBottom));
    g.cellW = g.grid.width() / cols;
    g.cellH = g.grid.height() / rows;
    return g;
}

bool LoadingsView::cellAt(const QPoint& pos, int* row, int* channel) const
{
    if (m_rows.empty())
        return false;
    const Geometry g = geometry(size());
    if (!g.grid.contains(pos))
        return false;
    *row = std::min(int(m_rows.size()) - 1, int((pos.y() - g.grid.top()) / g.cellH));
    *channel = std::min(int(m_loadings.cols()) - 1, int((pos.x() - g.grid.left()) / g.cellW));
    return true;
}

void LoadingsView::mouseMoveEvent(QMouseEvent* event)
{
    int r = 0, c = 0;
    if (cellAt(event->position().toPoint(), &r, &c)) {
        const int k = m_rows[std::size_t(r)];
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("feature %1 (%2 = %3)\n%4: %5")
                               .arg(k + 1)
                               .arg(m_weightName)
                               .arg(m_weights[k], 0, 'g', 3)
                               .arg(m_channels.value(c))
                               .arg(m_loadings(k, c), 0, 'g', 4),
                           this);
    } else {
        QToolTip::hideText();
    }
}

void LoadingsView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, size());
}

QImage LoadingsView::render(double factor) const
{
    return renderPainting(size().isEmpty() ? sizeHint() : size(), factor,
                          [this](QPainter& p, const QSizeF& s) { paint(p, s); });
}

void LoadingsView::paint(QPainter& p, const QSizeF& size) const
{
    p.setPen(palette().color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(0, 2, size.width(), kLoadingsTop - 4), Qt::AlignCenter, m_title);
    p.setFont(font());
    if (m_rows.empty()) {
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter,
                   tr("No loadings yet: run a model on a table (FCS, CSV) to see them here."));
        return;
    }
    const Geometry g = geometry(size);
    const QFontMetricsF fm(font());
    // Cells.
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
        const int k = m_rows[r];
        for (Eigen::Index d = 0; d < m_loadings.cols(); ++d) {
            const QRectF cell(g.grid.left() + d * g.cellW, g.grid.top() + double(r) * g.cellH,
                              g.cellW + 0.5, g.cellH + 0.5);
            p.fillRect(cell, divergingColor(m_loadings(k, d) / m_scale));
        }
    }
    p.setPen(QPen(palette().color(QPalette::Mid), 0));
    p.drawRect(g.grid);
    // Row labels: feature number and its weight; every row when they fit, else every n-th.
    p.setPen(palette().color(QPalette::Text));
    const int rowStep = std::max(1, int(std::ceil(fm.height() / g.cellH)));
    for (std::size_t r = 0; r < m_rows.size(); r += std::size_t(rowStep)) {
        const int k = m_rows[r];
        const double mid = g.grid.top() + (double(r) + 0.5) * g.cellH;
        const QRectF box(0, mid - 0.5 * fm.height(), kLoadingsLeft - 6, fm.height());
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
                   QString("%1  %2 %3").arg(k + 1).arg(m_weightName).arg(m_weights[k], 0, 'f', 3));
    }
    // Column labels rotated, every channel when they fit.
    const int colStep = std::max(1, int(std::ceil(fm.height() / g.cellW)));
    for (Eigen::Index d = 0; d < m_loadings.cols(); d += colStep) {
        p.save();
        p.translate(g.grid.left() + (double(d) + 0.5) * g.cellW + fm.height() / 3,
                    g.grid.bottom() + 4);
        p.rotate(-60);
        const QString name =
            fm.elidedText(m_channels.value(int(d)), Qt::ElideRight, kLoadingsBottom * 1.1);
        p.drawText(QPointF(-fm.horizontalAdvance(name), 0), name);
        p.restore();
    }
    drawColourBar(
        p, QRectF(g.grid.right() + 14, g.grid.top(), 14, g.grid.height()),
        [](double t) { return divergingColor(2.0 * t - 1.0); },
        {{QString::number(m_scale, 'g', 2), 1.0},
         {"0", 0.5},
         {QString::number(-m_scale, 'g', 2), 0.0}},
        palette());
}

} // namespace svi::ui
