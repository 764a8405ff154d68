// Graphs as listed made simple (buildGraph: repeats merged, self-loops dropped, one-way links
// of a directed listing resolved as declared) and the held-out split of node pairs
// (splitGraph): its exact size, uniformity over the sets of that size (a chi-square test over
// every 3-set of a 6-node graph), reproducibility, disjointness, labels, the share of edges
// among the held-out pairs against the hypergeometric law, and the edge cases (share 0, one and
// two nodes, invalid shares, a split too large to hold). Degrees and components by hand.

#include "core/data/graph.h"
#include "core/math/random.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

using namespace svi;

namespace {

QString str(const std::string& s)
{
    return QString::fromStdString(s);
}

QString invalidOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no std::invalid_argument)";
}

ListedGraph listed(std::int32_t nodes, std::vector<ListedLink> links, bool directed = false)
{
    ListedGraph g;
    g.nodes = nodes;
    g.links = std::move(links);
    g.directed = directed;
    g.source = "test";
    return g;
}

// An Erdős–Rényi graph: each pair linked with probability p, from its own seed.
GraphData randomGraph(std::int32_t n, double p, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 77);
    ListedGraph l = listed(n, {});
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = i + 1; j < n; ++j)
            if (rng.bernoulli(p))
                l.links.push_back({i, j});
    return buildGraph(l, Asymmetry::Either);
}

GraphOptions options(double share, std::int64_t seed)
{
    GraphOptions o;
    o.testShare = share;
    o.splitSeed = seed;
    return o;
}

std::set<std::pair<int, int>> pairsOf(const std::vector<NodePair>& v)
{
    std::set<std::pair<int, int>> out;
    for (const NodePair& p : v)
        out.insert({p.i, p.j});
    return out;
}

} // namespace

using Links = std::vector<ListedLink>;
using Edges = std::vector<NodePair>;
Q_DECLARE_METATYPE(Links)
Q_DECLARE_METATYPE(Edges)
Q_DECLARE_METATYPE(svi::Asymmetry)

class TestGraph : public QObject
{
    Q_OBJECT

private slots:
    void builderPolicies_data();
    void builderPolicies();
    void builderErrors();
    void builderNames();
    void splitExactSizeAndOrder_data();
    void splitExactSizeAndOrder();
    void splitLabelsAndDisjointness();
    void splitReproducibleAndSeedsDiffer();
    void splitUniformOverSets();
    void splitUniformOverSetsWhenSparse();
    void splitEdgeShareIsHypergeometric();
    void shareZeroAndTinyGraphs();
    void invalidShares();
    void splitTooLargeIsRefused();
    void nodesWithoutTrainingEdges();
    void degreesAndComponents();
    void declaredOptions();
};

