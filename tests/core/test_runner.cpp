// The Runner with a fake trainer: budgets, cadence, the training clock, pause / resume /
// stop, failures and divergence, and clean shutdown.

#include "core/run/runner.h"
#include "tests/core/fake_trainer.h"

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace svi;
using namespace std::chrono_literals;
using namespace svi::test_support;

class TestRunner : public QObject
{
    Q_OBJECT

private slots:
    void stepBudgetIsExactAndSnapshotsAreOrdered();
    void timeBudgetExcludesEvaluation();
    void fullEvaluationsOnTheirOwnCadence();
    void pauseStopsTheClockAndResumeContinues();
    void stopCancelsWithAFinalSnapshot();
    void callbackCanStop();
    void abortSkipsTheFinalFullPass();
    void abortInterruptsAFullPassUnderWay();
    void blockingRunStoppedOnceThenTwice();
    void autoCadenceRule();
    void autoCadenceKeepsEvaluationWithinItsShare();
    void wallBudgetCountsEvaluation();
    void budgetProgressOfASnapshot();
    void exceptionBecomesFailed();
    void divergenceIsReported();
    void divergenceWithUnevaluableState();
    void brokenBoundIsDivergence_data();
    void brokenBoundIsDivergence();
    void noBoundIsNotDivergence();
    void invalidOptions_data();
    void invalidOptions();
    void trainerFailingOutsideStep();
    void destructorJoinsARunningWorker();
    void finishedCallbackRunsOnce();
    void checkpointsAndResume();
    void checkpointOnRequest();
};

void TestRunner::stepBudgetIsExactAndSnapshotsAreOrdered()
{
    FakeTrainer t;
    RunOptions o = steps(50);
    o.evalEverySteps = 10;
    std::vector<Snapshot> snaps;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot& sn) {
        snaps.push_back(sn);
        return CallbackResult::Continue;
    });
    QCOMPARE(s.reason, TerminationReason::BudgetReached);
    QCOMPARE(s.steps, std::int64_t(50));
    QCOMPARE(t.steps.load(), std::int64_t(50));
    QCOMPARE(s.epochs, 5.0); // 50 steps × 10 items / 100
    QVERIFY(!snaps.empty());
    QCOMPARE(snaps.front().step, std::int64_t(1)); // a trace starts at once
    for (std::size_t i = 1; i < snaps.size(); ++i) {
        QVERIFY(snaps[i].step >= snaps[i - 1].step);
        QVERIFY(snaps[i].trainSeconds >= snaps[i - 1].trainSeconds);
    }
    QVERIFY(snaps.back().final);
    QCOMPARE(snaps.back().metrics.at("full"), 1.0);
    QCOMPARE(snaps.back().step, std::int64_t(50));
    QCOMPARE(snaps.back().rho, 1.0 / 50);
    QVERIFY(s.last && s.last->final);
    QCOMPARE(std::string(terminationName(s.reason)), std::string("budget"));
}

void TestRunner::fullEvaluationsOnTheirOwnCadence()
{
    FakeTrainer t;
    t.stepTime = 2ms;
    RunOptions o;
    o.maxSeconds = 0.25;
    o.evalEverySeconds = 0.01;
    o.fullEvalEverySeconds = 0.1;
    std::vector<Snapshot> snaps;
    Runner::runBlocking(t, o, [&](const Snapshot& s) {
        snaps.push_back(s);
        return CallbackResult::Continue;
    });
    int fullMidRun = 0, finals = 0;
    for (const Snapshot& s : snaps) {
        fullMidRun += s.metrics.at("full") == 1.0 && !s.final;
        finals += s.final;
    }
    QCOMPARE(finals, 1);
    QVERIFY2(fullMidRun == 2, qPrintable(QString::number(fullMidRun))); // at 0.1 s and 0.2 s
    QVERIFY(snaps.back().final && snaps.back().metrics.at("full") == 1.0);
}

