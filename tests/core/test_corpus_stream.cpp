// A corpus read out of core (core/io/corpus_stream.h): the stream gives the documents of the
// whole-file reader, one for one, in any chunking, plain or gzip'd; a bad line is reported at
// its document with its file and line; other formats and standard input without a vocabulary
// are refused by name. Through the corpus kind, the head's split is the in-memory one, and LDA's
// streaming VB over the stream with one topic ends at the conjugate posterior: λ = η + the
// counts of every training document, head and stream (each read once).

#include "core/data/document_stream.h"
#include "core/io/byte_source.h"
#include "core/io/corpus_files.h"
#include "core/io/corpus_stream.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/models/builtin.h"
#include "core/models/lda/lda_trainer.h"
#include "core/run/registry.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <zlib.h>

using namespace svi;

namespace {

// n documents of LDA-C over V words, a blank line now and then (no document) and an empty
// document ("0") once.
QByteArray ldacText(int n, int V, std::uint64_t seed)
{
    QByteArray out;
    std::uint64_t x = seed;
    const auto next = [&x] {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        return x >> 33;
    };
    for (int d = 0; d < n; ++d) {
        if (d == 7) {
            out += "0\n";
            continue;
        }
        if (d % 11 == 5)
            out += "\n";
        std::vector<int> words;
        for (int w = 0; w < V; ++w)
            if (next() % 4 == 0)
                words.push_back(w);
        if (words.empty())
            words.push_back(int(next() % std::uint64_t(V)));
        out += QByteArray::number(qsizetype(words.size()));
        for (int w : words)
            out += " " + QByteArray::number(w) + ":" + QByteArray::number(1 + int(next() % 4));
        out += "\n";
    }
    return out;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

void writeGzip(const QString& path, const QByteArray& bytes)
{
    gzFile gz = gzopen(path.toLocal8Bit().constData(), "wb");
    QVERIFY(gz);
    QCOMPARE(gzwrite(gz, bytes.constData(), unsigned(bytes.size())), int(bytes.size()));
    gzclose(gz);
}

QByteArray vocabText(int V)
{
    QByteArray out;
    for (int w = 0; w < V; ++w)
        out += "word" + QByteArray::number(w) + "\n";
    return out;
}

bool sameRows(const SparseRows& a, const SparseRows& b)
{
    return a.rowStart == b.rowStart && a.cols == b.cols && a.counts == b.counts;
}

} // namespace

class TestCorpusStream : public QObject
{
    Q_OBJECT

private slots:
    void sameDocumentsAsTheWholeFile_data();
    void sameDocumentsAsTheWholeFile();
    void textStreamsGiveTheInMemoryDocuments_data();
    void textStreamsGiveTheInMemoryDocuments();
    void droppingATextStreamStopsItsReader();
    void badLineIsReportedAtItsDocument();
    void uciStreamsGroupedTriples();
    void refusesWhatItCannotStream();
    void oneTopicEndsAtTheConjugateCounts();

private:
    QTemporaryDir m_dir;
};

void TestCorpusStream::sameDocumentsAsTheWholeFile_data()
{
    QTest::addColumn<bool>("gzip");
    QTest::addColumn<bool>("vocabulary");
    QTest::addColumn<int>("chunk");
    QTest::newRow("plain, vocabulary, 1") << false << true << 1;
    QTest::newRow("plain, vocabulary, 7") << false << true << 7;
    QTest::newRow("gzip, vocabulary, 100") << true << true << 100;
    QTest::newRow("plain, numbered words, 3") << false << false << 3;
}

void TestCorpusStream::sameDocumentsAsTheWholeFile()
{
    QFETCH(bool, gzip);
    QFETCH(bool, vocabulary);
    QFETCH(int, chunk);
    const QString folder = m_dir.filePath(QString("same-%1-%2").arg(gzip).arg(vocabulary));
    QVERIFY(QDir().mkpath(folder));
    const QString counts = folder + (gzip ? "/c.ldac.gz" : "/c.ldac");
    const QByteArray text = ldacText(40, 23, 5);
    if (gzip)
        writeGzip(counts, text);
    else
        writeFile(counts, text);
    if (vocabulary)
        writeFile(folder + "/vocab.txt", vocabText(25)); // two words no document uses
    const Corpus whole = readLdac(counts.toStdString());
    const OpenedStream s = openCorpusStream({counts.toStdString()}, {});
    QCOMPARE(s.vocabulary, whole.vocabulary);
    QCOMPARE(int(s.vocabulary.size()), vocabulary ? 25 : 23);
    SparseRows streamed;
    std::int64_t got = 0;
    while (!s.stream->atEnd()) {
        const std::int64_t n = s.stream->read(chunk, streamed);
        QVERIFY(n >= 1 && n <= chunk);
        got += n;
        QCOMPARE(s.stream->documentsRead(), got);
    }
    QCOMPARE(s.stream->read(chunk, streamed), std::int64_t(0));
    QCOMPARE(streamed.rows(), std::int64_t(40));
    QVERIFY(sameRows(streamed, whole.docs));
}

void TestCorpusStream::textStreamsGiveTheInMemoryDocuments_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("minDf");
    QTest::addColumn<int>("cap");
    const QString data = SVI_TEST_DATA_DIR;
    QTest::newRow("folder") << data + "/text/news_sample" << 2 << 0;
    QTest::newRow("archive") << data + "/text/news_sample.tar.gz" << 2 << 0;
    QTest::newRow("archive, min_df 1, cap 40") << data + "/text/news_sample.tar.gz" << 1 << 40;
}