void TestGraph::builderPolicies_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<Links>("links");
    QTest::addColumn<bool>("directed");
    QTest::addColumn<Asymmetry>("asymmetry");
    QTest::addColumn<Edges>("edges");
    QTest::addColumn<int>("duplicates");
    QTest::addColumn<int>("selfLoops");
    QTest::addColumn<int>("oneWay");
    QTest::addColumn<QStringList>("warnings");

    // Undirected: "0 1", "1 0" and "0 1" again are one pair listed three times.
    QTest::newRow("repeats") << 3 << Links{{0, 1}, {1, 0}, {0, 1}, {1, 2}} << false
                             << Asymmetry::Either << Edges{{0, 1}, {1, 2}} << 2 << 0 << 0
                             << QStringList{"2 duplicate edges merged"};
    QTest::newRow("self-loops") << 3 << Links{{0, 0}, {1, 1}, {1, 1}, {2, 0}} << false
                                << Asymmetry::Either << Edges{{0, 2}} << 0 << 3 << 0
                                << QStringList{"3 self-loops dropped"};
    QTest::newRow("one of each") << 3 << Links{{2, 2}, {2, 1}, {1, 2}} << false << Asymmetry::Either
                                 << Edges{{1, 2}} << 1 << 1 << 0
                                 << QStringList{"1 duplicate edge merged", "1 self-loop dropped"};
    // Directed: both directions are one mutual pair, not a repeat.
    QTest::newRow("directed, symmetric")
        << 3 << Links{{0, 1}, {1, 0}, {2, 1}, {1, 2}} << true << Asymmetry::Either
        << Edges{{0, 1}, {1, 2}} << 0 << 0 << 0 << QStringList{};
    QTest::newRow("directed, one-way, either")
        << 4 << Links{{0, 1}, {1, 2}, {2, 1}, {3, 0}} << true << Asymmetry::Either
        << Edges{{0, 1}, {0, 3}, {1, 2}} << 0 << 0 << 2
        << QStringList{
               "asymmetric at 2 pairs: read as undirected (an edge where either direction has "
               "one)"};
    QTest::newRow("directed, one-way, mutual")
        << 4 << Links{{0, 1}, {1, 2}, {2, 1}, {3, 0}} << true << Asymmetry::Mutual << Edges{{1, 2}}
        << 0 << 0 << 2
        << QStringList{"asymmetric at 2 pairs: read as undirected (an edge only where both "
                       "directions have one, so no edge there)"};
    // A repeat in one direction is a repeat; the other direction makes the pair mutual.
    QTest::newRow("directed, repeated")
        << 2 << Links{{0, 1}, {0, 1}, {1, 0}} << true << Asymmetry::Mutual << Edges{{0, 1}} << 1
        << 0 << 0 << QStringList{"1 duplicate edge merged"};
    // The policy has nothing to do on an undirected listing.
    QTest::newRow("undirected, mutual") << 3 << Links{{0, 1}, {2, 1}} << false << Asymmetry::Mutual
                                        << Edges{{0, 1}, {1, 2}} << 0 << 0 << 0 << QStringList{};
    QTest::newRow("no links") << 2 << Links{} << false << Asymmetry::Either << Edges{} << 0 << 0
                              << 0 << QStringList{};
}

void TestGraph::builderPolicies()
{
    QFETCH(int, nodes);
    QFETCH(Links, links);
    QFETCH(bool, directed);
    QFETCH(Asymmetry, asymmetry);
    QFETCH(Edges, edges);
    QFETCH(int, duplicates);
    QFETCH(int, selfLoops);
    QFETCH(int, oneWay);
    QFETCH(QStringList, warnings);
    GraphBuildStats s;
    const GraphData g = buildGraph(listed(nodes, links, directed), asymmetry, &s);
    QCOMPARE(g.nodes, nodes);
    QVERIFY(g.edges == edges);
    QVERIFY(g.trainEdges == edges); // nothing held out before the split
    QVERIFY(g.heldOut.empty());
    QCOMPARE(s.listed, std::int64_t(links.size()));
    QCOMPARE(s.duplicates, std::int64_t(duplicates));
    QCOMPARE(s.selfLoops, std::int64_t(selfLoops));
    QCOMPARE(s.oneWayPairs, std::int64_t(oneWay));
    QStringList got;
    for (const std::string& w : s.warnings())
        got << str(w);
    QCOMPARE(got, warnings);
}

void TestGraph::builderErrors()
{
    QVERIFY(invalidOf([] {
                buildGraph(listed(0, {}), Asymmetry::Either);
            }).contains("'test' has no nodes"));
    ListedGraph named = listed(3, {{0, 1}});
    named.nodeNames = {"a", "b"};
    QVERIFY(
        invalidOf([&] { buildGraph(named, Asymmetry::Either); }).contains("names 2 nodes of 3"));
    const QString out = invalidOf([] {
        buildGraph(listed(3, {{0, 1}, {1, 3}}), Asymmetry::Either);
    });
    QVERIFY2(out.contains("link 2 (1, 3) names a node outside [0, 3)"), qPrintable(out));
    QVERIFY(invalidOf([] {
                buildGraph(listed(3, {{-1, 1}}), Asymmetry::Either);
            }).contains("outside [0, 3)"));
}

