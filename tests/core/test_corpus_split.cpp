// makeCorpusData's document-completion split (Hoffman et al. 2013): reproducible, halves that
// add up, short documents, the subsample, bad options; and the corpus statistics.

#include "core/data/corpus.h"
#include "core/io/corpus_files.h"
#include "core/io/data_files.h"
#include "core/io/tokenizer.h"
#include "tests/core/corpus_testing.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

using namespace svi;
using namespace corpus_testing;

class TestCorpusSplit : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }
    void splitReproducible();
    void splitHalvesAddUp();
    void splitSkipsShortDocuments();
    void splitSubsample();
    void splitErrors();
    void stats();

private:
    QString write(const QString& name, const QByteArray& bytes)
    {
        return m_files.write(name, bytes);
    }
    TempFiles m_files;
};

// --- the split ---------------------------------------------------------------------------------

void TestCorpusSplit::splitReproducible()
{
    const Corpus c = randomCorpus(300, 50, 3);
    CorpusOptions o;
    o.seed = 7;
    const CountDataPtr a = makeCorpusData(c, o), b = makeCorpusData(c, o);
    QCOMPARE(a->testRows, b->testRows);
    QVERIFY(sameCounts(a->train, b->train));
    QVERIFY(sameCounts(a->heldOut, b->heldOut));
    o.seed = 8;
    const CountDataPtr d = makeCorpusData(c, o);
    QVERIFY(d->testRows != a->testRows);
    // A document's halves depend on the seed and the document only, not on which others are
    // test documents: with heldOut = 0.5 a document chosen in both runs splits the same way.
    o.seed = 7;
    o.heldOut = 0.5;
    const CountDataPtr e = makeCorpusData(c, o);
    int shared = 0;
    for (std::int64_t r : a->testRows) {
        if (!e->isTestRow(r))
            continue;
        ++shared;
        QVERIFY(std::equal(a->train.rowCols(r).begin(), a->train.rowCols(r).end(),
                           e->train.rowCols(r).begin(), e->train.rowCols(r).end()));
        QVERIFY(std::equal(a->heldOut.rowCounts(r).begin(), a->heldOut.rowCounts(r).end(),
                           e->heldOut.rowCounts(r).begin(), e->heldOut.rowCounts(r).end()));
    }
    QVERIFY(shared > 5);
}

void TestCorpusSplit::splitHalvesAddUp()
{
    const Corpus c = randomCorpus(400, 60, 5);
    for (double heldOut : {0.1, 0.3}) {
        CorpusOptions o;
        o.heldOut = heldOut;
        const CountDataPtr data = makeCorpusData(c, o);
        QCOMPARE(data->rows(), c.documents());
        QCOMPARE(data->cols(), std::int64_t(60));
        QCOMPARE(data->kind, std::string("documents"));
        QCOMPARE(data->columnNames, c.vocabulary);
        QCOMPARE(data->rowNames, c.docNames);
        QCOMPARE(std::int64_t(data->testRows.size()), std::llround(heldOut * 400));
        QCOMPARE(data->trainingRowCount() + std::int64_t(data->testRows.size()), std::int64_t(400));
        QVERIFY(std::is_sorted(data->testRows.begin(), data->testRows.end()));
        for (std::int64_t r : data->trainingRows())
            QVERIFY(!data->isTestRow(r));
        for (std::int64_t r = 0; r < data->rows(); ++r) {
            std::map<std::int32_t, float> original, train, held;
            for (std::size_t j = 0; j < c.docs.rowCols(r).size(); ++j)
                original[c.docs.rowCols(r)[j]] = c.docs.rowCounts(r)[j];
            for (std::size_t j = 0; j < data->train.rowCols(r).size(); ++j)
                train[data->train.rowCols(r)[j]] = data->train.rowCounts(r)[j];
            for (std::size_t j = 0; j < data->heldOut.rowCols(r).size(); ++j)
                held[data->heldOut.rowCols(r)[j]] = data->heldOut.rowCounts(r)[j];
            QVERIFY(std::is_sorted(data->train.rowCols(r).begin(), data->train.rowCols(r).end()));
            QVERIFY(
                std::is_sorted(data->heldOut.rowCols(r).begin(), data->heldOut.rowCols(r).end()));
            const double n = c.docs.rowTotal(r);
            if (!data->isTestRow(r)) {
                QCOMPARE(train, original);
                QVERIFY(held.empty());
                continue;
            }
            QVERIFY(n >= 2);
            QCOMPARE(data->train.rowTotal(r), std::floor(n / 2));
            QCOMPARE(data->heldOut.rowTotal(r), n - std::floor(n / 2));
            std::map<std::int32_t, float> sum = train;
            for (const auto& [w, k] : held)
                sum[w] += k;
            QCOMPARE(sum, original);
            for (const auto& [w, k] : train)
                QVERIFY(k > 0);
            for (const auto& [w, k] : held)
                QVERIFY(k > 0);
        }
    }
}

