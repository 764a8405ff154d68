// The graph readers (core/io/graph_files.h) on the real files — Newman's karate, dolphins,
// polbooks and football GML, the NIPS 234 co-authorship adjacency matrix, their counts checked
// against an independent count (Python over the same files) — and on small files written here
// for every quirk and error of GML, edge lists and adjacency matrices, each error naming the
// file, the line and the field. Then recognition by content under misleading names, and the
// graph kind end to end (prepareData, inspectData, writeSplit).

#include "core/io/data_kinds.h"
#include "core/io/graph_files.h"
#include "core/io/sniff.h"
#include "tests/core/data_testing.h"

#include <QtTest>
#include <set>

using namespace svi;
using namespace data_testing;

namespace {

QString graphFile(const QString& name)
{
    return dataFile("graphs/" + name);
}

std::set<std::pair<int, int>> pairsOf(const std::vector<NodePair>& v)
{
    std::set<std::pair<int, int>> out;
    for (const NodePair& p : v)
        out.insert({p.i, p.j});
    return out;
}

GraphData simple(const GraphFile& f, Asymmetry a = Asymmetry::Either, GraphBuildStats* s = nullptr)
{
    return buildGraph(f.graph, a, s);
}

const InfoLine* lineOf(const DataReport& r, const std::string& key)
{
    for (const InfoLine& l : r.lines)
        if (l.key == key)
            return &l;
    return nullptr;
}

// A symmetric 0/1 matrix with a zero diagonal, as CSV, and its number of edges.
QByteArray randomAdjacency(int n, int rows, std::int64_t* edges)
{
    std::vector<std::vector<int>> a(std::size_t(n), std::vector<int>(std::size_t(n), 0));
    std::uint32_t x = 7;
    *edges = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            x = x * 1664525u + 1013904223u;
            if ((x >> 24) < 20) {
                a[std::size_t(i)][std::size_t(j)] = a[std::size_t(j)][std::size_t(i)] = 1;
                ++*edges;
            }
        }
    QByteArray out;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j)
            out += QByteArray::number(a[std::size_t(i % n)][std::size_t(j)]) +
                   (j + 1 < n ? "," : "\n");
    return out;
}

} // namespace

Q_DECLARE_METATYPE(svi::DataFileKind)
Q_DECLARE_METATYPE(svi::GraphLayout)

class TestGraphFiles : public QObject
{
    Q_OBJECT

private slots:
    void newmanFiles_data();
    void newmanFiles();
    void nipsAdjacency();
    void gzipWhateverTheName();
    void gmlQuirks();
    void errors_data();
    void errors();
    void edgeListQuirks();
    void edgeListHeaders_data();
    void edgeListHeaders();
    void adjacencyQuirks();
    void recognisedByContent_data();
    void recognisedByContent();
    void largeAdjacencyByItsSize();
    void kindEndToEnd();
    void kindInspects();
    void kindWritesSplit();
    void kindRefusesEmptyGraphs();

private:
    TempFiles m_files;
};

// Counts from Python over the same files (networkx-free: regular expressions and sets), and
// karate's known degrees (Zachary 1977: node 34 has 17 ties, node 1 16).
void TestGraphFiles::newmanFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("listed");
    QTest::addColumn<int>("edges");
    QTest::addColumn<int>("duplicates");
    QTest::addColumn<QString>("firstName");
    QTest::addColumn<int>("maxDegree");
    QTest::addColumn<QString>("namesFrom");
    QTest::newRow("karate") << "karate_newman.gml" << 34 << 78 << 78 << 0 << "1" << 17 << "ids";
    QTest::newRow("dolphins") << "dolphins.gml" << 62 << 159 << 159 << 0 << "Beak" << 12
                              << "labels";
    QTest::newRow("polbooks") << "polbooks_newman.gml" << 105 << 441 << 441 << 0
                              << "1000 Years for Revenge" << 25 << "labels";
    // Football lists the games 3–84 and 14–99 twice.
    QTest::newRow("football") << "football_newman.gml" << 115 << 615 << 613 << 2 << "BrighamYoung"
                              << 12 << "labels";
}

void TestGraphFiles::newmanFiles()
{
    QFETCH(QString, file);
    QFETCH(int, nodes);
    QFETCH(int, listed);
    QFETCH(int, edges);
    QFETCH(int, duplicates);
    QFETCH(QString, firstName);
    QFETCH(int, maxDegree);
    QFETCH(QString, namesFrom);
    const GraphFile f = readGraphFile(std8(graphFile(file)));
    QCOMPARE(f.format, GraphFormat::Gml);
    QCOMPARE(str(f.formatName), QString("GML"));
    QCOMPARE(str(f.namesFrom), namesFrom);
    QVERIFY(!f.graph.directed);
    QVERIFY(f.notes.empty());
    QCOMPARE(f.graph.nodes, nodes);
    QCOMPARE(int(f.graph.links.size()), listed);
    GraphBuildStats s;
    const GraphData g = simple(f, Asymmetry::Either, &s);
    QCOMPARE(int(g.edges.size()), edges);
    QCOMPARE(s.duplicates, std::int64_t(duplicates));
    QCOMPARE(s.selfLoops, std::int64_t(0));
    QCOMPARE(str(g.nodeNames.front()), firstName);
    const auto degree = nodeDegrees(g.nodes, g.edges);
    QCOMPARE(int(*std::max_element(degree.begin(), degree.end())), maxDegree);
    QCOMPARE(connectedComponents(g.nodes, g.edges).count, std::int64_t(1));
    if (file.startsWith("karate")) {
        QCOMPARE(degree[0], std::int64_t(16));
        QCOMPARE(degree[33], std::int64_t(17));
        QCOMPARE(str(g.nodeNames[33]), QString("34"));
    }
    if (file.startsWith("football")) {
        const auto e = pairsOf(g.edges);
        QVERIFY(e.count({3, 84}) && e.count({14, 99}));
    }
}

