// The real FCS files of tests/data/fcs (CyTOF, CyFlow, variable integer widths; a corrupted one,
// a header without its data, a truncated one), values checked against an independent decoding;
// several files stacked; and, with SVI_FCS_DIR set, a sweep over a folder of real files. Files
// written with known values: test_fcs.cpp.

#include "core/io/fcs_file.h"
#include "tests/core/fcs_testing.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <string>

using namespace svi;
using namespace fcs_testing;

namespace {

bool allFinite(const Table& t)
{
    return t.values.allFinite();
}

} // namespace

class TestFcsReal : public QObject
{
    Q_OBJECT

private slots:
    void realFiles_data();
    void realFiles();
    void realEdgeCases();
    void stacksFiles();
    void sweep();
};

void TestFcsReal::realFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("events");
    QTest::addColumn<int>("params");
    QTest::addColumn<QString>("version");
    QTest::addColumn<QString>("firstName");
    QTest::addColumn<QString>("lastName");
    QTest::addColumn<QString>("lastMarker");
    // The first and last rows were decoded independently (Python's struct module).
    QTest::addColumn<QList<float>>("firstRow"); // first values of the first row
    QTest::addColumn<QList<float>>("lastRow");  // first values of the last row

    QTest::newRow("Krieg CyTOF NR4") // FCS 3.0, float big-endian, CRC after the DATA
        << "Data23_Panel3_base_NR4_Patient9.fcs" << qint64(234) << 30 << "FCS3.0"
        << "Bi209Di"
        << "Yb174Di"
        << "174Yb_HLA-DR"
        << QList<float>{2.5964441299438477f, 0.0f, 24.233247756958008f, 2.427187919616699f}
        << QList<float>{8.089357376098633f, 1.5424660444259644f, 24.50360870361328f, 0.0f};
    QTest::newRow("Krieg CyTOF R5")
        << "Data23_Panel3_base_R5_Patient15.fcs" << qint64(339) << 30 << "FCS3.0"
        << "Bi209Di"
        << "Yb174Di"
        << "174Yb_HLA-DR" << QList<float>{} << QList<float>{};
    // FCS 3.0, integers of 16, 32 and 8 bits little-endian, a ZIP archive as supplemental TEXT.
    QTest::newRow("CyFlow Cube 8") << "cyflow_cube_8.fcs" << qint64(725) << 10 << "FCS3.0"
                                   << "FSC"
                                   << "DOUBLET"
                                   << "DOUBLET" << QList<float>{8, 7, 15, 15, 5, 8, 7, 6, 23, 0}
                                   << QList<float>{1010, 12, 21, 14, 5, 7, 9, 5, 99861, 0};
    // 25 × 16-bit and one 32-bit integer; the Time values are masked by $PnR = 11209599 to
    // 24 bits (its DATA bytes were mangled by a text conversion, so the values mean nothing).
    // "Log" parameters have $PnE = 4,1 and $PnR = 65536: stored x, read as 10^(4x / 65536);
    // the "Lin" ones (0,0) as stored. Stored values from Python.
    const auto lin = [](double x) { return float(std::pow(10.0, 4.0 * x / 65536.0)); };
    QTest::newRow("variable integer widths")
        << "variable_int_example.fcs" << qint64(2) << 26 << "FCS3.0"
        << "FSC LogH"
        << "Time"
        << "Time" << QList<float>{lin(49135), lin(61373), 48575, 49135}
        << QList<float>{lin(61266), lin(48575), 49135, 20925};
}

void TestFcsReal::realFiles()
{
    QFETCH(QString, file);
    QFETCH(qint64, events);
    QFETCH(int, params);
    QFETCH(QString, version);
    QFETCH(QString, firstName);
    QFETCH(QString, lastName);
    QFETCH(QString, lastMarker);
    QFETCH(QList<float>, firstRow);
    QFETCH(QList<float>, lastRow);
    const FcsFile f = readFcs(dataFile(qPrintable(file)).toStdString());
    QCOMPARE(f.events, std::int64_t(events));
    QCOMPARE(f.events, std::int64_t(std::stoll(f.keywords.at("$TOT"))));
    QCOMPARE(f.parameters, params);
    QCOMPARE(QString::fromStdString(f.version), version);
    QCOMPARE(f.table.rows(), std::int64_t(events));
    QCOMPARE(f.table.cols(), params);
    QCOMPARE(QString::fromStdString(f.names.front()), firstName);
    QCOMPARE(QString::fromStdString(f.names.back()), lastName);
    QCOMPARE(QString::fromStdString(f.markers.back()), lastMarker);
    QCOMPARE(f.table.columns, f.names);
    QVERIFY(allFinite(f.table));
    for (int c = 0; c < firstRow.size(); ++c)
        QCOMPARE(f.table.values(0, c), firstRow[c]);
    for (int c = 0; c < lastRow.size(); ++c)
        QCOMPARE(f.table.values(events - 1, c), lastRow[c]);
}

