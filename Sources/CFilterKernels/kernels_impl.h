// The kernels, written once in portable vector code (clang vector extensions) and
// compiled once per instruction set: kernels_avx512.c, kernels_avx2.c, kernels_sse41.c
// and kernels_baseline.c include this file with CK_SUFFIX set (ck_simd.h: what a build
// shares). dispatch.c runs the one in use. Float code uses no FMA and a fixed operation order; the Swift scalar
// reference (FilterCore/Reference.swift, FilterCore/Filters/*.swift) does the same, so
// results are identical.
#include "cfilter_kernels.h"

#include <math.h>

#include "ck_simd.h"

// This build's kernels are declared from the one list, so a definition below that does
// not match its line there does not compile.
#define CK_KERNEL(ret, name, params, args) ret CK_FN(name) params;
#include "cfilter_kernels.def"
#undef CK_KERNEL

#define CK_MAX_FUSED 32
// Bytes ahead of the current pixel to prefetch: on a 12 MP image the colour kernels wait
// on memory, and a software prefetch this far ahead measured ~15-20% faster here.
#define CK_PREFETCH 4096

// ---------------------------------------------------------------- helpers

static inline __attribute__((always_inline)) ck_u32x8 CK_FN(load8)(const uint8_t *p) {
    ck_u32x8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void CK_FN(store8)(uint8_t *p, ck_u32x8 v) { memcpy(p, &v, sizeof v); }

static inline __attribute__((always_inline)) ck_f32x8 CK_FN(channel)(ck_u32x8 p, int shift) {
    return __builtin_convertvector((ck_i32x8)((p >> shift) & 0xFFu), ck_f32x8);
}

// Clamp to 0...255 (a value pack() may truncate: that is the rounding down).
static inline __attribute__((always_inline)) ck_f32x8 CK_FN(clamp)(ck_f32x8 x) {
    x = __builtin_elementwise_max(x, (ck_f32x8)0.0f);
    return __builtin_elementwise_min(x, (ck_f32x8)255.0f);
}

// Clamp to 0...255, then round down (the +0.5 was added before).
static inline __attribute__((always_inline)) ck_f32x8 CK_FN(quantize)(ck_f32x8 x) {
    x = CK_FN(clamp)(x);
#if CK_HAS_FLOOR
    return __builtin_elementwise_floor(x);
#else
    return __builtin_convertvector(__builtin_convertvector(x, ck_i32x8), ck_f32x8);  // x >= 0: trunc = floor
#endif
}

static inline __attribute__((always_inline)) float ck_quantize1(float x) {
    x = x < 0.0f ? 0.0f : x;
    x = x > 255.0f ? 255.0f : x;
    return floorf(x);
}

static inline __attribute__((always_inline)) ck_u32x8 CK_FN(pack)(ck_f32x8 r, ck_f32x8 g, ck_f32x8 b, ck_u32x8 alpha_from) {
    ck_u32x8 ri = (ck_u32x8)__builtin_convertvector(r, ck_i32x8);
    ck_u32x8 gi = (ck_u32x8)__builtin_convertvector(g, ck_i32x8);
    ck_u32x8 bi = (ck_u32x8)__builtin_convertvector(b, ck_i32x8);
    return ri | (gi << 8) | (bi << 16) | (alpha_from & 0xFF000000u);
}

// ---------------------------------------------------------------- colour chain

// How a stage's matrix is shaped, so that zero coefficients cost nothing. Skipping a
// product with a zero coefficient leaves the result bit for bit the same (up to the
// sign of a zero, which the clamp and the byte conversion erase).
enum { CK_FULL = 0, CK_DIAGONAL = 1, CK_GREY = 2 };

static int ck_stage_shape(const float *m) {
    if (m[1] == 0 && m[2] == 0 && m[4] == 0 && m[6] == 0 && m[8] == 0 && m[9] == 0) return CK_DIAGONAL;
    if (m[0] == m[4] && m[4] == m[8] && m[1] == m[5] && m[5] == m[9] && m[2] == m[6] && m[6] == m[10] &&
        m[3] == m[7] && m[7] == m[11])
        return CK_GREY;
    return CK_FULL;
}

// One stage on a vector of pixels; `last`: clamp only (pack() truncates).
#define CK_STAGE(shape, m, r, g, b, last)                                               \
    do {                                                                                \
        ck_f32x8 nr, ng, nb;                                                            \
        if ((shape) == CK_DIAGONAL) {                                                   \
            nr = (m)[0] * r + (m)[3];                                                   \
            ng = (m)[5] * g + (m)[7];                                                   \
            nb = (m)[10] * b + (m)[11];                                                 \
        } else if ((shape) == CK_GREY) {                                                \
            nr = ng = nb = (m)[0] * r + (m)[1] * g + (m)[2] * b + (m)[3];              \
        } else {                                                                        \
            nr = (m)[0] * r + (m)[1] * g + (m)[2] * b + (m)[3];                        \
            ng = (m)[4] * r + (m)[5] * g + (m)[6] * b + (m)[7];                        \
            nb = (m)[8] * r + (m)[9] * g + (m)[10] * b + (m)[11];                      \
        }                                                                               \
        if (last) {                                                                     \
            r = CK_FN(clamp)(nr);                                                       \
            g = (shape) == CK_GREY ? r : CK_FN(clamp)(ng);                              \
            b = (shape) == CK_GREY ? r : CK_FN(clamp)(nb);                              \
        } else {                                                                        \
            r = CK_FN(quantize)(nr);                                                    \
            g = (shape) == CK_GREY ? r : CK_FN(quantize)(ng);                           \
            b = (shape) == CK_GREY ? r : CK_FN(quantize)(nb);                           \
        }                                                                               \
    } while (0)

// A single stage of a fixed shape: the loop the compiler can keep in registers.
#define CK_SINGLE_STAGE_LOOP(shape)                                                     \
    for (; x + CK_LANES <= width; x += CK_LANES) {                                      \
        __builtin_prefetch(s + 4 * x + CK_PREFETCH);                                    \
        ck_u32x8 p = CK_FN(load8)(s + 4 * x);                                           \
        ck_f32x8 r = CK_FN(channel)(p, 0), g = CK_FN(channel)(p, 8), b = CK_FN(channel)(p, 16); \
        CK_STAGE(shape, c, r, g, b, 1);                                                 \
        CK_FN(store8)(d + 4 * x, CK_FN(pack)(r, g, b, p));                              \
    }

static void CK_FN(color_group)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                               size_t width, size_t rows, const float *stages, int count) {
    float c[CK_MAX_FUSED * CK_STAGE_FLOATS];  // a local copy: stores to dst cannot alias it
    int shape[CK_MAX_FUSED];
    memcpy(c, stages, sizeof(float) * CK_STAGE_FLOATS * (size_t)count);
    for (int i = 0; i < count; i++) shape[i] = ck_stage_shape(c + i * CK_STAGE_FLOATS);
    for (size_t y = 0; y < rows; y++) {
        const uint8_t *s = src + y * src_stride;
        uint8_t *d = dst + y * dst_stride;
        size_t x = 0;
        if (count == 1 && shape[0] == CK_DIAGONAL) {
            CK_SINGLE_STAGE_LOOP(CK_DIAGONAL)
        } else if (count == 1 && shape[0] == CK_GREY) {
            CK_SINGLE_STAGE_LOOP(CK_GREY)
        } else if (count == 1) {
            CK_SINGLE_STAGE_LOOP(CK_FULL)
        } else {
            for (; x + CK_LANES <= width; x += CK_LANES) {
                __builtin_prefetch(s + 4 * x + CK_PREFETCH);
                ck_u32x8 p = CK_FN(load8)(s + 4 * x);
                ck_f32x8 r = CK_FN(channel)(p, 0), g = CK_FN(channel)(p, 8), b = CK_FN(channel)(p, 16);
                for (int i = 0; i < count; i++) {
                    const float *m = c + i * CK_STAGE_FLOATS;
                    CK_STAGE(shape[i], m, r, g, b, i + 1 == count);
                }
                CK_FN(store8)(d + 4 * x, CK_FN(pack)(r, g, b, p));
            }
        }
        for (; x < width; x++) {  // the last width % CK_LANES pixels, one at a time
            float r = s[4 * x], g = s[4 * x + 1], b = s[4 * x + 2];
            for (int i = 0; i < count; i++) {
                const float *m = c + i * CK_STAGE_FLOATS;
                float nr = m[0] * r + m[1] * g + m[2] * b + m[3];
                float ng = m[4] * r + m[5] * g + m[6] * b + m[7];
                float nb = m[8] * r + m[9] * g + m[10] * b + m[11];
                r = ck_quantize1(nr);
                g = ck_quantize1(ng);
                b = ck_quantize1(nb);
            }
            d[4 * x] = (uint8_t)r;
            d[4 * x + 1] = (uint8_t)g;
            d[4 * x + 2] = (uint8_t)b;
            d[4 * x + 3] = s[4 * x + 3];
        }
    }
}