void TestRunner::timeBudgetExcludesEvaluation()
{
    FakeTrainer t;
    t.stepTime = 2ms;
    t.evalTime = 30ms;
    RunOptions o;
    o.maxSeconds = 0.3;
    o.evalEverySeconds = 0.02;
    const auto wall0 = std::chrono::steady_clock::now();
    int snapshots = 0;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot&) {
        ++snapshots;
        return CallbackResult::Continue;
    });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    QCOMPARE(s.reason, TerminationReason::BudgetReached);
    QVERIFY(s.trainSeconds >= 0.3);
    QVERIFY2(s.trainSeconds < 0.6, qPrintable(QString::number(s.trainSeconds)));
    // Evaluations took ≥ 30 ms each and are not on the training clock.
    QVERIFY(snapshots >= 5);
    QVERIFY2(wall > s.trainSeconds + 0.03 * (snapshots - 1),
             qPrintable(QString("wall %1, train %2, %3 snapshots")
                            .arg(wall)
                            .arg(s.trainSeconds)
                            .arg(snapshots)));
}

void TestRunner::pauseStopsTheClockAndResumeContinues()
{
    auto trainer = std::make_unique<FakeTrainer>();
    FakeTrainer* t = trainer.get();
    RunOptions o = steps(100000);
    o.evalEverySteps = 1; // every step publishes its training clock
    Runner r(std::move(trainer), o);
    std::atomic<double> lastSeconds{0.0};
    r.start([&](const Snapshot& s) {
        lastSeconds.store(s.trainSeconds);
        return CallbackResult::Continue;
    });
    QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > 5, 5000);
    r.pause();
    QVERIFY(r.paused());
    QVERIFY(r.running());
    std::this_thread::sleep_for(100ms); // let the step in flight finish
    const auto a = t->steps.load();
    const double secondsA = lastSeconds.load();
    std::this_thread::sleep_for(150ms);
    const auto b = t->steps.load();
    QCOMPARE(b, a);
    QCOMPARE(lastSeconds.load(), secondsA); // exactly: no step, no snapshot, no clock
    r.resume();
    QVERIFY(!r.paused());
    QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > b + 5, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(lastSeconds.load() > secondsA, 5000);
    r.requestStop();
    const Summary s = r.wait();
    QCOMPARE(s.reason, TerminationReason::Cancelled);
    // The training clock is the time inside step(), whatever the load: the ≥ 250 ms of pause
    // are not on it.
    const double busy = t->busySeconds.load();
    QVERIFY2(
        s.trainSeconds >= busy && s.trainSeconds < busy + 0.1,
        qPrintable(
            QString("train %1 s, busy %2 s, %3 steps").arg(s.trainSeconds).arg(busy).arg(s.steps)));
    QVERIFY(!r.running());
}

void TestRunner::stopCancelsWithAFinalSnapshot()
{
    auto trainer = std::make_unique<FakeTrainer>();
    FakeTrainer* t = trainer.get();
    Runner r(std::move(trainer), steps(1000000));
    std::atomic<int> finals{0};
    r.start([&](const Snapshot& s) {
        if (s.final)
            ++finals;
        return CallbackResult::Continue;
    });
    QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > 3, 5000);
    r.requestStop();
    const Summary s = r.wait();
    QCOMPARE(s.reason, TerminationReason::Cancelled);
    QCOMPARE(finals.load(), 1);
    QVERIFY(s.last && s.last->final);
    QVERIFY(s.steps < 1000000);
}

void TestRunner::abortSkipsTheFinalFullPass()
{
    for (bool abort : {false, true}) {
        auto trainer = std::make_unique<FakeTrainer>();
        FakeTrainer* t = trainer.get();
        Runner r(std::move(trainer), steps(1000000));
        QCOMPARE(r.phase(), RunPhase::Idle);
        r.start([](const Snapshot&) { return CallbackResult::Continue; });
        QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > 3, 5000);
        QCOMPARE(r.phase(), RunPhase::Training);
        // Between snapshots the run's step and clocks are readable from here.
        QTRY_VERIFY_WITH_TIMEOUT(r.progress().step >= 3, 5000);
        const Snapshot now = r.progress();
        QVERIFY(now.trainSeconds > 0 && now.wallSeconds >= now.trainSeconds);
        abort ? r.abort() : r.requestStop();
        const Summary s = r.wait();
        QCOMPARE(s.reason, TerminationReason::Cancelled);
        QVERIFY(s.last && s.last->final);
        // A stop keeps the final full evaluation; an abort makes the last snapshot a cheap one.
        QCOMPARE(s.last->metrics.at("full"), abort ? 0.0 : 1.0);
        QCOMPARE(r.phase(), RunPhase::Finished);
    }
}

