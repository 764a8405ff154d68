// Session files read back: every field checked before it is converted, and the message names
// the file and the field. (The window's own round trip is in test_main_window.)

#include "core/io/data_error.h"
#include "ui/session.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace svi;
using namespace svi::ui;

class TestSession : public QObject
{
    Q_OBJECT

private slots:
    void readsWhatItWrites();
    void badFields_data();
    void badFields();

private:
    QString write(const QByteArray& json);
    QTemporaryDir m_dir;
};

QString TestSession::write(const QByteArray& json)
{
    const QString path = m_dir.filePath("s.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(json) != json.size())
        return {};
    return path;
}

namespace {

// One run on the default image; `task` and `run` are spliced into the JSON.
QByteArray session(const QByteArray& task, const QByteArray& run)
{
    return R"({"format": "svi-workbench-session", "version": 1, "data": ":/images/default.png",
               "task": {"kind": "inpaint")" +
           task + R"(}, "runs": [{"model": "bpfa", "algorithm": "mf-svi", "params": {"K": 16})" +
           run + "}]}";
}

} // namespace

void TestSession::readsWhatItWrites()
{
    const QString path =
        write(session(R"(, "missing": 0.5, "patch": 6, "seed": 2147483647)",
                      R"(, "seed": 9007199254740992, "budget": {"seconds": 0, "steps": 123})"));
    const Session s = readSessionFile(path);
    QCOMPARE(s.source.task.patch, 6);
    QCOMPARE(s.source.task.seed, std::uint64_t(2147483647));
    QCOMPARE(s.runs.size(), std::size_t(1));
    QCOMPARE(s.runs[0].spec.seed, std::uint64_t(1) << 53);
    QCOMPARE(s.runs[0].spec.steps, std::int64_t(123));
    const Session again = sessionFromJson(sessionToJson(s), path);
    QCOMPARE(again.runs[0].spec.seed, s.runs[0].spec.seed);
    QCOMPARE(again.runs[0].spec.params, s.runs[0].spec.params);
    QVERIFY(again.source == s.source);
}

void TestSession::badFields_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray ok = R"(, "seed": 1, "budget": {"seconds": 0, "steps": 5})";
    QTest::newRow("run seed 1e300")
        << session("", R"(, "seed": 1e300, "budget": {"steps": 5})")
        << "s.json: runs[0].seed: 1e+300, but must be a whole number in [0, 9007199254740992]";
    QTest::newRow("negative run seed") << session("", R"(, "seed": -3, "budget": {"steps": 5})")
                                       << "runs[0].seed: -3, but must be a whole number";
    QTest::newRow("steps 1e300") << session("", R"(, "seed": 1, "budget": {"steps": 1e300})")
                                 << "runs[0].budget.steps: 1e+300, but must be a whole number";
    QTest::newRow("fractional steps")
        << session("", R"(, "seed": 1, "budget": {"steps": 2.5})") << "runs[0].budget.steps: 2.5";
    QTest::newRow("patch 1e300") << session(R"(, "patch": 1e300)", ok) << "task.patch: 1e+300";
    QTest::newRow("task seed beyond 2^31")
        << session(R"(, "seed": 4294967296)", ok)
        << "task.seed: 4294967296, but must be a whole number in [0, 2147483647]";
    QTest::newRow("steps as text") << session("", R"(, "seed": 1, "budget": {"steps": "5"})")
                                   << "runs[0].budget.steps: not a number";
    QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "s.json: not valid JSON at byte";
}

void TestSession::badFields()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const QString path = write(json);
    QVERIFY(!path.isEmpty());
    try {
        readSessionFile(path);
        QFAIL("read without complaint");
    } catch (const DataError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
