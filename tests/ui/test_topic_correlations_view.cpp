// TopicCorrelationsView: the heatmap holds the topics in use that have a correlation, in the
// table's order, at most 30 of them; the pairs list names the strongest pairs among all those
// topics; no correlations hide it; NaN is drawn grey and named undefined.

#include "core/run/topic_correlations.h"
#include "ui/topic_correlations_view.h"

#include <QtTest>
#include <cmath>
#include <memory>

using namespace svi;
using namespace svi::ui;

namespace {

// A topic as the table lists it, its words "t<k>a", "t<k>b", … (k 1-based, as shown).
TopicSummary topic(int index, double weight)
{
    TopicSummary t;
    t.index = index;
    t.weight = weight;
    for (const char* s : {"a", "b", "c", "d", "e"})
        t.words.push_back("t" + std::to_string(index + 1) + s);
    t.probs.assign(t.words.size(), 0.1);
    return t;
}

// Correlations over topics 0 … 3 (the model's reference topic 4 has none).
std::shared_ptr<const TopicCorrelations> fourTopics()
{
    auto c = std::make_shared<TopicCorrelations>();
    c->topics = {0, 1, 2, 3};
    c->matrix.resize(4, 4);
    c->matrix << 1.0, 0.9, 0.53, -0.2, //
        0.9, 1.0, 0.1, -0.8,           //
        0.53, 0.1, 1.0, 0.3,           //
        -0.2, -0.8, 0.3, 1.0;
    return c;
}

bool near(const QColor& a, const QColor& b, int tolerance = 3)
{
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

} // namespace

class TestTopicCorrelationsView : public QObject
{
    Q_OBJECT

private slots:
    // Topics in use 3, 1, 5 (the reference topic), 4 — topic 2 is not in use: the heatmap
    // shows 3, 1, 4 in that order with their correlations; the pairs list leaves topic 2 out.
    void showsTheTopicsInUseInTheTablesOrder()
    {
        TopicCorrelationsView v;
        QVERIFY(v.isHidden());
        const std::vector<TopicSummary> table = {topic(2, 0.4), topic(0, 0.3), topic(4, 0.2),
                                                 topic(3, 0.1)};
        v.setCorrelations(table, fourTopics());
        QVERIFY(!v.isHidden());
        QVERIFY(v.hasCorrelations());
        QCOMPARE(v.shownTopics(), 3);
        QCOMPARE(v.topicAt(0), 2);
        QCOMPARE(v.topicAt(1), 0);
        QCOMPARE(v.topicAt(2), 3);
        QCOMPARE(v.cellValue(0, 1), 0.53); // topics 2 and 0
        QCOMPARE(v.cellValue(1, 0), 0.53);
        QCOMPARE(v.cellValue(1, 2), -0.2); // topics 0 and 3
        QCOMPARE(v.cellValue(0, 2), 0.3);  // topics 2 and 3
        QCOMPARE(v.cellValue(2, 2), 1.0);
        QCOMPARE(v.cellToolTip(0, 1),
                 QString("topic 3 (t3a, t3b, t3c) \u2194 topic 1 (t1a, t1b, t1c): r = 0.53"));
        QCOMPARE(v.cellToolTip(1, 2),
                 QString("topic 1 (t1a, t1b, t1c) \u2194 topic 4 (t4a, t4b, t4c): r = \u22120.20"));
        QVERIFY2(v.note().contains("the 3 topics in use") &&
                     v.note().contains("Topic 5 has no correlation of its own"),
                 qPrintable(v.note()));
        // The colours saturate at the largest |r| off the diagonal, 0.53, rounded up to 0.6.
        QCOMPARE(v.heatmap()->scale(), 0.6);
    }

    // The pairs: positive by decreasing r, negative most negative first, only among the topics
    // in use (0.9 and −0.8 involve topic 2, which is not).
    void listsTheStrongestPairs()
    {
        TopicCorrelationsView v;
        v.setCorrelations({topic(2, 0.4), topic(0, 0.3), topic(4, 0.2), topic(3, 0.1)},
                          fourTopics());
        const QStringList lines = v.pairsText().trimmed().split('\n');
        QCOMPARE(lines, (QStringList{
                            "Most positively correlated",
                            "+0.53  topic 3 (t3a, t3b, t3c) \u2194 topic 1 (t1a, t1b, t1c)",
                            "+0.30  topic 3 (t3a, t3b, t3c) \u2194 topic 4 (t4a, t4b, t4c)",
                            "Most negatively correlated",
                            "\u22120.20  topic 1 (t1a, t1b, t1c) \u2194 topic 4 (t4a, t4b, t4c)"}));
        // With topic 2 in use the strongest pairs are its own.
        v.setCorrelations({topic(1, 0.5), topic(0, 0.3), topic(2, 0.1), topic(3, 0.1)},
                          fourTopics());
        const QStringList all = v.pairsText().split('\n');
        QVERIFY2(all.value(1).startsWith("+0.90  topic 2 (t2a, t2b, t2c) \u2194 topic 1"),
                 qPrintable(v.pairsText()));
        const int negative = int(all.indexOf("Most negatively correlated"));
        QVERIFY(negative > 1);
        QVERIFY2(all.value(negative + 1).startsWith("\u22120.80  topic 2"),
                 qPrintable(v.pairsText()));
        QCOMPARE(v.heatmap()->scale(), 0.9);
    }

