// Delimited text tables: CSV, TSV and sniffed delimiters with known values; header and row
// names (guessed and forced); quotes, CRLF, BOM, comments, trailing delimiters; missing values;
// gzip (written here with zlib) read exactly as the plain file; transposition; inspection; the
// messages a user sees for bad lines and bad files; and two real files in tests/data, checked
// cell by cell against an independent parse with Qt. With SVI_EXPR_FILE set, the whole ALL
// expression matrix and its load time.

#include "core/io/data_files.h"
#include "core/io/load_control.h"
#include "core/io/table_file.h"
#include "tests/core/data_testing.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <stdexcept>
#include <thread>

using namespace svi;
using namespace data_testing;

namespace {

// An independent reader for plain numeric CSV without quotes in the values (Qt's number
// parser, double then float as the reader does): rows of cells, header and row names kept as
// text.
QList<QList<QByteArray>> splitCsv(const QByteArray& text)
{
    QList<QList<QByteArray>> rows;
    for (const QByteArray& line : text.split('\n'))
        if (!line.isEmpty())
            rows << line.split(',');
    return rows;
}

float qtNumber(const QByteArray& cell)
{
    bool ok = false;
    const double d = cell.toDouble(&ok);
    return ok ? float(d) : std::nanf("");
}

// The message of the DataError that reading `path` throws, or a note that it read.
QString errorOf(const QString& path, const TableReadOptions& options = {})
{
    try {
        readTableFile(path.toStdString(), options);
    } catch (const DataError& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no error: the file was read)";
}

} // namespace

class TestTableFile : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void knownValues_data();
    void knownValues();
    void rowNames_data();
    void rowNames();
    void noHeader();
    void quotedFields();
    void crlfAndBom();
    void commentsAndBlankLines();
    void missingValues();
    void trailingDelimiter();
    void decimalCommaWithSemicolons();
    void gzipReadsLikePlain();
    void longFileAcrossBuffers();
    void lineLongerThanTheBuffer();
    void loadProgressAndCancel();
    void transpose();
    void inspect();
    void errors_data();
    void errors();
    void corruptGzip();
    void missingFileAndFolder();
    void invalidOptions();
    void levineCytof();
    void allExpressionHead();
    void loadTableDispatchesByKind();
    void fullExpressionMatrix();

private:
    QString write(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    QTemporaryDir m_dir;
};

void TestTableFile::knownValues_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<char>("delimiter");
    QTest::newRow("csv") << "a.csv" << QByteArray("CD3,CD4,CD8\n1,2,3\n4.5,-6e-1,+7\n") << ',';
    QTest::newRow("tsv") << "a.tsv" << QByteArray("CD3\tCD4\tCD8\n1\t2\t3\n4.5\t-6e-1\t+7\n")
                         << '\t';
    QTest::newRow("txt is tab") << "a.txt" << QByteArray("CD3\tCD4\tCD8\n1\t2\t3\n4.5\t-6e-1\t+7\n")
                                << '\t';
    QTest::newRow("txt holding csv")
        << "b.txt" << QByteArray("CD3,CD4,CD8\n1,2,3\n4.5,-6e-1,+7\n") << ',';
    QTest::newRow("semicolons, no suffix")
        << "a.dat" << QByteArray("CD3;CD4;CD8\n1;2;3\n4.5;-6e-1;+7\n") << ';';
    QTest::newRow("csv with semicolons")
        << "s.csv" << QByteArray("CD3;CD4;CD8\n1;2;3\n4.5;-6e-1;+7\n") << ';';
    QTest::newRow("spaces around fields")
        << "p.csv" << QByteArray("CD3 , CD4,CD8 \n 1, 2 ,3\n4.5 ,-6e-1,  +7\n") << ',';
    QTest::newRow("no final newline")
        << "n.csv" << QByteArray("CD3,CD4,CD8\n1,2,3\n4.5,-6e-1,+7") << ',';
}

void TestTableFile::knownValues()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(char, delimiter);
    const QString path = write(name, text);
    const Table t = readTableFile(path.toStdString());
    QCOMPARE(t.rows(), std::int64_t(2));
    QCOMPARE(t.cols(), 3);
    QCOMPARE(list(t.columns), QStringList({"CD3", "CD4", "CD8"}));
    QCOMPARE(list(t.markers), QStringList({"", "", ""}));
    QVERIFY(t.rowNames.empty());
    QCOMPARE(str(t.source), path);
    const float expected[2][3] = {{1, 2, 3}, {4.5f, -0.6f, 7}};
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c)
            QCOMPARE(t.values(r, c), expected[r][c]);
    QCOMPARE(inspectTableFile(path.toStdString()).delimiter, delimiter);
    // An explicit delimiter is taken as given.
    TableReadOptions o;
    o.delimiter = delimiter;
    QCOMPARE(readTableFile(path.toStdString(), o).values, t.values);
}

