// Run files shared by the headless tool and the window: JSON values, CSV traces, atomic writes.

#include "core/io/data_error.h"
#include "core/io/run_files.h"
#include "core/io/run_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <limits>

using namespace svi;

class TestRunFiles : public QObject
{
    Q_OBJECT
private slots:
    void jsonValuesRoundTripThroughTheParser_data();
    void jsonValuesRoundTripThroughTheParser();
    void traceCsvHasLeadColumnsAndGaps();
    void csvFieldsAreQuotedWhenNeeded();
    void weightsCsvHasOneRowPerFeature();
    void sliceCsvHasOneRowPerPoint();
    void sliceCsvBandIsTwoSdAroundTheMean();
    void sliceCsvOfAMalformedSlice();
    void atomicWriteFailsWithTheFileNamed();
    void traceCsvReadsBack();
    void badTraceCsv_data();
    void badTraceCsv();
    void runFolderFromSummaryOrRunJson();
    void compareFolderInResultsOrder();
};

void TestRunFiles::jsonValuesRoundTripThroughTheParser_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("text");
    QTest::newRow("int") << int(ParamType::Int) << "256";
    QTest::newRow("real") << int(ParamType::Real) << "0.75";
    QTest::newRow("bool") << int(ParamType::Bool) << "true";
    QTest::newRow("choice") << int(ParamType::Choice) << "gibbs";
}

void TestRunFiles::jsonValuesRoundTripThroughTheParser()
{
    QFETCH(int, type);
    QFETCH(QString, text);
    ParamSpec spec;
    spec.key = "x";
    spec.type = ParamType(type);
    spec.minValue = 0;
    spec.maxValue = 1000;
    spec.choices = {"random", "gibbs"};
    auto parsed = parseParam(spec, text.toStdString());
    QVERIFY(std::holds_alternative<ParamValue>(parsed));
    const ParamValue v = std::get<ParamValue>(parsed);
    const std::string back = paramTextFromJson(paramToJson(v));
    auto again = parseParam(spec, back);
    QVERIFY2(std::holds_alternative<ParamValue>(again), back.c_str());
    QVERIFY(std::get<ParamValue>(again) == v);
    QCOMPARE(paramTextFromJson(QJsonValue()), std::string());
}

void TestRunFiles::traceCsvHasLeadColumnsAndGaps()
{
    std::vector<Snapshot> trace(2);
    trace[0].step = 1;
    trace[0].trainSeconds = 0.5;
    trace[0].wallSeconds = 0.75;
    trace[0].elbo = -10;
    trace[0].metrics["psnr"] = 20;
    trace[1].step = 2;
    trace[1].elbo = std::numeric_limits<double>::quiet_NaN();
    trace[1].metrics["mse"] = std::numeric_limits<double>::infinity();
    const QByteArray csv =
        traceCsv(trace, metricKeys(trace), {{"run", "1"}, {"algorithm", "MF, SVI"}});
    const QList<QByteArray> lines = csv.split('\n');
    QCOMPARE(lines.size(), 4); // header, two rows, the empty tail
    QCOMPARE(lines[0], QByteArray("run,algorithm,step,epochs,train_seconds,wall_seconds,rho,elbo,"
                                  "mse,psnr"));
    QCOMPARE(lines[1], QByteArray("1,\"MF, SVI\",1,0,0.5,0.75,0,-10,,20"));
    QCOMPARE(lines[2], QByteArray("1,\"MF, SVI\",2,0,0,0,0,,inf,"));
    // Without the header, rows only.
    QCOMPARE(traceCsv(trace, metricKeys(trace), {}, false).count('\n'), 2);
}

void TestRunFiles::csvFieldsAreQuotedWhenNeeded()
{
    QCOMPARE(csvField("plain"), QString("plain"));
    QCOMPARE(csvField("a,b"), QString("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), QString("\"say \"\"hi\"\"\""));
}

void TestRunFiles::weightsCsvHasOneRowPerFeature()
{
    WeightSummary w;
    w.names = {"age", "workclass=Self-emp, inc"};
    w.mean = Eigen::Vector3d(0.5, -1.25, 2.0);
    w.sd = Eigen::Vector3d(0.1, 0.2, 0.3);
    QCOMPARE(weightsCsv(w), QByteArray("feature,mean,sd\n"
                                       "age,0.5,0.1\n"
                                       "\"workclass=Self-emp, inc\",-1.25,0.2\n"
                                       "x3,2,0.3\n"));
}

