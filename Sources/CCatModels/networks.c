#include "cat_models.h"

/* The two layers below run once or twice a picture on small planes (the first layer's
 * 3 channels; the 10 x 10 pooling): plain loops, one build. */
void cd_unfold(const float *in, size_t in_stride, int channels, int width, int height, int size, int step, int pad,
               int first_row, int end_row, float *out, size_t out_stride) {
    int ow = (width + 2 * pad - size) / step + 1, oh = (height + 2 * pad - size) / step + 1;
    if (ow <= 0 || oh <= 0) return;
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
