// `mpirun -np 2 svi run …`: a run on two ranks gives the trace of the same run on one rank, to
// rounding (the ranks' partial sums are added in another order); a run checkpointed on two
// ranks resumes on one (and the other way round) as if it had never stopped; a model that does
// not distribute is refused with a message, not run twice. Built when MPI is found (MPIEXEC and
// SVI_CLI are the launcher's and the tool's paths).

#include "tests/app/cli_testing.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using test_support::CliResult;
using test_support::runCli;

namespace {

// The launcher's environment: Open MPI refuses root (CI runs as root) unless told, and the
// test machine may have fewer cores than ranks.
QProcessEnvironment mpiEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMPI_ALLOW_RUN_AS_ROOT", "1");
    env.insert("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    env.insert("OMPI_MCA_rmaps_base_oversubscribe", "1");
    // No network probing on a test machine: the ranks share memory.
    env.insert("OMPI_MCA_btl", "self,vader");
    // Under AddressSanitizer, no leak check in the ranks: Open MPI keeps its components'
    // allocations past MPI_Finalize and unloads their libraries, so LeakSanitizer reports them
    // with frames it cannot name or suppress. The same runs on one rank (every other test) are
    // leak-checked.
    if (env.contains("ASAN_OPTIONS"))
        env.insert("ASAN_OPTIONS", env.value("ASAN_OPTIONS") + ":detect_leaks=0");
    return env;
}

CliResult runMpi(int ranks, const QStringList& args)
{
    return test_support::runProgram(
        MPIEXEC, QStringList{"-np", QString::number(ranks), "--oversubscribe", SVI_CLI} + args,
        300000, {}, mpiEnvironment());
}

QString corpus()
{
    return QString(SVI_TEST_DATA_DIR) + "/text/news_sample.tar.gz";
}

// LDA on the sample corpus, to `steps` (the output folder is added by the caller).
QStringList ldaArgs(int steps)
{
    return {"run",
            corpus(),
            "--model",
            "lda",
            "--set",
            "K=8",
            "--set",
            "minibatch=12",
            "--steps",
            QString::number(steps),
            "--eval-every-steps",
            "10",
            "--threads",
            "1",
            "--quiet"};
}

QStringList out(const QString& dir)
{
    return {"--out", dir};
}

// trace.csv as numbers by column name, one vector per column.
QMap<QString, QVector<double>> trace(const QString& dir)
{
    QFile f(dir + "/trace.csv");
    QMap<QString, QVector<double>> columns;
    if (!f.open(QIODevice::ReadOnly))
        return columns;
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    const QList<QByteArray> header = lines.value(0).split(',');
    for (qsizetype l = 1; l < lines.size(); ++l) {
        const QList<QByteArray> cells = lines[l].split(',');
        for (qsizetype c = 0; c < header.size() && c < cells.size(); ++c)
            columns[QString::fromUtf8(header[c])].push_back(cells[c].toDouble());
    }
    return columns;
}

// Every column but the clock agrees to a relative 1e-9 (rounding of sums taken in another
// order; the runs' numbers move by far more than that from one row to the next).
void compareTraces(const QString& a, const QString& b)
{
    const auto ta = trace(a), tb = trace(b);
    QVERIFY(!ta.isEmpty());
    QCOMPARE(ta.keys(), tb.keys());
    for (const QString& key : ta.keys()) {
        if (key == "train_seconds")
            continue;
        const QVector<double>&x = ta[key], &y = tb[key];
        QCOMPARE(x.size(), y.size());
        for (qsizetype i = 0; i < x.size(); ++i)
            QVERIFY2(std::abs(x[i] - y[i]) <= 1e-9 * std::max(1.0, std::abs(x[i])),
                     qPrintable(QString("%1, row %2: %3 against %4")
                                    .arg(key)
                                    .arg(i + 1)
                                    .arg(x[i], 0, 'g', 17)
                                    .arg(y[i], 0, 'g', 17)));
    }
}

} // namespace

