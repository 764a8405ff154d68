#pragma once
// A regression model's predictive along one feature (PredictionSlice, core/run/trainer.h): the
// feature on the x axis, the label on the y axis, a shaded band from mean − 2 sd to mean + 2 sd,
// the mean as a line and the test rows as small semi-transparent dots, with round ticks on
// both axes. Hovering over the plot tells the feature value, the predictive mean and sd at the
// nearest slice point. A slice that cannot be drawn (no points, sizes that differ, values that
// are not finite, x not ascending) is not drawn: the view says why instead. GUI thread only;
// the slice is shared, immutable, and kept alive by the view.

#include "core/run/trainer.h"

#include <QImage>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

namespace svi::ui {

class SliceView : public QWidget
{
    Q_OBJECT
public:
    explicit SliceView(QWidget* parent = nullptr);

    void setSlice(std::shared_ptr<const PredictionSlice> slice);
    void clear();
    void setTitle(const QString& title);
    QString title() const { return m_title; }

    // The slice shown; nullptr when none.
    const PredictionSlice* slice() const { return m_slice.get(); }
    // Why the slice is not drawn (the message the view shows in its place); empty when it is
    // drawn or when there is none.
    QString problem() const { return m_problem; }
    // The test rows drawn (those with a finite feature value and label).
    int shownPoints() const { return m_shownPoints; }

    // The axis ranges (data units): the band, the mean and the drawn test rows, padded.
    double xMin() const { return m_x0; }
    double xMax() const { return m_x1; }
    double yMin() const { return m_y0; }
    double yMax() const { return m_y1; }
    // The ticks drawn at the widget's current size: round values inside the ranges, ascending.
    std::vector<double> xTicks() const;
    std::vector<double> yTicks() const;
    // Widget position of the data point (x, y) at the widget's current size.
    QPointF toPixel(double x, double y) const;
    // The slice point nearest in x to widget position `pos` when `pos` is over the plot; −1
    // otherwise (also when nothing is drawn).
    int nearestAt(const QPoint& pos) const;
    // What hovering at `pos` shows: the feature value, the predictive mean and sd of the
    // nearest slice point; empty where nearestAt is −1.
    QString toolTipAt(const QPoint& pos) const;
    // The slice point under the mouse (its guide line is drawn), −1 when none.
    int hovered() const { return m_hover; }

    // The plot drawn at `factor` × its on-screen size (for export); no hover marks.
    QImage render(double factor = 2.0) const;

    QSize sizeHint() const override { return {640, 420}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF plotArea(const QSizeF& size) const;
    QPointF toPixel(const QRectF& area, double x, double y) const;
    std::vector<double> xTicks(const QRectF& area) const;
    std::vector<double> yTicks(const QRectF& area) const;
    bool drawable() const { return m_slice && m_problem.isEmpty(); }
    void paint(QPainter& p, const QSizeF& size, int hover) const;
    void paintAxes(QPainter& p, const QRectF& area) const;
    void paintLegend(QPainter& p, const QRectF& area) const;

    QString m_title;
    std::shared_ptr<const PredictionSlice> m_slice;
    QString m_problem;
    int m_shownPoints = 0;
    int m_hover = -1;
    double m_x0 = 0.0, m_x1 = 1.0, m_y0 = 0.0, m_y1 = 1.0;
};

} // namespace svi::ui
