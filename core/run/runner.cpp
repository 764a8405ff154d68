#include "core/run/runner.h"

#include "core/base/params.h"
#include "core/base/vector_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <limits>
#include <stdexcept>

namespace svi {

const char* terminationName(TerminationReason reason)
{
    switch (reason) {
    case TerminationReason::Converged:
        return "converged";
    case TerminationReason::EndOfData:
        return "end_of_data";
    case TerminationReason::BudgetReached:
        return "budget";
    case TerminationReason::Diverged:
        return "diverged";
    case TerminationReason::Cancelled:
        return "cancelled";
    case TerminationReason::InvalidInput:
        return "invalid_input";
    case TerminationReason::Failed:
        return "failed";
    }
    return "failed";
}

std::optional<TerminationReason> terminationOf(std::string_view name)
{
    for (TerminationReason r :
         {TerminationReason::Converged, TerminationReason::EndOfData,
          TerminationReason::BudgetReached, TerminationReason::Diverged,
          TerminationReason::Cancelled, TerminationReason::InvalidInput, TerminationReason::Failed})
        if (name == terminationName(r))
            return r;
    return std::nullopt;
}

namespace {

// "maxSeconds = -1, but must be ≥ 0": the field, its value in shortest round-trip form, and
// the violated rule, so a form can mark the field (the format of params.h).
std::optional<std::string> checkSeconds(const char* field, double v)
{
    if (!std::isfinite(v))
        return std::string(field) + " = " + formatParam(v) + ", but must be finite";
    if (v < 0)
        return std::string(field) + " = " + formatParam(v) + ", but must be ≥ 0";
    return std::nullopt;
}

std::optional<std::string> checkCount(const char* field, std::int64_t v)
{
    if (v < 0)
        return std::string(field) + " = " + std::to_string(v) + ", but must be ≥ 0";
    return std::nullopt;
}

} // namespace

std::optional<std::string> RunOptions::validate() const
{
    for (auto problem : {checkCount("maxSteps", maxSteps), checkSeconds("maxSeconds", maxSeconds),
                         checkSeconds("maxWallSeconds", maxWallSeconds),
                         checkSeconds("evalEverySeconds", evalEverySeconds),
                         checkCount("evalEverySteps", evalEverySteps),
                         checkCount("checkpointEverySteps", checkpointEverySteps),
                         checkSeconds("fullEvalEverySeconds", fullEvalEverySeconds)})
        if (problem)
            return problem;
    if (maxSteps == 0 && maxSeconds == 0 && maxWallSeconds == 0)
        return std::string("no budget: set maxSteps, maxSeconds or maxWallSeconds");
    return std::nullopt;
}

double nextAutoSnapshot(double trainSeconds, double byCadence, double evalSeconds, double share)
{
    if (!(evalSeconds > 0) || !(share > 0 && share < 1))
        return byCadence;
    return std::max(byCadence, trainSeconds + evalSeconds * (1 - share) / share);
}

BudgetProgress budgetProgress(const RunOptions& budget, const Snapshot& s)
{
    BudgetProgress p;
    p.secondsLeft = std::numeric_limits<double>::infinity();
    const double wall = std::isfinite(s.wallSeconds) ? s.wallSeconds : s.trainSeconds;
    if (budget.maxSeconds > 0) {
        p.fraction = std::max(p.fraction, s.trainSeconds / budget.maxSeconds);
        if (s.trainSeconds > 0)
            p.secondsLeft = std::min(p.secondsLeft,
                                     (budget.maxSeconds - s.trainSeconds) * wall / s.trainSeconds);
    }
    if (budget.maxWallSeconds > 0) {
        p.fraction = std::max(p.fraction, wall / budget.maxWallSeconds);
        p.secondsLeft = std::min(p.secondsLeft, budget.maxWallSeconds - wall);
    }
    if (budget.maxSteps > 0) {
        p.fraction = std::max(p.fraction, double(s.step) / double(budget.maxSteps));
        if (s.step > 0)
            p.secondsLeft =
                std::min(p.secondsLeft, double(budget.maxSteps - s.step) * wall / double(s.step));
    }
    p.fraction = std::clamp(p.fraction, 0.0, 1.0);
    p.secondsLeft = std::max(0.0, p.secondsLeft);
    return p;
}

double evalShare(const Snapshot& s)
{
    return s.wallSeconds > 0 ? std::max(0.0, s.wallSeconds - s.trainSeconds) / s.wallSeconds : 0.0;
}

void appendSnapshot(std::vector<Snapshot>& trace, Snapshot s)
{
    if (!trace.empty() && trace.back().step == s.step)
        trace.back() = std::move(s);
    else
        trace.push_back(std::move(s));
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string secondsText(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", s);
    return buf;
}

// What the training loop needs from its driver: a stop request and a way to wait while
// paused. Both may be absent (runBlocking without a flag).
struct LoopControl
{
    const std::atomic<bool>* stop = nullptr;
    const std::atomic<bool>* abort = nullptr; // skip the final full evaluation
    std::atomic<RunPhase>* phase = nullptr;
    // Set by Runner::requestCheckpoint; taken (cleared) when served.
    std::atomic<bool>* checkpointRequest = nullptr;
    // Returns when resumed or stopped, or when a checkpoint is asked for.
    std::function<void()> waitWhilePaused;
    // Kept up to date after every step (Runner::progress).
    std::atomic<std::int64_t>* step = nullptr;
    std::atomic<double>*trainSeconds = nullptr, *wallSeconds = nullptr;
};

Summary trainLoop(Trainer& trainer, const RunOptions& options,
                  const Runner::SnapshotCallback& onSnapshot, const LoopControl& control,
                  const Checkpoints& checkpoints)
{
    Summary summary;
    if (auto problem = options.validate()) {
        summary.reason = TerminationReason::InvalidInput;
        summary.message = *problem;
        return summary;
    }
    const bool stepCadence = options.evalEverySteps > 0;
    double cadenceSeconds = options.evalEverySeconds;
    std::int64_t cadenceSteps = options.evalEverySteps;
    // The automatic cadence: a time budget's fortieth (a wall budget's, less the evaluation it
    // allows), held back after a costly evaluation (nextAutoSnapshot); by steps with a step
    // budget alone.
    const bool autoCadence = !stepCadence && cadenceSeconds <= 0 &&
                             (options.maxSeconds > 0 || options.maxWallSeconds > 0);
    if (!stepCadence && cadenceSeconds <= 0) {
        if (options.maxSeconds > 0)
            cadenceSeconds = std::max(0.05, options.maxSeconds / 40.0);
        else if (options.maxWallSeconds > 0)
            cadenceSeconds = std::max(0.05, options.maxWallSeconds * (1 - kAutoEvalShare) / 40.0);
        else
            cadenceSteps = std::max<std::int64_t>(1, options.maxSteps / 40);
    }
    const bool byTime = cadenceSteps <= 0;

    // Read inside the try below: a trainer may throw from any of its methods, and nothing may
    // escape (the worker thread would terminate the process).
    double itemCount = 1.0;
    std::int64_t t = 0;
    double trainSeconds = 0.0, rho = 0.0, nextSnapshot = cadenceSeconds;
    double nextFull = options.fullEvalEverySeconds;
    // The wall clock: what the run had when it was resumed, plus this loop's time.
    const Clock::time_point started = Clock::now();
    double wallBefore = 0.0, evalSeconds = 0.0, lastEval = 0.0;
    const auto wallSeconds = [&] { return wallBefore + secondsSince(started); };
    std::int64_t snapshots = 0;
    if (const auto& from = checkpoints.resumeFrom) {
        t = from->step;
        trainSeconds = from->trainSeconds;
        wallBefore = from->wallSeconds;
        evalSeconds = from->evalSeconds;
        rho = from->rho;
        snapshots = from->snapshots;
        nextSnapshot = from->nextSnapshot;
        nextFull = from->nextFull;
    }
    bool userStop = false;
    // On several ranks, rank 0's clocks and stop request rule every rank's decisions (the time
    // budgets, the time cadence, a signal), so that all take the same steps, evaluations and
    // collectives; the others' own clocks and flags are not read.
    Communicator& ranks = trainer.communicator();
    bool agreedStop = false;
    double agreedWall = wallBefore;
    std::string decision;
    const auto agree = [&](bool stopHere) {
        const double clocks[3] = {trainSeconds, wallSeconds(), nextSnapshot};
        decision.assign(sizeof clocks + 1, '\0');
        std::memcpy(decision.data(), clocks, sizeof clocks);
        decision[sizeof clocks] = stopHere ? 1 : 0;
        ranks.broadcast(decision);
        double agreed[3];
        std::memcpy(agreed, decision.data(), sizeof agreed);
        trainSeconds = agreed[0];
        agreedWall = agreed[1];
        nextSnapshot = agreed[2];
        agreedStop = decision[sizeof clocks] != 0;
    };
    const auto progress = [&](bool snapshotDue) {
        return RunProgress{t,         trainSeconds, wallSeconds(), evalSeconds, rho,
                           snapshots, nextSnapshot, nextFull,      snapshotDue};
    };
    // The step of the last checkpoint (a resumed run's is the one it resumed from).
    std::int64_t savedAt = checkpoints.resumeFrom ? t : -1;
    const auto checkpoint = [&](bool snapshotDue) {
        if (!checkpoints.save || savedAt == t)
            return;
        checkpoints.save(progress(snapshotDue), trainer);
        savedAt = t;
    };
    // A checkpoint asked for from another thread: saved here even at a step already saved.
    // True when one was asked for.
    const auto serveRequest = [&] {
        if (!control.checkpointRequest || !control.checkpointRequest->exchange(false))
            return false;
        if (checkpoints.save) {
            checkpoints.save(progress(false), trainer);
            savedAt = t;
        }
        return true;
    };
    // A stream of known length charts at least a fortieth of its minibatches (the automatic
    // cadence only; read inside the try below).
    std::int64_t streamEvery = 0;
    const auto snapshotDue = [&] {
        return t == 1 || (byTime ? trainSeconds >= nextSnapshot : t % cadenceSteps == 0) ||
               (streamEvery > 0 && t % streamEvery == 0);
    };

    auto setPhase = [&](RunPhase p) {
        if (control.phase)
            control.phase->store(p);
    };
    auto finish = [&](TerminationReason reason, std::string message) {
        summary.reason = reason;
        summary.message = std::move(message);
        summary.steps = t;
        summary.epochs = double(trainer.itemsSeen(t)) / itemCount; // noexcept
        summary.trainSeconds = trainSeconds;
        summary.wallSeconds = wallSeconds();
        summary.evalSeconds = evalSeconds;
    };

    // Evaluates and publishes a snapshot. Returns false when the bound came out NaN or infinite:
    // the run has diverged, the summary says so, and that snapshot was the last.
    auto publish = [&](bool full, bool final = false) {
        setPhase(full ? RunPhase::FullEvaluation : RunPhase::Evaluating);
        const double wallAtStep = wallSeconds();
        clearUpperVectorStateEverywhere(); // the callbacks may have dirtied it
        trainer.beforeEvaluation();
        const Evaluation ev = trainer.evaluate(full);
        lastEval = wallSeconds() - wallAtStep;
        evalSeconds += lastEval;
        setPhase(RunPhase::Training);
        const bool broken = ev.hasBound && !std::isfinite(ev.elbo);
        if (broken && summary.reason != TerminationReason::Diverged) // the parameters' reason first
            finish(TerminationReason::Diverged, std::string("diverged: the bound (ELBO) is ") +
                                                    (std::isnan(ev.elbo) ? "NaN" : "infinite") +
                                                    " at step " + std::to_string(t));
        Snapshot s;
        s.step = t;
        itemCount = double(std::max<std::int64_t>(trainer.itemCount(), 1)); // a stream's grows
        s.epochs = double(trainer.itemsSeen(t)) / itemCount;
        s.trainSeconds = trainSeconds;
        s.wallSeconds = wallAtStep;
        s.rho = rho;
        s.elbo = ev.elbo;
        s.metrics = ev.metrics;
        s.preview = ev.preview;
        s.final = final || broken;
        summary.last = s;
        ++snapshots;
        if (onSnapshot && onSnapshot(s) == CallbackResult::Stop)
            userStop = true;
        return !broken;
    };
    try {
        itemCount = double(std::max<std::int64_t>(trainer.itemCount(), 1));
        if (const std::int64_t planned = trainer.plannedSteps();
            planned > 0 && !stepCadence && options.evalEverySeconds <= 0)
            streamEvery = std::max<std::int64_t>(1, planned / 40);
        setPhase(RunPhase::Training);
        const auto budgetReached = [&] {
            return (options.maxSteps > 0 && t >= options.maxSteps) ||
                   (options.maxSeconds > 0 && trainSeconds >= options.maxSeconds) ||
                   (options.maxWallSeconds > 0 &&
                    (ranks.distributed() ? agreedWall : wallSeconds()) >= options.maxWallSeconds);
        };
        // The next snapshot's time after one was published at this step's training time.
        const auto scheduleNext = [&] {
            if (!byTime)
                return;
            while (nextSnapshot <= trainSeconds)
                nextSnapshot += cadenceSeconds;
            if (autoCadence)
                nextSnapshot = nextAutoSnapshot(trainSeconds, nextSnapshot, lastEval);
        };
        const auto budgetText = [&] {
            if (options.maxSteps > 0 && t >= options.maxSteps)
                return "budget reached: " + std::to_string(t) + " steps";
            if (options.maxSeconds > 0 && trainSeconds >= options.maxSeconds)
                return "budget reached: " + secondsText(trainSeconds) + " training seconds";
            return "budget reached: " + secondsText(wallSeconds()) + " wall-clock seconds";
        };
        // A run resumed at or past its budget takes no step.
        if (checkpoints.resumeFrom && budgetReached()) {
            finish(TerminationReason::BudgetReached,
                   "budget reached before resuming: the checkpoint is at step " +
                       std::to_string(t));
            publish(options.finalFullEvaluation, true);
            summary.finalFull = options.finalFullEvaluation;
            return summary;
        }
        if (checkpoints.resumeFrom && checkpoints.resumeFrom->snapshotDue) {
            if (!publish(false))
                return summary;
            scheduleNext();
        }
        for (;;) {
            if (control.waitWhilePaused) {
                setPhase(RunPhase::Paused);
                // Between two steps (the snapshot of the last one, if due, is out: a checkpoint
                // here is not due one). A checkpoint asked for is served here, and a paused run
                // waits on after it.
                do
                    control.waitWhilePaused();
                while (serveRequest());
                setPhase(RunPhase::Training);
            }
            if (ranks.distributed() ? agreedStop
                                    : userStop || (control.stop && control.stop->load())) {
                finish(TerminationReason::Cancelled,
                       "cancelled after " + std::to_string(t) + " steps");
                break;
            }
            if (options.checkpointEverySteps > 0 && t > 0 && t % options.checkpointEverySteps == 0)
                checkpoint(false);
            const auto t0 = Clock::now();
            clearUpperVectorStateEverywhere(); // see core/base/vector_state.h
            rho = trainer.step(t + 1);
            ++t;
            itemCount = double(std::max<std::int64_t>(trainer.itemCount(), 1));
            trainSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
            if (control.step) {
                control.trainSeconds->store(trainSeconds, std::memory_order_relaxed);
                control.wallSeconds->store(wallSeconds(), std::memory_order_relaxed);
                control.step->store(t, std::memory_order_release);
            }
            if (ranks.distributed())
                agree(userStop || (control.stop && control.stop->load()));
            if (trainer.diverged()) {
                finish(TerminationReason::Diverged,
                       "diverged: NaN or infinity in the global parameters at step " +
                           std::to_string(t));
                // The last snapshot shows the state that diverged, from the cheap evaluation.
                try {
                    publish(false, true);
                } catch (...) {
                    // The diverged state may not be evaluable (or the callback may reject it);
                    // the summary already says why the run stopped, and last keeps the previous
                    // snapshot.
                }
                return summary;
            }
            if (trainer.converged()) {
                finish(TerminationReason::Converged,
                       "converged: step " + std::to_string(t) + " left the parameters unchanged");
                break;
            }
            if (trainer.exhausted()) {
                finish(TerminationReason::EndOfData,
                       "end of data: the stream's " + std::to_string(trainer.itemsSeen(t)) +
                           " items were used in " + std::to_string(t) + " steps");
                break;
            }
            if (budgetReached()) {
                finish(TerminationReason::BudgetReached, budgetText());
                break;
            }
            if (nextFull > 0 && trainSeconds >= nextFull) {
                if (!publish(true))
                    return summary;
                while (nextFull <= trainSeconds)
                    nextFull += options.fullEvalEverySeconds;
                continue;
            }
            if (snapshotDue()) {
                if (!publish(false))
                    return summary;
                scheduleNext();
            }
        }
        // Ended by the budget or at convergence, the loop left before the step's snapshot.
        if (checkpoints.atEnd)
            checkpoint(t > 0 && summary.reason != TerminationReason::Cancelled && snapshotDue());
        const bool aborted = control.abort && control.abort->load();
        const bool full = options.finalFullEvaluation && !aborted;
        publish(full, true); // a broken bound says Diverged
        summary.finalFull = full && !(control.abort && control.abort->load());
        summary.wallSeconds = wallSeconds(); // the final evaluation's time too
        summary.evalSeconds = evalSeconds;
    } catch (const std::bad_alloc&) {
        finish(TerminationReason::Failed,
               "out of memory after " + std::to_string(t) + " steps" +
                   (options.outOfMemoryNote.empty() ? "" : ": " + options.outOfMemoryNote));
    } catch (const std::exception& e) {
        finish(TerminationReason::Failed, e.what());
    } catch (...) {
        finish(TerminationReason::Failed, "unknown error");
    }
    return summary;
}

} // namespace

const char* phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::Idle:
        return "idle";
    case RunPhase::Training:
        return "training";
    case RunPhase::Evaluating:
        return "evaluating";
    case RunPhase::FullEvaluation:
        return "full pass";
    case RunPhase::Paused:
        return "paused";
    case RunPhase::Finished:
        return "finished";
    }
    return "unknown";
}

