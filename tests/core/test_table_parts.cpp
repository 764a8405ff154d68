// A table read in parts by R ranks (core/io/table_part.h, makeTableData with a TablePart), the
// ranks being threads of this process (tests/core/threaded_communicator.h): for R = 1…4 every
// rank holds exactly the whole table's rows of its range — the same values, roles, training
// rows and standardisation moments as the whole file gives — for delimited text (comments,
// header, blank lines, missing cells, quoted cells, CRLF, an empty trailing column) and FCS
// files (one, and two stacked); a bad cell in one rank's part fails every rank with the whole
// file's line number; files whose records are not lines are read whole. Then BPFA trained on
// the parts scores as on the whole table.

#include "core/data/table.h"
#include "core/io/data_error.h"
#include "core/io/fcs_file.h"
#include "core/io/table_file.h"
#include "core/io/table_part.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "tests/data_writers.h"
#include "threaded_communicator.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

using namespace svi;
using svi::test_support::ThreadedRanks;
using ::test_support::writeFile;

namespace {

// `rows` data lines of 5 columns after two comment lines and the header; blank lines here and
// there, missing cells ("", NA), quoted numbers, CRLF ends on some lines, every line ending with
// a delimiter (an unnamed empty last column, dropped unless line `lastCellAt` gives it a value).
// Values of very different sizes per column, so that the standardisation's sums are not exact.
// The first `padded` lines are long (spaces after their first cell).
std::string csvText(int rows, unsigned seed, int lastCellAt = -1, int padded = 0)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    std::string s = "# exported by a test\n#\nCD3,CD4,\"CD8\",Time,DNA,\n";
    for (int i = 0; i < rows; ++i) {
        if (rng() % 9 == 0)
            s += "\n";
        char line[256];
        std::snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,", 3.0 + normal(rng),
                      1e4 + 50.0 * normal(rng), 1e-3 * normal(rng), 1e6 + i * 7.25,
                      normal(rng) * normal(rng));
        std::string l = line;
        if (rng() % 7 == 0) // a missing cell
            l.replace(0, l.find(','), rng() % 2 ? "" : "NA");
        if (rng() % 11 == 0) { // a quoted cell
            const std::size_t comma = l.find(',');
            l = "\"" + l.substr(0, comma) + "\"" + l.substr(comma);
        }
        if (i < padded) // long lines: the parts' bytes then hold unequal numbers of rows
            l.insert(l.find(','), 80, ' ');
        if (i == lastCellAt) // a value in the unnamed last column: then it is a column
            l += "0.5";
        s += l + (rng() % 5 == 0 ? "\r\n" : "\n");
    }
    return s;
}

struct Built
{
    DenseDataPtr data;
    ChannelMoments moments; // of the data before standardisation
};

// The whole table's data, and its moments.
Built wholeData(const Table& t, TableOptions o)
{
    Built b;
    b.data = makeTableData(t, o);
    o.standardise = false;
    b.moments = trainingMoments(*makeTableData(t, o));
    return b;
}

// Each rank's part of `paths` and its data (collectively).
std::vector<Built> partData(const std::vector<std::string>& paths, TableOptions o, int R)
{
    std::vector<Built> out(static_cast<std::size_t>(R));
    ThreadedRanks ranks(R);
    ranks.run([&](int r) {
        Communicator& c = ranks.communicator(r);
        std::optional<TableRead> read = readTablePart(paths, {}, c);
        if (!read)
            throw std::runtime_error("the table was not read in parts");
        Built& b = out[std::size_t(r)];
        b.data = makeTableData(read->table, o, &read->where);
        TableOptions raw = o;
        raw.standardise = false;
        b.moments = trainingMoments(*makeTableData(read->table, raw, &read->where), &c);
    });
    return out;
}