void TestGraph::builderNames()
{
    const GraphData unnamed = buildGraph(listed(3, {{0, 2}}), Asymmetry::Either);
    QCOMPARE(unnamed.nodeNames, (std::vector<std::string>{"1", "2", "3"}));
    ListedGraph named = listed(2, {{1, 0}});
    named.nodeNames = {"Beak", "Grin"};
    const GraphData g = buildGraph(named, Asymmetry::Either);
    QCOMPARE(g.nodeNames, named.nodeNames);
    QCOMPARE(str(g.source), QString("test"));
    QCOMPARE(g.pairCount(), std::int64_t(1));
}

void TestGraph::splitExactSizeAndOrder_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<double>("share");
    QTest::newRow("paper's 20 %, N = 234") << 234 << 0.2;
    QTest::newRow("5 %") << 60 << 0.05;
    QTest::newRow("half") << 41 << 0.5;
    QTest::newRow("the most") << 30 << 0.9;
    QTest::newRow("rounds down") << 7 << 0.11; // 21 pairs: 2.31 → 2
    QTest::newRow("rounds up") << 7 << 0.13;   // 2.73 → 3
}

void TestGraph::splitExactSizeAndOrder()
{
    QFETCH(int, nodes);
    QFETCH(double, share);
    GraphData g = randomGraph(nodes, 0.1, 5);
    GraphSplitStats s;
    splitGraph(g, options(share, 1), &s);
    const std::int64_t pairs = std::int64_t(nodes) * (nodes - 1) / 2;
    const auto expected = std::int64_t(std::llround(share * double(pairs)));
    QCOMPARE(std::int64_t(g.heldOut.size()), expected);
    QCOMPARE(s.pairs, pairs);
    QCOMPARE(s.testPairs, expected);
    for (std::size_t k = 0; k < g.heldOut.size(); ++k) {
        const LabelledPair& p = g.heldOut[k];
        QVERIFY(p.i >= 0 && p.i < p.j && p.j < nodes);
        if (k > 0) { // strictly increasing: sorted and distinct
            const LabelledPair& q = g.heldOut[k - 1];
            QVERIFY(q.i < p.i || (q.i == p.i && q.j < p.j));
        }
    }
}

void TestGraph::splitLabelsAndDisjointness()
{
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        GraphData g = randomGraph(80, 0.15, seed);
        const auto edges = pairsOf(g.edges);
        GraphSplitStats s;
        splitGraph(g, options(0.25, std::int64_t(seed)), &s);
        const auto train = pairsOf(g.trainEdges);
        QCOMPARE(train.size(), g.trainEdges.size()); // no repeats
        QVERIFY(std::is_sorted(g.trainEdges.begin(), g.trainEdges.end(),
                               [](const NodePair& a, const NodePair& b) {
                                   return a.i < b.i || (a.i == b.i && a.j < b.j);
                               }));
        std::set<std::pair<int, int>> heldEdges;
        for (const LabelledPair& p : g.heldOut) {
            // Every label says whether the graph links the pair.
            QCOMPARE(p.linked, edges.count({p.i, p.j}) == 1);
            // No held-out pair is trained on.
            QVERIFY(!train.count({p.i, p.j}));
            if (p.linked)
                heldEdges.insert({p.i, p.j});
        }
        // Training edges and held-out edges partition the edges.
        std::set<std::pair<int, int>> together = train;
        together.insert(heldEdges.begin(), heldEdges.end());
        QVERIFY(together == edges);
        QCOMPARE(train.size() + heldEdges.size(), edges.size());
        QCOMPARE(s.testEdges, std::int64_t(heldEdges.size()));
        QCOMPARE(s.trainEdges, std::int64_t(train.size()));
    }
}

