// Pixel kernels of the filter core, on RGBA8 rows with a stride.
// Each kernel has a plain scalar reference in Swift (FilterCore/Reference) that the
// tests hold it to.
#ifndef CFILTER_KERNELS_H
#define CFILTER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

// Number of floats that describe one affine colour stage: a row-major 3x4 matrix,
//   r' = m[0]*r + m[1]*g + m[2]*b + m[3]   (and rows 4-7 for g', 8-11 for b'),
// on 0-255 values, offsets in 0-255 units.
#define CK_STAGE_FLOATS 12

// Runs `count` affine colour stages over `height` rows of `width` RGBA8 pixels, in
// place, in one pass over memory: every pixel goes through every stage while it is
// in registers. After each stage each channel is rounded to nearest (halves up) and
// clamped to 0...255, as if the stages had run one after the other on 8-bit images.
// Alpha is left as it is.
void ck_color_chain(uint8_t *pixels, size_t stride, size_t width, size_t height,
                    const float *stages, int count);

#endif