    void hidesWithoutCorrelations()
    {
        TopicCorrelationsView v;
        v.setCorrelations({topic(0, 0.5), topic(1, 0.5)}, fourTopics());
        QVERIFY(!v.isHidden());
        v.setCorrelations({topic(0, 0.5), topic(1, 0.5)}, nullptr); // an LDA run's preview
        QVERIFY(v.isHidden());
        QVERIFY(!v.hasCorrelations());
        QCOMPARE(v.shownTopics(), 0);
        QVERIFY(v.pairsText().isEmpty());
        QCOMPARE(v.heatmap()->topicCount(), 0);
    }

    // One topic: a 1×1 heatmap and no pair; none with a correlation: an empty heatmap.
    void oneTopicOrNone()
    {
        TopicCorrelationsView v;
        v.resize(600, 400);
        v.setCorrelations({topic(1, 1.0)}, fourTopics());
        QCOMPARE(v.shownTopics(), 1);
        QCOMPARE(v.cellValue(0, 0), 1.0);
        QCOMPARE(v.pairsText(), QString("Most positively correlated\nnone\n"
                                        "Most negatively correlated\nnone\n"));
        QVERIFY(!v.heatmap()->render().isNull());
        v.setCorrelations({topic(4, 1.0)}, fourTopics()); // the reference topic alone
        QVERIFY(!v.isHidden());
        QCOMPARE(v.shownTopics(), 0);
        QVERIFY(!v.heatmap()->render().isNull());
        // No pairs either: none of the topics the correlations cover is in use.
        QCOMPARE(v.pairsText(), QString("Most positively correlated\nnone\n"
                                        "Most negatively correlated\nnone\n"));
    }

    // An undefined correlation: NaN in the cell, "undefined" in its tooltip, grey on screen;
    // the colours of the others follow their sign.
    void nanIsGrey()
    {
        auto c = std::make_shared<TopicCorrelations>(*fourTopics());
        c->matrix(0, 3) = c->matrix(3, 0) = std::nan("");
        TopicCorrelationsView v;
        v.setCorrelations({topic(0, 0.4), topic(1, 0.3), topic(2, 0.2), topic(3, 0.1)}, c);
        QVERIFY(std::isnan(v.cellValue(0, 3)));
        QVERIFY2(v.cellToolTip(3, 0).endsWith("r = undefined"), qPrintable(v.cellToolTip(3, 0)));
        CorrelationHeatmap* h = v.heatmap();
        h->resize(300, 260);
        const QImage img = h->render();
        auto at = [&](int i, int j) {
            return img.pixelColor(h->cellRect(i, j, h->size()).center().toPoint());
        };
        QVERIFY(near(at(0, 3), CorrelationHeatmap::undefinedColor()));
        QVERIFY(near(at(3, 0), CorrelationHeatmap::undefinedColor()));
        QVERIFY(near(at(1, 1), CorrelationHeatmap::diagonalColor()));
        const QColor positive = at(0, 1), negative = at(1, 3); // 0.9 and −0.8
        QVERIFY2(positive.red() > 150 && positive.blue() < 100, qPrintable(positive.name()));
        QVERIFY2(negative.blue() > 150 && negative.red() < 100, qPrintable(negative.name()));
        // Hovering a cell finds it.
        int row = -1, column = -1;
        QVERIFY(h->cellAt(h->cellRect(2, 1, h->size()).center(), &row, &column));
        QCOMPARE(row, 2);
        QCOMPARE(column, 1);
        QVERIFY(!h->cellAt(QPointF(1, 1), &row, &column));
    }

    // 200 topics in use: the heatmap keeps the 30 most used (the table's first 30) and says
    // so; the pairs come from all 200, so a pair beyond the 30 can lead the list.
    void capsTheHeatmapAtThirty()
    {
        const int K = 200;
        Eigen::MatrixXd cov = Eigen::MatrixXd::Identity(K, K);
        cov(150, 160) = cov(160, 150) = 0.95;
        cov(3, 4) = cov(4, 3) = 0.2;
        std::vector<int> numbers(K);
        for (int k = 0; k < K; ++k)
            numbers[std::size_t(k)] = k;
        std::vector<TopicSummary> table;
        for (int k = K - 1; k >= 0; --k) // the table's order: 199, 198, …
            table.push_back(topic(k, 1.0 / K));
        TopicCorrelationsView v;
        v.setCorrelations(table, topicCorrelations(cov, numbers));
        QCOMPARE(v.shownTopics(), TopicCorrelationsView::kMaxTopics);
        QCOMPARE(v.heatmap()->topicCount(), 30);
        for (int i = 0; i < 30; ++i)
            QCOMPARE(v.topicAt(i), K - 1 - i);
        QVERIFY2(v.note().contains("30 most used of the 200 topics"), qPrintable(v.note()));
        QVERIFY2(v.pairsText().split('\n').value(1).startsWith("+0.95  topic 161"),
                 qPrintable(v.pairsText()));
        QVERIFY2(v.pairsText().split('\n').value(2).startsWith(
                     "+0.20  topic 5 (t5a, t5b, t5c) \u2194 topic 4"),
                 qPrintable(v.pairsText()));
        v.resize(700, 500);
        QVERIFY(!v.heatmap()->render().isNull());
    }
};

QTEST_MAIN(TestTopicCorrelationsView)
#include "test_topic_correlations_view.moc"
