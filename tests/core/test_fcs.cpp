// FCS files written here: every data type, width and byte order with known values read back
// exactly; the TEXT syntax (escaped delimiters, padding, Latin-1); the offsets real writers get
// wrong; clear refusals; mass cytometry recognised. The real files of tests/data/fcs and the
// sweep over a folder of them: test_fcs_real.cpp.

#include "core/io/fcs_file.h"
#include "tests/core/fcs_testing.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <bit>
#include <cmath>
#include <cstring>

using namespace svi;
using namespace fcs_testing;

namespace {

// --- a small FCS writer, independent of the reader ---

struct Keyword
{
    QByteArray key, value;
};

struct FcsSpec
{
    QByteArray version = "FCS3.1";
    char delim = '/';
    QList<Keyword> keywords;
    QByteArray data;
    bool headerDataOffsets = true;       // DATA offsets in the HEADER (else blank)
    QByteArray headerBlank = "        "; // what the HEADER holds when they are not written
    bool textDataOffsets = true;         // $BEGINDATA / $ENDDATA
    int endDataShift = 0;                // added to the DATA end (HEADER and $ENDDATA)
    int textShift = 0;        // added to $BEGINDATA and $ENDDATA (HEADER and TEXT disagree)
    int headerBeginShift = 0; // added to the HEADER's DATA begin only
    bool finalDelimiter = true;
    QByteArray afterText; // bytes inside the TEXT segment after its last delimiter (padding)
};

QByteArray headerField(qint64 v)
{
    return QByteArray::number(v).rightJustified(8, ' ');
}

// A doubled delimiter stands for one inside keys and values (FCS 3.1 §3.2.9).
QByteArray escaped(QByteArray s, char delim)
{
    return s.replace(QByteArray(1, delim), QByteArray(2, delim));
}

QByteArray buildFcs(const FcsSpec& s)
{
    const QByteArray d(1, s.delim);
    QByteArray body = d;
    for (const Keyword& k : s.keywords)
        body += escaped(k.key, s.delim) + d + escaped(k.value, s.delim) + d;
    // Offsets as fixed-width numbers with leading zeros, so that the TEXT length does not
    // depend on them (variable_int_example.fcs writes them this way too).
    auto offsets = [&](qint64 begin, qint64 end) {
        return "$BEGINDATA" + d + QByteArray::number(begin).rightJustified(12, '0') + d +
               "$ENDDATA" + d + QByteArray::number(end).rightJustified(12, '0') + d;
    };
    const qint64 textLength = body.size() + (s.textDataOffsets ? offsets(0, 0).size() : 0) -
                              (s.finalDelimiter ? 0 : 1) + s.afterText.size();
    const qint64 textBegin = 58, textEnd = textBegin + textLength - 1;
    const qint64 dataBegin = textEnd + 1;
    const qint64 dataEnd = dataBegin + s.data.size() - 1 + s.endDataShift;
    QByteArray text = body;
    if (s.textDataOffsets)
        text += offsets(dataBegin + s.textShift, dataEnd + s.textShift);
    if (!s.finalDelimiter)
        text.chop(1);
    text += s.afterText;
    QByteArray head = s.version + "    " + headerField(textBegin) + headerField(textEnd);
    if (s.headerDataOffsets)
        head += headerField(dataBegin + s.headerBeginShift) + headerField(dataEnd);
    else
        head += s.headerBlank + s.headerBlank;
    head += headerField(0) + headerField(0);
    return head + text + s.data;
}

void appendUint(QByteArray& out, quint64 v, int bytes, bool big)
{
    for (int k = 0; k < bytes; ++k) {
        const int shift = 8 * (big ? bytes - 1 - k : k);
        out += char((v >> shift) & 0xFF);
    }
}

void appendFloat(QByteArray& out, float v, bool big)
{
    appendUint(out, std::bit_cast<quint32>(v), 4, big);
}

void appendDouble(QByteArray& out, double v, bool big)
{
    appendUint(out, std::bit_cast<quint64>(v), 8, big);
}

// The required keywords for `bits.size()` parameters named "FSC-A", "P2", "P3", ….
QList<Keyword> standardKeywords(char dataType, const QList<int>& bits, qint64 events, bool big,
                                const QList<QByteArray>& ranges = {})
{
    const bool wide = std::any_of(bits.begin(), bits.end(), [](int b) { return b > 16; });
    QList<Keyword> k = {
        {"$BYTEORD", big ? (wide ? "4,3,2,1" : "2,1") : (wide ? "1,2,3,4" : "1,2")},
        {"$DATATYPE", QByteArray(1, dataType)},
        {"$MODE", "L"},
        {"$NEXTDATA", "0"},
        {"$PAR", QByteArray::number(bits.size())},
        {"$TOT", QByteArray::number(events)},
    };
    for (int i = 0; i < bits.size(); ++i) {
        const QByteArray p = "$P" + QByteArray::number(i + 1);
        k.append(Keyword{p + "N", i == 0 ? QByteArray("FSC-A") : "P" + QByteArray::number(i + 1)});
        k.append(Keyword{p + "B", QByteArray::number(bits[i])});
        k.append(Keyword{p + "E", "0,0"});
        k.append(Keyword{p + "R", i < ranges.size() ? ranges[i] : QByteArray("262144")});
    }
    return k;
}

// 3 events × 2 float parameters with awkward values (negative, tiny, large, fractional).
const float kFloats[3][2] = {{1.5f, -2.25f}, {1e-20f, 3.0e30f}, {262143.0f, 0.1f}};

FcsSpec floatSpec(bool big)
{
    FcsSpec s;
    s.keywords = standardKeywords('F', {32, 32}, 3, big);
    for (const auto& row : kFloats)
        for (float v : row)
            appendFloat(s.data, v, big);
    return s;
}

void replaceKeyword(FcsSpec& s, const QByteArray& key, const QByteArray& value)
{
    for (Keyword& k : s.keywords)
        if (k.key == key) {
            k.value = value;
            return;
        }
    s.keywords.append(Keyword{key, value});
}

void removeKeyword(FcsSpec& s, const QByteArray& key)
{
    s.keywords.removeIf([&](const Keyword& k) { return k.key == key; });
}

QString notesOf(const FcsFile& f)
{
    QStringList notes;
    for (const std::string& n : f.notes)
        notes << QString::fromStdString(n);
    return notes.join("; ");
}

} // namespace

