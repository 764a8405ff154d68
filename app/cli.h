#pragma once
// The headless tool's commands (svi list | info | run | compare | bench | split | plot).

namespace svi {
class Communicator;
}

namespace svi::cli {

// Runs the tool with the process arguments on the ranks of `world` (the local communicator,
// or MPI's when the process was started by an MPI launcher); returns the exit status.
int main(int argc, char** argv, Communicator& world);

} // namespace svi::cli