// The first pass keeps counts only, yet chooses and numbers the words as the in-memory reader
// does; the documents are the same (an archive's in its own order: compared as sorted lists).
void TestCorpusStream::textStreamsGiveTheInMemoryDocuments()
{
    QFETCH(QString, path);
    QFETCH(int, minDf);
    QFETCH(int, cap);
    CorpusReadOptions o;
    o.tokenizer.minDocumentFrequency = minDf;
    o.tokenizer.vocabularyCap = cap;
    o.tokenizer.stripEmailHeaders = true;
    const Corpus whole = loadCorpus({path.toStdString()}, o);
    const OpenedStream s = openCorpusStream({path.toStdString()}, o);
    QCOMPARE(s.vocabulary, whole.vocabulary);
    SparseRows streamed;
    while (s.stream->read(5, streamed) > 0) {
    }
    QVERIFY(s.stream->atEnd());
    QCOMPARE(streamed.rows(), whole.documents());
    const auto rowsOf = [](const SparseRows& r) {
        std::vector<std::pair<std::vector<std::int32_t>, std::vector<float>>> out;
        for (std::int64_t d = 0; d < r.rows(); ++d)
            out.push_back({{r.rowCols(d).begin(), r.rowCols(d).end()},
                           {r.rowCounts(d).begin(), r.rowCounts(d).end()}});
        return out;
    };
    auto a = rowsOf(streamed), b = rowsOf(whole.docs);
    if (path.endsWith(".tar.gz")) {
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
    }
    QVERIFY(a == b);
}

void TestCorpusStream::droppingATextStreamStopsItsReader()
{
    // The reader runs ahead on its own thread; dropping the stream mid-way joins it (under
    // ThreadSanitizer too) instead of leaving it blocked on a full queue.
    CorpusReadOptions o;
    const std::vector<std::string> files = {
        (QString(SVI_TEST_DATA_DIR) + "/text/news_sample.tar.gz").toStdString()};
    for (int taken : {0, 1, 3}) {
        OpenedStream s = openCorpusStream(files, o);
        SparseRows rows;
        QCOMPARE(s.stream->read(taken, rows), std::int64_t(taken));
        s.stream.reset();
    }
}

void TestCorpusStream::badLineIsReportedAtItsDocument()
{
    const QString counts = m_dir.filePath("bad.ldac");
    writeFile(counts, "2 0:1 1:2\n1 2:1\n\n2 1:1 3:x\n1 0:1\n");
    writeFile(m_dir.filePath("bad.vocab"), vocabText(4));
    const OpenedStream s = openCorpusStream({counts.toStdString()}, {});
    SparseRows rows;
    QCOMPARE(s.stream->read(2, rows), std::int64_t(2)); // the good ones come first
    try {
        s.stream->read(2, rows);
        QFAIL("a bad count was read");
    } catch (const DataError& e) {
        const QString what = e.what();
        QVERIFY2(what.contains("bad.ldac") && what.contains("line 4") && what.contains("pair 2"),
                 qPrintable(what));
    }
}

// UCI triples grouped by document stream as readUciBagOfWords reads them (documents without a
// triple as empty rows, the last ones too); out of order, the line is named.
void TestCorpusStream::uciStreamsGroupedTriples()
{
    const QString uci = m_dir.filePath("docword.small.txt");
    writeFile(uci, "6\n4\n7\n1 1 2\n1 3 1\n\n2 4 1\n2 2 5\n4 1 1\n4 4 3\n5 2 2\n");
    const Corpus whole = readUciBagOfWords(uci.toStdString());
    QCOMPARE(whole.documents(), std::int64_t(6));
    for (int chunk : {1, 4}) {
        const OpenedStream s = openCorpusStream({uci.toStdString()}, {});
        QCOMPARE(s.vocabulary, whole.vocabulary);
        SparseRows streamed;
        while (s.stream->read(chunk, streamed) > 0) {
        }
        QVERIFY(s.stream->atEnd());
        QVERIFY(sameRows(streamed, whole.docs));
    }
    const QString shuffled = m_dir.filePath("docword.shuffled.txt");
    writeFile(shuffled, "3\n4\n3\n2 1 2\n1 3 1\n3 2 1\n");
    const OpenedStream s = openCorpusStream({shuffled.toStdString()}, {});
    SparseRows rows;
    try {
        s.stream->read(3, rows);
        QFAIL("triples out of order were streamed");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("line 5") && QString(e.what()).contains("grouped"),
                 e.what());
    }
    const QString shortNnz = m_dir.filePath("docword.short.txt");
    writeFile(shortNnz, "2\n3\n4\n1 1 2\n2 3 1\n");
    const OpenedStream t = openCorpusStream({shortNnz.toStdString()}, {});
    QVERIFY_THROWS_EXCEPTION(DataError, t.stream->read(5, rows));
}

