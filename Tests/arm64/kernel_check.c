// Checks the SIMD kernels' portable vector code on a CPU other than this one: every kernel
// of the lists (CFilterKernels' cfilter_kernels.def, CCatDetectors' cat_kernels.def,
// CCatModels' cat_models.def) against
// a plain C reference written from its contract there (a copy of the Swift scalar reference:
// FilterCore/Reference.swift and the spatial stages' in FilterCore/Filters/), on random
// buffers of awkward sizes, under every build the CPU runs. The table of checks is made from
// the lists, so a kernel without its check_<name> here does not build.
// scripts/check-arm64 builds it for arm64 (where the baseline build is NEON) and runs it
// under qemu; built natively it checks the x86 builds.
#pragma STDC FP_CONTRACT OFF
#include "cat_detectors.h"
#include "cat_models.h"
#include "cfilter_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long state = 88172645463325252ULL;
static unsigned rnd(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return (unsigned)state; }
static float q(float x) { x = x < 0 ? 0 : x; x = x > 255 ? 255 : x; return floorf(x); }

static void ref_color(const uint8_t *s, uint8_t *d, size_t stride, size_t w, size_t h, const float *c, int n) {
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            const uint8_t *p = s + y * stride + 4 * x;
            uint8_t *o = d + y * stride + 4 * x;
            float r = p[0], g = p[1], b = p[2];
            for (int i = 0; i < n; i++) {
                const float *m = c + 12 * i;
                float nr = m[0] * r + m[1] * g + m[2] * b + m[3];
                float ng = m[4] * r + m[5] * g + m[6] * b + m[7];
                float nb = m[8] * r + m[9] * g + m[10] * b + m[11];
                r = q(nr); g = q(ng); b = q(nb);
            }
            o[0] = (uint8_t)r; o[1] = (uint8_t)g; o[2] = (uint8_t)b; o[3] = p[3];
        }
}

static int16_t mulhrs(int16_t a, int16_t w) { return (int16_t)(((int32_t)a * w + 0x4000) >> 15); }

static void ref_blur(const uint8_t *s, uint8_t *d, size_t stride, int w, int h, const int16_t *wt, int r) {
    int16_t *hz = malloc(sizeof(int16_t) * (size_t)w * h * 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
#define S(xx) ((int16_t)(s[y * stride + 4 * ((xx) < 0 ? 0 : (xx) >= w ? w - 1 : (xx)) + c] << 6))
                int16_t acc = mulhrs(S(x), wt[0]);
                for (int k = 1; k <= r; k++) acc = (int16_t)(acc + mulhrs((int16_t)(S(x - k) + S(x + k)), wt[k]));
                hz[((size_t)y * w + x) * 4 + c] = acc > (255 << 6) ? (255 << 6) : acc;
#undef S
            }
    for (int y = 0; y < h; y++)
        for (int l = 0; l < w * 4; l++) {
#define V(yy) hz[(size_t)((yy) < 0 ? 0 : (yy) >= h ? h - 1 : (yy)) * w * 4 + l]
            int16_t acc = mulhrs(V(y), wt[0]);
            for (int k = 1; k <= r; k++) acc = (int16_t)(acc + mulhrs((int16_t)(V(y - k) + V(y + k)), wt[k]));
            int v = (acc + 32) >> 6;
            d[y * stride + l] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
#undef V
        }
    free(hz);
}

static int compare(const char *what, const uint8_t *a, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) { printf("FAIL %s at byte %zu: %d vs %d\n", what, i, a[i], b[i]); return 1; }
    return 0;
}

static int compare_rows(const char *what, const uint8_t *a, const uint8_t *b, size_t stride, int w, int h) {
    int failures = 0;
    for (int y = 0; y < h; y++) failures += compare(what, a + y * stride, b + y * stride, (size_t)w * 4);
    return failures;
}

// One picture shape: the source, two outputs (the kernel's, the reference's).
typedef struct {
    int w, h;
    size_t stride, n;
    const uint8_t *src;
    uint8_t *a, *b;
} picture;