class TestCliMpi : public QObject
{
    Q_OBJECT

private slots:
    void twoRanksGiveTheOneRankTrace_data();
    void twoRanksGiveTheOneRankTrace();
    void resumesOnAnotherNumberOfRanks();
    void aModelThatDoesNotDistributeIsRefused();
};

void TestCliMpi::twoRanksGiveTheOneRankTrace_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("lda") << ldaArgs(60);
    QTest::newRow("hdp") << QStringList{"run",     corpus(),    "--model",
                                        "hdp",     "--set",     "minibatch=12",
                                        "--steps", "40",        "--eval-every-steps",
                                        "10",      "--threads", "1",
                                        "--quiet"};
    QTest::newRow("hpf") << QStringList{"run",
                                        QString(SVI_TEST_DATA_DIR) + "/ratings/ml100k_style/u.data",
                                        "--model",
                                        "hpf",
                                        "--set",
                                        "K=6",
                                        "--set",
                                        "minibatch=8",
                                        "--steps",
                                        "60",
                                        "--eval-every-steps",
                                        "10",
                                        "--threads",
                                        "1",
                                        "--quiet"};
    for (const char* algorithm : {"mf-svi", "mf-ssvi", "titsias-ssvi", "mimno-svi", "gibbs-ssvi"})
        QTest::newRow((std::string("bpfa/") + algorithm).c_str())
            << QStringList{"run",
                           "synthetic",
                           "--rows",
                           "600",
                           "--cols",
                           "12",
                           "--true-k",
                           "5",
                           "--model",
                           "bpfa",
                           "--algorithm",
                           algorithm,
                           "--set",
                           "K=8",
                           "--set",
                           "minibatch=40",
                           "--steps",
                           "30",
                           "--eval-every-steps",
                           "10",
                           "--threads",
                           "1",
                           "--quiet"};
}

void TestCliMpi::twoRanksGiveTheOneRankTrace()
{
    QFETCH(QStringList, args);
    QTemporaryDir tmp;
    const auto one = runCli(args + QStringList{"--out", tmp.filePath("one")});
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    const auto two = runMpi(2, args + QStringList{"--out", tmp.filePath("two")});
    QVERIFY2(two.exitCode == 0, qPrintable(two.err));
    compareTraces(tmp.filePath("one"), tmp.filePath("two"));
    // Rank 0 says how many ranks ran and what they sent.
    QFile summary(tmp.filePath("two") + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const QByteArray s = summary.readAll();
    QVERIFY2(s.contains("\"ranks\": 2"), s.constData());
    QVERIFY2(!s.contains("\"bytes_sent_per_step\": 0,"), s.constData());
}

void TestCliMpi::resumesOnAnotherNumberOfRanks()
{
    QTemporaryDir tmp;
    const QString whole = tmp.filePath("whole"), split = tmp.filePath("split");
    QVERIFY(runCli(ldaArgs(80) + out(whole)).exitCode == 0);
    // Two ranks to step 40 (a checkpoint at its end), one rank from there to 80.
    const auto first =
        runMpi(2, ldaArgs(40) + out(split) + QStringList{"--checkpoint-every", "20"});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    const auto rest = runCli({"run", "--resume", split, "--steps", "80", "--quiet"});
    QVERIFY2(rest.exitCode == 0, qPrintable(rest.err));
    compareTraces(whole, split);
    // And back: two ranks from the one rank's last checkpoint (step 80) to 120.
    const auto more = runMpi(2, {"run", "--resume", split, "--steps", "120", "--quiet"});
    QVERIFY2(more.exitCode == 0, qPrintable(more.err));
    QVERIFY(runCli(ldaArgs(120) + out(whole)).exitCode == 0);
    compareTraces(whole, split);
}

void TestCliMpi::aModelThatDoesNotDistributeIsRefused()
{
    QTemporaryDir tmp;
    const auto r = runMpi(2, {"run", corpus(), "--model", "ctm", "--steps", "2", "--quiet", "--out",
                              tmp.filePath("ctm")});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("does not run on several ranks"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCliMpi)
#include "test_cli_mpi.moc"
