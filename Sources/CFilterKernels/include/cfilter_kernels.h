// Pixel kernels of the filter core, on RGBA8 rows with a stride.
//
// Every kernel exists in several builds of the same portable vector code (clang
// vector extensions): AVX-512, AVX2 and SSE4.1 on x86-64, NEON on arm64 (the default
// build there), and a baseline build (SSE2 on x86-64). The best one the CPU supports is
// chosen at run time, so a binary built on one x86-64 machine runs on any other.
// Each kernel has a plain scalar reference in Swift (the colour chain's in
// FilterCore/Reference.swift, each spatial stage's in its file under FilterCore/Filters/);
// all builds compute exactly what the reference computes (no FMA contraction,
// the same operation order, integer arithmetic where it is integer).
#ifndef CFILTER_KERNELS_H
#define CFILTER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

enum {
    CK_ISA_BASELINE = 0,  // SSE2 on x86-64, NEON on arm64, or plain C elsewhere
    CK_ISA_SSE41 = 1,
    CK_ISA_AVX2 = 2,
    CK_ISA_AVX512 = 3,  // AVX-512 F, BW and VL
};

// The best build this CPU can run.
int ck_isa_best(void);
// The build in use now.
int ck_isa_active(void);
// Uses `isa` (clamped to what the CPU supports) from now on; returns the one in effect.
int ck_isa_select(int isa);
// "avx512", "avx2", "sse4.1", "sse2", "neon" or "scalar".
const char *ck_isa_name(int isa);

// ---------------------------------------------------------------- colour chain

// Floats per affine colour stage: a row-major 3x4 matrix on 0-255 values,
//   r' = c[0]*r + c[1]*g + c[2]*b + c[3]   (rows 4-7 for g', 8-11 for b'),
// where the offsets c[3], c[7], c[11] already include the +0.5 of rounding.
#define CK_STAGE_FLOATS 12

// Runs `count` colour stages over `rows` rows of `width` RGBA8 pixels, src -> dst
// (src == dst is allowed), in one pass over memory: every pixel goes through every
// stage in registers. After each stage each channel is clamped to 0...255 and
// truncated, i.e. rounded half up (the +0.5 is in the offsets). Alpha is copied.
void ck_color_chain(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                    size_t width, size_t rows, const float *stages, int count);

// ---------------------------------------------------------------- Gaussian blur

// Bytes of scratch memory ck_blur_rows needs for one call.
size_t ck_blur_scratch_bytes(size_t width, int radius);

// Separable Gaussian blur of output rows [y0, y1) of a width x height image, src -> dst
// (they must not overlap). `src` holds image rows from `src_row0` on (all of the rows
// y0 - radius ... y1 + radius - 1 that lie in the image), `dst` rows from `dst_row0` on:
// 0 and 0 for whole images, a window of rows when streaming. `weights` holds radius+1 Q15 taps (centre first); edges
// repeat the border pixel. Fixed point: samples are Q6 (value << 6); each pass sums
// mulhrs(sample pair, weight) = (a*w + 2^14) >> 15 over the symmetric pairs; the
// vertical result is rounded back to 8 bits. All four channels are blurred.
// `scratch` must hold ck_blur_scratch_bytes(width, radius) bytes, 32-byte aligned.
void ck_blur_rows(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                  size_t width, size_t height, size_t y0, size_t y1, size_t src_row0, size_t dst_row0,
                  const int16_t *weights, int radius, void *scratch);

// ---------------------------------------------------------------- sharpen, vignette

// Unsharp mask: dst holds a blurred copy of src on entry and the result on return:
//   v = ((s - b) * amount + s) + 0.5, clamped to 0...255, truncated (RGB; alpha from src).
void ck_unsharp(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                size_t width, size_t rows, float amount);

// Darkens towards the corners: for pixel (x, y) with dx2[x] and dy2 (squared, normalised
// distances from the centre, see VignetteStage.squaredDistances in
// FilterCore/Filters/Vignette.swift), each RGB channel becomes
// c * f + 0.5 clamped and truncated, where t = clamp((dx2 + dy2) * 0.5 - 0.2) * 1.25, 0, 1),
// f = 1 - amount * (t * t * (3 - 2 * t)). Alpha is copied.
void ck_vignette(const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                 size_t width, size_t rows, const float *dx2, const float *dy2, float amount);

// ---------------------------------------------------------------- resampling

// Separable resampling (FilterCore/Filters/Resize.swift computes the Lanczos-3 weights),
// one output row at a time, vertical pass first (it then runs on as few rows as the output
// has). Vertical: the sum over k < taps of weights[k] * RGBA8 row k (at src + k * src_stride)
// into a float row of `width` pixels. Horizontal: output pixel x of that row is the sum over
// k < taps of weights[x * taps + k] * float pixel first[x] + k, + 0.5, clamped to 0...255,
// truncated, each channel.
void ck_resample_v(const uint8_t *src, size_t src_stride, float *dst, size_t width, const float *weights, int taps);
void ck_resample_h(const float *src, uint8_t *dst, size_t out_width, const int32_t *first, const float *weights,
                   int taps);

#endif
