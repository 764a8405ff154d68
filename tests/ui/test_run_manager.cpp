// The run manager's hand-offs between threads, with real BPFA trainers on a small image: the
// trainer built on a pool thread and handed to its worker, snapshots and the end of a run
// crossing back as queued calls, queued runs handed on one after another, and pause / resume
// / stop / abort and destruction at every stage; runs saved into folders (checkpointed on
// their workers), resumed from them (read on the build thread), and folders another process
// writes read again on threads of their own. Also run under ThreadSanitizer (the tsan preset).

#include "core/data/image_task.h"
#include "core/io/checkpoint_file.h"
#include "core/io/image_file.h"
#include "core/io/run_files.h"
#include "core/io/run_resume.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/run_checkpoint.h"
#include "tests/ui/run_folder_testing.h"
#include "ui/run_manager.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

using namespace svi;
using namespace svi::ui;

namespace {

// A 30×36 image with structure (two gradients and a disc), 50 % of its pixels removed, cut
// into 6×6 patches: 775 items, so a step takes milliseconds even under the sanitizers.
DataSet smallImageData()
{
    Eigen::ArrayXXf image(30, 36);
    for (int r = 0; r < 30; ++r)
        for (int c = 0; c < 36; ++c) {
            const double disc = std::hypot(r - 15.0, c - 20.0) < 8.0 ? 80.0 : 0.0;
            image(r, c) = float(40.0 + 3.0 * r + 2.0 * c + disc);
        }
    InpaintOptions task;
    task.missing = 0.5;
    task.patch = 6;
    return makeInpaintingData(image, task, "small");
}

RunDescription smallSpec(const std::string& algorithm, double seconds, std::int64_t steps)
{
    RunDescription s;
    s.model = "bpfa";
    s.algorithm = algorithm;
    const ParamValues small = {{"K", ParamValue(std::int64_t(8))},
                               {"minibatch", ParamValue(std::int64_t(30))},
                               {"init_items", ParamValue(std::int64_t(60))},
                               {"init_sweeps", ParamValue(std::int64_t(2))},
                               {"eval_items", ParamValue(std::int64_t(40))},
                               {"eval_burnin", ParamValue(std::int64_t(1))},
                               {"eval_kept", ParamValue(std::int64_t(1))},
                               {"eval_samples", ParamValue(std::int64_t(2))}};
    // Those the algorithm declares (the Gibbs settings are not the mean-field ones).
    if (const AlgorithmEntry* e = builtinRegistry().find(s.model, s.algorithm))
        for (const ParamSpec& p : e->params)
            if (small.count(p.key))
                s.params[p.key] = small.at(p.key);
    s.seconds = seconds;
    s.steps = steps;
    s.evalEvery = 0.02;
    return s;
}

// A snapshot as trace.csv holds it, the clock left out (the one thing a resumed run does not
// repeat): rows read back from a file compare equal to the rows they were written from.
QString rowText(const Snapshot& s)
{
    QStringList cells = {QString::number(s.step), metricText(s.epochs), metricText(s.rho),
                         metricText(s.elbo)};
    for (const auto& [k, v] : s.metrics)
        cells << QString::fromStdString(k) + "=" + metricText(v);
    return cells.join(',');
}

QStringList traceText(const std::vector<Snapshot>& trace)
{
    QStringList rows;
    for (const Snapshot& s : trace)
        rows << rowText(s);
    return rows;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool isActive(RunStatus s)
{
    return s == RunStatus::Preparing || s == RunStatus::Running || s == RunStatus::Paused ||
           s == RunStatus::Stopping;
}

} // namespace

class TestRunManager : public QObject
{
    Q_OBJECT

private slots:
    void runsSideBySideReachTheirBudgets();
    void queuedRunsAreHandedOnOneAfterAnother();
    void repeatsShareAColourAndOtherSettingsDoNot();
    void pauseHoldsTheRunAndResumeContinues();
    void stopEndsWithAFinalFullSnapshot();
    void stopWhileTheTrainerIsBeingBuilt();
    void abortAllEndsRunningAndQueuedRuns();
    void invalidSpecEndsAtOnce();
    void destructionMidRunJoinsEveryThread();
    void savedWhilePausedAndResumedIsTheUninterruptedRun();
    void savingAFinishedRunWritesEveryFile();
    void resumeThatCannotBeDoneEndsThatRun();
    void watchesAFolderUntilItsSummary();
};

void TestRunManager::runsSideBySideReachTheirBudgets()
{
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    QSignalSpy snapshots(&m, &RunManager::snapshotArrived);
    const DataSet data = smallImageData();
    const int a = m.start(smallSpec("gibbs-ssvi", 0, 25), data);
    const int b = m.start(smallSpec("mf-svi", 0, 25), data);
    QCOMPARE(m.activeCount(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 120000);
    QCOMPARE(m.activeCount(), 0);
    for (int id : {a, b}) {
        const RunRecord* r = m.record(id);
        QVERIFY(r && r->summary);
        QCOMPARE(r->summary->reason, TerminationReason::BudgetReached);
        QCOMPARE(r->summary->steps, std::int64_t(25));
        QCOMPARE(r->status, RunStatus::Finished);
        // Every snapshot of the worker arrived, in order, the last one the final full pass.
        QVERIFY(r->trace.size() >= 2);
        for (std::size_t i = 1; i < r->trace.size(); ++i)
            QVERIFY(r->trace[i].step >= r->trace[i - 1].step);
        QVERIFY(r->trace.back().final);
        QCOMPARE(r->trace.back().step, std::int64_t(25));
        QVERIFY(r->trace.back().metrics.count("psnr"));
        QVERIFY(r->preview && r->preview->reconstruction);
        QVERIFY(!r->trace.back().preview); // the trace keeps numbers only
    }
    int fromA = 0;
    for (const QList<QVariant>& s : snapshots)
        fromA += s.at(0).toInt() == a;
    QCOMPARE(std::size_t(fromA), m.record(a)->trace.size());
}

void TestRunManager::queuedRunsAreHandedOnOneAfterAnother()
{
    RunManager m;
    const DataSet data = smallImageData();
    QList<int> ids;
    int mostActive = 0;
    connect(&m, &RunManager::runChanged, this, [&] {
        int active = 0;
        for (int id : ids)
            active += m.record(id) && isActive(m.record(id)->status);
        mostActive = std::max(mostActive, active);
    });
    QSignalSpy groups(&m, &RunManager::groupFinished);
    QSignalSpy finished(&m, &RunManager::runFinished);
    const int group = m.enqueue(
        {smallSpec("mf-svi", 0, 10), smallSpec("mimno-svi", 0, 10), smallSpec("gibbs-ssvi", 0, 10)},
        data, &ids);
    QCOMPARE(ids.size(), 3);
    QCOMPARE(m.record(ids[0])->status, RunStatus::Preparing);
    QCOMPARE(m.record(ids[1])->status, RunStatus::Queued);
    QCOMPARE(m.record(ids[2])->status, RunStatus::Queued);
    QTRY_COMPARE_WITH_TIMEOUT(groups.size(), 1, 120000);
    QCOMPARE(groups.first().at(0).toInt(), group);
    QCOMPARE(finished.size(), 3);
    // They finished in the order given, and never two at once.
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(finished.at(i).at(0).toInt(), ids[i]);
        QCOMPARE(m.record(ids[i])->summary->reason, TerminationReason::BudgetReached);
        QCOMPARE(m.record(ids[i])->group, group);
    }
    QCOMPARE(mostActive, 1);
}

// Runs queued together: the repeats of one algorithm (its settings, another seed) share a
// colour, as Compare's repeats; the same algorithm with another setting (BBVI with and without
// Rao-Blackwellisation) is a run of its own colour.
void TestRunManager::repeatsShareAColourAndOtherSettingsDoNot()
{
    RunManager m;
    RunDescription first = smallSpec("mf-svi", 0, 1000), repeat = first, other = first;
    repeat.seed = 2;
    other.params["K"] = ParamValue(std::int64_t(5));
    QList<int> ids;
    m.enqueue({first, repeat, other}, smallImageData(), &ids);
    QCOMPARE(m.record(ids[1])->color, m.record(ids[0])->color);
    QVERIFY(m.record(ids[2])->color != m.record(ids[0])->color);
    QVERIFY(isRepeatOf(first, repeat));
    QVERIFY(!isRepeatOf(first, other));
    m.abortAll();
}

void TestRunManager::pauseHoldsTheRunAndResumeContinues()
{
    RunManager m;
    QSignalSpy snapshots(&m, &RunManager::snapshotArrived);
    QSignalSpy finished(&m, &RunManager::runFinished);
    const int id = m.start(smallSpec("gibbs-ssvi", 600, 0), smallImageData());
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 60000);
    m.pause(id);
    QCOMPARE(m.record(id)->status, RunStatus::Paused);
    // The worker settles into its pause (after the step or evaluation under way).
    QTRY_VERIFY_WITH_TIMEOUT((m.pollPhases(), m.record(id)->phase == RunPhase::Paused), 30000);
    const std::size_t held = m.record(id)->trace.size();
    QTest::qWait(300);
    QCOMPARE(m.record(id)->trace.size(), held); // no step, no snapshot while paused
    m.pause(id);                                // pausing twice changes nothing
    QCOMPARE(m.record(id)->status, RunStatus::Paused);
    m.resume(id);
    QCOMPARE(m.record(id)->status, RunStatus::Running);
    QTRY_VERIFY_WITH_TIMEOUT(m.record(id)->trace.size() > held + 1, 60000);
    m.abort(id);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QCOMPARE(m.record(id)->summary->reason, TerminationReason::Cancelled);
}