void CK_FN(ck_color_chain)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                           size_t width, size_t rows, const float *stages, int count) {
    for (int done = 0; done < count; done += CK_MAX_FUSED) {
        int n = count - done < CK_MAX_FUSED ? count - done : CK_MAX_FUSED;
        CK_FN(color_group)(src, src_stride, dst, dst_stride, width, rows, stages + done * CK_STAGE_FLOATS, n);
        src = dst;  // longer chains continue in place
        src_stride = dst_stride;
    }
}

// ---------------------------------------------------------------- Gaussian blur

#define CK_Q6_MAX (255 << 6)

// Lanes (int16) of one scratch row: 4 per pixel, rounded up, plus room for one
// vector past the end.
static inline __attribute__((always_inline)) size_t ck_blur_row_lanes(size_t width, int radius) {
    return ((width + 2 * (size_t)radius) * 4 + 15) / 16 * 16 + 16;
}

typedef int16_t ck_i16x8 __attribute__((ext_vector_type(8)));

// (a * w + 2^14) >> 15 per lane: x86's pmulhrsw.
static inline __attribute__((always_inline)) ck_i16x16 CK_FN(mulhrs)(ck_i16x16 a, ck_i16x16 w) {
#if defined(__x86_64__) && CK_LEVEL >= 3
    return (ck_i16x16)_mm512_mulhrs_epi16((__m512i)a, (__m512i)w);
#elif defined(__x86_64__) && CK_LEVEL >= 2
    return (ck_i16x16)_mm256_mulhrs_epi16((__m256i)a, (__m256i)w);
#elif defined(__x86_64__) && CK_LEVEL >= 1
    ck_i16x8 alo = __builtin_shufflevector(a, a, 0, 1, 2, 3, 4, 5, 6, 7);
    ck_i16x8 ahi = __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
    ck_i16x8 wlo = __builtin_shufflevector(w, w, 0, 1, 2, 3, 4, 5, 6, 7);
    ck_i16x8 whi = __builtin_shufflevector(w, w, 8, 9, 10, 11, 12, 13, 14, 15);
    ck_i16x8 lo = (ck_i16x8)_mm_mulhrs_epi16((__m128i)alo, (__m128i)wlo);
    ck_i16x8 hi = (ck_i16x8)_mm_mulhrs_epi16((__m128i)ahi, (__m128i)whi);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#else
    ck_i32x16 p = __builtin_convertvector(a, ck_i32x16) * __builtin_convertvector(w, ck_i32x16);
    return __builtin_convertvector((p + 0x4000) >> 15, ck_i16x16);
#endif
}

