#include "core/run/runner.h"

#include "core/base/params.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <stdexcept>

namespace svi {

const char* terminationName(TerminationReason reason)
{
    switch (reason) {
    case TerminationReason::Converged:
        return "converged";
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
    for (TerminationReason r : {TerminationReason::Converged, TerminationReason::BudgetReached,
                                TerminationReason::Diverged, TerminationReason::Cancelled,
                                TerminationReason::InvalidInput, TerminationReason::Failed})
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
                         checkSeconds("evalEverySeconds", evalEverySeconds),
                         checkCount("evalEverySteps", evalEverySteps),
                         checkCount("checkpointEverySteps", checkpointEverySteps),
                         checkSeconds("fullEvalEverySeconds", fullEvalEverySeconds)})
        if (problem)
            return problem;
    if (maxSteps == 0 && maxSeconds == 0)
        return std::string("no budget: set maxSteps or maxSeconds");
    return std::nullopt;
}

namespace {

using Clock = std::chrono::steady_clock;

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
    if (!stepCadence && cadenceSeconds <= 0) {
        if (options.maxSeconds > 0)
            cadenceSeconds = std::max(0.05, options.maxSeconds / 40.0);
        else
            cadenceSteps = std::max<std::int64_t>(1, options.maxSteps / 40);
    }
    const bool byTime = cadenceSteps <= 0;

    // Read inside the try below: a trainer may throw from any of its methods, and nothing may
    // escape (the worker thread would terminate the process).
    double itemsPerStep = 0.0, itemCount = 1.0;
    std::int64_t t = 0;
    double trainSeconds = 0.0, rho = 0.0, nextSnapshot = cadenceSeconds;
    double nextFull = options.fullEvalEverySeconds;
    std::int64_t snapshots = 0;
    if (const auto& from = checkpoints.resumeFrom) {
        t = from->step;
        trainSeconds = from->trainSeconds;
        rho = from->rho;
        snapshots = from->snapshots;
        nextSnapshot = from->nextSnapshot;
        nextFull = from->nextFull;
    }
    bool userStop = false;
    // On several ranks, rank 0's clock and stop request rule every rank's decisions (the time
    // budget, the time cadence, a signal), so that all take the same steps, evaluations and
    // collectives; the others' own clocks and flags are not read.
    Communicator& ranks = trainer.communicator();
    bool agreedStop = false;
    std::string decision;
    const auto agree = [&](bool stopHere) {
        decision.assign(sizeof(double) + 1, '\0');
        std::memcpy(decision.data(), &trainSeconds, sizeof(double));
        decision[sizeof(double)] = stopHere ? 1 : 0;
        ranks.broadcast(decision);
        std::memcpy(&trainSeconds, decision.data(), sizeof(double));
        agreedStop = decision[sizeof(double)] != 0;
    };
    // The step of the last checkpoint (a resumed run's is the one it resumed from).
    std::int64_t savedAt = checkpoints.resumeFrom ? t : -1;
    const auto checkpoint = [&](bool snapshotDue) {
        if (!checkpoints.save || savedAt == t)
            return;
        checkpoints.save(
            RunProgress{t, trainSeconds, rho, snapshots, nextSnapshot, nextFull, snapshotDue},
            trainer);
        savedAt = t;
    };
    // A checkpoint asked for from another thread: saved here even at a step already saved.
    // True when one was asked for.
    const auto serveRequest = [&] {
        if (!control.checkpointRequest || !control.checkpointRequest->exchange(false))
            return false;
        if (checkpoints.save) {
            checkpoints.save(
                RunProgress{t, trainSeconds, rho, snapshots, nextSnapshot, nextFull, false},
                trainer);
            savedAt = t;
        }
        return true;
    };
    const auto snapshotDue = [&] {
        return t == 1 || (byTime ? trainSeconds >= nextSnapshot : t % cadenceSteps == 0);
    };

