// Pixel kernels of the filter core, on RGBA8 rows with a stride.
//
// Every kernel exists in several builds of the same portable vector code (clang
// vector extensions): AVX-512, AVX2 and SSE4.1 on x86-64, NEON on arm64 (the default
// build there), and a baseline build (SSE2 on x86-64). The best one the CPU supports is
// chosen at run time, so a binary built on one x86-64 machine runs on any other.
// Each kernel has a plain scalar reference in Swift (the colour chain's in
// FilterCore/Reference.swift, each spatial stage's in its file under FilterCore/Filters/);
// all builds compute exactly what the reference computes (no FMA contraction,
// the same operation order, integer arithmetic where it is integer). CatFaces' cascade
// scan (CCatDetectors) is built and chosen the same way, with the build chosen here.
#ifndef CFILTER_KERNELS_H
#define CFILTER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

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

// Floats per affine colour stage: a row-major 3x4 matrix on 0-255 values,
//   r' = c[0]*r + c[1]*g + c[2]*b + c[3]   (rows 4-7 for g', 8-11 for b'),
// where the offsets c[3], c[7], c[11] already include the +0.5 of rounding.
#define CK_STAGE_FLOATS 12
// The largest convolution kernel side ck_convolve_rows takes (5x5).
#define CK_CONVOLVE_MAX 5

// The kernels, from the one list (each one's contract is written there).
#define CK_KERNEL(ret, name, params, args) ret name params;
#include "cfilter_kernels.def"
#undef CK_KERNEL

#endif
