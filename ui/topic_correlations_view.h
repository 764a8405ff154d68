#pragma once
// The correlations between a topic model's topics (Preview::correlations), shown beside its
// topics table: a heatmap over the topics in use that have a correlation, in the table's order
// (the kMaxTopics most used when there are more), blue below zero, white at zero and red above
// on a scale symmetric about zero, grey where a correlation is undefined, the diagonal (r = 1)
// dark; and the most positively and most negatively correlated pairs among all the topics in
// use, each topic with its first top words. Hovering a cell names both topics and r.
//
// The view is hidden while it holds no correlations (a model whose topics are independent)
// and shows itself when it is given some: the window never asks which model made them.
// GUI thread only.

#include "core/run/trainer.h"

#include <Eigen/Core>
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>
#include <vector>

class QLabel;

namespace svi::ui {

// The heatmap of TopicCorrelationsView: rows and columns are topics, labelled with their
// numbers (1-based, as the topics table shows them).
class CorrelationHeatmap : public QWidget
{
    Q_OBJECT
public:
    explicit CorrelationHeatmap(QWidget* parent = nullptr);

    // `labels` and `words` name the n topics of the n×n `values`; `scale` (> 0) is the |r|
    // at which the colours saturate.
    void setValues(const QStringList& labels, const QStringList& words,
                   const Eigen::MatrixXd& values, double scale);

    int topicCount() const { return int(m_values.rows()); }
    double value(int row, int column) const { return m_values(row, column); }
    double scale() const { return m_scale; }
    // The cell (row, column) under widget position `pos`, if any.
    bool cellAt(const QPointF& pos, int* row, int* column) const;
    // The rectangle of cell (row, column) in a widget of size `size`.
    QRectF cellRect(int row, int column, const QSizeF& size) const;
    // "topic 3 (court, judge, trial) ↔ topic 7 (police, officers, shot): r = 0.53".
    QString toolTip(int row, int column) const;
    // The heatmap drawn at its on-screen size (sizeHint() before it is shown).
    QImage render() const;

    // Fills of the diagonal and of an undefined (NaN) correlation.
    static QColor diagonalColor() { return {96, 96, 96}; }
    static QColor undefinedColor() { return {200, 200, 200}; }

    QSize sizeHint() const override { return {440, 340}; }
    QSize minimumSizeHint() const override { return {160, 140}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF grid(const QSizeF& size) const;
    void paint(QPainter& p, const QSizeF& size) const;

    QStringList m_labels, m_words;
    Eigen::MatrixXd m_values;
    double m_scale = 1.0;
};

class TopicCorrelationsView : public QWidget
{
    Q_OBJECT
public:
    explicit TopicCorrelationsView(QWidget* parent = nullptr);

    // Shows the correlations between the topics of `topics` (the table's rows, most used
    // first) that `correlations` covers; hides the view when `correlations` is null.
    void setCorrelations(const std::vector<TopicSummary>& topics,
                         std::shared_ptr<const TopicCorrelations> correlations);
    void clear() { setCorrelations({}, nullptr); }

    bool hasCorrelations() const { return bool(m_correlations); }
    // The topics of the heatmap (its rows and columns), as model numbers (0-based).
    int shownTopics() const { return int(m_shown.size()); }
    int topicAt(int i) const { return m_shown[std::size_t(i)]; }
    // The correlation in heatmap cell (i, j); NaN where undefined.
    double cellValue(int i, int j) const { return m_heatmap->value(i, j); }
    QString cellToolTip(int i, int j) const { return m_heatmap->toolTip(i, j); }
    // The line above the heatmap (what is shown, and what is left out).
    QString note() const;
    // The pairs list as plain text, one line per heading and pair.
    QString pairsText() const { return m_pairsText; }
    CorrelationHeatmap* heatmap() const { return m_heatmap; }

    static constexpr int kMaxTopics = 30; // topics in the heatmap at most
    static constexpr int kPairs = 5;      // pairs listed of each sign
    static constexpr int kWords = 3;      // top words naming a topic

private:
    // `words`: each topic's first words, by topic number.
    void fillPairs(const std::map<int, QString>& words, const std::vector<int>& among);

    std::shared_ptr<const TopicCorrelations> m_correlations;
    std::vector<int> m_shown;
    QString m_pairsText;
    QLabel* m_note = nullptr;
    CorrelationHeatmap* m_heatmap = nullptr;
    QLabel* m_pairs = nullptr;
};

} // namespace svi::ui
