#include "cat_models.h"

/* The layers below run once or twice a picture on small planes (the first layer's
 * 3 channels; the 10 x 10 pooling; the 7 x 7 average): plain loops, one build. */
void cd_unfold(const float *in, size_t in_stride, int channels, int width, int height, int size, int step, int pad,
               int pad_after, int first_row, int end_row, float *out, size_t out_stride) {
    if (width + pad + pad_after < size || height + pad + pad_after < size) return;  // no output
    int ow = (width + pad + pad_after - size) / step + 1, oh = (height + pad + pad_after - size) / step + 1;
    if (end_row > oh) end_row = oh;
    for (int c = 0; c < channels; c++)
        for (int ky = 0; ky < size; ky++)
            for (int kx = 0; kx < size; kx++) {
                float *plane = out + (size_t)((c * size + ky) * size + kx) * out_stride;
                for (int y = first_row; y < end_row; y++) {
                    int sy = y * step + ky - pad;
                    for (int x = 0; x < ow; x++) {
                        int sx = x * step + kx - pad;
                        plane[(size_t)(y - first_row) * (size_t)ow + (size_t)x] =
                            sy >= 0 && sy < height && sx >= 0 && sx < width
                                ? in[(size_t)c * in_stride + (size_t)sy * (size_t)width + (size_t)sx]
                                : 0;
                    }
                }
            }
}

void cd_widen(const int8_t *codes, const float *scales, size_t per, int first, int end, float *out) {
    for (int o = first; o < end; o++) {
        const int8_t *c = codes + (size_t)o * per;
        float s = scales[o], *w = out + (size_t)(o - first) * per;
        for (size_t k = 0; k < per; k++) w[k] = (float)c[k] * s;
    }
}

void cd_average(const float *in, size_t stride, int channels, size_t pixels, float *out, size_t out_stride) {
    for (int c = 0; c < channels; c++) {
        float sum = 0;
        for (size_t p = 0; p < pixels; p++) sum += in[(size_t)c * stride + p];
        out[(size_t)c * out_stride] = pixels ? sum / (float)pixels : 0;
    }
}

void cd_maxpool(const float *in, size_t stride, int width, int height, int size, int first, int end, float *out) {
    int r = size / 2;
    for (int c = first; c < end; c++) {
        const float *plane = in + (size_t)c * stride;
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                float best = plane[(size_t)y * (size_t)width + (size_t)x];
                for (int sy = y - r > 0 ? y - r : 0; sy <= y + r && sy < height; sy++)
                    for (int sx = x - r > 0 ? x - r : 0; sx <= x + r && sx < width; sx++) {
                        float v = plane[(size_t)sy * (size_t)width + (size_t)sx];
                        if (v > best) best = v;
                    }
                out[(size_t)c * stride + (size_t)y * (size_t)width + (size_t)x] = best;
            }
    }
}