static inline __attribute__((always_inline)) ck_i16x16 CK_FN(load16)(const int16_t *p) {
    ck_i16x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

// One input row -> Q6 horizontal blur of it, `width*4` lanes into `out`.
static void CK_FN(blur_horizontal)(const uint8_t *row, size_t width, const int16_t *weights, int radius,
                                   int16_t *pad, int16_t *out) {
    const size_t r4 = 4 * (size_t)radius;
    for (size_t i = 0; i < r4; i++) {  // left and right borders repeat the edge pixel
        pad[i] = (int16_t)(row[i % 4] << 6);
        pad[r4 + 4 * width + i] = (int16_t)(row[4 * (width - 1) + i % 4] << 6);
    }
    size_t lanes = 4 * width, i = 0;
    for (; i + CK_HLANES <= lanes; i += CK_HLANES) {
        ck_u8x16 b;
        memcpy(&b, row + i, sizeof b);
        ck_i16x16 v = __builtin_convertvector(b, ck_i16x16) << 6;
        memcpy(pad + r4 + i, &v, sizeof v);
    }
    for (; i < lanes; i++) pad[r4 + i] = (int16_t)(row[i] << 6);

    ck_i16x16 w[radius + 1];
    for (int k = 0; k <= radius; k++) w[k] = (ck_i16x16)weights[k];
    const ck_i16x16 top = (ck_i16x16)(int16_t)CK_Q6_MAX;
    for (size_t l = 0; l < lanes; l += CK_HLANES) {
        const int16_t *c = pad + r4 + l;
        ck_i16x16 acc = CK_FN(mulhrs)(CK_FN(load16)(c), w[0]);
        for (int k = 1; k <= radius; k++) {
            ck_i16x16 pair = CK_FN(load16)(c - 4 * k) + CK_FN(load16)(c + 4 * k);
            acc += CK_FN(mulhrs)(pair, w[k]);
        }
        acc = __builtin_elementwise_min(acc, top);
        memcpy(out + l, &acc, sizeof acc);
    }
}

size_t CK_FN(ck_blur_scratch_bytes)(size_t width, int radius) {
    size_t lanes = ck_blur_row_lanes(width, radius);
    return sizeof(int16_t) * lanes * (size_t)(2 * radius + 2);  // padded row + ring of 2r+1 rows
}

void CK_FN(ck_blur_rows)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                         size_t width, size_t height, size_t y0, size_t y1, size_t src_row0, size_t dst_row0,
                         const int16_t *weights, int radius, void *scratch) {
    const size_t lanes_per_row = ck_blur_row_lanes(width, radius);
    const int taps = 2 * radius + 1;
    int16_t *pad = scratch;
    int16_t *ring = pad + lanes_per_row;
    memset(pad, 0, sizeof(int16_t) * lanes_per_row);

    // Virtual input row v (may be outside the image: clamped) lives in ring slot (v - first) % taps.
    const long first = (long)y0 - radius;
    #define CK_SLOT(v) (ring + (size_t)(((v) - first) % taps) * lanes_per_row)
    #define CK_SRC_ROW(v) (src + ((size_t)((v) < 0 ? 0 : (v) >= (long)height ? (long)height - 1 : (v)) - src_row0) * src_stride)
    for (long v = first; v < (long)y0 + radius; v++)
        CK_FN(blur_horizontal)(CK_SRC_ROW(v), width, weights, radius, pad, CK_SLOT(v));

    ck_i16x16 w[radius + 1];
    for (int k = 0; k <= radius; k++) w[k] = (ck_i16x16)weights[k];
    const int16_t *above[radius + 1], *below[radius + 1];
    const size_t lanes = 4 * width;
    for (size_t y = y0; y < y1; y++) {
        long newest = (long)y + radius;
        CK_FN(blur_horizontal)(CK_SRC_ROW(newest), width, weights, radius, pad, CK_SLOT(newest));
        for (int k = 0; k <= radius; k++) {
            above[k] = CK_SLOT((long)y - k);
            below[k] = CK_SLOT((long)y + k);
        }
        uint8_t *d = dst + (y - dst_row0) * dst_stride;
        for (size_t l = 0; l < lanes; l += CK_HLANES) {
            ck_i16x16 acc = CK_FN(mulhrs)(CK_FN(load16)(above[0] + l), w[0]);
            for (int k = 1; k <= radius; k++) {
                ck_i16x16 pair = CK_FN(load16)(above[k] + l) + CK_FN(load16)(below[k] + l);
                acc += CK_FN(mulhrs)(pair, w[k]);
            }
            acc = (acc + 32) >> 6;
            acc = __builtin_elementwise_max(acc, (ck_i16x16)0);
            acc = __builtin_elementwise_min(acc, (ck_i16x16)255);
            ck_u8x16 bytes = __builtin_convertvector(acc, ck_u8x16);
            if (l + CK_HLANES <= lanes) memcpy(d + l, &bytes, sizeof bytes);
            else memcpy(d + l, &bytes, lanes - l);
        }
    }
    #undef CK_SLOT
    #undef CK_SRC_ROW
}