void TestTableFile::rowNames_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("option");
    QTest::addColumn<QStringList>("rowNames"); // empty: no row-name column
    QTest::addColumn<QStringList>("columns");
    QTest::addColumn<float>("lastValue");
    QTest::newRow("empty corner cell")
        << QByteArray(",s1,s2\n10,1,2\n11,3,4\n") << -1 << QStringList({"10", "11"})
        << QStringList({"s1", "s2"}) << 4.0f;
    QTest::newRow("words in the first column")
        << QByteArray("gene,s1,s2\nCD4,1,2\nCD8,3,4\n") << -1 << QStringList({"CD4", "CD8"})
        << QStringList({"s1", "s2"}) << 4.0f;
    QTest::newRow("R write.table: header without the row-name cell")
        << QByteArray("s1,s2\n\"a\",1,2\n\"b\",3,4\n") << -1 << QStringList({"a", "b"})
        << QStringList({"s1", "s2"}) << 4.0f;
    QTest::newRow("numeric ids are values by default")
        << QByteArray("id,x\n10,1\n11,2\n") << -1 << QStringList() << QStringList({"id", "x"})
        << 2.0f;
    QTest::newRow("numeric ids forced as row names")
        << QByteArray("id,x\n10,1\n11,2\n") << 1 << QStringList({"10", "11"}) << QStringList({"x"})
        << 2.0f;
    QTest::newRow("empty corner, forced off: a value column named V1")
        << QByteArray(",s1\n10,1\n11,2\n") << 0 << QStringList() << QStringList({"V1", "s1"})
        << 2.0f;
}

void TestTableFile::rowNames()
{
    QFETCH(QByteArray, text);
    QFETCH(int, option);
    QFETCH(QStringList, rowNames);
    QFETCH(QStringList, columns);
    QFETCH(float, lastValue);
    TableReadOptions o;
    o.rowNames = option;
    const QString path = write("rownames.csv", text);
    const Table t = readTableFile(path.toStdString(), o);
    QCOMPARE(list(t.rowNames), rowNames);
    QCOMPARE(list(t.columns), columns);
    QCOMPARE(t.rows(), std::int64_t(2));
    QCOMPARE(t.values(1, t.cols() - 1), lastValue);
    const TableFileInfo info = inspectTableFile(path.toStdString(), o);
    QCOMPARE(info.hasRowNames, !rowNames.isEmpty());
    QCOMPARE(list(info.columns), columns);
}

void TestTableFile::noHeader()
{
    TableReadOptions o;
    o.header = false;
    const Table t = readTableFile(write("nohead.csv", "1,2,3\n4,5,6\n").toStdString(), o);
    QCOMPARE(t.rows(), std::int64_t(2));
    QCOMPARE(list(t.columns), QStringList({"V1", "V2", "V3"}));
    QCOMPARE(t.values(0, 0), 1.0f);
    QCOMPARE(t.values(1, 2), 6.0f);
    // Without a header, a first column of words is still recognised as row names.
    const Table n = readTableFile(write("nohead.tsv", "g1\t1\t2\ng2\t3\t4\n").toStdString(), o);
    QCOMPARE(list(n.rowNames), QStringList({"g1", "g2"}));
    QCOMPARE(list(n.columns), QStringList({"V1", "V2"}));
    QCOMPARE(n.values(1, 0), 3.0f);
}

void TestTableFile::quotedFields()
{
    const QByteArray text = "\"\",\"CD4, Nd145\",\"say \"\"hi\"\"\",\"two\nlines\"\n"
                            "\"cell, one\",\"1.5\",2,3\n"
                            "5\" floppy,4, \"5\" ,6\n";
    const Table t = readTableFile(write("quoted.csv", text).toStdString());
    QCOMPARE(list(t.columns), QStringList({"CD4, Nd145", "say \"hi\"", "two\nlines"}));
    QCOMPARE(list(t.rowNames), QStringList({"cell, one", "5\" floppy"}));
    QCOMPARE(t.values(0, 0), 1.5f);
    QCOMPARE(t.values(1, 1), 5.0f);
    QCOMPARE(t.values(1, 2), 6.0f);
    // The quoted line break counts: the line added here is line 5 of the file.
    const QString bad = write("quoted_bad.csv", text + "x,1,2,oops\n");
    QVERIFY2(errorOf(bad).contains("line 5, column 4 ('two\nlines'): 'oops' is not a number"),
             qPrintable(errorOf(bad)));
}