void TestRunManager::stopEndsWithAFinalFullSnapshot()
{
    RunManager m;
    QSignalSpy snapshots(&m, &RunManager::snapshotArrived);
    QSignalSpy finished(&m, &RunManager::runFinished);
    const int id = m.start(smallSpec("mf-ssvi", 600, 0), smallImageData());
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 60000);
    m.pause(id);
    m.stop(id); // a paused run stops too
    QCOMPARE(m.record(id)->status, RunStatus::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    const RunRecord* r = m.record(id);
    QCOMPARE(r->summary->reason, TerminationReason::Cancelled);
    QVERIFY(r->trace.back().final);
    QVERIFY(r->trace.back().metrics.count("psnr")); // the full pass ran
    QCOMPARE(r->summary->steps, r->trace.back().step);
    m.remove(id);
    QVERIFY(!m.record(id));
}

void TestRunManager::stopWhileTheTrainerIsBeingBuilt()
{
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    RunDescription spec = smallSpec("gibbs-ssvi", 600, 0);
    spec.params["init_sweeps"] = ParamValue(std::int64_t(200)); // a long initialisation
    const int id = m.start(spec, smallImageData());
    QCOMPARE(m.record(id)->status, RunStatus::Preparing);
    m.stop(id);
    QCOMPARE(m.record(id)->status, RunStatus::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    QCOMPARE(m.record(id)->summary->reason, TerminationReason::Cancelled);
    QCOMPARE(m.record(id)->summary->steps, std::int64_t(0));
    QVERIFY(m.record(id)->trace.empty());
}

void TestRunManager::abortAllEndsRunningAndQueuedRuns()
{
    RunManager m;
    QSignalSpy snapshots(&m, &RunManager::snapshotArrived);
    QSignalSpy finished(&m, &RunManager::runFinished);
    const DataSet data = smallImageData();
    const int alone = m.start(smallSpec("gibbs-ssvi", 600, 0), data);
    QList<int> queued;
    m.enqueue({smallSpec("mf-svi", 600, 0), smallSpec("mimno-svi", 600, 0)}, data, &queued);
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 60000);
    m.abortAll();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
    QCOMPARE(m.activeCount(), 0);
    for (int id : {alone, queued[0], queued[1]})
        QCOMPARE(m.record(id)->summary->reason, TerminationReason::Cancelled);
    QCOMPARE(QString::fromStdString(m.record(queued[1])->summary->message),
             QString("cancelled before it started"));
    QTest::qWait(200); // nothing queued is handed on after the abort
    QCOMPARE(finished.size(), 3);
}

