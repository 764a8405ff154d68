#pragma once
// The Communicator of a run on several MPI ranks (MPI_COMM_WORLD), and the process's MPI
// lifetime. Only this folder includes <mpi.h>; it is built when MPI is found (SVI_HAVE_MPI).
//
// Every sum is a reduction to rank 0 followed by a broadcast, so that every rank holds the very
// same bits (an all-reduce may round differently on different ranks, and ranks whose global
// parameters drift apart by a bit would go on as different runs).

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