void TestTableFile::crlfAndBom()
{
    const QByteArray text = "\xEF\xBB\xBF"
                            "Time,CD4\r\n1,2\r\n3,4\r\n\r\n";
    const Table t = readTableFile(write("crlf.csv", text).toStdString());
    QCOMPARE(list(t.columns), QStringList({"Time", "CD4"})); // no BOM in the first name
    QCOMPARE(t.rows(), std::int64_t(2));
    QCOMPARE(t.values(1, 1), 4.0f); // no '\r' left on the last field
    // Line numbers count from the first line, BOM or not.
    const QString bad = write("crlf_bad.csv", "\xEF\xBB\xBF"
                                              "Time,CD4\r\n1,2\r\n3,x\r\n");
    QVERIFY2(errorOf(bad).contains("line 3, column 2 ('CD4'): 'x' is not a number"),
             qPrintable(errorOf(bad)));
}

void TestTableFile::commentsAndBlankLines()
{
    const QByteArray text = "# exported by a cytometer\n"
                            "\n"
                            "# channels: 2\n"
                            "a,b\n"
                            "1,2\n"
                            "\n"
                            "3,4\n"
                            "\n"
                            "   \n";
    const QString path = write("comments.csv", text);
    const Table t = readTableFile(path.toStdString());
    QCOMPARE(list(t.columns), QStringList({"a", "b"}));
    QCOMPARE(t.rows(), std::int64_t(2));
    QCOMPARE(t.values(1, 0), 3.0f);
    QCOMPARE(inspectTableFile(path.toStdString()).rows, std::int64_t(2));
    // Lines are counted in the file, comments and blank lines included.
    const QString bad = write("comments_bad.csv", text + "5,six\n");
    QVERIFY2(errorOf(bad).contains("line 10, column 2 ('b'): 'six' is not a number"),
             qPrintable(errorOf(bad)));
}

void TestTableFile::missingValues()
{
    const Table t = readTableFile(
        write("na.csv", "a,b,c,d\nNA,NaN,nan,\n1,\"\",-nan,NAN\n2, NA ,3,4\n").toStdString());
    QCOMPARE(t.rows(), std::int64_t(3));
    for (int c = 0; c < 4; ++c)
        QVERIFY2(std::isnan(t.values(0, c)), qPrintable(QString::number(c)));
    QCOMPARE(t.values(1, 0), 1.0f);
    QVERIFY(std::isnan(t.values(1, 1)));
    QVERIFY(std::isnan(t.values(1, 2)));
    QVERIFY(std::isnan(t.values(1, 3)));
    QVERIFY(std::isnan(t.values(2, 1)));
    QCOMPARE(t.values(2, 3), 4.0f);
}

void TestTableFile::trailingDelimiter()
{
    // Every line, header too, ends with a delimiter: no empty fourth column.
    Table t = readTableFile(write("trail1.csv", "a,b,c,\n1,2,3,\n4,5,6,\n").toStdString());
    QCOMPARE(list(t.columns), QStringList({"a", "b", "c"}));
    QCOMPARE(t.values(1, 2), 6.0f);
    // Only the data lines end with one.
    t = readTableFile(write("trail2.csv", "a,b,c\n1,2,3,\n4,5,6,\n").toStdString());
    QCOMPARE(list(t.columns), QStringList({"a", "b", "c"}));
    QCOMPARE(t.values(1, 2), 6.0f);
    // An unnamed last column that holds a value somewhere is a column.
    t = readTableFile(write("trail3.csv", "a,b,c,\n1,2,3,\n4,5,6,7\n").toStdString());
    QCOMPARE(list(t.columns), QStringList({"a", "b", "c", "V4"}));
    QVERIFY(std::isnan(t.values(0, 3)));
    QCOMPARE(t.values(1, 3), 7.0f);
    // Inconsistent: the second data line has a value where the first has the trailing comma.
    const QString bad = write("trail4.csv", "a,b,c\n1,2,3,\n4,5,6,7\n");
    QVERIFY2(errorOf(bad).contains("line 3, column 4: '7' after the last column"),
             qPrintable(errorOf(bad)));
}

void TestTableFile::decimalCommaWithSemicolons()
{
    const Table t = readTableFile(write("comma.csv", "a;b\n1,5;-2,25\n3;4e2\n").toStdString());
    QCOMPARE(t.values(0, 0), 1.5f);
    QCOMPARE(t.values(0, 1), -2.25f);
    QCOMPARE(t.values(1, 1), 400.0f);
    // With ',' separating fields a comma is never a decimal point.
    QCOMPARE(readTableFile(write("comma2.csv", "a,b\n1,5\n").toStdString()).values(0, 1), 5.0f);
}