class TestFcs : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void floats_data();
    void floats();
    void doubles();
    void integers_data();
    void integers();
    void integerRangeMask();
    void logAmplifiedParametersAreMadeLinear();
    void textSyntax();
    void missingFinalDelimiter();
    void cellQuestEmptyValues();
    void blankHeaderOffsets_data();
    void blankHeaderOffsets();
    void endDataOffByOne_data();
    void endDataOffByOne();
    void headerAndTextOffsetsDisagree();
    void fcs20WithoutTot();
    void metadataOnly();
    void rejects_data();
    void rejects();
    void missingFile();
    void garbledFilesFailCleanly();
    void recognisesMassCytometry();

private:
    std::string write(const QByteArray& bytes, const QString& name = {});
    QTemporaryDir m_dir;
    int m_files = 0;
};

std::string TestFcs::write(const QByteArray& bytes, const QString& name)
{
    const QString path = m_dir.filePath(name.isEmpty() ? QString("f%1.fcs").arg(++m_files) : name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path.toStdString();
}

void TestFcs::floats_data()
{
    QTest::addColumn<bool>("big");
    QTest::newRow("little-endian 1,2,3,4") << false;
    QTest::newRow("big-endian 4,3,2,1") << true;
}

void TestFcs::floats()
{
    QFETCH(bool, big);
    const std::string path = write(buildFcs(floatSpec(big)));
    const FcsFile f = readFcs(path);
    QCOMPARE(f.version, std::string("FCS3.1"));
    QCOMPARE(f.dataType, 'F');
    QCOMPARE(f.bigEndian, big);
    QCOMPARE(f.byteOrder, std::string(big ? "4,3,2,1" : "1,2,3,4"));
    QCOMPARE(f.events, std::int64_t(3));
    QCOMPARE(f.parameters, 2);
    QCOMPARE(f.names, std::vector<std::string>({"FSC-A", "P2"}));
    QCOMPARE(f.markers, std::vector<std::string>({"", ""}));
    QCOMPARE(f.bits, std::vector<int>({32, 32}));
    QCOMPARE(f.table.rows(), std::int64_t(3));
    QCOMPARE(f.table.cols(), 2);
    QCOMPARE(f.table.columns, f.names);
    QCOMPARE(f.table.markers, f.markers);
    QCOMPARE(f.table.source, path);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 2; ++c)
            QCOMPARE(f.table.values(r, c), kFloats[r][c]); // bit-exact
    QVERIFY2(f.notes.empty(), qPrintable(notesOf(f)));
}

