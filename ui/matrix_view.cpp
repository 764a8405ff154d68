#include "ui/matrix_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace svi::ui {

namespace {
constexpr double kMatrixTop = 26; // title
constexpr double kMargin = 8;     // around a grid without names
constexpr double kLegend = 22;    // the legend line under the grid
constexpr double kBar = 64;       // colour bar and its numbers
constexpr double kMaxName = 110;  // names are elided to this width
constexpr double kMinNamePx = 9;  // cells smaller than this get no names drawn
} // namespace

QColor sequentialColor(double t)
{
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
    const QColor end(8, 48, 107);
    return QColor(int(std::lround(255 + (end.red() - 255) * t)),
                  int(std::lround(255 + (end.green() - 255) * t)),
                  int(std::lround(255 + (end.blue() - 255) * t)));
}

void drawColourBar(QPainter& p, const QRectF& bar, const std::function<QColor(double)>& colour,
                   const std::vector<std::pair<QString, double>>& labels, const QPalette& palette)
{
    const int steps = 64;
    for (int i = 0; i < steps; ++i)
        p.fillRect(QRectF(bar.left(), bar.top() + bar.height() * i / steps, bar.width(),
                          bar.height() / steps + 0.5),
                   colour(1.0 - (i + 0.5) / steps));
    p.setPen(QPen(palette.color(QPalette::Mid), 0));
    p.drawRect(bar);
    p.setPen(palette.color(QPalette::Text));
    const QFontMetricsF fm(p.font());
    for (const auto& [text, t] : labels) {
        // The top label hangs below the bar's top, the bottom one sits on its bottom.
        const double y = bar.bottom() - t * bar.height();
        const double baseline =
            std::clamp(y + fm.ascent() / 2, bar.top() + fm.ascent(), bar.bottom());
        p.drawText(QPointF(bar.right() + 3, baseline), text);
    }
}

QImage renderPainting(const QSize& size, double factor,
                      const std::function<void(QPainter&, const QSizeF&)>& paint)
{
    QImage img(QSize(int(size.width() * factor), int(size.height() * factor)),
               QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(factor, factor);
    paint(p, QSizeF(size));
    return img;
}

MatrixView::MatrixView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void MatrixView::setCells(const QImage& cells, std::function<QString(int, int)> tip)
{
    m_cells = cells;
    m_tip = std::move(tip);
    update();
}

void MatrixView::setLabels(const QStringList& rows, const QStringList& columns)
{
    m_rowLabels = rows;
    m_columnLabels = columns;
    update();
}

void MatrixView::setBoundaries(const std::vector<int>& boundaries)
{
    m_boundaries = boundaries;
    update();
}

void MatrixView::setColourBar(std::function<QColor(double)> colour, const QString& low,
                              const QString& high)
{
    m_barColour = std::move(colour);
    m_barLow = low;
    m_barHigh = high;
    update();
}

void MatrixView::setLegend(const QString& legend, std::vector<std::pair<QColor, QString>> swatches)
{
    m_legend = legend;
    m_swatches = std::move(swatches);
    update();
}

void MatrixView::setTitle(const QString& title)
{
    m_title = title;
    update();
}

void MatrixView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    update();
}

void MatrixView::clear()
{
    m_cells = QImage();
    m_tip = {};
    m_rowLabels.clear();
    m_columnLabels.clear();
    m_boundaries.clear();
    m_legend.clear();
    m_swatches.clear();
    update();
}

bool MatrixView::labelsFit(const QRectF& g) const
{
    if ((m_rowLabels.isEmpty() && m_columnLabels.isEmpty()) || m_cells.isNull())
        return false;
    return std::min(g.height() / m_cells.height(), g.width() / m_cells.width()) >= kMinNamePx;
}

QRectF MatrixView::grid(const QSizeF& size) const
{
    const int rows = std::max(1, m_cells.height()), cols = std::max(1, m_cells.width());
    const double right = m_barColour ? kBar : kMargin;
    // Room for names only when there are names: a first guess at the cell size decides.
    double left = kMargin,
           bottom = kMargin + (m_legend.isEmpty() && m_swatches.empty() ? 0 : kLegend);
    const double roughCell = std::min((size.width() - left - right) / cols,
                                      (size.height() - kMatrixTop - bottom) / rows);
    if (roughCell >= kMinNamePx) {
        const QFontMetricsF fm(font());
        const auto widest = [&fm](const QStringList& names) {
            double w = 0;
            for (const QString& l : names)
                w = std::max(w, fm.horizontalAdvance(l));
            return std::min(w, kMaxName);
        };
        if (!m_rowLabels.isEmpty())
            left += widest(m_rowLabels) + 4;
        if (!m_columnLabels.isEmpty())
            bottom += widest(m_columnLabels) * 0.87 + 4; // names rotated by 60°
    }
    const double w = std::max(10.0, size.width() - left - right);
    const double h = std::max(10.0, size.height() - kMatrixTop - bottom);
    // Square cells: the matrix keeps its aspect.
    const double cell = std::min(w / cols, h / rows);
    return {left, kMatrixTop, cell * cols, cell * rows};
}

