// Run-time choice of the kernel build: the best the CPU supports, or a lower one
// when asked (tests compare every build with the reference; bench can compare them).
#include "ck_dispatch.h"

#include <stdatomic.h>

int ck_isa_best(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return CK_ISA_AVX512;
    if (__builtin_cpu_supports("avx2")) return CK_ISA_AVX2;
    if (__builtin_cpu_supports("sse4.1")) return CK_ISA_SSE41;
#endif
    return CK_ISA_BASELINE;
}

static _Atomic int ck_active = -1;

int ck_isa_active(void) {
    int isa = atomic_load_explicit(&ck_active, memory_order_relaxed);
    if (isa < 0) {
        isa = ck_isa_best();
        atomic_store_explicit(&ck_active, isa, memory_order_relaxed);
    }
    return isa;
}

int ck_isa_select(int isa) {
    int best = ck_isa_best();
    if (isa > best) isa = best;
    if (isa < 0) isa = CK_ISA_BASELINE;
    atomic_store_explicit(&ck_active, isa, memory_order_relaxed);
    return isa;
}

const char *ck_isa_name(int isa) {
    switch (isa) {
    case CK_ISA_AVX512: return "avx512";
    case CK_ISA_AVX2: return "avx2";
    case CK_ISA_SSE41: return "sse4.1";
    default:
#if defined(__x86_64__)
        return "sse2";
#elif defined(__aarch64__)
        return "neon";
#else
        return "scalar";
#endif
    }
}
