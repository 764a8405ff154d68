// The headless tool as a user runs it: list, info, run, re-run from run.json, and bad input.

#include "tests/app/cli_testing.h"
#include "tests/data_writers.h"
#include "tests/test_files.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

using test_support::readAll;
using test_support::readJson;

namespace {

using Result = test_support::CliResult;

Result svi(const QStringList& args, int timeoutMs = 120000)
{
    return test_support::runCli(args, timeoutMs);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void helpAndList();
    void infoJson();
    void infoOnEveryKind_data();
    void infoOnEveryKind();
    void infoTextAndUnknownFile();
    void runWritesEverything();
    void configReRunsIdentically();
    void badConfig_data();
    void badConfig();
    void badInput_data();
    void badInput();
    void infoFcsAndTables();
    void runOnFcsFiles();
    void runOnSyntheticDataWithRowSplit();
    void corpusInfoRunAndSplit();
    void corpusErrors();
    void ratingsInfoRunSplitAndErrors();

private:
    // A small LDA-C corpus drawn from three planted topics over 30 words (and its vocabulary);
    // returns the counts file's path.
    QString writeSmallCorpus();
    QTemporaryDir m_dir;
    QString m_image;
};

void TestCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // A small crop of the test image keeps the runs short.
    QImage coins(QString(SVI_TEST_DATA_DIR) + "/coins.png");
    QVERIFY(!coins.isNull());
    m_image = m_dir.filePath("small.png");
    QVERIFY(coins.copy(100, 80, 48, 40).save(m_image));
}