// ---------------------------------------------------------------- unsharp mask

void CK_FN(ck_unsharp)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                       size_t width, size_t rows, float amount) {
    for (size_t y = 0; y < rows; y++) {
        const uint8_t *s = src + y * src_stride;
        uint8_t *d = dst + y * dst_stride;
        size_t x = 0;
        for (; x + CK_LANES <= width; x += CK_LANES) {
            __builtin_prefetch(s + 4 * x + CK_PREFETCH);
            __builtin_prefetch(d + 4 * x + CK_PREFETCH);
            ck_u32x8 p = CK_FN(load8)(s + 4 * x), q = CK_FN(load8)(d + 4 * x);
            ck_f32x8 out[3];
            for (int c = 0; c < 3; c++) {
                ck_f32x8 sv = CK_FN(channel)(p, 8 * c), bv = CK_FN(channel)(q, 8 * c);
                out[c] = CK_FN(clamp)((sv - bv) * amount + sv + 0.5f);
            }
            CK_FN(store8)(d + 4 * x, CK_FN(pack)(out[0], out[1], out[2], p));
        }
        for (; x < width; x++) {
            for (int c = 0; c < 3; c++) {
                float sv = s[4 * x + c], bv = d[4 * x + c];
                d[4 * x + c] = (uint8_t)ck_quantize1((sv - bv) * amount + sv + 0.5f);
            }
            d[4 * x + 3] = s[4 * x + 3];
        }
    }
}