// Every rank holds the whole data's rows of its range, in order, all of them together.
void compareParts(const Built& whole, const std::vector<Built>& parts)
{
    const DenseData& w = *whole.data;
    std::int64_t next = 0;
    for (const Built& p : parts) {
        const DenseData& d = *p.data;
        QVERIFY(d.heldRows.has_value());
        QCOMPARE(d.heldRows->begin, next);
        QCOMPARE(d.heldRows->size(), d.values.rows());
        next = d.heldRows->end;
        QCOMPARE(d.rows(), w.rows());
        QCOMPARE(d.cols(), w.cols());
        QCOMPARE(d.columnNames, w.columnNames);
        QCOMPARE(d.trainingRows, w.trainingRows);
        for (std::int64_t i = d.heldRows->begin; i < d.heldRows->end; ++i)
            for (int c = 0; c < d.cols(); ++c) {
                QCOMPARE(int(d.role(i, c)), int(w.role(i, c)));
                // The moments agree to rounding: a standardised value to a float's rounding.
                const double a = d.value(i, c), b = w.value(i, c);
                QVERIFY2(std::abs(a - b) <= 2e-7 * std::max(1.0, std::abs(b)),
                         qPrintable(QString("row %1, column %2: %3 vs %4")
                                        .arg(i)
                                        .arg(c)
                                        .arg(a, 0, 'g', 9)
                                        .arg(b, 0, 'g', 9)));
            }
        for (int c = 0; c < w.cols(); ++c) {
            const double m = whole.moments.mean[std::size_t(c)];
            const double s = whole.moments.scale[std::size_t(c)];
            QVERIFY(std::abs(p.moments.mean[std::size_t(c)] - m) <= 1e-12 * std::abs(m));
            QVERIFY(std::abs(p.moments.scale[std::size_t(c)] - s) <= 1e-12 * s);
        }
    }
    QCOMPARE(next, w.rows());
}

QString fcsFile(const char* name)
{
    return QStringLiteral(SVI_TEST_DATA_DIR "/fcs/") + name;
}

} // namespace

class TestTableParts : public QObject
{
    Q_OBJECT

private slots:
    void aDelimitedTableReadInPartsIsTheWholeTable_data();
    void aDelimitedTableReadInPartsIsTheWholeTable();
    void fcsFilesReadInPartsAreTheWholeTable_data();
    void fcsFilesReadInPartsAreTheWholeTable();
    void aBadCellInOnePartFailsEveryRank();
    void aBadValueInOnePartFailsEveryRankWithItsRow();
    void aTruncatedFcsFileFailsEveryRank();
    void filesThatDoNotSplitIntoLinesAreReadWhole();
    void bpfaOnThePartsScoresAsOnTheWholeTable();
};

void TestTableParts::aDelimitedTableReadInPartsIsTheWholeTable_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("split"); // 0 entries, 1 rows
    QTest::addColumn<int>("subsample");
    QTest::addColumn<double>("arcsinh");
    QTest::addColumn<int>("lastCellAt"); // a data line with a value in the unnamed last column
    QTest::addColumn<int>("rows");
    for (int R = 1; R <= 4; ++R) {
        const std::string r = std::to_string(R);
        QTest::newRow(("entries, R=" + r).c_str()) << R << 0 << 0 << 0.0 << -1 << 233;
        QTest::newRow(("rows, subsample, R=" + r).c_str()) << R << 1 << 151 << 0.0 << -1 << 233;
        QTest::newRow(("entries, subsample, arcsinh, R=" + r).c_str())
            << R << 0 << 97 << 5.0 << -1 << 233;
        QTest::newRow(("a last column with one value, R=" + r).c_str())
            << R << 0 << 0 << 0.0 << 200 << 233;
    }
    // Parts of several of the reader's one-megabyte blocks.
    QTest::newRow("many blocks, R=2") << 2 << 1 << 0 << 0.0 << -1 << 60000;
    QTest::newRow("many blocks, R=3") << 3 << 0 << 50000 << 0.0 << 59000 << 60000;
}

