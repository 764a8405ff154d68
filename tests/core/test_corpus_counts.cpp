// Corpora of counts: the LDA-C and UCI bag-of-words readers, their vocabularies, and the
// messages for bad input, down to the line and the field.

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

class TestCorpusCounts : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }
    void ldacReads();
    void ldacFindsItsVocabulary();
    void ldacErrors_data();
    void ldacErrors();
    void vocabularyErrors();
    void knowceansVocabulary();
    void uciReads();
    void uciErrors_data();
    void uciErrors();
    void sizesAreNotTakenOnTrust();

private:
    QString write(const QString& name, const QByteArray& bytes)
    {
        return m_files.write(name, bytes);
    }
    TempFiles m_files;
};

// --- LDA-C and UCI -----------------------------------------------------------------------------

void TestCorpusCounts::ldacReads()
{
    // Blank lines are skipped; "0" is an empty document; pairs come in any order; the
    // vocabulary has trailing spaces and CRLF.
    const QByteArray counts = "3 5:1 0:1 2:2\n0\n\n2 1:4 0:1\n";
    const QString vocab = write("ldac1/words.txt", "a \r\nb\r\nc\r\nd\r\ne\r\nf\r\n");
    const QString path = write("ldac1/docs.ldac", counts);
    const Corpus c = readLdac(std8(path), std8(vocab));
    QCOMPARE(c.documents(), std::int64_t(3));
    QCOMPARE(list(c.vocabulary), QStringList({"a", "b", "c", "d", "e", "f"}));
    QCOMPARE(c.docs.rowStart, (std::vector<std::int64_t>{0, 3, 3, 5}));
    QCOMPARE(c.docs.cols, (std::vector<std::int32_t>{0, 2, 5, 0, 1}));
    QCOMPARE(c.docs.counts, (std::vector<float>{1, 2, 1, 1, 4}));
    QVERIFY(c.docNames.empty());
    const CorpusStats s = c.stats();
    QCOMPARE(s.tokens, std::int64_t(9));
    QCOMPARE(s.emptyDocuments, std::int64_t(1));

    // Gzipped, the same.
    const QString gz = m_files.filePath("ldac1/docs.ldac.gz");
    QVERIFY(writeGzip(gz, counts));
    QVERIFY(sameCounts(readLdac(std8(gz), std8(vocab)).docs, c.docs));

    // Without a vocabulary: words named by their ids, V = the largest id + 1.
    const QString alone = write("ldac2/docs.ldac", counts);
    const Corpus n = readLdac(std8(alone));
    QCOMPARE(list(n.vocabulary), QStringList({"0", "1", "2", "3", "4", "5"}));
    QVERIFY(sameCounts(n.docs, c.docs));
}

void TestCorpusCounts::ldacFindsItsVocabulary()
{
    const QString a = write("find1/corpus.dat", "1 1:2\n");
    write("find1/vocab.txt", "x\ny\n");
    QCOMPARE(str(findVocabulary(std8(a))), m_files.filePath("find1/vocab.txt"));
    QCOMPARE(list(readLdac(std8(a)).vocabulary), QStringList({"x", "y"}));
    // <stem>.vocab is preferred to vocab.txt.
    write("find1/corpus.vocab", "p\nq\nr\n");
    QCOMPARE(list(readLdac(std8(a)).vocabulary), QStringList({"p", "q", "r"}));
    const QString b = write("find2/other.ldac", "1 0:1\n");
    QCOMPARE(str(findVocabulary(std8(b))), QString());
    const QString d = write("find3/docword.kos.txt", "1\n1\n1\n1 1 1\n");
    write("find3/vocab.kos.txt", "w\n");
    QCOMPARE(str(findVocabulary(std8(d))), m_files.filePath("find3/vocab.kos.txt"));
}

