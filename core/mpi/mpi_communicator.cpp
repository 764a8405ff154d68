#include "core/mpi/mpi_communicator.h"

#include <algorithm>
#include <cstdlib>
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
    MpiCommunicator()
    {
        check(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
        check(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");
    }

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }

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

private:
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
    std::vector<double> m_pack;
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
    check(MPI_Init(&argc, &argv), "MPI_Init");
    m_initialised = true;
    // Errors come back as codes (turned into exceptions) instead of aborting the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    m_world = std::make_unique<MpiCommunicator>();
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