void TestRunManager::invalidSpecEndsAtOnce()
{
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    RunDescription bad = smallSpec("gibbs-ssvi", 1, 0);
    bad.params["K"] = ParamValue(std::int64_t(0));
    const int a = m.start(bad, smallImageData());
    QCOMPARE(finished.size(), 1);
    QCOMPARE(m.record(a)->summary->reason, TerminationReason::InvalidInput);
    QVERIFY(QString::fromStdString(m.record(a)->summary->message).contains("K = 0"));
    const int b = m.start(smallSpec("no-such-algorithm", 1, 0), smallImageData());
    QCOMPARE(m.record(b)->summary->reason, TerminationReason::InvalidInput);
    const int c = m.start(smallSpec("gibbs-ssvi", 1, 0), DataSet{});
    QCOMPARE(m.record(c)->summary->reason, TerminationReason::InvalidInput);
    // A model that does not take the data (topics need counts, not patches): found when the
    // trainer is built, on the pool.
    RunDescription wrongModel = smallSpec("svi", 1, 0);
    wrongModel.model = "lda";
    const int d = m.start(wrongModel, smallImageData());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 4, 30000);
    QCOMPARE(m.record(d)->summary->reason, TerminationReason::InvalidInput);
    QVERIFY2(QString::fromStdString(m.record(d)->summary->message).contains("LDA"),
             m.record(d)->summary->message.c_str());
}