void TestTableFile::gzipReadsLikePlain()
{
    QByteArray text = ",a,b,c\n";
    for (int i = 0; i < 3000; ++i)
        text += "r" + QByteArray::number(i) + "," + QByteArray::number(i * 0.37, 'g', 9) + ",NA," +
                QByteArray::number(-i) + "\n";
    const Table plain = readTableFile(write("expr.csv", text).toStdString());
    const QString gz = m_dir.filePath("expr.csv.gz");
    QVERIFY(writeGzip(gz, text));
    const Table packed = readTableFile(gz.toStdString());
    QCOMPARE(packed.rows(), std::int64_t(3000));
    QVERIFY(packed.values.block(0, 0, 3000, 1) == plain.values.block(0, 0, 3000, 1));
    QVERIFY(packed.values.col(2) == plain.values.col(2));
    QVERIFY(packed.values.col(1).array().isNaN().all());
    QCOMPARE(packed.columns, plain.columns);
    QCOMPARE(packed.rowNames, plain.rowNames);
    QCOMPARE(packed.values(2999, 0), float(2999 * 0.37));
    // Found by the magic bytes, not the name.
    const QString disguised = m_dir.filePath("packed.csv");
    QVERIFY(writeGzip(disguised, text));
    QVERIFY(readTableFile(disguised.toStdString()).values.col(2) == plain.values.col(2));
    const TableFileInfo info = inspectTableFile(disguised.toStdString());
    QVERIFY(info.gzip);
    QCOMPARE(info.rows, std::int64_t(3000));
    QVERIFY(!inspectTableFile(m_dir.filePath("expr.csv").toStdString()).gzip);
    // Two gzip members, as `cat a.gz b.gz` makes: read one after the other.
    const QString twoMembers = m_dir.filePath("two.csv.gz");
    const qsizetype half = text.indexOf('\n', text.size() / 2) + 1;
    QVERIFY(writeGzip(twoMembers, text.left(half)));
    QVERIFY(writeGzip(twoMembers, text.mid(half), true));
    const Table joined = readTableFile(twoMembers.toStdString());
    QCOMPARE(joined.rows(), std::int64_t(3000));
    QVERIFY(joined.values.col(2) == plain.values.col(2));
}

// More text than the reader's 1 MiB buffer, so lines are cut by refills; gzip and plain.
void TestTableFile::longFileAcrossBuffers()
{
    const int rows = 40000, cols = 6;
    QByteArray text = "\"id\",\"c1\",\"c2\",\"c3\",\"c4\",\"c5\",\"c6\"\n";
    for (int r = 0; r < rows; ++r) {
        text += "\"row " + QByteArray::number(r) + "\"";
        for (int c = 0; c < cols; ++c)
            text += "," + QByteArray::number((r * cols + c) * 0.25 - 1000.0, 'f', 2);
        text += "\n";
    }
    QVERIFY(text.size() > 2 * 1024 * 1024);
    const QString gz = m_dir.filePath("long.csv.gz");
    QVERIFY(writeGzip(gz, text));
    for (const QString& path : {write("long.csv", text), gz}) {
        const Table t = readTableFile(path.toStdString());
        QCOMPARE(t.rows(), std::int64_t(rows));
        QCOMPARE(t.cols(), cols);
        QCOMPARE(str(t.rowNames.back()), QString("row %1").arg(rows - 1));
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                if (t.values(r, c) != float((r * cols + c) * 0.25 - 1000.0))
                    QFAIL(qPrintable(QString("%1 at %2, %3").arg(path).arg(r).arg(c)));
    }
    const QString bad = write("long_bad.csv", text + "\"last\",1,2,3,4,5\n");
    QVERIFY2(
        errorOf(bad).contains(QString("line %1: 6 fields, but the header has 7").arg(rows + 2)),
        qPrintable(errorOf(bad)));
}

// A load (core/io/load_control.h) counts the bytes its readers take from disk — the packed
// bytes of a gzipped file — and a cancel, before or during the read, ends the reader with
// LoadCancelled (not a DataError) at its next block.
void TestTableFile::loadProgressAndCancel()
{
    QByteArray text = "a,b,c,d\n";
    for (int r = 0; r < 150000; ++r)
        text += QByteArray::number(r) + ",1.5,2.5,3.5\n";
    const QString plain = write("load.csv", text), gz = m_dir.filePath("load.csv.gz");
    QVERIFY(writeGzip(gz, text));
    for (const QString& path : {plain, gz}) {
        LoadControl load;
        load.setTotal(totalBytes({path.toStdString()}));
        QCOMPARE(load.total(), QFileInfo(path).size());
        {
            LoadScope scope(load);
            QCOMPARE(readTableFile(path.toStdString()).rows(), std::int64_t(150000));
        }
        QCOMPARE(load.done(), load.total());
        QCOMPARE(load.fraction(), 1.0);
        // Outside a scope nothing is counted.
        readTableFile(path.toStdString());
        QCOMPARE(load.done(), load.total());
    }
    // Cancelled before the read, and by another thread once the read is under way.
    LoadControl before;
    before.cancel();
    {
        LoadScope scope(before);
        QVERIFY_THROWS_EXCEPTION(LoadCancelled, readTableFile(plain.toStdString()));
    }
    QByteArray big;
    for (int i = 0; i < 8; ++i)
        big += i == 0 ? text : text.mid(8);
    const QString large = write("load_large.csv", big);
    LoadControl during;
    during.setTotal(big.size());
    std::thread canceller([&] {
        while (during.done() == 0)
            std::this_thread::yield();
        during.cancel();
    });
    bool cancelled = false;
    {
        LoadScope scope(during);
        try {
            readTableFile(large.toStdString());
        } catch (const LoadCancelled&) {
            cancelled = true;
        }
    }
    canceller.join();
    QVERIFY(cancelled);
    QVERIFY(during.done() < during.total()); // stopped before the end
    // A folder's total is the files under it.
    QCOMPARE(totalBytes({m_dir.path().toStdString()}) >= big.size() + text.size(), true);
}

