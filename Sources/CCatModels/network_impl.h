// The networks' convolutions (cat_models.def), written once in portable vector code and
// compiled once per instruction set (network_avx512.c, network_avx2.c, network_sse41.c,
// network_baseline.c), with what every SIMD build shares (CKernelDispatch's ck_simd.h).
// Vectors run along a plane's pixels, so a pixel's sum is made in the same order in every
// build, whatever its lane count.
#include "cat_models.h"

#include "ck_simd.h"

#define CK_KERNEL(ret, name, params, args) ret CK_FN(name) params;
#include "cat_models.def"
#undef CK_KERNEL

static inline __attribute__((always_inline)) ck_f32x8 CK_FN(cd_load)(const float *p) {
    ck_f32x8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void CK_FN(cd_store)(float *p, ck_f32x8 v) { memcpy(p, &v, sizeof v); }

static inline __attribute__((always_inline)) ck_f32x8 CK_FN(cd_activate)(ck_f32x8 v, int activation) {
    if (activation == 1) return __builtin_elementwise_max(v, v * 0.1f);
    if (activation == 2) {
        ck_f32x8 zero = 0.0f, six = 6.0f;
        return __builtin_elementwise_min(__builtin_elementwise_max(v, zero), six);
    }
    if (activation == 3) {
        ck_f32x8 zero = 0.0f;
        return __builtin_elementwise_max(v, zero);
    }
    return v;
}

void CK_FN(cd_pointwise)(const float *in, size_t in_stride, int inputs, size_t pixels, const float *weights,
                         const float *bias, int first, int end, int activation, float *out, size_t out_stride) {
    enum { L = CK_LANES };
    // Two vectors of pixels at a time (the planes' padding holds the last pair's spill),
    // four output channels each: eight sums in registers, two loads a step.
    for (size_t p = 0; p < pixels; p += 2 * L) {
        int o = first;
        for (; o + 4 <= end; o += 4) {
            ck_f32x8 s[4][2];
            for (int k = 0; k < 4; k++) s[k][0] = s[k][1] = bias[o + k];
            const float *w = weights + (size_t)o * (size_t)inputs;
            for (int i = 0; i < inputs; i++) {
                const float *x = in + (size_t)i * in_stride + p;
                ck_f32x8 x0 = CK_FN(cd_load)(x), x1 = CK_FN(cd_load)(x + L);
                for (int k = 0; k < 4; k++) {
                    float wk = w[(size_t)k * (size_t)inputs + (size_t)i];
                    s[k][0] = s[k][0] + x0 * wk;
                    s[k][1] = s[k][1] + x1 * wk;
                }
            }
            for (int k = 0; k < 4; k++) {
                float *y = out + (size_t)(o + k) * out_stride + p;
                CK_FN(cd_store)(y, CK_FN(cd_activate)(s[k][0], activation));
                CK_FN(cd_store)(y + L, CK_FN(cd_activate)(s[k][1], activation));
            }
        }
        for (; o < end; o++) {
            ck_f32x8 s0 = bias[o], s1 = bias[o];
            const float *w = weights + (size_t)o * (size_t)inputs;
            for (int i = 0; i < inputs; i++) {
                const float *x = in + (size_t)i * in_stride + p;
                s0 = s0 + CK_FN(cd_load)(x) * w[i];
                s1 = s1 + CK_FN(cd_load)(x + L) * w[i];
            }
            float *y = out + (size_t)o * out_stride + p;
            CK_FN(cd_store)(y, CK_FN(cd_activate)(s0, activation));
            CK_FN(cd_store)(y + L, CK_FN(cd_activate)(s1, activation));
        }
    }
}

// Lanes 0, 2, 4, ... of the 2 L floats at p.
static inline __attribute__((always_inline)) ck_f32x8 CK_FN(cd_even)(const float *p) {
    typedef float ck_f32x16w __attribute__((ext_vector_type(2 * CK_LANES)));
    ck_f32x16w w;
    memcpy(&w, p, sizeof w);
#if CK_LANES == 16
    return __builtin_shufflevector(w, w, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
    return __builtin_shufflevector(w, w, 0, 2, 4, 6, 8, 10, 12, 14);
#endif
}

void CK_FN(cd_depthwise)(const float *in, size_t in_stride, int width, int height, int size, int step, int pad,
                         int pad_after, const float *weights, const float *bias, int first, int end, int activation,
                         float *out, size_t out_stride, float *scratch) {
    enum { L = CK_LANES };
    // A plane smaller than the kernel, even padded, has no output (C's division would give one).
    if (width + pad + pad_after < size || height + pad + pad_after < size || size > CD_MAX_TAPS) return;
    int ow = (width + pad + pad_after - size) / step + 1, oh = (height + pad + pad_after - size) / step + 1;
    // The plane with its zeros around it and room on the right for the last vector's
    // spill (cd_depthwise_scratch): no tap needs a bounds check.
    size_t sw = cd_depthwise_scratch_width(width, size, step, pad, pad_after);
    int sh = height + pad + pad_after;
    for (int c = first; c < end; c++) {
        memset(scratch, 0, sizeof(float) * sw * (size_t)sh);
        for (int y = 0; y < height; y++)
            memcpy(scratch + (size_t)(y + pad) * sw + (size_t)pad, in + (size_t)c * in_stride + (size_t)y * (size_t)width,
                   sizeof(float) * (size_t)width);
        const float *w = weights + (size_t)c * (size_t)(size * size);
        float *plane = out + (size_t)c * out_stride;
        for (int y = 0; y < oh; y++) {
            // Rows in order: a row's spill past its end is overwritten by the next row.
            for (int x = 0; x < ow; x += L) {
                ck_f32x8 s = bias[c];
                for (int ky = 0; ky < size; ky++) {
                    const float *row = scratch + (size_t)(y * step + ky) * sw + (size_t)(x * step);
                    for (int kx = 0; kx < size; kx++) {
                        ck_f32x8 v = step == 1 ? CK_FN(cd_load)(row + kx) : CK_FN(cd_even)(row + kx);
                        s = s + v * w[ky * size + kx];
                    }
                }
                CK_FN(cd_store)(plane + (size_t)y * (size_t)ow + (size_t)x, CK_FN(cd_activate)(s, activation));
            }
        }
    }
}