void TestCorpusStream::refusesWhatItCannotStream()
{
    const QString text = m_dir.filePath("notes.txt");
    writeFile(text, "a plain text file is no corpus to stream\n");
    try {
        openCorpusStream({text.toStdString()}, {});
        QFAIL("a lone text file was streamed");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("svi split"), e.what());
    }
    try {
        openCorpusStream({kStandardInput}, {});
        QFAIL("standard input was streamed without a vocabulary");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("vocabulary"), e.what());
    }
}

void TestCorpusStream::oneTopicEndsAtTheConjugateCounts()
{
    const QString counts = m_dir.filePath("conj.ldac");
    const QByteArray text = ldacText(300, 30, 9);
    writeFile(counts, text);
    writeFile(m_dir.filePath("conj.vocab"), vocabText(30));

    DataDescription given;
    given.files = {counts.toStdString()};
    given.kind = "corpus";
    given.settings["out_of_core"] = true;
    given.settings["stream_head"] = std::int64_t(50);
    given.settings["heldout"] = 0.2;
    const PreparedData p = prepareData(given);
    const CountData& head = *p.built.data.counts;
    QVERIFY(head.stream);
    QCOMPARE(head.rows(), std::int64_t(50));
    QCOMPARE(std::int64_t(head.testRows.size()), std::int64_t(10));

    // The head's split is the in-memory reader's on those 50 documents.
    Corpus first = readLdac(counts.toStdString());
    Corpus fifty;
    fifty.vocabulary = first.vocabulary;
    for (std::int64_t d = 0; d < 50; ++d)
        fifty.docs.appendRow(first.docs.rowCols(d), first.docs.rowCounts(d));
    CorpusOptions o = CorpusOptions::fromParams(p.data.settings);
    const CountDataPtr inMemory = makeCorpusData(fifty, o);
    QCOMPARE(head.testRows, inMemory->testRows);
    QVERIFY(sameRows(head.train, inMemory->train) && sameRows(head.heldOut, inMemory->heldOut));

    // Other trainers refuse the stream; LDA's streaming VB reads it to its end.
    const Registry& r = builtinRegistry();
    for (const char* model : {"lda", "hdp", "ctm", "hpf"}) {
        const AlgorithmEntry* e = r.defaultAlgorithm(model);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 e->make(p.built.data, defaultValues(e->params), 1));
    }
    LdaOptions lo;
    lo.K = 1;
    lo.minibatch = 64;
    LdaTrainer t(p.built.data.counts, LdaAlgorithm::Streaming, lo, 3);
    QVERIFY(!t.resumable());
    // A second trainer on the same data would see only the stream's rest: refused.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             LdaTrainer(p.built.data.counts, LdaAlgorithm::Streaming, lo, 3));
    std::int64_t steps = 0;
    while (!t.exhausted())
        t.step(++steps);
    // 40 head training documents and the 250 after the head, 64 a minibatch.
    QCOMPARE(t.itemsSeen(steps), std::int64_t(290));
    QCOMPARE(steps, std::int64_t(5));
    Eigen::VectorXd expected = Eigen::VectorXd::Constant(30, lo.eta);
    for (std::int64_t d = 0; d < first.documents(); ++d) {
        if (d < 50 && head.isTestRow(d))
            continue;
        const auto cols = first.docs.rowCols(d);
        const auto c = first.docs.rowCounts(d);
        for (std::size_t i = 0; i < cols.size(); ++i)
            expected[cols[i]] += c[i];
    }
    QVERIFY((t.lambdaT().col(0) - expected).cwiseAbs().maxCoeff() < 1e-9 * expected.maxCoeff());
    const Evaluation ev = t.evaluate(true);
    QVERIFY(!ev.hasBound);                       // a stream's length is unknown: no bound
    QVERIFY(ev.metrics.count("perplexity") > 0); // scored on the head's test documents
}

QTEST_GUILESS_MAIN(TestCorpusStream)
#include "test_corpus_stream.moc"
