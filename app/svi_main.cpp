// The headless tool's entry point: on several MPI ranks when an MPI launcher started it (and the
// build has MPI), on this process alone otherwise.

#include "app/cli.h"
#include "core/base/communicator.h"

#ifdef SVI_HAVE_MPI
#include "core/mpi/mpi_communicator.h"
#endif

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
#ifdef SVI_HAVE_MPI
    svi::MpiSession mpi(argc, argv);
    return svi::cli::main(argc, argv, mpi.world());
#else
    if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE"))
        std::fputs("svi: warning: started by an MPI launcher, but this build has no MPI: every "
                   "process runs the whole run alone\n",
                   stderr);
    return svi::cli::main(argc, argv, svi::localCommunicator());
#endif
}