void TestGraphFiles::nipsAdjacency()
{
    const GraphFile f = readGraphFile(std8(graphFile("nips234_coauthor_adjacency.csv")));
    QCOMPARE(f.format, GraphFormat::Adjacency);
    QCOMPARE(str(f.formatName), QString("adjacency matrix (CSV)"));
    QCOMPARE(str(f.namesFrom), QString("row numbers"));
    QVERIFY(f.graph.directed);
    QCOMPARE(f.graph.nodes, 234);
    QCOMPARE(int(f.graph.links.size()), 2 * 598); // both triangles
    GraphBuildStats s;
    const GraphData g = simple(f, Asymmetry::Mutual, &s);
    QCOMPARE(int(g.edges.size()), 598); // symmetric: mutual and either agree
    QCOMPARE(s.oneWayPairs, std::int64_t(0));
    QCOMPARE(s.selfLoops, std::int64_t(0));
    QVERIFY(s.warnings().empty());
    QCOMPARE(g.nodeNames[233], std::string("234"));
    const auto e = pairsOf(g.edges);
    QVERIFY(e.count({0, 1}) && e.count({0, 125}) && e.count({1, 125}));
    const GraphComponents c = connectedComponents(g.nodes, g.edges);
    QCOMPARE(c.count, std::int64_t(16));
    QCOMPARE(c.largest, std::int64_t(177));
}

void TestGraphFiles::gzipWhateverTheName()
{
    const QString gz = m_files.filePath("karate.txt");
    QVERIFY(writeGzip(gz, readBytes(graphFile("karate_newman.gml"))));
    const GraphFile f = readGraphFile(std8(gz));
    QCOMPARE(f.graph.nodes, 34);
    QCOMPARE(str(recogniseFile(std8(gz)).name), QString("gzip'd GML graph"));
    const GraphFile plain = readGraphFile(std8(graphFile("karate_newman.gml")));
    QVERIFY(pairsOf(simple(f).edges) == pairsOf(simple(plain).edges));

    const QString nips = m_files.filePath("nips.gz");
    QVERIFY(writeGzip(nips, readBytes(graphFile("nips234_coauthor_adjacency.csv"))));
    const GraphFile a = readGraphFile(std8(nips));
    QCOMPARE(str(a.formatName), QString("gzip'd adjacency matrix (CSV)"));
    QCOMPARE(int(simple(a).edges.size()), 598);
}

// Comments, Creator/Version lines, a string over two lines with entities and a backslash kept
// as they are, arbitrary ids (negative, beyond 32 bits), an edge before the nodes it names, a
// node without a label (named by its id), a number as label, nested lists skipped, an edge's
// value noted, `directed 1`.
void TestGraphFiles::gmlQuirks()
{
    const QByteArray gml = "# written by hand\n"
                           "Creator \"hand\"\n"
                           "Version 1\n"
                           "graph\n"
                           "[\n"
                           "  comment \"a string\n"
                           "over two lines, &amp; a \\ backslash\"\n"
                           "  directed 1\n"
                           "  edge [ source -5 target 100000000000 value 2.5 ]\n"
                           "  node [ id 100000000000 label \"Big &quot;one&quot;\" graphics [ x "
                           "1.0 y [ 2 ] ] ]\n"
                           "  node\n"
                           "  [\n"
                           "    id -5\n"
                           "    label 42\n"
                           "  ]\n"
                           "  node [ id 7 ] # no label\n"
                           "  edge [ source 7 target 7 ]\n"
                           "  edge [ target -5 source 100000000000 ]\n"
                           "]\n";
    const std::string path = std8(m_files.write("gml/quirks.gml", gml));
    const GraphFile f = readGraphFile(path);
    QCOMPARE(f.graph.nodes, 3);
    QCOMPARE(list(f.graph.nodeNames), QStringList({"Big &quot;one&quot;", "42", "7"}));
    QCOMPARE(str(f.namesFrom), QString("labels, else ids"));
    QVERIFY(f.graph.directed);
    QCOMPARE(int(f.graph.links.size()), 3);
    QCOMPARE(f.graph.links[0].from, 1); // -5 → 100000000000
    QCOMPARE(f.graph.links[0].to, 0);
    QCOMPARE(f.notes.size(), std::size_t(1));
    QCOMPARE(
        str(f.notes[0]),
        QString("1 edge carries a value (a weight): not modelled, every listed edge is a link"));
    GraphBuildStats s;
    const GraphData g = simple(f, Asymmetry::Mutual, &s);
    QCOMPARE(int(g.edges.size()), 1); // both directions: mutual
    QCOMPARE(s.selfLoops, std::int64_t(1));
    QCOMPARE(s.oneWayPairs, std::int64_t(0));
}

