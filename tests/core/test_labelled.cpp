// Labelled examples: LIBSVM text (the first lines of a9a and a9a.t) and tables with a label
// column (the glmm CSVs cbpp and epil), read with known counts and values; the dimension taken
// from the training file; the seeded 80/20 split, the training subsample, z-scoring on the
// training rows (test rows with the training mean and sd, checked by hand) and the intercept;
// the labelled kind recognised by content (a CSV only when asked for), built, inspected and
// its split written; and the message of every bad line, naming the file, the line and the
// field.

#include "core/data/labelled.h"
#include "core/io/data_kinds.h"
#include "core/io/labelled_files.h"
#include "tests/core/data_testing.h"

#include <QDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace svi;
using namespace data_testing;

namespace {

const std::string kHead = std8(dataFile("labelled/a9a_head200"));
const std::string kTestHead = std8(dataFile("labelled/a9a_t_head100"));
const std::string kEpil = std8(dataFile("labelled/epil.csv"));
const std::string kCbpp = std8(dataFile("labelled/cbpp.csv"));

LabelledReadOptions withDimension(std::int64_t d)
{
    LabelledReadOptions o;
    o.dimension = d;
    return o;
}

// The examples as read, untransformed, without an intercept.
LabelledOptions asRead()
{
    LabelledOptions o;
    o.standardise = false;
    o.standardiseLabel = false;
    o.intercept = false;
    return o;
}

// Population mean and sd of column c over `rows`.
std::pair<double, double> moments(const LabelledData& d, const std::vector<std::int64_t>& rows,
                                  int c)
{
    double sum = 0, squares = 0;
    for (const std::int64_t i : rows)
        sum += d.x(i, c), squares += d.x(i, c) * d.x(i, c);
    const double n = double(rows.size()), mean = sum / n;
    return {mean, std::sqrt(std::max(0.0, squares / n - mean * mean))};
}

std::int64_t positives(const LabelledData& d)
{
    return std::int64_t((d.y.array() > 0.5).count());
}

// The message of `f`'s DataError or std::invalid_argument.
QString messageOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no error)";
}

} // namespace

class TestLabelled : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void libsvmHead();
    void dimensionFromTheTrainingFile();
    void standardisedOnTrainingRows();
    void seededSplitAndSubsample();
    void tablesWithFactorsAndGroups();
    void labelsBinaryCountReal();
    void badLibsvmLines_data();
    void badLibsvmLines();
    void badTables_data();
    void badTables();
    void recognisedBuiltInspectedAndWritten();
    void syntheticLabels();
    void kindsThatReadAFile();

private:
    TempFiles m_files;
};

void TestLabelled::initTestCase()
{
    QVERIFY(m_files.valid());
}

