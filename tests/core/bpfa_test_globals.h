#pragma once
// BPFA globals with spread-out values (not the prior), so that every term of an update matters:
// shared by the tests of the BPFA mathematics.

#include "core/models/bpfa/bpfa_model.h"

namespace test_support {

inline svi::bpfa::Globals someGlobals(int K, int D, std::uint64_t seed)
{
    svi::Rng rng(seed);
    svi::bpfa::Globals g = svi::bpfa::priorGlobals(svi::bpfa::Prior{}, K, D);
    for (int k = 0; k < K; ++k) {
        g.a[k] = 0.5 + 3.0 * rng.uniform();
        g.b[k] = 0.5 + 3.0 * rng.uniform();
        for (int d = 0; d < D; ++d) {
            g.lambda(k, d) = 2.0 + 20.0 * rng.uniform();
            g.h(k, d) = g.lambda(k, d) * rng.normal() * 0.7;
        }
    }
    g.c = 30.0;
    g.d = 12.0;
    g.e = 8.0;
    g.f = 5.0;
    return g;
}

} // namespace test_support
