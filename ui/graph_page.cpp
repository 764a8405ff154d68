#include "ui/graph_page.h"

#include "ui/matrix_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

namespace svi::ui {

namespace {

enum PairState : std::uint8_t { NoEdge = 0, TrainEdge = 1, HeldOutEdge = 2, HeldOutPair = 3 };

// Index of pair (i, j), i ≠ j, among the N(N − 1)/2 pairs i < j.
std::size_t pairIndex(std::int64_t n, int i, int j)
{
    if (i > j)
        std::swap(i, j);
    return std::size_t(std::int64_t(i) * (2 * n - i - 1) / 2 + (j - i - 1));
}

std::vector<std::uint8_t> pairStates(const GraphData& g)
{
    std::vector<std::uint8_t> s(std::size_t(g.pairCount()), NoEdge);
    for (const NodePair& e : g.trainEdges)
        s[pairIndex(g.nodes, e.i, e.j)] = TrainEdge;
    for (const LabelledPair& p : g.heldOut)
        s[pairIndex(g.nodes, p.i, p.j)] = p.linked ? HeldOutEdge : HeldOutPair;
    return s;
}

QString nodeName(const GraphData& g, int i)
{
    return std::size_t(i) < g.nodeNames.size() ? QString::fromStdString(g.nodeNames[std::size_t(i)])
                                               : QString::number(i + 1);
}

} // namespace

GraphPage::GraphPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_caption = new QLabel(tr("Open a graph (GML, an edge list, an adjacency matrix) to see it "
                              "here; a fit orders its nodes by community."));
    m_caption->setObjectName("graphCaption");
    m_caption->setWordWrap(true);
    m_adjacency = new MatrixView;
    m_adjacency->setObjectName("adjacencyView");
    m_adjacency->setPlaceholder(tr("No graph"));
    m_prediction = new MatrixView;
    m_prediction->setObjectName("predictionView");
    m_prediction->setPlaceholder(tr("The predicted link probabilities of the selected run "
                                    "appear here once it has been evaluated."));
    auto* row = new QHBoxLayout;
    row->addWidget(m_adjacency, 1);
    row->addWidget(m_prediction, 1);
    layout->addWidget(m_caption);
    layout->addLayout(row, 1);
}

QImage GraphPage::adjacencyCells(const GraphData& graph, const std::vector<int>& order)
{
    const int n = int(order.size());
    QImage img(n, n, QImage::Format_RGB32);
    img.fill(Qt::white);
    std::vector<int> position(std::size_t(graph.nodes), -1);
    for (int k = 0; k < n; ++k)
        position[std::size_t(order[std::size_t(k)])] = k;
    auto put = [&](int i, int j, QColor c) {
        const int a = position[std::size_t(i)], b = position[std::size_t(j)];
        if (a < 0 || b < 0)
            return;
        img.setPixelColor(b, a, c);
        img.setPixelColor(a, b, c);
    };
    for (const LabelledPair& p : graph.heldOut)
        put(p.i, p.j, p.linked ? heldOutEdgeColor() : heldOutPairColor());
    for (const NodePair& e : graph.trainEdges)
        put(e.i, e.j, trainEdgeColor());
    return img;
}

QImage GraphPage::probabilityCells(const Eigen::MatrixXf& probability,
                                   const std::vector<int>& order, double scale)
{
    const int n = int(order.size());
    QImage img(n, n, QImage::Format_RGB32);
    img.fill(Qt::white);
    for (int a = 0; a < n; ++a) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(a));
        for (int b = 0; b < n; ++b)
            line[b] = a == b
                          ? qRgb(255, 255, 255)
                          : sequentialColor(
                                probability(order[std::size_t(a)], order[std::size_t(b)]) / scale)
                                .rgb();
    }
    return img;
}

void GraphPage::setGraph(GraphDataPtr graph)
{
    if (graph == m_graph)
        return;
    m_graph = std::move(graph);
    m_summary.reset();
    m_pairState.clear();
    if (m_graph && m_graph->nodes <= kMaxNodes)
        m_pairState = pairStates(*m_graph);
    showGraphOnly();
}

void GraphPage::showGraphOnly()
{
    m_summary.reset();
    m_prediction->clear();
    m_order.clear();
    if (!m_graph) {
        m_adjacency->clear();
        return;
    }
    const GraphData& g = *m_graph;
    const QLocale loc;
    if (g.nodes > kMaxNodes) {
        m_adjacency->clear();
        m_adjacency->setPlaceholder(tr("%1 nodes: too many to draw a matrix of (at most %2)")
                                        .arg(loc.toString(g.nodes))
                                        .arg(loc.toString(kMaxNodes)));
        return;
    }
    m_order.resize(std::size_t(g.nodes));
    std::iota(m_order.begin(), m_order.end(), 0);
    m_adjacency->setCells(adjacencyCells(g, m_order),
                          [this](int r, int c) { return pairText(r, c); });
    m_adjacency->setBoundaries({});
    m_adjacency->setTitle(tr("Adjacency, file order"));
    m_adjacency->setLegend({}, {{trainEdgeColor(), tr("training edge")},
                                {heldOutEdgeColor(), tr("held-out edge")},
                                {heldOutPairColor(), tr("held-out non-edge")}});
    QStringList names;
    for (int i = 0; i < g.nodes; ++i)
        names << nodeName(g, i);
    m_adjacency->setLabels(names);
}