void TestLabelled::libsvmHead()
{
    LabelledFileFacts facts;
    const LabelledData d = readLabelledFiles({kHead}, {}, &facts);
    QCOMPARE(d.rows(), std::int64_t(200));
    // Index 123 does not occur in the first 200 lines: the highest there is 103.
    QCOMPARE(d.cols(), 103);
    QCOMPARE(str(d.featureNames.front()), QString("x1"));
    QCOMPARE(str(d.featureNames.back()), QString("x103"));
    QCOMPARE(d.labelKind, LabelKind::Binary);
    QCOMPARE(list(d.classes), QStringList({"-1", "+1"}));
    QCOMPARE(positives(d), std::int64_t(47)); // head -200 a9a | grep -c '^+1'
    QCOMPARE(facts.nonZeros, std::int64_t(2775));
    QCOMPARE(str(facts.formatName), QString("LIBSVM text"));
    QVERIFY(d.trainingRows.empty() && d.testRows.empty()); // one file: split when built
    // Line 1: "-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1 ".
    QCOMPARE(d.y(0), 0.0);
    QCOMPARE(d.x.row(0).sum(), 14.0);
    for (const int index : {3, 11, 14, 19, 39, 42, 55, 64, 67, 73, 75, 76, 80, 83})
        QCOMPARE(d.x(0, index - 1), 1.0);
    QCOMPARE(d.x(0, 0), 0.0);
    QCOMPARE(d.lineOfRow[199], std::int64_t(200));
    QCOMPARE(str(d.where(199)), "'" + str(kHead) + "' line 200");

    // The same gzip'd, with CRLF, comments and blank lines, under any name.
    QByteArray text = "# a9a, first lines\n" + readBytes(dataFile("labelled/a9a_head200"));
    text.replace("\n", "\r\n").replace("\r\n-1 5:1 7:1", " # note\r\n\r\n-1 5:1 7:1");
    const QString gz = m_files.filePath("head.txt.gz");
    QVERIFY(writeGzip(gz, text));
    LabelledFileFacts gzFacts;
    const LabelledData g = readLabelledFiles({std8(gz)}, {}, &gzFacts);
    QCOMPARE(str(gzFacts.formatName), QString("gzip'd LIBSVM text"));
    QVERIFY(g.x == d.x && g.y == d.y);
    QCOMPARE(g.lineOfRow[0], std::int64_t(2));
    QCOMPARE(g.lineOfRow[1], std::int64_t(4)); // after the blank line
}

void TestLabelled::dimensionFromTheTrainingFile()
{
    // a9a.t's first 100 lines use index 121 (line 24): above the training head's 103.
    const QString message = messageOf([] { readLabelledFiles({kHead, kTestHead}, {}); });
    QVERIFY2(message.contains(str(kTestHead) + "' line 24, field") && message.contains("'121:1'") &&
                 message.contains("103 features") && message.contains(str(kHead)),
             qPrintable(message));

    // The dimension given: a9a's 123, though neither head uses index 123.
    const LabelledData d = readLabelledFiles({kHead, kTestHead}, withDimension(123));
    QCOMPARE(d.cols(), 123);
    QCOMPARE(d.rows(), std::int64_t(300));
    QCOMPARE(d.trainingRows.size(), std::size_t(200));
    QCOMPARE(d.testRows.front(), std::int64_t(200));
    QCOMPARE(d.x.col(122).sum(), 0.0);
    QCOMPARE(positives(d), std::int64_t(47 + 24));
    QCOMPARE(d.fileOfRow[200], 1);
    QCOMPARE(d.lineOfRow[200], std::int64_t(1));
    const LabelledDataPtr built = makeLabelledData(d, LabelledOptions());
    QCOMPARE(built->cols(), 124);                           // and the intercept
    QCOMPARE(built->trainingRowCount(), std::int64_t(200)); // test_share plays no part
    QCOMPARE(built->testRows.size(), std::size_t(100));

    // A test file without the training file's highest index: the dimension is the training's.
    const std::string train = std8(m_files.write("dim/train", "1 1:1 5:2\n-1 2:1\n"));
    const std::string test = std8(m_files.write("dim/test", "1 3:1\n-1 1:0.5\n"));
    QCOMPARE(readLabelledFiles({train, test}, {}).cols(), 5);
    QCOMPARE(readLabelledFiles({test}, {}).cols(), 3);
    QVERIFY(messageOf([&] { readLabelledFiles({train, test, test}, {}); }).contains("not 3"));
}