void TestFcs::doubles()
{
    for (bool big : {false, true}) {
        FcsSpec s;
        s.keywords = standardKeywords('D', {64, 64, 64}, 2, big);
        const double v[2][3] = {{0.5, -1024.25, 1e10}, {3.0, 0.0, -7.75}};
        for (const auto& row : v)
            for (double x : row)
                appendDouble(s.data, x, big);
        const FcsFile f = readFcs(write(buildFcs(s)));
        QCOMPARE(f.dataType, 'D');
        QCOMPARE(f.table.rows(), std::int64_t(2));
        QCOMPARE(f.table.cols(), 3);
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 3; ++c)
                QCOMPARE(f.table.values(r, c), float(v[r][c]));
    }
}

void TestFcs::integers_data()
{
    QTest::addColumn<QList<int>>("bits");
    QTest::addColumn<bool>("big");
    for (bool big : {false, true}) {
        const char* order = big ? "big" : "little";
        QTest::addRow("8 bits, %s", order) << QList<int>{8, 8, 8} << big;
        QTest::addRow("16 bits, %s", order) << QList<int>{16, 16, 16} << big;
        QTest::addRow("24 bits, %s", order) << QList<int>{24, 24, 24} << big;
        QTest::addRow("32 bits, %s", order) << QList<int>{32, 32, 32} << big;
        QTest::addRow("mixed 8/16/24/32/16, %s", order) << QList<int>{8, 16, 24, 32, 16} << big;
    }
}

// Values reaching the top bit of each width (so a signed or mis-ordered read shows), exactly
// representable as float; $PnR = 2^$PnB, so no mask applies.
void TestFcs::integers()
{
    QFETCH(QList<int>, bits);
    QFETCH(bool, big);
    auto top = [](int b) -> quint64 {
        return b == 32 ? 4000000000ULL : (quint64(1) << b) - 1; // 4e9 is a float exactly
    };
    const int events = 4;
    QList<QByteArray> ranges;
    for (int b : bits)
        ranges.append(QByteArray::number(quint64(1) << b));
    FcsSpec s;
    s.keywords = standardKeywords('I', bits, events, big, ranges);
    std::vector<std::vector<quint64>> expected(events);
    for (int r = 0; r < events; ++r)
        for (int c = 0; c < bits.size(); ++c) {
            const quint64 v = r == 0 ? 0 : r == 1 ? top(bits[c]) : r == 2 ? 1 + 2 * c : 0x80 + c;
            expected[r].push_back(v);
            appendUint(s.data, v, bits[c] / 8, big);
        }
    const FcsFile f = readFcs(write(buildFcs(s)));
    QCOMPARE(f.dataType, 'I');
    QCOMPARE(f.bigEndian, big);
    QCOMPARE(f.bits, std::vector<int>(bits.begin(), bits.end()));
    QCOMPARE(f.table.rows(), std::int64_t(events));
    QCOMPARE(f.table.cols(), int(bits.size()));
    for (int r = 0; r < events; ++r)
        for (int c = 0; c < bits.size(); ++c)
            QCOMPARE(f.table.values(r, c), float(expected[r][c]));
}

// 10-bit values in 16-bit words with flag bits above them (FACSCalibur, CellQuest): masked to
// the next power of two ≥ $PnR, minus 1. A full-width $PnR, or one wider than $PnB, masks
// nothing; floats are never masked.
void TestFcs::integerRangeMask()
{
    FcsSpec s;
    s.keywords = standardKeywords('I', {16, 16, 16, 32, 16}, 1, false,
                                  {"1024", "1000", "65536", "11209599", "70000"});
    for (quint64 v : {0xFC05ULL, 0x1403ULL, 0xFC05ULL, 0x87654321ULL, 0xFC05ULL})
        appendUint(s.data, v, v > 0xFFFF ? 4 : 2, false);
    const FcsFile f = readFcs(write(buildFcs(s)));
    QCOMPARE(f.table.values(0, 0), float(0x005));    // & 1023
    QCOMPARE(f.table.values(0, 1), float(0x003));    // 1000 → 1024 → & 1023
    QCOMPARE(f.table.values(0, 2), float(0xFC05));   // full width
    QCOMPARE(f.table.values(0, 3), float(0x654321)); // 11209599 → 2^24 → & 0xFFFFFF
    QCOMPARE(f.table.values(0, 4), float(0xFC05));   // $PnR wider than 16 bits

    FcsSpec g = floatSpec(false);
    replaceKeyword(g, "$P1R", "4");
    QCOMPARE(readFcs(write(buildFcs(g))).table.values(2, 0), kFloats[2][0]);
}