// A line of 2 MB (a whole sample of a wide matrix) makes the reader grow its buffer.
void TestTableFile::lineLongerThanTheBuffer()
{
    const int cols = 400000;
    QByteArray header, first, second;
    for (int c = 0; c < cols; ++c) {
        const QByteArray sep = c ? "," : "";
        header += sep + "g" + QByteArray::number(c);
        first += sep + QByteArray::number(c);
        second += sep + QByteArray::number(-c * 0.5, 'f', 1);
    }
    QVERIFY(first.size() > 2 * 1024 * 1024);
    const QByteArray text = header + "\n" + first + "\n" + second + "\n";
    const QString gz = m_dir.filePath("wide.csv.gz");
    QVERIFY(writeGzip(gz, text));
    for (const QString& path : {write("wide.csv", text), gz}) {
        const Table t = readTableFile(path.toStdString());
        QCOMPARE(t.rows(), std::int64_t(2));
        QCOMPARE(t.cols(), cols);
        QCOMPARE(str(t.columns.back()), QString("g%1").arg(cols - 1));
        QCOMPARE(t.values(0, cols - 1), float(cols - 1));
        QCOMPARE(t.values(1, cols - 1), float(-(cols - 1) * 0.5));
    }
}

void TestTableFile::transpose()
{
    TableReadOptions o;
    o.transpose = true;
    const QString path = write("genes.csv", ",s1,s2,s3\ng1,1,2,3\ng2,4,5,6\n");
    const Table t = readTableFile(path.toStdString(), o);
    QCOMPARE(t.rows(), std::int64_t(3));
    QCOMPARE(t.cols(), 2);
    QCOMPARE(list(t.columns), QStringList({"g1", "g2"}));
    QCOMPARE(list(t.rowNames), QStringList({"s1", "s2", "s3"}));
    QCOMPARE(list(t.markers), QStringList({"", ""}));
    const Table plain = readTableFile(path.toStdString());
    QVERIFY(t.values == plain.values.transpose());
    QCOMPARE(t.values(2, 1), 6.0f);
    const TableFileInfo info = inspectTableFile(path.toStdString(), o);
    QCOMPARE(info.rows, std::int64_t(3));
    QCOMPARE(info.cols, 2);
    QCOMPARE(list(info.columns), QStringList({"g1", "g2"}));
    // Without row names the new columns are numbered, as svi::transposed does.
    const Table n = readTableFile(write("plain.csv", "a,b,c\n1,2,3\n4,5,6\n").toStdString(), o);
    QCOMPARE(list(n.columns), QStringList({"V1", "V2"}));
    QCOMPARE(list(n.rowNames), QStringList({"a", "b", "c"}));
    QCOMPARE(n.values(1, 0), 2.0f);
}

void TestTableFile::inspect()
{
    const QString path = write("info.tsv", "gene\tA\tB\tC\np1\t1\t2\t3\np2\t4\tNA\t6\n\n");
    const TableFileInfo info = inspectTableFile(path.toStdString());
    QCOMPARE(info.rows, std::int64_t(2));
    QCOMPARE(info.cols, 3);
    QCOMPARE(list(info.columns), QStringList({"A", "B", "C"}));
    QVERIFY(info.hasRowNames);
    QCOMPARE(info.delimiter, '\t');
    QVERIFY(!info.gzip);
    // Every cell is converted as readTableFile converts it: text outside the first column is
    // refused by both, in the same words (`svi info` and a run agree).
    const QString text = write("info_text.tsv", "gene\tA\tB\tC\np1\t1\t2\t3\np2\t4\tx\t6\n");
    QString inspected;
    try {
        inspectTableFile(text.toStdString());
    } catch (const DataError& e) {
        inspected = QString::fromUtf8(e.what());
    }
    QVERIFY2(inspected.contains("line 3, column 3 ('B'): 'x' is not a number: a table's columns "
                                "hold numbers"),
             qPrintable(inspected));
    QCOMPARE(errorOf(text), inspected);
    // The shape is checked on every line too.
    const QString ragged = write("info_ragged.tsv", "a\tb\n1\t2\n3\n");
    try {
        inspectTableFile(ragged.toStdString());
        QFAIL("a ragged file was inspected without complaint");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("line 3: 1 field, but the header has 2"), e.what());
    }
}

