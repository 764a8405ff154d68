// `svi run --checkpoint-every` and `svi run --resume`: a run killed mid-way (SIGKILL: the last
// periodic checkpoint; SIGTERM: a last checkpoint where it stopped) and resumed to a step budget
// writes the same trace as a run that was never interrupted (every column but the clock), and
// the same results. A resume that cannot be done — no checkpoint, a damaged one, another run's,
// a change of model or parameters — ends with status 2 and a message naming the file or flag.

#include "core/io/checkpoint_file.h"
#include "core/run/run_checkpoint.h"
#include "tests/app/cli_testing.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <thread>

using namespace svi;
using test_support::runCli;

namespace {

// A run that takes a few milliseconds per step and whose numbers keep moving: BPFA by MF-SVI
// on drawn data, a snapshot every 10 steps, a checkpoint every 25.
QStringList runArgs(const QString& out, std::int64_t steps)
{
    return {"run",
            "synthetic",
            "--rows",
            "3000",
            "--cols",
            "16",
            "--true-k",
            "6",
            "--model",
            "bpfa",
            "--algorithm",
            "mf-svi",
            "--set",
            "K=12",
            "--set",
            "minibatch=50",
            "--steps",
            QString::number(steps),
            "--eval-every-steps",
            "10",
            "--checkpoint-every",
            "25",
            "--threads",
            "1",
            "--quiet",
            "--out",
            out};
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// trace.csv without its train_seconds column (the clock is the one thing a resumed run does not
// repeat).
QStringList traceWithoutClock(const QString& dir)
{
    QStringList rows;
    for (const QByteArray& line : readAll(dir + "/trace.csv").split('\n')) {
        if (line.isEmpty())
            continue;
        QList<QByteArray> cells = line.split(',');
        if (cells.size() > 2)
            cells.removeAt(2);
        rows << QString::fromUtf8(cells.join(','));
    }
    return rows;
}

std::int64_t checkpointStep(const QString& dir)
{
    return checkpointProgress(readCheckpointFile(dir + "/" + kCheckpointFile)).step;
}

// Starts a long run in `dir` and sends it `signal` once its first checkpoint is on disk; waits
// for it to end. Returns false when it ended before that (the run was too fast to interrupt).
bool interruptedRun(const QString& dir, int signal)
{
    QProcess p;
    p.start(SVI_CLI, runArgs(dir, 1000000));
    if (!p.waitForStarted(30000))
        return false;
    const QString checkpoint = dir + "/" + kCheckpointFile;
    QElapsedTimer clock;
    clock.start();
    while (!QFile::exists(checkpoint) && p.state() == QProcess::Running && clock.elapsed() < 120000)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (p.state() != QProcess::Running)
        return false;
    ::kill(pid_t(p.processId()), signal);
    p.waitForFinished(120000);
    return true;
}

} // namespace

class TestCliResume : public QObject
{
    Q_OBJECT

private slots:
    void resumedAfterAKillIsTheUninterruptedRun_data();
    void resumedAfterAKillIsTheUninterruptedRun();
    void resumeRefusals();
};

void TestCliResume::resumedAfterAKillIsTheUninterruptedRun_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGKILL") << int(SIGKILL);
    QTest::newRow("SIGTERM") << int(SIGTERM);
}

void TestCliResume::resumedAfterAKillIsTheUninterruptedRun()
{
    QFETCH(int, signal);
    QTemporaryDir tmp;
    const QString killed = tmp.filePath("killed"), whole = tmp.filePath("whole");
    QVERIFY2(interruptedRun(killed, signal), "the run ended before it could be interrupted");

    const std::int64_t at = checkpointStep(killed);
    QVERIFY(at >= 25);
    if (signal == SIGTERM) {
        // It stopped by itself, wrote a last checkpoint where it stopped and said so.
        const QByteArray summary = readAll(killed + "/summary.json");
        QVERIFY2(summary.contains("\"termination\": \"cancelled\""), summary.constData());
        QVERIFY2(summary.contains("\"steps\": " + QByteArray::number(qint64(at))),
                 summary.constData());
    } else {
        QVERIFY(!QFile::exists(killed + "/summary.json"));
        QCOMPARE(at % 25, std::int64_t(0));
    }

    // Resumed to 60 steps past its checkpoint, and run whole to the same budget.
    const std::int64_t budget = at + 60;
    const auto resumed =
        runCli({"run", "--resume", killed, "--steps", QString::number(budget), "--quiet"});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    const auto uninterrupted = runCli(runArgs(whole, budget));
    QVERIFY2(uninterrupted.exitCode == 0, qPrintable(uninterrupted.err));

    const QStringList a = traceWithoutClock(killed), b = traceWithoutClock(whole);
    QVERIFY(b.size() > 5);
    QCOMPARE(a, b);
    QCOMPARE(readAll(killed + "/loadings.csv"), readAll(whole + "/loadings.csv"));
    // And the checkpoint each wrote at its end holds the same state.
    QCOMPARE(checkpointStep(killed), budget);
    const std::string stateA = readCheckpointFile(killed + "/" + kCheckpointFile);
    const std::string stateB = readCheckpointFile(whole + "/" + kCheckpointFile);
    // Past the progress record (whose clock differs) the trainers' states are equal.
    QVERIFY(stateA.size() == stateB.size());
    const std::size_t trainer = stateA.find("trainer.");
    QVERIFY(trainer != std::string::npos);
    QVERIFY2(stateA.substr(trainer) == stateB.substr(trainer), "the trainers' states differ");
}

void TestCliResume::resumeRefusals()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("run");
    QCOMPARE(runCli(runArgs(dir, 30)).exitCode, 0);
    QVERIFY(QFile::exists(dir + "/" + kCheckpointFile));

    const auto refused = [&](const QStringList& args, const QString& says) {
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(says), qPrintable(r.err));
    };
    // Another model's parameters, or an output folder of its own.
    refused({"run", "--resume", dir, "--set", "K=5", "--steps", "40"}, "only its run settings");
    refused({"run", "--resume", dir, "--out", tmp.filePath("x")},
            "--out cannot be given with --resume");
    refused({"run", "--resume", tmp.filePath("none")}, "run.json' does not exist");

    // A damaged checkpoint, then none at all.
    const QString checkpoint = dir + "/" + kCheckpointFile;
    QByteArray bytes = readAll(checkpoint);
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x20);
    {
        QFile f(checkpoint);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }
    refused({"run", "--resume", dir, "--steps", "40"}, "checksum does not match");
    {
        QFile f(checkpoint);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.left(40));
    }
    refused({"run", "--resume", dir, "--steps", "40"}, "truncated");
    QFile::remove(checkpoint);
    refused({"run", "--resume", dir, "--steps", "40"}, "checkpoint.bin");

    // Another run's checkpoint (another seed) is named as such.
    const QString other = tmp.filePath("other");
    QStringList seeded = runArgs(other, 30);
    seeded << "--seed"
           << "9";
    QCOMPARE(runCli(seeded).exitCode, 0);
    QVERIFY(QFile::copy(other + "/" + kCheckpointFile, checkpoint));
    refused({"run", "--resume", dir, "--steps", "40"}, "with seed 9, but this run is");
}

QTEST_GUILESS_MAIN(TestCliResume)
#include "test_cli_resume.moc"