void TestLabelled::standardisedOnTrainingRows()
{
    const LabelledData read = readLabelledFiles({kHead, kTestHead}, withDimension(123));
    const LabelledDataPtr d = makeLabelledData(read, LabelledOptions());
    QCOMPARE(d->interceptColumn, 123);
    QCOMPARE(str(d->featureNames.back()), QString("1"));
    QVERIFY((d->x.col(123).array() == 1.0).all());
    int constant = 0;
    for (int c = 0; c < 123; ++c) {
        const auto [mean, sd] = moments(*d, d->trainingRows, c);
        QVERIFY2(std::abs(mean) < 1e-12, qPrintable(QString::number(c)));
        if (read.x.col(c).head(200).maxCoeff() == read.x.col(c).head(200).minCoeff()) {
            ++constant; // only centred: a test row's 1 stays 1 − 0
            QCOMPARE(sd, 0.0);
            QVERIFY(d->x.col(c).tail(100) == read.x.col(c).tail(100));
        } else {
            QVERIFY2(std::abs(sd - 1.0) < 1e-12, qPrintable(QString::number(c)));
        }
    }
    QVERIFY(constant > 0); // indices 104–123, absent from the training head
    // By hand: feature 1 is set on 37 of the 200 training rows (grep -c ' 1:1'), so mean 0.185
    // and sd √(0.185 · 0.815); a9a.t's line 1 has it set.
    const double p = 37.0 / 200.0;
    QCOMPARE(d->x(200, 0), (1.0 - p) / std::sqrt(p * (1.0 - p)));
    QCOMPARE(d->x(0, 0), (0.0 - p) / std::sqrt(p * (1.0 - p)));
    // A binary label is coded, not standardised.
    QVERIFY(d->y == read.y);
    QCOMPARE(d->labelMean, 0.0);
    QCOMPARE(d->labelScale, 1.0);
}

void TestLabelled::seededSplitAndSubsample()
{
    const LabelledData read = readLabelledFiles({kHead}, {});
    const LabelledDataPtr a = makeLabelledData(read, LabelledOptions());
    QCOMPARE(a->trainingRowCount(), std::int64_t(160));
    QCOMPARE(a->testRows.size(), std::size_t(40));
    QVERIFY(std::is_sorted(a->trainingRows.begin(), a->trainingRows.end()));
    QVERIFY(std::is_sorted(a->testRows.begin(), a->testRows.end()));
    std::set<std::int64_t> all(a->trainingRows.begin(), a->trainingRows.end());
    all.insert(a->testRows.begin(), a->testRows.end());
    QCOMPARE(all.size(), std::size_t(200));
    QCOMPARE(makeLabelledData(read, LabelledOptions())->testRows, a->testRows);
    LabelledOptions other;
    other.seed = 2;
    QVERIFY(makeLabelledData(read, other)->testRows != a->testRows);
    LabelledOptions none;
    none.testShare = 0.0;
    QCOMPARE(makeLabelledData(read, none)->trainingRowCount(), std::int64_t(200));

    // 50 of the 160 training rows kept; the test rows as before; each row still knows its line.
    LabelledOptions sub = asRead();
    sub.maxRows = 50;
    const LabelledDataPtr s = makeLabelledData(read, sub);
    QCOMPARE(s->trainingRowCount(), std::int64_t(50));
    QCOMPARE(s->rows(), std::int64_t(90));
    std::vector<std::int64_t> testLines;
    for (const std::int64_t i : s->testRows)
        testLines.push_back(s->lineOfRow[std::size_t(i)]);
    for (std::size_t j = 0; j < a->testRows.size(); ++j)
        QCOMPARE(testLines[j], a->testRows[j] + 1);
    for (std::int64_t i = 0; i < s->rows(); ++i)
        QVERIFY(s->x.row(i) == read.x.row(s->lineOfRow[std::size_t(i)] - 1));
    QCOMPARE(makeLabelledData(read, sub)->lineOfRow, s->lineOfRow);
}