// Escaped delimiters, padding, case-insensitive keys, Latin-1 and UTF-8 values, a form-feed
// delimiter (FACSDiva's), padding after the last delimiter.
void TestFcs::textSyntax()
{
    for (char delim : {'/', '\f', '|'}) {
        FcsSpec s = floatSpec(false);
        s.delim = delim;
        removeKeyword(s, "$P1N");
        s.keywords.append(Keyword{"$p1n", "   FSC-A  "}); // lower-case key, padded value
        const QByteArray withDelim = QByteArray("CD3") + delim + "CD4";
        s.keywords.append(Keyword{"$P1S", withDelim});
        s.keywords.append(Keyword{"$P2S", "CD45 \xB5g"});                   // Latin-1 'µ'
        s.keywords.append(Keyword{"Comment", "\xC3\xBC and \xE2\x80\x93"}); // UTF-8 'ü' and '–'
        replaceKeyword(s, "$TOT", "  3   ");
        s.afterText = "      ";
        const QByteArray bytes = buildFcs(s);
        QVERIFY(bytes.contains(QByteArray("CD3") + delim + delim + "CD4")); // written escaped
        const FcsFile f = readFcs(write(bytes));
        QCOMPARE(f.names, std::vector<std::string>({"FSC-A", "P2"}));
        QCOMPARE(f.markers[0], withDelim.toStdString());
        QCOMPARE(f.markers[1], std::string("CD45 \xC2\xB5g"));
        QCOMPARE(f.keywords.at("COMMENT"), std::string("\xC3\xBC and \xE2\x80\x93"));
        QCOMPARE(f.keywords.at("$P1N"), std::string("FSC-A"));
        QCOMPARE(f.keywords.at("$TOT"), std::string("3"));
        QVERIFY(!f.keywords.contains("$p1n"));
        QCOMPARE(f.events, std::int64_t(3));
        QCOMPARE(f.table.values(1, 1), kFloats[1][1]);
        QVERIFY2(f.notes.empty(), qPrintable(notesOf(f)));
    }
}

void TestFcs::missingFinalDelimiter()
{
    FcsSpec s = floatSpec(true);
    s.finalDelimiter = false;
    const QByteArray bytes = buildFcs(s);
    QVERIFY(!bytes.mid(58, bytes.size() - 58 - s.data.size()).endsWith('/'));
    const FcsFile f = readFcs(write(bytes));
    QCOMPARE(f.table.rows(), std::int64_t(3));
    QCOMPARE(f.table.values(2, 1), kFloats[2][1]);
}

