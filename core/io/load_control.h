#pragma once
// A data load watched and cancelled from another thread (the window's Cancel, the command
// line's Ctrl-C). The caller sets the total it expects (totalBytes of the files), and makes the
// control current for the loading thread with a LoadScope; every ByteSource opened on that
// thread while the scope lives (every reader built on it: tables, corpora, ratings, labelled
// data, graphs, archives) then adds the bytes it reads from disk, and ends the load with
// LoadCancelled at its next block once the control is cancelled. Readers that take a file in one
// piece (FCS, images) report it when read (reportRead).
//
// cancel(), cancelled(), done() and total() may be called from any thread (and cancel() from a
// signal handler: it only stores a lock-free atomic).

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace svi {

// A load ended by LoadControl::cancel. Not a DataError: nothing is wrong with the data.
class LoadCancelled : public std::runtime_error
{
public:
    LoadCancelled() : std::runtime_error("loading cancelled") {}
};

class LoadControl
{
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    // Bytes read so far, and the bytes expected (0 when unknown). done() may pass total() when a
    // reader reads a file twice; a progress bar clamps it.
    std::int64_t done() const { return m_done.load(std::memory_order_relaxed); }
    std::int64_t total() const { return m_total.load(std::memory_order_relaxed); }
    void setTotal(std::int64_t bytes) { m_total.store(bytes, std::memory_order_relaxed); }
    // Adds `bytes` read; throws LoadCancelled once cancelled.
    void advance(std::int64_t bytes);
    // The fraction read, in [0, 1]; 0 when the total is unknown.
    double fraction() const;

private:
    std::atomic<bool> m_cancelled{false};
    std::atomic<std::int64_t> m_done{0}, m_total{0};
};

// Makes `control` the calling thread's current load until the scope ends (scopes nest: the
// previous one is current again after).
class LoadScope
{
public:
    explicit LoadScope(LoadControl& control);
    ~LoadScope();
    LoadScope(const LoadScope&) = delete;
    LoadScope& operator=(const LoadScope&) = delete;

private:
    LoadControl* m_previous;
};

// The calling thread's current load, or null.
LoadControl* currentLoad();

// `bytes` of `path` were read whole: advances the current load, if any (throws LoadCancelled
// once it is cancelled).
void reportRead(std::int64_t bytes);

// The bytes on disk of `paths`: files, and the files under folders (recursively); what cannot
// be read counts 0.
std::int64_t totalBytes(const std::vector<std::string>& paths);

} // namespace svi
