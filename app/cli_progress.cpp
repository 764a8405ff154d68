#include "app/cli_progress.h"

#include "app/cli_text.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace svi::cli::detail {

namespace {

double now()
{
    static const auto epoch = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch).count();
}

std::string format(const char* pattern, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, pattern, v);
    return buf;
}

} // namespace

ProgressLine::ProgressLine(std::string tag, const RunOptions& budget, bool enabled,
                           const std::atomic<bool>* stop, const std::atomic<bool>* abort)
    : m_tag(std::move(tag)), m_budget(budget), m_enabled(enabled),
      m_terminal(enabled && isatty(STDERR_FILENO) == 1), m_stop(stop), m_abort(abort)
{
    if (m_enabled)
        m_thread = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine()
{
    if (!m_enabled)
        return;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_finished = true;
    }
    m_cv.notify_all();
    m_thread.join();
    if (m_terminal)
        std::fprintf(stderr, "\n");
}

void ProgressLine::setActivity(const std::string& what, const LoadControl* load)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_activity = what;
    m_load = load;
    m_activityStart = now();
    draw(true);
}

void ProgressLine::runStarted()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_activity.clear();
    m_runStart = now();
}

void ProgressLine::snapshot(const Snapshot& s, const std::string& metrics)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const bool first = !m_haveSnapshot;
    m_last = s;
    m_haveSnapshot = true;
    m_metrics = metrics;
    if (m_terminal) {
        draw(true);
        return;
    }
    // In a log, a line at the first and the last snapshot and between them at most one per
    // tenth of the budget or ten seconds, whichever comes first: a long run's log stays short.
    const double fraction = budgetProgress(m_budget, s).fraction;
    if (first || s.final || now() - m_loggedAt >= kLogSeconds ||
        fraction - m_loggedFraction >= kLogFraction) {
        m_loggedAt = now();
        m_loggedFraction = fraction;
        draw(true);
    }
}

std::string ProgressLine::line()
{
    std::string out = "[" + m_tag + "] ";
    const double t = now();
    if (m_runStart < 0) { // before the loop: what is being prepared, and for how long
        out += m_activity + "… " + format("%.0f s", t - m_activityStart);
        if (m_load && m_load->total() > 0)
            out += format("  %.0f %%", 100 * m_load->fraction()) +
                   format(" of %.1f MB", double(m_load->total()) / 1e6);
        return out;
    }
    const RunPhase phase = m_phase.load();
    if (!m_haveSnapshot)
        return out + "first step… " + format("%.0f s", t - m_runStart);
    const Snapshot& s = m_last;
    out += "step " + std::to_string(s.step) + format("  epoch %.2f", s.epochs) +
           format("  train %.1f s", s.trainSeconds) + format("  wall %.1f s", s.wallSeconds);
    out += format("  eval %.0f %%", 100 * evalShare(s));
    // A sampler has no bound (its ELBO is NaN by design, core/run/trainer.h); a diverged run
    // ends with its own message, so a missing number is left out rather than shown as "nan".
    if (std::isfinite(s.elbo))
        out += format("  elbo %.4g", s.elbo);
    out += m_metrics;
    const double left = budgetProgress(m_budget, s).secondsLeft;
    if (phase == RunPhase::FullEvaluation)
        out += s.final ? "" : "  full pass…";
    else if (phase == RunPhase::Evaluating)
        out += "  evaluating…";
    else if (std::isfinite(left) && !s.final)
        out += format("  ~%.0f s left", std::max(0.0, left));
    return out;
}

void ProgressLine::draw(bool force)
{
    if (!m_enabled || (!force && !m_terminal))
        return;
    const std::string text = line();
    // On a terminal the line is redrawn in place; in a log each state is a line of its own.
    if (m_terminal) {
        const std::size_t width = displayWidth(text);
        const std::size_t pad = m_width > width ? m_width - width : 0;
        std::fprintf(stderr, "\r%s%*s", text.c_str(), int(pad), "");
    } else {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
    m_width = displayWidth(text);
}

void ProgressLine::tick()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_finished) {
        m_cv.wait_for(lock, std::chrono::milliseconds(m_terminal ? 500 : 100));
        if (m_finished)
            break;
        const RunPhase phase = m_phase.load();
        const bool changed = phase != m_drawnPhase;
        m_drawnPhase = phase;
        // On a terminal the progress line is left first; in a log every line is whole.
        const char* leave = m_terminal ? "\n" : "";
        if (m_stop && m_stop->load() && !m_saidStop) {
            m_saidStop = true;
            std::fprintf(stderr,
                         "%sstopping at the next step, with a checkpoint and the final "
                         "evaluation (interrupt again to skip the evaluation)\n",
                         leave);
        }
        if (m_abort && m_abort->load() && !m_saidAbort) {
            m_saidAbort = true;
            std::fprintf(stderr, "%sskipping the final evaluation\n", leave);
        }
        if (phase == RunPhase::FullEvaluation && changed && m_haveSnapshot && !m_terminal)
            std::fprintf(stderr, "[%s] full pass…\n", m_tag.c_str());
        draw(false);
    }
}

} // namespace svi::cli::detail