// FACSCalibur files from CellQuest (FCS 2.0, delimiter '\\') write an empty value as a doubled
// delimiter, "\\$P3S\\\\$P4S\\\\…", which the standard's reading (an escaped delimiter) turns
// into keywords swallowing each other. Read as flowCore's emptyValue does; a delimiter escaped
// inside a value still reads as one.
void TestFcs::cellQuestEmptyValues()
{
    const QList<QByteArray> names = {"FSC-H", "SSC-H", "FL1-H", "FL2-H",
                                     "FL3-H", "FL1-A", "FL4-H", "Time"};
    FcsSpec s;
    s.version = "FCS2.0";
    s.delim = '\\';
    s.keywords = {{"$BYTEORD", "4,3,2,1"}, {"$DATATYPE", "I"},
                  {"$MODE", "L"},          {"$NEXTDATA", "0"},
                  {"$PAR", "8"},           {"$TOT", "2"},
                  {"$CYT", "FACSCalibur"}, {"CREATOR", "CellQuest Pro 6.0"}};
    for (int i = 0; i < names.size(); ++i) {
        const QByteArray p = "$P" + QByteArray::number(i + 1);
        s.keywords.append(Keyword{p + "N", names[i]});
        s.keywords.append(Keyword{p + "S", i == 2 ? QByteArray("CD4 FITC") : QByteArray()});
        s.keywords.append(Keyword{p + "B", "16"});
        s.keywords.append(Keyword{p + "R", "1024"});
        s.keywords.append(Keyword{p + "E", "0,0"});
    }
    s.keywords.append(Keyword{"$COM", "gate R1\\R2"}); // an escaped delimiter inside a value
    s.keywords.append(Keyword{"$SMNO", ""});           // the last keyword's value empty too
    for (int e = 0; e < 2; ++e)
        for (int i = 0; i < names.size(); ++i)
            appendUint(s.data, quint64(100 * e + 10 * i + 1), 2, true);
    const QByteArray bytes = buildFcs(s);
    QVERIFY(bytes.contains("\\$P1S\\\\$P1B\\16\\")); // written the CellQuest way
    QVERIFY(bytes.contains("gate R1\\\\R2"));

    const FcsFile f = readFcs(write(bytes));
    QCOMPARE(f.version, std::string("FCS2.0"));
    QCOMPARE(f.parameters, 8);
    std::vector<std::string> expected;
    for (const QByteArray& n : names)
        expected.push_back(n.toStdString());
    QCOMPARE(f.names, expected);
    QCOMPARE(f.markers[0], std::string());
    QCOMPARE(f.markers[2], std::string("CD4 FITC"));
    QCOMPARE(f.keywords.at("$P4S"), std::string());
    QCOMPARE(f.keywords.at("$COM"), std::string("gate R1\\R2"));
    QCOMPARE(f.keywords.at("$SMNO"), std::string());
    QCOMPARE(f.keywords.at("CREATOR"), std::string("CellQuest Pro 6.0"));
    QCOMPARE(f.table.values(0, 0), 1.0f);
    QCOMPARE(f.table.values(1, 7), 171.0f);
    QVERIFY2(notesOf(f).contains("empty values as a doubled delimiter"), qPrintable(notesOf(f)));

    // Without empty values the doubled delimiter stays an escape (textSyntax), and no note.
    FcsSpec plain = floatSpec(false);
    plain.delim = '\\';
    plain.keywords.append(Keyword{"$COM", "gate R1\\R2"});
    const FcsFile g = readFcs(write(buildFcs(plain)));
    QCOMPARE(g.keywords.at("$COM"), std::string("gate R1\\R2"));
    QVERIFY2(g.notes.empty(), qPrintable(notesOf(g)));
}

void TestFcs::blankHeaderOffsets_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::newRow("blank") << QByteArray("        ");
    QTest::newRow("zero") << QByteArray("       0");
    QTest::newRow("99999999 (FlowJo)") << QByteArray("99999999");
}

// Large files leave the HEADER's DATA offsets blank or 0; $BEGINDATA/$ENDDATA rule then.
void TestFcs::blankHeaderOffsets()
{
    QFETCH(QByteArray, field);
    FcsSpec s = floatSpec(true);
    s.headerDataOffsets = false;
    s.headerBlank = field;
    const FcsFile f = readFcs(write(buildFcs(s)));
    QCOMPARE(f.table.rows(), std::int64_t(3));
    QCOMPARE(f.table.values(0, 1), kFloats[0][1]);
    QCOMPARE(f.header.dataBegin, std::int64_t(field.trimmed() == "99999999" ? 99999999 : 0));

    s.textDataOffsets = false; // and nothing else says where the DATA is
    expectError(write(buildFcs(s)), "no DATA offsets");
}

void TestFcs::endDataOffByOne_data()
{
    QTest::addColumn<int>("shift");
    QTest::addColumn<bool>("trailer"); // bytes after the DATA (a CRC), else DATA ends the file
    QTest::newRow("one past the data") << 1 << true;
    QTest::newRow("two past the data") << 2 << true;
    QTest::newRow("one past the end of the file") << 1 << false;
}

void TestFcs::endDataOffByOne()
{
    QFETCH(int, shift);
    QFETCH(bool, trailer);
    FcsSpec s = floatSpec(false);
    s.endDataShift = shift;
    QByteArray bytes = buildFcs(s);
    if (trailer)
        bytes += "00000000";
    const FcsFile f = readFcs(write(bytes));
    QCOMPARE(f.table.rows(), std::int64_t(3));
    QCOMPARE(f.table.values(2, 1), kFloats[2][1]);
    QCOMPARE(f.notes.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(f.notes[0]).contains("past the data"), f.notes[0].c_str());
}