// ---------------------------------------------------------------- vignette

void CK_FN(ck_vignette)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                        size_t width, size_t rows, const float *dx2, const float *dy2, float amount) {
    for (size_t y = 0; y < rows; y++) {
        const uint8_t *s = src + y * src_stride;
        uint8_t *d = dst + y * dst_stride;
        const float dy = dy2[y];
        size_t x = 0;
        for (; x + CK_LANES <= width; x += CK_LANES) {
            __builtin_prefetch(s + 4 * x + CK_PREFETCH);
            ck_f32x8 dx;
            memcpy(&dx, dx2 + x, sizeof dx);
            ck_f32x8 t = ((dx + dy) * 0.5f - 0.2f) * 1.25f;
            t = __builtin_elementwise_min(__builtin_elementwise_max(t, (ck_f32x8)0.0f), (ck_f32x8)1.0f);
            ck_f32x8 f = 1.0f - amount * (t * t * (3.0f - 2.0f * t));
            ck_u32x8 p = CK_FN(load8)(s + 4 * x);
            ck_f32x8 r = CK_FN(clamp)(CK_FN(channel)(p, 0) * f + 0.5f);
            ck_f32x8 g = CK_FN(clamp)(CK_FN(channel)(p, 8) * f + 0.5f);
            ck_f32x8 b = CK_FN(clamp)(CK_FN(channel)(p, 16) * f + 0.5f);
            CK_FN(store8)(d + 4 * x, CK_FN(pack)(r, g, b, p));
        }
        for (; x < width; x++) {
            float t = ((dx2[x] + dy) * 0.5f - 0.2f) * 1.25f;
            t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
            float f = 1.0f - amount * (t * t * (3.0f - 2.0f * t));
            for (int c = 0; c < 3; c++) d[4 * x + c] = (uint8_t)ck_quantize1((float)s[4 * x + c] * f + 0.5f);
            d[4 * x + 3] = s[4 * x + 3];
        }
    }
}

// ---------------------------------------------------------------- resampling (Lanczos)

typedef float ck_f32x4 __attribute__((ext_vector_type(4)));
typedef uint8_t ck_u8x8 __attribute__((ext_vector_type(CK_LANES)));

// Vertical pass: the weighted sum of `taps` RGBA8 rows (row k at src + k * src_stride),
// every channel of every pixel, into one float row of `width` pixels.
void CK_FN(ck_resample_v)(const uint8_t *src, size_t src_stride, float *dst, size_t width, const float *weights,
                          int taps) {
    size_t n = 4 * width, i = 0;
    for (; i + CK_LANES <= n; i += CK_LANES) {
        ck_f32x8 acc = (ck_f32x8)0.0f;
        for (int k = 0; k < taps; k++) {
            ck_u8x8 b;
            memcpy(&b, src + (size_t)k * src_stride + i, sizeof b);
            acc = acc + __builtin_convertvector(b, ck_f32x8) * weights[k];
        }
        memcpy(dst + i, &acc, sizeof acc);
    }
    for (; i < n; i++) {
        float acc = 0.0f;
        for (int k = 0; k < taps; k++) acc = acc + (float)src[(size_t)k * src_stride + i] * weights[k];
        dst[i] = acc;
    }
}