// The command line's signals: one stops the run with its final full evaluation, a second
// (abort) makes it a cheap one; either way the trace, kept with appendSnapshot, shows each step
// once, though the final evaluation is of the step whose snapshot was just published.
void TestRunner::blockingRunStoppedOnceThenTwice()
{
    for (bool twice : {false, true}) {
        FakeTrainer t;
        RunOptions o = steps(1000000);
        o.evalEverySteps = 1;
        std::atomic<bool> stop{false}, abort{false};
        std::atomic<RunPhase> phase{RunPhase::Idle};
        std::vector<Snapshot> trace;
        int published = 0;
        const Summary s = Runner::runBlocking(
            t, o,
            [&](const Snapshot& snap) {
                ++published;
                appendSnapshot(trace, snap);
                if (snap.step == 5) {
                    stop.store(true);
                    abort.store(twice);
                }
                return CallbackResult::Continue;
            },
            RunControl{&stop, &abort, &phase});
        QCOMPARE(s.reason, TerminationReason::Cancelled);
        QCOMPARE(s.steps, std::int64_t(5));
        QCOMPARE(s.finalFull, !twice);
        QCOMPARE(s.last->metrics.at("full"), twice ? 0.0 : 1.0);
        QCOMPARE(phase.load(), RunPhase::Finished);
        QCOMPARE(published, 6); // steps 1–5, then the final evaluation of step 5…
        QCOMPARE(trace.size(), std::size_t(5)); // …in that step's place
        QVERIFY(trace.back().final);
        QCOMPARE(trace.back().metrics.at("full"), twice ? 0.0 : 1.0);
        for (std::size_t i = 0; i < trace.size(); ++i)
            QCOMPARE(trace[i].step, std::int64_t(i + 1));
    }
}

void TestRunner::autoCadenceRule()
{
    // Evaluating cost 0.3 s: the next snapshot no sooner than 0.3 · 0.85 / 0.15 = 1.7 training
    // seconds later, so that evaluation is 15 % of the wall time between the two.
    QCOMPARE(nextAutoSnapshot(10.0, 10.5, 0.3), 10.0 + 0.3 * 0.85 / 0.15);
    const double gap = nextAutoSnapshot(10.0, 10.5, 0.3) - 10.0;
    QVERIFY(std::abs(0.3 / (0.3 + gap) - kAutoEvalShare) < 1e-12);
    // A cheap evaluation keeps the base cadence; so does an unknown cost.
    QCOMPARE(nextAutoSnapshot(10.0, 12.0, 0.03), 12.0);
    QCOMPARE(nextAutoSnapshot(10.0, 10.5, 0.0), 10.5);
    QCOMPARE(nextAutoSnapshot(10.0, 10.5, std::nan("")), 10.5);
    // Another share.
    QCOMPARE(nextAutoSnapshot(0.0, 0.1, 1.0, 0.5), 1.0);
}

// Evaluations ten times dearer than the base cadence allows: the automatic cadence spaces them
// out to about their share of the wall time; a cadence the caller sets is obeyed whatever it
// costs.
void TestRunner::autoCadenceKeepsEvaluationWithinItsShare()
{
    for (bool automatic : {true, false}) {
        FakeTrainer t;
        t.stepTime = 2ms;
        t.evalTime = 30ms;
        RunOptions o;
        o.maxSeconds = 0.6; // a base cadence of 15 ms
        o.evalEverySeconds = automatic ? 0.0 : 0.015;
        o.finalFullEvaluation = false;
        int published = 0;
        const Summary s = Runner::runBlocking(t, o, [&](const Snapshot&) {
            ++published;
            return CallbackResult::Continue;
        });
        QCOMPARE(s.reason, TerminationReason::BudgetReached);
        const double share = s.evalSeconds / s.wallSeconds;
        if (automatic) {
            // The first snapshot (step 1) and the final one are outside the rule.
            QVERIFY2(share < kAutoEvalShare + 0.1, qPrintable(QString::number(share)));
            QVERIFY2(published >= 3 && published <= 8, qPrintable(QString::number(published)));
        } else {
            QVERIFY2(share > 0.4, qPrintable(QString::number(share)));
            QVERIFY2(published >= 20, qPrintable(QString::number(published)));
        }
    }
}