void TestCorpusCounts::ldacErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("malformed id") << QByteArray("2 0:1 3x:2\n")
                                  << "line 1, pair 2 ('3x:2'): word id '3x' is not a whole number";
    QTest::newRow("no colon") << QByteArray("1 0:1\n1 5\n")
                              << "line 2, pair 1 ('5'): expected id:count";
    QTest::newRow("two colons") << QByteArray("1 5:1:2\n")
                                << "line 1, pair 1 ('5:1:2'): expected id:count";
    QTest::newRow("id beyond the vocabulary")
        << QByteArray("1 0:1\n2 1:1 6:1\n")
        << "line 2, pair 2 ('6:1'): word id 6 is beyond the vocabulary";
    QTest::newRow("N does not match")
        << QByteArray("3 0:1 1:1\n")
        << "line 1, field 1 (N, the number of id:count pairs): N = 3, but 2 pairs follow";
    QTest::newRow("N not a number") << QByteArray("x 0:1\n")
                                    << "line 1, field 1 (N, the number of id:count pairs): 'x' is "
                                       "not a whole number";
    QTest::newRow("zero count") << QByteArray("1 0:0\n")
                                << "line 1, pair 1 ('0:0'): count 0, but counts must be ≥ 1";
    QTest::newRow("negative count")
        << QByteArray("1 0:-1\n") << "line 1, pair 1 ('0:-1'): count '-1' is not a whole number";
    QTest::newRow("fractional count")
        << QByteArray("1 0:1.5\n") << "line 1, pair 1 ('0:1.5'): count '1.5' is not a whole number";
    QTest::newRow("repeated word")
        << QByteArray("3 1:1 2:1 1:2\n")
        << "line 1, pair 3 ('1:2'): word id 1 appears twice (also pair 1)";
    QTest::newRow("lines counted with blank ones")
        << QByteArray("1 0:1\n\n1 9:1\n") << "line 3, pair 1 ('9:1'): word id 9 is beyond";
    QTest::newRow("empty file") << QByteArray() << "no documents (the file is empty)";
}

void TestCorpusCounts::ldacErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    static int n = 0;
    const QString folder = "ldacbad" + QString::number(++n);
    write(folder + "/vocab.txt", "a\nb\nc\nd\ne\nf\n");
    const QString path = write(folder + "/bad.ldac", text);
    const QString msg = errorOf([&] { readLdac(std8(path)); });
    QVERIFY2(msg.startsWith("cannot read '" + path + "'"), qPrintable(msg));
    QVERIFY2(msg.contains(expected), qPrintable(msg));
}

void TestCorpusCounts::vocabularyErrors()
{
    const QString v = write("vocabbad/vocab.txt", "a\n\nb\n\n\n");
    const QString msg = errorOf([&] { readVocabulary(std8(v)); });
    QVERIFY2(msg.startsWith("cannot read '" + v + "' line 2: blank"), qPrintable(msg));
    const QString e = write("vocabbad/empty.vocab", "\n \n");
    QCOMPARE(errorOf([&] { readVocabulary(std8(e)); }),
             "cannot read '" + e + "': no words (the vocabulary is empty)");
    // Trailing blank lines are fine; Latin-1 is converted.
    const QString l = write("vocabbad/latin.vocab", "caf\xE9\nb\n\n");
    QCOMPARE(list(readVocabulary(std8(l))), QStringList({QString::fromUtf8("café"), "b"}));
    // A vocabulary file that does not exist.
    const QString missing = m_files.filePath("vocabbad/none.txt");
    QCOMPARE(errorOf([&] { readLdac(std8(write("vocabbad/x.ldac", "1 0:1\n")), std8(missing)); }),
             "cannot read '" + missing + "': file does not exist");
}