static void reset(const picture *p) { memcpy(p->a, p->src, p->n); memcpy(p->b, p->src, p->n); }

// Colour chains of 1 and 3 stages, random matrices (the 3-stage one diagonal in part).
static int check_ck_color_chain(const picture *p) {
    int failures = 0;
    for (int stages = 1; stages <= 3; stages += 2) {
        float c[36];
        for (int i = 0; i < 12 * stages; i++) c[i] = ((int)(rnd() % 4001) - 2000) / 1000.0f;
        if (stages == 3) { c[1] = c[2] = c[4] = c[6] = c[8] = c[9] = 0; }
        reset(p);
        ck_color_chain(p->src, p->stride, p->a, p->stride, (size_t)p->w, (size_t)p->h, c, stages);
        ref_color(p->src, p->b, p->stride, (size_t)p->w, (size_t)p->h, c, stages);
        failures += compare("color", p->a, p->b, p->n);
    }
    return failures;
}

// Binomial-ish weights of radius r summing to 1.0 in Q15.
static void blur_weights(int16_t *wt, int r) {
    int total = 0;
    for (int k = 1; k <= r; k++) { wt[k] = (int16_t)(32768 / (2 * r + 1)); total += 2 * wt[k]; }
    wt[0] = (int16_t)(32768 - total);
}

// Blur, radius 1, 5 and 9 (wider than the small pictures).
static int check_ck_blur_rows(const picture *p) {
    int failures = 0;
    for (int r = 1; r <= 9; r += 4) {
        int16_t wt[10];
        blur_weights(wt, r);
        void *scratch = aligned_alloc(64, (ck_blur_scratch_bytes((size_t)p->w, r) + 63) / 64 * 64);
        reset(p);
        ck_blur_rows(p->src, p->stride, p->a, p->stride, (size_t)p->w, (size_t)p->h, 0, (size_t)p->h, 0, 0, wt, r,
                     scratch);
        ref_blur(p->src, p->b, p->stride, p->w, p->h, wt, r);
        failures += compare_rows("blur", p->a, p->b, p->stride, p->w, p->h);
        free(scratch);
    }
    return failures;
}

// The scratch size is enough: the blur writes nothing past that many bytes (guard bytes).
static int check_ck_blur_scratch_bytes(const picture *p) {
    int failures = 0;
    for (int r = 1; r <= 9; r += 4) {
        int16_t wt[10];
        blur_weights(wt, r);
        size_t bytes = ck_blur_scratch_bytes((size_t)p->w, r), room = (bytes + 63) / 64 * 64;
        uint8_t *scratch = aligned_alloc(64, room + 256);
        memset(scratch, 0xA5, room + 256);
        ck_blur_rows(p->src, p->stride, p->a, p->stride, (size_t)p->w, (size_t)p->h, 0, (size_t)p->h, 0, 0, wt, r,
                     scratch);
        for (size_t i = bytes; i < room + 256; i++)
            if (scratch[i] != 0xA5) { printf("FAIL blur scratch: byte %zu of %zu written\n", i, bytes); failures++; break; }
        free(scratch);
    }
    return failures;
}

static int check_ck_unsharp(const picture *p) {
    reset(p);
    for (size_t i = 0; i < p->n; i++) p->a[i] = p->b[i] = (uint8_t)rnd();
    ck_unsharp(p->src, p->stride, p->a, p->stride, (size_t)p->w, (size_t)p->h, 1.7f);
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            const uint8_t *s = p->src + y * p->stride + 4 * x;
            uint8_t *b = p->b + y * p->stride + 4 * x;
            for (int c = 0; c < 3; c++) b[c] = (uint8_t)q(((float)s[c] - (float)b[c]) * 1.7f + (float)s[c] + 0.5f);
            b[3] = s[3];
        }
    return compare_rows("unsharp", p->a, p->b, p->stride, p->w, p->h);
}

