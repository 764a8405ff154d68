#pragma once
// Graphs' centre page (DataView::Graph). Side by side: the graph's adjacency matrix and the
// link probabilities a fit predicts, both with the nodes in the fit's order (grouped by each
// node's dominant latent community, the communities' boundaries drawn), and a line naming the
// run, its step and its communities above them. In the adjacency, training edges are dark, the
// held-out pairs the fit is scored on are orange (an edge) or light grey (no edge); hovering a
// cell names both nodes, what the pair is and its predicted probability.
//
// Before any fit the adjacency is shown in the file's order. The page reads the preview's
// GraphSummary, never the model that made it. GUI thread only.

#include "core/data/graph_data.h"
#include "core/run/trainer.h"

#include <QImage>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

class QLabel;

namespace svi::ui {

class MatrixView;

class GraphPage : public QWidget
{
    Q_OBJECT
public:
    explicit GraphPage(QWidget* parent = nullptr);

    // The graph whose adjacency is shown (in file order until a preview orders it); null clears.
    void setGraph(GraphDataPtr graph);
    GraphDataPtr graph() const { return m_graph; }
    // Shows `preview`'s communities and predicted links for run `runLabel` at `step`. False,
    // and the page shows the graph in file order, when the preview has no graph summary or one
    // of another size than the graph.
    bool showPreview(const QString& runLabel, std::int64_t step, const Preview& preview);

    MatrixView* adjacencyView() const { return m_adjacency; }
    MatrixView* predictionView() const { return m_prediction; }
    QLabel* caption() const { return m_caption; }
    // The node order on show (file order before a fit).
    const std::vector<int>& order() const { return m_order; }

    // One pixel per node pair in `order` (rows and columns): training edges dark, held-out
    // edges orange, held-out non-edges light grey, other pairs white.
    static QImage adjacencyCells(const GraphData& graph, const std::vector<int>& order);
    // One pixel per node pair in `order`: sequentialColor(p / scale).
    static QImage probabilityCells(const Eigen::MatrixXf& probability,
                                   const std::vector<int>& order, double scale);
    static QColor trainEdgeColor() { return {20, 20, 20}; }
    static QColor heldOutEdgeColor() { return {230, 120, 20}; }
    static QColor heldOutPairColor() { return {215, 215, 215}; }

    // Nodes beyond which the matrices are not drawn (a pixel per pair: 16 M pixels).
    static constexpr int kMaxNodes = 4000;

private:
    void showGraphOnly();
    // What pair (i, j) of the shown order is: "edge (training)", "held out: edge", …
    QString pairText(int row, int column) const;

    GraphDataPtr m_graph;
    std::shared_ptr<const GraphSummary> m_summary;
    std::vector<int> m_order;
    // 0: no edge; 1: training edge; 2: held-out edge; 3: held-out non-edge, by node pair (i, j),
    // i < j, packed; filled once per graph.
    std::vector<std::uint8_t> m_pairState;
    QLabel* m_caption = nullptr;
    MatrixView* m_adjacency = nullptr;
    MatrixView* m_prediction = nullptr;
};

} // namespace svi::ui
