// Session files read back: every field checked before it is converted, and the message names
// the file and the field; sessions of version 1 and 2 read in the current form; the run folders
// of version 3 are relative to the file. (The window's own round trip is in test_main_window,
// its runs' folders in test_window_runs.)

#include "core/io/data_error.h"
#include "ui/session.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace svi;
using namespace svi::ui;

class TestSession : public QObject
{
    Q_OBJECT

private slots:
    void readsWhatItWrites();
    void readsASessionOfVersionOne();
    void runFoldersAreRelativeToTheFile();
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
                      R"(, "seed": 2147483647, "budget": {"seconds": 0, "steps": 123})"));
    const Session s = readSessionFile(path);
    QCOMPARE(s.data.kind, std::string("image"));
    QCOMPARE(getInt(s.data.settings, "patch"), std::int64_t(6));
    QCOMPARE(getInt(s.data.settings, "split_seed"), std::int64_t(2147483647));
    QCOMPARE(s.runs.size(), std::size_t(1));
    QCOMPARE(s.runs[0].run.seed, std::uint64_t(2147483647));
    QCOMPARE(s.runs[0].run.steps, std::int64_t(123));
    QCOMPARE(getInt(s.runs[0].run.data.settings, "patch"), std::int64_t(6));
    // Written in the current form (version 3), it reads back the same.
    const QJsonObject json = sessionToJson(s);
    QCOMPARE(json.value("version").toInt(), 3);
    QCOMPARE(json.value("runs").toArray()[0].toObject().value("format").toString(),
             QString("svi-run"));
    const Session again = sessionFromJson(json, path);
    QVERIFY(again.data == s.data);
    QCOMPARE(again.runs.size(), std::size_t(1));
    QVERIFY(again.runs[0].run == s.runs[0].run);
}

// A session written by the window before runs had one description (version 1, in
// tests/data/sessions): one run on each kind of data, each with its own task; relative paths
// are the file's.
void TestSession::readsASessionOfVersionOne()
{
    const QString path = QString(SVI_TEST_DATA_DIR) + "/sessions/v1_four_kinds.json";
    const Session s = readSessionFile(path);
    QCOMPARE(s.data.kind, std::string("image"));
    QCOMPARE(QFileInfo(QString::fromStdString(s.data.files.at(0))).fileName(),
             QString("coins.png"));
    QVERIFY(QFileInfo::exists(QString::fromStdString(s.data.files.at(0))));
    QCOMPARE(getReal(s.data.settings, "missing"), 0.6);
    QCOMPARE(s.runs.size(), std::size_t(4));

    const RunDescription& image = s.runs[0].run;
    QCOMPARE(image.algorithm, std::string("gibbs-ssvi"));
    QCOMPARE(getInt(image.params, "K"), std::int64_t(12));
    QVERIFY(!image.params.count("patch")); // a setting of the image now
    QCOMPARE(getInt(image.data.settings, "patch"), std::int64_t(6));
    QCOMPARE(getInt(image.data.settings, "split_seed"), std::int64_t(5));
    QCOMPARE(image.seed, std::uint64_t(3));
    QCOMPARE(image.steps, std::int64_t(20));
    QCOMPARE(image.evalEvery, 0.25);
    QCOMPARE(s.runs[0].reason, QString("budget"));
    QCOMPARE(s.runs[0].metrics.at("psnr"), 21.5);

    const RunDescription& table = s.runs[1].run;
    QCOMPARE(table.data.kind, std::string("table"));
    QCOMPARE(table.data.files.size(), std::size_t(2));
    for (const std::string& f : table.data.files)
        QVERIFY2(QFileInfo::exists(QString::fromStdString(f)), f.c_str());
    QCOMPARE(splitNames(getChoice(table.data.settings, "channels")),
             std::vector<std::string>({"89Y_CD45", "170Yb_CD3"}));
    QCOMPARE(getReal(table.data.settings, "arcsinh"), 2.0);
    QCOMPARE(getReal(table.data.settings, "heldout"), 0.1);
    QCOMPARE(getInt(table.data.settings, "split_seed"), std::int64_t(4));

    const RunDescription& corpus = s.runs[2].run;
    QCOMPARE(corpus.data.kind, std::string("corpus"));
    QCOMPARE(corpus.model, std::string("lda"));
    QCOMPARE(getInt(corpus.params, "K"), std::int64_t(3));
    QCOMPARE(getChoice(corpus.data.settings, "subset"), std::string("train"));
    QCOMPARE(getInt(corpus.data.settings, "min_df"), std::int64_t(1));
    QCOMPARE(getInt(corpus.data.settings, "vocab_cap"), std::int64_t(5000)); // was "vocabulary"
    QCOMPARE(getReal(corpus.data.settings, "heldout"), 0.25);

    const RunDescription& ratings = s.runs[3].run;
    QCOMPARE(ratings.data.kind, std::string("ratings"));
    QCOMPARE(ratings.model, std::string("hpf"));
    QCOMPARE(getReal(ratings.data.settings, "test_fraction"), 0.3);
    QCOMPARE(getInt(ratings.data.settings, "split_seed"), std::int64_t(6));

    // Saved again, it is a session of the current version that reads back the same.
    const Session again = sessionFromJson(sessionToJson(s), path);
    QVERIFY(again.data == s.data);
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        QVERIFY(again.runs[i].run == s.runs[i].run);
        QCOMPARE(again.runs[i].reason, s.runs[i].reason);
    }
}