void TestRunManager::destructionMidRunJoinsEveryThread()
{
    auto m = std::make_unique<RunManager>();
    QSignalSpy snapshots(m.get(), &RunManager::snapshotArrived);
    const DataSet data = smallImageData();
    RunDescription longFull = smallSpec("gibbs-ssvi", 600, 0);
    longFull.fullEvery = 0.05; // full passes under way when it is destroyed
    m->start(longFull, data);
    m->start(smallSpec("mf-svi", 600, 0), data);
    m->enqueue({smallSpec("mimno-svi", 600, 0)}, data);
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 3, 60000);
    RunDescription building = smallSpec("gibbs-ssvi", 600, 0);
    building.params["init_sweeps"] = ParamValue(std::int64_t(50));
    m->start(building, data); // still being built when destroyed
    QElapsedTimer timer;
    timer.start();
    m.reset();
    QVERIFY2(timer.elapsed() < 30000, qPrintable(QString("%1 ms").arg(timer.elapsed())));
    QTest::qWait(100); // queued calls to the destroyed manager are dropped, not run
}

// A run paused mid-way and saved (its worker checkpointed where it waits), then resumed from
// that folder, gives the trace of a run never interrupted: every row, every metric, the final
// full pass included.
void TestRunManager::savedWhilePausedAndResumedIsTheUninterruptedRun()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath("saved");
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    QSignalSpy saved(&m, &RunManager::runSaved);
    RunDescription spec = smallSpec("mf-svi", 0, 300);
    spec.evalEverySteps = 7;
    const DataSet data = smallImageData();
    const int whole = m.start(spec, data);
    const int cut = m.start(spec, data);
    // Paused as its second snapshot comes in, a few steps into its budget at most.
    connect(&m, &RunManager::snapshotArrived, this, [&](int id) {
        if (id == cut && m.record(cut)->trace.size() == 2)
            m.pause(cut);
    });
    QTRY_VERIFY_WITH_TIMEOUT((m.pollPhases(), m.record(cut)->phase == RunPhase::Paused), 60000);
    QCOMPARE(m.record(cut)->status, RunStatus::Paused);
    m.save(cut, folder);
    QCOMPARE(m.pendingSaves(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 1, 30000);
    QCOMPARE(saved.at(0).at(0).toInt(), cut);
    QCOMPARE(saved.at(0).at(1).toString(), folder);
    QVERIFY2(saved.at(0).at(2).toString().isEmpty(), qPrintable(saved.at(0).at(2).toString()));
    QCOMPARE(m.pendingSaves(), 0);

    // Where it was paused, with the trace up to there, and no summary: it had not ended.
    const RunProgress at = checkpointProgress(readCheckpointFile(folder + "/" + kCheckpointFile));
    const std::vector<Snapshot> shown = m.record(cut)->trace;
    QVERIFY(at.step > 0 && at.step < 300);
    QCOMPARE(at.snapshots, std::int64_t(shown.size()));
    QVERIFY(shown.back().step <= at.step);
    QCOMPARE(m.record(cut)->status, RunStatus::Paused); // saving did not resume it
    QVERIFY(QFile::exists(folder + "/run.json"));
    QVERIFY(!QFile::exists(folder + "/summary.json"));
    QCOMPARE(traceText(parseTraceCsv(readAll(folder + "/trace.csv"), "trace.csv")),
             traceText(shown));
    m.abort(cut);

    const int resumed = m.resume(spec, data, folder);
    QTRY_VERIFY_WITH_TIMEOUT(m.record(whole)->summary && m.record(resumed)->summary, 120000);
    QCOMPARE(m.record(resumed)->summary->reason, TerminationReason::BudgetReached);
    QCOMPARE(m.record(resumed)->summary->steps, std::int64_t(300));
    const QStringList a = traceText(m.record(whole)->trace);
    const QStringList b = traceText(m.record(resumed)->trace);
    QVERIFY(a.size() > int(shown.size()));
    QCOMPARE(b, a);
    QVERIFY(m.record(resumed)->trace.back().metrics.count("psnr"));
}