void TestLabelled::tablesWithFactorsAndGroups()
{
    // epil.csv: y,trt,base,age,V4,subject,period,lbase,lage; 236 rows; 112 on placebo.
    LabelledReadOptions o;
    o.groups = {"subject"};
    LabelledFileFacts facts;
    const LabelledData e = readLabelledFiles({kEpil}, o, &facts);
    QCOMPARE(e.rows(), std::int64_t(236));
    QCOMPARE(str(e.labelName), QString("y"));
    QCOMPARE(e.labelKind, LabelKind::Count);
    QCOMPARE(e.y.maxCoeff(), 102.0);
    QCOMPARE(list(e.featureNames), QStringList({"trt=placebo", "trt=progabide", "base", "age", "V4",
                                                "period", "lbase", "lage"}));
    QCOMPARE(e.x.col(0).sum(), 112.0);
    QVERIFY(((e.x.col(0) + e.x.col(1)).array() == 1.0).all());
    QCOMPARE(e.groupNames.size(), std::size_t(59));
    QCOMPARE(str(e.groupNames[1]), QString("2")); // sorted as numbers, not text ("10")
    QCOMPARE(e.group.front(), 0);
    QCOMPARE(e.group.back(), 58);
    QCOMPARE(list(facts.roles),
             QStringList({"label", "factor (2 levels)", "numeric", "numeric", "numeric",
                          "group (59 levels)", "numeric", "numeric", "numeric"}));
    // A numeric column made a factor; an excluded one; the label by index.
    o.factors = {"period"};
    o.exclude = {"lbase", "lage"};
    o.label = std::to_string(1);
    const LabelledData f = readLabelledFiles({kEpil}, o);
    QCOMPARE(list(f.featureNames), QStringList({"trt=placebo", "trt=progabide", "base", "age", "V4",
                                                "period=1", "period=2", "period=3", "period=4"}));
    QCOMPARE(f.x.col(5).sum(), 59.0);

    // cbpp.csv: y,size,period,herd; 56 rows, 99 cases in all.
    const LabelledData c = readLabelledFiles({kCbpp}, {});
    QCOMPARE(c.rows(), std::int64_t(56));
    QCOMPARE(c.labelKind, LabelKind::Count);
    QCOMPARE(c.y.sum(), 99.0);
    QCOMPARE(list(c.featureNames), QStringList({"size", "period", "herd"}));
    QCOMPARE(c.x(0, 0), 14.0);
    // A count label is not standardised.
    const LabelledDataPtr built = makeLabelledData(c, LabelledOptions());
    QVERIFY(built->y == c.y);
    QCOMPARE(built->cols(), 4);
}