// Every error names the file and the line (and the field where there is one).
void TestGraphFiles::errors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected"); // after "cannot read '<path>"

    // GML
    QTest::newRow("gml: unknown target")
        << "a.gml"
        << QByteArray("graph [\n  node [ id 1 ]\n  node [ id 2 ]\n  edge [ source 1\n target 99 "
                      "]\n]\n")
        << "' line 5, target: no node has id 99";
    // Lines inside a string count.
    QTest::newRow("gml: unknown target after a string over two lines")
        << "a.gml"
        << QByteArray("graph [\n node [ id 1 label \"two\nlines\" ]\n edge [ source 1 target 5 "
                      "]\n]\n")
        << "' line 4, target: no node has id 5";
    QTest::newRow("gml: unknown source")
        << "a.gml" << QByteArray("graph [\n edge [ source 4 target 1 ]\n node [ id 1 ]\n]\n")
        << "' line 2, source: no node has id 4";
    QTest::newRow("gml: node without id")
        << "a.gml" << QByteArray("graph [\n node [ label \"a\" ]\n]\n")
        << "' line 2: a node without an id";
    QTest::newRow("gml: id not whole") << "a.gml" << QByteArray("graph [\n node [ id 1.5 ]\n]\n")
                                       << "' line 2, id: '1.5' is not a whole number";
    QTest::newRow("gml: source not a number")
        << "a.gml" << QByteArray("graph [\n node [ id 1 ]\n edge [ source \"x\" target 1 ]\n]\n")
        << "' line 3, source: 'x' is not a whole number";
    QTest::newRow("gml: id twice")
        << "a.gml" << QByteArray("graph [\n node [ id 3 ]\n node [\n id 3 ]\n]\n")
        << "' line 3, id: 3 again (first at line 2)";
    QTest::newRow("gml: two ids in a node")
        << "a.gml" << QByteArray("graph [\n node [ id 3\n id 4 ]\n]\n")
        << "' line 3: a second id in one node";
    QTest::newRow("gml: graph never closed") << "a.gml" << QByteArray("graph [\n node [ id 1 ]\n")
                                             << "' line 1: the list 'graph [' opened here is "
                                                "never closed";
    QTest::newRow("gml: node never closed")
        << "a.gml" << QByteArray("graph [\n node [ id 1\n") << "' line 2: the list 'node ['";
    QTest::newRow("gml: nested list never closed")
        << "a.gml" << QByteArray("graph [\n node [ id 1\n graphics [ x 1\n")
        << "' line 3: the list 'graphics ['";
    QTest::newRow("gml: string never closed")
        << "a.gml" << QByteArray("graph [\n node [ id 1 label \"abc\n ]\n]\n")
        << "' line 2: a string opened here is never closed";
    QTest::newRow("gml: stray bracket")
        << "a.gml" << QByteArray("]\ngraph [ ]\n") << "' line 1: ']' closes no list";
    QTest::newRow("gml: key without value")
        << "a.gml" << QByteArray("graph [\n node [ id ]\n]\n") << "' line 2: 'id' has no value";
    QTest::newRow("gml: not a key")
        << "a.gml" << QByteArray("graph [\n 12 13\n]\n") << "' line 2: expected a key, found '12'";
    QTest::newRow("gml: no graph")
        << "a.gml" << QByteArray("Creator \"x\"\nVersion 1\n") << "': no 'graph [ … ]' list in it";
    QTest::newRow("gml: two graphs")
        << "a.gml" << QByteArray("graph [ node [ id 1 ] ]\ngraph [ ]\n")
        << "' line 2: a second graph";
    QTest::newRow("gml: no nodes")
        << "a.gml" << QByteArray("graph [\n directed 0\n]\n") << "': the graph has no nodes";
    QTest::newRow("gml: directed 2")
        << "a.gml" << QByteArray("graph [\n directed 2\n node [ id 1 ] ]\n")
        << "' line 2, directed: '2' is neither 0 nor 1";
    QTest::newRow("gml: edge without target")
        << "a.gml" << QByteArray("graph [\n node [ id 1 ]\n edge [ source 1 ]\n]\n")
        << "' line 3: an edge without a target";
    QTest::newRow("gml: binary") << "a.gml" << QByteArray("graph [\0 ]", 10)
                                 << "': it holds binary data";

    // Edge lists
    QTest::newRow("edges: one field") << "e.csv" << QByteArray("source,target\na,b\nc\n")
                                      << "' line 3: 1 field, but an edge needs a source and a "
                                         "target";
    QTest::newRow("edges: negative weight, first line")
        << "e.csv" << QByteArray("a,b,-1\nb,c,1\n")
        << "' line 1, field 3 (weight): '-1' is negative: a weight is 0 (no edge) or more";
    QTest::newRow("edges: word as weight") << "e.csv" << QByteArray("source,target,weight\na,b,x\n")
                                           << "' line 2, field 3 (weight): 'x' is not a number";
    QTest::newRow("edges: NaN weight") << "e.txt" << QByteArray("source target weight\n\na b nan\n")
                                       << "' line 3, field 3 (weight): 'nan' is not a number";
    QTest::newRow("edges: infinite weight") << "e.txt" << QByteArray("from to w\na b inf\n")
                                            << "' line 2, field 3 (weight): 'inf' is not finite";
    QTest::newRow("edges: empty source")
        << "e.csv" << QByteArray("source,target\n,b\n") << "' line 2, field 1 (source): empty";
    QTest::newRow("edges: only comments") << "e.txt" << QByteArray("# only\n% comments\n\n")
                                          << "': no edges: every line is blank or a comment";
    QTest::newRow("edges: only a header")
        << "e.csv" << QByteArray("source,target\n") << "': no edges: only the header line 1";
    QTest::newRow("edges: open quote") << "e.csv" << QByteArray("source,target\n\"a,b\n")
                                       << "' line 2, field 1: a quoted field is not closed";

    // Adjacency matrices
    QTest::newRow("matrix: short row") << "m.csv" << QByteArray("0,1,0\n1,0\n0,1,0\n")
                                       << "' line 2: 2 fields, but the matrix has 3 columns";
    QTest::newRow("matrix: too many rows") << "m.csv" << QByteArray("0,1,1\n1,0,0\n1,0,0\n1,1,0\n")
                                           << "' line 4: row 4 of a matrix of 3 columns: an "
                                              "adjacency matrix is square";
    QTest::newRow("matrix: too few rows")
        << "m.csv" << QByteArray("0,1,0\n1,0,1\n") << "': 3 columns but 2 rows";
    QTest::newRow("matrix: NA") << "m.csv" << QByteArray("0,1,0\n1,0,NA\n0,1,0\n")
                                << "' line 2, column 3: 'NA' is not a number: an adjacency "
                                   "matrix has no missing entries";
    QTest::newRow("matrix: empty entry")
        << "m.csv" << QByteArray("0,1,0\n1,,1\n0,1,0\n") << "' line 2, column 2: an empty entry";
    QTest::newRow("matrix: word") << "m.csv" << QByteArray("0,1,0\n1,0,x\n0,1,0\n")
                                  << "' line 2, column 3: 'x' is not a number";
    QTest::newRow("matrix: negative, named column")
        << "m.csv" << QByteArray("a,b,c\n0,-1,0\n1,0,1\n0,1,0\n")
        << "' line 2, column 2 ('b'): '-1' is negative: an entry is 0 (no link) or more (a link)";
    QTest::newRow("matrix: infinite") << "m.tsv" << QByteArray("0\tinf\t0\n1\t0\t1\n0\t1\t0\n")
                                      << "' line 1, column 2: 'inf' is not finite";
    QTest::newRow("matrix: row name differs")
        << "m.csv" << QByteArray(",a,b,c\na,0,1,0\nc,1,0,1\nb,0,1,0\n")
        << "' line 3, row name: 'c' differs from the header's name of column 2, 'b'";
    QTest::newRow("matrix: header too long") << "m.csv" << QByteArray("a,b,c,d,e\n0,1\n1,0\n")
                                             << "' line 1: 5 names in the header, but the row at "
                                                "line 2 has 2 entries";
}