void TestFcsReal::realEdgeCases()
{
    // 10 bytes of garbage.
    expectError(dataFile("corrupted.fcs").toStdString(), "not an FCS file");

    // HEADER and TEXT of a 20,000-event Cytek Aurora file without its DATA: the metadata reads,
    // the data is refused as truncated.
    const std::string header = dataFile("sample_header.fcs").toStdString();
    const FcsFile meta = readFcs(header, false);
    QCOMPARE(meta.version, std::string("FCS3.1"));
    QCOMPARE(meta.events, std::int64_t(20000));
    QCOMPARE(meta.parameters, 27);
    QCOMPARE(meta.names.front(), std::string("Time"));
    QCOMPARE(meta.names.back(), std::string("R8-A"));
    QCOMPARE(meta.keywords.at("$CYT"), std::string("Aurora"));
    QCOMPARE(meta.keywords.at("$BEGINDATA"), std::string("5912")); // padded in the file
    QCOMPARE(meta.table.rows(), std::int64_t(0));
    expectError(header, "DATA segment begins at byte 5912, but the file has 3931 bytes "
                        "(truncated: 0 of 20000 events present)");

    // A FACSDiva (Aria) file cut after about 6,000 of its 10,000 events; its $BEGINDATA is
    // also 2 bytes before the data the HEADER points at.
    const std::string aria = dataFile("npm_fcs_AriaFile1_truncated.fcs").toStdString();
    expectError(aria, "truncated: 6052 of 10000 events present");
    const FcsFile ariaMeta = readFcs(aria, false);
    QCOMPARE(ariaMeta.events, std::int64_t(10000));
    QCOMPARE(ariaMeta.dataBegin, std::int64_t(2636));
    QCOMPARE(ariaMeta.names.at(11), std::string("Time"));
    QCOMPARE(ariaMeta.keywords.at("$TOT"), std::string("10000"));

    // Time is a 32-bit integer with $PnR = 11209599: masked to 24 bits (values from Python).
    const FcsFile v = readFcs(dataFile("variable_int_example.fcs").toStdString());
    QCOMPARE(v.bits.back(), 32);
    QCOMPARE(v.table.values(0, 25), 8265081.0f);  // 142482809 & 0xFFFFFF
    QCOMPARE(v.table.values(1, 25), 15691602.0f); // 3220139858 & 0xFFFFFF
    // The log-amplified parameters are named in a note, the linear ones are not.
    const auto note = std::find_if(v.notes.begin(), v.notes.end(), [](const std::string& n) {
        return n.find("made linear") != std::string::npos;
    });
    QVERIFY(note != v.notes.end());
    QVERIFY2(note->find("FSC LogH") != std::string::npos &&
                 note->find("FSC LinH") == std::string::npos,
             note->c_str());
}

void TestFcsReal::stacksFiles()
{
    const std::string a = dataFile("Data23_Panel3_base_NR4_Patient9.fcs").toStdString();
    const std::string b = dataFile("Data23_Panel3_base_R5_Patient15.fcs").toStdString();
    const Table one = readFcsFiles({a});
    QCOMPARE(one.rows(), std::int64_t(234));
    QCOMPARE(one.source, a);

    const Table t = readFcsFiles({a, b});
    QCOMPARE(t.rows(), std::int64_t(234 + 339));
    QCOMPARE(t.cols(), 30);
    QCOMPARE(t.columns.front(), std::string("Bi209Di"));
    QCOMPARE(t.markers.front(), std::string("209Bi_CD11b"));
    QVERIFY(t.source.find(a) != std::string::npos && t.source.find(b) != std::string::npos);
    const Table tb = readFcs(b).table;
    QVERIFY(t.values.bottomRows(339) == tb.values);
    QCOMPARE(t.values(0, 0), 2.5964441299438477f);

    const std::string cyflow = dataFile("cyflow_cube_8.fcs").toStdString();
    try {
        readFcsFiles({a, cyflow});
        QFAIL("no error for files of different panels");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(cyflow)), e.what());
    }
    try {
        readFcsFiles({a, dataFile("corrupted.fcs").toStdString()});
        QFAIL("no error for a corrupted file");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("corrupted.fcs"), e.what());
    }
}

// Every *.fcs under $SVI_FCS_DIR: files under a folder named edge_cases may be refused with a
// DataError, every other must load with shape ($TOT, $PAR) and finite values.
void TestFcsReal::sweep()
{
    const QString root = qEnvironmentVariable("SVI_FCS_DIR");
    if (root.isEmpty())
        QSKIP("set SVI_FCS_DIR to a folder of FCS files to read them all");
    QStringList files;
    QDirIterator it(root, {"*.fcs", "*.FCS"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    files.removeDuplicates();
    QVERIFY2(!files.isEmpty(), qPrintable("no .fcs files under " + root));
    int loaded = 0, refused = 0;
    for (const QString& file : files) {
        const bool edge = file.split('/').contains("edge_cases");
        const QString name = QDir(root).relativeFilePath(file);
        QElapsedTimer timer;
        timer.start();
        try {
            const FcsFile f = readFcs(file.toStdString());
            const double ms = timer.nsecsElapsed() / 1e6;
            QString notes;
            for (const std::string& n : f.notes)
                notes += "; " + QString::fromStdString(n);
            qInfo().noquote() << QString("%1  %2 %3 %4  %5 × %6  %7 ms%8")
                                     .arg(name, QString::fromStdString(f.version))
                                     .arg(f.dataType)
                                     .arg(QString::fromStdString(f.byteOrder))
                                     .arg(f.table.rows())
                                     .arg(f.table.cols())
                                     .arg(ms, 0, 'f', 1)
                                     .arg(notes);
            const auto tot = f.keywords.find("$TOT");
            if (tot != f.keywords.end())
                QCOMPARE(f.table.rows(), std::int64_t(std::stoll(tot->second)));
            QCOMPARE(f.table.cols(), std::stoi(f.keywords.at("$PAR")));
            QVERIFY2(allFinite(f.table), qPrintable(name));
            ++loaded;
        } catch (const DataError& e) {
            qInfo().noquote() << QString("%1  refused: %2").arg(name, QString::fromUtf8(e.what()));
            if (!edge)
                QFAIL(qPrintable(name + " must load: " + e.what()));
            ++refused;
        }
    }
    qInfo().noquote()
        << QString("%1 files: %2 loaded, %3 refused").arg(files.size()).arg(loaded).arg(refused);
}

QTEST_GUILESS_MAIN(TestFcsReal)
#include "test_fcs_real.moc"