bool GraphPage::showPreview(const QString& runLabel, std::int64_t step, const Preview& preview)
{
    const std::shared_ptr<const GraphSummary>& s = preview.graph;
    if (!m_graph || !s || int(s->order.size()) != m_graph->nodes ||
        s->linkProbability.rows() != m_graph->nodes || m_graph->nodes > kMaxNodes) {
        if (m_summary)
            showGraphOnly();
        return false;
    }
    const GraphData& g = *m_graph;
    m_summary = s;
    m_order = s->order;
    // Boundaries where the community changes along the order; the communities' sizes.
    std::vector<int> boundaries;
    std::vector<std::pair<int, int>> sizes; // (community, nodes)
    for (std::size_t k = 0; k < m_order.size(); ++k) {
        const int c = s->community[std::size_t(m_order[k])];
        if (k == 0 || c != s->community[std::size_t(m_order[k - 1])]) {
            if (k > 0)
                boundaries.push_back(int(k));
            sizes.push_back({c, 0});
        }
        ++sizes.back().second;
    }
    QStringList names;
    for (int i : m_order)
        names << nodeName(g, i);
    m_adjacency->setCells(adjacencyCells(g, m_order),
                          [this](int r, int c) { return pairText(r, c); });
    m_adjacency->setBoundaries(boundaries);
    m_adjacency->setLabels(names);
    m_adjacency->setTitle(tr("Adjacency, nodes by community"));
    const float top = s->linkProbability.size() ? s->linkProbability.maxCoeff() : 0.0f;
    const double scale = top > 0 ? double(top) : 1.0;
    m_prediction->setCells(probabilityCells(s->linkProbability, m_order, scale),
                           [this](int r, int c) { return pairText(r, c); });
    m_prediction->setBoundaries(boundaries);
    m_prediction->setLabels(names);
    m_prediction->setTitle(tr("Predicted link probability"));
    m_prediction->setColourBar(sequentialColor, "0", QString::number(scale, 'g', 2));
    m_prediction->setLegend(tr("P(link) under the fit; lines: communities"));
    QStringList parts;
    const int listed = std::min<int>(int(sizes.size()), 8);
    for (int k = 0; k < listed; ++k) {
        const auto [c, n] = sizes[std::size_t(k)];
        parts << (c < 0 ? tr("none: %1").arg(n) : tr("%1: %2").arg(c + 1).arg(n));
    }
    if (int(sizes.size()) > listed)
        parts << tr("… %1 more").arg(int(sizes.size()) - listed);
    const QString count =
        sizes.size() == 1 ? tr("1 community") : tr("%1 communities").arg(sizes.size());
    m_caption->setText(
        tr("Run %1 · step %2 · %3 in use (community: nodes) %4. Hover a cell "
           "for the pair.")
            .arg(runLabel, QLocale().toString(qlonglong(step)), count, parts.join(", ")));
    return true;
}

QString GraphPage::pairText(int row, int column) const
{
    if (!m_graph || std::size_t(row) >= m_order.size() || std::size_t(column) >= m_order.size())
        return {};
    const GraphData& g = *m_graph;
    const int i = m_order[std::size_t(row)], j = m_order[std::size_t(column)];
    QString text = nodeName(g, i) + " – " + nodeName(g, j);
    if (i == j)
        return text;
    if (!m_pairState.empty()) {
        switch (m_pairState[pairIndex(g.nodes, i, j)]) {
        case TrainEdge:
            text += tr(": edge (training)");
            break;
        case HeldOutEdge:
            text += tr(": held out, an edge");
            break;
        case HeldOutPair:
            text += tr(": held out, no edge");
            break;
        default:
            text += tr(": no edge");
        }
    }
    if (m_summary) {
        text += tr("\nP(link) = %1").arg(double(m_summary->linkProbability(i, j)), 0, 'g', 3);
        const auto comm = [&](int v) {
            const int c = m_summary->community[std::size_t(v)];
            return c < 0 ? tr("none") : QString::number(c + 1);
        };
        text += tr("\ncommunities %1 and %2").arg(comm(i), comm(j));
    }
    return text;
}

} // namespace svi::ui
