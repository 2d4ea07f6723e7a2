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


// The scan, from its list (cat_kernels.def), built per instruction set like the filter
// kernels (scan_*.c) and run with the build in use (CKernelDispatch's ck_isa_active).
#define CK_KERNEL(ret, name, params, args) ret name params;
#include "cat_kernels.def"
#undef CK_KERNEL

#endif