void TestTableParts::aDelimitedTableReadInPartsIsTheWholeTable()
{
    QFETCH(int, ranks);
    QFETCH(int, split);
    QFETCH(int, subsample);
    QFETCH(double, arcsinh);
    QFETCH(int, lastCellAt);
    QFETCH(int, rows);
    QTemporaryDir dir;
    const std::string path =
        writeFile(dir, "cells.csv", csvText(rows, 5, lastCellAt)).toStdString();
    TableOptions o;
    o.heldOut = 0.2;
    o.split = split ? HeldOutSplit::Rows : HeldOutSplit::Entries;
    o.subsample = subsample;
    o.arcsinhCofactor = arcsinh;
    o.seed = 11;
    const Table whole = readTableFile(path);
    QCOMPARE(whole.cols(), lastCellAt < 0 ? 5 : 6); // an empty trailing column dropped
    const Built w = wholeData(whole, o);
    QCOMPARE(w.data->rows(), std::int64_t(subsample ? subsample : rows));
    compareParts(w, partData({path}, o, ranks));
}

void TestTableParts::fcsFilesReadInPartsAreTheWholeTable_data()
{
    QTest::addColumn<QStringList>("files");
    QTest::addColumn<int>("ranks");
    const QString a = fcsFile("Data23_Panel3_base_NR4_Patient9.fcs");
    const QString b = fcsFile("Data23_Panel3_base_R5_Patient15.fcs");
    const QString ints = fcsFile("variable_int_example.fcs");
    for (int R = 1; R <= 4; ++R) {
        const std::string r = ", R=" + std::to_string(R);
        QTest::newRow(("one file" + r).c_str()) << QStringList{a} << R;
        QTest::newRow(("two files" + r).c_str()) << QStringList{a, b} << R;
        QTest::newRow(("integers" + r).c_str()) << QStringList{ints} << R;
    }
}

void TestTableParts::fcsFilesReadInPartsAreTheWholeTable()
{
    QFETCH(QStringList, files);
    QFETCH(int, ranks);
    std::vector<std::string> paths;
    for (const QString& f : files)
        paths.push_back(f.toStdString());
    const Table whole = readFcsFiles(paths);
    // The raw values, exactly.
    std::vector<Table> tables(static_cast<std::size_t>(ranks));
    std::vector<TablePart> where(static_cast<std::size_t>(ranks));
    {
        ThreadedRanks group(ranks);
        group.run([&](int r) {
            std::optional<TableRead> read = readTablePart(paths, {}, group.communicator(r));
            if (!read)
                throw std::runtime_error("FCS files were not read in parts");
            tables[std::size_t(r)] = std::move(read->table);
            where[std::size_t(r)] = read->where;
        });
    }
    std::int64_t next = 0;
    for (int r = 0; r < ranks; ++r) {
        const Table& t = tables[std::size_t(r)];
        QCOMPARE(where[std::size_t(r)].firstRow, next);
        QCOMPARE(where[std::size_t(r)].wholeRows, whole.rows());
        QCOMPARE(t.columns, whole.columns);
        QCOMPARE(t.markers, whole.markers);
        QCOMPARE(t.source, whole.source);
        QCOMPARE(t.suggestedArcsinh, whole.suggestedArcsinh);
        QVERIFY(t.values == whole.values.middleRows(next, t.rows()));
        next += t.rows();
    }
    QCOMPARE(next, whole.rows());
    // And the data built from them.
    TableOptions o;
    o.arcsinhCofactor = 5;
    o.heldOut = 0.1;
    compareParts(wholeData(whole, o), partData(paths, o, ranks));
}

