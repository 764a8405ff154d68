#pragma once
// Asynchronous streaming on several ranks: SDA-Bayes (Broderick, Boyd, Wibisono, Wilson &
// Jordan 2013; paper 004 §2.6.3).
//
// Every rank streams its own share of the training rows (Communicator::shardOf their count),
// each in the stream's seeded order, in minibatches. A rank fits its next minibatch under the
// posterior it last received — its streaming step: the minibatch's batch posterior with that
// as prior — and sends rank 0 the change, its statistic. Rank 0 holds the posterior: it adds
// each change as it arrives, without waiting for any other rank, and sends the rank back the
// posterior as it now stands, with which the rank goes on. Rank 0 streams its own share too, and
// serves the others from a thread of its own (the transport must allow it:
// Communicator::servesFromAThread); its run — the Runner, its snapshots and evaluations — sees
// the posterior as of its own last exchange, and the run ends when every rank's share is used
// and every change is in (Trainer::exhausted).
//
// The posterior is kept by a trainer of its own on rank 0 (the keeper, built like the run's),
// whose global update applies a change: the same code as the one-rank stream's, so that a
// change is added as it is there. Changes are applied one at a time, in arrival order; the
// order does not matter for a conjugate model (the posterior is the prior plus the sum of the
// changes) and is not deterministic here.
//
// Messages (Communicator::send/receive): a rank's change, with its times so far, on kChangeTag;
// the posterior, or a stop, back on kPosteriorTag. Every rank starts from the state every trainer
// built from the run's description has (the prior and the seeded start), so that none waits
// for a first posterior; and a rank fits its next minibatch while rank 0 adds its last change
// (under the posterior of rank 0's last answer plus its own latest change), so that it waits
// only when that answer comes later than its next change is ready. A rank reports the seconds it
// spent fitting and the seconds it waited (sending and receiving): what AsyncStream::times gathers.
//
// Thread-safety: rank 0's AsyncStream is driven by the run's thread (step) while its serving
// thread runs; the keeper is touched under one mutex.

#include "core/run/trainer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace svi {

// One rank's time in an asynchronous run.
struct AsyncRankTimes
{
    double busy = 0.0; // fitting its minibatches (local steps and the change)
    double wait = 0.0; // sending its change and waiting for the posterior
    std::int64_t minibatches = 0;
    std::int64_t items = 0;
    double waitShare() const { return busy + wait > 0 ? wait / (busy + wait) : 0.0; }
};

class AsyncStream
{
public:
    static constexpr int kChangeTag = 71;
    static constexpr int kPosteriorTag = 72;

    // Rank 0 of `ranks` (size ≥ 2): `keeper` holds the posterior from here on (a trainer built
    // from the same run description and data as `trainer`, asynchronous), `trainer` is the
    // run's, whose steps become this rank's share of the stream. Starts serving the other ranks.
    // Throws std::invalid_argument when a trainer is not an asynchronous StagedTrainer or the
    // transport cannot serve from a thread. `observer`, when given, is called with every change
    // applied (rank 0's own included), in the order applied, with the rank it came from (tests).
    using ChangeObserver = std::function<void(int rank, const std::string& change)>;
    AsyncStream(Communicator& ranks, Trainer& trainer, std::unique_ptr<Trainer> keeper,
                ChangeObserver observer = {});
    // Stops: the other ranks' next exchange tells them to stop. Joins the serving thread.
    ~AsyncStream();
    AsyncStream(const AsyncStream&) = delete;
    AsyncStream& operator=(const AsyncStream&) = delete;

    // Ends serving: every other rank is told to stop at its next exchange (and waited for).
    void stop();
    // Every rank's share is used and every change is in the posterior.
    bool finished() const { return m_finished.load(); }
    // Items whose change is in the posterior.
    std::int64_t itemsApplied() const { return m_itemsApplied.load(); }
    // Every rank's times as last reported (rank 0's own: now).
    std::vector<AsyncRankTimes> times() const;

    // Ranks > 0: streams `trainer`'s share (an asynchronous StagedTrainer built like rank 0's)
    // until it is used or rank 0 says stop. Returns this rank's times.
    static AsyncRankTimes work(Trainer& trainer, Communicator& ranks);

private:
    friend class StagedTrainer;
    // Rank 0's step t: its next minibatch, the change applied, the posterior back.
    double step(StagedTrainer& trainer, std::int64_t t);
    // Adds a change to the keeper; packs its posterior (those rows, or whole); under m_mutex.
    void apply(int rank, const std::string& change, std::int64_t items);
    std::string posteriorBytes(const std::vector<std::int32_t>* rows);
    // Rank 0's run trainer: the whole posterior, from the keeper (before an evaluation).
    void refresh(StagedTrainer& trainer);
    void serve();
    void waitForOthers();
    static void replacePosterior(StagedTrainer& trainer, std::string_view bytes);
    static void replaceRows(StagedTrainer& trainer, std::string_view bytes);

    Communicator& m_ranks;
    StagedTrainer& m_trainer;
    std::unique_ptr<Trainer> m_keeperOwner;
    StagedTrainer& m_keeper;
    ChangeObserver m_observer;
    mutable std::mutex m_mutex;
    std::condition_variable m_othersDone;
    int m_active = 0; // other ranks still streaming (under m_mutex)
    std::vector<AsyncRankTimes> m_times;
    std::atomic<bool> m_stop{false}, m_finished{false};
    std::atomic<std::int64_t> m_itemsApplied{0};
    std::vector<std::int32_t> m_rowsAhead;  // rank 0's next minibatch's rows (its thread)
    std::vector<std::int32_t> m_rowsWanted; // a rank's, as its change asked (serving thread)
    std::thread m_server;
};

} // namespace svi
