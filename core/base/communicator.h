#pragma once
// Communicator: what a run on several processes (MPI ranks) needs from its transport, as an
// interface that core can use without MPI. A run on one process uses the local communicator
// (rank 0 of 1: every operation is the identity); the MPI one (core/mpi) implements the same
// operations with MPI collectives, and the trainers and the Runner never see MPI itself.
//
// Every operation is collective: every rank calls it, in the same order, with buffers of the
// same layout; each returns the same result on every rank.
//
// GlobalStatistic: what one step's local phase leaves for the reduction — dense buffers summed
// elementwise, and sparse row sets (rows keyed by an index, e.g. LDA's topic–word statistics
// of the words a minibatch holds) summed over the union of the ranks' indices. A trainer lists
// its buffers once; Communicator::reduce combines them in one place (StagedTrainer::step).
//
// Thread-safety: driven by the run's thread only.

#include "core/base/shard.h"

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace svi {

// Rows keyed by ascending indices: in, this rank's rows; out, the sums over every rank's rows
// of each index of the union (the same on every rank; an index a rank lacks counts as zero).
struct SparseRowSum
{
    std::vector<std::int32_t> index; // ascending, distinct
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows; // one per index
};

class GlobalStatistic
{
public:
    // Forgets the buffers listed (call before listing a step's).
    void clear()
    {
        m_dense.clear();
        m_sparse.clear();
    }
    // A dense buffer of n doubles, summed elementwise over the ranks.
    void dense(double* data, std::size_t n) { m_dense.emplace_back(data, n); }
    template <typename Derived> void dense(Eigen::PlainObjectBase<Derived>& m)
    {
        static_assert(std::is_same_v<typename Derived::Scalar, double>);
        dense(m.data(), std::size_t(m.size()));
    }
    // A set of sparse rows, summed over the union of the ranks' indices.
    void sparse(SparseRowSum& rows) { m_sparse.push_back(&rows); }

    const std::vector<std::span<double>>& denseParts() const { return m_dense; }
    const std::vector<SparseRowSum*>& sparseParts() const { return m_sparse; }

    // The listed buffers as bytes (each dense buffer's values; each sparse set's width, index
    // and rows), for a point-to-point message; and back into the buffers of a statistic listed
    // the same way (each dense buffer must have the size sent: std::invalid_argument otherwise;
    // sparse sets are resized).
    std::string pack() const;
    void unpack(std::string_view bytes);

private:
    std::vector<std::span<double>> m_dense;
    std::vector<SparseRowSum*> m_sparse;
};

class Communicator
{
public:
    virtual ~Communicator() = default;

    virtual int rank() const { return 0; }
    virtual int size() const { return 1; }
    bool distributed() const { return size() > 1; }
    // This rank's share of n items: contiguous blocks, in rank order, that differ in size by at
    // most one.
    Shard shardOf(std::int64_t n) const { return {n * rank() / size(), n * (rank() + 1) / size()}; }
    // The rows this rank owns among n: `held`, the rows it holds when the data were read in
    // parts (each rank only its own), otherwise shardOf(n). A rank trains on and evaluates the
    // items of its rows.
    Shard ownedRows(std::int64_t n, const std::optional<Shard>& held) const
    {
        return held ? *held : shardOf(n);
    }
    // The items of `items` (row indices, in any order) among `rows`, in their order; every item
    // on one rank. An evaluation sums its terms over these, then sum()s the partial sums.
    std::vector<std::int64_t> mine(std::span<const std::int64_t> items, Shard rows) const;

    // Sums every listed buffer over the ranks, in place (one round for the dense buffers
    // together, one per sparse set). Local: the identity.
    virtual void reduce(GlobalStatistic& statistic) { (void)statistic; }
    // Σ over the ranks of `values`, in place.
    virtual void sum(std::span<double> values) { (void)values; }
    // Every rank receives rank 0's `bytes`.
    virtual void broadcast(std::string& bytes) { (void)bytes; }
    // Variable-length exchanges, for reading data in parts (each rank its part of a file): the
    // ranks agree on the union of what they read, then send each record to the rank that owns
    // it. Bytes as std::string (as broadcast); of any length, also 0.
    //
    // Every rank's `mine`, in rank order (the same on every rank). Local: {mine}.
    virtual std::vector<std::string> allGather(const std::string& mine) { return {mine}; }
    // Sends `out[q]` to rank q (out.size() == size()); returns what each rank sent to this
    // one, in rank order (this rank's own out[rank()] among them). Local: out.
    virtual std::vector<std::string> allToAll(const std::vector<std::string>& out) { return out; }
    // allGather of trivially copyable values: every rank's, concatenated in rank order.
    template <typename T> std::vector<T> allGatherValues(std::span<const T> mine)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::vector<std::string> all =
            allGather(std::string(reinterpret_cast<const char*>(mine.data()), mine.size_bytes()));
        std::vector<T> out;
        for (const std::string& bytes : all) {
            if (bytes.size() < sizeof(T))
                continue; // nothing from that rank (memcpy may not be given a null vector's data)
            const std::size_t at = out.size();
            out.resize(at + bytes.size() / sizeof(T));
            std::memcpy(static_cast<void*>(out.data() + at), bytes.data(),
                        bytes.size() / sizeof(T) * sizeof(T));
        }
        return out;
    }

    // Point-to-point messages (asynchronous streaming, core/run/async_stream.h), not collective.
    // One thread may make these calls while the run's thread makes none of any kind (MPI's
    // THREAD_SERIALIZED). Local: there is no other rank, and they throw std::logic_error.
    static constexpr int kAnySource = -1;
    // Whether the transport allows those calls from a thread other than the process's main one
    // (MPI initialised with MPI_THREAD_SERIALIZED or more).
    virtual bool servesFromAThread() const { return false; }
    // Sends `bytes` (of any length) to rank `to` with `tag` (≥ 0).
    virtual void send(int to, int tag, const std::string& bytes);
    // Sends `bytes` without waiting for the receiver to take them: they are kept until
    // delivered (a sender that must not stall on a receiver busy elsewhere). completePosts
    // waits until every one posted has been delivered. The local and default forms send.
    virtual void post(int to, int tag, std::string&& bytes) { send(to, tag, bytes); }
    virtual void completePosts() {}
    // Waits for a message with `tag` from rank `from` (or kAnySource) and returns it; its sender
    // in *source.
    virtual std::string receive(int from, int tag, int* source = nullptr);
    // Whether such a message is waiting (without taking it); its sender in *source.
    virtual bool probe(int from, int tag, int* source = nullptr);

    // The message of the lowest rank whose `mine` is not empty (its first kMessageBytes bytes),
    // or "" when every rank's is: how ranks agree that a collective task failed on one of them
    // and say why on all. Built on sum().
    static constexpr std::size_t kMessageBytes = 1024;
    std::string firstMessage(const std::string& mine);
    // The message of the rank with the smallest `key` among those whose `mine` is not empty
    // (ties: the lowest rank), or "": for a check each rank makes on its own records where the
    // one to report is the first in a global order (e.g. the lowest line of a file). Built on
    // sum() and firstMessage().
    std::string earliestMessage(double key, const std::string& mine);

    // Bytes this rank has sent through the collectives so far (an estimate of what the
    // algorithm of each collective moves; 0 locally). For benchmarks.
    std::uint64_t bytesSent() const { return m_bytesSent; }

protected:
    std::uint64_t m_bytesSent = 0;
};

// The positions among `ascending` (sorted row indices, e.g. a data set's training rows) of
// those in `rows`: contiguous, since the rows are.
Shard positionsIn(const std::vector<std::int64_t>& ascending, Shard rows);

// The communicator of a run on one process.
Communicator& localCommunicator();

} // namespace svi