// A wall-clock budget counts the snapshots' time too; the training clock does not.
void TestRunner::wallBudgetCountsEvaluation()
{
    FakeTrainer t;
    t.stepTime = 1ms;
    t.evalTime = 20ms;
    RunOptions o;
    o.maxWallSeconds = 0.3;
    o.evalEverySteps = 1;
    o.finalFullEvaluation = false;
    std::vector<Snapshot> trace;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot& snap) {
        appendSnapshot(trace, snap);
        return CallbackResult::Continue;
    });
    QCOMPARE(s.reason, TerminationReason::BudgetReached);
    QVERIFY2(QString::fromStdString(s.message).contains("wall-clock seconds"), s.message.c_str());
    QVERIFY(s.wallSeconds >= 0.3);
    QVERIFY(s.trainSeconds < 0.5 * s.wallSeconds);
    QVERIFY(s.evalSeconds > 0.5 * s.wallSeconds);
    for (std::size_t i = 1; i < trace.size(); ++i) {
        QVERIFY(trace[i].wallSeconds > trace[i - 1].wallSeconds);
        QVERIFY(trace[i].wallSeconds >= trace[i].trainSeconds);
    }
}

void TestRunner::budgetProgressOfASnapshot()
{
    Snapshot s;
    s.step = 50;
    s.trainSeconds = 15;
    s.wallSeconds = 20;
    RunOptions o;
    o.maxSeconds = 60;
    BudgetProgress p = budgetProgress(o, s);
    QCOMPARE(p.fraction, 0.25);
    QCOMPARE(p.secondsLeft, 45.0 * 20.0 / 15.0); // at the pace so far, evaluation included
    o.maxSteps = 100;                            // whichever budget ends first
    p = budgetProgress(o, s);
    QCOMPARE(p.fraction, 0.5);
    QCOMPARE(p.secondsLeft, 20.0);
    o = RunOptions{};
    o.maxWallSeconds = 30;
    p = budgetProgress(o, s);
    QCOMPARE(p.fraction, 20.0 / 30.0);
    QCOMPARE(p.secondsLeft, 10.0);
    s.wallSeconds = 40; // past it: done, nothing left
    p = budgetProgress(o, s);
    QCOMPARE(p.fraction, 1.0);
    QCOMPARE(p.secondsLeft, 0.0);
}

void TestRunner::abortInterruptsAFullPassUnderWay()
{
    auto trainer = std::make_unique<FakeTrainer>();
    FakeTrainer* t = trainer.get();
    t->fullEvalTime = 20s;
    RunOptions o = steps(1000000);
    o.fullEvalEverySeconds = 0.01;
    Runner r(std::move(trainer), o);
    r.start([](const Snapshot&) { return CallbackResult::Continue; });
    QTRY_COMPARE_WITH_TIMEOUT(r.phase(), RunPhase::FullEvaluation, 5000);
    const auto t0 = std::chrono::steady_clock::now();
    r.abort();
    const Summary s = r.wait();
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QCOMPARE(s.reason, TerminationReason::Cancelled);
    QVERIFY2(waited < 5.0, qPrintable(QString("abort took %1 s").arg(waited)));

    // Cut short during the final full pass: the summary does not call it a whole one.
    auto last = std::make_unique<FakeTrainer>();
    last->fullEvalTime = 20s;
    Runner end(std::move(last), steps(3));
    end.start([](const Snapshot&) { return CallbackResult::Continue; });
    QTRY_COMPARE_WITH_TIMEOUT(end.phase(), RunPhase::FullEvaluation, 5000);
    end.abort();
    const Summary e = end.wait();
    QCOMPARE(e.reason, TerminationReason::BudgetReached);
    QVERIFY(!e.finalFull);
}

