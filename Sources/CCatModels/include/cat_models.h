#ifndef CAT_MODELS_H
#define CAT_MODELS_H
#include <stddef.h>
#include <stdint.h>

// The learned networks (CatModels/Darknet.swift: Yolo-Fastest, whose files are installed
// data, Resources/models/yolo-fastest/) run on the kernels below.
// Feature maps are planes of floats, one a channel, cd_plane_stride(pixels) apart: the
// kernels read and write up to 32 floats past a plane's last pixel (two vectors of the
// widest build), never into the next plane.
static inline size_t cd_plane_stride(size_t pixels) { return (pixels + 31) / 32 * 32 + 32; }
// The largest depthwise kernel side cd_depthwise takes.
#define CD_MAX_TAPS 9

// The width of cd_depthwise's padded copy of a plane: the plane, `pad` zeros before it and
// `pad_after` after, and room for the last vector's reads (16 lanes, twice that at step 2).
static inline size_t cd_depthwise_scratch_width(int width, int size, int step, int pad, int pad_after) {
    int span = width + pad + pad_after - size;  // negative: no output
    size_t ow = span < 0 ? 0 : (size_t)(span / step + 1);
    return (ow + 15) / 16 * 16 * (size_t)step + (size_t)size + 32;
}

// The floats of scratch cd_depthwise needs for a width x height plane.
static inline size_t cd_depthwise_scratch(int width, int height, int size, int step, int pad, int pad_after) {
    return cd_depthwise_scratch_width(width, size, step, pad, pad_after) * (size_t)(height + pad + pad_after);
}

// A convolution's input as the rows of a 1x1 one (im2col), for the output's rows
// [first_row, end_row): for each input channel c and tap (ky, kx) of a size x size kernel
// whose taps are `dilation` apart (it spans extent = dilation x (size - 1) + 1), `step`
// apart, `pad` zeros above and left and `pad_after` below and right, a plane (out_stride
// apart, in that order: (c * size + ky) * size + kx) of those rows' pixels, each the input
// under that tap. The output is ((width + pad + pad_after - extent) / step + 1) wide, as high.
void cd_unfold(const float *in, size_t in_stride, int channels, int width, int height, int size, int step,
               int dilation, int pad, int pad_after, int first_row, int end_row, float *out, size_t out_stride);

// The float32 weights of outputs [first, end) of int8 ones: out[(o - first) * per + k] =
// codes[o * per + k] x scales[o] (catctl's `weights=int8`, widened a block at a time).
void cd_widen(const int8_t *codes, const float *scales, size_t per, int first, int end, float *out);

// The mean of each of `channels` planes of `pixels` (a global average pool), summed in order.
void cd_average(const float *in, size_t stride, int channels, size_t pixels, float *out, size_t out_stride);

// darknet's [maxpool] at stride 1 (size odd): the largest value in the size x size square
// around each pixel, the part inside the plane; channels [first, end).
void cd_maxpool(const float *in, size_t stride, int width, int height, int size, int first, int end, float *out);

// A 2 x 2 max pool at step 2 in ceil mode (darknet's, PyTorch's ceil_mode): a last odd
// row or column pools on its own. The output is (width + 1) / 2 x (height + 1) / 2, its
// planes out_stride apart; channels [first, end).
void cd_maxpool_half(const float *in, size_t stride, int width, int height, int first, int end, float *out,
                     size_t out_stride);

// A bilinear resize of `channels` width x height planes to out_width x out_height:
// half-pixel centres, a source position below 0 taken as 0, the last row and column
// repeated past the edge (PyTorch's interpolate, align_corners=False).
void cd_resize(const float *in, size_t in_stride, int width, int height, int channels, float *out, size_t out_stride,
               int out_width, int out_height);

// 1 / (1 + e^-x) of each value of `channels` planes of `pixels`.
void cd_logistic(const float *in, size_t in_stride, int channels, size_t pixels, float *out, size_t out_stride);

// The convolutions, from their list (cat_models.def), built per instruction set like the
// filter kernels (network_*.c) and run with the build in use (ck_isa_active).
#define CK_KERNEL(ret, name, params, args) ret name params;
#include "cat_models.def"
#undef CK_KERNEL

#include "cat_xnnpack.h"  // the networks on XNNPACK, where it is

#endif