void TestCorpusSplit::splitSkipsShortDocuments()
{
    // Ten documents, four of them with 2 tokens or more: heldOut = 0.5 asks for five test
    // documents and gets the four that can be split.
    Corpus c;
    c.source = "short";
    c.vocabulary = {"a", "b"};
    const std::vector<std::vector<float>> rows = {{1, 0}, {0, 0}, {2, 0}, {0, 1}, {1, 1},
                                                  {0, 0}, {1, 0}, {0, 3}, {0, 1}, {5, 4}};
    for (const auto& r : rows) {
        std::vector<std::int32_t> cols;
        std::vector<float> counts;
        for (int w = 0; w < 2; ++w)
            if (r[std::size_t(w)] > 0) {
                cols.push_back(w);
                counts.push_back(r[std::size_t(w)]);
            }
        c.docs.appendRow(cols, counts);
    }
    CorpusOptions o;
    o.heldOut = 0.5;
    const CountDataPtr d = makeCorpusData(c, o);
    QCOMPARE(d->testRows, (std::vector<std::int64_t>{2, 4, 7, 9}));
    QCOMPARE(d->trainingRowCount(), std::int64_t(6));
    // Test rows for heldOut = 0 are none.
    o.heldOut = 0.0;
    QVERIFY(makeCorpusData(c, o)->testRows.empty());
}

void TestCorpusSplit::splitSubsample()
{
    const Corpus c = randomCorpus(200, 30, 9);
    CorpusOptions o;
    o.maxDocuments = 50;
    const CountDataPtr a = makeCorpusData(c, o), b = makeCorpusData(c, o);
    QCOMPARE(a->rows(), std::int64_t(50));
    QCOMPARE(a->rowNames, b->rowNames);
    QVERIFY(std::is_sorted(a->rowNames.begin(), a->rowNames.end())); // file order kept
    QCOMPARE(std::int64_t(a->testRows.size()), std::int64_t(5));
    // Each kept document is the original one (training rows unchanged).
    for (std::int64_t r : a->trainingRows()) {
        const std::int64_t d = docIndex(c, a->rowNames[std::size_t(r)]);
        QVERIFY(d >= 0);
        QVERIFY(std::equal(a->train.rowCols(r).begin(), a->train.rowCols(r).end(),
                           c.docs.rowCols(d).begin(), c.docs.rowCols(d).end()));
    }
    o.seed = 2;
    QVERIFY(makeCorpusData(c, o)->rowNames != a->rowNames);
    o.maxDocuments = 1000; // more than there are: all
    QCOMPARE(makeCorpusData(c, o)->rows(), std::int64_t(200));
}

void TestCorpusSplit::splitErrors()
{
    Corpus empty;
    empty.source = "nothing.ldac";
    empty.vocabulary = {"a"};
    empty.docs.appendRow({}, {});
    QCOMPARE(invalidOf([&] { makeCorpusData(empty, {}); }),
             QString("makeCorpusData: 'nothing.ldac' has no words (1 documents, 0 tokens)"));

    Corpus bad = randomCorpus(5, 4, 1);
    std::int64_t r = 0;
    while (bad.docs.rowNonZeros(r) == 0)
        ++r;
    bad.docs.cols[std::size_t(bad.docs.rowStart[std::size_t(r)])] = 9;
    const QString where = QString("'random' document %1 ('doc%2'): ").arg(r + 1).arg(1000 + r);
    const QString m1 = invalidOf([&] { makeCorpusData(bad, {}); });
    QVERIFY2(m1.contains(where + "word id 9, but the vocabulary has 4 words"), qPrintable(m1));
    bad = randomCorpus(5, 4, 1);
    bad.docs.counts[0] = 0.5f;
    QVERIFY(invalidOf([&] { makeCorpusData(bad, {}); }).contains("count 0.5 of word"));
    bad = randomCorpus(5, 4, 1);
    bad.docNames.pop_back();
    QVERIFY(
        invalidOf([&] { makeCorpusData(bad, {}); }).contains("4 document names for 5 documents"));

    // Two documents, both test documents: nothing left to train on.
    Corpus two;
    two.source = "two";
    two.vocabulary = {"a"};
    for (int i = 0; i < 2; ++i)
        two.docs.appendRow(std::vector<std::int32_t>{0}, std::vector<float>{4});
    CorpusOptions o;
    o.heldOut = 0.9;
    QCOMPARE(invalidOf([&] { makeCorpusData(two, o); }),
             QString("makeCorpusData: heldout = 0.9 leaves no training document of 2"));
}

void TestCorpusSplit::stats()
{
    const Corpus c = randomCorpus(100, 20, 4);
    const CorpusStats s = c.stats();
    QCOMPARE(s.documents, std::int64_t(100));
    QCOMPARE(s.vocabulary, std::int64_t(20));
    std::int64_t tokens = 0, empty = 0;
    for (std::int64_t d = 0; d < 100; ++d) {
        tokens += std::int64_t(c.docs.rowTotal(d));
        empty += c.docs.rowNonZeros(d) == 0;
    }
    QCOMPARE(s.tokens, tokens);
    QCOMPARE(s.emptyDocuments, empty);
    QVERIFY(empty > 0);
}

QTEST_GUILESS_MAIN(TestCorpusSplit)
#include "test_corpus_split.moc"