void TestGraphFiles::errors()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const QString folder = "errors/" + QString(QTest::currentDataTag()).replace(':', '_') + "/";
    const std::string path = std8(m_files.write(folder + name, bytes));
    const std::optional<GraphFormat> format = name.endsWith(".gml")  ? GraphFormat::Gml
                                              : name.startsWith("e") ? GraphFormat::EdgeList
                                                                     : GraphFormat::Adjacency;
    const QString msg = errorOf([&] { readGraphFile(path, format); });
    QVERIFY2(msg.contains("cannot read '" + str(path) + expected), qPrintable(msg));
    // The kind says the same when asked for this format.
    const DataDescription d{{path}, "graph", {{"format", graphFormatKey(*format)}}};
    const QString viaKind = errorOf([&] { prepareData(d); });
    QCOMPARE(viaKind, msg);
}

void TestGraphFiles::edgeListQuirks()
{
    // A BOM, CRLF, a header with a weight column, a comment, a blank line, quoted names with a
    // comma, weights 0 (no edge, nodes kept), 2.5 (an edge, noted) and empty (an edge).
    const QByteArray csv = "\xEF\xBB\xBFsource,target,weight\r\n"
                           "# a comment\r\n"
                           "alice,bob,1\r\n"
                           "\"Smith, J\",alice,2.5\r\n"
                           "\r\n"
                           "bob,carol,0\r\n"
                           "carol,\"Smith, J\",\r\n";
    const GraphFile f = readGraphFile(std8(m_files.write("edges/people.csv", csv)));
    QCOMPARE(f.format, GraphFormat::EdgeList);
    QCOMPARE(str(f.formatName), QString("edge list (CSV)"));
    QCOMPARE(list(f.graph.nodeNames), QStringList({"alice", "bob", "Smith, J", "carol"}));
    QCOMPARE(str(f.namesFrom), QString("the file's names"));
    QVERIFY(!f.graph.directed);
    QCOMPARE(pairsOf(simple(f).edges), (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {2, 3}}));
    QCOMPARE(f.notes.size(), std::size_t(2));
    QCOMPARE(str(f.notes[0]), QString("1 line of weight 0 skipped (no edge; their nodes kept)"));
    QCOMPARE(str(f.notes[1]),
             QString("1 edge of weight other than 1 read as links (weights are not modelled)"));

    // Whole-number ids: numbered in ascending order, not as met; a TAB header from/to.
    const GraphFile t =
        readGraphFile(std8(m_files.write("edges/ids.tsv", "from\tto\n10\t2\n2\t33\n33\t10\n")));
    QCOMPARE(list(t.graph.nodeNames), QStringList({"2", "10", "33"}));
    QCOMPARE(str(t.namesFrom), QString("the file's ids (in ascending order)"));
    QCOMPARE(str(t.formatName), QString("edge list (TSV)"));
    QCOMPARE(pairsOf(simple(t).edges), (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));

    // KONECT: "%" comments, runs of spaces, a weight and a timestamp (noted).
    const GraphFile k = readGraphFile(std8(m_files.write(
        "edges/out.konect", "% sym unweighted\n% 2 3 3\n1  2 1 1199145600\n2 3 1 1199145601\n")));
    QCOMPARE(str(k.formatName), QString("edge list (space-separated)"));
    QCOMPARE(k.graph.nodes, 3);
    QCOMPARE(int(simple(k).edges.size()), 2);
    QCOMPARE(str(k.notes.at(0)), QString("2 lines have fields after the third: ignored"));

    // Repeats in both directions and a self-loop are the builder's to count.
    GraphBuildStats s;
    const GraphFile r = readGraphFile(std8(m_files.write("edges/r.txt", "u v\nx y\ny x\nx x\n")));
    QCOMPARE(int(simple(r, Asymmetry::Either, &s).edges.size()), 1);
    QCOMPARE(s.duplicates, std::int64_t(1));
    QCOMPARE(s.selfLoops, std::int64_t(1));
}