void TestLabelled::labelsBinaryCountReal()
{
    // Text labels of two values: alphabetical order codes them; rows keep their lines.
    const std::string yes = std8(m_files.write("labels/yes.csv", "id,Target,x\n1,yes,0.5\n"
                                                                 "2,no,1.5\n\n3,yes,2\n"));
    LabelledReadOptions o;
    o.exclude = {"id"};
    const LabelledData b = readLabelledFiles({yes}, o);
    QCOMPARE(str(b.labelName), QString("Target"));
    QCOMPARE(b.labelKind, LabelKind::Binary);
    QCOMPARE(list(b.classes), QStringList({"no", "yes"}));
    QVERIFY(b.y == Eigen::Vector3d(1, 0, 1));
    QCOMPARE(b.lineOfRow.back(), std::int64_t(5));
    // Real labels (TSV): standardised on the training rows, the scale kept.
    const std::string real = std8(m_files.write(
        "labels/real.tsv", "a\tprice\n1\t10.5\n2\t20\n3\t30\n4\t40.25\n5\t50\n6\t61\n"));
    o = {};
    o.label = "price";
    const LabelledData r = readLabelledFiles({real}, o);
    QCOMPARE(r.labelKind, LabelKind::Real);
    LabelledOptions half;
    half.testShare = 0.5;
    const LabelledDataPtr d = makeLabelledData(r, half);
    double mean = 0, squares = 0;
    for (const std::int64_t i : d->trainingRows)
        mean += d->y(i) / 3.0, squares += d->y(i) * d->y(i) / 3.0;
    QVERIFY(std::abs(mean) < 1e-12 && std::abs(squares - 1.0) < 1e-12);
    for (std::int64_t i = 0; i < d->rows(); ++i)
        QVERIFY(std::abs(d->y(i) * d->labelScale + d->labelMean - r.y(i)) < 1e-12);
    QVERIFY(d->labelScale > 1.0);
    // LIBSVM regression labels, and counts: whole numbers ≥ 0 of more than two values.
    const std::string cadata = std8(m_files.write(
        "labels/cadata", "452600 1:8.3252 2:41 8:-122.23\n358500 1:8.3014 2:21 8:-122.22\n"
                         "352100 1:7.2574 2:52 8:-122.24\n"));
    // Whole numbers with a mean above 1,000 are measurements written without decimals (house
    // prices in dollars), not counts; small whole numbers stay counts (epil, cbpp above).
    const LabelledData prices = readLabelledFiles({cadata}, {});
    QCOMPARE(prices.labelKind, LabelKind::Real);
    // label_kind = real: prices in whole dollars are values, standardised like any real label.
    LabelledOptions asReal;
    asReal.testShare = 0.0;
    asReal.realLabel = true;
    const LabelledDataPtr pr = makeLabelledData(prices, asReal);
    QCOMPARE(pr->labelKind, LabelKind::Real);
    QVERIFY(std::abs(pr->labelMean - (452600.0 + 358500.0 + 352100.0) / 3.0) < 1e-6);
    QVERIFY(std::abs(pr->y.sum()) < 1e-9);
    QCOMPARE(makeLabelledData(prices, {})->labelKind, LabelKind::Real);
    const std::string counts = std8(m_files.write("labels/counts", "3 1:1\n0 1:2\n7 2:1\n"));
    QCOMPARE(readLabelledFiles({counts}, {}).labelKind, LabelKind::Count);
    const std::string reals = std8(m_files.write("labels/reals", "0.5 1:1\n2 1:2\n-3 2:1\n"));
    QCOMPARE(readLabelledFiles({reals}, {}).labelKind, LabelKind::Real);
    const std::string zeroOne = std8(m_files.write("labels/01", "1 1:1\n0 1:2\n1 2:1\n"));
    QCOMPARE(list(readLabelledFiles({zeroOne}, {}).classes), QStringList({"0", "1"}));
}

void TestLabelled::badLibsvmLines_data()
{
    QTest::addColumn<QByteArray>("train");
    QTest::addColumn<QByteArray>("test"); // empty: no test file
    QTest::addColumn<QString>("where");   // the line and field, as the message names them
    QTest::addColumn<QString>("why");
    const QByteArray good = "+1 1:1 2:0.5\n-1 3:2\n";
    QTest::newRow("index 0") << QByteArray("1 0:1 2:1\n") << QByteArray() << "line 1, field 2 '0:1'"
                             << "the index '0' is not a whole number ≥ 1";
    QTest::newRow("negative index")
        << QByteArray("1 1:1\n-1 -3:1\n") << QByteArray() << "line 2, field 2 '-3:1'"
        << "not a whole number ≥ 1";
    QTest::newRow("decimal index")
        << QByteArray("1 1.5:1\n") << QByteArray() << "line 1, field 2 '1.5:1'"
        << "'1.5' is not a whole number";
    QTest::newRow("decreasing") << QByteArray("1 1:1\n\n-1 2:1 7:1 5:1\n") << QByteArray()
                                << "line 3, field 4 '5:1'"
                                << "the index 5 follows 7";
    QTest::newRow("value") << QByteArray("1 1:1\r\n-1 2:1 3:abc\r\n") << QByteArray()
                           << "line 2, field 3 '3:abc'"
                           << "the value 'abc' is not a number";
    QTest::newRow("NaN value") << QByteArray("1 2:nan\n") << QByteArray()
                               << "line 1, field 2 '2:nan'"
                               << "'nan' is a missing or infinite value";
    QTest::newRow("label") << QByteArray("# a comment\nx 1:1\n") << QByteArray() << "line 2, label"
                           << "'x' is not a number";
    QTest::newRow("no colon") << QByteArray("1 1:1 3\n") << QByteArray() << "line 1, field 3 '3'"
                              << "no ':'";
    QTest::newRow("test index above")
        << good << QByteArray("1 1:1\n-1 2:1 4:1\n") << "line 2, field 3 '4:1'"
        << "the index 4 is above the 3 features of the training file";
}