void TestCli::helpAndList()
{
    Result r = svi({"--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("svi run"));
    r = svi({"help", "run"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("--missing"));
    r = svi({"list"});
    QCOMPARE(r.exitCode, 0);
    for (const char* a : {"mf-svi", "mimno-svi", "mf-ssvi", "titsias-ssvi", "gibbs-ssvi", "gibbs"})
        QVERIFY2(r.out.contains(QString("--algorithm ") + a), a);
    r = svi({"list", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray entries = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QMap<QString, int> perModel;
    for (const auto& e : entries)
        ++perModel[e.toObject()["model"].toString()];
    QCOMPARE(perModel["bpfa"], 7);
    QVERIFY(perModel["lda"] >= 2); // svi and batch
    bool sawK = false;
    for (const auto& p : entries[0].toObject()["params"].toArray())
        if (p.toObject()["key"].toString() == "K") {
            sawK = true;
            QCOMPARE(p.toObject()["default"].toString(), QString("256"));
        }
    QVERIFY(sawK);
}

void TestCli::infoJson()
{
    const Result r = svi({"info", m_image, "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["kind"].toString(), QString("image"));
    QCOMPARE(o["format"].toString(), QString("png"));
    QCOMPARE(o["width"].toInt(), 48);
    QCOMPARE(o["height"].toInt(), 40);
    QCOMPARE(o["rows"].toInteger(), qint64(41 * 33));
    QCOMPARE(o["cols"].toInteger(), qint64(64));
}

// `svi info --json` on each kind's test files: the kind's key and the figures a person checks,
// as the files' descriptions in tests/data/README.md and the readers' tests state them.
void TestCli::infoOnEveryKind_data()
{
    QTest::addColumn<QStringList>("args"); // the file (in tests/data) and any settings
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QJsonObject>("figures"); // each compared whole (lists too)
    auto row = [](const char* name, QStringList args, const char* kind, QJsonObject figures) {
        if (args[0] != "synthetic")
            args[0] = QString(SVI_TEST_DATA_DIR) + "/" + args[0];
        QTest::newRow(name) << args << QString(kind) << figures;
    };
    // 384 × 303 grey: (384 − p + 1)(303 − p + 1) patches of p² pixels.
    row("coins.png", {"coins.png"}, "image",
        {{"format", "png"},
         {"width", 384},
         {"height", 303},
         {"grayscale", true},
         {"depth", 8},
         {"patch", 8},
         {"patches", 377 * 296},
         {"rows", 377 * 296},
         {"cols", 64}});
    row("coins.png --patch 6", {"coins.png", "--patch", "6"}, "image",
        {{"patch", 6}, {"patches", 379 * 298}, {"cols", 36}});
    row("FCS NR4", {"fcs/Data23_Panel3_base_NR4_Patient9.fcs"}, "table",
        {{"format", "FCS"},
         {"version", "FCS3.0"},
         {"rows", 234},
         {"cols", 30},
         {"datatype", "F"},
         {"byte_order", "big-endian"},
         {"mass_cytometry", true}});
    row("FCS R5", {"fcs/Data23_Panel3_base_R5_Patient15.fcs"}, "table",
        {{"format", "FCS"}, {"rows", 339}, {"cols", 30}, {"mass_cytometry", true}});
    row("FCS CyFlow", {"fcs/cyflow_cube_8.fcs"}, "table",
        {{"format", "FCS"},
         {"version", "FCS3.0"},
         {"rows", 725},
         {"cols", 10},
         {"datatype", "I"},
         {"byte_order", "little-endian"},
         {"mass_cytometry", false}});
    row("FCS variable widths", {"fcs/variable_int_example.fcs"}, "table",
        {{"rows", 2}, {"cols", 26}, {"datatype", "I"}});
    row("CSV", {"levine32_H1_sub200.csv"}, "table",
        {{"format", "delimited text"},
         {"rows", 200},
         {"cols", 39},
         {"delimiter", "comma"},
         {"gzip", false}});
    row("gzip CSV", {"ALL_exprs_head50.csv.gz"}, "table",
        {{"format", "delimited text, gzip"},
         {"rows", 50},
         {"cols", 128},
         {"row_names", true},
         {"gzip", true}});
    row("gzip CSV transposed", {"ALL_exprs_head50.csv.gz", "--transpose"}, "table",
        {{"rows", 128}, {"cols", 50}});
    // 8 posts, one of them only of words no other post has (dropped when a word must be in
    // two documents); the hidden file is skipped.
    const QStringList allWords{"--strip-headers", "--min-df", "1"};
    row("text folder", QStringList{"text/news_sample"} + allWords, "corpus",
        {{"format", "text files in a folder"}, {"documents", 8}, {"dropped_documents", 0}});
    for (const char* archive : {"text/news_sample.tar.gz", "text/news_sample_ustar.tar.gz",
                                "text/news_sample_pax.tar.gz"})
        row(archive, QStringList{archive} + allWords, "corpus",
            {{"format", "text files in a tar archive"},
             {"documents", 8},
             {"dropped_documents", 0}});
    row("text archive, words in two posts",
        {"text/news_sample.tar.gz", "--strip-headers", "--min-df", "2"}, "corpus",
        {{"documents", 7}, {"dropped_documents", 1}});
    // Item 3 has no line in u.item, so 5 of the 6 items have a title.
    row("u.data", {"ratings/ml100k_style/u.data"}, "ratings",
        {{"users", 4},
         {"items", 6},
         {"ratings", 17},
         {"values", QJsonArray{1, 2, 3, 4, 5}},
         {"titled_items", 5}});
    row("ml-100k folder", {"ratings/ml100k_style"}, "ratings",
        {{"users", 4}, {"items", 6}, {"ratings", 17}});
    row("ratings.dat", {"ratings/ml1m_style/ratings.dat"}, "ratings",
        {{"users", 3},
         {"items", 3},
         {"ratings", 8},
         {"values", QJsonArray{1, 2, 3, 4, 5}},
         {"titled_items", 3}});
    row("ratings.csv", {"ratings/mllatest_style/ratings.csv"}, "ratings",
        {{"users", 3},
         {"items", 3},
         {"ratings", 7},
         {"values", QJsonArray{0.5, 1, 2.5, 3, 3.5, 4.5, 5}},
         {"titled_items", 3}});
    row("synthetic", {"synthetic", "--rows", "50", "--cols", "7"}, "synthetic",
        {{"rows", 50}, {"cols", 7}, {"true_k", 80}});
}

void TestCli::infoOnEveryKind()
{
    QFETCH(QStringList, args);
    QFETCH(QString, kind);
    QFETCH(QJsonObject, figures);
    const Result r = svi(QStringList{"info", "--json"} + args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["kind"].toString(), kind);
    QCOMPARE(o["path"].toString(), args[0]);
    for (auto it = figures.begin(); it != figures.end(); ++it)
        QVERIFY2(
            o[it.key()] == it.value(),
            qPrintable(
                it.key() + ": " +
                QJsonDocument(QJsonArray{o[it.key()], it.value()}).toJson(QJsonDocument::Compact)));
}

// The text names the kind and shows an FCS file's channels as a table, a row per channel; a file
// no kind reads gets the one message that lists every kind with its formats.
void TestCli::infoTextAndUnknownFile()
{
    Result r =
        svi({"info", QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    auto lineWith = [&](const QStringList& words) {
        for (const QString& l : lines)
            if (std::all_of(words.begin(), words.end(),
                            [&](const QString& w) { return l.contains(w); }))
                return l;
        return QString();
    };
    QVERIFY2(!lineWith({"kind", "table (Table)"}).isEmpty(), qPrintable(r.out));
    QVERIFY2(!lineWith({"rows", "234 events"}).isEmpty(), qPrintable(r.out));
    QVERIFY2(!lineWith({"mass cytometry", "yes", "asinh(x / 5)"}).isEmpty(), qPrintable(r.out));
    QVERIFY2(!lineWith({"Bi209Di", "209Bi_CD11b", "32"}).isEmpty(), qPrintable(r.out));

    const QString junk = m_dir.filePath("junk.bin");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("\x01\x02\x03\xff\xfe\x00\x07", 7).repeated(40));
    f.close();
    r = svi({"info", junk});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("'" + junk + "' is not a file of any kind the workbench reads"),
             qPrintable(r.err));
    for (const char* kind : {"image", "table", "corpus", "ratings", "synthetic"})
        QVERIFY2(r.err.contains(QString("\n  ") + kind + ": "), qPrintable(r.err));
}

void TestCli::runWritesEverything()
{
    const QString out = m_dir.filePath("run1");
    const Result r = svi(
        {"run",   m_image,       "--kind",  "image",         "--missing", "0.5",   "--noise",
         "5",     "--algorithm", "mf-ssvi", "--set",         "K=16",      "--set", "minibatch=64",
         "--set", "init=random", "--set",   "eval_items=50", "--steps",   "20",    "--seed",
         "3",     "--out",       out,       "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (const char* f : {"summary.json", "trace.csv", "run.json", "observed.png",
                          "reconstruction.png", "atoms.png"})
        QVERIFY2(QFile::exists(out + "/" + f), f);
    // 16 atoms of 8×8: 4 × 4 tiles, 8 pixels per atom pixel, 2-pixel borders (not 37 × 37).
    QCOMPARE(QImage(out + "/atoms.png").size(), QSize(4 * (64 + 2) + 2, 4 * (64 + 2) + 2));
    QVERIFY(!QFile::exists(out + "/checkpoint.bin"));
    const QJsonObject s = readJson(out + "/summary.json");
    QCOMPARE(s["model"].toString(), QString("bpfa"));
    QCOMPARE(s["algorithm"].toString(), QString("mf-ssvi"));
    QCOMPARE(s["steps"].toInteger(), qint64(20));
    QCOMPARE(s["termination"].toString(), QString("budget"));
    QCOMPARE(s["seed"].toInteger(), qint64(3));
    QVERIFY(std::abs(s["epochs"].toDouble() - 20.0 * 64 / (41 * 33)) < 1e-9);
    QVERIFY(s["train_seconds"].toDouble() > 0);
    QVERIFY(s["seconds_per_step"].toDouble() > 0);
    const QJsonObject m = s["metrics"].toObject();
    for (const char* k : {"psnr", "psnr_missing", "heldout_loglik", "mse"})
        QVERIFY2(m.contains(k) && m[k].isDouble(), k);
    QVERIFY(m["psnr"].toDouble() > 10 && m["psnr"].toDouble() < 60);
    QCOMPARE(s["task"].toObject()["missing"].toDouble(), 0.5);

    QFile trace(out + "/trace.csv");
    QVERIFY(trace.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(trace.readAll()).trimmed().split('\n');
    QVERIFY(lines.size() >= 3);
    const QStringList header = lines[0].split(',');
    for (const char* col :
         {"step", "epochs", "train_seconds", "elbo", "heldout_loglik", "mse", "psnr"})
        QVERIFY2(header.contains(col), col);
    QCOMPARE(lines.last().split(',')[0], QString("20"));

    QImage rec(out + "/reconstruction.png");
    QCOMPARE(rec.size(), QSize(48, 40));
    QImage obs(out + "/observed.png");
    QCOMPARE(obs.size(), QSize(48, 40));
    // The mask names the observed pixels: about half at --missing 0.5, and only those are seen.
    const QImage mask = QImage(out + "/mask.png").convertToFormat(QImage::Format_Grayscale8);
    const QImage seen = obs.convertToFormat(QImage::Format_Grayscale8);
    QCOMPARE(mask.size(), QSize(48, 40));
    int observed = 0, seenWhereRemoved = 0;
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 48; ++x) {
            QVERIFY(mask.pixelColor(x, y).value() == 0 || mask.pixelColor(x, y).value() == 255);
            observed += mask.pixelColor(x, y).value() == 255;
            seenWhereRemoved += mask.pixelColor(x, y).value() == 0 && qGray(seen.pixel(x, y)) != 0;
        }
    QCOMPARE(observed, 48 * 40 / 2);
    QCOMPARE(seenWhereRemoved, 0);
}

void TestCli::configReRunsIdentically()
{
    const QString a = m_dir.filePath("cfgA"), b = m_dir.filePath("cfgB");
    Result r = svi({"run",
                    m_image,
                    "--algorithm",
                    "gibbs-ssvi",
                    "--set",
                    "K=12",
                    "--set",
                    "init_items=200",
                    "--set",
                    "init_sweeps=3",
                    "--set",
                    "eval_items=40",
                    "--steps",
                    "8",
                    "--seed",
                    "9",
                    "--out",
                    a,
                    "--quiet",
                    "--threads",
                    "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = svi({"run", "--config", a + "/run.json", "--out", b, "--quiet", "--threads", "1"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject sa = readJson(a + "/summary.json"), sb = readJson(b + "/summary.json");
    QCOMPARE(sb["steps"].toInteger(), qint64(8));
    QCOMPARE(sb["algorithm"].toString(), QString("gibbs-ssvi"));
    // Same configuration and seed → the same numbers, whatever the thread count.
    QCOMPARE(sb["metrics"].toObject()["psnr"].toDouble(),
             sa["metrics"].toObject()["psnr"].toDouble());
    QCOMPARE(sb["metrics"].toObject()["heldout_loglik"].toDouble(),
             sa["metrics"].toObject()["heldout_loglik"].toDouble());
    QCOMPARE(readJson(b + "/run.json")["params"].toObject()["K"].toInt(), 12);
}

// A run.json is checked field by field before anything is converted: a number where an
// integer belongs, out of range, or a field of the wrong type is named, never read as garbage
// or silently as its default.
void TestCli::badConfig_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    // Version 1, as earlier svi wrote it (the embedded image when no data are named) …
    const QByteArray head = R"({"version": 1, "model": "bpfa", "algorithm": "mf-svi", )";
    const QByteArray table = R"({"version": 1, "data": ")" + QByteArray(SVI_TEST_DATA_DIR) +
                             R"(/levine32_H1_sub200.csv", "model": "bpfa", )";
    QTest::newRow("steps 1e300") << head + R"("budget": {"steps": 1e300}})"
                                 << "budget.steps: steps = 1e+300, but must be an integer";
    QTest::newRow("fractional steps") << head + R"("budget": {"steps": 2.5}})"
                                      << "budget.steps: steps = 2.5";
    QTest::newRow("negative seed") << head + R"("seed": -1, "budget": {"steps": 2}})"
                                   << "split_seed = -1, but must be in [0, 2147483647]";
    QTest::newRow("huge subsample")
        << table + R"("task": {"subsample": 1e19}, "budget": {"steps": 2}})"
        << "data.settings.subsample: subsample = 1e+19";
    QTest::newRow("table setting of an image")
        << head + R"("task": {"subsample": 10}, "budget": {"steps": 2}})"
        << "data.settings.subsample: not a known setting (known: missing, noise, patch";
    QTest::newRow("threads as text") << head + R"("threads": "two", "budget": {"steps": 2}})"
                                     << "threads: threads = two, but must be an integer";
    QTest::newRow("task not an object") << head + R"("task": [1, 2], "budget": {"steps": 2}})"
                                        << "task: must be an object";
    QTest::newRow("budget not an object") << head + R"("budget": 5})"
                                          << "budget: must be an object";
    QTest::newRow("flag as text")
        << table + R"("task": {"standardise": "maybe"}, "budget": {"steps": 2}})"
        << "data.settings.standardise: standardise = maybe, but must be true or false";
    QTest::newRow("channels not names")
        << table + R"("task": {"channels": [1]}, "budget": {"steps": 2}})"
        << "data.settings.channels: must be a list of names";
    // … and version 2, the one form of a run description.
    QTest::newRow("v2 without data") << QByteArray(R"({"version": 2, "budget": {"steps": 2}})")
                                     << "data: missing or not an object";
    QTest::newRow("v2 unknown kind")
        << QByteArray(R"({"format": "svi-run", "version": 2, "data": {"files": ["x.png"],)"
                      R"( "kind": "movie"}, "budget": {"steps": 2}})")
        << "data.kind: kind = movie, but must be one of: synthetic, synthetic-ratings, ratings, "
           "corpus, labelled, graph, table, image";
    QTest::newRow("v2 unknown parameter")
        << QByteArray(R"({"format": "svi-run", "version": 2, "data": {"files":)"
                      R"( [":/images/default.png"]}, "params": {"Q": 1}, "budget": {"steps": 2}})")
        << "params.Q: not a known setting (known: K,";
    QTest::newRow("version 3") << QByteArray(R"({"version": 3, "budget": {"steps": 2}})")
                               << "version: = 3, but this version reads 1 and 2";
    QTest::newRow("not JSON") << QByteArray(R"({"version": 1,)")
                              << "not a run description: unterminated object";
}

void TestCli::badConfig()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const QString path = m_dir.filePath("bad-run.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(json) == json.size());
    f.close();
    const Result r = svi({"run", "--config", path, "--out", m_dir.filePath("bad"), "--quiet"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(r.err.contains("bad-run.json"), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
}

void TestCli::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString missing = "/no/such/file.png";
    QTest::newRow("missing file") << QStringList{"run", missing, "--steps", "1"}
                                  << "cannot read '/no/such/file.png': file does not exist";
    // A setting is named by the flag that sets it, once.
    QTest::newRow("missing fraction") << QStringList{"run", "--missing", "1.5", "--steps", "1"}
                                      << "svi: error: --missing = 1.5, but must be in";
    QTest::newRow("K < 1") << QStringList{"run", "--set", "K=0", "--steps", "1"}
                           << "svi: error: --set K = 0, but must be in [1, 4096]";
    QTest::newRow("ratings split leaves nothing to train")
        << QStringList{"run",
                       QString(SVI_TEST_DATA_DIR) + "/ratings/ml100k_style/u.data",
                       "--test-fraction",
                       "0.8",
                       "--validation-fraction",
                       "0.3",
                       "--steps",
                       "1"}
        << "--validation-fraction = 0.3, but must be < 1 − --test-fraction = 0.2";
    QTest::newRow("unknown algorithm")
        << QStringList{"run", "--algorithm", "magic", "--steps", "1"} << "algorithm = magic";
    QTest::newRow("unknown parameter")
        << QStringList{"run", "--set", "foo=1", "--steps", "1"}
        << "--set foo: not a parameter of bpfa gibbs-ssvi (known: K,";
    QTest::newRow("bad number") << QStringList{"run", "--seconds", "ten"} << "--seconds = ten";
    QTest::newRow("unknown command") << QStringList{"fly"} << "unknown command 'fly'";
    QTest::newRow("info without file") << QStringList{"info"} << "which file";
    QTest::newRow("bad config") << QStringList{"run", "--config", "/no/such/run.json"}
                                << "cannot read '/no/such/run.json'";
    const QString fcs = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    const QString csv = QString(SVI_TEST_DATA_DIR) + "/levine32_H1_sub200.csv";
    QTest::newRow("unknown channel")
        << QStringList{"run", fcs, "--channels", "CD3,CD999", "--steps", "1"}
        << "no channel or marker named 'CD999'";
    QTest::newRow("image setting of a table")
        << QStringList{"run", fcs, "--missing", "0.5", "--steps", "1"}
        << "--missing is not a setting of Table data";
    QTest::newRow("table as an image")
        << QStringList{"run", fcs, "--kind", "image", "--steps", "1"} << "not an image";
    QTest::newRow("held-out fraction")
        << QStringList{"run", fcs, "--heldout", "1", "--steps", "1"} << "heldout = 1";
    QTest::newRow("bad split") << QStringList{"run", fcs, "--split", "cells", "--steps", "1"}
                               << "--split = cells";
    // An FCS file and a table stack only when their columns agree: the first that differs is
    // named.
    QTest::newRow("columns differ") << QStringList{"run", fcs, csv, "--steps", "1"}
                                    << "levine32_H1_sub200.csv' has no channel 'Bi209Di'";
    QTest::newRow("truncated FCS")
        << QStringList{"info", QString(SVI_TEST_DATA_DIR) + "/fcs/npm_fcs_AriaFile1_truncated.fcs"}
        << "truncated: 6052 of 10000 events present";
}

void TestCli::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    if (args.size() > 1 && args[0] == "run")
        args << "--out" << m_dir.filePath("bad") << "--quiet";
    const Result r = svi(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("svi: error: "), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0); // one line
}

void TestCli::infoFcsAndTables()
{
    const QString fcs = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    Result r = svi({"info", fcs, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["kind"].toString(), QString("table")); // the data kind; FCS is its format
    QCOMPARE(o["format"].toString(), QString("FCS"));
    QCOMPARE(o["rows"].toInteger(), qint64(234));
    QCOMPARE(o["cols"].toInteger(), qint64(30));
    QCOMPARE(o["version"].toString(), QString("FCS3.0"));
    QCOMPARE(o["datatype"].toString(), QString("F"));
    QCOMPARE(o["byte_order"].toString(), QString("big-endian"));
    QCOMPARE(o["names"].toArray().size(), 30);
    QCOMPARE(o["names"].toArray()[0].toString(), QString("Bi209Di"));
    QCOMPARE(o["markers"].toArray()[0].toString(), QString("209Bi_CD11b"));
    QVERIFY(o["mass_cytometry"].toBool()); // metal-tag channel names

    r = svi({"info", QString(SVI_TEST_DATA_DIR) + "/ALL_exprs_head50.csv.gz", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject t = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(t["kind"].toString(), QString("table"));
    QCOMPARE(t["rows"].toInteger(), qint64(50));
    QCOMPARE(t["cols"].toInteger(), qint64(128));
    QVERIFY(t["gzip"].toBool());
    QVERIFY(t["row_names"].toBool());
}

// Two FCS files stacked, four channels by marker, arcsinh by default (mass cytometry): the summary
// names the data, the held-out scores are there and loadings.csv has one column per channel.
void TestCli::runOnFcsFiles()
{
    const QString a = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    const QString b = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_R5_Patient15.fcs";
    const QString out = m_dir.filePath("fcsrun");
    const Result r = svi({"run", a, b, "--channels", "CD45,170Yb_CD3,yb173di,HLA-DR", "--algorithm",
                          "mf-ssvi", "--set", "K=8", "--set", "init_items=200", "--set",
                          "init_sweeps=2", "--steps", "30", "--out", out, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject s = readJson(out + "/summary.json");
    QCOMPARE(s["rows"].toInteger(), qint64(573));
    QCOMPARE(s["cols"].toInteger(), qint64(4));
    QCOMPARE(s["task"].toObject()["heldout"].toDouble(), 0.05); // the CyTOF default
    QCOMPARE(s["task"].toObject()["arcsinh"].toDouble(), 5.0);  // likewise
    QVERIFY(s["metrics"].toObject()["heldout_loglik"].toDouble() < 0);
    QVERIFY(s["metrics"].toObject()["mse"].toDouble() > 0);
    QVERIFY(s["source"].toString().contains(" + "));
    QFile loadings(out + "/loadings.csv");
    QVERIFY(loadings.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = loadings.readAll().trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("feature,weight,89Y_CD45,170Yb_CD3,173Yb_CD56,174Yb_HLA-DR"));
    QCOMPARE(lines.size(), 9);
    QVERIFY(!QFile::exists(out + "/observed.png"));
    // run.json re-runs it: both files, the channels and the transform are kept.
    const QJsonObject cfg = readJson(out + "/run.json");
    const QJsonObject data = cfg["data"].toObject();
    QCOMPARE(data["files"].toArray().size(), 2);
    QCOMPARE(data["settings"].toObject()["channels"].toString().split(',').size(), 4);
    QCOMPARE(data["settings"].toObject()["arcsinh"].toDouble(), 5.0);
    const Result again = svi({"run", "--config", out + "/run.json", "--out", out + "2", "--quiet"});
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    QCOMPARE(readJson(out + "2/summary.json")["metrics"].toObject()["heldout_loglik"].toDouble(),
             s["metrics"].toObject()["heldout_loglik"].toDouble());
    // --arcsinh 0 turns the transform off: another fit of other numbers.
    const Result raw = svi(
        {"run", "--config", out + "/run.json", "--arcsinh", "0", "--out", out + "3", "--quiet"});
    QVERIFY2(raw.exitCode == 0, qPrintable(raw.err));
    const QJsonObject s3 = readJson(out + "3/summary.json");
    QCOMPARE(s3["task"].toObject()["arcsinh"].toDouble(), 0.0);
    QVERIFY(s3["metrics"].toObject()["mse"].toDouble() !=
            s["metrics"].toObject()["mse"].toDouble());
}

void TestCli::runOnSyntheticDataWithRowSplit()
{
    const QString out = m_dir.filePath("synth");
    const Result r =
        svi({"run",         "synthetic",  "--rows",  "2000", "--cols",    "12",
             "--true-k",    "6",          "--split", "rows", "--heldout", "0.1",
             "--algorithm", "gibbs-ssvi", "--set",   "K=10", "--set",     "init=random",
             "--steps",     "40",         "--out",   out,    "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject s = readJson(out + "/summary.json");
    QCOMPARE(s["rows"].toInteger(), qint64(2000));
    QCOMPARE(s["training_rows"].toInteger(), qint64(1800)); // 10 % test rows
    QCOMPARE(s["task"].toObject()["split"].toString(), QString("rows"));
    QVERIFY(s["metrics"].toObject()["heldout_loglik_total"].toDouble() < 0);
}

QString TestCli::writeSmallCorpus()
{
    // Topic t puts its mass on words 10t … 10t+9; each document mixes two topics. A fixed LCG
    // keeps the file the same on every machine.
    std::uint64_t state = 12345;
    auto next = [&state](int n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return int((state >> 33) % std::uint64_t(n));
    };
    QByteArray ldac, vocab;
    for (int w = 0; w < 30; ++w)
        vocab += "word" + QByteArray::number(w) + "\n";
    for (int d = 0; d < 120; ++d) {
        std::map<int, int> counts;
        const int a = d % 3, b = (d / 3) % 3;
        for (int n = 0; n < 40; ++n)
            ++counts[10 * (n % 4 == 0 ? b : a) + next(10)];
        ldac += QByteArray::number(qint64(counts.size()));
        for (const auto& [w, c] : counts)
            ldac += " " + QByteArray::number(w) + ":" + QByteArray::number(c);
        ldac += "\n";
    }
    const QString path = m_dir.filePath("small.ldac");
    QFile f(path), v(m_dir.filePath("vocab.txt"));
    if (!f.open(QIODevice::WriteOnly) || f.write(ldac) != ldac.size() ||
        !v.open(QIODevice::WriteOnly) || v.write(vocab) != vocab.size())
        qFatal("cannot write the corpus");
    return path;
}

// A corpus as a user meets it: info counts it, run fits LDA and scores document completion,
// split writes the very documents and words that run trained and scored on.
void TestCli::corpusInfoRunAndSplit()
{
    const QString corpus = writeSmallCorpus();
    Result r = svi({"info", corpus, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject info = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(info["kind"].toString(), QString("corpus"));
    QCOMPARE(info["documents"].toInteger(), qint64(120));
    QCOMPARE(info["vocabulary"].toInteger(), qint64(30));
    QCOMPARE(info["tokens"].toInteger(), qint64(120 * 40));

    const QString out = m_dir.filePath("lda");
    r = svi({"run", corpus, "--set", "K=3", "--steps", "40", "--set", "minibatch=20", "--out", out,
             "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject s = readJson(out + "/summary.json");
    QCOMPARE(s["model"].toString(), QString("lda")); // the model for a corpus, by default
    QCOMPARE(s["algorithm"].toString(), QString("svi"));
    QCOMPARE(s["task"].toObject()["kind"].toString(), QString("corpus"));
    QCOMPARE(s["rows"].toInteger(), qint64(120));
    QCOMPARE(s["training_rows"].toInteger(), qint64(120 - 12)); // 10 % test documents
    const QJsonObject m = s["metrics"].toObject();
    const double perplexity = m["perplexity"].toDouble();
    QVERIFY2(perplexity > 1 && perplexity < 30,
             qPrintable(QString::number(perplexity))); // < uniform
    QVERIFY(qAbs(std::log(perplexity) + m["heldout_loglik_per_word"].toDouble()) < 1e-9);
    QFile topics(out + "/topics.csv");
    QVERIFY(topics.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = topics.readAll().trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("topic,weight,rank,word,probability"));
    QVERIFY(lines.size() > 10 && lines[1].contains(",word"));

    // The split on disk: the training documents, and each test document in two halves that
    // add up to the document.
    const QString split = m_dir.filePath("split");
    r = svi({"split", corpus, "--out", split, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto lines_ = [](const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().split('\n')
                                           : QList<QByteArray>{};
    };
    const auto train = lines_(split + "/train.ldac");
    const auto observed = lines_(split + "/test_observed.ldac");
    const auto heldout = lines_(split + "/test_heldout.ldac");
    QCOMPARE(train.size(), 108);
    QCOMPARE(observed.size(), 12);
    QCOMPARE(heldout.size(), 12);
    QCOMPARE(lines_(split + "/vocab.txt").size(), 30);
    auto tokens = [](const QByteArray& line) {
        int n = 0;
        for (const QByteArray& pair : line.split(' ').mid(1))
            n += pair.split(':').value(1).toInt();
        return n;
    };
    for (int i = 0; i < 12; ++i) {
        QCOMPARE(tokens(observed[i]) + tokens(heldout[i]), 40);
        QCOMPARE(tokens(observed[i]), 20); // ⌊n/2⌋ condition, the rest is scored
    }
}

void TestCli::corpusErrors()
{
    const QString bad = test_support::writeFile(m_dir, "bad.ldac", "2 0:1 1:2\n2 0:1 7x:2\n");
    test_support::writeFile(m_dir, "bad.vocab", "a\nb\n");
    Result r = svi({"run", bad, "--steps", "2", "--out", m_dir.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bad.ldac") && r.err.contains("line 2"), qPrintable(r.err));
    r = svi({"run", writeSmallCorpus(), "--heldout", "1.5", "--steps", "2", "--out",
             m_dir.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("heldout"), qPrintable(r.err));
    r = svi({"run", writeSmallCorpus(), "--model", "bpfa", "--steps", "2", "--out",
             m_dir.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("does not model Corpus data: choose a model of Corpus data (lda, "
                            "hdp, ctm, hpf, pmf), or data of a kind"),
             qPrintable(r.err));
}

// Ratings as a user runs them: info counts users, items and the scale; run fits HPF and writes
// the metrics, the factors and every user's list; split writes exactly the ratings run used;
// bad files and settings exit 2 naming the file, line or field.
void TestCli::ratingsInfoRunSplitAndErrors()
{
    const QString folder = m_dir.filePath("ml");
    QVERIFY(QDir().mkpath(folder));
    QByteArray data;
    for (int u = 1; u <= 90; ++u) {
        const int g = u % 3;
        for (int j = 0; j < 8; ++j)
            data += QByteArray::number(u) + '\t' +
                    QByteArray::number(1 + g * 10 + (u * 7 + j * 3) % 10) + '\t' +
                    (j % 2 ? "5" : "4") + "\t881250949\n";
        data += QByteArray::number(u) + '\t' + QByteArray::number(1 + ((g + 1) % 3) * 10 + u % 10) +
                "\t1\t881250950\n";
    }
    test_support::writeFile(m_dir, "ml/u.data", data.toStdString());

    Result r = svi({"info", folder + "/u.data", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject info = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(info["kind"].toString(), QString("ratings"));
    QCOMPARE(info["users"].toInteger(), qint64(90));
    QCOMPARE(info["items"].toInteger(), qint64(30));
    QCOMPARE(info["ratings"].toInteger(), qint64(90 * 9));
    QCOMPARE(info["values"].toArray().size(), 3); // 1, 4, 5

    const QString out = m_dir.filePath("hpf");
    r = svi({"run", folder, "--algorithm", "batch", "--set", "K=3", "--steps", "60", "--out", out,
             "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject s = readJson(out + "/summary.json");
    QCOMPARE(s["model"].toString(), QString("hpf")); // the model for ratings, by default
    QCOMPARE(s["task"].toObject()["kind"].toString(), QString("ratings"));
    const QJsonObject split = s["facts"].toObject();
    QCOMPARE(split["test"].toInteger(), qint64(90 * 2));
    QCOMPARE(split["train"].toInteger() + split["test"].toInteger() +
                 split["validation"].toInteger(),
             qint64(90 * 9));
    const QJsonObject m = s["metrics"].toObject();
    for (const char* k : {"heldout_loglik", "rmse", "accuracy", "precision_at_20", "recall_at_20",
                          "popularity_precision_at_20", "popularity_recall_at_20"})
        QVERIFY2(m.contains(k), k);
    QVERIFY2(m["recall_at_20"].toDouble() > m["popularity_recall_at_20"].toDouble(),
             qPrintable(QString("%1 vs %2")
                            .arg(m["recall_at_20"].toDouble())
                            .arg(m["popularity_recall_at_20"].toDouble())));
    const QList<QByteArray> users = readAll(out + "/user_factors.tsv").trimmed().split('\n');
    QCOMPARE(users.size(), 1 + 90); // a header, then a line per user: id, K factors
    QCOMPARE(users[0], QByteArray("user_id\tfactor_1\tfactor_2\tfactor_3"));
    QCOMPARE(users[1].split('\t').size(), 1 + 3);
    QCOMPARE(users[1].split('\t')[0], QByteArray("1"));
    QVERIFY(readAll(out + "/item_factors.tsv").startsWith("item_id\tfactor_1\tfactor_2\t"));
    const QList<QByteArray> recs = readAll(out + "/recommendations.csv").trimmed().split('\n');
    QCOMPARE(recs[0], QByteArray("user_id,rank,item_id,title,score,held_out"));
    QCOMPARE(recs.size(), 1 + 90 * 20);

    const QString splitDir = m_dir.filePath("ml-split");
    r = svi({"split", folder + "/u.data", "--out", splitDir, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(qint64(readAll(splitDir + "/test.tsv").count('\n')), split["test"].toInteger());
    QCOMPARE(qint64(readAll(splitDir + "/train.tsv").count('\n')), split["train"].toInteger());
    QVERIFY(readAll(splitDir + "/train.tsv").startsWith("1\t"));

    // A saved configuration keeps the ratings task's settings: the same split again.
    const QString share = m_dir.filePath("hpf-share");
    r = svi({"run", folder, "--algorithm", "batch", "--set", "K=3", "--steps", "5",
             "--test-fraction", "0.3", "--validation-fraction", "0.05", "--out", share, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = svi({"run", "--config", share + "/run.json", "--out", share + "2", "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject t1 = readJson(share + "/summary.json")["task"].toObject();
    const QJsonObject t2 = readJson(share + "2/summary.json")["task"].toObject();
    QCOMPARE(t2["test_fraction"].toDouble(), 0.3);
    QCOMPARE(t2["validation_fraction"].toDouble(), 0.05);
    const QJsonObject f1 = readJson(share + "/summary.json")["facts"].toObject();
    QCOMPARE(readJson(share + "2/summary.json")["facts"].toObject(), f1);
    QVERIFY(f1["test"].toInteger() > split["test"].toInteger());
    QCOMPARE(t1, t2);

    // Errors.
    QFile dup(m_dir.filePath("dup/ratings.dat"));
    QVERIFY(QDir().mkpath(m_dir.filePath("dup")));
    QVERIFY(dup.open(QIODevice::WriteOnly));
    dup.write("1::2::3::978300760\n2::2::4::978300760\n1::2::5::978300761\n");
    dup.close();
    r = svi({"run", dup.fileName(), "--steps", "2", "--out", m_dir.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("ratings.dat") && r.err.contains("line 3"), qPrintable(r.err));
    r = svi(
        {"run", folder, "--test-fraction", "1.5", "--steps", "2", "--out", m_dir.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--test-fraction = 1.5, but must be in [0, 0.99]"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