void TestTableFile::errors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("rowNames"); // -2: guess, and no header
    QTest::addColumn<QString>("expected");
    QTest::newRow("short line") << "rag.csv" << QByteArray("a,b,c\n1,2,3\n4,5\n6,7,8\n") << -1
                                << "line 3: 2 fields, but the header has 3";
    QTest::newRow("long line") << "rag2.csv" << QByteArray("a,b,c\n1,2,3\n4,5,6,7,8\n") << -1
                               << "line 3: 5 fields, but the header has 3";
    QTest::newRow("first data line too long") << "rag3.csv" << QByteArray("a,b,c\n1,2,3,4,5\n")
                                              << -1 << "line 2: 5 fields, but the header has 3";
    QTest::newRow("ragged without header, counted from the first line")
        << "rag4.csv" << QByteArray("# no header\n1,2,3\n4,5\n") << -2
        << "line 3: 2 fields, but line 2 has 3";
    QTest::newRow("word in a number column")
        << "word.csv" << QByteArray("Time,DNA1,CD4\n1,2,3\n4,5,6\n7,8,9\n1,2,abc\n") << -1
        << "line 5, column 3 ('CD4'): 'abc' is not a number";
    QTest::newRow("column numbers count the row-name column")
        << "word2.csv" << QByteArray(",CD3,CD4\nc1,1,2\nc2,3,4 5\n") << -1
        << "line 3, column 3 ('CD4'): '4 5' is not a number";
    QTest::newRow("row names forced off") << "word3.csv" << QByteArray("gene,s1\ng1,1\n") << 0
                                          << "line 2, column 1 ('gene'): 'g1' is not a number";
    QTest::newRow("Inf") << "inf.csv" << QByteArray("a,b\n1,2\n3,Inf\n") << -1
                         << "line 3, column 2 ('b'): 'Inf' is not a finite number";
    QTest::newRow("-Inf") << "inf2.tsv" << QByteArray("a\tb\n-Inf\t2\n") << -1
                          << "line 2, column 1 ('a'): '-Inf' is not a finite number";
    QTest::newRow("beyond float") << "big.csv" << QByteArray("a,b\n1,1e39\n") << -1
                                  << "line 2, column 2 ('b'): '1e39' is beyond the range";
    QTest::newRow("beyond double") << "big2.csv" << QByteArray("a,b\n1,-2e400\n") << -1
                                   << "line 2, column 2 ('b'): '-2e400' is beyond the range";
    QTest::newRow("empty file") << "empty.csv" << QByteArray() << -1
                                << "no data rows (the file is empty)";
    QTest::newRow("header only") << "head.csv" << QByteArray("a,b,c\n") << -1
                                 << "no data rows (only a header line)";
    QTest::newRow("header and blank lines") << "head2.csv" << QByteArray("a,b,c\r\n\r\n\n") << -1
                                            << "no data rows (only a header line)";
    QTest::newRow("only comments")
        << "comm.csv" << QByteArray("# nothing\n\n") << -1 << "no data rows";
    QTest::newRow("quote not closed") << "q.csv" << QByteArray("a,b\n1,2\n3,\"4\n5,6\n") << -1
                                      << "line 3, column 2 ('b'): a quoted field is not closed";
    QTest::newRow("text after a closing quote")
        << "q2.csv" << QByteArray("a,b\n1,\"2\"x\n") << -1
        << "line 2, column 2 ('b'): text after the closing quote";
    QTest::newRow("UTF-16") << "u16.csv"
                            << QByteArray("\xFF\xFE"
                                          "a\0,\0b\0\n\0",
                                          10)
                            << -1 << "UTF-16";
    QTest::newRow("binary") << "sheet.csv" << QByteArray("PK\x03\x04\0\0\x14\0", 8) << -1
                            << "binary data, not delimited text";
    QTest::newRow("only row names")
        << "names.csv" << QByteArray("gene\ng1\ng2\n") << -1 << "no columns of values";
}

void TestTableFile::errors()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(int, rowNames);
    QFETCH(QString, expected);
    const QString path = write(name, text);
    TableReadOptions o;
    o.rowNames = std::max(rowNames, -1);
    o.header = rowNames != -2;
    const QString msg = errorOf(path, o);
    QVERIFY2(msg.startsWith("cannot read '" + path + "'"), qPrintable(msg));
    QVERIFY2(msg.contains(expected), qPrintable(msg));
}