// A finished run saved: run.json, the whole trace, its checkpoint at the end (the one a longer
// budget goes on from), summary.json, the task's images and the preview's files, as `svi run
// --out` leaves them (both write through writeRunFolder).
void TestRunManager::savingAFinishedRunWritesEveryFile()
{
    QTemporaryDir dir;
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    QSignalSpy saved(&m, &RunManager::runSaved);
    RunDescription spec = smallSpec("gibbs-ssvi", 0, 12);
    spec.evalEverySteps = 4;
    const int id = m.start(spec, smallImageData());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    QVERIFY(m.record(id)->checkpoint);
    QCOMPARE(m.record(id)->checkpoint->step, std::int64_t(12));
    m.save(id, dir.filePath("a/b")); // made, with its parents
    QCOMPARE(saved.size(), 1);       // at once
    QVERIFY2(saved.at(0).at(2).toString().isEmpty(), qPrintable(saved.at(0).at(2).toString()));
    const QString folder = dir.filePath("a/b");
    CheckpointIdentity who;
    const RunProgress end =
        checkpointProgress(readCheckpointFile(folder + "/" + kCheckpointFile), &who);
    QCOMPARE(end.step, std::int64_t(12));
    QVERIFY(who == checkpointIdentity(m.record(id)->spec));
    QCOMPARE(parseTraceCsv(readAll(folder + "/trace.csv"), "trace.csv").size(),
             m.record(id)->trace.size());
    const QByteArray summary = readAll(folder + "/summary.json");
    QVERIFY2(summary.contains("\"termination\": \"budget\""), summary.constData());
    QVERIFY2(summary.contains("\"steps\": 12"), summary.constData());
    QVERIFY2(summary.contains("\"rows\": 775"), summary.constData()); // the data's shape
    QStringList files = QDir(folder).entryList(QDir::Files, QDir::Name);
    QCOMPARE(files, QStringList({"atoms.png", "checkpoint.bin", "mask.png", "observed.png",
                                 "reconstruction.png", "run.json", "summary.json", "trace.csv"}));
    // The images are the run's: what the model saw, and the reconstruction it ended with.
    const Preview& preview = *m.record(id)->preview;
    QVERIFY(preview.reconstruction);
    const Eigen::ArrayXXf shown = loadGrayImage((folder + "/reconstruction.png").toStdString());
    QCOMPARE(shown.rows(), preview.reconstruction->rows());
    QVERIFY((shown - preview.reconstruction->cwiseMax(0.0f).cwiseMin(255.0f)).abs().maxCoeff() <=
            0.5f);
    const Eigen::ArrayXXf observed = loadGrayImage((folder + "/observed.png").toStdString());
    QVERIFY((observed - m.record(id)->data.dense->image->corrupted.cwiseMax(0.0f).cwiseMin(255.0f))
                .abs()
                .maxCoeff() <= 0.5f);

    // Saved again, the same run: allowed, the same files.
    m.save(id, folder);
    QCOMPARE(saved.size(), 2);
    QVERIFY2(saved.at(1).at(2).toString().isEmpty(), qPrintable(saved.at(1).at(2).toString()));
    // Another run over that folder is refused, naming the folder and the run there; nothing of
    // the first run's is lost or mixed.
    const int queued = m.enqueue({smallSpec("mf-svi", 0, 5)}, DataSet{});
    Q_UNUSED(queued);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000); // no data: ends at once
    m.save(m.ids().back(), folder);
    QCOMPARE(saved.size(), 3);
    const QString refusal = saved.at(2).at(2).toString();
    QVERIFY2(refusal.contains("holds another run (bpfa/gibbs-ssvi)") &&
                 refusal.contains(QDir::toNativeSeparators(folder)),
             qPrintable(refusal));
    QVERIFY(QFile::exists(folder + "/" + kCheckpointFile));
    QVERIFY(readAll(folder + "/summary.json").contains("\"termination\": \"budget\""));
}

