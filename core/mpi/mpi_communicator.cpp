#include "core/mpi/mpi_communicator.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <iterator>
#include <list>
#include <mpi.h>
#include <stdexcept>
#include <string>

namespace svi {

namespace {

void check(int status, const char* what)
{
    if (status != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(status, text, &length);
        throw std::runtime_error(std::string("MPI: ") + what +
                                 " failed: " + std::string(text, std::size_t(length)));
    }
}

// MPI counts are ints: a buffer is sent in pieces of at most 2³⁰ elements.
constexpr std::size_t kPiece = std::size_t(1) << 30;

class MpiCommunicator final : public Communicator
{
public:
    explicit MpiCommunicator(bool serialized) : m_serialized(serialized)
    {
        check(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
        check(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");
    }

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    bool servesFromAThread() const override { return m_serialized; }

    void sum(std::span<double> values) override
    {
        for (std::size_t at = 0; at < values.size(); at += kPiece) {
            const int n = int(std::min(kPiece, values.size() - at));
            double* data = values.data() + at;
            check(MPI_Allreduce(MPI_IN_PLACE, data, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
                  "MPI_Allreduce");
        }
        m_bytesSent += values.size() * sizeof(double);
    }

    void reduce(GlobalStatistic& statistic) override
    {
        // The dense buffers together, in one sum.
        std::size_t total = 0;
        for (const std::span<double>& part : statistic.denseParts())
            total += part.size();
        if (total > 0) {
            m_pack.resize(total);
            std::size_t at = 0;
            for (const std::span<double>& part : statistic.denseParts()) {
                std::copy(part.begin(), part.end(), m_pack.begin() + std::ptrdiff_t(at));
                at += part.size();
            }
            sum(m_pack);
            at = 0;
            for (const std::span<double>& part : statistic.denseParts()) {
                std::copy_n(m_pack.begin() + std::ptrdiff_t(at), part.size(), part.begin());
                at += part.size();
            }
        }
        for (SparseRowSum* rows : statistic.sparseParts())
            reduceRows(*rows);
    }

    void broadcast(std::string& bytes) override
    {
        unsigned long long n = bytes.size();
        check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
        bytes.resize(std::size_t(n));
        for (std::size_t at = 0; at < bytes.size(); at += kPiece)
            check(MPI_Bcast(bytes.data() + at, int(std::min(kPiece, bytes.size() - at)), MPI_CHAR,
                            0, MPI_COMM_WORLD),
                  "MPI_Bcast");
        if (m_rank == 0)
            m_bytesSent += bytes.size();
    }

    // Rounds of MPI_Allgatherv, each moving at most kRound bytes of every rank's buffer, so
    // that every count and displacement fits an int.
    std::vector<std::string> allGather(const std::string& mine) override
    {
        const std::size_t R = std::size_t(m_size);
        long long n = (long long)mine.size();
        std::vector<long long> sizes(R);
        check(MPI_Allgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD),
              "MPI_Allgather");
        std::vector<std::string> all(R);
        long long longest = 0;
        for (std::size_t q = 0; q < R; ++q) {
            all[q].resize(std::size_t(sizes[q]));
            longest = std::max(longest, sizes[q]);
        }
        const long long round = roundBytes();
        std::vector<int> counts(R), offsets(R);
        std::string received;
        for (long long at = 0; at < longest; at += round) {
            int total = 0;
            for (std::size_t q = 0; q < R; ++q) {
                counts[q] = int(std::clamp(sizes[q] - at, 0LL, round));
                offsets[q] = total;
                total += counts[q];
            }
            received.resize(std::size_t(total));
            const int own = counts[std::size_t(m_rank)];
            check(MPI_Allgatherv(mine.data() + (own > 0 ? at : 0), own, MPI_CHAR, received.data(),
                                 counts.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD),
                  "MPI_Allgatherv");
            for (std::size_t q = 0; q < R; ++q)
                std::copy_n(received.data() + offsets[q], counts[q],
                            all[q].data() + (counts[q] > 0 ? at : 0));
        }
        m_bytesSent += mine.size() * (R - 1) + sizeof(n);
        return all;
    }

    // Rounds of MPI_Alltoallv, each moving at most kRound bytes from every rank to every other.
    std::vector<std::string> allToAll(const std::vector<std::string>& out) override
    {
        const std::size_t R = std::size_t(m_size);
        if (out.size() != R)
            throw std::invalid_argument("allToAll: " + std::to_string(out.size()) +
                                        " buffers for " + std::to_string(R) + " ranks");
        std::vector<long long> sizes(R), incoming(R);
        for (std::size_t q = 0; q < R; ++q)
            sizes[q] = (long long)out[q].size();
        check(MPI_Alltoall(sizes.data(), 1, MPI_LONG_LONG, incoming.data(), 1, MPI_LONG_LONG,
                           MPI_COMM_WORLD),
              "MPI_Alltoall");
        std::vector<std::string> in(R);
        long long longest = 0;
        for (std::size_t q = 0; q < R; ++q) {
            in[q].resize(std::size_t(incoming[q]));
            longest = std::max({longest, sizes[q], incoming[q]});
        }
        // Every rank takes part in every round (the same count of them: the longest buffer
        // anywhere, agreed on first).
        check(MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD),
              "MPI_Allreduce");
        const long long round = roundBytes();
        std::vector<int> sendCounts(R), sendOffsets(R), recvCounts(R), recvOffsets(R);
        std::string sending, received;
        for (long long at = 0; at < longest; at += round) {
            int sent = 0, got = 0;
            for (std::size_t q = 0; q < R; ++q) {
                sendCounts[q] = int(std::clamp(sizes[q] - at, 0LL, round));
                sendOffsets[q] = sent;
                sent += sendCounts[q];
                recvCounts[q] = int(std::clamp(incoming[q] - at, 0LL, round));
                recvOffsets[q] = got;
                got += recvCounts[q];
            }
            sending.resize(std::size_t(sent));
            for (std::size_t q = 0; q < R; ++q)
                std::copy_n(out[q].data() + (sendCounts[q] > 0 ? at : 0), sendCounts[q],
                            sending.data() + sendOffsets[q]);
            received.resize(std::size_t(got));
            check(MPI_Alltoallv(sending.data(), sendCounts.data(), sendOffsets.data(), MPI_CHAR,
                                received.data(), recvCounts.data(), recvOffsets.data(), MPI_CHAR,
                                MPI_COMM_WORLD),
                  "MPI_Alltoallv");
            for (std::size_t q = 0; q < R; ++q)
                std::copy_n(received.data() + recvOffsets[q], recvCounts[q],
                            in[q].data() + (recvCounts[q] > 0 ? at : 0));
        }
        for (std::size_t q = 0; q < R; ++q)
            if (q != std::size_t(m_rank))
                m_bytesSent += out[q].size() + sizeof(long long);
        return in;
    }

    void send(int to, int tag, const std::string& bytes) override
    {
        if (bytes.size() > std::size_t(INT_MAX))
            throw std::runtime_error("MPI: a message of " + std::to_string(bytes.size()) +
                                     " bytes, beyond the 2 GB one send takes");
        check(MPI_Send(bytes.data(), int(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD),
              "MPI_Send");
        m_bytesSent += bytes.size();
    }

    void post(int to, int tag, std::string&& bytes) override
    {
        if (bytes.size() > std::size_t(INT_MAX))
            throw std::runtime_error("MPI: a message of " + std::to_string(bytes.size()) +
                                     " bytes, beyond the 2 GB one send takes");
        forgetDelivered();
        // A list node keeps its bytes where they are while MPI reads them.
        Posted& p = m_posted.emplace_back();
        p.bytes = std::move(bytes);
        check(MPI_Isend(p.bytes.data(), int(p.bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD,
                        &p.request),
              "MPI_Isend");
        m_bytesSent += p.bytes.size();
    }

    void completePosts() override
    {
        for (Posted& p : m_posted)
            check(MPI_Wait(&p.request, MPI_STATUS_IGNORE), "MPI_Wait");
        m_posted.clear();
    }

    std::string receive(int from, int tag, int* source) override
    {
        MPI_Status status;
        check(MPI_Probe(from == kAnySource ? MPI_ANY_SOURCE : from, tag, MPI_COMM_WORLD, &status),
              "MPI_Probe");
        int n = 0;
        check(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
        std::string bytes(std::size_t(n), '\0');
        check(MPI_Recv(bytes.data(), n, MPI_BYTE, status.MPI_SOURCE, tag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
        if (source)
            *source = status.MPI_SOURCE;
        return bytes;
    }

    bool probe(int from, int tag, int* source) override
    {
        forgetDelivered(); // and so drives the posted sends on
        int waiting = 0;
        MPI_Status status;
        check(MPI_Iprobe(from == kAnySource ? MPI_ANY_SOURCE : from, tag, MPI_COMM_WORLD, &waiting,
                         &status),
              "MPI_Iprobe");
        if (waiting && source)
            *source = status.MPI_SOURCE;
        return waiting != 0;
    }

private:
    struct Posted
    {
        std::string bytes;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    // Drops the posted sends that have been delivered.
    void forgetDelivered()
    {
        for (auto it = m_posted.begin(); it != m_posted.end();) {
            int done = 0;
            check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
            it = done ? m_posted.erase(it) : std::next(it);
        }
    }

    // Bytes per rank and round of a variable-length exchange: R of them must fit an int.
    long long roundBytes() const { return std::min<long long>(kPiece, INT_MAX / m_size); }

    // The union of the ranks' indices (every rank's list gathered, merged), then the rows summed
    // as one dense block over the union.
    void reduceRows(SparseRowSum& s)
    {
        const Eigen::Index width = s.rows.cols();
        int count = int(s.index.size());
        m_counts.resize(std::size_t(m_size));
        check(MPI_Allgather(&count, 1, MPI_INT, m_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
              "MPI_Allgather");
        m_offsets.assign(std::size_t(m_size) + 1, 0);
        for (int r = 0; r < m_size; ++r)
            m_offsets[std::size_t(r) + 1] = m_offsets[std::size_t(r)] + m_counts[std::size_t(r)];
        m_all.resize(std::size_t(m_offsets.back()));
        check(MPI_Allgatherv(s.index.data(), count, MPI_INT32_T, m_all.data(), m_counts.data(),
                             m_offsets.data(), MPI_INT32_T, MPI_COMM_WORLD),
              "MPI_Allgatherv");
        m_bytesSent += s.index.size() * sizeof(std::int32_t);
        std::sort(m_all.begin(), m_all.end());
        m_all.erase(std::unique(m_all.begin(), m_all.end()), m_all.end());

        m_block.setZero(Eigen::Index(m_all.size()), width);
        std::size_t u = 0;
        for (std::size_t i = 0; i < s.index.size(); ++i) {
            while (m_all[u] != s.index[i])
                ++u;
            m_block.row(Eigen::Index(u)) = s.rows.row(Eigen::Index(i));
        }
        sum({m_block.data(), std::size_t(m_block.size())});
        s.index.assign(m_all.begin(), m_all.end());
        s.rows.swap(m_block); // no copy: the two buffers trade places, each reused next step
    }

    int m_rank = 0, m_size = 1;
    bool m_serialized = false;
    std::vector<double> m_pack;
    std::list<Posted> m_posted;
    std::vector<int> m_counts, m_offsets;
    std::vector<std::int32_t> m_all;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m_block;
};

} // namespace

bool MpiSession::launched()
{
    // Open MPI's mpirun, MPICH's and Slurm's launchers (PMI / PMIx) set one of these.
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(name))
            return true;
    return false;
}

MpiSession::MpiSession(int& argc, char**& argv)
{
    if (!launched())
        return;
    // Asynchronous streaming's master serves its workers from a thread of its own while the
    // run's thread makes no MPI call (core/run/async_stream.h): MPI_THREAD_SERIALIZED.
    int provided = MPI_THREAD_SINGLE;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    m_initialised = true;
    // Errors come back as codes (turned into exceptions) instead of aborting the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    m_world = std::make_unique<MpiCommunicator>(provided >= MPI_THREAD_SERIALIZED);
}

MpiSession::~MpiSession()
{
    m_world.reset();
    if (m_initialised)
        MPI_Finalize();
}

Communicator& MpiSession::world()
{
    return m_world ? *m_world : localCommunicator();
}

} // namespace svi
