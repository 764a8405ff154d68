// Data files recognised by their content whatever their name (recogniseFile), and read end to
// end by the normal readers under such names: FCS as .B08, .001, .lmd and without a suffix; a
// gzipped CSV with and without .gz; a tar archive without .tar; LDA-C as .txt with its
// vocabulary beside it and UCI counts under another name; a PNG as .dat and .jpg; MovieLens
// u.data and ratings.dat under other names. Then the ties the name breaks, content that is
// nothing svi reads (Unknown), and a missing file (an error naming it). The files are copies of
// tests/data made under new names at test time, or written here.

#include "core/data/corpus.h"
#include "core/data/ratings.h"
#include "core/io/corpus_files.h"
#include "core/io/data_files.h"
#include "core/io/fcs_file.h"
#include "core/io/graph_files.h"
#include "core/io/image_file.h"
#include "core/io/labelled_files.h"
#include "core/io/ratings_files.h"
#include "core/io/sniff.h"
#include "tests/core/data_testing.h"

#include <QFile>
#include <QtTest>
#include <cstdint>

using namespace svi;
using namespace data_testing;

Q_DECLARE_METATYPE(svi::DataFileKind)

namespace {

} // namespace

class TestSniff : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void fcsWhateverItsName_data();
    void fcsWhateverItsName();
    void gzipByItsMagic();
    void gzipAroundAnyFormat();
    void tarWithoutTar();
    void countsUnderOtherNames();
    void imageByItsContent();
    void ratingsUnderOtherNames();
    void libsvmAgainstLdac_data();
    void libsvmAgainstLdac();
    void tiesTheNameBreaks_data();
    void tiesTheNameBreaks();
    void foldersByWhatTheyHold();
    void unknownContent();
    void missingFile();

private:
    // A copy of tests/data/<from> named `to` in the temporary folder.
    QString copy(const QString& from, const QString& to) const;

    TempFiles m_files;
};

QString TestSniff::copy(const QString& from, const QString& to) const
{
    return m_files.write(to, readBytes(dataFile(from)));
}

void TestSniff::initTestCase()
{
    QVERIFY(m_files.valid());
}

void TestSniff::fcsWhateverItsName_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow(".B08") << "cells.B08";
    QTest::newRow(".001") << "cells.001";
    QTest::newRow(".lmd") << "cells.lmd";
    QTest::newRow("no suffix") << "cells";
    QTest::newRow("a table's suffix") << "cells.csv";
}

void TestSniff::fcsWhateverItsName()
{
    QFETCH(QString, name);
    const QString original = "fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    const std::string path = std8(copy(original, "fcs/" + name));
    const FileFormat f = recogniseFile(path);
    QCOMPARE(f.kind, DataFileKind::Fcs);
    QCOMPARE(str(f.name), QString("FCS 3.0"));
    QCOMPARE(dataFileKind(path), DataFileKind::Fcs);
    const Table t = loadTable({path});
    const Table expected = readFcs(std8(dataFile(original))).table;
    QCOMPARE(t.rows(), std::int64_t(234));
    QCOMPARE(t.cols(), 30);
    QCOMPARE(t.columns, expected.columns);
    QVERIFY(t.values == expected.values);
    // Several such files stack as FCS files do.
    QCOMPARE(loadTable({path, path}).rows(), std::int64_t(2 * 234));
}

void TestSniff::gzipByItsMagic()
{
    const QString original = "ALL_exprs_head50.csv.gz";
    const Table expected = readTableFile(std8(dataFile(original)));
    QCOMPARE(expected.rows(), std::int64_t(50));
    for (const QString& name : {QString("expr.csv.gz"), QString("expr.data"), QString("expr")}) {
        const std::string path = std8(copy(original, "gz/" + name));
        const FileFormat f = recogniseFile(path);
        QCOMPARE(f.kind, DataFileKind::Delimited);
        QCOMPARE(str(f.name), QString("gzip'd CSV"));
        const Table t = loadTable({path});
        QCOMPARE(t.rows(), std::int64_t(50));
        QCOMPARE(t.cols(), 128);
        QCOMPARE(t.rowNames, expected.rowNames);
        QVERIFY(t.values == expected.values);
    }
    // Plain text stays plain text whatever the name says: a .gz that is not gzipped.
    const std::string plain = std8(m_files.write("gz/plain.csv.gz", "a;b\n1,5;2\n3;4\n"));
    QCOMPARE(str(recogniseFile(plain).name), QString("semicolon-separated table"));
    QCOMPARE(loadTable({plain}).values(0, 0), 1.5f);
}