void TestLabelled::badLibsvmLines()
{
    QFETCH(QByteArray, train);
    QFETCH(QByteArray, test);
    QFETCH(QString, where);
    QFETCH(QString, why);
    const QString dir = "libsvm/" + QString(QTest::currentDataTag()) + "/";
    std::vector<std::string> paths = {std8(m_files.write(dir + "train", train))};
    if (!test.isEmpty())
        paths.push_back(std8(m_files.write(dir + "test", test)));
    const QString message = errorOf([&] { readLabelledFiles(paths, {}); });
    QVERIFY2(message.startsWith("cannot read '" + str(paths.back()) + "' " + where + ": "),
             qPrintable(message));
    QVERIFY2(message.contains(why), qPrintable(message));
    // Forced to the labelled kind, the reader names the line too (recognition does not take
    // such a file).
    if (test.isEmpty())
        QCOMPARE(errorOf([&] { prepareData({paths, "labelled", {}}); }), message);
}

void TestLabelled::badTables_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("label"); // the label setting
    QTest::addColumn<QString>("message");
    QTest::newRow("ragged") << QByteArray("y,a,b\n1,2,3\n4,5\n") << ""
                            << "x.csv' line 3: 2 fields, but the header has 3";
    QTest::newRow("NaN") << QByteArray("y,a\n1,2\n0,NaN\n") << ""
                         << "x.csv' line 3, column 2 ('a'): 'NaN' is a missing or infinite value";
    QTest::newRow("empty label") << QByteArray("a,y\n1,2\n3,\n") << ""
                                 << "x.csv' line 3, column 2 ('y'): empty label";
    QTest::newRow("text among numbers")
        << QByteArray("y,a\n1,2\n2,3\nabc,4\n5,5\n") << ""
        << "x.csv' line 4, column 1 ('y'): 'abc' is not a number, but other labels are";
    QTest::newRow("multiclass") << QByteArray("a,class\n1,red\n2,green\n3,blue\n") << ""
                                << "the label column 2 ('class') has 3 values (red, green, blue): "
                                   "multiclass labels are not supported";
    QTest::newRow("unknown label") << QByteArray("y,a\n1,2\n") << "price"
                                   << "label: no column named 'price' in '";
    QTest::newRow("label index") << QByteArray("y,a\n1,2\n") << "3"
                                 << "label = 3, but '";
}

void TestLabelled::badTables()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, label);
    QFETCH(QString, message);
    const std::string path =
        std8(m_files.write("tables/" + QString(QTest::currentDataTag()) + "/x.csv", bytes));
    LabelledReadOptions o;
    o.label = std8(label);
    const QString got = messageOf([&] { readLabelledFiles({path}, o); });
    QVERIFY2(got.contains(message) && got.contains(str(path)), qPrintable(got));
}

