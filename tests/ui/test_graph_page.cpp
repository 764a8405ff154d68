// The graph page and the covariance view with hand-built data and previews (no model run): the
// adjacency in file order before a fit, in the fit's community order after, each cell the colour
// of what its node pair is, the predicted probabilities in the same order, the communities'
// boundaries, tooltips naming the pair; a preview of another graph's size changes nothing. The
// covariance view hides without a covariance and colours both matrices on one scale.

#include "ui/covariance_view.h"
#include "ui/graph_page.h"
#include "ui/loadings_view.h"
#include "ui/matrix_view.h"

#include <QLabel>
#include <QtTest>
#include <memory>

using namespace svi;
using namespace svi::ui;

namespace {

// Six nodes: a triangle 0-1-2 (edge 1-2 held out), a triangle 3-4-5 (pair 3-5 held out as an
// edge too), a bridge 2-3, and the held-out non-edge 0-4.
std::shared_ptr<const GraphData> sixNodes()
{
    auto g = std::make_shared<GraphData>();
    g->nodes = 6;
    g->nodeNames = {"a", "b", "c", "d", "e", "f"};
    g->edges = {{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}};
    g->trainEdges = {{0, 1}, {0, 2}, {2, 3}, {3, 4}, {4, 5}};
    g->heldOut = {{0, 4, false}, {1, 2, true}, {3, 5, true}};
    g->source = "six nodes";
    return g;
}

// Communities {3, 4, 5} (community 1, the heavier) then {0, 1, 2} (community 0).
std::shared_ptr<const GraphSummary> summary(int nodes)
{
    auto s = std::make_shared<GraphSummary>();
    s->community = {0, 0, 0, 1, 1, 1};
    s->order = {4, 3, 5, 0, 2, 1};
    s->community.resize(std::size_t(nodes), 0);
    s->order.resize(std::size_t(nodes), 0);
    s->linkProbability = Eigen::MatrixXf::Zero(nodes, nodes);
    for (int i = 0; i < nodes; ++i)
        for (int j = 0; j < nodes; ++j)
            if (i != j)
                s->linkProbability(i, j) = (i / 3 == j / 3) ? 0.8f : 0.1f;
    s->communityWeights = Eigen::Vector2d(0.5, 1.5);
    return s;
}

} // namespace

class TestGraphPage : public QObject
{
    Q_OBJECT
private slots:
    void adjacencyInFileOrderBeforeAFit()
    {
        GraphPage page;
        page.setGraph(sixNodes());
        const MatrixView* m = page.adjacencyView();
        QCOMPARE(m->rowCount(), 6);
        QCOMPARE(m->columnCount(), 6);
        QCOMPARE(page.order(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(m->cellColour(0, 1), GraphPage::trainEdgeColor());
        QCOMPARE(m->cellColour(1, 0), GraphPage::trainEdgeColor()); // symmetric
        QCOMPARE(m->cellColour(1, 2), GraphPage::heldOutEdgeColor());
        QCOMPARE(m->cellColour(0, 4), GraphPage::heldOutPairColor());
        QCOMPARE(m->cellColour(1, 5), QColor(Qt::white)); // neither an edge nor held out
        QCOMPARE(page.predictionView()->rowCount(), 0);   // nothing predicted yet
        QVERIFY(m->cellToolTip(1, 2).contains("b – c"));
        QVERIFY(m->cellToolTip(1, 2).contains("held out, an edge"));
        QVERIFY(!m->cellToolTip(1, 2).contains("P(link)"));
    }

    void aFitOrdersTheNodesByCommunity()
    {
        GraphPage page;
        page.resize(900, 500);
        page.setGraph(sixNodes());
        Preview pv;
        pv.graph = summary(6);
        QVERIFY(page.showPreview("#1 EPM Gamma SGVB", 40, pv));
        QCOMPARE(page.order(), pv.graph->order);
        const MatrixView* a = page.adjacencyView();
        const MatrixView* p = page.predictionView();
        // Row 0 is node 4 (e), column 2 is node 5 (f): a training edge; rows 1 and 2 are d and
        // f, held out as an edge; row 0 and column 3 are e and a, the held-out non-edge.
        QCOMPARE(a->cellColour(0, 2), GraphPage::trainEdgeColor());
        QCOMPARE(a->cellColour(1, 2), GraphPage::heldOutEdgeColor());
        QCOMPARE(a->cellColour(0, 3), GraphPage::heldOutPairColor());
        // Within a community 0.8 (the largest: the darkest colour), across 0.1.
        QCOMPARE(p->rowCount(), 6);
        QCOMPARE(p->cellColour(0, 1), sequentialColor(1.0));
        QCOMPARE(p->cellColour(0, 3), sequentialColor(0.1 / 0.8));
        QCOMPARE(p->cellColour(2, 2), QColor(Qt::white)); // the diagonal is no pair
        const QString tip = p->cellToolTip(0, 3);
        QVERIFY2(tip.contains("e – a") && tip.contains("P(link) = 0.1") &&
                     tip.contains("communities 2 and 1"),
                 qPrintable(tip));
        QVERIFY(page.caption()->text().contains("2 communities"));
        QVERIFY(page.caption()->text().contains("step 40"));
        // The boundary between the blocks, in both views; the names in the fit's order.
        QCOMPARE(a->boundaries(), std::vector<int>{3});
        QCOMPARE(p->boundaries(), std::vector<int>{3});
        QCOMPARE(a->rowLabels(), (QStringList{"e", "d", "f", "a", "c", "b"}));
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QImage img = p->render(1.0);
        QVERIFY(!img.isNull());
    }

    void aPreviewOfAnotherGraphChangesNothing()
    {
        GraphPage page;
        page.setGraph(sixNodes());
        Preview none;
        QVERIFY(!page.showPreview("#1", 1, none));
        Preview other;
        other.graph = summary(5);
        QVERIFY(!page.showPreview("#2", 1, other));
        QCOMPARE(page.order(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(page.predictionView()->rowCount(), 0);
        // After a good preview, a bad one puts the file order back.
        Preview good;
        good.graph = summary(6);
        QVERIFY(page.showPreview("#3", 2, good));
        QVERIFY(!page.showPreview("#4", 3, other));
        QCOMPARE(page.order(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
    }

    void covarianceViewHidesWithoutOne()
    {
        CovarianceView view;
        QVERIFY(view.isHidden());
        QVERIFY(!view.hasCovariance());
        auto c = std::make_shared<CovarianceSummary>();
        c->empirical = (Eigen::Matrix2d() << 1.0, -0.4, -0.4, 1.0).finished();
        c->model = (Eigen::Matrix2d() << 0.9, 0.2, 0.2, 1.1).finished();
        view.setCovariance(c, {"CD3"});
        QVERIFY(view.hasCovariance());
        QVERIFY(!view.isHidden());
        // One scale for both: the largest off-diagonal |value|, 0.4.
        QCOMPARE(view.scale(), 0.4);
        QCOMPARE(view.empiricalView()->cellColour(0, 1), divergingColor(-1.0));
        QCOMPARE(view.modelView()->cellColour(0, 1), divergingColor(0.5));
        QCOMPARE(view.modelView()->cellColour(1, 1), divergingColor(1.0)); // saturated
        QVERIFY(view.modelView()->cellToolTip(0, 1).contains("CD3 · V2: 0.2"));
        view.clear();
        QVERIFY(view.isHidden());
        QCOMPARE(view.modelView()->rowCount(), 0);
    }
};

QTEST_MAIN(TestGraphPage)
#include "test_graph_page.moc"