void TestGraph::splitReproducibleAndSeedsDiffer()
{
    const GraphData g = randomGraph(60, 0.1, 9);
    std::vector<std::vector<LabelledPair>> splits;
    for (std::int64_t seed = 1; seed <= 10; ++seed) {
        GraphData a = g, b = g;
        splitGraph(a, options(0.2, seed));
        splitGraph(b, options(0.2, seed));
        QVERIFY(a.heldOut == b.heldOut);
        QVERIFY(a.trainEdges == b.trainEdges);
        // Splitting a split graph again draws the same pairs: the split depends only on the
        // graph's edges, the share and the seed, not on an earlier split.
        splitGraph(a, options(0.2, seed));
        QVERIFY(a.heldOut == b.heldOut);
        splits.push_back(a.heldOut);
    }
    for (std::size_t x = 0; x < splits.size(); ++x)
        for (std::size_t y = x + 1; y < splits.size(); ++y)
            QVERIFY2(splits[x] != splits[y],
                     qPrintable(QString("seeds %1, %2").arg(x + 1).arg(y + 1)));
    // Two splits of 354 pairs among 1,770 overlap by about 354 · 0.2 ≈ 71, far from all.
    std::set<std::pair<int, int>> first;
    for (const LabelledPair& p : splits[0])
        first.insert({p.i, p.j});
    std::size_t common = 0;
    for (const LabelledPair& p : splits[1])
        common += first.count({p.i, p.j});
    QVERIFY2(common > 30 && common < 120, qPrintable(QString::number(common)));
}

// Every set of round(share · pairs) pairs is equally likely: 6 nodes (15 pairs), share 0.2 (3
// pairs, 455 sets), 45,500 seeds, about 100 draws of each set. Pearson's statistic has 454
// degrees of freedom (mean 454, sd 30.1); the bound is 6 sd above. A draw biased towards low
// pair indices, or one that never draws some sets, fails it by far; so does each pair's count
// against its expectation 9,100.
void TestGraph::splitUniformOverSets()
{
    const GraphData g = randomGraph(6, 0.5, 3);
    constexpr int kSeeds = 45500;
    std::map<std::vector<int>, int> sets;
    std::map<int, int> perPair;
    for (int seed = 1; seed <= kSeeds; ++seed) {
        GraphData s = g;
        splitGraph(s, options(0.2, seed));
        QCOMPARE(s.heldOut.size(), std::size_t(3));
        std::vector<int> key;
        for (const LabelledPair& p : s.heldOut) {
            key.push_back(p.i * 6 + p.j);
            ++perPair[p.i * 6 + p.j];
        }
        ++sets[key];
    }
    QCOMPARE(int(sets.size()), 455);
    const double expected = double(kSeeds) / 455.0;
    double chi2 = 0;
    for (const auto& [key, n] : sets)
        chi2 += (n - expected) * (n - expected) / expected;
    qInfo("chi-square over the 455 sets: %.1f", chi2);
    QVERIFY2(chi2 < 454 + 6 * std::sqrt(2.0 * 454), qPrintable(QString::number(chi2)));
    QCOMPARE(int(perPair.size()), 15);
    const double each = kSeeds * 3.0 / 15.0, sd = std::sqrt(kSeeds * 0.2 * 0.8);
    for (const auto& [pair, n] : perPair)
        QVERIFY2(std::abs(n - each) < 5 * sd, qPrintable(QString("%1: %2").arg(pair).arg(n)));
}

// The other way of drawing, for fewer than 1 pair in 64: 17 nodes (136 pairs), 2 pairs held out
// (9,180 sets), 183,600 seeds, about 20 draws of each set; Pearson's statistic has 9,179 degrees
// of freedom (sd 135.5). Two draws of the same pair (1 in 136) must be redrawn, not kept.
void TestGraph::splitUniformOverSetsWhenSparse()
{
    const GraphData g = randomGraph(17, 0.3, 8);
    constexpr int kSeeds = 183600;
    std::map<int, int> sets;
    for (int seed = 1; seed <= kSeeds; ++seed) {
        GraphData s = g;
        splitGraph(s, options(2.0 / 136.0, seed));
        QCOMPARE(s.heldOut.size(), std::size_t(2));
        const LabelledPair& a = s.heldOut[0];
        const LabelledPair& b = s.heldOut[1];
        QVERIFY(a.i < b.i || (a.i == b.i && a.j < b.j));
        ++sets[((a.i * 17 + a.j) * 17 + b.i) * 17 + b.j];
    }
    QCOMPARE(int(sets.size()), 9180);
    const double expected = double(kSeeds) / 9180.0;
    double chi2 = 0;
    for (const auto& [key, n] : sets)
        chi2 += (n - expected) * (n - expected) / expected;
    qInfo("chi-square over the 9,180 sets: %.1f", chi2);
    QVERIFY2(chi2 < 9179 + 6 * std::sqrt(2.0 * 9179), qPrintable(QString::number(chi2)));
}