    auto setPhase = [&](RunPhase p) {
        if (control.phase)
            control.phase->store(p);
    };
    auto finish = [&](TerminationReason reason, std::string message) {
        summary.reason = reason;
        summary.message = std::move(message);
        summary.steps = t;
        summary.epochs = double(t) * itemsPerStep / itemCount; // never calls the trainer
        summary.trainSeconds = trainSeconds;
    };

    // Evaluates and publishes a snapshot. Returns false when the bound came out NaN or infinite:
    // the run has diverged, the summary says so, and that snapshot was the last.
    auto publish = [&](bool full, bool final = false) {
        setPhase(full ? RunPhase::FullEvaluation : RunPhase::Evaluating);
        const Evaluation ev = trainer.evaluate(full);
        setPhase(RunPhase::Training);
        const bool broken = ev.hasBound && !std::isfinite(ev.elbo);
        if (broken && summary.reason != TerminationReason::Diverged) // the parameters' reason first
            finish(TerminationReason::Diverged, std::string("diverged: the bound (ELBO) is ") +
                                                    (std::isnan(ev.elbo) ? "NaN" : "infinite") +
                                                    " at step " + std::to_string(t));
        Snapshot s;
        s.step = t;
        s.epochs = double(t) * itemsPerStep / itemCount;
        s.trainSeconds = trainSeconds;
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
        itemsPerStep = double(trainer.itemsPerStep());
        itemCount = double(std::max<std::int64_t>(trainer.itemCount(), 1));
        setPhase(RunPhase::Training);
        const auto budgetReached = [&] {
            return (options.maxSteps > 0 && t >= options.maxSteps) ||
                   (options.maxSeconds > 0 && trainSeconds >= options.maxSeconds);
        };
        // A run resumed at or past its budget takes no step.
        if (checkpoints.resumeFrom && budgetReached()) {
            finish(TerminationReason::BudgetReached,
                   "budget reached before resuming: the checkpoint is at step " +
                       std::to_string(t));
            publish(options.finalFullEvaluation, true);
            return summary;
        }
        if (checkpoints.resumeFrom && checkpoints.resumeFrom->snapshotDue) {
            if (!publish(false))
                return summary;
            if (byTime)
                while (nextSnapshot <= trainSeconds)
                    nextSnapshot += cadenceSeconds;
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
            rho = trainer.step(t + 1);
            ++t;
            trainSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
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
            if (budgetReached()) {
                finish(TerminationReason::BudgetReached,
                       options.maxSteps > 0 && t >= options.maxSteps
                           ? "budget reached: " + std::to_string(t) + " steps"
                           : "budget reached: " + secondsText(trainSeconds) + " training seconds");
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
                if (byTime)
                    while (nextSnapshot <= trainSeconds)
                        nextSnapshot += cadenceSeconds;
            }
        }
        // Ended by the budget or at convergence, the loop left before the step's snapshot.
        if (checkpoints.atEnd)
            checkpoint(t > 0 && summary.reason != TerminationReason::Cancelled && snapshotDue());
        const bool aborted = control.abort && control.abort->load();
        publish(options.finalFullEvaluation && !aborted, true); // a broken bound says Diverged
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
    : m_trainer(std::move(trainer)), m_options(options), m_checkpoints(std::move(checkpoints))
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
    LoopControl control;
    control.stop = stopFlag;
    return trainLoop(trainer, options, onSnapshot, control, checkpoints);
}

void RunProgress::visitState(StateArchive& a)
{
    a.field("step", step);
    a.field("train_seconds", trainSeconds);
    a.field("rho", rho);
    a.field("snapshots", snapshots);
    a.field("next_snapshot", nextSnapshot);
    a.field("next_full", nextFull);
    a.field("snapshot_due", snapshotDue);
    if (a.loading() && (step < 0 || snapshots < 0 || !(trainSeconds >= 0.0)))
        throw StateError("checkpoint: the run's progress is impossible (step " +
                         std::to_string(step) + ", " + std::to_string(snapshots) + " snapshots)");
}

} // namespace svi