void TestTableFile::corruptGzip()
{
    QByteArray text = "a,b\n";
    for (int i = 0; i < 5000; ++i)
        text += QByteArray::number(i) + "," + QByteArray::number(i * 3) + "\n";
    const QString good = m_dir.filePath("good.csv.gz");
    QVERIFY(writeGzip(good, text));
    QFile f(good);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray packed = f.readAll();

    // The magic bytes, then garbage.
    QByteArray garbage = packed.left(2);
    for (int i = 0; i < 4096; ++i)
        garbage += char((i * 7919 + 13) & 0xff);
    QString msg = errorOf(write("garbage.csv.gz", garbage));
    QVERIFY2(msg.contains("'" + m_dir.filePath("garbage.csv.gz") + "'") &&
                 msg.contains("corrupt gzip data"),
             qPrintable(msg));
    // A valid header, then the compressed data damaged in the middle.
    QByteArray damaged = packed;
    for (qsizetype i = damaged.size() / 3; i < damaged.size() / 3 + 64; ++i)
        damaged[i] = char(~damaged[i]);
    msg = errorOf(write("damaged.csv.gz", damaged));
    QVERIFY2(msg.contains("damaged.csv.gz") && msg.contains("gzip"), qPrintable(msg));
    // Cut short.
    msg = errorOf(write("cut.csv.gz", packed.left(packed.size() / 2)));
    QVERIFY2(msg.contains("cut.csv.gz': the gzip data end early"), qPrintable(msg));
}

void TestTableFile::missingFileAndFolder()
{
    const QString missing = m_dir.filePath("nowhere.csv");
    QCOMPARE(errorOf(missing), "cannot read '" + missing + "': file does not exist");
    QCOMPARE(errorOf(m_dir.path()), "cannot read '" + m_dir.path() + "': is a folder, not a file");
    try {
        inspectTableFile(missing.toStdString());
        QFAIL("a missing file was inspected");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("file does not exist"), e.what());
    }
}

void TestTableFile::invalidOptions()
{
    const std::string path = write("ok.csv", "a\n1\n").toStdString();
    TableReadOptions o;
    QVERIFY(!o.validate());
    o.rowNames = 2;
    QCOMPARE(str(o.validate().value_or("")),
             QString("rowNames = 2, but must be -1 (guess), 0 or 1"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, readTableFile(path, o));
    o = {};
    o.delimiter = '"';
    QVERIFY(o.validate());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inspectTableFile(path, o));
}

// 200 cells of the Levine 32-dimensional CyTOF benchmark (donor H1), every cell compared with
// Qt's own parse of the text.
void TestTableFile::levineCytof()
{
    const QString path = dataFile("levine32_H1_sub200.csv");
    const Table t = readTableFile(path.toStdString());
    QCOMPARE(t.rows(), std::int64_t(200));
    QCOMPARE(t.cols(), 39);
    QVERIFY(t.rowNames.empty()); // the first column, Time, holds numbers
    QVERIFY(t.values.allFinite());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QList<QByteArray>> cells = splitCsv(f.readAll());
    QCOMPARE(cells.size(), 201);
    QStringList header;
    for (const QByteArray& h : cells[0])
        header << QString::fromUtf8(h);
    QCOMPARE(list(t.columns), header);
    QCOMPARE(str(t.columns[0]), QString("Time"));
    QCOMPARE(str(t.columns[9]), QString("CD4"));
    QCOMPARE(str(t.columns[38]), QString("event_number"));
    for (int r = 0; r < 200; ++r)
        for (int c = 0; c < 39; ++c)
            if (t.values(r, c) != qtNumber(cells[r + 1][c]))
                QFAIL(qPrintable(QString("row %1, column %2: %3 read, %4 in the file")
                                     .arg(r)
                                     .arg(c)
                                     .arg(t.values(r, c))
                                     .arg(QString(cells[r + 1][c]))));
    QCOMPARE(t.values(0, 0), 307428.0f);
    QCOMPARE(t.values(0, 2), 169.911254882813f);
    const TableFileInfo info = inspectTableFile(path.toStdString());
    QCOMPARE(info.rows, std::int64_t(200));
    QCOMPARE(info.cols, 39);
    QCOMPARE(info.delimiter, ',');
}