bool MatrixView::cellAt(const QPointF& pos, int* row, int* column) const
{
    if (m_cells.isNull())
        return false;
    const QRectF g = grid(size());
    if (!g.contains(pos))
        return false;
    *row = std::clamp(int((pos.y() - g.top()) / g.height() * m_cells.height()), 0,
                      m_cells.height() - 1);
    *column =
        std::clamp(int((pos.x() - g.left()) / g.width() * m_cells.width()), 0, m_cells.width() - 1);
    return true;
}

QString MatrixView::cellToolTip(int row, int column) const
{
    return m_tip ? m_tip(row, column) : QString();
}

void MatrixView::mouseMoveEvent(QMouseEvent* event)
{
    int r = 0, c = 0;
    if (cellAt(event->position(), &r, &c) && m_tip)
        QToolTip::showText(event->globalPosition().toPoint(), m_tip(r, c), this);
    else
        QToolTip::hideText();
}

void MatrixView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paint(p, size());
}

QImage MatrixView::render(double factor) const
{
    return renderPainting(size().isEmpty() ? sizeHint() : size(), factor,
                          [this](QPainter& p, const QSizeF& s) { paint(p, s); });
}

void MatrixView::paint(QPainter& p, const QSizeF& size) const
{
    p.setPen(palette().color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    const QFontMetricsF bfm(bold);
    p.drawText(QRectF(0, 2, size.width(), kMatrixTop - 4), Qt::AlignCenter,
               bfm.elidedText(m_title, Qt::ElideRight, size.width() - 8));
    p.setFont(font());
    if (m_cells.isNull()) {
        p.drawText(QRectF(QPointF(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const QRectF g = grid(size);
    const double cellH = g.height() / m_cells.height(), cellW = g.width() / m_cells.width();
    // Cells smaller than a pixel are averaged (an edge stays visible as a tint); larger ones
    // are drawn as sharp squares.
    p.save();
    p.setRenderHint(QPainter::SmoothPixmapTransform, cellW < 1.0);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.drawImage(g, m_cells);
    p.restore();
    p.setPen(QPen(palette().color(QPalette::Mid), 0));
    p.drawRect(g);
    if (!m_boundaries.empty()) {
        p.setPen(QPen(boundaryColor(), 1.0));
        for (int b : m_boundaries) {
            if (b <= 0 || b >= m_cells.width())
                continue;
            const double x = g.left() + b * cellW, y = g.top() + b * cellH;
            p.drawLine(QPointF(x, g.top()), QPointF(x, g.bottom()));
            p.drawLine(QPointF(g.left(), y), QPointF(g.right(), y));
        }
    }
    const QFontMetricsF fm(font());
    p.setPen(palette().color(QPalette::Text));
    if (labelsFit(g)) {
        for (int r = 0; r < m_cells.height() && r < m_rowLabels.size(); ++r) {
            const double mid = g.top() + (r + 0.5) * cellH;
            p.drawText(QRectF(0, mid - 0.5 * fm.height(), g.left() - 4, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       fm.elidedText(m_rowLabels[r], Qt::ElideRight, kMaxName));
        }
        for (int c = 0; c < m_cells.width() && c < m_columnLabels.size(); ++c) {
            p.save();
            p.translate(g.left() + (c + 0.5) * cellW + fm.height() / 3, g.bottom() + 4);
            p.rotate(-60);
            const QString name = fm.elidedText(m_columnLabels[c], Qt::ElideRight, kMaxName);
            p.drawText(QPointF(-fm.horizontalAdvance(name), 0), name);
            p.restore();
        }
    }
    if (!m_legend.isEmpty() || !m_swatches.empty()) {
        // Swatches and text as one centred line.
        const double box = fm.ascent() * 0.8, gap = 6, y = size.height() - kLegend;
        double width = m_legend.isEmpty() ? 0 : fm.horizontalAdvance(m_legend);
        for (const auto& [colour, name] : m_swatches)
            width += box + 4 + fm.horizontalAdvance(name) + 2 * gap;
        double x = std::max(4.0, 0.5 * (size.width() - width));
        for (const auto& [colour, name] : m_swatches) {
            const QRectF square(x, y + 0.5 * (kLegend - box), box, box);
            p.fillRect(square, colour);
            p.setPen(QPen(palette().color(QPalette::Mid), 0));
            p.drawRect(square);
            p.setPen(palette().color(QPalette::Text));
            x += box + 4;
            p.drawText(QRectF(x, y, fm.horizontalAdvance(name) + 1, kLegend), Qt::AlignVCenter,
                       name);
            x += fm.horizontalAdvance(name) + 2 * gap;
        }
        const double room = std::max(10.0, size.width() - x - 4);
        if (!m_legend.isEmpty())
            p.drawText(QRectF(x, y, room, kLegend), Qt::AlignVCenter,
                       fm.elidedText(m_legend, Qt::ElideRight, room));
    }
    if (m_barColour)
        drawColourBar(p, QRectF(g.right() + 12, g.top(), 12, std::min(g.height(), 200.0)),
                      m_barColour, {{m_barHigh, 1.0}, {m_barLow, 0.0}}, palette());
}

} // namespace svi::ui