// The HEADER and the keywords disagree: the pair that describes exactly $TOT events wins, the
// HEADER's when both do (a FACSDiva file has $BEGINDATA 2 bytes early).
void TestFcs::headerAndTextOffsetsDisagree()
{
    {
        FcsSpec s = floatSpec(true);
        s.textShift = -2; // keywords 2 bytes early, HEADER right
        const FcsFile f = readFcs(write(buildFcs(s)));
        QCOMPARE(f.table.values(0, 0), kFloats[0][0]);
        QCOMPARE(f.table.values(2, 1), kFloats[2][1]);
        QVERIFY(QString::fromStdString(f.notes.at(0)).contains("used the HEADER's"));
    }
    {
        FcsSpec s = floatSpec(true);
        s.headerBeginShift = -4; // HEADER's segment one float too long; keywords right
        const FcsFile f = readFcs(write(buildFcs(s)));
        QCOMPARE(f.table.values(0, 0), kFloats[0][0]);
        QCOMPARE(f.table.values(2, 1), kFloats[2][1]);
        QVERIFY(QString::fromStdString(f.notes.at(0)).contains("used the keywords"));
    }
}

// FCS 2.0: no $BEGINDATA (the HEADER alone locates the DATA) and $TOT is optional.
void TestFcs::fcs20WithoutTot()
{
    FcsSpec s;
    s.version = "FCS2.0";
    s.delim = '\\';
    s.textDataOffsets = false;
    s.keywords = standardKeywords('I', {16, 16}, 0, true, {"1024", "1024"});
    removeKeyword(s, "$TOT");
    for (int r = 0; r < 5; ++r) {
        appendUint(s.data, quint64(100 * r), 2, true);
        appendUint(s.data, quint64(1023 - r), 2, true);
    }
    const FcsFile f = readFcs(write(buildFcs(s)));
    QCOMPARE(f.version, std::string("FCS2.0"));
    QCOMPARE(f.byteOrder, std::string("2,1"));
    QVERIFY(f.bigEndian);
    QCOMPARE(f.events, std::int64_t(5));
    QCOMPARE(f.table.rows(), std::int64_t(5));
    QCOMPARE(f.table.values(4, 0), 400.0f);
    QCOMPARE(f.table.values(4, 1), 1019.0f);
}

void TestFcs::metadataOnly()
{
    FcsSpec s = floatSpec(false);
    QByteArray bytes = buildFcs(s);
    bytes.chop(12); // half the DATA is gone: metadata can still be read
    const std::string path = write(bytes);
    const FcsFile f = readFcs(path, false);
    QCOMPARE(f.events, std::int64_t(3));
    QCOMPARE(f.parameters, 2);
    QCOMPARE(f.names.size(), std::size_t(2));
    QCOMPARE(f.table.rows(), std::int64_t(0));
    QCOMPARE(f.table.cols(), 0);
    QVERIFY(f.dataBegin > 58 && f.dataEnd == f.dataBegin + 23);
    expectError(path, "truncated: 1 of 3 events present");
}