void TestLabelled::recognisedBuiltInspectedAndWritten()
{
    // By content: LIBSVM text is labelled data; a CSV is a table unless the kind is given.
    const Recognised r = recogniseData({kHead, kTestHead});
    QCOMPARE(str(r.kind->key), QString("labelled"));
    QCOMPARE(str(r.format), QString("LIBSVM text"));
    QCOMPARE(str(recogniseData({kEpil}).kind->key), QString("table"));
    const DataKindSpec& kind = *builtinDataKinds().find("labelled");
    QVERIFY(kind.views == std::vector<DataView>{DataView::Weights});
    QCOMPARE(str(kind.defaultModel), QString("glm"));

    const PreparedData a =
        prepareData({{kHead, kTestHead}, "", {{"dimension", std::int64_t(123)}}});
    QCOMPARE(str(a.data.kind), QString("labelled"));
    QCOMPARE(str(a.built.summary),
             QString("200 train + 100 test examples × 124 features (binary label: -1 / +1)"));
    const auto fact = [&](const PreparedData& p, const std::string& key) {
        for (const auto& [k, v] : p.built.facts)
            if (k == key)
                return v;
        return -1.0;
    };
    QCOMPARE(fact(a, "positives"), 71.0);
    QCOMPARE(fact(a, "test"), 100.0);
    const std::vector<std::string> ignored = a.raw->ignoredSettings();
    QVERIFY(std::find(ignored.begin(), ignored.end(), "test_share") != ignored.end());
    QVERIFY(std::find(ignored.begin(), ignored.end(), "label") != ignored.end());

    const PreparedData e = prepareData({{kEpil}, "labelled", {{"groups", std::string("subject")}}});
    QCOMPARE(a.built.data.shape(), DataShape::Labelled);
    QCOMPARE(str(e.built.summary), QString("189 train + 47 test examples × 8 features (count "
                                           "label y) · 59 groups"));
    QCOMPARE(e.built.data.labelled->group.size(), std::size_t(236));
    // A factor beside the intercept loses its first level (the reference): placebo's column
    // would be 1 minus progabide's. Without the intercept every level keeps its column.
    const auto featureNames = [](const PreparedData& p) {
        return list(p.built.data.labelled->featureNames);
    };
    QVERIFY(featureNames(e).contains("trt=progabide") && !featureNames(e).contains("trt=placebo"));
    QCOMPARE(e.built.data.labelled->factorColumns.size(), std::size_t(1));
    const PreparedData noIntercept = prepareData(
        {{kEpil}, "labelled", {{"groups", std::string("subject")}, {"intercept", false}}});
    QVERIFY(featureNames(noIntercept).contains("trt=placebo") &&
            featureNames(noIntercept).contains("trt=progabide"));

    // svi info: what the file holds, read to its last line.
    const DataReport report = inspectData({{kHead}, "", {}});
    std::map<std::string, InfoLine::Value> lines;
    for (const InfoLine& l : report.lines)
        lines[l.key] = l.value;
    QCOMPARE(std::get<std::int64_t>(lines["rows"]), std::int64_t(200));
    QCOMPARE(std::get<std::int64_t>(lines["features"]), std::int64_t(103));
    QCOMPARE(std::get<std::int64_t>(lines["nonzeros"]), std::int64_t(2775));
    QCOMPARE(std::get<std::string>(lines["label_kind"]), std::string("binary"));
    QVERIFY(std::get<std::vector<double>>(lines["class_counts"]) == std::vector<double>({153, 47}));
    const DataReport table = inspectData({{kCbpp}, "labelled", {}});
    QCOMPARE(table.lines.back().key, std::string("roles"));

    // svi split: LIBSVM files that read back as the same examples.
    const QString out = m_files.filePath("split");
    QVERIFY(QDir().mkpath(out));
    const PreparedData one = prepareData({{kHead}, "", {}});
    const std::string written = kind.writeSplit(one.built, std8(out));
    QVERIFY2(str(written).startsWith("160 training and 40 test examples × 104 features"),
             written.c_str());
    const LabelledData back =
        readLabelledFiles({std8(out + "/train.svm"), std8(out + "/test.svm")}, {});
    const LabelledData& built = *one.built.data.labelled;
    QCOMPARE(back.rows(), std::int64_t(200));
    QCOMPARE(list(back.classes), QStringList({"-1", "+1"}));
    for (std::size_t j = 0; j < built.trainingRows.size(); ++j)
        QVERIFY(back.x.row(std::int64_t(j)) == built.x.row(built.trainingRows[j]));
    QVERIFY(back.y.tail(40) == built.y(built.testRows));
    const QByteArray names = readBytes(out + "/features.txt");
    QVERIFY2(names.startsWith("# ") && names.contains("z-scored") && names.endsWith("\n104 1\n"),
             names.constData());
    // Grouped rows: each row's group, one a line, in the .svm files' order.
    const QString grouped = m_files.filePath("split-groups");
    QVERIFY(QDir().mkpath(grouped));
    QVERIFY(str(kind.writeSplit(e.built, std8(grouped))).contains("train_groups.txt"));
    const QList<QByteArray> groupLines = readBytes(grouped + "/train_groups.txt").split('\n');
    const LabelledData& g = *e.built.data.labelled;
    QCOMPARE(groupLines.size(), qsizetype(189 + 1)); // the last line ends with a newline
    for (std::size_t j = 0; j < g.trainingRows.size(); ++j)
        QCOMPARE(groupLines[qsizetype(j)].toStdString(),
                 g.groupNames[std::size_t(g.group[std::size_t(g.trainingRows[j])])]);
    QCOMPARE(readBytes(grouped + "/test_groups.txt").count('\n'), qsizetype(47));
}