// Gzip is transparent for every kind: recognised by its magic bytes (not the name), the inner
// content recognised as usual and read by its reader, whether it reads text in one pass (GML,
// LIBSVM) or seeks (FCS, images: inflated into memory). The gzip members are zlib's own.
void TestSniff::gzipAroundAnyFormat()
{
    const QString fcs = "fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    QVERIFY(QDir().mkpath(m_files.filePath("anygz")));
    const QString fcsGz = m_files.filePath("anygz/cells"); // no suffix at all
    QVERIFY(writeGzip(fcsGz, readBytes(dataFile(fcs))));
    QCOMPARE(recogniseFile(std8(fcsGz)).kind, DataFileKind::Fcs);
    QCOMPARE(str(recogniseFile(std8(fcsGz)).name), QString("gzip'd FCS 3.0"));
    const FcsFile plainFcs = readFcs(std8(dataFile(fcs)));
    const FcsFile inflated = readFcs(std8(fcsGz));
    QVERIFY(inflated.gzip && !plainFcs.gzip);
    QCOMPARE(inflated.names, plainFcs.names);
    QVERIFY(inflated.table.values == plainFcs.table.values);
    QCOMPARE(loadTable({std8(fcsGz)}).rows(), std::int64_t(234));

    const QString gml = m_files.filePath("anygz/karate.gml.gz");
    QVERIFY(writeGzip(gml, readBytes(dataFile("graphs/karate_newman.gml"))));
    QCOMPARE(recogniseFile(std8(gml)).kind, DataFileKind::Gml);
    QCOMPARE(str(recogniseFile(std8(gml)).name), QString("gzip'd GML graph"));
    const GraphFile g = readGraphFile(std8(gml));
    QCOMPARE(g.graph.nodes, 34);
    QCOMPARE(g.graph.links.size(), std::size_t(78));

    const QString svm = m_files.filePath("anygz/a9a.gz");
    QVERIFY(writeGzip(svm, readBytes(dataFile("labelled/a9a_head200"))));
    QCOMPARE(recogniseFile(std8(svm)).kind, DataFileKind::Libsvm);
    QCOMPARE(str(recogniseFile(std8(svm)).name), QString("gzip'd LIBSVM text"));
    QCOMPARE(readLabelledFiles({std8(svm)}, {}).rows(), std::int64_t(200));

    const QString png = m_files.filePath("anygz/coins.png.gz");
    QVERIFY(writeGzip(png, readBytes(dataFile("coins.png"))));
    QCOMPARE(recogniseFile(std8(png)).kind, DataFileKind::Image);
    QVERIFY((loadGrayImage(std8(png)) == loadGrayImage(std8(dataFile("coins.png")))).all());

    // A gzip'd FCS file cut short: the FCS reader names the file and says it is inside gzip.
    QByteArray cut = readBytes(dataFile(fcs));
    cut.chop(4000);
    const QString cutGz = m_files.filePath("anygz/cut.fcs.gz");
    QVERIFY(writeGzip(cutGz, cut));
    QVERIFY(str(recogniseFile(std8(cutGz)).name).startsWith("gzip'd FCS"));
    const QString msg = errorOf([&] { readFcs(std8(cutGz)); });
    QVERIFY2(msg.startsWith("cannot read '" + cutGz + "' (gzip of an FCS file): ") &&
                 msg.contains("truncated"),
             qPrintable(msg));
}

void TestSniff::tarWithoutTar()
{
    const QString original = "text/news_sample_ustar.tar.gz";
    const Corpus expected = loadCorpus({std8(dataFile(original))});
    QCOMPARE(expected.documents(), std::int64_t(8));

    const std::string gz = std8(copy(original, "tar/news"));
    QCOMPARE(recogniseFile(gz).kind, DataFileKind::Corpus);
    QCOMPARE(str(recogniseFile(gz).name), QString("gzip'd tar archive of text"));
    QCOMPARE(corpusFormatOf(gz), std::optional<CorpusFormat>(CorpusFormat::TextArchive));
    const Corpus a = loadCorpus({gz});
    QCOMPARE(a.documents(), expected.documents());
    QCOMPARE(a.vocabulary, expected.vocabulary);

    // The same archive without gzip, named as nothing in particular.
    const QByteArray tar = gunzip(dataFile(original));
    QVERIFY(tar.size() > 1024);
    const std::string plain = std8(m_files.write("tar/news.bundle", tar));
    QCOMPARE(str(recogniseFile(plain).name), QString("tar archive of text"));
    CorpusReadOptions train;
    train.subset = "train";
    const Corpus b = loadCorpus({plain}, train);
    QCOMPARE(b.documents(), loadCorpus({std8(dataFile(original))}, train).documents());
    QVERIFY(b.documents() < expected.documents());
}

