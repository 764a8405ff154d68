#pragma once
// The Communicator of a run on several MPI ranks (MPI_COMM_WORLD), and the process's MPI
// lifetime. Only this folder includes <mpi.h>; it is built when MPI is found (SVI_HAVE_MPI).
//
// Every sum is one MPI_Allreduce (MPI_SUM on doubles). Ranks must hold the very same bits
// afterwards (ranks whose global parameters drifted apart by a bit would go on as different
// runs): Open MPI's all-reduce algorithms (recursive doubling, ring, Rabenseifner's) reduce each
// element once along one ring or pairwise with a commutative addition, which gives that. A
// reduction to rank 0 then a broadcast guarantees it by construction, but took 1.5× as long for
// 16 MB here (16.3 ms against 10.6 ms on two ranks); MPI_Reduce_scatter_block then
// MPI_Allgather, 13×.

#include "core/base/communicator.h"

#include <memory>

namespace svi {

// MPI for the life of the process: initialised when the process was started by an MPI launcher
// (mpirun, mpiexec, srun), not otherwise, so that a plain `svi run` never needs one.
class MpiSession
{
public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    // The world's communicator, or the local one when MPI was not initialised.
    Communicator& world();

    // True when the environment says an MPI launcher started this process.
    static bool launched();

private:
    bool m_initialised = false;
    std::unique_ptr<Communicator> m_world;
};

} // namespace svi
