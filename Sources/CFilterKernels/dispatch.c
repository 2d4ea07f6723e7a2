// Run-time choice of the kernel build: the best the CPU supports, or a lower one
// when asked (tests compare every build with the reference; bench can compare them).
#include "cfilter_kernels.h"

#include <stdatomic.h>

#define CK_DECLARE(suffix)                                                                              \
    void ck_color_chain_##suffix(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t,            \
                                 const float *, int);                                                   \
    size_t ck_blur_scratch_bytes_##suffix(size_t, int);                                                 \
    void ck_blur_rows_##suffix(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, size_t,      \
                               size_t, size_t, size_t, const int16_t *, int, void *);                   \
    void ck_unsharp_##suffix(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, float);        \
    void ck_vignette_##suffix(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t,               \
                              const float *, const float *, float);                                     \
    void ck_resample_v_##suffix(const uint8_t *, size_t, float *, size_t, const float *, int);           \
    void ck_resample_h_##suffix(const float *, uint8_t *, size_t, const int32_t *, const float *, int);

CK_DECLARE(baseline)
#if defined(__x86_64__)
CK_DECLARE(sse41)
CK_DECLARE(avx2)
CK_DECLARE(avx512)
#endif

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

#if defined(__x86_64__)
#define CK_DISPATCH(call)                                   \
    switch (ck_isa_active()) {                              \
    case CK_ISA_AVX512: return call##_avx512;               \
    case CK_ISA_AVX2: return call##_avx2;                   \
    case CK_ISA_SSE41: return call##_sse41;                 \
    default: return call##_baseline;                        \
    }
#else
#define CK_DISPATCH(call) return call##_baseline;
#endif

typedef void (*ck_color_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, const float *, int);
typedef size_t (*ck_scratch_fn)(size_t, int);
typedef void (*ck_blur_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, size_t, size_t,
                           size_t, size_t, const int16_t *, int, void *);
typedef void (*ck_unsharp_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, float);
typedef void (*ck_vignette_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t, size_t, const float *,
                               const float *, float);

static ck_color_fn color_fn(void) { CK_DISPATCH(ck_color_chain) }
static ck_scratch_fn scratch_fn(void) { CK_DISPATCH(ck_blur_scratch_bytes) }
static ck_blur_fn blur_fn(void) { CK_DISPATCH(ck_blur_rows) }
static ck_unsharp_fn unsharp_fn(void) { CK_DISPATCH(ck_unsharp) }
typedef void (*ck_resample_v_fn)(const uint8_t *, size_t, float *, size_t, const float *, int);
typedef void (*ck_resample_h_fn)(const float *, uint8_t *, size_t, const int32_t *, const float *, int);

static ck_vignette_fn vignette_fn(void) { CK_DISPATCH(ck_vignette) }
static ck_resample_h_fn resample_h_fn(void) { CK_DISPATCH(ck_resample_h) }
static ck_resample_v_fn resample_v_fn(void) { CK_DISPATCH(ck_resample_v) }

void ck_color_chain(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                    size_t width, size_t rows, const float *stages, int count) {
    if (count > 0) color_fn()(src, src_stride, dst, dst_stride, width, rows, stages, count);
}

size_t ck_blur_scratch_bytes(size_t width, int radius) { return scratch_fn()(width, radius); }

void ck_blur_rows(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                  size_t width, size_t height, size_t y0, size_t y1, size_t src_row0, size_t dst_row0,
                  const int16_t *weights, int radius, void *scratch) {
    blur_fn()(src, src_stride, dst, dst_stride, width, height, y0, y1, src_row0, dst_row0, weights, radius, scratch);
}

void ck_unsharp(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                size_t width, size_t rows, float amount) {
    unsharp_fn()(src, src_stride, dst, dst_stride, width, rows, amount);
}

void ck_vignette(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                 size_t width, size_t rows, const float *dx2, const float *dy2, float amount) {
    vignette_fn()(src, src_stride, dst, dst_stride, width, rows, dx2, dy2, amount);
}

void ck_resample_v(const uint8_t *src, size_t src_stride, float *dst, size_t width, const float *weights, int taps) {
    resample_v_fn()(src, src_stride, dst, width, weights, taps);
}

void ck_resample_h(const float *src, uint8_t *dst, size_t out_width, const int32_t *first, const float *weights,
                   int taps) {
    resample_h_fn()(src, dst, out_width, first, weights, taps);
}
