#include "cat_models.h"

#include <math.h>

/* The layers below run once or twice a picture on small planes (the first layer's
 * 3 channels; the 10 x 10 pooling; the 7 x 7 average), or are the fallback of XNNPACK's
 * (the mask's network: CatModels/XNNPACK.swift): plain loops, one build. */
void cd_unfold(const float *in, size_t in_stride, int channels, int width, int height, int size, int step,
               int dilation, int pad, int pad_after, int first_row, int end_row, float *out, size_t out_stride) {
    int extent = dilation * (size - 1) + 1;
    if (width + pad + pad_after < extent || height + pad + pad_after < extent) return;  // no output
    int ow = (width + pad + pad_after - extent) / step + 1, oh = (height + pad + pad_after - extent) / step + 1;
    if (end_row > oh) end_row = oh;
    for (int c = 0; c < channels; c++)
        for (int ky = 0; ky < size; ky++)
            for (int kx = 0; kx < size; kx++) {
                float *plane = out + (size_t)((c * size + ky) * size + kx) * out_stride;
                for (int y = first_row; y < end_row; y++) {
                    int sy = y * step + ky * dilation - pad;
                    for (int x = 0; x < ow; x++) {
                        int sx = x * step + kx * dilation - pad;
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

void cd_maxpool_half(const float *in, size_t stride, int width, int height, int first, int end, float *out,
                     size_t out_stride) {
    int ow = (width + 1) / 2, oh = (height + 1) / 2;
    for (int c = first; c < end; c++) {
        const float *plane = in + (size_t)c * stride;
        float *o = out + (size_t)c * out_stride;
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                float best = plane[(size_t)(2 * y) * (size_t)width + (size_t)(2 * x)];
                for (int sy = 2 * y; sy < 2 * y + 2 && sy < height; sy++)
                    for (int sx = 2 * x; sx < 2 * x + 2 && sx < width; sx++) {
                        float v = plane[(size_t)sy * (size_t)width + (size_t)sx];
                        if (v > best) best = v;
                    }
                o[(size_t)y * (size_t)ow + (size_t)x] = best;
            }
    }
}

/* Where output index i of `out` samples an `in`-long side: half-pixel centres, clamped at 0
 * (PyTorch's align_corners=False), the two neighbours and the far one's weight. */
static void cd_taps(int i, int in, int out, int *lo, int *hi, float *far) {
    float at = ((float)i + 0.5f) * ((float)in / (float)out) - 0.5f;
    if (at < 0) at = 0;
    int base = (int)at;
    if (base > in - 1) base = in - 1;
    *lo = base;
    *hi = base + 1 < in ? base + 1 : in - 1;
    *far = at - (float)base;
}

void cd_resize(const float *in, size_t in_stride, int width, int height, int channels, float *out, size_t out_stride,
               int out_width, int out_height) {
    for (int y = 0; y < out_height; y++) {
        int y0, y1;
        float fy;
        cd_taps(y, height, out_height, &y0, &y1, &fy);
        for (int x = 0; x < out_width; x++) {
            int x0, x1;
            float fx;
            cd_taps(x, width, out_width, &x0, &x1, &fx);
            for (int c = 0; c < channels; c++) {
                const float *p = in + (size_t)c * in_stride;
                float top = p[(size_t)y0 * (size_t)width + (size_t)x0] * (1 - fx) + p[(size_t)y0 * (size_t)width + (size_t)x1] * fx;
                float bottom = p[(size_t)y1 * (size_t)width + (size_t)x0] * (1 - fx) + p[(size_t)y1 * (size_t)width + (size_t)x1] * fx;
                out[(size_t)c * out_stride + (size_t)y * (size_t)out_width + (size_t)x] = top * (1 - fy) + bottom * fy;
            }
        }
    }
}

void cd_logistic(const float *in, size_t in_stride, int channels, size_t pixels, float *out, size_t out_stride) {
    for (int c = 0; c < channels; c++)
        for (size_t p = 0; p < pixels; p++)
            out[(size_t)c * out_stride + p] = 1.0f / (1.0f + expf(-in[(size_t)c * in_stride + p]));
}