void TestRunFiles::sliceCsvHasOneRowPerPoint()
{
    PredictionSlice s;
    s.feature = "income, \"median\"";
    s.label = "value";
    s.x = Eigen::Vector3d(-1.0, 0.0, 2.5);
    s.mean = Eigen::Vector3d(0.5, 1.25, -2.0);
    s.sd = Eigen::Vector3d(0.25, 0.125, 1.0);
    s.pointX = Eigen::Vector2d(0.0, 1.0); // the test rows are not written
    s.pointY = Eigen::Vector2d(1.0, 2.0);
    QCOMPARE(sliceCsv(s), QByteArray("\"income, \"\"median\"\"\",mean,sd,lower,upper\n"
                                     "-1,0.5,0.25,0,1\n"
                                     "0,1.25,0.125,1,1.5\n"
                                     "2.5,-2,1,-4,0\n"));
    s.feature = "MedInc";
    QVERIFY(sliceCsv(s).startsWith("MedInc,mean,sd,lower,upper\n"));
    s.feature.clear();
    QVERIFY(sliceCsv(s).startsWith("x,mean,sd,lower,upper\n"));
}

void TestRunFiles::sliceCsvBandIsTwoSdAroundTheMean()
{
    // 50 points of mean = sin x, sd = 0.1 + 0.05 x, read back: a row per point, each value to
    // the 10 significant digits metricText keeps, lower and upper mean ∓ 2 sd.
    PredictionSlice s;
    s.feature = "x1";
    s.x = Eigen::VectorXd::LinSpaced(50, 0.0, 5.0);
    s.mean = s.x.array().sin();
    s.sd = 0.1 + 0.05 * s.x.array();
    const QList<QByteArray> lines = sliceCsv(s).split('\n');
    QCOMPARE(lines.size(), 1 + 50 + 1); // header, rows, the empty tail
    QCOMPARE(lines.front(), QByteArray("x1,mean,sd,lower,upper"));
    QVERIFY(lines.back().isEmpty());
    for (int i = 0; i < 50; ++i) {
        const QList<QByteArray> cells = lines[1 + i].split(',');
        QCOMPARE(cells.size(), 5);
        double v[5];
        for (int c = 0; c < 5; ++c) {
            bool ok = false;
            v[c] = cells[c].toDouble(&ok);
            QVERIFY2(ok, cells[c].constData());
        }
        const double tol = 1e-9;
        QVERIFY(std::abs(v[0] - s.x[i]) <= tol * std::max(1.0, std::abs(s.x[i])));
        QVERIFY(std::abs(v[1] - s.mean[i]) <= tol);
        QVERIFY(std::abs(v[2] - s.sd[i]) <= tol);
        QVERIFY2(std::abs(v[3] - (s.mean[i] - 2 * s.sd[i])) <= tol, lines[1 + i].constData());
        QVERIFY2(std::abs(v[4] - (s.mean[i] + 2 * s.sd[i])) <= tol, lines[1 + i].constData());
        QVERIFY(v[3] < v[1] && v[1] < v[4]);
    }
}

void TestRunFiles::sliceCsvOfAMalformedSlice()
{
    // Missing values are empty cells (a slice's sizes should agree; the file still reads), and
    // a NaN is an empty cell as in the other files.
    PredictionSlice s;
    s.feature = "x1";
    s.x = Eigen::Vector2d(0.0, 1.0);
    s.mean = Eigen::VectorXd::Constant(1, std::numeric_limits<double>::quiet_NaN());
    s.sd = Eigen::Vector2d(1.0, 2.0);
    QCOMPARE(sliceCsv(s), QByteArray("x1,mean,sd,lower,upper\n"
                                     "0,,1,,\n"
                                     "1,,2,,\n"));
    QCOMPARE(sliceCsv(PredictionSlice{}), QByteArray("x,mean,sd,lower,upper\n"));
}

void TestRunFiles::atomicWriteFailsWithTheFileNamed()
{
    QTemporaryDir dir;
    const QString good = dir.filePath("ok.txt");
    writeFileAtomically(good, "hello");
    QFile f(good);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("hello"));
    const QString bad = dir.filePath("no/such/folder/x.txt");
    try {
        writeFileAtomically(bad, "x");
        QFAIL("no error");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("x.txt"), e.what());
    }
}