// The first 50 probe sets × 128 samples of the ALL expression matrix (gzip, R's write.csv
// layout: quoted ids, empty corner cell), compared with Qt's parse of zlib's decompression.
void TestTableFile::allExpressionHead()
{
    const QString path = dataFile("ALL_exprs_head50.csv.gz");
    const Table t = readTableFile(path.toStdString());
    QCOMPARE(t.rows(), std::int64_t(50));
    QCOMPARE(t.cols(), 128);
    QCOMPARE(t.rowNames.size(), std::size_t(50));
    QCOMPARE(str(t.rowNames.front()), QString("1000_at"));
    QCOMPARE(str(t.rowNames.back()), QString("1045_s_at"));
    QCOMPARE(str(t.columns.front()), QString("01005")); // a name, leading zero kept
    QCOMPARE(str(t.columns.back()), QString("LAL4"));
    QCOMPARE(t.values(0, 0), 7.59732f);
    QVERIFY(t.values.allFinite());
    const QList<QList<QByteArray>> cells = splitCsv(gunzip(path));
    QCOMPARE(cells.size(), 51);
    for (int r = 0; r < 50; ++r) {
        QCOMPARE(cells[r + 1][0],
                 "\"" + QByteArray::fromStdString(t.rowNames[std::size_t(r)]) + "\"");
        for (int c = 0; c < 128; ++c)
            if (t.values(r, c) != qtNumber(cells[r + 1][c + 1]))
                QFAIL(qPrintable(QString("row %1, column %2").arg(r).arg(c)));
    }
    const TableFileInfo info = inspectTableFile(path.toStdString());
    QVERIFY(info.gzip);
    QVERIFY(info.hasRowNames);
    QCOMPARE(info.rows, std::int64_t(50));
    QCOMPARE(info.cols, 128);

    TableReadOptions o;
    o.transpose = true;
    const Table x = readTableFile(path.toStdString(), o);
    QCOMPARE(x.rows(), std::int64_t(128));
    QCOMPARE(x.cols(), 50);
    QCOMPARE(x.columns, t.rowNames);
    QCOMPARE(x.rowNames, t.columns);
    QVERIFY(x.values == t.values.transpose());
}

void TestTableFile::loadTableDispatchesByKind()
{
    // Files that do not exist: their names decide (test_sniff has the content).
    QCOMPARE(guessFileKind("x.FCS"), DataFileKind::Fcs);
    QCOMPARE(guessFileKind("a/b.tsv.gz"), DataFileKind::Delimited);
    QCOMPARE(guessFileKind("p.png"), DataFileKind::Image);
    // Several tables of numbers stack when their columns agree (a folder of them), each file's
    // rows said; the first file whose columns differ is named.
    const std::string a = write("k1.csv", "a\n1\n").toStdString();
    const Table twice = loadTable({a, a});
    QCOMPARE(twice.rows(), std::int64_t(2));
    QCOMPARE(twice.stacked.size(), std::size_t(2));
    QCOMPARE(twice.stacked[1], (std::pair<std::string, std::int64_t>(a, 1)));
    const std::string b = write("k2.csv", "b\n2\n").toStdString();
    try {
        loadTable({a, b});
        QFAIL("tables with other columns were stacked");
    } catch (const DataError& e) {
        QVERIFY2(
            QString(e.what()).contains("'" + QString::fromStdString(b) + "' has no channel 'a'"),
            e.what());
    }
    const Table t =
        tiledRows(readTableFile(write("t.csv", "a,b\n1,2\n3,4\n5,6\n").toStdString()), 7);
    QCOMPARE(t.rows(), std::int64_t(7));
    QCOMPARE(t.values(6, 1), 2.0f); // row 6 is row 0 again
    QCOMPARE(t.values(5, 0), 5.0f);
}

// The whole ALL matrix (12,625 probe sets × 128 samples, 5.3 MB gzip) when SVI_EXPR_FILE
// names it; prints the load time.
void TestTableFile::fullExpressionMatrix()
{
    const QByteArray path = qgetenv("SVI_EXPR_FILE");
    if (path.isEmpty())
        QSKIP("set SVI_EXPR_FILE to ALL_exprs.csv.gz to read the whole expression matrix");
    QElapsedTimer timer;
    timer.start();
    const Table t = readTableFile(path.toStdString());
    const qint64 ms = timer.elapsed();
    qInfo("%s: %lld × %d read in %lld ms", path.constData(), (long long)t.rows(), t.cols(),
          (long long)ms);
    QCOMPARE(t.rows(), std::int64_t(12625));
    QCOMPARE(t.cols(), 128);
    QCOMPARE(str(t.rowNames.front()), QString("1000_at"));
    QCOMPARE(str(t.rowNames.back()), QString("AFFX-YEL024w/RIP1_at"));
    QVERIFY(t.values.allFinite());
    timer.restart();
    const TableFileInfo info = inspectTableFile(path.toStdString());
    qInfo("inspected in %lld ms", (long long)timer.elapsed());
    QCOMPARE(info.rows, std::int64_t(12625));
}

QTEST_GUILESS_MAIN(TestTableFile)
#include "test_table_file.moc"