void TestSniff::countsUnderOtherNames()
{
    // LDA-C as .txt, its vocabulary beside it found by name (vocab.txt).
    const std::string ldac = std8(m_files.write("ldac/ap.txt", "2 0:1 2:3\n\n1 1:2\n"));
    m_files.write("ldac/vocab.txt", "alpha\nbeta\ngamma\n");
    QCOMPARE(recogniseFile(ldac).kind, DataFileKind::Corpus);
    QCOMPARE(str(recogniseFile(ldac).name), QString("LDA-C"));
    const Corpus c = loadCorpus({ldac});
    QCOMPARE(list(c.vocabulary), QStringList({"alpha", "beta", "gamma"}));
    QCOMPARE(c.documents(), std::int64_t(2));
    QCOMPARE(c.docs.rowCols(0).size(), std::size_t(2));
    QCOMPARE(c.docs.rowCounts(0)[1], 3.0f); // word 2 (gamma) three times
    QCOMPARE(c.docs.rowCols(1)[0], 1);
    // Given with its vocabulary, in either order.
    QCOMPARE(loadCorpus({std8(m_files.filePath("ldac/vocab.txt")), ldac}).vocabularySize(),
             std::int64_t(3));

    // UCI counts under a name that is not docword.*.txt: words numbered 1…W.
    const std::string uci =
        std8(m_files.write("uci/kos_counts.txt", "2\n3\n3\n1 1 2\n1 3 1\n2 2 5\n"));
    QCOMPARE(str(recogniseFile(uci).name), QString("UCI bag-of-words"));
    const Corpus u = loadCorpus({uci});
    QCOMPARE(u.documents(), std::int64_t(2));
    QCOMPARE(list(u.vocabulary), QStringList({"1", "2", "3"}));
    QCOMPARE(u.docs.rowCounts(1)[0], 5.0f);

    // Gzipped LDA-C named as nothing in particular.
    QVERIFY(QDir().mkpath(m_files.filePath("ldacgz")));
    QVERIFY(writeGzip(m_files.filePath("ldacgz/counts"), "1 4:2\n1 0:1\n"));
    const std::string gz = std8(m_files.filePath("ldacgz/counts"));
    QCOMPARE(str(recogniseFile(gz).name), QString("gzip'd LDA-C"));
    QCOMPARE(loadCorpus({gz}).vocabularySize(), std::int64_t(5));

    // A lone .dat that is not LDA-C by its content is still read as LDA-C, for the message.
    const std::string bad = std8(m_files.write("ldacbad/c.dat", "3 0:1 1:1\n"));
    const QString msg = errorOf([&] { loadCorpus({bad}); });
    QVERIFY2(msg.contains("N = 3, but 2 pairs follow"), qPrintable(msg));
}

void TestSniff::imageByItsContent()
{
    const Eigen::ArrayXXf expected = loadGrayImage(std8(dataFile("coins.png")));
    for (const QString& name : {QString("coins.dat"), QString("coins.jpg"), QString("coins")}) {
        const std::string path = std8(copy("coins.png", "img/" + name));
        const FileFormat f = recogniseFile(path);
        QCOMPARE(f.kind, DataFileKind::Image);
        QCOMPARE(str(f.name), QString("PNG image"));
        const Eigen::ArrayXXf img = loadGrayImage(path);
        QCOMPARE(img.rows(), Eigen::Index(303));
        QCOMPARE(img.cols(), Eigen::Index(384));
        QVERIFY((img == expected).all());
    }
    // An image is not a table, and loadTable says what it is.
    const QString msg = errorOf([&] { loadTable({std8(m_files.filePath("img/coins.dat"))}); });
    QVERIFY2(msg.contains("it is an image (PNG image)"), qPrintable(msg));
}

