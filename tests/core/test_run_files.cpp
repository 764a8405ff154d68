// Run files shared by the headless tool and the window: JSON values, CSV traces, atomic writes.

#include "core/io/data_error.h"
#include "core/io/run_files.h"

#include <QFile>
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
    void atomicWriteFailsWithTheFileNamed();
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
    trace[0].elbo = -10;
    trace[0].metrics["psnr"] = 20;
    trace[1].step = 2;
    trace[1].elbo = std::numeric_limits<double>::quiet_NaN();
    trace[1].metrics["mse"] = std::numeric_limits<double>::infinity();
    const QByteArray csv =
        traceCsv(trace, metricKeys(trace), {{"run", "1"}, {"algorithm", "MF, SVI"}});
    const QList<QByteArray> lines = csv.split('\n');
    QCOMPARE(lines.size(), 4); // header, two rows, the empty tail
    QCOMPARE(lines[0], QByteArray("run,algorithm,step,epochs,train_seconds,rho,elbo,mse,psnr"));
    QCOMPARE(lines[1], QByteArray("1,\"MF, SVI\",1,0,0.5,0,-10,,20"));
    QCOMPARE(lines[2], QByteArray("1,\"MF, SVI\",2,0,0,0,,inf,"));
    // Without the header, rows only.
    QCOMPARE(traceCsv(trace, metricKeys(trace), {}, false).count('\n'), 2);
}

void TestRunFiles::csvFieldsAreQuotedWhenNeeded()
{
    QCOMPARE(csvField("plain"), QString("plain"));
    QCOMPARE(csvField("a,b"), QString("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), QString("\"say \"\"hi\"\"\""));
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

QTEST_GUILESS_MAIN(TestRunFiles)
#include "test_run_files.moc"
