// What every SIMD kernel build shares (CFilterKernels, CCatDetectors, CCatModels): the build's level and lane count, its function suffix,
// the vector types, and a mask's lanes as bits. A build's .c file sets CK_LEVEL and
// CK_SUFFIX under its target attribute (the filter kernels also CK_HAS_FLOOR), then includes its kernels'
// implementation, which includes this first. Not a public header: it defines static
// functions per build.
#ifndef CK_SIMD_H
#define CK_SIMD_H

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef CK_LEVEL
#define CK_LEVEL 0  // 3: AVX-512, 2: AVX2, 1: SSE4.1, 0: baseline
#endif
// Pixels per vector in the float kernels (int16 lanes in the blur: twice as many).
#if CK_LEVEL >= 3
#define CK_LANES 16
#else
#define CK_LANES 8
#endif
#define CK_HLANES (2 * CK_LANES)

#pragma STDC FP_CONTRACT OFF

#define CK_CAT2(a, b) a##_##b
#define CK_CAT(a, b) CK_CAT2(a, b)
#define CK_FN(name) CK_CAT(name, CK_SUFFIX)

typedef float ck_f32x8 __attribute__((ext_vector_type(CK_LANES)));
typedef int32_t ck_i32x8 __attribute__((ext_vector_type(CK_LANES)));
typedef uint32_t ck_u32x8 __attribute__((ext_vector_type(CK_LANES)));
typedef int16_t ck_i16x16 __attribute__((ext_vector_type(CK_HLANES)));
typedef int32_t ck_i32x16 __attribute__((ext_vector_type(CK_HLANES)));
typedef uint8_t ck_u8x16 __attribute__((ext_vector_type(CK_HLANES)));

// Bit i set: lane i of the mask (-1 or 0) is set.
static inline __attribute__((always_inline)) unsigned CK_FN(lane_bits)(ck_i32x8 m) {
#if CK_LEVEL >= 3
    return (unsigned)_mm512_cmplt_epi32_mask((__m512i)m, _mm512_setzero_si512());
#elif CK_LEVEL == 2
    return (unsigned)_mm256_movemask_ps((__m256)m);
#elif defined(__x86_64__)
    typedef int32_t ck_i32x4 __attribute__((ext_vector_type(4)));
    ck_i32x4 lo = __builtin_shufflevector(m, m, 0, 1, 2, 3), hi = __builtin_shufflevector(m, m, 4, 5, 6, 7);
    return (unsigned)_mm_movemask_ps((__m128)lo) | (unsigned)_mm_movemask_ps((__m128)hi) << 4;
#else
    unsigned bits = 0;
    for (int i = 0; i < CK_LANES; i++) bits |= (unsigned)(m[i] != 0) << i;
    return bits;
#endif
}

#endif