void TestFcs::rejects_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");

    auto spec = [](auto change) {
        FcsSpec s = floatSpec(false);
        change(s);
        return buildFcs(s);
    };
    const QByteArray good = buildFcs(floatSpec(false));

    QTest::newRow("empty file") << QByteArray() << "file is empty";
    QTest::newRow("garbage") << QByteArray("oi21j08cn\n") << "not an FCS file";
    QTest::newRow("garbage, long") << QByteArray(200, 'x') << "not an FCS file";
    QTest::newRow("HEADER only, cut") << good.left(40) << "58";
    QTest::newRow("bad version") << QByteArray("FCSX.Y").append(good.mid(6)) << "FCSX.Y";
    QTest::newRow("FCS 1.0") << QByteArray("FCS1.0").append(good.mid(6)) << "FCS1.0";
    QTest::newRow("HEADER offset not a number")
        << QByteArray(good).replace(10, 8, "   abcde") << "TEXT begin (bytes 10–17)";
    QTest::newRow("TEXT beyond the file")
        << QByteArray(good).replace(18, 8, "  999999") << "TEXT segment ends at byte 999999";
    QTest::newRow("TEXT inside the HEADER")
        << QByteArray(good).replace(10, 8, "      20") << "must start at byte 58";

    QTest::newRow("truncated DATA")
        << good.left(good.size() - 10) << "truncated: 1 of 3 events present";
    QTest::newRow("DATA offsets beyond the file") << spec([](FcsSpec& s) {
        s.headerBeginShift = 1000;
        s.textShift = 1000;
        s.endDataShift = 1000;
    }) << "but the file has";
    QTest::newRow("DATA shorter than $TOT")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$TOT", "4"); })
        << "truncated: 3 of 4 events present";
    QTest::newRow("DATA longer than $TOT by an event")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$TOT", "2"); }) << "$TOT or $PnB is wrong";
    QTest::newRow("$MODE C") << spec([](FcsSpec& s) { replaceKeyword(s, "$MODE", "C"); })
                             << "$MODE = C, but only L";
    QTest::newRow("$DATATYPE A") << spec([](FcsSpec& s) { replaceKeyword(s, "$DATATYPE", "A"); })
                                 << "$DATATYPE = A, but only F, D and I are supported";
    QTest::newRow("$DATATYPE missing")
        << spec([](FcsSpec& s) { removeKeyword(s, "$DATATYPE"); }) << "$DATATYPE is missing";
    QTest::newRow("$PAR smaller than the names")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$PAR", "1"); })
        << "$PAR = 1, but $P2N is present";
    QTest::newRow("$PAR larger than the names")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$PAR", "3"); })
        << "$PAR = 3, but $P3N is missing";
    QTest::newRow("$PAR missing") << spec([](FcsSpec& s) { removeKeyword(s, "$PAR"); })
                                  << "$PAR is missing";
    QTest::newRow("$PAR not a number")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$PAR", "two"); }) << "$PAR = 'two'";
    QTest::newRow("$PnB missing") << spec([](FcsSpec& s) { removeKeyword(s, "$P2B"); })
                                  << "$P2B is missing";
    QTest::newRow("float $PnB 16") << spec([](FcsSpec& s) { replaceKeyword(s, "$P1B", "16"); })
                                   << "$P1B = 16, but $DATATYPE = F needs 32";
    QTest::newRow("integer $PnB 12") << spec([](FcsSpec& s) {
        replaceKeyword(s, "$DATATYPE", "I");
        replaceKeyword(s, "$P1B", "12");
    }) << "$P1B = 12, but only whole bytes";
    QTest::newRow("$BYTEORD 3,4,1,2")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$BYTEORD", "3,4,1,2"); })
        << "$BYTEORD = 3,4,1,2";
    QTest::newRow("$BYTEORD missing")
        << spec([](FcsSpec& s) { removeKeyword(s, "$BYTEORD"); }) << "$BYTEORD is missing";
    QTest::newRow("$TOT negative")
        << spec([](FcsSpec& s) { replaceKeyword(s, "$TOT", "-3"); }) << "$TOT = '-3'";
}

void TestFcs::rejects()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    expectError(write(bytes), reason);
}

void TestFcs::missingFile()
{
    expectError(m_dir.filePath("none.fcs").toStdString(), "does not exist");
    expectError(m_dir.path().toStdString(), "is a folder");
}

// Random bytes of the HEADER and TEXT changed (fixed seed): every variant either loads with the
// declared shape or is refused with a DataError; nothing else escapes, nothing crashes.
void TestFcs::garbledFilesFailCleanly()
{
    const QByteArray good = buildFcs(floatSpec(true));
    const qsizetype dataAt = good.size() - 24;
    QRandomGenerator rng(20240611);
    int loaded = 0, refused = 0;
    for (int i = 0; i < 400; ++i) {
        QByteArray bytes = good;
        const int changes = 1 + int(rng.bounded(4));
        for (int k = 0; k < changes; ++k) {
            const auto at = qsizetype(rng.bounded(int(dataAt)));
            const char pick[] = {'/', ' ', '0', '9', 'x', '$', '\0', char(0xB5)};
            bytes[at] = rng.bounded(2) ? pick[rng.bounded(8)] : char(rng.bounded(256));
        }
        const std::string path = write(bytes, "garbled.fcs");
        try {
            const FcsFile f = readFcs(path);
            QCOMPARE(f.table.rows(), f.events);
            QCOMPARE(f.table.cols(), f.parameters);
            ++loaded;
        } catch (const DataError&) {
            ++refused;
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("variant %1: not a DataError: %2").arg(i).arg(e.what())));
        }
    }
    QVERIFY(loaded > 0 && refused > 0);
}

