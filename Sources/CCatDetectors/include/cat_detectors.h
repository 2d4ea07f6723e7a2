#ifndef CAT_DETECTORS_H
#define CAT_DETECTORS_H
#include <stddef.h>
#include <stdint.h>

/* OpenCV's cat-face cascades (Joseph Howse, BSD-style licence in each file's header), as
 * Debian's opencv-data 4.6 ships them, built into the binary so that nothing is read or
 * downloaded at run time. Each is the XML text, NUL-terminated; `length` excludes the NUL. */
const char *cc_lbp_frontalcatface(size_t *length);
const char *cc_haar_frontalcatface(size_t *length);

// A boosted cascade of decision stumps over Haar or LBP features (its offsets are in
// elements of integral images `stride` wide, which every scale shares): what
// cc_cascade_scan evaluates. Made by CatFaces/Cascade.swift from OpenCV's cascade files.
enum { CC_CASCADE_HAAR = 0, CC_CASCADE_LBP = 1 };
typedef struct {
    int kind;                        // CC_CASCADE_HAAR or CC_CASCADE_LBP
    int stage_count;
    const int32_t *stage_ends;       // stage k's stumps: [stage_ends[k - 1], stage_ends[k]) (0 for k = 0)
    const float *stage_thresholds;   // a stage accepts when the sum of its leaves is >= this
    const int32_t *stump_features;   // the feature each stump reads
    const float *stump_thresholds;   // Haar: left when the normalised feature is below this
    const float *stump_left, *stump_right;  // the leaves
    const uint32_t *subsets;         // LBP: 8 words a stump, the codes that go left
    const int32_t *offsets;          // per feature: Haar 12 (3 rectangles x 4 corners), LBP 16 (4 x 4 corners)
    const float *weights;            // Haar: 3 per feature (0: no third rectangle)
    int32_t norm[4];                 // Haar: the corners of the window's variance rectangle
    double area;                     // Haar: that rectangle's area
} cc_cascade;
// Elements past the last window's corners that cc_cascade_scan may read (and ignore).
#define CC_CASCADE_PAD 128


// The cat detector's network (CatFaces/Darknet.swift, Yolo-Fastest; its files are installed
// data, Resources/models/yolo-fastest/) runs on the kernels below.
// Feature maps are planes of floats, one a channel, cd_plane_stride(pixels) apart: the
// kernels read and write up to 32 floats past a plane's last pixel (two vectors of the
// widest build), never into the next plane.
static inline size_t cd_plane_stride(size_t pixels) { return (pixels + 31) / 32 * 32 + 32; }
// The largest depthwise kernel side cd_depthwise takes.
#define CD_MAX_TAPS 9

// The width of cd_depthwise's padded copy of a plane: the plane, `pad` zeros on each side,
// and room for the last vector's reads (16 lanes, twice that at step 2).
static inline size_t cd_depthwise_scratch_width(int width, int size, int step, int pad) {
    size_t ow = (size_t)((width + 2 * pad - size) / step + 1);
    return (ow + 15) / 16 * 16 * (size_t)step + (size_t)size + 32;
}

// The floats of scratch cd_depthwise needs for a width x height plane.
static inline size_t cd_depthwise_scratch(int width, int height, int size, int step, int pad) {
    return cd_depthwise_scratch_width(width, size, step, pad) * (size_t)(height + 2 * pad);
}

// A convolution's input as the rows of a 1x1 one (im2col), for the output's rows
// [first_row, end_row): for each input channel c and tap (ky, kx) of a size x size kernel,
// `step` apart, `pad` zeros around, a plane (out_stride apart, in that order:
// (c * size + ky) * size + kx) of those rows' pixels, each the input under that tap. The
// output is ((width + 2 pad - size) / step + 1) wide, as high.
void cd_unfold(const float *in, size_t in_stride, int channels, int width, int height, int size, int step, int pad,
               int first_row, int end_row, float *out, size_t out_stride);

// darknet's [maxpool] at stride 1 (size odd): the largest value in the size x size square
// around each pixel, the part inside the plane; channels [first, end).
void cd_maxpool(const float *in, size_t stride, int width, int height, int size, int first, int end, float *out);

// The scan, from its list (cat_kernels.def), built per instruction set like the filter
// kernels (scan_*.c) and run with the build CFilterKernels has chosen (ck_isa_active).
#define CK_KERNEL(ret, name, params, args) ret name params;
#include "cat_kernels.def"
#undef CK_KERNEL

#endif