static int check_ck_vignette(const picture *p) {
    int w = p->w, h = p->h;
    float *dx2 = malloc(sizeof(float) * w), *dy2 = malloc(sizeof(float) * h);
    for (int x = 0; x < w; x++) { float d = ((float)x + 0.5f - w / 2.0f) / (w / 2.0f); dx2[x] = d * d; }
    for (int y = 0; y < h; y++) { float d = ((float)y + 0.5f - h / 2.0f) / (h / 2.0f); dy2[y] = d * d; }
    reset(p);
    ck_vignette(p->src, p->stride, p->a, p->stride, (size_t)w, (size_t)h, dx2, dy2, 0.8f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float t = ((dx2[x] + dy2[y]) * 0.5f - 0.2f) * 1.25f;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            float f = 1.0f - 0.8f * (t * t * (3.0f - 2.0f * t));
            const uint8_t *s = p->src + y * p->stride + 4 * x;
            for (int c = 0; c < 3; c++) p->b[y * p->stride + 4 * x + c] = (uint8_t)q((float)s[c] * f + 0.5f);
        }
    free(dx2); free(dy2);
    return compare("vignette", p->a, p->b, p->n);
}

// Random weights over 1, 4 and 6 taps: rows k of the source summed in order, in float.
static int check_ck_resample_v(const picture *p) {
    int failures = 0;
    size_t n = 4 * (size_t)p->w;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    for (int taps = 1; taps <= 6 && taps <= p->h; taps += 3 - (taps == 4)) {
        float wt[6];
        for (int k = 0; k < taps; k++) wt[k] = ((int)(rnd() % 2001) - 500) / 1000.0f;
        ck_resample_v(p->src, p->stride, a, (size_t)p->w, wt, taps);
        for (size_t i = 0; i < n; i++) {
            float acc = 0.0f;
            for (int k = 0; k < taps; k++) acc = acc + (float)p->src[(size_t)k * p->stride + i] * wt[k];
            b[i] = acc;
        }
        if (memcmp(a, b, sizeof(float) * n)) { printf("FAIL resample_v, %d taps\n", taps); failures++; }
    }
    free(a); free(b);
    return failures;
}

// A float row (the vertical pass's output) to out_width pixels, random windows and weights.
static int check_ck_resample_h(const picture *p) {
    int failures = 0, w = p->w;
    float *row = malloc(sizeof(float) * 4 * (size_t)w);
    for (int i = 0; i < 4 * w; i++) row[i] = ((int)(rnd() % 3001) - 200) / 10.0f;
    for (int taps = 1; taps <= 6 && taps <= w; taps += 5) {
        int out = 2 * w + 1;
        int32_t *first = malloc(sizeof(int32_t) * out);
        float *wt = malloc(sizeof(float) * out * taps);
        for (int x = 0; x < out; x++) {
            first[x] = (int32_t)(rnd() % (unsigned)(w - taps + 1));
            for (int k = 0; k < taps; k++) wt[x * taps + k] = ((int)(rnd() % 2001) - 500) / 1000.0f;
        }
        uint8_t *a = malloc(4 * (size_t)out), *b = malloc(4 * (size_t)out);
        ck_resample_h(row, a, (size_t)out, first, wt, taps);
        for (int x = 0; x < out; x++)
            for (int c = 0; c < 4; c++) {
                float acc = 0.0f;
                for (int k = 0; k < taps; k++) acc = acc + row[4 * (first[x] + k) + c] * wt[x * taps + k];
                acc = acc + 0.5f;
                b[4 * x + c] = (uint8_t)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
            }
        failures += compare("resample_h", a, b, 4 * (size_t)out);
        free(first); free(wt); free(a); free(b);
    }
    free(row);
    return failures;
}

