#pragma once
// Runner: runs a Trainer on its own thread, with pause / resume / stop, and publishes
// Snapshots at a steady cadence through one callback.
//
// Evaluation time is excluded from the training clock (as in the papers' plots); the wall clock
// counts everything from the loop's start (training and snapshots), so that a run can be held
// to either. The automatic snapshot cadence keeps evaluation to at most kAutoEvalShare of the
// wall time (nextAutoSnapshot); a cadence the caller sets is obeyed as given.
// Exceptions thrown by the trainer are caught on the worker and reported as a Summary with
// TerminationReason::Failed and the message; nothing escapes the worker thread.
// Divergence ends a run with TerminationReason::Diverged: NaN or infinity in the global
// parameters (Trainer::diverged, checked after every step) or in the bound of any evaluation
// (Evaluation::elbo when Evaluation::hasBound); the snapshot that showed it is the last.

#include "core/run/trainer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace svi {

enum class TerminationReason {
    Converged,
    // The data ran out: a streaming trainer has used every item of its stream (one pass).
    EndOfData,
    BudgetReached,
    Diverged,
    Cancelled,
    InvalidInput,
    Failed
};

// "converged", "end_of_data", "budget", "diverged", "cancelled", "invalid_input", "failed"
const char* terminationName(TerminationReason reason);
// The reason whose terminationName is `name` (a summary.json read back); std::nullopt for any
// other text.
std::optional<TerminationReason> terminationOf(std::string_view name);

// The automatic snapshot cadence's ceiling on evaluation: its share of the wall time.
inline constexpr double kAutoEvalShare = 0.15;

// When the next snapshot of the automatic cadence is due, in training seconds: the base
// cadence's next time `byCadence`, or later when the snapshot just taken at `trainSeconds` cost
// `evalSeconds` of wall time — late enough that evaluation takes at most `share` of the wall
// time between the two (evalSeconds · (1 − share) / share training seconds after this one).
double nextAutoSnapshot(double trainSeconds, double byCadence, double evalSeconds,
                        double share = kAutoEvalShare);

struct RunOptions
{
    std::int64_t maxSteps = 0;   // 0 = no step limit
    double maxSeconds = 0.0;     // training seconds; 0 = no time limit
    double maxWallSeconds = 0.0; // wall-clock seconds (training and snapshots); 0 = none
    // Snapshot cadence in training seconds; 0 = automatic: every budget / 40 (by steps when
    // only a step budget is given), and no more often than keeps evaluation within
    // kAutoEvalShare of the wall time (a time cadence only: a step cadence stays a function of
    // the step count).
    double evalEverySeconds = 0.0;
    std::int64_t evalEverySteps = 0;       // or every this many steps; 0 = by time only
    bool finalFullEvaluation = true;       // a full evaluation (e.g. whole-image pass) at the end
    double fullEvalEverySeconds = 0.0;     // also a full evaluation every this many training s
    std::int64_t checkpointEverySteps = 0; // Checkpoints::save every this many steps; 0 = none
    // What a run that runs out of memory says after "out of memory after N steps" (the front end's
    // estimate of the run's memory, core/run/memory_need.h); may be empty.
    std::string outOfMemoryNote;

    // Empty when valid (at least one budget must be set; all values ≥ 0).
    std::optional<std::string> validate() const;
};

// One published point of the trace.
struct Snapshot
{
    std::int64_t step = 0;
    double epochs = 0.0;       // items processed / N
    double trainSeconds = 0.0; // excluding evaluation
    double wallSeconds = 0.0;  // since the run started, at the step shown (before its evaluation)
    double rho = 0.0;          // step size of the last step
    double elbo = 0.0;
    std::map<std::string, double> metrics;
    std::shared_ptr<const Preview> preview;
    bool final = false; // the last snapshot of the run
};

// How far a run is through its budget at snapshot `s`: the largest fraction of any budget
// used (the run ends at whichever comes first), and the wall-clock seconds left at the pace so
// far (the final evaluation not counted; infinite when no pace is known yet).
struct BudgetProgress
{
    double fraction = 0.0;
    double secondsLeft = 0.0;
};
BudgetProgress budgetProgress(const RunOptions& budget, const Snapshot& s);

// The share of a run's wall time spent evaluating up to snapshot `s` (what its wall clock has
// beyond its training clock); 0 before any wall time.
double evalShare(const Snapshot& s);

// Appends `s` to a trace, or replaces the trace's last row when it shows the same step: a run
// stopped right after a snapshot ends with its final evaluation of that step, which takes the
// cheap one's place, so that a trace never repeats a step.
void appendSnapshot(std::vector<Snapshot>& trace, Snapshot s);

struct Summary
{
    TerminationReason reason = TerminationReason::Failed;
    std::string message; // human-readable, one line
    std::int64_t steps = 0;
    double epochs = 0.0;
    double trainSeconds = 0.0;
    double wallSeconds = 0.0; // the loop's, final evaluation included
    double evalSeconds = 0.0; // of wallSeconds, spent on snapshots and full passes
    // evalSeconds / wallSeconds; 0 before any wall time.
    double evalShare() const { return wallSeconds > 0 ? evalSeconds / wallSeconds : 0.0; }
    // Whether the last snapshot is a whole final full evaluation (not skipped or cut short by
    // Runner::abort, nor turned off).
    bool finalFull = false;
    std::optional<Snapshot> last;
};

