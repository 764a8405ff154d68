// `svi run --checkpoint-every` and `svi run --resume`: a run killed mid-way (SIGKILL: the last
// periodic checkpoint; SIGTERM: a last checkpoint where it stopped) and resumed to a step budget
// writes the same trace as a run that was never interrupted (every column but the clock), and
// the same results. A resume that cannot be done — no checkpoint, a damaged one, another run's,
// a change of model or parameters — ends with status 2 and a message naming the file or flag.
// One interrupt ends a run at its next step with a checkpoint and the final evaluation, a second
// skips the evaluation; the trace never repeats a step. The output folder is claimed before any
// work: another run's folder, a folder of other files, a locked or unwritable one are refused;
// a run that fails before it starts leaves no folder; --force replaces what svi wrote.

#include "core/io/checkpoint_file.h"
#include "core/io/output_folder.h"
#include "core/run/run_checkpoint.h"
#include "tests/app/cli_testing.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <thread>
#include <unistd.h>

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

// trace.csv without its train_seconds and wall_seconds columns (the clocks are the one thing a
// resumed run does not repeat).
QStringList traceWithoutClock(const QString& dir)
{
    QStringList rows;
    for (const QByteArray& line : readAll(dir + "/trace.csv").split('\n')) {
        if (line.isEmpty())
            continue;
        QList<QByteArray> cells = line.split(',');
        if (cells.size() > 3)
            cells.remove(2, 2);
        rows << QString::fromUtf8(cells.join(','));
    }
    return rows;
}

std::int64_t checkpointStep(const QString& dir)
{
    return checkpointProgress(readCheckpointFile(dir + "/" + kCheckpointFile)).step;
}

// The steps of a trace.csv's rows, in order.
std::vector<qint64> traceSteps(const QString& dir)
{
    std::vector<qint64> steps;
    const QList<QByteArray> lines = readAll(dir + "/trace.csv").split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i)
        if (!lines[i].isEmpty())
            steps.push_back(lines[i].split(',').front().toLongLong());
    return steps;
}

bool increasing(const std::vector<qint64>& steps)
{
    return std::adjacent_find(steps.begin(), steps.end(),
                              [](qint64 a, qint64 b) { return b <= a; }) == steps.end();
}

// Starts a long run in `dir` and sends it `signal` once its first checkpoint is on disk (with
// `second`, that signal too, both while the run is stopped, so that both have arrived before
// it goes on); waits for it to end. Returns false when it ended before that (the run was too
// fast to interrupt).
bool interruptedRun(const QString& dir, int signal, int second = 0)
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
    const pid_t pid = pid_t(p.processId());
    if (second) {
        ::kill(pid, SIGSTOP);
        ::kill(pid, signal);
        ::kill(pid, second); // another signal: two of the same kind pending are one
        ::kill(pid, SIGCONT);
    } else {
        ::kill(pid, signal);
    }
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
    void outOfCoreStreamsStandardInputOnce();
    void aSecondInterruptSkipsTheFinalEvaluation();
    void theDefaultBudgetIsSaidFirst();
    void outputFolderRules();
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
        QVERIFY2(summary.contains("\"final_evaluation\": \"full\""), summary.constData());
        // The final evaluation of the step it stopped at took the place of that step's row.
        const std::vector<qint64> steps = traceSteps(killed);
        QVERIFY(increasing(steps));
        QCOMPARE(steps.back(), qint64(at));
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

// A corpus piped in (`svi run - --kind corpus --out-of-core`) is read once, as the stream goes:
// the run ends at the end of the data, leaves no checkpoint even when asked for one (a pipe
// cannot be rewound), and cannot be resumed; without its kind, standard input is refused.
void TestCliResume::outOfCoreStreamsStandardInputOnce()
{
    QTemporaryDir dir;
    QByteArray ldac, vocab;
    for (int w = 0; w < 12; ++w)
        vocab += "w" + QByteArray::number(w) + "\n";
    for (int d = 0; d < 90; ++d) {
        const int t = d % 3; // three blocks of four words
        ldac += "3 " + QByteArray::number(4 * t) + ":2 " + QByteArray::number(4 * t + 1) + ":1 " +
                QByteArray::number(4 * t + 2 + d % 2) + ":3\n";
    }
    const QString vocabFile = dir.filePath("stdin.vocab");
    QFile f(vocabFile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(vocab);
    f.close();
    const QString out = dir.filePath("stdin-run");
    const QStringList args = {"run",
                              "-",
                              "--kind",
                              "corpus",
                              "--out-of-core",
                              "--vocab",
                              vocabFile,
                              "--stream-head",
                              "30",
                              "--model",
                              "lda",
                              "--algorithm",
                              "streaming",
                              "--set",
                              "K=3",
                              "--set",
                              "minibatch=16",
                              "--checkpoint-every",
                              "1",
                              "--out",
                              out};
    test_support::CliResult r = test_support::runCliWithInput(args, ldac);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject summary = QJsonDocument::fromJson(readAll(out + "/summary.json")).object();
    QCOMPARE(summary["termination"].toString(), QString("end_of_data"));
    QCOMPARE(summary["source"].toString(), QString("standard input"));
    // 27 training documents of the head (3 test documents) and the 60 after it.
    QVERIFY2(r.err.contains("87 items"), qPrintable(r.err));
    QVERIFY(!QFile::exists(out + "/" + kCheckpointFile));
    QVERIFY(summary["metrics"].toObject().contains("perplexity"));

    r = test_support::runCliWithInput({"run", "--resume", out}, ldac);
    QCOMPARE(r.exitCode, 2); // there is no checkpoint to resume from
    QVERIFY2(r.err.contains(kCheckpointFile), qPrintable(r.err));
    r = test_support::runCliWithInput({"run", "-", "--steps", "1", "--out", out + "-nokind"}, ldac);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("standard input") && r.err.contains("--kind"), qPrintable(r.err));
}

