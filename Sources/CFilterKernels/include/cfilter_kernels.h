// Pixel kernels of the filter core, on RGBA8 rows with a stride.
//
// Every kernel exists in several builds of the same portable vector code, the one in use
// chosen at run time (CKernelDispatch's ck_dispatch.h).
// Each kernel has a plain scalar reference in Swift (the colour chain's in
// FilterCore/Reference.swift, each spatial stage's in its file under FilterCore/Filters/);
// all builds compute exactly what the reference computes (no FMA contraction,
// the same operation order, integer arithmetic where it is integer). The cascade scan
// (CCatDetectors) and the networks' convolutions (CCatModels) are built and chosen the same way.
#ifndef CFILTER_KERNELS_H
#define CFILTER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "ck_dispatch.h"

// Floats per affine colour stage: a row-major 3x4 matrix on 0-255 values,
//   r' = c[0]*r + c[1]*g + c[2]*b + c[3]   (rows 4-7 for g', 8-11 for b'),
// where the offsets c[3], c[7], c[11] already include the +0.5 of rounding.
#define CK_STAGE_FLOATS 12
// The largest convolution kernel side ck_convolve_rows takes (5x5).
#define CK_CONVOLVE_MAX 5

// The kernels, from the one list (each one's contract is written there).
#define CK_KERNEL(ret, name, params, args) ret name params;
#include "cfilter_kernels.def"
#undef CK_KERNEL

#endif