// A bad cell on a line of the last rank's part: every rank throws the whole reading's message.
void TestTableParts::aBadCellInOnePartFailsEveryRank()
{
    QTemporaryDir dir;
    std::string text = csvText(120, 3);
    const std::size_t at = text.find('\n', text.size() * 9 / 10) + 1; // a line near the end
    text.insert(at, "1,2,abc,4,5,\n");
    const std::string path = writeFile(dir, "bad.csv", text).toStdString();
    std::string expected;
    try {
        readTableFile(path);
    } catch (const DataError& e) {
        expected = e.what();
    }
    QVERIFY2(expected.find("line ") != std::string::npos &&
                 expected.find("'abc' is not a number") != std::string::npos,
             expected.c_str());
    const int R = 3;
    std::vector<std::string> messages(static_cast<std::size_t>(R));
    ThreadedRanks ranks(R);
    ranks.run([&](int r) {
        try {
            readTablePart({path}, {}, ranks.communicator(r));
        } catch (const DataError& e) {
            messages[std::size_t(r)] = e.what();
        }
    });
    for (const std::string& m : messages)
        QCOMPARE(QString::fromStdString(m), QString::fromStdString(expected));
}

// An infinite value, and one too far from a nearly constant training column, in the last of
// three parts of an in-memory table: every rank throws the whole table's message, which numbers
// the row in the whole table.
void TestTableParts::aBadValueInOnePartFailsEveryRankWithItsRow()
{
    for (const float bad : {std::numeric_limits<float>::infinity(), 3e38f}) {
        Table whole;
        whole.values.resize(30, 2);
        for (int i = 0; i < 30; ++i) {
            whole.values(i, 0) = float(i);
            whole.values(i, 1) = 1.0f + 0.5f * float(i % 2);
        }
        whole.values(26, 1) = bad;
        whole.columns = {"a", "b"};
        whole.markers = {"", ""};
        whole.source = "t.csv";
        TableOptions o;
        o.heldOut = 0.5;
        // The large value must be held out (else it sets the scale): the first seed that does.
        std::string expected;
        for (o.seed = 1; o.seed < 100 && expected.empty(); ++o.seed)
            try {
                makeTableData(whole, o);
            } catch (const std::invalid_argument& e) {
                expected = e.what();
            }
        --o.seed;
        QVERIFY2(expected.find("row 27, column 'b'") != std::string::npos, expected.c_str());
        const int R = 3;
        std::vector<std::string> messages(static_cast<std::size_t>(R));
        ThreadedRanks ranks(R);
        ranks.run([&](int r) {
            const Shard mine = ranks.communicator(r).shardOf(30);
            Table t = whole;
            t.values = whole.values.middleRows(mine.begin, mine.size());
            const TablePart where{mine.begin, 30, &ranks.communicator(r)};
            try {
                makeTableData(t, o, &where);
            } catch (const std::invalid_argument& e) {
                messages[std::size_t(r)] = e.what();
            }
        });
        for (const std::string& m : messages)
            QCOMPARE(QString::fromStdString(m), QString::fromStdString(expected));
    }
}

// A truncated FCS file among two: every rank (also those whose events are all in the other
// file) throws the whole reading's message.
void TestTableParts::aTruncatedFcsFileFailsEveryRank()
{
    const std::vector<std::string> paths = {
        fcsFile("Data23_Panel3_base_NR4_Patient9.fcs").toStdString(),
        fcsFile("npm_fcs_AriaFile1_truncated.fcs").toStdString()};
    std::string expected;
    try {
        readFcsFiles(paths);
    } catch (const DataError& e) {
        expected = e.what();
    }
    QVERIFY2(expected.find("truncated") != std::string::npos, expected.c_str());
    const int R = 3;
    std::vector<std::string> messages(static_cast<std::size_t>(R));
    ThreadedRanks ranks(R);
    ranks.run([&](int r) {
        try {
            readTablePart(paths, {}, ranks.communicator(r));
        } catch (const DataError& e) {
            messages[std::size_t(r)] = e.what();
        }
    });
    for (const std::string& m : messages)
        QCOMPARE(QString::fromStdString(m), QString::fromStdString(expected));
}