void TestSniff::ratingsUnderOtherNames()
{
    const std::string tab = std8(copy("ratings/ml100k_style/u.data", "r/scores.log"));
    QCOMPARE(recogniseFile(tab).kind, DataFileKind::Ratings);
    QCOMPARE(str(recogniseFile(tab).name), QString("MovieLens u.data"));
    const Ratings r = loadRatings(tab);
    QCOMPARE(r.entries.size(), std::size_t(17));
    QCOMPARE(r.users(), std::int64_t(4));

    // ratings.dat's "::" lines under a table's name still are ratings: no table reads "::".
    const std::string dat = std8(copy("ratings/ml1m_style/ratings.dat", "r/ml1m.txt"));
    QCOMPARE(str(recogniseFile(dat).name), QString("MovieLens ratings.dat"));
    QCOMPARE(loadRatings(dat).entries.size(), std::size_t(8));

    // A file named u.data holding "::" lines is read as what it holds.
    const std::string named = std8(copy("ratings/ml1m_style/ratings.dat", "r2/u.data"));
    QCOMPARE(ratingsFormatOf(named), std::optional<RatingsFormat>(RatingsFormat::Dat));
    QCOMPARE(loadRatings(named).entries.size(), std::size_t(8));

    // Gzipped under another name.
    QVERIFY(QDir().mkpath(m_files.filePath("r3")));
    QVERIFY(writeGzip(m_files.filePath("r3/ratings"),
                      readBytes(dataFile("ratings/mllatest_style/ratings.csv"))));
    const std::string gz = std8(m_files.filePath("r3/ratings"));
    QCOMPARE(str(recogniseFile(gz).name), QString("gzip'd MovieLens ratings.csv"));
    QCOMPARE(loadRatings(gz).entries.size(), std::size_t(7));
}

// LIBSVM lines ("label idx:val …", indices from 1 increasing) and LDA-C lines ("N id:count …",
// N the number of pairs, ids from 0) look alike: LDA-C keeps what is both.
void TestSniff::libsvmAgainstLdac_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<DataFileKind>("kind");
    QTest::addColumn<QString>("what");
    const QByteArray a9a = "-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 "
                           "83:1 \n+1 5:1 7:1 14:1 19:1 39:1 40:1 51:1 63:1 67:1 73:1 74:1 76:1 "
                           "78:1 83:1 \n";
    QTest::newRow("a9a") << "a9a" << a9a << DataFileKind::Libsvm << "LIBSVM text";
    QTest::newRow("a9a, .txt") << "a9a.txt" << a9a << DataFileKind::Libsvm << "LIBSVM text";
    QTest::newRow("a9a, .csv") << "a9a.csv" << a9a << DataFileKind::Libsvm << "LIBSVM text";
    QTest::newRow("regression") << "cadata"
                                << QByteArray("452600 1:8.3252 2:41 3:880 4:129 5:322 6:126 "
                                              "7:37.88 8:-122.23\n358500 1:8.3014 2:21 3:7099 "
                                              "4:1106 5:2401 6:1138 7:37.86 8:-122.22\n")
                                << DataFileKind::Libsvm << "LIBSVM text";
    QTest::newRow("comments, CRLF, blank lines")
        << "s" << QByteArray("# made by hand\r\n+1 1:0.5 3:-2e-3 # a note\r\n\r\n-1\r\n")
        << DataFileKind::Libsvm << "LIBSVM text";
    QTest::newRow("LDA-C") << "ap" << QByteArray("2 0:1 6144:3\n1 12:2\n") << DataFileKind::Corpus
                           << "LDA-C";
    // Both: N equals the pairs and the ids happen to count from 1 in order.
    QTest::newRow("both") << "both" << QByteArray("2 1:1 3:2\n1 4:1\n") << DataFileKind::Corpus
                          << "LDA-C";
    // LDA-C with a bad N whose name says LDA-C: its reader says what is wrong.
    QTest::newRow("bad N, .ldac") << "c.ldac" << QByteArray("3 1:1 2:1\n") << DataFileKind::Corpus
                                  << "LDA-C (by its name)";
    QTest::newRow("index 0") << "z" << QByteArray("1 0:1 2:1\n") << DataFileKind::Unknown << "text";
    QTest::newRow("decreasing") << "d" << QByteArray("1 3:1 2:1\n-1 1:1 4:1\n")
                                << DataFileKind::Unknown << "text";
    QTest::newRow("no pair") << "n" << QByteArray("1\n-1\n") << DataFileKind::Delimited
                             << "one-column table";
}

