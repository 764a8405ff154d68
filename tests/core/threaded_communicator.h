#pragma once
// A Communicator for tests: R "ranks" as R threads of one process, so that a test can run a
// distributed run without MPI. The ranks share a std::barrier and a table in which each rank
// publishes its buffer of the current collective; after the barrier every rank reads every
// rank's buffer and forms the result itself, adding the ranks' contributions in rank order
// (rank 0's first), so that every rank gets the same bits, and the same bits from one run to
// the next. A second barrier keeps every buffer alive until all have read it.
//
// The operations have the semantics of the MPI communicator (core/mpi/mpi_communicator.cpp):
// reduce() sums the dense buffers elementwise (packed into one buffer, one sum) and each sparse
// row set over the union of the ranks' ascending indices (an index a rank lacks counts as
// zero); sum() sums in place; broadcast() hands rank 0's bytes to every rank; allGather() hands
// every rank's bytes to every rank and allToAll() each rank's q-th buffer to rank q. Point-to-point
// messages go through a mailbox per rank (send appends, receive waits for a match, probe looks),
// from any thread.
//
// A rank that ends (normally or by an exception) leaves the group (ThreadedRanks::run does it):
// a rank still calling collectives after another has left — a run whose ranks disagree on their
// sequence of collectives, or one whose peer failed — gets a std::runtime_error instead of
// waiting forever.
//
// Thread-safety: each rank's communicator is driven by its own thread only.

#include "core/base/communicator.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace svi::test_support {

class ThreadedRanks
{
public:
    // `size` ranks (≥ 1).
    explicit ThreadedRanks(int size) : m_size(size), m_barrier(size), m_slots(std::size_t(size))
    {
        if (size < 1)
            throw std::invalid_argument("ThreadedRanks: size must be ≥ 1");
        for (int r = 0; r < size; ++r)
            m_ranks.push_back(std::make_unique<Rank>(*this, r));
    }
    ThreadedRanks(const ThreadedRanks&) = delete;
    ThreadedRanks& operator=(const ThreadedRanks&) = delete;

    int size() const { return m_size; }
    Communicator& communicator(int rank) { return *m_ranks[std::size_t(rank)]; }

    // Runs fn(rank) on one thread per rank and joins them. Each thread leaves the group when fn
    // returns or throws; the first exception (by rank) is rethrown here after the join. Once per
    // object (the ranks that left do not come back).
    void run(const std::function<void(int rank)>& fn)
    {
        if (m_ran)
            throw std::logic_error("ThreadedRanks::run: the ranks have run already");
        m_ran = true;
        std::vector<std::exception_ptr> errors(static_cast<std::size_t>(m_size));
        std::vector<std::thread> threads;
        for (int r = 0; r < m_size; ++r)
            threads.emplace_back([&, r] {
                try {
                    fn(r);
                } catch (...) {
                    errors[std::size_t(r)] = std::current_exception();
                }
                leave(r);
            });
        for (std::thread& t : threads)
            t.join();
        for (const std::exception_ptr& e : errors)
            if (e)
                std::rethrow_exception(e);
    }

private:
    // What a rank publishes for the current collective.
    struct Slot
    {
        std::span<double> dense;
        const SparseRowSum* sparse = nullptr;
        const std::string* bytes = nullptr;
        const std::vector<std::string>* buffers = nullptr; // allToAll: one per destination
    };

    class Rank final : public Communicator
    {
    public:
        Rank(ThreadedRanks& group, int rank) : m_group(group), m_rank(rank) {}
        int rank() const override { return m_rank; }
        int size() const override { return m_group.m_size; }
        bool servesFromAThread() const override { return true; }

        void send(int to, int tag, const std::string& bytes) override
        {
            Rank& target = *m_group.m_ranks.at(std::size_t(to));
            {
                std::lock_guard lock(target.m_mailMutex);
                target.m_mail.push_back({m_rank, tag, bytes});
            }
            target.m_mailArrived.notify_all();
            m_bytesSent += bytes.size();
        }

        std::string receive(int from, int tag, int* source) override
        {
            std::unique_lock lock(m_mailMutex);
            auto it = m_mail.end();
            m_mailArrived.wait(lock, [&] { return (it = find(from, tag)) != m_mail.end(); });
            std::string bytes = std::move(it->bytes);
            if (source)
                *source = it->source;
            m_mail.erase(it);
            return bytes;
        }

        bool probe(int from, int tag, int* source) override
        {
            std::lock_guard lock(m_mailMutex);
            const auto it = find(from, tag);
            if (it != m_mail.end() && source)
                *source = it->source;
            return it != m_mail.end();
        }

        void sum(std::span<double> values) override
        {
            ThreadedRanks& g = m_group;
            g.slot(m_rank).dense = values;
            g.enter();
            bool sameSize = true;
            for (const Slot& s : g.m_slots)
                sameSize = sameSize && s.dense.size() == values.size();
            if (sameSize) {
                m_result.assign(values.size(), 0.0);
                for (const Slot& s : g.m_slots) // rank order
                    for (std::size_t i = 0; i < values.size(); ++i)
                        m_result[i] += s.dense[i];
            }
            g.exit();
            if (!sameSize)
                throw std::runtime_error("ThreadedRanks: the ranks summed buffers of different "
                                         "sizes");
            std::copy(m_result.begin(), m_result.end(), values.begin());
            m_bytesSent += values.size() * sizeof(double);
        }

