// The run manager's hand-offs between threads, with real BPFA trainers on a small image: the
// trainer built on a pool thread and handed to its worker, snapshots and the end of a run
// crossing back as queued calls, queued runs handed on one after another, and pause / resume
// / stop / abort and destruction at every stage. Also run under ThreadSanitizer (the tsan
// preset).

#include "core/data/image_task.h"
#include "core/run/registry.h"
#include "ui/run_manager.h"

#include <QElapsedTimer>
#include <QSignalSpy>
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
    if (const AlgorithmEntry* e = Registry::builtin().find(s.model, s.algorithm))
        for (const ParamSpec& p : e->params)
            if (small.count(p.key))
                s.params[p.key] = small.at(p.key);
    s.seconds = seconds;
    s.steps = steps;
    s.evalEvery = 0.02;
    return s;
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
    void pauseHoldsTheRunAndResumeContinues();
    void stopEndsWithAFinalFullSnapshot();
    void stopWhileTheTrainerIsBeingBuilt();
    void abortAllEndsRunningAndQueuedRuns();
    void invalidSpecEndsAtOnce();
    void destructionMidRunJoinsEveryThread();
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

QTEST_GUILESS_MAIN(TestRunManager)
#include "test_run_manager.moc"
