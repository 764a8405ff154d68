#pragma once
// The factor loadings of a dense (non-image) fit as a heatmap: one row per feature, ordered by
// E[π_k] (the most used first), one column per channel labelled with its marker name; blue
// below zero, red above, white at zero, on a scale symmetric about zero. Hovering a cell tells
// its value. GUI thread only.

#include <Eigen/Core>
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>

namespace svi::ui {

class LoadingsView : public QWidget
{
    Q_OBJECT
public:
    explicit LoadingsView(QWidget* parent = nullptr);

    // `loadings` K×D (rows in display order), `weights` K (E[π_k]), `channels` D labels.
    // Shows the features whose weight is at least `minWeight`, at most `maxRows` of them.
    // `weightName` names the weights in labels and tooltips.
    void setLoadings(const Eigen::MatrixXd& loadings, const Eigen::VectorXd& weights,
                     const QStringList& channels, const QString& weightName = "E[π]");
    void clear();
    void setTitle(const QString& title);
    QString title() const { return m_title; }

    int shownFeatures() const { return int(m_rows.size()); }
    int channelCount() const { return m_channels.size(); }
    QStringList channels() const { return m_channels; }
    // Largest |loading| shown: the colour scale runs from −scale to +scale.
    double scale() const { return m_scale; }
    // The value under widget position `pos`, if it is over a cell: (feature row, channel).
    bool cellAt(const QPoint& pos, int* row, int* channel) const;

    // The heatmap drawn at `factor` × its on-screen size (for export).
    QImage render(double factor = 2.0) const;

    static constexpr int kMaxRows = 40;
    static constexpr double kMinWeight = 1e-3;

    QSize sizeHint() const override { return {640, 420}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    struct Geometry
    {
        QRectF grid;
        double cellW = 0, cellH = 0;
    };
    Geometry geometry(const QSizeF& size) const;
    void paint(QPainter& p, const QSizeF& size) const;

    QString m_title;
    QStringList m_channels;
    std::vector<int> m_rows; // indices into the loadings' rows that are shown
    Eigen::MatrixXd m_loadings;
    Eigen::VectorXd m_weights;
    double m_scale = 1.0;
    QString m_weightName = "E[π]";
};

// Blue (−1) – white (0) – red (+1), for t in [−1, 1].
QColor divergingColor(double t);

} // namespace svi::ui
