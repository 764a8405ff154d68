#pragma once
// The headless tool's commands (svi list | info | run | compare | bench | split | plot).

namespace svi::cli {

// Runs the tool with the process arguments; returns the exit status.
int main(int argc, char** argv);

} // namespace svi::cli