// The held-out edges of a uniform draw of k pairs among M, E of them edges, are
// hypergeometric: mean kE/M, variance k(E/M)(1 − E/M)(M − k)/(M − 1). Each of 10 seeds within 4
// sd; their mean within 4 sd / √10.
void TestGraph::splitEdgeShareIsHypergeometric()
{
    const GraphData g = randomGraph(200, 0.08, 21);
    const double m = double(g.pairCount()), e = double(g.edges.size());
    const double k = std::llround(0.2 * m);
    const double mean = k * e / m;
    const double sd = std::sqrt(k * (e / m) * (1 - e / m) * (m - k) / (m - 1));
    double sum = 0;
    for (std::int64_t seed = 1; seed <= 10; ++seed) {
        GraphData s = g;
        GraphSplitStats stats;
        splitGraph(s, options(0.2, seed), &stats);
        QVERIFY2(std::abs(double(stats.testEdges) - mean) < 4 * sd,
                 qPrintable(QString("%1 vs %2 ± %3").arg(stats.testEdges).arg(mean).arg(sd)));
        sum += double(stats.testEdges);
    }
    QVERIFY2(std::abs(sum / 10 - mean) < 4 * sd / std::sqrt(10.0),
             qPrintable(QString("%1 vs %2").arg(sum / 10).arg(mean)));
}

void TestGraph::shareZeroAndTinyGraphs()
{
    GraphData g = randomGraph(30, 0.2, 4);
    GraphSplitStats s;
    splitGraph(g, options(0.0, 1), &s);
    QVERIFY(g.heldOut.empty());
    QVERIFY(g.trainEdges == g.edges);
    QCOMPARE(s.testPairs, std::int64_t(0));
    QCOMPARE(s.testEdges, std::int64_t(0));

    // One node: no pair at all.
    GraphData one = buildGraph(listed(1, {{0, 0}}), Asymmetry::Either);
    QVERIFY(one.edges.empty());
    splitGraph(one, options(0.9, 1), &s);
    QVERIFY(one.heldOut.empty());
    QCOMPARE(s.pairs, std::int64_t(0));
    QCOMPARE(s.nodesWithoutTrainingEdges, std::int64_t(1));

    // Two nodes, one pair: 0.2 rounds to none, 0.5 (half away from zero) and 0.9 to the pair.
    const GraphData two = buildGraph(listed(2, {{1, 0}}), Asymmetry::Either);
    for (const auto& [share, held] : {std::pair{0.2, 0}, {0.5, 1}, {0.9, 1}}) {
        GraphData t = two;
        splitGraph(t, options(share, 3), &s);
        QCOMPARE(int(t.heldOut.size()), held);
        QCOMPARE(int(t.trainEdges.size()), 1 - held);
        if (held) {
            QVERIFY((t.heldOut.front() == LabelledPair{0, 1, true}));
            QCOMPARE(s.nodesWithoutTrainingEdges, std::int64_t(2));
        }
    }
}

void TestGraph::invalidShares()
{
    GraphData g = randomGraph(10, 0.3, 1);
    for (const auto& [share, text] : {std::pair{1.0, "test_share = 1, but must be in [0, 0.9]"},
                                      {-0.1, "test_share = -0.1, but must be in [0, 0.9]"},
                                      {std::nan(""), "test_share = nan"}}) {
        const QString msg = invalidOf([&, share = share] { splitGraph(g, options(share, 1)); });
        QVERIFY2(msg.contains(text), qPrintable(msg));
    }
    GraphOptions o = options(0.2, -1);
    QVERIFY(invalidOf([&] { splitGraph(g, o); }).contains("split_seed = -1"));
    QVERIFY(invalidOf([&] {
                makeGraphData(listed(3, {{0, 1}}), options(0.95, 1));
            }).contains("test_share = 0.95"));
}