void TestFcs::logAmplifiedParametersAreMadeLinear()
{
    // 3 events × 3 16-bit parameters: 4 decades written "4,0" (an old instrument's 0 for f2,
    // read as 1) over $PnR = 1024; 2 decades from 10 ("2,10"); linear ("0,0").
    FcsSpec s;
    s.keywords = standardKeywords('I', {16, 16, 16}, 3, false, {"1024", "1024", "1024"});
    replaceKeyword(s, "$P1E", "4,0");
    replaceKeyword(s, "$P2E", "2,10");
    const quint64 stored[3] = {0, 256, 1023};
    for (quint64 x : stored)
        for (int c = 0; c < 3; ++c)
            appendUint(s.data, x, 2, false);
    const FcsFile f = readFcs(write(buildFcs(s)));
    for (int r = 0; r < 3; ++r) {
        const double x = double(stored[r]);
        QCOMPARE(f.table.values(r, 0), float(std::pow(10.0, 4.0 * x / 1024.0)));
        QCOMPARE(f.table.values(r, 1), float(10.0 * std::pow(10.0, 2.0 * x / 1024.0)));
        QCOMPARE(f.table.values(r, 2), float(x));
    }
    QVERIFY2(notesOf(f).contains("made linear") && notesOf(f).contains("FSC-A, P2") &&
                 !notesOf(f).contains("P3"),
             qPrintable(notesOf(f)));
    // A $PnE that is not two numbers is read as linear, and said so.
    replaceKeyword(s, "$P1E", "log");
    const FcsFile g = readFcs(write(buildFcs(s)));
    QCOMPARE(g.table.values(1, 0), 256.0f);
    QVERIFY2(notesOf(g).contains("$P1E = log"), qPrintable(notesOf(g)));
}

void TestFcs::recognisesMassCytometry()
{
    // By channel names: the Krieg files name channels by metal tag ("Bi209Di") and have no $CYT.
    const std::string krieg = dataFile("Data23_Panel3_base_NR4_Patient9.fcs").toStdString();
    QVERIFY(isMassCytometry(readFcs(krieg, false)));
    QCOMPARE(readFcsFiles({krieg}).suggestedArcsinh, 5.0);
    // A flow cytometer's file: neither.
    const std::string cyflow = dataFile("cyflow_cube_8.fcs").toStdString();
    QVERIFY(!isMassCytometry(readFcs(cyflow, false)));
    QCOMPARE(readFcsFiles({cyflow}).suggestedArcsinh, 150.0); // flow's usual cofactor
    // By $CYT, whatever the channel names ("FSC-A", "P2", "P3").
    FcsSpec s = floatSpec(false);
    const std::string plain = write(buildFcs(s));
    QVERIFY(!isMassCytometry(readFcs(plain)));
    QCOMPARE(readFcs(plain).table.suggestedArcsinh, 150.0);
    replaceKeyword(s, "$CYT", "DVSSCIENCES-CYTOF-5.1.559");
    const std::string cytof = write(buildFcs(s));
    QVERIFY(isMassCytometry(readFcs(cytof)));
    QCOMPARE(readFcs(cytof).table.suggestedArcsinh, 5.0);
    replaceKeyword(s, "$CYT", "Helios");
    QVERIFY(isMassCytometry(readFcs(write(buildFcs(s)))));
    replaceKeyword(s, "$CYT", "LSRFortessa");
    QVERIFY(!isMassCytometry(readFcs(write(buildFcs(s)))));
    // Channel names decide only when most are metal tags.
    replaceKeyword(s, "$P1N", "PE-Cy7-A");
    replaceKeyword(s, "$P2N", "Nd142Di");
    QVERIFY(!isMassCytometry(readFcs(write(buildFcs(s))))); // 1 tag of 2 channels
    replaceKeyword(s, "$P1N", "CD45(In115)Dd");
    QVERIFY(isMassCytometry(readFcs(write(buildFcs(s))))); // 2 of 2
}

QTEST_GUILESS_MAIN(TestFcs)
#include "test_fcs.moc"