void TestRunFiles::traceCsvReadsBack()
{
    std::vector<Snapshot> trace(3);
    trace[0].step = 1;
    trace[0].epochs = 0.25;
    trace[0].trainSeconds = 0.5;
    trace[0].wallSeconds = 0.625;
    trace[0].rho = 0.75;
    trace[0].elbo = -10.5;
    trace[0].metrics["psnr_running"] = 20.125;
    trace[1].step = 2;
    trace[1].elbo = std::numeric_limits<double>::quiet_NaN();
    trace[1].metrics["mse"] = -std::numeric_limits<double>::infinity();
    trace[2].step = 1234567890123;
    trace[2].trainSeconds = 1e-7;
    trace[2].elbo = 3.25e12;
    trace[2].metrics["psnr_running"] = 21;
    trace[2].metrics["mse"] = 0.125;
    // Lead columns (the window's export) are skipped, a quoted one holding a comma included.
    const QByteArray csv =
        traceCsv(trace, metricKeys(trace), {{"run", "1"}, {"algorithm", "A, B"}});
    const std::vector<Snapshot> back = parseTraceCsv(csv, "t.csv");
    QCOMPARE(back.size(), trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
        QCOMPARE(back[i].step, trace[i].step);
        QCOMPARE(back[i].epochs, trace[i].epochs);
        QCOMPARE(back[i].trainSeconds, trace[i].trainSeconds);
        QCOMPARE(back[i].wallSeconds, trace[i].wallSeconds);
        QCOMPARE(back[i].rho, trace[i].rho);
        QCOMPARE(std::isnan(back[i].elbo), std::isnan(trace[i].elbo));
        if (!std::isnan(trace[i].elbo))
            QCOMPARE(back[i].elbo, trace[i].elbo);
        QCOMPARE(back[i].metrics, trace[i].metrics); // an absent metric stays absent
    }
    QVERIFY(back.back().final);
    QVERIFY(!back.front().final);
    // CRLF line ends and a missing last line end read the same.
    QByteArray crlf = csv;
    crlf.replace("\n", "\r\n");
    crlf.chop(2);
    QCOMPARE(parseTraceCsv(crlf, "t.csv").size(), trace.size());
    // A header alone: an empty trace.
    QVERIFY(parseTraceCsv("step,epochs,train_seconds,rho,elbo\n", "t.csv").empty());
    // A trace written before the wall clock was kept: its wall time is unknown.
    const std::vector<Snapshot> older =
        parseTraceCsv("step,epochs,train_seconds,rho,elbo\n3,0.5,1.5,0.1,-2\n", "t.csv");
    QCOMPARE(older.size(), std::size_t(1));
    QCOMPARE(older[0].trainSeconds, 1.5);
    QVERIFY(std::isnan(older[0].wallSeconds));
}

void TestRunFiles::badTraceCsv_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << QByteArray("") << "'t.csv': the file is empty";
    QTest::newRow("no elbo") << QByteArray("step,epochs,train_seconds,rho\n1,0,0,0\n")
                             << "'t.csv' line 1: no column 'elbo'";
    QTest::newRow("short row") << QByteArray("step,epochs,train_seconds,rho,elbo,mse\n1,0,0,0,1\n")
                               << "'t.csv' line 2: 5 fields, but the header has 6";
    QTest::newRow("bad number")
        << QByteArray("step,epochs,train_seconds,rho,elbo,mse\n1,0,0,0,1,2\n2,0,0,0,1,x2\n")
        << "'t.csv' line 3, mse: 'x2' is not a number";
    QTest::newRow("bad step") << QByteArray("step,epochs,train_seconds,rho,elbo\n1.5,0,0,0,1\n")
                              << "'t.csv' line 2, step: '1.5' is not a whole number";
}

