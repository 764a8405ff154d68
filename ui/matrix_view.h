#pragma once
// A matrix drawn as a grid of coloured cells: a network's adjacency matrix or its predicted link
// probabilities (hundreds to thousands of nodes, one pixel or less per cell) and small labelled
// matrices such as a covariance between a table's channels (tens of cells a side, named).
//
// The caller colours the cells (one pixel of `cells` per cell) and says what a cell is in its
// tooltip, so that the view knows nothing of what the matrix means. Optional: names for the rows
// and columns (drawn when they fit, otherwise only in tooltips), block boundaries drawn as lines
// (a graph's communities), and a colour bar with its scale. GUI thread only.

#include <QImage>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

class QPainter;

namespace svi::ui {

class MatrixView : public QWidget
{
    Q_OBJECT
public:
    explicit MatrixView(QWidget* parent = nullptr);

    // `cells`: one pixel per cell (rows × columns = height × width). `tip(row, column)`: the
    // tooltip of a cell; may be empty.
    void setCells(const QImage& cells, std::function<QString(int, int)> tip = {});
    // Row and column names; empty: none drawn.
    void setLabels(const QStringList& rows, const QStringList& columns);
    // The same names for rows and columns (a square matrix over one set of things).
    void setLabels(const QStringList& labels) { setLabels(labels, labels); }
    // Indices at which a new block starts along both axes (0 < index < size), drawn as lines.
    void setBoundaries(const std::vector<int>& boundaries);
    // A colour bar beside the grid: colour(t) for t from 0 (bottom) to 1 (top), the values
    // written at its ends and a line of text under the grid (a legend); colour unset: no bar.
    void setColourBar(std::function<QColor(double)> colour, const QString& low,
                      const QString& high);
    // A line of text under the grid; with `swatches`, each entry a coloured square and its name
    // (what the cells' colours mean), the text after them.
    void setLegend(const QString& legend, std::vector<std::pair<QColor, QString>> swatches = {});
    // The colour of the block boundaries.
    static QColor boundaryColor() { return {0, 137, 123}; }
    void setTitle(const QString& title);
    // What the view says while it holds no cells.
    void setPlaceholder(const QString& text);
    void clear();

    QString title() const { return m_title; }
    QString legend() const { return m_legend; }
    const std::vector<int>& boundaries() const { return m_boundaries; }
    const QStringList& rowLabels() const { return m_rowLabels; }
    const QStringList& columnLabels() const { return m_columnLabels; }
    int rowCount() const { return m_cells.height(); }
    int columnCount() const { return m_cells.width(); }
    QColor cellColour(int row, int column) const { return m_cells.pixelColor(column, row); }
    // The cell under widget position `pos`, if any.
    bool cellAt(const QPointF& pos, int* row, int* column) const;
    QString cellToolTip(int row, int column) const;
    // The view drawn at `factor` × its on-screen size (sizeHint() before it is shown).
    QImage render(double factor = 2.0) const;

    QSize sizeHint() const override { return {420, 420}; }
    QSize minimumSizeHint() const override { return {160, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    // The square (or rectangular) grid's rectangle in a widget of `size`.
    QRectF grid(const QSizeF& size) const;
    void paint(QPainter& p, const QSizeF& size) const;
    bool labelsFit(const QRectF& grid) const;

    QImage m_cells;
    std::function<QString(int, int)> m_tip;
    QStringList m_rowLabels, m_columnLabels;
    std::vector<int> m_boundaries;
    std::function<QColor(double)> m_barColour;
    QString m_barLow, m_barHigh, m_legend, m_title, m_placeholder;
    std::vector<std::pair<QColor, QString>> m_swatches;
};

// White (0) to a dark blue (1), for t in [0, 1]: probabilities, weights.
QColor sequentialColor(double t);

// A vertical colour bar filling `bar` with colour(t), t from 0 (bottom) to 1 (top), framed, and
// each label written beside it at its t. For the heatmaps' painting.
void drawColourBar(QPainter& p, const QRectF& bar, const std::function<QColor(double)>& colour,
                   const std::vector<std::pair<QString, double>>& labels, const QPalette& palette);

// What `paint` draws on a canvas of `size`, as an image `factor` times larger, on white: a view's
// render() for export.
QImage renderPainting(const QSize& size, double factor,
                      const std::function<void(QPainter&, const QSizeF&)>& paint);

} // namespace svi::ui