// When the first line is a header, and when it is an edge.
void TestGraphFiles::edgeListHeaders_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<int>("edges");
    QTest::newRow("known names, any case")
        << QByteArray("Source;Target\nx;y\ny;z\n") << QStringList{"x", "y", "z"} << 2;
    QTest::newRow("words over whole numbers")
        << QByteArray("a b\n1 2\n2 3\n") << QStringList{"1", "2", "3"} << 2;
    QTest::newRow("whole numbers throughout")
        << QByteArray("1,2\n2,3\n") << QStringList{"1", "2", "3"} << 2;
    // Names throughout: the first line is an edge, and its nodes come first.
    QTest::newRow("names throughout")
        << QByteArray("bob alice\nalice carol\n") << QStringList{"bob", "alice", "carol"} << 2;
    QTest::newRow("one line") << QByteArray("p q\n") << QStringList{"p", "q"} << 1;
}

void TestGraphFiles::edgeListHeaders()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QStringList, names);
    QFETCH(int, edges);
    const std::string path =
        std8(m_files.write("headers/" + QString(QTest::currentDataTag()).replace(' ', '_'), bytes));
    const GraphFile f = readGraphFile(path, GraphFormat::EdgeList);
    QCOMPARE(list(f.graph.nodeNames), names);
    QCOMPARE(int(simple(f).edges.size()), edges);
}