QTEST_GUILESS_MAIN(TestLabelled)
#include "test_labelled.moc"

void TestLabelled::syntheticLabels()
{
    // Paper 002's experiment 4.2: counts drawn from GME's prior over a9a's features.
    const auto draw = [&](const std::string& how, const std::string& lik, std::int64_t seed) {
        return prepareData({{kHead},
                            "",
                            {{"synthetic_labels", how},
                             {"synthetic_likelihood", lik},
                             {"split_seed", seed}}})
            .built;
    };
    const BuiltData gme = draw("gme", "poisson-logistic", 1);
    const LabelledData& d = *gme.data.labelled;
    QCOMPARE(d.labelKind, LabelKind::Count);
    QVERIFY2(QString::fromStdString(gme.summary).contains("labels drawn from the gme prior"),
             gme.summary.c_str());
    // Poisson(log(1 + e^f)): both 0 and positive counts occur, some above σ(f)'s rate bound of
    // 1 can explain; whole numbers.
    QVERIFY(d.y.minCoeff() == 0.0 && d.y.maxCoeff() >= 5.0 && d.y.maxCoeff() < 1e4);
    for (Eigen::Index i = 0; i < d.y.size(); ++i)
        QCOMPARE(d.y[i], std::floor(d.y[i]));
    // Reproducible from the split seed, different for another.
    QVERIFY(draw("gme", "poisson-logistic", 1).data.labelled->y == d.y);
    QVERIFY(draw("gme", "poisson-logistic", 2).data.labelled->y != d.y);
    // GLM with the logistic: classes 0/1; the features are left as they were.
    const BuiltData glm = draw("glm", "logistic", 1);
    QCOMPARE(glm.data.labelled->labelKind, LabelKind::Binary);
    QVERIFY((glm.data.labelled->y.array() == 0.0 || glm.data.labelled->y.array() == 1.0).all());
    QVERIFY(glm.data.labelled->x == d.x);
    const BuiltData file = draw("none", "logistic", 1);
    QVERIFY(file.data.labelled->y != glm.data.labelled->y);
}

void TestLabelled::kindsThatReadAFile()
{
    // A CSV is a table first and labelled data when asked; LIBSVM text only labelled data.
    const auto keys = [](const std::vector<std::string>& files) {
        QStringList out;
        for (const DataKindSpec* k : kindsThatRead(files))
            out << QString::fromStdString(k->key);
        return out;
    };
    QCOMPARE(keys({kEpil}), QStringList({"table", "labelled"}));
    QCOMPARE(keys({kHead}), QStringList({"labelled"}));
    QCOMPARE(keys({kHead, kTestHead}), QStringList({"labelled"}));
    QCOMPARE(keys({"no/such/file"}), QStringList());
}