void TestRunFiles::badTraceCsv()
{
    QFETCH(QByteArray, csv);
    QFETCH(QString, expected);
    try {
        parseTraceCsv(csv, "t.csv");
        QFAIL("no error");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
}

namespace {

void writeText(const QString& path, const QByteArray& text)
{
    QVERIFY(QDir().mkpath(QFileInfo(path).path()));
    writeFileAtomically(path, text);
}

const QByteArray kTrace = "step,epochs,train_seconds,rho,elbo,psnr\n1,0.5,0.1,1,-5,20\n"
                          "2,1,0.2,0.5,-4,21\n";

QByteArray summary(const char* model, const char* algorithm, int seed)
{
    return QByteArray("{\"model\": \"") + model + "\", \"algorithm\": \"" + algorithm +
           "\", \"seed\": " + QByteArray::number(seed) +
           ", \"termination\": \"diverged\", \"message\": \"NaN at step 2\"}";
}

} // namespace

void TestRunFiles::runFolderFromSummaryOrRunJson()
{
    QTemporaryDir dir;
    writeText(dir.filePath("a/trace.csv"), kTrace);
    writeText(dir.filePath("a/summary.json"), summary("bpfa", "mf-ssvi", 7));
    const RunFolder a = readRunFolder(dir.filePath("a"));
    QCOMPARE(a.model, std::string("bpfa"));
    QCOMPARE(a.algorithm, std::string("mf-ssvi"));
    QCOMPARE(a.label, std::string("MF-SSVI")); // the registry's label
    QVERIFY(a.hasSeed);
    QCOMPARE(a.seed, std::uint64_t(7));
    QCOMPARE(a.termination, std::string("diverged"));
    QCOMPARE(a.message, std::string("NaN at step 2"));
    QCOMPARE(a.trace.size(), std::size_t(2));
    QCOMPARE(a.trace[1].metrics.at("psnr"), 21.0);
    QCOMPARE(a.repeats, 1);

    // Killed before its summary: run.json names the run; no ending is known.
    writeText(dir.filePath("b/trace.csv"), kTrace);
    writeText(dir.filePath("b/run.json"),
              "{\"format\": \"svi-run\", \"version\": 2, \"data\": {\"files\": [\"x.png\"]}, "
              "\"model\": \"lda\", \"algorithm\": \"svi\", \"seed\": 3}");
    const RunFolder b = readRunFolder(dir.filePath("b"));
    QCOMPARE(b.model, std::string("lda"));
    QCOMPARE(b.algorithm, std::string("svi"));
    QCOMPARE(b.seed, std::uint64_t(3));
    QVERIFY(b.termination.empty());

    // No trace, no folder, a broken summary: each named.
    writeText(dir.filePath("c/summary.json"), summary("bpfa", "mf-ssvi", 1));
    writeText(dir.filePath("d/trace.csv"), kTrace);
    writeText(dir.filePath("d/summary.json"), "{not json");
    const std::pair<QString, QString> bad[] = {
        {dir.filePath("c"), "holds no trace.csv"},
        {dir.filePath("nowhere"), "no such folder"},
        {dir.filePath("d"), "summary.json': not JSON"},
    };
    for (const auto& [path, reason] : bad) {
        try {
            readRunFolder(path);
            QFAIL(qPrintable("no error for " + path));
        } catch (const DataError& e) {
            const QString what = e.what();
            QVERIFY2(what.contains(QFileInfo(path).fileName()) && what.contains(reason), e.what());
        }
    }
    QVERIFY(isRunFolder(dir.filePath("a")));
    QVERIFY(!isRunFolder(dir.filePath("c")));
}

void TestRunFiles::compareFolderInResultsOrder()
{
    QTemporaryDir dir;
    // Names in the other order than results.json's rows, and -r10 after -r2 by number.
    const struct
    {
        const char* name;
        const char* algorithm;
        int seed;
    } runs[] = {{"bpfa-mf-ssvi-r1", "mf-ssvi", 1},
                {"bpfa-mf-ssvi-r2", "mf-ssvi", 2},
                {"bpfa-mf-ssvi-r10", "mf-ssvi", 10},
                {"bpfa-mf-svi-r1", "mf-svi", 1},
                {"bpfa-mf-svi-r2", "mf-svi", 2}};
    for (const auto& r : runs) {
        writeText(dir.filePath(QString(r.name) + "/trace.csv"), kTrace);
        writeText(dir.filePath(QString(r.name) + "/summary.json"),
                  summary("bpfa", r.algorithm, r.seed));
    }
    writeText(dir.filePath("notes/readme.txt"), "not a run");
    writeText(dir.filePath("results.json"),
              "{\"rows\": [{\"model\": \"bpfa\", \"algorithm\": \"mf-svi\"}, "
              "{\"model\": \"bpfa\", \"algorithm\": \"mf-ssvi\"}]}");
    std::vector<RunFolder> found = readCompareFolder(dir.path());
    QCOMPARE(found.size(), std::size_t(5));
    const char* order[] = {"bpfa-mf-svi-r1", "bpfa-mf-svi-r2", "bpfa-mf-ssvi-r1", "bpfa-mf-ssvi-r2",
                           "bpfa-mf-ssvi-r10"};
    const int repeat[] = {1, 2, 1, 2, 3}, repeats[] = {2, 2, 3, 3, 3};
    for (std::size_t i = 0; i < found.size(); ++i) {
        QCOMPARE(QFileInfo(found[i].path).fileName(), QString(order[i]));
        QCOMPARE(found[i].repeat, repeat[i]);
        QCOMPARE(found[i].repeats, repeats[i]);
    }
    // Without results.json (an interrupted compare): by name, numbers as numbers.
    QVERIFY(QFile::remove(dir.filePath("results.json")));
    found = readCompareFolder(dir.path());
    QCOMPARE(QFileInfo(found[2].path).fileName(), QString("bpfa-mf-ssvi-r10"));
    QCOMPARE(QFileInfo(found[3].path).fileName(), QString("bpfa-mf-svi-r1"));
    QCOMPARE(found[2].repeat, 3);
    // A folder of no runs.
    QVERIFY(readCompareFolder(dir.filePath("notes")).empty());
}

QTEST_GUILESS_MAIN(TestRunFiles)
#include "test_run_files.moc"