// 3x3 and 5x5 integer kernels, whole pictures and a band of rows (src and dst from row y0).
static int check_ck_convolve_rows(const picture *p) {
    int failures = 0, w = p->w, h = p->h;
    for (int size = 3; size <= CK_CONVOLVE_MAX; size += 2) {
        int32_t k[CK_CONVOLVE_MAX * CK_CONVOLVE_MAX];
        int sum = 0;
        for (int i = 0; i < size * size; i++) { k[i] = (int32_t)(rnd() % 41) - 20; sum += k[i]; }
        float inv = 1.0f / (float)(sum ? (sum < 0 ? -sum : sum) : 1), offset = (float)(rnd() % 21) - 10.0f;
        size_t y0 = (size_t)h / 3, y1 = (size_t)h;
        reset(p);
        ck_convolve_rows(p->src, p->stride, p->a, p->stride, (size_t)w, (size_t)h, 0, y0, 0, 0, k, size, inv, offset);
        ck_convolve_rows(p->src, p->stride, p->a + y0 * p->stride, p->stride, (size_t)w, (size_t)h, y0, y1, 0, y0, k,
                         size, inv, offset);
        int r = size / 2;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                for (int c = 0; c < 3; c++) {
                    int32_t acc = 0;
                    for (int ky = 0; ky < size; ky++)
                        for (int kx = 0; kx < size; kx++) {
                            int sy = y + ky - r, sx = x + kx - r;
                            sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
                            sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx;
                            acc += k[ky * size + kx] * p->src[sy * p->stride + 4 * sx + c];
                        }
                    p->b[y * p->stride + 4 * x + c] = (uint8_t)q((float)acc * inv + offset + 0.5f);
                }
                p->b[y * p->stride + 4 * x + 3] = p->src[y * p->stride + 4 * x + 3];
            }
        failures += compare_rows("convolve", p->a, p->b, p->stride, w, h);
    }
    return failures;
}

// ---------------------------------------------------------------- the cascade scan

// A random cascade over a 6x6 window of an integral image `stride` wide: 3 stages of 2-3
// stumps, leaves in [-1, 1], stage thresholds near 0 (so each stage passes about half).
enum { WIN = 6, FEATURES = 5, STUMPS = 8 };
typedef struct {
    int32_t ends[3], features[STUMPS], offsets[16 * FEATURES];
    float stage_thresholds[3], thresholds[STUMPS], left[STUMPS], right[STUMPS], weights[3 * FEATURES];
    uint32_t subsets[8 * STUMPS];
    cc_cascade c;
} random_cascade;

static float unit(void) { return ((int)(rnd() % 2001) - 1000) / 1000.0f; }

static int32_t corner(int x, int y, size_t stride) { return (int32_t)((size_t)y * stride + (size_t)x); }

static void make_cascade(random_cascade *r, int kind, size_t stride) {
    memset(r, 0, sizeof *r);
    const int32_t ends[3] = {3, 5, 8};
    memcpy(r->ends, ends, sizeof ends);
    for (int k = 0; k < 3; k++) r->stage_thresholds[k] = unit() * 0.3f;
    for (int s = 0; s < STUMPS; s++) {
        r->features[s] = (int32_t)(rnd() % FEATURES);
        r->thresholds[s] = unit() * 0.05f;
        r->left[s] = unit();
        r->right[s] = unit();
        for (int i = 0; i < 8; i++) r->subsets[8 * s + i] = rnd();
    }
    for (int f = 0; f < FEATURES; f++) {
        int32_t *o = r->offsets + (kind == CC_CASCADE_LBP ? 16 : 12) * f;
        if (kind == CC_CASCADE_LBP) {  // a 3x3 grid of 1x1 or 2x1 blocks: its 4x4 corners
            int bw = 1 + (int)(rnd() % 2), bh = 1, x0 = (int)(rnd() % (unsigned)(WIN - 3 * bw + 1)),
                y0 = (int)(rnd() % (unsigned)(WIN - 3 * bh + 1));
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) o[4 * j + i] = corner(x0 + i * bw, y0 + j * bh, stride);
        } else {  // 2 or 3 rectangles (top left, top right, bottom left, bottom right)
            int rects = 2 + (int)(rnd() % 2);
            for (int k = 0; k < 3; k++) {
                int x0 = (int)(rnd() % (WIN - 1)), y0 = (int)(rnd() % (WIN - 1));
                int x1 = x0 + 1 + (int)(rnd() % (unsigned)(WIN - x0)), y1 = y0 + 1 + (int)(rnd() % (unsigned)(WIN - y0));
                o[4 * k] = corner(x0, y0, stride);
                o[4 * k + 1] = corner(x1, y0, stride);
                o[4 * k + 2] = corner(x0, y1, stride);
                o[4 * k + 3] = corner(x1, y1, stride);
                r->weights[3 * f + k] = k < rects ? unit() * 2.0f : 0.0f;
            }
        }
    }
    r->c = (cc_cascade){.kind = kind, .stage_count = 3, .stage_ends = r->ends,
                        .stage_thresholds = r->stage_thresholds, .stump_features = r->features,
                        .stump_thresholds = r->thresholds, .stump_left = r->left, .stump_right = r->right,
                        .subsets = r->subsets, .offsets = r->offsets, .weights = r->weights,
                        .norm = {corner(1, 1, stride), corner(WIN - 1, 1, stride), corner(1, WIN - 1, stride),
                                 corner(WIN - 1, WIN - 1, stride)},
                        .area = (double)((WIN - 2) * (WIN - 2))};
}