// The NIPS 0–12 release of Knowceans: nips.corpus (LDA-C, 0-based ids) beside nips.vocab, whose
// CRLF lines are "word = id = tf df": the word is placed by its id, the counts are not words.
void TestCorpusCounts::knowceansVocabulary()
{
    const QString corpus = write("nips/nips.corpus", "2 0:2 3:1\n3 1:1 2:4 4:1\n1 3:2\n");
    // The ids in an order of their own, so that placing by line would be wrong.
    write("nips/nips.vocab", "network = 0 = 19882 1395\r\nlearning = 2 = 8000 1100\r\n"
                             "model = 1 = 9000 1200\r\nneural = 3 = 7000 1000\r\n"
                             "input = 4 = 6000 900\r\n");
    QCOMPARE(str(findVocabulary(std8(corpus))), m_files.filePath("nips/nips.vocab"));
    const Corpus c = loadCorpus({std8(corpus)});
    QCOMPARE(list(c.vocabulary), QStringList({"network", "model", "learning", "neural", "input"}));
    QCOMPARE(wordCounts(c, 1),
             (std::map<std::string, float>{{"model", 1}, {"learning", 4}, {"input", 1}}));

    // The ids must be 0 … V−1, each once; the message names the line and the id.
    const QString twice =
        write("nipsbad/twice.vocab", "a = 0 = 5 1\r\nb = 1 = 4 1\r\nc = 1 = 3 1\r\n");
    QCOMPARE(errorOf([&] { readVocabulary(std8(twice)); }),
             "cannot read '" + twice +
                 "' line 3: id 1 again (also line 2): each id of a 'word = id = tf df' "
                 "vocabulary names one word");
    const QString beyond = write("nipsbad/beyond.vocab", "a = 0 = 5 1\nb = 7 = 4 1\n");
    QCOMPARE(errorOf([&] { readVocabulary(std8(beyond)); }),
             "cannot read '" + beyond +
                 "' line 2: id 7, but the 2 lines of a 'word = id = tf df' vocabulary have ids "
                 "0 to 1");
    // One line of another shape: every line is a word, as in any vocabulary.
    const QString mixed = write("nipsbad/mixed.vocab", "a = 0 = 5 1\nb\n");
    QCOMPARE(list(readVocabulary(std8(mixed))), QStringList({"a = 0 = 5 1", "b"}));
}

void TestCorpusCounts::uciReads()
{
    const QByteArray header = "3\n5\n4\n";
    write("uci1/vocab.t.txt", "apple\nbanana\ncherry\ndurian\nelder\n");
    const QString sorted = write("uci1/docword.t.txt", header + "1 1 2\n1 3 1\n3 5 1\n3 2 4\n");
    const Corpus c = readUciBagOfWords(std8(sorted));
    QCOMPARE(c.documents(), std::int64_t(3));
    QCOMPARE(list(c.vocabulary), QStringList({"apple", "banana", "cherry", "durian", "elder"}));
    QCOMPARE(c.docs.rowStart, (std::vector<std::int64_t>{0, 2, 2, 4}));
    QCOMPARE(c.docs.cols, (std::vector<std::int32_t>{0, 2, 1, 4}));
    QCOMPARE(c.docs.counts, (std::vector<float>{2, 1, 4, 1}));
    QCOMPARE(c.stats().emptyDocuments, std::int64_t(1));

    // Any order of triples gives the same rows.
    const QString shuffled = write("uci2/docword.t.txt", header + "3 5 1\n1 3 1\n3 2 4\n\n1 1 2\n");
    const Corpus s = readUciBagOfWords(std8(shuffled), std8(m_files.filePath("uci1/vocab.t.txt")));
    QVERIFY(sameCounts(s.docs, c.docs));
    QCOMPARE(list(s.vocabulary), list(c.vocabulary));

    // Gzipped docword with its vocabulary beside; and no vocabulary: ids from 1.
    QVERIFY(writeGzip(m_files.filePath("uci1/docword.g.txt.gz"),
                      header + "1 1 2\n1 3 1\n3 5 1\n3 2 4\n"));
    write("uci1/vocab.g.txt", "apple\nbanana\ncherry\ndurian\nelder\n");
    const Corpus g = readUciBagOfWords(std8(m_files.filePath("uci1/docword.g.txt.gz")));
    QVERIFY(sameCounts(g.docs, c.docs));
    QCOMPARE(str(g.vocabulary[4]), QString("elder"));
    QCOMPARE(list(readUciBagOfWords(std8(shuffled)).vocabulary),
             QStringList({"1", "2", "3", "4", "5"}));
}