Runner::Runner(std::unique_ptr<Trainer> trainer, RunOptions options, Checkpoints checkpoints)
    : m_trainer(std::move(trainer)), m_options(std::move(options)),
      m_checkpoints(std::move(checkpoints))
{
    if (!m_trainer)
        throw std::invalid_argument("Runner: trainer is null");
    m_trainer->setInterrupt(&m_abort);
}

Runner::~Runner()
{
    abort();
    if (m_thread.joinable())
        m_thread.join();
}

void Runner::start(SnapshotCallback onSnapshot, FinishedCallback onFinished)
{
    if (m_started)
        throw std::logic_error("Runner::start: a Runner runs once");
    m_started = true;
    m_onSnapshot = std::move(onSnapshot);
    m_onFinished = std::move(onFinished);
    m_running.store(true);
    m_thread = std::thread([this] { work(); });
}

void Runner::pause()
{
    m_paused.store(true);
}

void Runner::resume()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_paused.store(false);
    }
    m_cv.notify_all();
}

void Runner::requestStop()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop.store(true);
    }
    m_cv.notify_all();
}

void Runner::requestCheckpoint()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_checkpointRequest.store(true);
    }
    m_cv.notify_all();
}

void Runner::abort()
{
    m_abort.store(true);
    requestStop();
}

