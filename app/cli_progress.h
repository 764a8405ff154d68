#pragma once
// The progress line of a run on stderr: what the run is doing (loading, building, training,
// evaluating, the final pass) with its clocks — the wall time, the training time, the share
// spent evaluating — its latest figures and the time left of its budget. On a terminal a
// thread redraws it in place ('\r') twice a second, so that a long build or a full pass shows
// its time too. In a log (stderr not a terminal: a pipe, a file) every line is whole and ends
// in '\n', with no '\r': one at each change of phase, and of the snapshots the first, the last
// and between them one per tenth of the budget or per kLogSeconds, whichever comes first. Also
// says, once, what a signal did (the first Ctrl-C stops at the next step, the second skips the
// final evaluation).

#include "core/io/load_control.h"
#include "core/run/runner.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace svi::cli::detail {

class ProgressLine
{
public:
    // A log's cadence of snapshot lines (see above).
    static constexpr double kLogSeconds = 10.0;
    static constexpr double kLogFraction = 0.1;

    // Nothing is written when `enabled` is false. `stop` and `abort` are the signal flags the
    // line reports on.
    ProgressLine(std::string tag, const RunOptions& budget, bool enabled,
                 const std::atomic<bool>* stop = nullptr, const std::atomic<bool>* abort = nullptr);
    // Stops the thread and ends the line.
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    // What happens before the run's loop ("building", "loading x.csv"); the clock of the phase
    // starts now. With `load`, the share of its bytes read is shown too.
    void setActivity(const std::string& what, const LoadControl* load = nullptr);
    // The run's loop starts: its phase is read from phase() from now on.
    void runStarted();
    // A snapshot arrived: its figures and `metrics` (its compared metrics, formatted).
    void snapshot(const Snapshot& s, const std::string& metrics);
    // Where the run's loop writes its phase.
    std::atomic<RunPhase>* phase() { return &m_phase; }

private:
    std::string line();
    void draw(bool force);
    void tick();

    std::string m_tag;
    RunOptions m_budget;
    bool m_enabled, m_terminal;
    const std::atomic<bool>* m_stop;
    const std::atomic<bool>* m_abort;
    std::atomic<RunPhase> m_phase{RunPhase::Idle};

    std::mutex m_mutex; // guards what follows
    std::string m_activity;
    const LoadControl* m_load = nullptr;
    double m_activityStart = 0, m_runStart = -1;
    Snapshot m_last;
    bool m_haveSnapshot = false;
    std::string m_metrics;
    RunPhase m_drawnPhase = RunPhase::Idle;
    double m_loggedAt = 0, m_loggedFraction = 0; // a log's last snapshot line
    bool m_saidStop = false, m_saidAbort = false, m_finished = false;
    std::size_t m_width = 0;
    std::condition_variable m_cv;
    std::thread m_thread;
};

} // namespace svi::cli::detail