void TestGraphFiles::adjacencyQuirks()
{
    // R's write.csv: quoted names, an empty corner; the header names the nodes.
    const GraphFile r = readGraphFile(std8(m_files.write(
        "adj/r.csv", "\"\",\"a\",\"b\",\"c\"\n\"a\",0,1,0\n\"b\",1,0,1\n\"c\",0,1,0\n")));
    QCOMPARE(list(r.graph.nodeNames), QStringList({"a", "b", "c"}));
    QCOMPARE(str(r.namesFrom), QString("header"));
    QCOMPARE(pairsOf(simple(r).edges), (std::set<std::pair<int, int>>{{0, 1}, {1, 2}}));

    // Directed rows: a weight (noted), a diagonal entry, one-way links.
    const std::string d = std8(m_files.write("adj/d.csv", "0,2,0\n0,1,1\n1,0,0\n"));
    const GraphFile f = readGraphFile(d, GraphFormat::Adjacency);
    QCOMPARE(str(f.notes.at(0)),
             QString("1 entry other than 0 and 1 read as links (weights are not modelled)"));
    GraphBuildStats s;
    QCOMPARE(pairsOf(simple(f, Asymmetry::Either, &s).edges),
             (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
    QCOMPARE(s.selfLoops, std::int64_t(1));
    QCOMPARE(s.oneWayPairs, std::int64_t(3));
    QCOMPARE(list(s.warnings()),
             QStringList({"1 self-loop dropped", "asymmetric at 3 pairs: read as undirected (an "
                                                 "edge where either direction has one)"}));
    QVERIFY(simple(f, Asymmetry::Mutual).edges.empty());

    // A header without a corner, TAB; row names alone, ';'; comments and blank lines; spaces.
    const GraphFile h =
        readGraphFile(std8(m_files.write("adj/h.tsv", "x\ty\tz\n0\t1\t1\n1\t0\t0\n1\t0\t0\n")));
    QCOMPARE(list(h.graph.nodeNames), QStringList({"x", "y", "z"}));
    QCOMPARE(str(h.formatName), QString("adjacency matrix (TSV)"));
    const GraphFile n =
        readGraphFile(std8(m_files.write("adj/n.csv", "p;0;1\nq;1;0\n")), GraphFormat::Adjacency);
    QCOMPARE(list(n.graph.nodeNames), QStringList({"p", "q"}));
    QCOMPARE(str(n.namesFrom), QString("row names"));
    const GraphFile c = readGraphFile(
        std8(m_files.write("adj/c.csv", "# a matrix\n\n0,1\n\n1,0\n")), GraphFormat::Adjacency);
    QCOMPARE(c.graph.nodes, 2);
    QCOMPARE(int(simple(c).edges.size()), 1);
    const GraphFile sp = readGraphFile(std8(m_files.write("adj/s.txt", "0 1 0\n1 0 1\n0 1 0\n")),
                                       GraphFormat::Adjacency);
    QCOMPARE(str(sp.formatName), QString("adjacency matrix (space-separated)"));
    QCOMPARE(int(simple(sp).edges.size()), 2);
}

void TestGraphFiles::recognisedByContent_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<DataFileKind>("kind");
    QTest::addColumn<GraphLayout>("layout");
    QTest::addColumn<QString>("what");
    const QByteArray karate = readBytes(graphFile("karate_newman.gml"));
    const QByteArray nips = readBytes(graphFile("nips234_coauthor_adjacency.csv"));
    QTest::newRow("GML as .csv") << "karate.csv" << karate << DataFileKind::Gml << GraphLayout::None
                                 << "GML graph";
    QTest::newRow("adjacency as .dat") << "nips.dat" << nips << DataFileKind::Delimited
                                       << GraphLayout::Adjacency << "adjacency matrix (CSV)";
    QTest::newRow("adjacency, no suffix") << "nips" << nips << DataFileKind::Delimited
                                          << GraphLayout::Adjacency << "adjacency matrix (CSV)";
    // 0/1 with TABs is no MovieLens u.data.
    QTest::newRow("TAB adjacency")
        << "adj" << QByteArray("0\t1\t1\n1\t0\t0\n1\t0\t0\n") << DataFileKind::Delimited
        << GraphLayout::Adjacency << "adjacency matrix (TSV)";
    QTest::newRow("R adjacency") << "r.txt"
                                 << QByteArray("\"\",\"a\",\"b\",\"c\"\n\"a\",0,1,0\n\"b\",1,0,"
                                               "1\n\"c\",0,1,0\n")
                                 << DataFileKind::Delimited << GraphLayout::Adjacency
                                 << "adjacency matrix (CSV)";
    QTest::newRow("edge list") << "edges.txt" << QByteArray("source\ttarget\n1\t2\n")
                               << DataFileKind::Delimited << GraphLayout::EdgeList
                               << "edge list (TSV)";
    QTest::newRow("edge list of names")
        << "e.csv" << QByteArray("From,To\nann,bo\n") << DataFileKind::Delimited
        << GraphLayout::EdgeList << "edge list (CSV)";
    QTest::newRow("SNAP") << "soc.txt"
                          << QByteArray("# Directed graph\n# Nodes: 3 Edges: 2\n# "
                                        "FromNodeId\tToNodeId\n0\t1\n1\t2\n")
                          << DataFileKind::Delimited << GraphLayout::EdgeList << "edge list (SNAP)";
    QTest::newRow("KONECT") << "out.x" << QByteArray("% sym unweighted\n1 2\n2 3\n")
                            << DataFileKind::Delimited << GraphLayout::EdgeList
                            << "edge list (KONECT)";
    // What stays a table: not square, neither symmetric nor with a zero diagonal, too small,
    // not 0/1.
    QTest::newRow("0/1, not square") << "t.csv" << QByteArray("0,1,0\n1,0,1\n")
                                     << DataFileKind::Delimited << GraphLayout::None << "CSV";
    QTest::newRow("0/1, not square, header")
        << "t.csv" << QByteArray("a,b,c\n0,1,0\n1,0,1\n0,0,1\n1,1,1\n") << DataFileKind::Delimited
        << GraphLayout::None << "CSV";
    QTest::newRow("0/1 square, no graph") << "t.csv" << QByteArray("1,1,0\n0,1,1\n0,0,1\n")
                                          << DataFileKind::Delimited << GraphLayout::None << "CSV";
    QTest::newRow("0/1, 2 × 2") << "t.csv" << QByteArray("0,1\n1,0\n") << DataFileKind::Delimited
                                << GraphLayout::None << "CSV";
    QTest::newRow("counts") << "t.csv" << QByteArray("0,2,0\n2,0,1\n0,1,0\n")
                            << DataFileKind::Delimited << GraphLayout::None << "CSV";
    QTest::newRow("numbers under other names")
        << "t.csv" << QByteArray("x,y\n1,2\n2,3\n") << DataFileKind::Delimited << GraphLayout::None
        << "CSV";
    // A broken .gml is GML by its name, so that its reader says what is wrong.
    QTest::newRow("prose as .gml") << "notes.gml" << QByteArray("Dear all,\nthe graph is late.\n")
                                   << DataFileKind::Gml << GraphLayout::None << "GML (by its name)";
    QTest::newRow("a list before graph")
        << "l" << QByteArray("Creator \"x\"\nnode [ id 1 ]\ngraph [ node [ id 1 ] ]\n")
        << DataFileKind::Unknown << GraphLayout::None << "text";
    QTest::newRow("words before graph")
        << "w" << QByteArray("Creator \"x\"\nhello world\ngraph [ node [ id 1 ] ]\n")
        << DataFileKind::Unknown << GraphLayout::None << "text";
}

void TestGraphFiles::recognisedByContent()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(DataFileKind, kind);
    QFETCH(GraphLayout, layout);
    QFETCH(QString, what);
    const QString folder = "sniff/" + QString(QTest::currentDataTag()).replace('/', '_') + "/";
    const std::string path = std8(m_files.write(folder + name, bytes));
    const FileFormat f = recogniseFile(path);
    QCOMPARE(f.kind, kind);
    QCOMPARE(f.graph, layout);
    QCOMPARE(str(f.name), what);
    const bool graph = kind == DataFileKind::Gml || layout != GraphLayout::None;
    if (graph && !what.contains("by its name")) {
        QCOMPARE(str(recogniseData({path}).kind->key), QString("graph"));
        readGraphFile(path); // reads what it recognised
    } else if (kind == DataFileKind::Delimited) {
        QCOMPARE(str(recogniseData({path}).kind->key), QString("table"));
    }
    if (what.contains("by its name"))
        QVERIFY(errorOf([&] { readGraphFile(path); }).contains("no 'graph [ … ]' list"));
}

// A matrix larger than the 256 KiB recognition reads: square by the file's size.
void TestGraphFiles::largeAdjacencyByItsSize()
{
    std::int64_t edges = 0;
    const QByteArray square = randomAdjacency(400, 400, &edges);
    QVERIFY(square.size() > 256 * 1024);
    const std::string path = std8(m_files.write("large/square.csv", square));
    QCOMPARE(recogniseFile(path).graph, GraphLayout::Adjacency);
    QCOMPARE(std::int64_t(simple(readGraphFile(path)).edges.size()), edges);
    // The same rows half as many again: no longer square.
    const std::string tall =
        std8(m_files.write("large/tall.csv", randomAdjacency(400, 600, &edges)));
    QCOMPARE(recogniseFile(tall).graph, GraphLayout::None);
    QCOMPARE(recogniseFile(tall).kind, DataFileKind::Delimited);
    // Gzip'd, the size is unknown: the head's rows fit a square.
    const QString gz = m_files.filePath("large/square.gz");
    QVERIFY(writeGzip(gz, square));
    QCOMPARE(recogniseFile(std8(gz)).graph, GraphLayout::Adjacency);
}

