// The cascade scan, written once in portable vector code and compiled once per instruction
// set (scan_avx512.c, scan_avx2.c, scan_sse41.c, scan_baseline.c), with what every SIMD
// build shares (CKernelDispatch's ck_simd.h: lanes, suffix, vector types).
#include "cat_detectors.h"

#include "ck_simd.h"

#define CK_KERNEL(ret, name, params, args) ret CK_FN(name) params;
#include "cat_kernels.def"
#undef CK_KERNEL

// CK_LANES neighbouring windows at once: a vector lane a window, `step` apart. The first
// stage (which rejects most windows) and the next ones while enough lanes are still alive
// run on vectors; a window left alone runs the rest of the cascade by itself.
typedef double ck_f64xl __attribute__((ext_vector_type(CK_LANES)));

// Vector stages go on while at least this many windows of a vector are alive.
#define CC_CASCADE_VECTOR_MIN 2

// The integral's values at p, p + step, ... (CK_LANES of them).
static inline __attribute__((always_inline)) ck_u32x8 CK_FN(strided)(const int32_t *p, int step) {
    ck_u32x8 v;
    if (step == 1) {
        memcpy(&v, p, sizeof v);
    } else if (step == 2) {
        ck_i32x16 w;
        memcpy(&w, p, sizeof w);
#if CK_LANES == 16
        v = (ck_u32x8)__builtin_shufflevector(w, w, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
        v = (ck_u32x8)__builtin_shufflevector(w, w, 0, 2, 4, 6, 8, 10, 12, 14);
#endif
    } else {
        for (int i = 0; i < CK_LANES; i++) v[i] = (uint32_t)p[i * step];
    }
    return v;
}

// A rectangle's sum from its 4 corners (int32, wrapping: exact over a window).
#define CK_RECT_SUM(a, b, c, d) ((ck_i32x8)((a) - (b) - (c) + (d)))
#define CK_RECT_SUM1(a, b, c, d) ((int32_t)((uint32_t)(a) - (uint32_t)(b) - (uint32_t)(c) + (uint32_t)(d)))

// Stump s's leaves for the lanes' windows.
static inline __attribute__((always_inline)) ck_f32x8 CK_FN(cascade_leaves)(
    const cc_cascade *c, const int32_t *p, int s, int step, ck_f32x8 norm, int kind) {
    ck_i32x8 left;
    if (kind == CC_CASCADE_LBP) {
        const int32_t *o = c->offsets + 16 * c->stump_features[s];
        ck_u32x8 v[16];
        for (int i = 0; i < 16; i++) v[i] = CK_FN(strided)(p + o[i], step);
        ck_i32x8 centre = CK_RECT_SUM(v[5], v[6], v[9], v[10]);
#define CK_LBP_BIT(a, b, cc, d, bit) ((CK_RECT_SUM(v[a], v[b], v[cc], v[d]) >= centre) & (bit))
        ck_i32x8 code = CK_LBP_BIT(0, 1, 4, 5, 128) | CK_LBP_BIT(1, 2, 5, 6, 64) | CK_LBP_BIT(2, 3, 6, 7, 32) |
                        CK_LBP_BIT(6, 7, 10, 11, 16) | CK_LBP_BIT(10, 11, 14, 15, 8) | CK_LBP_BIT(9, 10, 13, 14, 4) |
                        CK_LBP_BIT(8, 9, 12, 13, 2) | CK_LBP_BIT(4, 5, 8, 9, 1);
#undef CK_LBP_BIT
        const uint32_t *subset = c->subsets + 8 * s;
        ck_u32x8 word;
#if CK_LEVEL >= 3
        word = (ck_u32x8)_mm512_i32gather_epi32((__m512i)(code >> 5), subset, 4);
#elif CK_LEVEL == 2
        word = (ck_u32x8)_mm256_i32gather_epi32((const int *)subset, (__m256i)(code >> 5), 4);
#else
        for (int i = 0; i < CK_LANES; i++) word[i] = subset[code[i] >> 5];
#endif
        left = ((word >> (ck_u32x8)(code & 31)) & 1u) != 0;
    } else {
        int f = c->stump_features[s];
        const int32_t *o = c->offsets + 12 * f;
        const float *w = c->weights + 3 * f;
#define CK_RECT(k)                                                                                         \
    __builtin_convertvector(CK_RECT_SUM(CK_FN(strided)(p + o[4 * (k)], step), CK_FN(strided)(p + o[4 * (k) + 1], step), \
                                        CK_FN(strided)(p + o[4 * (k) + 2], step),                          \
                                        CK_FN(strided)(p + o[4 * (k) + 3], step)),                         \
                            ck_f32x8)
        ck_f32x8 value = w[0] * CK_RECT(0) + w[1] * CK_RECT(1);
        if (w[2] != 0) value += w[2] * CK_RECT(2);
#undef CK_RECT
        value *= norm;
        left = value < c->stump_thresholds[s];
    }
    ck_u32x8 l = (ck_u32x8)(ck_f32x8)c->stump_left[s], r = (ck_u32x8)(ck_f32x8)c->stump_right[s];
    return (ck_f32x8)(((ck_u32x8)left & l) | (~(ck_u32x8)left & r));
}

// Each lane: stage k rejects its window (-1) or not (0).
static inline __attribute__((always_inline)) ck_i32x8 CK_FN(cascade_stage)(
    const cc_cascade *c, const int32_t *p, int k, int step, ck_f32x8 norm, int kind) {
    ck_f64xl sum = (ck_f64xl)0.0;
    for (int s = k ? c->stage_ends[k - 1] : 0; s < c->stage_ends[k]; s++)
        sum += __builtin_convertvector(CK_FN(cascade_leaves)(c, p, s, step, norm, kind), ck_f64xl);
    return __builtin_convertvector(sum < (double)c->stage_thresholds[k], ck_i32x8);
}

// One window, stages `from` on: 1 when every one accepts it.
static int CK_FN(cascade_rest)(const cc_cascade *c, const int32_t *p, float norm, int from) {
    for (int k = from; k < c->stage_count; k++) {
        double sum = 0;
        for (int s = k ? c->stage_ends[k - 1] : 0; s < c->stage_ends[k]; s++) {
            int left;
            if (c->kind == CC_CASCADE_LBP) {
                const int32_t *o = c->offsets + 16 * c->stump_features[s];
                int32_t v[16];
                for (int i = 0; i < 16; i++) v[i] = p[o[i]];
                int32_t centre = CK_RECT_SUM1(v[5], v[6], v[9], v[10]);
#define CK_LBP_BIT1(a, b, cc, d, bit) (CK_RECT_SUM1(v[a], v[b], v[cc], v[d]) >= centre ? (bit) : 0)
                int code = CK_LBP_BIT1(0, 1, 4, 5, 128) | CK_LBP_BIT1(1, 2, 5, 6, 64) | CK_LBP_BIT1(2, 3, 6, 7, 32) |
                           CK_LBP_BIT1(6, 7, 10, 11, 16) | CK_LBP_BIT1(10, 11, 14, 15, 8) |
                           CK_LBP_BIT1(9, 10, 13, 14, 4) | CK_LBP_BIT1(8, 9, 12, 13, 2) | CK_LBP_BIT1(4, 5, 8, 9, 1);
#undef CK_LBP_BIT1
                left = (c->subsets[8 * s + (code >> 5)] >> (code & 31)) & 1u;
            } else {
                int f = c->stump_features[s];
                const int32_t *o = c->offsets + 12 * f;
                const float *w = c->weights + 3 * f;
#define CK_RECT1(k) ((float)CK_RECT_SUM1(p[o[4 * (k)]], p[o[4 * (k) + 1]], p[o[4 * (k) + 2]], p[o[4 * (k) + 3]]))
                float value = w[0] * CK_RECT1(0) + w[1] * CK_RECT1(1);
                if (w[2] != 0) value += w[2] * CK_RECT1(2);
#undef CK_RECT1
                value *= norm;
                left = value < c->stump_thresholds[s];
            }
            sum += (double)(left ? c->stump_left[s] : c->stump_right[s]);
        }
        if (sum < (double)c->stage_thresholds[k]) return 0;
    }
    return 1;
}

static inline __attribute__((always_inline)) size_t CK_FN(cascade_rows)(
    const cc_cascade *c, const int32_t *sums, const int32_t *squares, size_t stride, int columns, int rows, int step,
    int32_t *found, int kind) {
    size_t n = 0;
    for (int y = 0; y < rows; y += step) {
        int x = 0;
        while (x < columns) {
            const int32_t *p = sums + (size_t)y * stride + (size_t)x;
            int lanes = (columns - x + step - 1) / step;
            if (lanes > CK_LANES) lanes = CK_LANES;
            ck_f32x8 norm = (ck_f32x8)1.0f;
            unsigned usable = ~0u;  // Haar: the windows not too flat to judge
            if (kind == CC_CASCADE_HAAR) {
                const int32_t *q = squares + (size_t)y * stride + (size_t)x;
                const int32_t *m = c->norm;
                ck_i32x8 t = CK_RECT_SUM(CK_FN(strided)(p + m[0], step), CK_FN(strided)(p + m[1], step),
                                         CK_FN(strided)(p + m[2], step), CK_FN(strided)(p + m[3], step));
                ck_u32x8 sq = (ck_u32x8)CK_RECT_SUM(CK_FN(strided)(q + m[0], step), CK_FN(strided)(q + m[1], step),
                                                    CK_FN(strided)(q + m[2], step), CK_FN(strided)(q + m[3], step));
                ck_f64xl total = __builtin_convertvector(t, ck_f64xl);
                ck_f64xl nf = c->area * __builtin_convertvector(sq, ck_f64xl) - total * total;
                norm = __builtin_convertvector((ck_f64xl)1.0 / __builtin_elementwise_sqrt(nf), ck_f32x8);
                ck_i32x8 ok = __builtin_convertvector(
                    (nf > 0.0) & (c->area * __builtin_convertvector(norm, ck_f64xl) < 0.1), ck_i32x8);
                usable = CK_FN(lane_bits)(ok);
            }
            unsigned rejected = CK_FN(lane_bits)(CK_FN(cascade_stage)(c, p, 0, step, norm, kind));
            // The windows OpenCV visits: after one the first stage rejects, it skips one.
            unsigned alive = 0;
            int i = 0;
            while (i < lanes) {
                if (usable >> i & rejected >> i & 1u) {
                    i += 2;
                } else {
                    if (usable >> i & 1u) alive |= 1u << i;
                    i += 1;
                }
            }
            int k = 1;
            for (; alive && k < c->stage_count && __builtin_popcount(alive) >= CC_CASCADE_VECTOR_MIN; k++) {
                alive &= ~CK_FN(lane_bits)(CK_FN(cascade_stage)(c, p, k, step, norm, kind));
            }
            for (int j = 0; j < lanes; j++) {
                if (!(alive >> j & 1u)) continue;
                if (k < c->stage_count && !CK_FN(cascade_rest)(c, p + j * step, norm[j], k)) continue;
                found[2 * n] = x + j * step;
                found[2 * n + 1] = y;
                n++;
            }
            x += i * step;
        }
    }
    return n;
}

size_t CK_FN(cc_cascade_scan)(const cc_cascade *cascade, const int32_t *sums, const int32_t *squares, size_t stride,
                             int columns, int rows, int step, int32_t *found) {
    if (columns <= 0 || rows <= 0 || step <= 0) return 0;
#define CK_SCAN(kind, s) CK_FN(cascade_rows)(cascade, sums, squares, stride, columns, rows, s, found, kind)
    if (cascade->kind == CC_CASCADE_LBP) {
        if (step == 1) return CK_SCAN(CC_CASCADE_LBP, 1);
        if (step == 2) return CK_SCAN(CC_CASCADE_LBP, 2);
        return CK_SCAN(CC_CASCADE_LBP, step);
    }
    if (step == 1) return CK_SCAN(CC_CASCADE_HAAR, 1);
    if (step == 2) return CK_SCAN(CC_CASCADE_HAAR, 2);
    return CK_SCAN(CC_CASCADE_HAAR, step);
#undef CK_SCAN
}
