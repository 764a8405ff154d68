// `svi compare` as a user runs it: a model's comparison group (or picks of several models) on
// one corpus and one set of ratings, with repeats; results.csv one row per algorithm with
// mean and sd columns, results.json per run, results.tex a booktabs table of the right shape,
// one folder per run; a single run's figure without a spread; bad picks refused before anything
// runs; an interrupt ends the comparison with the runs done so far tabulated.

#include "tests/app/cli_testing.h"
#include "tests/data_writers.h"
#include "tests/test_files.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace test_support;

namespace {

using Result = test_support::CliResult;

Result svi(const QStringList& args)
{
    return runCli(args, 300000);
}

// results.csv as header → column and rows of cells.
struct Csv
{
    QStringList header;
    QList<QStringList> rows;
    QString at(int row, const QString& column) const
    {
        return rows.value(row).value(int(header.indexOf(column)));
    }
};

// One CSV line's cells (a cell may be quoted, holding commas; "" is a quote).
QStringList cells(const QString& line)
{
    QStringList out;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar ch = line[i];
        if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"')
            cell += line[++i];
        else if (ch == '"')
            quoted = !quoted;
        else if (ch == ',' && !quoted) {
            out << cell;
            cell.clear();
        } else
            cell += ch;
    }
    return out << cell;
}

Csv readCsv(const QString& path)
{
    Csv c;
    const QList<QByteArray> lines = readAll(path).trimmed().split('\n');
    c.header = cells(QString::fromUtf8(lines.value(0)));
    for (qsizetype i = 1; i < lines.size(); ++i)
        c.rows << cells(QString::fromUtf8(lines[i]));
    return c;
}

} // namespace

class TestCliCompare : public QObject
{
    Q_OBJECT
private slots:
    void corpusLdaGroupAndHdp();
    void ratingsHpfGroupAndPmfWithRepeats();
    void badPicksAreRefusedFirst();
    void anInterruptStopsTheRemainingRuns();
    void setKeysGoToThePicksThatDeclareThem();
    void oneRunShowsItsFigureWithoutASpread();
};