void TestRunner::callbackCanStop()
{
    FakeTrainer t;
    RunOptions o = steps(1000);
    o.evalEverySteps = 5;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot& sn) {
        return sn.step >= 20 ? CallbackResult::Stop : CallbackResult::Continue;
    });
    QCOMPARE(s.reason, TerminationReason::Cancelled);
    QCOMPARE(s.steps, std::int64_t(20));
}

void TestRunner::exceptionBecomesFailed()
{
    auto trainer = std::make_unique<FakeTrainer>();
    trainer->throwAt = 5;
    Runner r(std::move(trainer), steps(100));
    r.start([](const Snapshot&) { return CallbackResult::Continue; });
    const Summary s = r.wait();
    QCOMPARE(s.reason, TerminationReason::Failed);
    QCOMPARE(s.message, std::string("boom at step 5"));
    QCOMPARE(s.steps, std::int64_t(4));
    // Out of memory: said so, with the front end's estimate, never as "std::bad_alloc".
    FakeTrainer t;
    t.outOfMemoryAt = 3;
    RunOptions o = steps(100);
    o.outOfMemoryNote = "the run takes about 24 GB beyond its data";
    const Summary m = Runner::runBlocking(t, o, {});
    QCOMPARE(m.reason, TerminationReason::Failed);
    QCOMPARE(m.message,
             std::string("out of memory after 2 steps: the run takes about 24 GB beyond its data"));
}

void TestRunner::divergenceIsReported()
{
    FakeTrainer t;
    t.divergeAt = 3;
    const Summary s = Runner::runBlocking(t, steps(100), {});
    QCOMPARE(s.reason, TerminationReason::Diverged);
    QCOMPARE(s.steps, std::int64_t(3));
    QVERIFY(QString::fromStdString(s.message).contains("step 3"));
    QVERIFY(QString::fromStdString(s.message).startsWith("diverged"));
    // The state that diverged is shown (cheap evaluation), as the last snapshot.
    QVERIFY(s.last && s.last->final);
    QCOMPARE(s.last->step, std::int64_t(3));
    QCOMPARE(s.last->metrics.at("full"), 0.0);
    QCOMPARE(std::string(terminationName(s.reason)), std::string("diverged"));
}

void TestRunner::divergenceWithUnevaluableState()
{
    FakeTrainer t;
    t.divergeAt = 7;
    t.evaluateThrowsWhenDiverged = true;
    RunOptions o = steps(100);
    o.evalEverySteps = 5;
    const Summary s =
        Runner::runBlocking(t, o, [](const Snapshot&) { return CallbackResult::Continue; });
    QCOMPARE(s.reason, TerminationReason::Diverged); // not Failed: divergence is the cause
    QCOMPARE(s.steps, std::int64_t(7));
    QVERIFY(s.last);
    QCOMPARE(s.last->step, std::int64_t(5)); // the last snapshot that could be made
    QVERIFY(!s.last->final);
}

void TestRunner::brokenBoundIsDivergence_data()
{
    QTest::addColumn<double>("bound");
    QTest::addColumn<bool>("onlyFull");
    QTest::addColumn<QString>("word");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << false << "NaN";
    QTest::newRow("+inf") << inf << false << "infinite";
    QTest::newRow("-inf") << -inf << false << "infinite";
    QTest::newRow("NaN in the final full pass only")
        << std::numeric_limits<double>::quiet_NaN() << true << "NaN";
}