void TestSniff::libsvmAgainstLdac()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(DataFileKind, kind);
    QFETCH(QString, what);
    const QString folder = "libsvm/" + QString(QTest::currentDataTag()) + "/";
    const std::string path = std8(m_files.write(folder + name, bytes));
    const FileFormat f = recogniseFile(path);
    QCOMPARE(f.kind, kind);
    QCOMPARE(str(f.name), what);
    if (kind != DataFileKind::Libsvm)
        return;
    const QString gz = m_files.filePath(folder + "packed");
    QVERIFY(writeGzip(gz, bytes));
    QCOMPARE(str(recogniseFile(std8(gz)).name), "gzip'd " + what);
    QCOMPARE(recogniseFile(std8(dataFile("labelled/a9a_head200"))).kind, DataFileKind::Libsvm);
}

void TestSniff::tiesTheNameBreaks_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<DataFileKind>("kind");
    QTest::addColumn<QString>("what");
    // Whole numbers separated by TAB: u.data's layout, or a headerless table's.
    const QByteArray tabs = "1\t2\t3\t4\n5\t6\t7\t8\n";
    QTest::newRow("TAB numbers, .tsv") << "m.tsv" << tabs << DataFileKind::Delimited << "TSV";
    QTest::newRow("TAB numbers, .txt") << "m.txt" << tabs << DataFileKind::Delimited << "TSV";
    QTest::newRow("TAB numbers, other name")
        << "m.data" << tabs << DataFileKind::Ratings << "MovieLens u.data";
    QTest::newRow("MovieLens header, .csv")
        << "r.csv" << QByteArray("userId,movieId,rating\n1,2,3\n") << DataFileKind::Ratings
        << "MovieLens ratings.csv";
    // "BM" starts a BMP image, and this header.
    QTest::newRow("BMI column") << "bmi" << QByteArray("BMI,age\n21.5,40\n23,51\n")
                                << DataFileKind::Delimited << "CSV";
    // "P1" starts a PBM image, and this header.
    QTest::newRow("P1 column") << "p" << QByteArray("P1\tP2\n1\t2\n3\t4\n")
                               << DataFileKind::Delimited << "TSV";
    QTest::newRow("row names, header one short")
        << "expr" << QByteArray("s1,s2\ng1,1.5,2\ng2,NA,4\n") << DataFileKind::Delimited << "CSV";
    QTest::newRow("one column") << "col" << QByteArray("x\n1\n2.5\n\n3\n")
                                << DataFileKind::Delimited << "one-column table";
    // "0" lines: one column, or LDA-C documents without words.
    QTest::newRow("zeros") << "zeros" << QByteArray("0\n0\n") << DataFileKind::Delimited
                           << "one-column table";
    QTest::newRow("zeros, .ldac") << "empty.ldac" << QByteArray("0\n0\n") << DataFileKind::Corpus
                                  << "LDA-C (by its name)";
    // Prose: a table only when the name says so (the table reader then names the bad line).
    const QByteArray prose = "Dear all, the orbit\nof the moon, as seen from here, is odd.\n";
    QTest::newRow("prose") << "notes" << prose << DataFileKind::Unknown << "text";
    QTest::newRow("prose, .txt") << "notes.txt" << prose << DataFileKind::Delimited
                                 << "table (by its name)";
    QTest::newRow("prose, .ldac") << "notes.ldac" << prose << DataFileKind::Corpus
                                  << "LDA-C (by its name)";
    // Columns separated by runs of spaces: no reader splits them so.
    QTest::newRow("spaces") << "m.dat" << QByteArray("1 2 3\n4  5 6\n") << DataFileKind::Unknown
                            << "space-separated columns";
    // FCS by name when the HEADER is broken: readFcs then says what is wrong.
    QTest::newRow("broken FCS") << "x.fcs" << QByteArray("oi21j08cn\n") << DataFileKind::Fcs
                                << "FCS (by its name)";
    QTest::newRow("not an FCS HEADER")
        << "x" << QByteArray("FCS3.1    garbage follows\n") << DataFileKind::Unknown << "text";
    // LDA-C whose N does not match its pairs is not LDA-C by its content (loadCorpus still reads
    // a lone .dat as LDA-C, and says what is wrong: countsUnderOtherNames).
    QTest::newRow("bad N") << "c.dat" << QByteArray("3 0:1 1:1\n") << DataFileKind::Unknown
                           << "text";
}