// A resume that cannot be done ends that run, the message naming the file; nothing else is
// lost.
void TestRunManager::resumeThatCannotBeDoneEndsThatRun()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath("run");
    RunManager m;
    QSignalSpy finished(&m, &RunManager::runFinished);
    RunDescription spec = smallSpec("mf-svi", 0, 10);
    spec.evalEverySteps = 2;
    const DataSet data = smallImageData();
    const int ok = m.start(spec, data);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
    m.save(ok, folder);
    const QString checkpoint = folder + "/" + kCheckpointFile;
    QByteArray bytes = readAll(checkpoint);
    QVERIFY(bytes.size() > 100);
    const auto refused = [&](const RunDescription& s, const QString& says) {
        const int before = int(finished.size());
        const int id = m.resume(s, data, folder);
        QTRY_COMPARE_WITH_TIMEOUT(int(finished.size()), before + 1, 60000);
        const RunRecord* r = m.record(id);
        QCOMPARE(r->summary->reason, TerminationReason::InvalidInput);
        const QString message = QString::fromStdString(r->summary->message);
        QVERIFY2(message.contains(checkpoint) && message.contains(says), qPrintable(message));
    };
    // Corrupted, another run's (another seed), none at all.
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x20);
    {
        QFile f(checkpoint);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
    }
    refused(spec, "checksum does not match");
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x20);
    {
        QFile f(checkpoint);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
    }
    RunDescription other = spec;
    other.seed = 9;
    refused(other, "but this run is");
    QVERIFY(QFile::remove(checkpoint));
    refused(spec, "checkpoint.bin");
    // The run that was saved is as it was.
    QCOMPARE(m.record(ok)->summary->reason, TerminationReason::BudgetReached);
    QCOMPARE(m.record(ok)->trace.back().step, std::int64_t(10));
}

// A folder another process writes, with the writers `svi run` uses: shown at once, read again
// as its trace grows (a file caught half-written keeps the rows shown), ended by its summary.
void TestRunManager::watchesAFolderUntilItsSummary()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath("live");
    QVERIFY(QDir().mkpath(folder));
    RunDescription spec = smallSpec("mf-svi", 0, 100);
    const std::vector<Snapshot> rows = test_support::psnrTrace(4, 10, 100.0);
    const auto writeTrace = [&](std::size_t n) { test_support::writeTracePrefix(folder, rows, n); };
    writeTrace(2);
    RunManager m;
    QSignalSpy opened(&m, &RunManager::folderOpened);
    QSignalSpy failed(&m, &RunManager::folderFailed);
    QSignalSpy finished(&m, &RunManager::runFinished);
    m.openFolder(folder);
    m.openFolder(dir.filePath("nothing"));
    QTRY_COMPARE_WITH_TIMEOUT(opened.size() + failed.size(), 2, 30000);
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.at(0).at(1).toString().contains("nothing"),
             qPrintable(failed.at(0).at(1).toString()));
    const int id = opened.at(0).at(1).value<QList<int>>().at(0);
    QCOMPARE(m.record(id)->status, RunStatus::Watching);
    QCOMPARE(m.record(id)->trace.size(), std::size_t(2));
    QCOMPARE(m.activeCount(), 0);

    writeTrace(4);
    QTRY_COMPARE_WITH_TIMEOUT(m.record(id)->trace.size(), std::size_t(4), 20000);
    {
        QFile f(folder + "/trace.csv"); // rewritten in place, caught half-way
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("step,epochs,train_seconds,rho,elbo,psnr\n10,0,0,0,-1");
    }
    QTest::qWait(2500);
    QCOMPARE(m.record(id)->trace.size(), std::size_t(4));
    writeTrace(4);
    Summary end;
    end.reason = TerminationReason::Converged;
    end.message = "converged: step 40 left the parameters unchanged";
    end.steps = 40;
    writeFileAtomically(folder + "/summary.json",
                        QJsonDocument(runSummaryJson(spec, "MF-SVI", end)).toJson());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20000);
    const RunRecord* r = m.record(id);
    QCOMPARE(r->status, RunStatus::Finished);
    QCOMPARE(r->summary->reason, TerminationReason::Converged);
    QCOMPARE(r->summary->steps, std::int64_t(40));
    QCOMPARE(r->trace.size(), std::size_t(4));
    // No longer watched: a later change is not read.
    writeTrace(1);
    QTest::qWait(1500);
    QCOMPARE(m.record(id)->trace.size(), std::size_t(4));
    m.remove(id);
    QVERIFY(!m.record(id));
}

QTEST_GUILESS_MAIN(TestRunManager)
#include "test_run_manager.moc"