// Version 3: each run names its folder relative to the session file; read back, the folder is
// absolute (in the file's folder), and written again as it is given. A session of version 2
// (no folders) reads with none.
void TestSession::runFoldersAreRelativeToTheFile()
{
    const QByteArray run = R"({"format": "svi-run", "version": 2,
        "data": {"files": [":/images/default.png"], "kind": "image"},
        "model": "bpfa", "algorithm": "mf-svi", "budget": {"steps": 5}})";
    const QString path = write(R"({"format": "svi-workbench-session", "version": 3,
        "data": {"files": [":/images/default.png"], "kind": "image"}, "runs": [)" +
                               run.chopped(1) + R"(, "folder": "s.runs/1"}, )" + run + "]}");
    const Session s = readSessionFile(path);
    QCOMPARE(s.runs.size(), std::size_t(2));
    QCOMPARE(s.runs[0].folder, QDir(m_dir.path()).filePath("s.runs/1"));
    QVERIFY(s.runs[1].folder.isEmpty());
    QCOMPARE(sessionRunsFolder(path), QDir(m_dir.path()).filePath("s.runs"));

    Session relative = s;
    relative.runs[0].folder = "s.runs/1";
    const QJsonObject json = sessionToJson(relative);
    const QJsonArray runs = json.value("runs").toArray();
    QCOMPARE(runs[0].toObject().value("folder").toString(), QString("s.runs/1"));
    QVERIFY(!runs[1].toObject().contains("folder"));
    const Session again = sessionFromJson(json, path); // no file: the path stays as written
    QCOMPARE(again.runs[0].folder, QString("s.runs/1"));
    QVERIFY(again.runs[0].run == s.runs[0].run);

    QJsonObject two = json;
    two["version"] = 2;
    QJsonArray plain;
    for (const QJsonValue& r : runs) {
        QJsonObject o = r.toObject();
        o.remove("folder");
        plain.append(o);
    }
    two["runs"] = plain;
    const Session v2 = sessionFromJson(two, path);
    QCOMPARE(v2.runs.size(), std::size_t(2));
    QVERIFY(v2.runs[0].folder.isEmpty());
}

void TestSession::badFields_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray ok = R"(, "seed": 1, "budget": {"seconds": 0, "steps": 5})";
    QTest::newRow("run seed 1e300")
        << session(R"(, "seed": 1)", R"(, "seed": 1e300, "budget": {"steps": 5})")
        << "s.json: runs[0].seed: seed = 1e+300, but must be an integer";
    QTest::newRow("negative run seed")
        << session(R"(, "seed": 1)", R"(, "seed": -3, "budget": {"steps": 5})")
        << "runs[0].seed: seed = -3, but must be in [0, 2147483647]";
    QTest::newRow("steps 1e300") << session("", R"(, "seed": 1, "budget": {"steps": 1e300})")
                                 << "runs[0].budget.steps: steps = 1e+300, but must be an integer";
    QTest::newRow("fractional steps") << session("", R"(, "seed": 1, "budget": {"steps": 2.5})")
                                      << "runs[0].budget.steps: steps = 2.5";
    QTest::newRow("patch 1e300") << session(R"(, "patch": 1e300)", ok)
                                 << "data.settings.patch: patch = 1e+300";
    QTest::newRow("task seed beyond 2^31")
        << session(R"(, "seed": 4294967296)", ok)
        << "data.settings.split_seed: split_seed = 4294967296, but must be in [0, 2147483647]";
    QTest::newRow("steps as words")
        << session("", R"(, "seed": 1, "budget": {"steps": "five"})") << "runs[0].budget.steps:";
    QTest::newRow("K of 0") << session("", R"(, "params": {"K": 0}, "budget": {"steps": 5})")
                            << "runs[0].params.K: K = 0, but must be in";
    QTest::newRow("unknown kind")
        << QByteArray(R"({"format": "svi-workbench-session", "version": 2, "data": {"files":
                         [":/images/default.png"], "kind": "sound"}, "runs": []})")
        << "data.kind: kind = sound, but must be one of:";
    QTest::newRow("version 4")
        << QByteArray(R"({"format": "svi-workbench-session", "version": 4, "runs": []})")
        << "s.json: version: 4, but this version of the workbench reads sessions of version 1 "
           "to 3";
    QTest::newRow("version 2.5")
        << QByteArray(R"({"format": "svi-workbench-session", "version": 2.5, "runs": []})")
        << "s.json: version: 2.5, but";
    QTest::newRow("folder not a path")
        << QByteArray(R"({"format": "svi-workbench-session", "version": 3, "data": {"files":
                         [":/images/default.png"], "kind": "image"}, "runs": [{"format": "svi-run", "version": 2, "data": {"files":
                         [":/images/default.png"], "kind": "image"}, "budget": {"steps": 5},
                         "folder": 7}]})")
        << "s.json: runs[0].folder: must be the path of the run's folder";
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