static int32_t rect_sum(const int32_t *p, const int32_t *o) {
    return (int32_t)((uint32_t)p[o[0]] - (uint32_t)p[o[1]] - (uint32_t)p[o[2]] + (uint32_t)p[o[3]]);
}

// Stage k of window p (norm: Haar's): accepted or not, as the list's contract says.
static int ref_stage(const cc_cascade *c, const int32_t *p, int k, float norm) {
    double sum = 0;
    for (int s = k ? c->stage_ends[k - 1] : 0; s < c->stage_ends[k]; s++) {
        int left;
        if (c->kind == CC_CASCADE_LBP) {
            const int32_t *o = c->offsets + 16 * c->stump_features[s];
            int32_t block[9];
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    int32_t q4[4] = {o[4 * j + i], o[4 * j + i + 1], o[4 * j + i + 4], o[4 * j + i + 5]};
                    block[3 * j + i] = rect_sum(p, q4);
                }
            // Clockwise from the top left, as bits 7 down to 0.
            const int order[8] = {0, 1, 2, 5, 8, 7, 6, 3};
            int code = 0;
            for (int b = 0; b < 8; b++) code |= (block[order[b]] >= block[4]) << (7 - b);
            left = (c->subsets[8 * s + (code >> 5)] >> (code & 31)) & 1u;
        } else {
            const int32_t *o = c->offsets + 12 * c->stump_features[s];
            const float *w = c->weights + 3 * c->stump_features[s];
            float value = w[0] * (float)rect_sum(p, o) + w[1] * (float)rect_sum(p, o + 4);
            if (w[2] != 0) value += w[2] * (float)rect_sum(p, o + 8);
            left = value * norm < c->stump_thresholds[s];
        }
        sum += (double)(left ? c->stump_left[s] : c->stump_right[s]);
    }
    return sum >= (double)c->stage_thresholds[k];
}

static size_t ref_scan(const cc_cascade *c, const int32_t *sums, const int32_t *squares, size_t stride, int columns,
                       int rows, int step, int32_t *found) {
    size_t n = 0;
    for (int y = 0; y < rows; y += step) {
        int x = 0;
        while (x < columns) {
            const int32_t *p = sums + (size_t)y * stride + (size_t)x;
            float norm = 1.0f;
            int usable = 1;
            if (c->kind == CC_CASCADE_HAAR) {
                double t = rect_sum(p, c->norm), sq = (double)(uint32_t)rect_sum(squares + (p - sums), c->norm);
                double nf = c->area * sq - t * t;
                norm = (float)(1.0 / sqrt(nf));
                usable = nf > 0.0 && c->area * (double)norm < 0.1;
            }
            if (usable && !ref_stage(c, p, 0, norm)) { x += 2 * step; continue; }
            if (usable && ref_stage(c, p, 1, norm) && ref_stage(c, p, 2, norm)) {
                found[2 * n] = x;
                found[2 * n + 1] = y;
                n++;
            }
            x += step;
        }
    }
    return n;
}

