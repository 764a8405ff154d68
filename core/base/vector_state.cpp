#include "core/base/vector_state.h"

#include <omp.h>

namespace svi {

void clearUpperVectorState()
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx = __builtin_cpu_supports("avx");
    if (avx)
        __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

void clearUpperVectorStateEverywhere()
{
    clearUpperVectorState();
#pragma omp parallel
    clearUpperVectorState();
}

} // namespace svi