void TestSniff::tiesTheNameBreaks()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(DataFileKind, kind);
    QFETCH(QString, what);
    const std::string path =
        std8(m_files.write("ties/" + QString(QTest::currentDataTag()) + "/" + name, bytes));
    const FileFormat f = recogniseFile(path);
    QCOMPARE(f.kind, kind);
    QCOMPARE(str(f.name), what);
    QCOMPARE(guessFileKind(path), kind);
}

void TestSniff::foldersByWhatTheyHold()
{
    m_files.write("folders/ml/u.data", readBytes(dataFile("ratings/ml100k_style/u.data")));
    const FileFormat ml = recogniseFile(std8(m_files.filePath("folders/ml")));
    QCOMPARE(ml.kind, DataFileKind::Ratings);
    QCOMPARE(str(ml.name), QString("folder with MovieLens u.data"));
    m_files.write("folders/text/a.txt", "orbit engine moon\n");
    m_files.write("folders/text/b/c.md", "orbit engine oil\n");
    const FileFormat text = recogniseFile(std8(m_files.filePath("folders/text")));
    QCOMPARE(text.kind, DataFileKind::Corpus);
    QCOMPARE(str(text.name), QString("folder of text files"));
    CorpusReadOptions all;
    all.tokenizer.minDocumentFrequency = 1;
    QCOMPARE(loadCorpus({std8(m_files.filePath("folders/text"))}, all).documents(),
             std::int64_t(2));
}

void TestSniff::unknownContent()
{
    // Bytes from a fixed linear congruential generator: no signature, not text.
    QByteArray noise(4096, '\0');
    std::uint32_t x = 12345;
    for (char& c : noise) {
        x = x * 1664525u + 1013904223u;
        c = char(x >> 24);
    }
    const std::string bin = std8(m_files.write("unknown/noise.bin", noise));
    const FileFormat f = recogniseFile(bin);
    QCOMPARE(f.kind, DataFileKind::Unknown);
    QCOMPARE(str(f.name), QString("binary data"));
    const QString msg = errorOf([&] { loadTable({bin}); });
    QVERIFY2(msg.contains("cannot read '" + str(bin) + "' as a table: its content (binary data)"),
             qPrintable(msg));
    // The same bytes gzipped.
    QVERIFY(writeGzip(m_files.filePath("unknown/noise.z"), noise));
    QCOMPARE(str(recogniseFile(std8(m_files.filePath("unknown/noise.z"))).name),
             QString("gzip'd binary data"));
    // Gzip data that do not inflate, under a table's name: the table reader says why.
    const QByteArray broken = QByteArray("\x1f\x8b\x08\x00\0\0\0\0\0\x03", 10) + noise.left(100);
    const std::string bad = std8(m_files.write("unknown/broken.csv.gz", broken));
    QCOMPARE(recogniseFile(bad).kind, DataFileKind::Delimited);
    QVERIFY2(errorOf([&] { loadTable({bad}); }).contains("gzip"),
             qPrintable(errorOf([&] { loadTable({bad}); })));

    const std::string empty = std8(m_files.write("unknown/empty", ""));
    QCOMPARE(recogniseFile(empty).kind, DataFileKind::Unknown);
    QCOMPARE(str(recogniseFile(empty).name), QString("empty file"));
    // An empty .csv is the table reader's to report.
    const std::string emptyCsv = std8(m_files.write("unknown/empty.csv", ""));
    QVERIFY(errorOf([&] { loadTable({emptyCsv}); }).contains("the file is empty"));
}

void TestSniff::missingFile()
{
    const std::string path = std8(m_files.filePath("nowhere/cells.fcs"));
    const QString expected = "cannot read '" + str(path) + "': file does not exist";
    QCOMPARE(errorOf([&] { recogniseFile(path); }), expected);
    QCOMPARE(errorOf([&] { dataFileKind(path); }), expected);
    QCOMPARE(errorOf([&] { loadTable({path}); }), expected);
    // A front end choosing a task goes by the name meanwhile.
    QCOMPARE(guessFileKind(path), DataFileKind::Fcs);
    QCOMPARE(guessFileKind(std8(m_files.filePath("nowhere/u.data"))), DataFileKind::Ratings);
    QCOMPARE(guessFileKind(std8(m_files.filePath("nowhere/x.png"))), DataFileKind::Image);
    QCOMPARE(guessFileKind(std8(m_files.filePath("nowhere/x"))), DataFileKind::Unknown);
}

QTEST_GUILESS_MAIN(TestSniff)
#include "test_sniff.moc"