// Both kinds, steps 1, 2 and 3, over the picture's grey integral (its red channel).
static int check_cc_cascade_scan(const picture *p) {
    int failures = 0, w = p->w, h = p->h;
    if (w < WIN + 1 || h < WIN + 1) return 0;
    size_t stride = (size_t)w + 1, count = stride * ((size_t)h + 1) + CC_CASCADE_PAD + 64;
    int32_t *sums = calloc(count, sizeof(int32_t)), *squares = calloc(count, sizeof(int32_t));
    for (int y = 1; y <= h; y++)
        for (int x = 1; x <= w; x++) {
            int32_t v = p->src[(y - 1) * p->stride + 4 * (x - 1)];
            size_t i = (size_t)y * stride + (size_t)x;
            sums[i] = v + sums[i - 1] + sums[i - stride] - sums[i - stride - 1];
            squares[i] = v * v + squares[i - 1] + squares[i - stride] - squares[i - stride - 1];
        }
    int columns = w + 1 - WIN, rows = h + 1 - WIN;
    int32_t *a = malloc(sizeof(int32_t) * 2 * (size_t)columns * (size_t)rows),
            *b = malloc(sizeof(int32_t) * 2 * (size_t)columns * (size_t)rows);
    for (int kind = CC_CASCADE_HAAR; kind <= CC_CASCADE_LBP; kind++)
        for (int step = 1; step <= 3; step++) {
            random_cascade r;
            make_cascade(&r, kind, stride);
            size_t na = cc_cascade_scan(&r.c, sums, squares, stride, columns, rows, step, a);
            size_t nb = ref_scan(&r.c, sums, squares, stride, columns, rows, step, b);
            if (na != nb || memcmp(a, b, sizeof(int32_t) * 2 * na)) {
                printf("FAIL cascade scan (%s, step %d): %zu windows vs %zu\n", kind ? "lbp" : "haar", step, na, nb);
                failures++;
            }
        }
    free(sums); free(squares); free(a); free(b);
    return failures;
}

// ---------------------------------------------------------------- the cat network's convolutions

static float rndf(void) { return (float)(rnd() % 2001) / 1000.0f - 1.0f; }

static float activate_ref(float v, int activation) {
    if (activation == 1) return v * 0.1f > v ? v * 0.1f : v;
    if (activation == 2) return v < 0 ? 0 : v > 6 ? 6 : v;
    return v;
}

// A w x h plane, 5 input channels, 7 outputs (a block of 4 and the rest), with each
// activation (none, leaky, ReLU6): the sums in input order, one multiply and one add at a time, as the builds make them.
static int check_cd_pointwise(const picture *p) {
    int failures = 0;
    const int inputs = 5, outputs = 7;
    size_t pixels = (size_t)p->w * (size_t)p->h, stride = cd_plane_stride(pixels);
    float *in = malloc(sizeof(float) * stride * inputs), *out = malloc(sizeof(float) * stride * outputs);
    float w[35], bias[7];
    for (size_t i = 0; i < stride * inputs; i++) in[i] = 8 * rndf();
    for (int i = 0; i < 35; i++) w[i] = rndf();
    for (int i = 0; i < 7; i++) bias[i] = rndf();
    for (int activation = 0; activation < 3; activation++) {
        cd_pointwise(in, stride, inputs, pixels, w, bias, 0, outputs, activation, out, stride);
        for (int o = 0; o < outputs; o++)
            for (size_t x = 0; x < pixels; x++) {
                float sum = bias[o];
                for (int i = 0; i < inputs; i++) sum = sum + in[(size_t)i * stride + x] * w[o * inputs + i];
                if (out[(size_t)o * stride + x] != activate_ref(sum, activation)) failures++;
            }
    }
    free(in); free(out);
    return failures;
}