// 30,000 nodes: 449,985,000 pairs, of which 0.9 would be 405 million held-out pairs (4.9 GB).
void TestGraph::splitTooLargeIsRefused()
{
    GraphData g = buildGraph(listed(30000, {{0, 1}}), Asymmetry::Either);
    const QString msg = invalidOf([&] { splitGraph(g, options(0.9, 1)); });
    QVERIFY2(msg.startsWith("test_share = 0.9, but would hold out 404986500 of the 449985000"),
             qPrintable(msg));
    // A small share of the same graph splits.
    GraphSplitStats s;
    splitGraph(g, options(0.0001, 1), &s);
    QCOMPARE(s.testPairs, std::int64_t(std::llround(0.0001 * 449985000.0)));
    QCOMPARE(std::int64_t(g.heldOut.size()), s.testPairs);
}

// A star's leaves each have one edge: a leaf is left without a training edge exactly when its
// pair with the centre is held out; an isolated node never has one.
void TestGraph::nodesWithoutTrainingEdges()
{
    ListedGraph star = listed(12, {});
    for (std::int32_t leaf = 1; leaf < 11; ++leaf)
        star.links.push_back({0, leaf}); // node 11 is isolated
    const GraphData g = buildGraph(star, Asymmetry::Either);
    for (std::int64_t seed = 1; seed <= 20; ++seed) {
        GraphData s = g;
        GraphSplitStats stats;
        splitGraph(s, options(0.5, seed), &stats);
        std::int64_t leavesHeld = 0;
        for (const LabelledPair& p : s.heldOut)
            leavesHeld += p.i == 0 && p.linked ? 1 : 0;
        const std::int64_t centre = leavesHeld == 10 ? 1 : 0;
        QCOMPARE(stats.nodesWithoutTrainingEdges, leavesHeld + centre + 1);
    }
}

void TestGraph::degreesAndComponents()
{
    // Two triangles joined by nothing, a path 6–7, an isolated node 8.
    const GraphData g =
        buildGraph(listed(9, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {5, 3}, {6, 7}}),
                   Asymmetry::Either);
    QCOMPARE(nodeDegrees(g.nodes, g.edges), (std::vector<std::int64_t>{2, 2, 2, 2, 2, 2, 1, 1, 0}));
    const GraphComponents c = connectedComponents(g.nodes, g.edges);
    QCOMPARE(c.count, std::int64_t(4));
    QCOMPARE(c.largest, std::int64_t(3));
    // Joining them by one edge makes one component of 6.
    const GraphData joined =
        buildGraph(listed(9, {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {2, 3}}), Asymmetry::Either);
    QCOMPARE(connectedComponents(joined.nodes, joined.edges).largest, std::int64_t(6));
    QCOMPARE(connectedComponents(joined.nodes, joined.edges).count, std::int64_t(4));
}

void TestGraph::declaredOptions()
{
    const GraphOptions d;
    QCOMPARE(d.testShare, 0.2);
    QCOMPARE(d.splitSeed, std::int64_t(1));
    QCOMPARE(d.asymmetric, Asymmetry::Either);
    const GraphOptions m = GraphOptions::fromParams({{"test_share", 0.1},
                                                     {"split_seed", std::int64_t(7)},
                                                     {"asymmetric", std::string("mutual")}});
    QCOMPARE(m.testShare, 0.1);
    QCOMPARE(m.splitSeed, std::int64_t(7));
    QCOMPARE(m.asymmetric, Asymmetry::Mutual);
    QCOMPARE(getChoice(m.toParams(), "asymmetric"), std::string("mutual"));
    QVERIFY(invalidOf([] {
                GraphOptions::fromParams({{"asymmetric", std::string("both")}});
            }).contains("asymmetric = both, but must be one of: either, mutual"));
}

QTEST_GUILESS_MAIN(TestGraph)
#include "test_graph.moc"
