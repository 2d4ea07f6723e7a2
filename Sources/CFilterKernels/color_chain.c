// The fused colour-chain kernel. Written as short fixed-length loops over a block of
// pixels in structure-of-arrays form, which the compiler vectorises; no FMA
// contraction, so results equal the Swift scalar reference bit for bit.
#include "cfilter_kernels.h"

#pragma STDC FP_CONTRACT OFF

#define CK_BLOCK 64

static inline float ck_quantize(float x) {
    x += 0.5f;
    x = x < 0.0f ? 0.0f : x;
    x = x > 255.0f ? 255.0f : x;
    return (float)(int)x;  // truncation of a non-negative value: floor
}

static void ck_color_block(uint8_t *p, size_t n, const float *stages, int count) {
    float r[CK_BLOCK], g[CK_BLOCK], b[CK_BLOCK];
    for (size_t i = 0; i < n; i++) {
        r[i] = p[4 * i + 0];
        g[i] = p[4 * i + 1];
        b[i] = p[4 * i + 2];
    }
    for (int s = 0; s < count; s++) {
        const float *m = stages + (size_t)s * CK_STAGE_FLOATS;
        const float m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
        const float m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7];
        const float m8 = m[8], m9 = m[9], m10 = m[10], m11 = m[11];
        for (size_t i = 0; i < n; i++) {
            float nr = m0 * r[i] + m1 * g[i] + m2 * b[i] + m3;
            float ng = m4 * r[i] + m5 * g[i] + m6 * b[i] + m7;
            float nb = m8 * r[i] + m9 * g[i] + m10 * b[i] + m11;
            r[i] = ck_quantize(nr);
            g[i] = ck_quantize(ng);
            b[i] = ck_quantize(nb);
        }
    }
    for (size_t i = 0; i < n; i++) {
        p[4 * i + 0] = (uint8_t)(int)r[i];
        p[4 * i + 1] = (uint8_t)(int)g[i];
        p[4 * i + 2] = (uint8_t)(int)b[i];
    }
}

void ck_color_chain(uint8_t *pixels, size_t stride, size_t width, size_t height,
                    const float *stages, int count) {
    if (count <= 0) return;
    for (size_t y = 0; y < height; y++) {
        uint8_t *row = pixels + y * stride;
        for (size_t x = 0; x < width; x += CK_BLOCK) {
            size_t n = width - x < CK_BLOCK ? width - x : CK_BLOCK;
            ck_color_block(row + 4 * x, n, stages, count);
        }
    }
}