// Where a run's loop stands between two steps: what a checkpoint keeps besides the trainer's
// state, so that a resumed run goes on with the same step numbers, the same clock and the
// same cadence.
struct RunProgress
{
    std::int64_t step = 0;      // steps taken
    double trainSeconds = 0.0;  // training clock
    double wallSeconds = 0.0;   // wall clock
    double evalSeconds = 0.0;   // of which evaluating
    double rho = 0.0;           // step size of the last step
    std::int64_t snapshots = 0; // snapshots published (the rows of the trace so far)
    double nextSnapshot = 0.0;  // the time cadence's next snapshot (training seconds)
    double nextFull = 0.0;      // and next full evaluation
    // The run ended at its budget on a step whose snapshot was due: the final evaluation took
    // its place, and a resumed run publishes it first.
    bool snapshotDue = false;
    void visitState(StateArchive& a);
};

// A run's checkpoints: `save` is called on the run's thread between two steps, every
// RunOptions::checkpointEverySteps steps (after that step's snapshot, if any), when asked for
// (Runner::requestCheckpoint) and, when
// `atEnd`, once more when the run ends as stopped, cancelled, converged or at its budget —
// before the final evaluation, so that a run resumed from it goes on exactly as the
// uninterrupted run (a diverged or failed run keeps its last good checkpoint). The trainer
// may be read (visitState) inside `save`, nothing else. An exception from `save` ends the run
// as Failed with its message.
struct Checkpoints
{
    std::function<void(const RunProgress&, Trainer&)> save;
    bool atEnd = false;
    // When set, the run goes on from there: the trainer's state has been read from the same
    // checkpoint, the step count, the clock and the cadence continue from it.
    std::optional<RunProgress> resumeFrom;
};

enum class CallbackResult { Continue, Stop };

// What a run's worker is doing now; readable from any thread (for status displays).
enum class RunPhase { Idle, Training, Evaluating, FullEvaluation, Paused, Finished };

// What the caller of a blocking run steers and watches from other threads (a signal handler,
// a progress line). Every member may be null.
struct RunControl
{
    // Ends the run at its next step boundary, with its checkpoint at the end and its final
    // evaluation (Runner::requestStop).
    const std::atomic<bool>* stop = nullptr;
    // Also skips the final full evaluation and interrupts a full pass under way
    // (Runner::abort): the trainer's interrupt flag is set to it for the run.
    const std::atomic<bool>* abort = nullptr;
    // Kept up to date with what the run is doing.
    std::atomic<RunPhase>* phase = nullptr;
};

// "idle", "training", "evaluating", "full pass", "paused", "finished"
const char* phaseName(RunPhase phase);

class Runner
{
public:
    // Called on the worker thread for every snapshot. Must be thread-safe with respect to the
    // caller's own data; returning Stop ends the run with reason Cancelled.
    using SnapshotCallback = std::function<CallbackResult(const Snapshot&)>;
    // Called once on the worker thread when the run has ended.
    using FinishedCallback = std::function<void(const Summary&)>;

    Runner(std::unique_ptr<Trainer> trainer, RunOptions options, Checkpoints checkpoints = {});
    // Stops and joins.
    ~Runner();
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    // Starts the worker. A Runner runs once: a second start() throws std::logic_error.
    void start(SnapshotCallback onSnapshot, FinishedCallback onFinished = {});
    void pause();
    void resume();
    // Ends the run after the current step; the final full evaluation (if asked for) still runs.
    void requestStop();
    // Asks for a checkpoint now: Checkpoints::save is called on the worker at the next step
    // boundary with the run's progress there, or at once when the run is paused (the paused
    // worker serves it and stays paused). Served even when the run saved at that step already
    // (the caller may write it elsewhere). Requests made before the worker serves one are
    // served once. Nothing happens without a save callback, nor once the run has left its
    // loop (a run ending at its budget or stopped saves at its end when Checkpoints::atEnd).
    // Any thread.
    void requestCheckpoint();
    // Ends the run as soon as possible: interrupts a full pass under way and skips the final
    // full evaluation (the last snapshot is a cheap one). For Cancel and for closing the window.
    void abort();
    // Blocks until the worker has finished; returns the summary.
    Summary wait();

    bool running() const { return m_running.load(); }
    bool paused() const { return m_paused.load(); }
    RunPhase phase() const { return m_phase.load(); }
    // Where the run stands between snapshots (steps taken, its training and wall clocks at
    // the last step's end), for a status display; any thread.
    Snapshot progress() const;

    // Runs on the calling thread (for the CLI and tests); same semantics as start()+wait().
    // A set stopFlag ends the run like requestStop().
    static Summary runBlocking(Trainer& trainer, const RunOptions& options,
                               const SnapshotCallback& onSnapshot,
                               const std::atomic<bool>* stopFlag = nullptr,
                               const Checkpoints& checkpoints = {});
    // The same, steered and watched through `control`.
    static Summary runBlocking(Trainer& trainer, const RunOptions& options,
                               const SnapshotCallback& onSnapshot, const RunControl& control,
                               const Checkpoints& checkpoints = {});

private:
    void work();

    std::unique_ptr<Trainer> m_trainer;
    RunOptions m_options;
    Checkpoints m_checkpoints;
    SnapshotCallback m_onSnapshot;
    FinishedCallback m_onFinished;
    std::thread m_thread;
    bool m_started = false; // a Runner runs once; touched only by the owning thread
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_abort{false}; // also handed to the trainer as its interrupt flag
    std::atomic<bool> m_checkpointRequest{false};
    std::atomic<RunPhase> m_phase{RunPhase::Idle};
    std::atomic<std::int64_t> m_step{0};
    std::atomic<double> m_trainSeconds{0.0}, m_wallSeconds{0.0};
    std::mutex m_mutex;
    std::condition_variable m_cv;
    Summary m_summary;
};

} // namespace svi
