#pragma once
// Asynchronous streaming on several ranks: SDA-Bayes (Broderick, Boyd, Wibisono, Wilson &
// Jordan 2013; paper 004 §2.6.3).
//
// The stream's minibatches (one pass over the training rows in a seeded order, numbered from
// 0, the same on every rank, each rank holding the whole data) are handed out by rank 0: each
// rank starts with two (r and R + r), and every change it sends brings it another, so a
// rank that fits faster takes more of the stream. A rank fits a minibatch under the posterior
// it last received — its streaming step: the minibatch's batch posterior with that as prior —
// and sends rank 0 the change, its statistic. Rank 0 holds the posterior: it adds each change
// as it arrives, without waiting for any other rank, and answers with the rows of the
// posterior the rank's minibatch after next reads (and the topics' totals), with which the rank
// goes on. Rank 0 fits minibatches too, and serves the others from a thread of its own (the
// transport must allow it: Communicator::servesFromAThread); its run — the Runner, its
// snapshots and evaluations — sees the whole posterior as it stands at each evaluation, and the
// run ends when every minibatch's change is in (Trainer::exhausted).
//
// The posterior is kept by a trainer of its own on rank 0 (the keeper, built like the run's),
// whose global update applies a change: the same code as the one-rank stream's, so that a
// change is added as it is there. Changes are applied one at a time, in arrival order; the
// order does not matter for a conjugate model (the posterior is the prior plus the sum of the
// changes) and is not deterministic here.
//
// Messages (Communicator::post/receive): a rank's change, with its times so far, on kChangeTag;
// the answer, or a stop, back on kPosteriorTag. A rank reports the seconds it spent fitting, those
// it spent on the exchange (packing, reading an answer into its posterior: work, not idling) and
// those it waited, blocked: what AsyncStream::times gathers. Every rank starts from the state every
// trainer built from the run's description has (the prior and the seeded start), so that none waits
// for a first posterior; and a rank fits its next minibatch while rank 0 adds its last change
// (under the rows of rank 0's last answer plus its own latest change), so that it waits only
// when that answer comes later than its next change is ready.
//
// Thread-safety: rank 0's AsyncStream is driven by the run's thread (step) while its serving
// thread runs; the keeper is touched under one mutex.

#include "core/run/trainer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
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
    double busy = 0.0;     // fitting its minibatches (local steps and the change)
    double exchange = 0.0; // packing its change, reading an answer into its posterior
    double wait = 0.0;     // idle: blocked until an answer (or the others' last changes) came
    std::int64_t minibatches = 0;
    std::int64_t items = 0;
    double total() const { return busy + exchange + wait; }
    double waitShare() const { return total() > 0 ? wait / total() : 0.0; }
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
    // The next minibatch to hand out, or −1 (none left, or stopping); under m_mutex.
    std::int64_t assign();
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
    // The next minibatch to hand out, of m_minibatches, and rows of the posterior being packed
    // (under m_mutex); rank 0's own minibatches in hand (its thread's).
    std::int64_t m_next = 0, m_minibatches = 0;
    std::deque<std::int64_t> m_mine;
    std::vector<std::int32_t> m_rows;
    std::thread m_server;
};

} // namespace svi