// Horizontal pass: output pixel x of one row is the weighted sum of `taps` pixels of the
// float row `src` from first[x], the four channels at once, + 0.5, clamped to 0...255,
// truncated.
void CK_FN(ck_resample_h)(const float *src, uint8_t *dst, size_t out_width, const int32_t *first,
                          const float *weights, int taps) {
    for (size_t x = 0; x < out_width; x++) {
        const float *p = src + 4 * (size_t)first[x];
        const float *w = weights + x * (size_t)taps;
        ck_f32x4 acc = (ck_f32x4)0.0f;
        for (int k = 0; k < taps; k++) {
            ck_f32x4 v;
            memcpy(&v, p + 4 * k, sizeof v);
            acc = acc + v * w[k];
        }
        acc = __builtin_elementwise_min(__builtin_elementwise_max(acc + 0.5f, (ck_f32x4)0.0f), (ck_f32x4)255.0f);
        dst[4 * x] = (uint8_t)acc.x;
        dst[4 * x + 1] = (uint8_t)acc.y;
        dst[4 * x + 2] = (uint8_t)acc.z;
        dst[4 * x + 3] = (uint8_t)acc.w;
    }
}

// ---------------------------------------------------------------- integer convolution

// One pixel's channel c from its `size` x `size` neighbourhood, rows `rp`, columns clamped.
static inline int32_t ck_convolve_sum1(const uint8_t *const *rp, size_t width, long x, const int32_t *kernel,
                                       int size, int c) {
    int r = size / 2;
    int32_t sum = 0;
    for (int ky = 0; ky < size; ky++) {
        for (int kx = 0; kx < size; kx++) {
            long sx = x + kx - r;
            sx = sx < 0 ? 0 : sx >= (long)width ? (long)width - 1 : sx;
            sum += kernel[ky * size + kx] * rp[ky][4 * sx + c];
        }
    }
    return sum;
}

void CK_FN(ck_convolve_rows)(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride, size_t width,
                             size_t height, size_t y0, size_t y1, size_t src_row0, size_t dst_row0,
                             const int32_t *kernel, int size, float inv_scale, float offset) {
    int r = size / 2;
    const uint8_t *rp[CK_CONVOLVE_MAX];
    for (size_t y = y0; y < y1; y++) {
        for (int k = 0; k < size; k++) {
            long sy = (long)y + k - r;
            sy = sy < 0 ? 0 : sy >= (long)height ? (long)height - 1 : sy;
            rp[k] = src + ((size_t)sy - src_row0) * src_stride;
        }
        const uint8_t *centre = rp[r];
        uint8_t *d = dst + (y - dst_row0) * dst_stride;
        size_t x = 0;
        // The columns whose neighbourhood is inside the row, CK_LANES pixels at a time.
        if (width > (size_t)(2 * r)) {
            for (x = (size_t)r; x + CK_LANES <= width - (size_t)r; x += CK_LANES) {
                ck_i32x8 acc[3] = {(ck_i32x8)0, (ck_i32x8)0, (ck_i32x8)0};
                for (int ky = 0; ky < size; ky++) {
                    for (int kx = 0; kx < size; kx++) {
                        int32_t k = kernel[ky * size + kx];
                        if (k == 0) continue;  // exact either way; skipping costs nothing
                        ck_u32x8 p = CK_FN(load8)(rp[ky] + 4 * (x + (size_t)kx - (size_t)r));
                        acc[0] += (ck_i32x8)(p & 0xFFu) * k;
                        acc[1] += (ck_i32x8)((p >> 8) & 0xFFu) * k;
                        acc[2] += (ck_i32x8)((p >> 16) & 0xFFu) * k;
                    }
                }
                ck_f32x8 out[3];
                for (int c = 0; c < 3; c++)
                    out[c] = CK_FN(clamp)(__builtin_convertvector(acc[c], ck_f32x8) * inv_scale + offset + 0.5f);
                CK_FN(store8)(d + 4 * x, CK_FN(pack)(out[0], out[1], out[2], CK_FN(load8)(centre + 4 * x)));
            }
        }
        // The rest (the edges, and what the vectors left), one pixel at a time.
        for (size_t xx = 0; xx < width; xx++) {
            if (xx >= (size_t)r && xx < x) continue;
            for (int c = 0; c < 3; c++) {
                float v = (float)ck_convolve_sum1(rp, width, (long)xx, kernel, size, c) * inv_scale + offset + 0.5f;
                d[4 * xx + c] = (uint8_t)ck_quantize1(v);
            }
            d[4 * xx + 3] = centre[4 * xx + 3];
        }
    }
}
