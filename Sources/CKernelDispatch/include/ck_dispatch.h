// The run-time choice of a SIMD kernel build, shared by every kernel target (the filter
// kernels, the cascade scan, the networks' convolutions): one choice for all of them, so
// `bench --isa` and the tests' per-build runs set it once.
//
// Every kernel exists in several builds of the same portable vector code (clang vector
// extensions): AVX-512, AVX2 and SSE4.1 on x86-64, NEON on arm64 (the default build
// there), and a baseline build (SSE2 on x86-64). The best one the CPU supports is chosen
// at run time, so a binary built on one x86-64 machine runs on any other. A target's
// kernels are a list (a .def of CK_KERNEL lines); ck_kernel_list.h makes each one's
// dispatching function from it, ck_simd.h is what a build's code shares (both textual:
// included per build, never as a module).
#ifndef CK_DISPATCH_H
#define CK_DISPATCH_H

enum {
    CK_ISA_BASELINE = 0,  // SSE2 on x86-64, NEON on arm64, or plain C elsewhere
    CK_ISA_SSE41 = 1,
    CK_ISA_AVX2 = 2,
    CK_ISA_AVX512 = 3,  // AVX-512 F, BW and VL
};

// The best build this CPU can run.
int ck_isa_best(void);
// The build in use now.
int ck_isa_active(void);
// Uses `isa` (clamped to what the CPU supports) from now on; returns the one in effect.
int ck_isa_select(int isa);
// "avx512", "avx2", "sse4.1", "sse2", "neon" or "scalar".
const char *ck_isa_name(int isa);

#endif