        void reduce(GlobalStatistic& statistic) override
        {
            std::size_t total = 0;
            for (const std::span<double>& part : statistic.denseParts())
                total += part.size();
            // Every rank takes part in the dense round, even with nothing to add, as every MPI
            // rank calls the same collectives.
            m_pack.resize(total);
            std::size_t at = 0;
            for (const std::span<double>& part : statistic.denseParts()) {
                std::copy(part.begin(), part.end(), m_pack.begin() + std::ptrdiff_t(at));
                at += part.size();
            }
            if (total > 0)
                sum(m_pack);
            at = 0;
            for (const std::span<double>& part : statistic.denseParts()) {
                std::copy_n(m_pack.begin() + std::ptrdiff_t(at), part.size(), part.begin());
                at += part.size();
            }
            for (SparseRowSum* rows : statistic.sparseParts())
                reduceRows(*rows);
        }

        void broadcast(std::string& bytes) override
        {
            ThreadedRanks& g = m_group;
            g.slot(m_rank).bytes = &bytes;
            g.enter();
            if (m_rank != 0)
                m_text = *g.m_slots[0].bytes;
            g.exit();
            if (m_rank != 0)
                bytes = m_text;
            else
                m_bytesSent += bytes.size();
        }

        std::vector<std::string> allGather(const std::string& mine) override
        {
            ThreadedRanks& g = m_group;
            g.slot(m_rank).bytes = &mine;
            g.enter();
            std::vector<std::string> all;
            for (const Slot& s : g.m_slots) // rank order
                all.push_back(*s.bytes);
            g.exit();
            m_bytesSent += mine.size() * std::size_t(g.m_size - 1);
            return all;
        }

        std::vector<std::string> allToAll(const std::vector<std::string>& out) override
        {
            ThreadedRanks& g = m_group;
            g.slot(m_rank).buffers = &out;
            g.enter();
            bool sized = true;
            for (const Slot& s : g.m_slots)
                sized = sized && s.buffers->size() == std::size_t(g.m_size);
            std::vector<std::string> in;
            if (sized)
                for (const Slot& s : g.m_slots) // rank order
                    in.push_back((*s.buffers)[std::size_t(m_rank)]);
            g.exit();
            if (!sized)
                throw std::runtime_error("ThreadedRanks: allToAll needs one buffer per rank");
            for (int q = 0; q < g.m_size; ++q)
                if (q != m_rank)
                    m_bytesSent += out[std::size_t(q)].size();
            return in;
        }

    private:
        struct Message
        {
            int source;
            int tag;
            std::string bytes;
        };
        // The first waiting message with `tag` from `from` (or any rank); under m_mailMutex.
        std::deque<Message>::iterator find(int from, int tag)
        {
            return std::find_if(m_mail.begin(), m_mail.end(), [&](const Message& m) {
                return m.tag == tag && (from == kAnySource || m.source == from);
            });
        }

        // The union of every rank's indices, and per index the sum of the rows that hold it,
        // in rank order.
        void reduceRows(SparseRowSum& s)
        {
            ThreadedRanks& g = m_group;
            g.slot(m_rank).sparse = &s;
            g.enter();
            bool sameWidth = true;
            m_union.clear();
            for (const Slot& slot : g.m_slots) {
                sameWidth = sameWidth && slot.sparse->rows.cols() == s.rows.cols();
                m_union.insert(m_union.end(), slot.sparse->index.begin(), slot.sparse->index.end());
            }
            std::sort(m_union.begin(), m_union.end());
            m_union.erase(std::unique(m_union.begin(), m_union.end()), m_union.end());
            if (sameWidth) {
                m_block.setZero(Eigen::Index(m_union.size()), s.rows.cols());
                for (const Slot& slot : g.m_slots) { // rank order
                    const SparseRowSum& theirs = *slot.sparse;
                    std::size_t u = 0;
                    for (std::size_t i = 0; i < theirs.index.size(); ++i) {
                        while (m_union[u] != theirs.index[i])
                            ++u;
                        m_block.row(Eigen::Index(u)) += theirs.rows.row(Eigen::Index(i));
                    }
                }
            }
            g.exit();
            if (!sameWidth)
                throw std::runtime_error("ThreadedRanks: the ranks' sparse rows differ in width");
            m_bytesSent += s.index.size() * sizeof(std::int32_t) +
                           std::size_t(m_block.size()) * sizeof(double);
            s.index = m_union;
            s.rows.swap(m_block);
        }

        ThreadedRanks& m_group;
        int m_rank;
        std::vector<double> m_result, m_pack;
        std::vector<std::int32_t> m_union;
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m_block;
        std::string m_text;
        std::mutex m_mailMutex;
        std::condition_variable m_mailArrived;
        std::deque<Message> m_mail;
    };

    Slot& slot(int rank) { return m_slots[std::size_t(rank)]; }

    // The first barrier of a collective: every rank has published its buffer. A rank that has
    // left by then (it was checked, or ended, before reaching this collective) means the ranks
    // no longer call the same collectives.
    void enter()
    {
        m_barrier.arrive_and_wait();
        const int left = m_left.load();
        if (left >= 0)
            throw std::runtime_error("ThreadedRanks: rank " + std::to_string(left) +
                                     " ended while the others still communicate");
    }
    // The second: every rank has read every buffer (no rank can have left in between: a rank
    // leaves only outside a collective, and this one began with all of them).
    void exit() { m_barrier.arrive_and_wait(); }

    void leave(int rank)
    {
        int none = -1;
        m_left.compare_exchange_strong(none, rank);
        m_barrier.arrive_and_drop();
    }

    int m_size;
    std::barrier<> m_barrier;
    std::vector<Slot> m_slots;
    std::atomic<int> m_left{-1};
    bool m_ran = false;
    std::vector<std::unique_ptr<Rank>> m_ranks;
};

} // namespace svi::test_support