Snapshot Runner::progress() const
{
    Snapshot s;
    s.step = m_step.load(std::memory_order_acquire);
    s.trainSeconds = m_trainSeconds.load(std::memory_order_relaxed);
    s.wallSeconds = m_wallSeconds.load(std::memory_order_relaxed);
    return s;
}

Summary Runner::wait()
{
    if (m_thread.joinable())
        m_thread.join();
    return m_summary;
}

void Runner::work()
{
    LoopControl control;
    control.stop = &m_stop;
    control.abort = &m_abort;
    control.phase = &m_phase;
    control.checkpointRequest = &m_checkpointRequest;
    control.step = &m_step;
    control.trainSeconds = &m_trainSeconds;
    control.wallSeconds = &m_wallSeconds;
    control.waitWhilePaused = [this] {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [this] {
            return !m_paused.load() || m_stop.load() || m_checkpointRequest.load();
        });
    };
    Summary s;
    try {
        s = trainLoop(*m_trainer, m_options, m_onSnapshot, control, m_checkpoints);
    } catch (...) {
        // trainLoop reports trainer and callback failures itself; this is the last line (e.g.
        // std::bad_alloc while building a message), since nothing may escape the worker.
        s.reason = TerminationReason::Failed;
        s.message = "internal error in the run loop";
    }
    m_summary = s;
    m_phase.store(RunPhase::Finished);
    m_running.store(false);
    if (m_onFinished) {
        try {
            m_onFinished(s);
        } catch (...) {
            // Nothing may escape the worker thread.
        }
    }
}