void TestCorpusCounts::uciErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("W differs from the vocabulary")
        << QByteArray("3\n6\n1\n1 1 1\n")
        << "line 2, field 1, W (the number of words): W = 6, but the vocabulary";
    QTest::newRow("NNZ differs")
        << QByteArray("3\n5\n5\n1 1 2\n1 3 1\n3 5 1\n3 2 4\n")
        << "line 3, field 1, NNZ (the number of entries): NNZ = 5, but 4 entries follow";
    QTest::newRow("document beyond D") << QByteArray("3\n5\n1\n4 1 1\n")
                                       << "line 4, column 1 (docID): 4, but must be in [1, 3] "
                                          "(D on line 1)";
    QTest::newRow("word 0") << QByteArray("3\n5\n1\n1 0 1\n")
                            << "line 4, column 2 (wordID): 0, but must be in [1, 5]";
    QTest::newRow("malformed word id")
        << QByteArray("3\n5\n1\n1 x 2\n") << "line 4, column 2 (wordID): 'x' is not a whole number";
    QTest::newRow("zero count") << QByteArray("3\n5\n1\n1 2 0\n")
                                << "line 4, column 3 (count): 0, but must be in [1, ";
    QTest::newRow("two fields") << QByteArray("3\n5\n1\n1 2\n")
                                << "line 4: 2 fields, but an entry is 'docID wordID count'";
    QTest::newRow("repeated entry") << QByteArray("3\n5\n2\n1 1 2\n1 1 3\n")
                                    << "line 5: document 1, word 1 appears twice (also line 4)";
    QTest::newRow("repeated entry, out of order") << QByteArray("3\n5\n3\n2 1 2\n1 4 1\n2 1 3\n")
                                                  << "line 6: document 2, word 1 appears twice";
    QTest::newRow("header cut short")
        << QByteArray("3\n5\n") << "the header ends before NNZ (the number of entries)";
    QTest::newRow("header with two numbers")
        << QByteArray("3 5\n1\n")
        << "line 1: 2 fields, but the header line D (the number of "
           "documents) holds one number";
}

void TestCorpusCounts::uciErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    static int n = 0;
    const QString folder = "ucibad" + QString::number(++n);
    write(folder + "/vocab.b.txt", "a\nb\nc\nd\ne\n");
    const QString path = write(folder + "/docword.b.txt", text);
    const QString msg = errorOf([&] { readUciBagOfWords(std8(path)); });
    QVERIFY2(msg.startsWith("cannot read '" + path + "'"), qPrintable(msg));
    QVERIFY2(msg.contains(expected), qPrintable(msg));
}

// A corrupt number must not make a reader allocate for it: without a vocabulary the words are
// named by their ids (up to 2²² of them), and a UCI header's D is bounded. (Tar headers that
// claim gigabytes are in the fuzzers' regression inputs.)
void TestCorpusCounts::sizesAreNotTakenOnTrust()
{
    const QString ldac = write("trust/huge.ldac", "2 3:1 4194304:1\n");
    QString msg = errorOf([&] { readLdac(std8(ldac)); });
    QVERIFY2(msg.contains("line 1, pair 2 ('4194304:1'): word id 4194304 is beyond 4194303, the "
                          "largest accepted without a vocabulary file"),
             qPrintable(msg));
    const Corpus c = readLdac(std8(write("trust2/wide.ldac", "1 99999:2\n")));
    QCOMPARE(c.vocabularySize(), std::int64_t(100000));
    QCOMPARE(str(c.vocabulary.back()), QString("99999"));

    const QString d = write("trust3/docword.d.txt", "2147483647\n1\n1\n2000000000 1 1\n");
    msg = errorOf([&] { readUciBagOfWords(std8(d)); });
    QVERIFY2(msg.contains("line 1, field 1, D (the number of documents): D = 2147483647, but at "
                          "most 33554432 documents are read"),
             qPrintable(msg));
    const QString w = write("trust4/docword.w.txt", "1\n2147483646\n1\n1 1 1\n");
    msg = errorOf([&] { readUciBagOfWords(std8(w)); });
    QVERIFY2(msg.contains("line 2, field 1, W (the number of words): W = 2147483646, but 4194304 "
                          "is the largest accepted without a vocabulary file"),
             qPrintable(msg));
}

QTEST_GUILESS_MAIN(TestCorpusCounts)
#include "test_corpus_counts.moc"
