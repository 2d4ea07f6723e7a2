// Checks the filter kernels' portable vector code on a CPU other than this one: every
// kernel against a plain C copy of the Swift scalar reference (FilterCore/Reference.swift and
// the spatial stages' references in FilterCore/Filters/)
// on random buffers of awkward sizes. scripts/check-arm64 builds it for arm64 (where the
// baseline build is NEON) and runs it under qemu; built natively it checks the x86 builds.
#pragma STDC FP_CONTRACT OFF
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

int main(void) {
    int failures = 0, checks = 0;
    const int shapes[][2] = {{1, 1}, {3, 1}, {7, 3}, {17, 5}, {33, 9}, {65, 4}, {130, 41}};
    for (int isa = ck_isa_best(); isa >= 0; isa--) {
        ck_isa_select(isa);
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            int w = shapes[si][0], h = shapes[si][1];
            size_t stride = (size_t)w * 4 + 12, n = stride * h;
            uint8_t *src = malloc(n), *a = malloc(n), *b = malloc(n);
            for (size_t i = 0; i < n; i++) src[i] = (uint8_t)rnd();
            // Colour chains of 1 and 3 stages, random matrices (some diagonal, some grey).
            for (int stages = 1; stages <= 3; stages += 2) {
                float c[36];
                for (int i = 0; i < 12 * stages; i++) c[i] = ((int)(rnd() % 4001) - 2000) / 1000.0f;
                if (stages == 3) { c[1] = c[2] = c[4] = c[6] = c[8] = c[9] = 0; }
                memcpy(a, src, n); memcpy(b, src, n);
                ck_color_chain(src, stride, a, stride, (size_t)w, (size_t)h, c, stages);
                ref_color(src, b, stride, (size_t)w, (size_t)h, c, stages);
                failures += compare("color", a, b, n); checks++;
            }
            // Blur, radius 1, 3 and wider than the image.
            for (int r = 1; r <= 9; r += 4) {
                int16_t wt[10];
                int total = 0;
                for (int k = 1; k <= r; k++) { wt[k] = (int16_t)(32768 / (2 * r + 1)); total += 2 * wt[k]; }
                wt[0] = (int16_t)(32768 - total);
                void *scratch = aligned_alloc(64, (ck_blur_scratch_bytes((size_t)w, r) + 63) / 64 * 64);
                memcpy(a, src, n); memcpy(b, src, n);
                ck_blur_rows(src, stride, a, stride, (size_t)w, (size_t)h, 0, (size_t)h, 0, 0, wt, r, scratch);
                ref_blur(src, b, stride, w, h, wt, r);
                for (int y = 0; y < h; y++) failures += compare("blur", a + y * stride, b + y * stride, (size_t)w * 4);
                checks++;
                free(scratch);
            }
            // Unsharp and vignette.
            memcpy(a, src, n); memcpy(b, src, n);
            for (size_t i = 0; i < n; i++) a[i] = b[i] = (uint8_t)rnd();
            ck_unsharp(src, stride, a, stride, (size_t)w, (size_t)h, 1.7f);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    for (int c2 = 0; c2 < 3; c2++) {
                        float sv = src[y * stride + 4 * x + c2], bv = b[y * stride + 4 * x + c2];
                        b[y * stride + 4 * x + c2] = (uint8_t)q((sv - bv) * 1.7f + sv + 0.5f);
                    }
                    b[y * stride + 4 * x + 3] = src[y * stride + 4 * x + 3];
                }
            for (int y = 0; y < h; y++) failures += compare("unsharp", a + y * stride, b + y * stride, (size_t)w * 4);
            checks++;
            float *dx2 = malloc(sizeof(float) * w), *dy2 = malloc(sizeof(float) * h);
            for (int x = 0; x < w; x++) { float d = ((float)x + 0.5f - w / 2.0f) / (w / 2.0f); dx2[x] = d * d; }
            for (int y = 0; y < h; y++) { float d = ((float)y + 0.5f - h / 2.0f) / (h / 2.0f); dy2[y] = d * d; }
            memcpy(a, src, n); memcpy(b, src, n);
            ck_vignette(src, stride, a, stride, (size_t)w, (size_t)h, dx2, dy2, 0.8f);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    float t = ((dx2[x] + dy2[y]) * 0.5f - 0.2f) * 1.25f;
                    t = t < 0 ? 0 : t > 1 ? 1 : t;
                    float f = 1.0f - 0.8f * (t * t * (3.0f - 2.0f * t));
                    for (int c2 = 0; c2 < 3; c2++) b[y * stride + 4 * x + c2] = (uint8_t)q((float)src[y * stride + 4 * x + c2] * f + 0.5f);
                }
            failures += compare("vignette", a, b, n); checks++;
            free(dx2); free(dy2); free(src); free(a); free(b);
        }
        printf("%s: %s\n", ck_isa_name(isa), failures ? "FAILED" : "ok");
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