// The parameters stay finite but the bound does not: the run diverged all the same, at the
// first evaluation that shows it, and that snapshot is the last.
void TestRunner::brokenBoundIsDivergence()
{
    QFETCH(double, bound);
    QFETCH(bool, onlyFull);
    QFETCH(QString, word);
    FakeTrainer t;
    t.breakBoundAt = 12;
    t.brokenBound = bound;
    t.onlyFullBreaks = onlyFull;
    RunOptions o = steps(40);
    o.evalEverySteps = 5;
    std::vector<Snapshot> snaps;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot& sn) {
        snaps.push_back(sn);
        return CallbackResult::Continue;
    });
    QCOMPARE(s.reason, TerminationReason::Diverged);
    const std::int64_t at = onlyFull ? 40 : 15; // the first evaluation at or after step 12
    QCOMPARE(s.steps, at);
    QVERIFY2(QString::fromStdString(s.message).contains(word), s.message.c_str());
    QVERIFY(QString::fromStdString(s.message).contains(QString("step %1").arg(at)));
    QVERIFY(s.last && s.last->final && s.last->step == at);
    QCOMPARE(snaps.back().step, at);
    QVERIFY(snaps.back().final);
    QCOMPARE(std::count_if(snaps.begin(), snaps.end(), [](const Snapshot& x) { return x.final; }),
             std::ptrdiff_t(1));
    QVERIFY(!std::isfinite(snaps.back().elbo));
    QCOMPARE(t.steps.load(), at); // no step after it
}

// A trainer without a bound (a sampler) reports NaN by design: not a divergence.
void TestRunner::noBoundIsNotDivergence()
{
    FakeTrainer t;
    t.hasBound = false;
    RunOptions o = steps(20);
    o.evalEverySteps = 5;
    const Summary s = Runner::runBlocking(t, o, {});
    QCOMPARE(s.reason, TerminationReason::BudgetReached);
    QCOMPARE(s.steps, std::int64_t(20));
    QVERIFY(s.last && std::isnan(s.last->elbo));
}

void TestRunner::trainerFailingOutsideStep()
{
    // Any trainer method may throw; the worker reports it and never terminates the process.
    auto trainer = std::make_unique<FakeTrainer>();
    trainer->itemCountThrows = true;
    Runner r(std::move(trainer), steps(10));
    r.start([](const Snapshot&) { return CallbackResult::Continue; });
    const Summary s = r.wait();
    QCOMPARE(s.reason, TerminationReason::Failed);
    QCOMPARE(s.message, std::string("no data"));
    QCOMPARE(s.steps, std::int64_t(0));
    QVERIFY(!s.last);
    // A callback that throws is a failure too.
    FakeTrainer t;
    const Summary c = Runner::runBlocking(t, steps(10), [](const Snapshot& sn) -> CallbackResult {
        if (sn.step >= 1)
            throw std::runtime_error("callback broke");
        return CallbackResult::Continue;
    });
    QCOMPARE(c.reason, TerminationReason::Failed);
    QCOMPARE(c.message, std::string("callback broke"));
    QVERIFY(c.last); // the snapshot that was being published
}

void TestRunner::invalidOptions_data()
{
    QTest::addColumn<qint64>("maxSteps");
    QTest::addColumn<double>("maxSeconds");
    QTest::addColumn<double>("evalEverySeconds");
    QTest::addColumn<qint64>("evalEverySteps");
    QTest::addColumn<double>("fullEvalEverySeconds");
    QTest::addColumn<QString>("message");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("no budget") << qint64(0) << 0.0 << 0.0 << qint64(0) << 0.0
                               << "no budget: set maxSteps, maxSeconds or maxWallSeconds";
    QTest::newRow("negative steps")
        << qint64(-5) << 1.0 << 0.0 << qint64(0) << 0.0 << "maxSteps = -5, but must be ≥ 0";
    QTest::newRow("negative seconds")
        << qint64(10) << -1.0 << 0.0 << qint64(0) << 0.0 << "maxSeconds = -1, but must be ≥ 0";
    QTest::newRow("infinite seconds")
        << qint64(10) << inf << 0.0 << qint64(0) << 0.0 << "maxSeconds = inf, but must be finite";
    QTest::newRow("nan cadence") << qint64(10) << 0.0 << std::nan("") << qint64(0) << 0.0
                                 << "evalEverySeconds = nan, but must be finite";
    QTest::newRow("negative step cadence")
        << qint64(10) << 0.0 << 0.0 << qint64(-1) << 0.0 << "evalEverySteps = -1, but must be ≥ 0";
    QTest::newRow("negative full cadence") << qint64(10) << 0.0 << 0.0 << qint64(0) << -0.5
                                           << "fullEvalEverySeconds = -0.5, but must be ≥ 0";
}

