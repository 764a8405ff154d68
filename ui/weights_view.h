#pragma once
// A supervised model's posterior over its weights as a forest plot: the features with the
// largest |E[w_j]| (at most kMaxRows), most influential first, each a dot at its posterior mean
// with a bar from mean − 2 sd to mean + 2 sd, a vertical line at zero, feature names on the
// left. A bar that crosses zero marks a weight the data do not pin to a sign. Hovering a row
// tells its mean and sd. GUI thread only.

#include "core/run/trainer.h"

#include <QImage>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

namespace svi::ui {

class WeightsView : public QWidget
{
    Q_OBJECT
public:
    explicit WeightsView(QWidget* parent = nullptr);

    void setWeights(std::shared_ptr<const WeightSummary> weights);
    void clear();
    void setTitle(const QString& title);
    QString title() const { return m_title; }

    // The features shown when the plot has room for them, in display order (indices into the
    // summary), and the axis range.
    const std::vector<int>& shownFeatures() const { return m_rows; }
    // How many of them fit the widget's height (a row needs kRowHeight pixels), at least one.
    int visibleRows() const { return visibleRows(size()); }
    double axisMin() const { return m_lo; }
    double axisMax() const { return m_hi; }
    // The feature under widget position `pos` (an index into the summary), or −1.
    int featureAt(const QPoint& pos) const;
    // The plot drawn at `factor` × its on-screen size (for export).
    QImage render(double factor = 2.0) const;

    static constexpr int kMaxRows = 30;
    static constexpr double kRowHeight = 15.0;

    QSize sizeHint() const override { return {640, 420}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF plotArea(const QSizeF& size) const;
    int visibleRows(const QSizeF& size) const;
    void paint(QPainter& p, const QSizeF& size) const;

    QString m_title;
    std::shared_ptr<const WeightSummary> m_weights;
    std::vector<int> m_rows;
    double m_lo = -1.0, m_hi = 1.0;
};

} // namespace svi::ui