Summary Runner::runBlocking(Trainer& trainer, const RunOptions& options,
                            const SnapshotCallback& onSnapshot, const std::atomic<bool>* stopFlag,
                            const Checkpoints& checkpoints)
{
    return runBlocking(trainer, options, onSnapshot, RunControl{stopFlag, nullptr, nullptr},
                       checkpoints);
}

Summary Runner::runBlocking(Trainer& trainer, const RunOptions& options,
                            const SnapshotCallback& onSnapshot, const RunControl& run,
                            const Checkpoints& checkpoints)
{
    LoopControl control;
    control.stop = run.stop;
    control.abort = run.abort;
    control.phase = run.phase;
    if (run.abort)
        trainer.setInterrupt(run.abort);
    Summary s = trainLoop(trainer, options, onSnapshot, control, checkpoints);
    if (run.abort)
        trainer.setInterrupt(nullptr);
    if (run.phase)
        run.phase->store(RunPhase::Finished);
    return s;
}

void RunProgress::visitState(StateArchive& a)
{
    a.field("step", step);
    a.field("train_seconds", trainSeconds);
    a.field("wall_seconds", wallSeconds);
    a.field("eval_seconds", evalSeconds);
    a.field("rho", rho);
    a.field("snapshots", snapshots);
    a.field("next_snapshot", nextSnapshot);
    a.field("next_full", nextFull);
    a.field("snapshot_due", snapshotDue);
    if (a.loading() && (step < 0 || snapshots < 0 || !(trainSeconds >= 0.0) ||
                        !(wallSeconds >= 0.0) || !(evalSeconds >= 0.0)))
        throw StateError("checkpoint: the run's progress is impossible (step " +
                         std::to_string(step) + ", " + std::to_string(snapshots) + " snapshots)");
}

} // namespace svi