void TestGraphFiles::kindEndToEnd()
{
    const std::string nips = std8(graphFile("nips234_coauthor_adjacency.csv"));
    const PreparedData p = prepareData({{nips}, "", {}});
    QCOMPARE(str(p.data.kind), QString("graph"));
    QCOMPARE(getReal(p.data.settings, "test_share"), 0.2);
    QCOMPARE(getChoice(p.data.settings, "format"), std::string("auto"));
    const GraphData& g = *p.built.data.graph;
    QCOMPARE(g.nodes, 234);
    QCOMPARE(int(g.edges.size()), 598);
    const std::int64_t held = std::llround(0.2 * 27261.0); // 234 · 233 / 2 pairs
    QCOMPARE(std::int64_t(g.heldOut.size()), held);
    std::int64_t linked = 0;
    for (const LabelledPair& q : g.heldOut)
        linked += q.linked ? 1 : 0;
    // The 9 isolated nodes, and any whose every link is held out.
    const auto degree = nodeDegrees(g.nodes, g.trainEdges);
    const auto untrained = std::count(degree.begin(), degree.end(), 0);
    QVERIFY(untrained >= 9);
    QCOMPARE(str(p.built.summary), "234 nodes, 598 edges · 20 % of pairs held out (5,452 pairs, " +
                                       QString::number(linked) + " edges) · " +
                                       QString::number(untrained) + " nodes have no training edge");
    std::map<std::string, double> facts(p.built.facts.begin(), p.built.facts.end());
    QCOMPARE(facts["nodes"], 234.0);
    QCOMPARE(facts["edges"], 598.0);
    QCOMPARE(facts["test_pairs"], double(held));
    QCOMPARE(facts["test_edges"], double(linked));
    QCOMPARE(facts["train_edges"], double(598 - linked));
    QCOMPARE(int(g.trainEdges.size()), 598 - int(linked));

    // Another split seed, another split; the share is the setting's.
    const PreparedData other =
        prepareData({{nips}, "", {{"split_seed", std::int64_t(2)}, {"test_share", 0.1}}});
    QCOMPARE(std::int64_t(other.built.data.graph->heldOut.size()), std::llround(0.1 * 27261.0));
    QVERIFY(other.built.data.graph->heldOut != g.heldOut);

    // Football's repeats are said.
    const PreparedData football = prepareData({{std8(graphFile("football_newman.gml"))}, "", {}});
    QVERIFY2(str(football.built.summary).endsWith(" · 2 duplicate edges merged"),
             football.built.summary.c_str());
    std::map<std::string, double> ff(football.built.facts.begin(), football.built.facts.end());
    QCOMPARE(ff["duplicates_merged"], 2.0);
    QCOMPARE(ff["edges"], 613.0);

    // One-way links of a directed file, by the setting; ignored for an undirected one.
    const std::string d = std8(m_files.write("kind/d.csv", "0,1,1\n1,0,0\n0,0,0\n"));
    const PreparedData either = prepareData({{d}, "", {{"test_share", 0.0}}});
    QCOMPARE(int(either.built.data.graph->edges.size()), 2);
    QVERIFY(str(either.built.summary).contains("asymmetric at 1 pair: read as undirected"));
    QVERIFY(either.raw->ignoredSettings().empty());
    const PreparedData mutual =
        prepareData({{d}, "", {{"test_share", 0.0}, {"asymmetric", std::string("mutual")}}});
    QCOMPARE(int(mutual.built.data.graph->edges.size()), 1);
    QCOMPARE(football.raw->ignoredSettings(), std::vector<std::string>{"asymmetric"});

    // An edge list without a header, in columns of spaces, read as a graph when asked for.
    const std::string tri = std8(m_files.write("kind/tri.dat", "1 2\n2 3\n3 1\n"));
    QCOMPARE(recogniseFile(tri).kind, DataFileKind::Unknown);
    const PreparedData t = prepareData({{tri}, "graph", {}});
    QCOMPARE(int(t.built.data.graph->edges.size()), 3);
    QVERIFY(errorOf([&] {
                prepareData({{tri}, "graph", {{"format", std::string("adjacency")}}});
            }).contains("row 3 of a matrix of 2 columns"));
    QVERIFY(errorOf([&] {
                prepareData({{tri}, "graph", {{"format", std::string("gml")}}});
            }).contains("' line 1: expected a key, found '1'"));
    // A graph file is a graph first (the table kind does not offer to read it); a table is
    // not offered as a graph.
    QCOMPARE(str(kindsThatRead({nips}).front()->key), QString("graph"));
    const auto csv = kindsThatRead({std8(dataFile("levine32_H1_sub200.csv"))});
    QVERIFY(std::none_of(csv.begin(), csv.end(),
                         [](const DataKindSpec* k) { return k->key == "graph"; }));
    // Images are not graphs.
    QVERIFY(errorOf([&] {
                prepareData({{std8(dataFile("coins.png"))}, "graph", {}});
            }).contains("it is not a graph (GML, an edge list or an adjacency matrix) but PNG"));
}