void TestCliResume::aSecondInterruptSkipsTheFinalEvaluation()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("twice");
    QVERIFY2(interruptedRun(dir, SIGINT, SIGTERM), "the run ended before it could be interrupted");
    const QByteArray summary = readAll(dir + "/summary.json");
    QVERIFY2(summary.contains("\"termination\": \"cancelled\""), summary.constData());
    QVERIFY2(summary.contains("\"final_evaluation\": \"cheap\""), summary.constData());
    QVERIFY(QFile::exists(dir + "/" + kCheckpointFile)); // it can still be resumed
    QVERIFY(increasing(traceSteps(dir)));
}

void TestCliResume::theDefaultBudgetIsSaidFirst()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("default");
    QStringList args = runArgs(dir, 0);
    const qsizetype steps = args.indexOf("--steps");
    args.remove(steps, 2);
    args.removeAll("--quiet");
    QProcess p;
    p.setReadChannel(QProcess::StandardError);
    p.start(SVI_CLI, args);
    QVERIFY(p.waitForStarted(30000));
    QByteArray err;
    while (!err.contains('\n') && p.waitForReadyRead(30000))
        err += p.readAllStandardError();
    QVERIFY2(err.startsWith("svi run: 60 training seconds, the default budget"), err.constData());
    // Its run.json says so too; an interrupt ends it early.
    QElapsedTimer clock;
    clock.start();
    while (!QFile::exists(dir + "/trace.csv") && clock.elapsed() < 60000)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill(pid_t(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(readAll(dir + "/run.json").contains("\"seconds\": 60"));
    QVERIFY(readAll(dir + "/summary.json").contains("\"termination\": \"cancelled\""));
}

void TestCliResume::outputFolderRules()
{
    QTemporaryDir tmp;
    const auto refused = [](const QStringList& args, const QString& says) {
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(says), qPrintable(r.err));
    };
    const auto seeded = [](const QString& dir, const QString& seed) {
        return runArgs(dir, 5) << "--seed" << seed;
    };
    // A folder holding a run takes no other run's files…
    const QString held = tmp.filePath("held");
    QCOMPARE(runCli(runArgs(held, 5)).exitCode, 0);
    const QByteArray first = readAll(held + "/run.json");
    refused(seeded(held, "9"), "holds another run (bpfa/mf-svi): choose another --out, or give "
                               "--force to replace it");
    QCOMPARE(readAll(held + "/run.json"), first);
    // …unless told to replace it: then nothing of the old run is left beside the new one.
    {
        QFile stray(held + "/atoms.png");
        QVERIFY(stray.open(QIODevice::WriteOnly) && stray.write("an image run's") > 0);
    }
    const auto forced = runCli(seeded(held, "9") << "--force");
    QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
    QVERIFY(readAll(held + "/run.json").contains("\"seed\": 9"));
    QVERIFY(!QFile::exists(held + "/atoms.png"));
    QVERIFY(!QFile::exists(held + "/" + kLockFile)); // released at the end

    // A folder of the user's own files is never cleared, not even with --force.
    const QString mine = tmp.filePath("mine");
    QVERIFY(QDir().mkpath(mine));
    {
        QFile notes(mine + "/notes.txt");
        QVERIFY(notes.open(QIODevice::WriteOnly) && notes.write("mine") > 0);
    }
    refused(runArgs(mine, 5), "is not empty and was not written by svi");
    refused(runArgs(mine, 5) << "--force", "is not empty and was not written by svi");
    QVERIFY(QFile::exists(mine + "/notes.txt"));

    // A folder another process is writing (this one holds its lock) is refused, naming it.
    const QString busy = tmp.filePath("busy");
    QVERIFY(QDir().mkpath(busy));
    QLockFile lock(busy + "/" + kLockFile);
    QVERIFY(lock.tryLock(0));
    refused(runArgs(busy, 5), "is being written by another run (process " +
                                  QString::number(QCoreApplication::applicationPid()) + ")");
    lock.unlock();
    QCOMPARE(runCli(runArgs(busy, 5)).exitCode, 0); // free again

    // An output folder that cannot be made, or is a file, is refused before the data are read.
    refused(runArgs(held + "/run.json", 5), "is a file, not a folder");
    refused(runArgs("/proc/svi-no-such-folder/run", 5), "cannot be created");
    if (::geteuid() != 0) { // permissions do not stop root
        const QString locked = tmp.filePath("read-only");
        QVERIFY(QDir().mkpath(locked));
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner);
        refused(runArgs(locked, 5), "is not writable");
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    // A run that fails before it starts leaves no folder behind (nor the parents it made).
    refused(
        {"run", tmp.filePath("no-such.png"), "--steps", "1", "--out", tmp.filePath("failed/a/b")},
        "no-such.png");
    refused(runArgs(tmp.filePath("failed/c"), 5) << "--set"
                                                 << "K=0",
            "K = 0");
    // Those two fail before the folder is claimed; this one as it reads, after.
    const QString ragged = tmp.filePath("ragged.csv");
    {
        QFile f(ragged);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a,b,c\n1,2,3\n4,5\n");
    }
    refused({"run", ragged, "--steps", "1", "--out", tmp.filePath("failed/d/e")},
            "line 3: 2 fields");
    QVERIFY(!QFileInfo::exists(tmp.filePath("failed")));
}

QTEST_GUILESS_MAIN(TestCliResume)
#include "test_cli_resume.moc"
