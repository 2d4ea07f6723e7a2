#ifndef CAT_XNNPACK_H
#define CAT_XNNPACK_H
#include <stddef.h>

// catctl's networks (CatModels/Darknet.swift's layers) run by XNNPACK's operators
// (libXNNPACK.so.0, Debian's libxnnpack0: Google's operator library under TensorFlow Lite
// and PyTorch Mobile, with AVX-512, AVX2 and NEON kernels), loaded on first use (dlopen).
// XNNPACK's C API changed with its versions under one file name: the library is taken only
// when it is the API this was built against (Debian 12's, February 2022: operators set up
// with their input's size, no weights cache) and a small convolution gives known values.
// Elsewhere (macOS, other versions) xp_available says why and catctl's own kernels run.

// What each layer is (Darknet.Layer).
enum {
    XP_CONVOLUTION = 1,  // inputs, outputs, size, step, dilation, pad, pad_after, groups, activation, weights, bias
    XP_SHORTCUT,         // sources[0]: the map added to the one before
    XP_ROUTE,            // sources: the maps put side by side along the channels
    XP_MAXPOOL,          // size, step (1: odd size; 2: size 2, ceil mode)
    XP_UPSAMPLE,         // nearest, x 2
    XP_RESIZE,           // bilinear, half-pixel, to the size the run gives
    XP_AVERAGE,          // global average
    XP_SOFTMAX,          // over the channels of a 1 x 1 map
    XP_LOGISTIC,         // 1 / (1 + e^-x)
    XP_SAME,             // the map before, unchanged (dropout, yolo)
};

typedef struct xp_layer {
    int kind;
    int inputs, outputs, size, step, dilation, pad, pad_after, groups;
    int activation;        // 0 linear, 1 leaky (0.1), 2 ReLU6, 3 ReLU
    const float *weights;  // [output][input / groups][ky][kx], float32; read only while creating
    const float *bias;
    const int *sources;
    int source_count;
    int is_output;  // xp_run gives this layer's map
} xp_layer;

typedef struct xp_network xp_network;

// 1 when XNNPACK can run networks here (loaded, the API expected, its self-test passed), else
// 0 with why in why[0..size) (why may be NULL). Loads once; thread-safe.
int xp_available(char *why, size_t size);

// A network of `count` layers, run on `threads` threads; NULL with why when XNNPACK cannot
// make a layer. `last_use`: as for xp_run (a route only the convolution after it reads is
// never made: that convolution runs over its maps one by one). Reads `layers` and their
// weights only here (it keeps copies in XNNPACK's order).
xp_network *xp_create(const xp_layer *layers, int count, int input_channels, const int *last_use, int threads,
                      char *why, size_t size);

// Runs the network on `input` (its channels' planes of height x width, `in_stride` floats
// apart). `shapes`: each layer's output (channels, height, width: 3 ints a layer) for this
// input; `last_use`: the last layer reading each layer's map (its own index when none does),
// a map being freed after it. Each output layer's map is written, in order, as planes
// `out_strides[k]` apart into `outputs[k]`. 1, or 0 with why. One run at a time per network
// (a lock); any number of networks at once.
int xp_run(xp_network *network, const float *input, size_t in_stride, int height, int width, const int *shapes,
           const int *last_use, float *const *outputs, const size_t *out_strides, char *why, size_t size);

void xp_destroy(xp_network *network);

#endif
