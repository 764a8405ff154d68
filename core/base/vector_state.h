#pragma once
// The x86 upper vector state, cleared where numeric work starts.
//
// The library is built for the x86-64 baseline, so its loops (and Eigen's) are SSE code. On a
// CPU with AVX, once a thread has left the upper halves of its vector registers in use — some
// function of a shared library (glibc or Qt, reached while the command line is parsed) returns
// without `vzeroupper` — every SSE instruction that thread runs afterwards pays a transition
// penalty, and nothing in SSE code clears the state again. Measured here (an AVX-512 Xeon): an
// LDA step on 20 Newsgroups (K = 100, 1,024 documents, one thread) took 1.7 s in `svi run`
// against 0.41 s once cleared; a thread started from a dirty one (OpenMP's) inherits it. So the
// Runner clears the state of its thread and of every OpenMP thread before each step and each
// evaluation, and the front ends at their start.

namespace svi {

// Clears the calling thread's upper vector state (vzeroupper) when the CPU has AVX; nothing
// otherwise.
void clearUpperVectorState();
// The same on the calling thread and on every thread of an OpenMP parallel region.
void clearUpperVectorStateEverywhere();

} // namespace svi