void TestCliCompare::corpusLdaGroupAndHdp()
{
    QTemporaryDir dir;
    const QString corpus = writePlantedCorpus(dir.path());
    QVERIFY(!corpus.isEmpty());
    const QString out = dir.filePath("lda");
    // LDA's group (SVI vs batch) and HDP's online algorithm, on one split and budget.
    const Result r =
        svi({"compare", corpus, "--model", "lda", "--algorithms", "lda/svi,lda/batch,hdp/svi",
             "--set", "K=3", "--steps", "20", "--out", out, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const Csv csv = readCsv(out + "/results.csv");
    QCOMPARE(csv.rows.size(), 3); // one row per algorithm
    QCOMPARE(csv.at(0, "model") + "/" + csv.at(0, "algorithm"), QString("lda/svi"));
    QCOMPARE(csv.at(2, "model") + "/" + csv.at(2, "algorithm"), QString("hdp/svi"));
    QVERIFY(csv.header.contains("perplexity_mean") && csv.header.contains("perplexity_sd"));
    QVERIFY(!csv.header.contains("psnr_mean")); // no image metric on a corpus
    for (int row = 0; row < 3; ++row) {
        const double p = csv.at(row, "perplexity_mean").toDouble();
        QVERIFY2(p > 3 && p < 30, qPrintable(csv.at(row, "perplexity_mean")));
        QCOMPARE(csv.at(row, "runs"), QString("1"));
        QVERIFY(csv.at(row, "perplexity_sd").isEmpty()); // one run: no sd
    }
    for (const char* folder : {"lda-svi", "lda-batch", "hdp-svi"})
        QVERIFY2(QFileInfo::exists(out + "/" + folder + "/run.json"), folder);

    // results.tex: a booktabs tabular with a model column (two models), one row per algorithm.
    const QByteArray tex = readAll(out + "/results.tex");
    QVERIFY(tex.contains("\\begin{tabular}") && tex.contains("\\end{tabular}"));
    QVERIFY(tex.contains("\\toprule") && tex.contains("\\midrule") && tex.contains("\\bottomrule"));
    QCOMPARE(tex.count("\\\\"), 1 + 3);
    const QByteArray spec = tex.mid(tex.indexOf("\\begin{tabular}{") + 16);
    const QByteArray columns = spec.left(spec.indexOf('}')).replace(" ", "");
    const QByteArray headerRow = tex.mid(tex.indexOf("\\toprule") + 8);
    // Every row has as many cells as the tabular declares columns.
    QCOMPARE(headerRow.left(headerRow.indexOf("\\\\")).count('&') + 1, columns.size());
    QVERIFY(tex.contains("lda") && tex.contains("hdp"));
}

void TestCliCompare::ratingsHpfGroupAndPmfWithRepeats()
{
    QTemporaryDir dir;
    QVERIFY(writeTasteGroups(dir.path()));
    const QString out = dir.filePath("hpf");
    const Result r = svi({"compare", dir.filePath("u.data"), "--model", "hpf", "--algorithms",
                          "hpf/svi,hpf/batch,pmf/batch", "--set", "K=3", "--steps", "30",
                          "--repeats", "2", "--out", out, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const Csv csv = readCsv(out + "/results.csv");
    QCOMPARE(csv.rows.size(), 3);
    QVERIFY(csv.header.contains("precision_at_20_mean") && csv.header.contains("rmse_sd"));
    for (int row = 0; row < 3; ++row) {
        QCOMPARE(csv.at(row, "runs"), QString("2"));
        QVERIFY(csv.at(row, "precision_at_20_mean").toDouble() > 0);
        QVERIFY(!csv.at(row, "precision_at_20_sd").isEmpty()); // two seeds: an sd
        QCOMPARE(csv.at(row, "terminations"), QString("budget:2"));
    }
    // Each repeat has its own folder and seed.
    const QJsonObject first = readJson(out + "/hpf-svi-r1/run.json");
    const QJsonObject second = readJson(out + "/hpf-svi-r2/run.json");
    QCOMPARE(second["seed"].toInt(), first["seed"].toInt() + 1);
    // results.json keeps every run's figures.
    const QJsonArray rows = readJson(out + "/results.json")["rows"].toArray();
    QCOMPARE(rows.size(), 3);
    QCOMPARE(rows[2].toObject()["per_run"].toArray().size(), 2);
}

void TestCliCompare::badPicksAreRefusedFirst()
{
    QTemporaryDir dir;
    QVERIFY(writeTasteGroups(dir.path()));
    const QString out = dir.filePath("bad");
    // LDA does not take ratings: refused before the first run, no folder left behind.
    const Result r = svi({"compare", dir.filePath("u.data"), "--algorithms", "hpf/svi,lda/svi",
                          "--steps", "5", "--out", out, "--quiet"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("lda"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliCompare::anInterruptStopsTheRemainingRuns()
{
    QTemporaryDir dir;
    QVERIFY(writeTasteGroups(dir.path()));
    const QString out = dir.filePath("stopped");
    // Three runs of 60 s each; SIGTERM (as Ctrl-C) during the first one.
    QProcess p;
    p.start(SVI_CLI,
            {"compare", dir.filePath("u.data"), "--algorithms", "hpf/svi,hpf/batch,pmf/svi",
             "--set", "K=3", "--seconds", "60", "--out", out, "--quiet"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(out + "/hpf-svi/run.json"), 60000);
    QTest::qWait(300);
    p.terminate();
    // The first run ends as cancelled and the other two do not start: well before their 120 s.
    QVERIFY2(p.waitForFinished(30000), "svi compare went on after the interrupt");
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 130);
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("interrupted after 1 of 3 runs"));
    QCOMPARE(readJson(out + "/hpf-svi/summary.json")["termination"].toString(),
             QString("cancelled"));
    QVERIFY(!QFileInfo::exists(out + "/hpf-batch"));
    QVERIFY(!QFileInfo::exists(out + "/pmf-svi"));
    // What was done is tabulated.
    const Csv csv = readCsv(out + "/results.csv");
    QCOMPARE(csv.rows.size(), 1);
    QCOMPARE(csv.at(0, "terminations"), QString("cancelled:1"));
}

void TestCliCompare::setKeysGoToThePicksThatDeclareThem()
{
    // local_tol is a parameter of MF-SVI's coordinate ascent, not of Gibbs-SSVI (the data's
    // default algorithm): compare and bench pass it to the picks that declare it.
    QTemporaryDir dir;
    const QStringList data = {"synthetic", "--rows", "300", "--cols", "10", "--true-k", "4"};
    const QString out = dir.filePath("tol");
    const Result r = svi(QStringList{"compare"} + data +
                         QStringList{"--algorithms", "mf-svi,gibbs-ssvi", "--set", "local_tol=0.01",
                                     "--set", "K=5", "--steps", "3", "--out", out, "--quiet"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject mf = readJson(out + "/bpfa-mf-svi/run.json")["params"].toObject();
    const QJsonObject gibbs = readJson(out + "/bpfa-gibbs-ssvi/run.json")["params"].toObject();
    QCOMPARE(mf["local_tol"].toDouble(), 0.01);
    QCOMPARE(mf["K"].toInt(), 5);
    QCOMPARE(gibbs["K"].toInt(), 5);
    QVERIFY(!gibbs.contains("local_tol"));

    const Result bench = svi(QStringList{"bench"} + data +
                             QStringList{"--algorithms", "mf-svi", "--set", "local_tol=0.01",
                                         "--steps", "2", "--warmup", "0", "--json"});
    QVERIFY2(bench.exitCode == 0, qPrintable(bench.err));
    // A key none of the picks declares is refused, naming the picks.
    const Result refused =
        svi(QStringList{"bench"} + data +
            QStringList{"--algorithms", "gibbs-ssvi", "--set", "local_tol=0.01", "--steps", "2"});
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains("local_tol: not a parameter of bpfa gibbs-ssvi"),
             qPrintable(refused.err));
}

void TestCliCompare::oneRunShowsItsFigureWithoutASpread()
{
    // One run per algorithm has no sd: the table shows each mean alone, not "0.2189 ± nan",
    // and the files leave the sd empty (CSV) or null (JSON).
    QTemporaryDir dir;
    const QString out = dir.filePath("one");
    const Result r =
        svi({"compare", "synthetic", "--rows", "300", "--cols", "10", "--true-k", "4",
             "--algorithms", "mf-svi,gibbs-ssvi", "--set", "K=5", "--steps", "3", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString table = r.err.mid(r.err.lastIndexOf("\nalgorithm"));
    QVERIFY2(table.contains("bpfa/mf-svi") && table.contains("heldout_loglik"), qPrintable(table));
    QVERIFY2(!table.contains("nan") && !table.contains(QString::fromUtf8("±")), qPrintable(table));
    const Csv csv = readCsv(out + "/results.csv");
    QCOMPARE(csv.at(0, "runs"), QString("1"));
    QVERIFY(!csv.at(0, "heldout_loglik_mean").isEmpty());
    QVERIFY(csv.at(0, "heldout_loglik_sd").isEmpty());
    const QJsonObject summary = readJson(out + "/results.json")["rows"]
                                    .toArray()[0]
                                    .toObject()["summary"]
                                    .toObject()["heldout_loglik"]
                                    .toObject();
    QVERIFY(summary["mean"].isDouble());
    QVERIFY(summary["sd"].isNull());
}

QTEST_GUILESS_MAIN(TestCliCompare)
#include "test_cli_compare.moc"