void TestRunner::invalidOptions()
{
    QFETCH(qint64, maxSteps);
    QFETCH(double, maxSeconds);
    QFETCH(double, evalEverySeconds);
    QFETCH(qint64, evalEverySteps);
    QFETCH(double, fullEvalEverySeconds);
    QFETCH(QString, message);
    RunOptions o;
    o.maxSteps = maxSteps;
    o.maxSeconds = maxSeconds;
    o.evalEverySeconds = evalEverySeconds;
    o.evalEverySteps = evalEverySteps;
    o.fullEvalEverySeconds = fullEvalEverySeconds;
    QCOMPARE(QString::fromStdString(o.validate().value_or("")), message);
    FakeTrainer t;
    int snapshots = 0;
    const Summary s = Runner::runBlocking(t, o, [&](const Snapshot&) {
        ++snapshots;
        return CallbackResult::Continue;
    });
    QCOMPARE(s.reason, TerminationReason::InvalidInput);
    QCOMPARE(QString::fromStdString(s.message), message);
    QCOMPARE(t.steps.load(), std::int64_t(0));
    QCOMPARE(snapshots, 0);
    QVERIFY(!s.last);
    // The threaded runner reports the same, through wait() and onFinished, without throwing.
    Runner r(std::make_unique<FakeTrainer>(), o);
    std::atomic<int> finished{0};
    r.start([](const Snapshot&) { return CallbackResult::Continue; },
            [&](const Summary&) { ++finished; });
    QCOMPARE(r.wait().reason, TerminationReason::InvalidInput);
    QCOMPARE(r.wait().reason, TerminationReason::InvalidInput); // idempotent
    QCOMPARE(finished.load(), 1);
}

void TestRunner::destructorJoinsARunningWorker()
{
    auto trainer = std::make_unique<FakeTrainer>();
    FakeTrainer* t = trainer.get();
    {
        Runner r(std::move(trainer), steps(100000000));
        r.start([](const Snapshot&) { return CallbackResult::Continue; });
        QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > 2, 5000);
        r.pause(); // even a paused worker is woken and joined
    }
    QVERIFY(true); // reaching here means the worker was joined without a hang or a crash
}

void TestRunner::finishedCallbackRunsOnce()
{
    auto trainer = std::make_unique<FakeTrainer>();
    Runner r(std::move(trainer), steps(10));
    std::atomic<int> calls{0};
    TerminationReason reason = TerminationReason::Failed;
    r.start([](const Snapshot&) { return CallbackResult::Continue; },
            [&](const Summary& s) {
                reason = s.reason;
                ++calls;
            });
    r.wait();
    QCOMPARE(calls.load(), 1);
    QCOMPARE(reason, TerminationReason::BudgetReached);
    QVERIFY_THROWS_EXCEPTION(std::logic_error,
                             r.start([](const Snapshot&) { return CallbackResult::Continue; }));
}

// Checkpoints come every checkpointEverySteps steps and once at the end; a run resumed from
// the end of a shorter one publishes the snapshots of the longer run it continues, the one the
// shorter run's budget replaced by its final evaluation first.
void TestRunner::checkpointsAndResume()
{
    RunOptions o = steps(80);
    o.evalEverySteps = 10;
    o.finalFullEvaluation = false;
    std::vector<std::int64_t> whole;
    FakeTrainer a;
    a.stepTime = 0ms;
    Runner::runBlocking(a, o, [&](const Snapshot& s) {
        whole.push_back(s.step);
        return CallbackResult::Continue;
    });

    std::vector<RunProgress> saved;
    Checkpoints c;
    c.atEnd = true;
    c.save = [&](const RunProgress& p, Trainer&) { saved.push_back(p); };
    RunOptions first = o;
    first.maxSteps = 40;
    first.checkpointEverySteps = 15;
    FakeTrainer b;
    b.stepTime = 0ms;
    std::vector<std::int64_t> split;
    Runner::runBlocking(
        b, first,
        [&](const Snapshot& s) {
            split.push_back(s.step);
            return CallbackResult::Continue;
        },
        nullptr, c);
    QCOMPARE(saved.size(), std::size_t(3)); // steps 15, 30 and the end at 40
    QCOMPARE(saved[0].step, std::int64_t(15));
    QCOMPARE(saved[1].step, std::int64_t(30));
    const RunProgress end = saved[2];
    QCOMPARE(end.step, std::int64_t(40));
    QVERIFY(end.snapshotDue);                 // step 40's snapshot was the final one
    QCOMPARE(end.snapshots, std::int64_t(4)); // steps 1, 10, 20, 30

    split.resize(std::size_t(end.snapshots));
    Checkpoints resume;
    resume.resumeFrom = end;
    FakeTrainer b2;
    b2.stepTime = 0ms;
    b2.steps = 40;
    const Summary s = Runner::runBlocking(
        b2, o,
        [&](const Snapshot& snap) {
            split.push_back(snap.step);
            return CallbackResult::Continue;
        },
        nullptr, resume);
    QCOMPARE(s.steps, std::int64_t(80));
    QCOMPARE(split, whole);
}