// Two channels of a w x h plane, 3 and 5 taps, steps 1 and 2, padded evenly and as
// TensorFlow's "same" (one zero more after): each output the bias and the taps in rows then
// columns, zeros outside.
static int check_cd_depthwise(const picture *p) {
    int failures = 0;
    size_t pixels = (size_t)p->w * (size_t)p->h, stride = cd_plane_stride(pixels);
    float *in = malloc(sizeof(float) * stride * 2);
    for (size_t i = 0; i < stride * 2; i++) in[i] = rndf();
    for (int size = 3; size <= 5; size += 2)
        for (int form = 0; form < 4; form++) {
            int step = 1 + form % 2, same = form >= 2;  // same: TensorFlow's padding at step 2 (k - 2 in all)
            int pad = same ? (size - 2) / 2 : size / 2, after = same ? size - 2 - pad : pad;
            // No output for a plane smaller than the kernel, even padded.
            int fits = p->w + pad + after >= size && p->h + pad + after >= size;
            int ow = fits ? (p->w + pad + after - size) / step + 1 : 0;
            int oh = fits ? (p->h + pad + after - size) / step + 1 : 0;
            size_t ostride = cd_plane_stride((size_t)ow * (size_t)oh);
            float *out = malloc(sizeof(float) * ostride * 2);
            float *scratch = malloc(sizeof(float) * cd_depthwise_scratch(p->w, p->h, size, step, pad, after));
            float w[50], bias[2] = {rndf(), rndf()};
            for (int i = 0; i < 50; i++) w[i] = rndf();
            cd_depthwise(in, stride, p->w, p->h, size, step, pad, after, w, bias, 0, 2, 1, out, ostride, scratch);
            for (int c = 0; c < 2; c++)
                for (int y = 0; y < oh; y++)
                    for (int x = 0; x < ow; x++) {
                        float sum = bias[c];
                        for (int ky = 0; ky < size; ky++)
                            for (int kx = 0; kx < size; kx++) {
                                int sy = y * step + ky - pad, sx = x * step + kx - pad;
                                float v = sy >= 0 && sy < p->h && sx >= 0 && sx < p->w
                                              ? in[(size_t)c * stride + (size_t)sy * (size_t)p->w + (size_t)sx]
                                              : 0.0f;
                                sum = sum + v * w[c * size * size + ky * size + kx];
                            }
                        if (out[(size_t)c * ostride + (size_t)y * (size_t)ow + (size_t)x] != activate_ref(sum, 1)) failures++;
                    }
            free(out); free(scratch);
        }
    free(in);
    return failures;
}

// ---------------------------------------------------------------- every kernel of the lists

#define CK_KERNEL(ret, name, params, args) {#name, check_##name},
static const struct {
    const char *name;
    int (*check)(const picture *);
} kernels[] = {
#include "cfilter_kernels.def"
#include "cat_kernels.def"
#include "cat_models.def"
};
#undef CK_KERNEL

int main(void) {
    int failures = 0, checks = 0;
    const int shapes[][2] = {{1, 1}, {3, 1}, {7, 3}, {17, 5}, {33, 9}, {65, 4}, {130, 41}};
    for (int isa = ck_isa_best(); isa >= 0; isa--) {
        ck_isa_select(isa);
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            picture p = {.w = shapes[si][0], .h = shapes[si][1]};
            p.stride = (size_t)p.w * 4 + 12;
            p.n = p.stride * (size_t)p.h;
            uint8_t *src = malloc(p.n);
            for (size_t i = 0; i < p.n; i++) src[i] = (uint8_t)rnd();
            p.src = src;
            p.a = malloc(p.n);
            p.b = malloc(p.n);
            for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
                int f = kernels[k].check(&p);
                if (f) printf("  %s, %dx%d: %d failures\n", kernels[k].name, p.w, p.h, f);
                failures += f;
                checks++;
            }
            free(src); free(p.a); free(p.b);
        }
        printf("%s: %s\n", ck_isa_name(isa), failures ? "FAILED" : "ok");
    }
    printf("%zu kernels, %d checks, %d failures\n", sizeof kernels / sizeof kernels[0], checks, failures);
    return failures ? 1 : 0;
}