// Quoted fields with line breaks, gzip'd text and transposed tables: every rank is told to read
// the file whole, and none has thrown.
void TestTableParts::filesThatDoNotSplitIntoLinesAreReadWhole()
{
    QTemporaryDir dir;
    std::string text = "name,a,b\n";
    for (int i = 0; i < 60; ++i)
        text += (i == 40 ? "\"two\nlines\"" : "r" + std::to_string(i)) + "," + std::to_string(i) +
                ".5,2\n";
    const std::string quoted = writeFile(dir, "quoted.csv", text).toStdString();
    QCOMPARE(readTableFile(quoted).rows(), std::int64_t(60)); // whole, it is a good file
    const std::string plain = writeFile(dir, "plain.csv", csvText(50, 1)).toStdString();
    const QString gz = QStringLiteral(SVI_TEST_DATA_DIR "/ALL_exprs_head50.csv.gz");
    TableReadOptions transpose;
    transpose.transpose = true;
    const int R = 2;
    std::vector<int> read(3 * R, -1);
    ThreadedRanks ranks(R);
    ranks.run([&](int r) {
        Communicator& c = ranks.communicator(r);
        read[std::size_t(3 * r)] = readTablePart({quoted}, {}, c).has_value();
        read[std::size_t(3 * r + 1)] = readTablePart({gz.toStdString()}, {}, c).has_value();
        read[std::size_t(3 * r + 2)] = readTablePart({plain}, transpose, c).has_value();
    });
    for (int v : read)
        QCOMPARE(v, 0);
}

// BPFA (Gibbs initialisation, eval items among the held-out rows, a row split) trained on the
// parts of 3 ranks gives the whole table's evaluations on one rank.
void TestTableParts::bpfaOnThePartsScoresAsOnTheWholeTable()
{
    QTemporaryDir dir;
    // Long lines first: the ranks' parts of the bytes hold unequal numbers of rows, far from the
    // 100 each of an even split of the rows (Communicator::shardOf).
    const std::string path = writeFile(dir, "cells.csv", csvText(300, 9, -1, 100)).toStdString();
    TableOptions o;
    o.heldOut = 0.15;
    o.split = HeldOutSplit::Rows;
    BpfaOptions b;
    b.K = 6;
    b.minibatch = 40;
    b.initItems = 50;
    b.initSweeps = 3;
    b.evalItems = 30;
    const int steps = 8;
    const auto train = [&](BpfaTrainer& t) {
        std::vector<double> scores;
        for (int s = 1; s <= steps; ++s) {
            t.step(s);
            const Evaluation ev = t.evaluate(false);
            scores.push_back(ev.elbo);
            scores.push_back(ev.metrics.at("heldout_loglik"));
            scores.push_back(ev.metrics.at("mse"));
        }
        return scores;
    };
    BpfaTrainer whole(makeTableData(readTableFile(path), o), BpfaAlgorithm::GibbsSsvi, b, 4);
    const std::vector<double> expected = train(whole);
    const int R = 3;
    std::vector<std::vector<double>> got(static_cast<std::size_t>(R));
    ThreadedRanks ranks(R);
    ranks.run([&](int r) {
        Communicator& c = ranks.communicator(r);
        std::optional<TableRead> read = readTablePart({path}, {}, c);
        BpfaTrainer t(makeTableData(read->table, o, &read->where), BpfaAlgorithm::GibbsSsvi, b, 4);
        t.setCommunicator(c);
        got[std::size_t(r)] = train(t);
    });
    for (const std::vector<double>& g : got) {
        QCOMPARE(g.size(), expected.size());
        for (std::size_t j = 0; j < g.size(); ++j)
            QVERIFY2(std::abs(g[j] - expected[j]) <= 1e-9 * std::max(1.0, std::abs(expected[j])),
                     qPrintable(QString("score %1: %2 vs %3")
                                    .arg(j)
                                    .arg(g[j], 0, 'g', 17)
                                    .arg(expected[j], 0, 'g', 17)));
    }
}

QTEST_GUILESS_MAIN(TestTableParts)
#include "test_table_parts.moc"