void TestGraphFiles::kindInspects()
{
    const DataReport karate = inspectData({{std8(graphFile("karate_newman.gml"))}, "", {}});
    const auto value = [&](const DataReport& r, const std::string& key) {
        const InfoLine* l = lineOf(r, key);
        return l ? l->value : InfoLine::Value{};
    };
    QCOMPARE(std::get<std::string>(value(karate, "format")), std::string("GML"));
    QCOMPARE(std::get<std::int64_t>(value(karate, "nodes")), std::int64_t(34));
    QCOMPARE(std::get<std::int64_t>(value(karate, "edges")), std::int64_t(78));
    QCOMPARE(std::get<double>(value(karate, "density")), 78.0 / 561.0);
    QCOMPARE(std::get<std::vector<double>>(value(karate, "degree")),
             (std::vector<double>{1, 3, 17}));
    QCOMPARE(std::get<std::int64_t>(value(karate, "components")), std::int64_t(1));
    QCOMPARE(std::get<std::int64_t>(value(karate, "test_pairs")), std::int64_t(112));
    QVERIFY(std::get<std::vector<std::string>>(value(karate, "warnings")).empty());
    QVERIFY(!lineOf(karate, "one_way_pairs")); // undirected

    const DataReport nips =
        inspectData({{std8(graphFile("nips234_coauthor_adjacency.csv"))}, "", {}});
    QCOMPARE(std::get<std::int64_t>(value(nips, "isolated_nodes")), std::int64_t(9));
    QCOMPARE(std::get<std::int64_t>(value(nips, "components")), std::int64_t(16));
    QCOMPARE(std::get<std::int64_t>(value(nips, "one_way_pairs")), std::int64_t(0));
    QCOMPARE(std::get<std::vector<double>>(value(nips, "degree")), (std::vector<double>{0, 4, 20}));

    // A path of 4 nodes: degrees 1, 2, 2, 1, median (1 + 2) / 2.
    const DataReport path =
        inspectData({{std8(m_files.write("inspect/path.csv", "u,v\na,b\nb,c\nc,d\n"))}, "", {}});
    QCOMPARE(std::get<std::vector<double>>(value(path, "degree")),
             (std::vector<double>{1, 1.5, 2}));

    const DataReport football = inspectData({{std8(graphFile("football_newman.gml"))}, "", {}});
    QCOMPARE(std::get<std::int64_t>(value(football, "listed")), std::int64_t(615));
    QCOMPARE(std::get<std::int64_t>(value(football, "duplicates_merged")), std::int64_t(2));
    QCOMPARE(std::get<std::vector<std::string>>(value(football, "warnings")),
             std::vector<std::string>{"2 duplicate edges merged"});
}

// The split as TSV files, read back: nodes.tsv names every node, train_edges.tsv is an edge
// list of the training edges, test_pairs.tsv lists the held-out pairs with their labels.
void TestGraphFiles::kindWritesSplit()
{
    const PreparedData p = prepareData({{std8(graphFile("polbooks_newman.gml"))}, "", {}});
    const GraphData& g = *p.built.data.graph;
    const QString dir = m_files.filePath("split");
    QVERIFY(QDir().mkpath(dir));
    const std::string said = kindOf(p.data).writeSplit(p.built, std8(dir));
    QVERIFY2(str(said).contains(" test pairs ("), said.c_str());
    const QList<QByteArray> nodes = readBytes(dir + "/nodes.tsv").trimmed().split('\n');
    QCOMPARE(nodes.size(), 106);
    QCOMPARE(nodes[1], QByteArray("0\t1000 Years for Revenge"));
    // train_edges.tsv is recognised and read as an edge list of indices.
    const std::string train = std8(dir + "/train_edges.tsv");
    QCOMPARE(recogniseFile(train).graph, GraphLayout::EdgeList);
    const GraphFile t = readGraphFile(train);
    std::set<std::pair<int, int>> back;
    for (const ListedLink& l : t.graph.links)
        back.insert({std::stoi(t.graph.nodeNames[std::size_t(l.from)]),
                     std::stoi(t.graph.nodeNames[std::size_t(l.to)])});
    QVERIFY(back == pairsOf(g.trainEdges));
    const QList<QByteArray> test = readBytes(dir + "/test_pairs.tsv").trimmed().split('\n');
    QCOMPARE(test.front(), QByteArray("source\ttarget\tlinked"));
    QCOMPARE(test.size(), int(g.heldOut.size()) + 1);
    for (std::size_t k = 0; k < g.heldOut.size(); k += 97) {
        const LabelledPair& q = g.heldOut[k];
        QCOMPARE(test[int(k) + 1], QByteArray::number(q.i) + '\t' + QByteArray::number(q.j) + '\t' +
                                       (q.linked ? '1' : '0'));
    }
}

void TestGraphFiles::kindRefusesEmptyGraphs()
{
    const std::string none = std8(m_files.write("empty/none.gml", "graph [ node [ id 1 ] node [ "
                                                                  "id 2 ] ]\n"));
    const QString msg = errorOf([&] { prepareData({{none}, "", {}}); });
    QCOMPARE(msg, "cannot read '" + str(none) +
                      "': the graph has no edges: a link-prediction model has nothing to learn");
    const std::string loops = std8(
        m_files.write("empty/loops.gml", "graph [ node [ id 1 ] edge [ source 1 target 1 ] ]\n"));
    QVERIFY(errorOf([&] {
                prepareData({{loops}, "", {}});
            }).contains("no edges once its self-loops and one-way links are resolved"));
    const std::string zeros = std8(m_files.write("empty/zeros.csv", "0,0,0\n0,0,0\n0,0,0\n"));
    QCOMPARE(str(recogniseData({zeros}).kind->key), QString("graph"));
    QVERIFY(errorOf([&] { prepareData({{zeros}, "", {}}); }).contains("the graph has no edges"));
}

QTEST_GUILESS_MAIN(TestGraphFiles)
#include "test_graph_files.moc"