// Runner::requestCheckpoint: a running run saves at its next step boundary with the progress
// there; a paused one saves where it stands and stays paused; a second request at the same step
// saves again (it may be written elsewhere); a run that has ended saves no more.
void TestRunner::checkpointOnRequest()
{
    auto trainer = std::make_unique<FakeTrainer>();
    FakeTrainer* t = trainer.get();
    RunOptions o = steps(1000000);
    o.evalEverySteps = 1;
    // Each save as the worker made it: the progress, and the trainer's own step count then.
    std::mutex mutex;
    std::vector<std::pair<RunProgress, std::int64_t>> saved;
    const auto savedCount = [&] {
        std::lock_guard<std::mutex> lock(mutex);
        return saved.size();
    };
    const auto savedAt = [&](std::size_t i) {
        std::lock_guard<std::mutex> lock(mutex);
        return saved.at(i);
    };
    Checkpoints c;
    c.save = [&](const RunProgress& p, Trainer& tr) {
        std::lock_guard<std::mutex> lock(mutex);
        saved.emplace_back(p, static_cast<FakeTrainer&>(tr).steps.load());
    };
    Runner r(std::move(trainer), o, c);
    r.start([](const Snapshot&) { return CallbackResult::Continue; });
    QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > 5, 5000);

    r.requestCheckpoint();
    QTRY_COMPARE_WITH_TIMEOUT(savedCount(), std::size_t(1), 5000);
    const auto [running, trainerAt] = savedAt(0);
    QVERIFY(running.step > 5);
    QCOMPARE(running.step, trainerAt); // between two steps: the trainer's state is that step's
    QCOMPARE(running.snapshots, running.step); // a snapshot every step, each published before
    QVERIFY(!running.snapshotDue);

    r.pause();
    std::this_thread::sleep_for(100ms); // the step in flight ends; the worker waits
    const std::int64_t held = t->steps.load();
    r.requestCheckpoint();
    QTRY_COMPARE_WITH_TIMEOUT(savedCount(), std::size_t(2), 5000);
    QCOMPARE(savedAt(1).first.step, held);
    QCOMPARE(savedAt(1).second, held);
    r.requestCheckpoint(); // the same step again: saved again
    QTRY_COMPARE_WITH_TIMEOUT(savedCount(), std::size_t(3), 5000);
    QCOMPARE(savedAt(2).first.step, held);
    std::this_thread::sleep_for(100ms);
    QCOMPARE(t->steps.load(), held); // still paused
    QVERIFY(r.paused());
    QCOMPARE(r.phase(), RunPhase::Paused);

    r.resume();
    QTRY_VERIFY_WITH_TIMEOUT(t->steps.load() > held + 3, 5000);
    r.requestStop();
    QCOMPARE(r.wait().reason, TerminationReason::Cancelled);
    QCOMPARE(savedCount(), std::size_t(3)); // no checkpoint at the end unless atEnd
    r.requestCheckpoint();
    std::this_thread::sleep_for(50ms);
    QCOMPARE(savedCount(), std::size_t(3));
}

QTEST_GUILESS_MAIN(TestRunner)
#include "test_runner.moc"
