// cat_xnnpack.h: catctl's network layers as XNNPACK operators, XNNPACK loaded on first use.
#define _GNU_SOURCE  // RTLD_NOLOAD
#include "cat_xnnpack.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cshim_support.h"

#if __has_include(<xnnpack.h>) && __has_include(<pthreadpool.h>)
#include <pthreadpool.h>
#include <xnnpack.h>

// The functions called, through the table the loader fills (CShimSupport's cs_library).
#define XP_XNNPACK_FUNCTIONS(X)                                                                                        \
    X(xnn_initialize)                                                                                                  \
    X(xnn_create_convolution2d_nhwc_f32)                                                                               \
    X(xnn_setup_convolution2d_nhwc_f32)                                                                                \
    X(xnn_create_leaky_relu_nc_f32)                                                                                    \
    X(xnn_setup_leaky_relu_nc_f32)                                                                                     \
    X(xnn_create_add_nd_f32)                                                                                           \
    X(xnn_setup_add_nd_f32)                                                                                            \
    X(xnn_create_max_pooling2d_nhwc_f32)                                                                               \
    X(xnn_setup_max_pooling2d_nhwc_f32)                                                                                \
    X(xnn_create_resize_bilinear2d_nhwc_f32)                                                                           \
    X(xnn_setup_resize_bilinear2d_nhwc_f32)                                                                            \
    X(xnn_create_global_average_pooling_nwc_f32)                                                                       \
    X(xnn_setup_global_average_pooling_nwc_f32)                                                                        \
    X(xnn_create_softmax_nc_f32)                                                                                       \
    X(xnn_setup_softmax_nc_f32)                                                                                        \
    X(xnn_create_sigmoid_nc_f32)                                                                                       \
    X(xnn_setup_sigmoid_nc_f32)                                                                                        \
    X(xnn_create_copy_nc_x32)                                                                                          \
    X(xnn_setup_copy_nc_x32)                                                                                           \
    X(xnn_run_operator)                                                                                                \
    X(xnn_delete_operator)
#define XP_POOL_FUNCTIONS(X) X(pthreadpool_create) X(pthreadpool_destroy)

static struct {
    XP_XNNPACK_FUNCTIONS(CS_LIBRARY_SLOT)
} xp_xnn;
static struct {
    XP_POOL_FUNCTIONS(CS_LIBRARY_SLOT)
} xp_pool;
static const char *const xp_xnn_names[] = {"libXNNPACK.so.0", NULL};
static const char *const xp_xnn_symbols[] = {XP_XNNPACK_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static const char *const xp_pool_names[] = {"libpthreadpool.so.0", NULL};
static const char *const xp_pool_symbols[] = {XP_POOL_FUNCTIONS(CS_LIBRARY_NAME) NULL};
static cs_library xp_libraries[] = {
    {xp_pool_names, xp_pool_symbols, (void **)&xp_pool, 0, {0}},
    {xp_xnn_names, xp_xnn_symbols, (void **)&xp_xnn, 0, {0}},
};

// Functions of XNNPACK's later APIs, whose create and setup functions take other arguments
// under the same names: a library that has one is not the API built against.
static const char *const xp_later_api[] = {"xnn_create_weights_cache", "xnn_reshape_convolution2d_nhwc_f32",
                                           "xnn_create_code_cache", NULL};


static int xp_state;  // 0 not tried, 1 usable, -1 not
static char xp_reason[256];
static pthread_once_t xp_once = PTHREAD_ONCE_INIT;

// A 3 x 3 convolution of a 2-channel 4 x 4 picture, padded by 1, to 2 outputs, against the
// same sums made here: XNNPACK gives them within float rounding, or its calls are not the
// ones this was built for.
static int xp_self_test(void) {
    float input[4 * 4 * 2], weights[2 * 3 * 3 * 2], bias[2] = {0.5f, -0.25f}, out[4 * 4 * 2], expected[4 * 4 * 2];
    for (int i = 0; i < 32; i++) input[i] = (float)((i * 7) % 11) - 5;
    for (int i = 0; i < 36; i++) weights[i] = (float)((i * 5) % 9) / 4 - 1;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            for (int o = 0; o < 2; o++) {
                float sum = bias[o];
                for (int ky = 0; ky < 3; ky++)
                    for (int kx = 0; kx < 3; kx++)
                        for (int c = 0; c < 2; c++) {
                            int sy = y + ky - 1, sx = x + kx - 1;
                            if (sy < 0 || sy > 3 || sx < 0 || sx > 3) continue;
                            sum += input[(sy * 4 + sx) * 2 + c] * weights[((o * 3 + ky) * 3 + kx) * 2 + c];
                        }
                expected[(y * 4 + x) * 2 + o] = sum;
            }
    xnn_operator_t op = NULL;
    if (xp_xnn.xnn_create_convolution2d_nhwc_f32(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 2, 2, 2, 2, weights, bias, -INFINITY,
                                                 INFINITY, 0, &op) != xnn_status_success)
        return 0;
    int ok = xp_xnn.xnn_setup_convolution2d_nhwc_f32(op, 1, 4, 4, input, out, NULL) == xnn_status_success &&
             xp_xnn.xnn_run_operator(op, NULL) == xnn_status_success;
    xp_xnn.xnn_delete_operator(op);
    for (int i = 0; ok && i < 32; i++) ok = fabsf(out[i] - expected[i]) <= 1e-4f;
    return ok;
}

static void xp_load(void) {
    xp_state = -1;
    if (!cs_libraries_load(xp_libraries, sizeof xp_libraries / sizeof xp_libraries[0], xp_reason,
                           sizeof xp_reason))
        return;
    void *handle = dlopen("libXNNPACK.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    for (const char *const *name = xp_later_api; handle && *name; name++) {
        if (dlsym(handle, *name)) {
            cs_format(xp_reason, sizeof xp_reason, "libXNNPACK.so.0 is a later API than catctl's (it has %s)", *name);
            dlclose(handle);
            return;
        }
    }
    if (handle) dlclose(handle);
    if (xp_xnn.xnn_initialize(NULL) != xnn_status_success) {
        cs_format(xp_reason, sizeof xp_reason, "XNNPACK does not run on this processor");
        return;
    }
    if (!xp_self_test()) {
        cs_format(xp_reason, sizeof xp_reason, "libXNNPACK.so.0 failed its self-test (not the API catctl expects)");
        return;
    }
    xp_state = 1;
}

// Every entry runs in a quiet scope (cshim_support.h): Debian's XNNPACK has its log
// messages compiled out, but another build's xnn_log_* would print on fd 2 by itself.

int xp_available(char *why, size_t size) {
    CS_QUIET_SCOPE;
    pthread_once(&xp_once, xp_load);
    if (xp_state != 1) cs_format(why, size, "%s", xp_reason);
    return xp_state == 1;
}

typedef struct {
    xp_layer layer;  // its own copy of `sources`; weights and bias in `kernel` and `bias`
    int sources[64];
    int channels;   // its map's
    float *kernel;  // a convolution's, in XNNPACK's order [group][output][ky][kx][input]; a split
                    // one's, a block a source: [output][ky][kx][that source's channels]
    float *bias;
    int split;     // a full convolution of the route before it, which only it reads, to fewer channels
                   // than the route's: a convolution a map of the route, summed (the route's map is
                   // never made: 52 MB at the mask network's last stage, against 26 for the sums)
    int deferred;  // such a route
} xp_node;

// Maps freed in a run, kept for the run's next maps that fit: a run touches the same few
// buffers' pages instead of new ones a layer.
typedef struct {
    float *values;
    size_t capacity;
} xp_buffer;

// The operators are made for each run and deleted after their layer: XNNPACK's convolutions
// keep an indirection buffer (a pointer per tap and output pixel) for their last input's
// size, 82 MB for the mask's network at 320 x 320, and packing the weights again costs a
// few milliseconds a run.
struct xp_network {
    pthread_mutex_t lock;
    pthreadpool_t pool;
    int count, input_channels;
    xp_node *nodes;
    xp_buffer *spare;
    int spares;
};

// The smallest spare buffer of at least `floats`, or a new one (NULL when out of memory).
// Buffers come from malloc: glibc maps those of 128 KiB and more on their own and unmaps
// them when freed.
static float *xp_take(xp_network *net, size_t floats, size_t *capacity) {
    int best = -1;
    for (int i = 0; i < net->spares; i++)
        if (net->spare[i].capacity >= floats && (best < 0 || net->spare[i].capacity < net->spare[best].capacity))
            best = i;
    if (best < 0) {
        // None fits: the spares too small for this map go (a small map is cheap to make
        // again), so what the pool holds stays near the largest set of maps alive at once.
        for (int i = 0; i < net->spares;)
            if (net->spare[i].capacity < floats) {
                free(net->spare[i].values);
                net->spare[i] = net->spare[--net->spares];
            } else {
                i++;
            }
        *capacity = floats;
        return malloc(sizeof(float) * floats + 1);
    }
    float *values = net->spare[best].values;
    *capacity = net->spare[best].capacity;
    net->spare[best] = net->spare[--net->spares];
    return values;
}

static void xp_give(xp_network *net, float *values, size_t capacity) {
    if (!values) return;
    if (net->spares == net->count + 2) {  // never more spares than maps: free the smallest
        int least = 0;
        for (int i = 1; i < net->spares; i++)
            if (net->spare[i].capacity < net->spare[least].capacity) least = i;
        free(net->spare[least].values);
        net->spare[least] = net->spare[--net->spares];
    }
    net->spare[net->spares++] = (xp_buffer){values, capacity};
}

void xp_destroy(xp_network *network) {
    CS_QUIET_SCOPE;
    if (!network) return;
    for (int i = 0; i < network->count; i++) {
        free(network->nodes[i].kernel);
        free(network->nodes[i].bias);
    }
    for (int i = 0; i < network->spares; i++) free(network->spare[i].values);
    if (network->pool) xp_pool.pthreadpool_destroy(network->pool);
    pthread_mutex_destroy(&network->lock);
    free(network->spare);
    free(network->nodes);
    free(network);
}

// A convolution of layer `l` over `in_channels` channels (its kernel in XNNPACK's order).
static enum xnn_status xp_convolution(const xp_layer *l, size_t in_channels, size_t in_stride, const float *kernel,
                                      const float *bias, float low, float high, xnn_operator_t *op) {
    return xp_xnn.xnn_create_convolution2d_nhwc_f32(
        (uint32_t)l->pad, (uint32_t)l->pad_after, (uint32_t)l->pad_after, (uint32_t)l->pad, (uint32_t)l->size,
        (uint32_t)l->size, (uint32_t)l->step, (uint32_t)l->step, (uint32_t)l->dilation, (uint32_t)l->dilation,
        (uint32_t)l->groups, in_channels / (size_t)l->groups, (size_t)(l->outputs / l->groups), in_stride,
        (size_t)l->outputs, kernel, bias, low, high, 0, op);
}

static float xp_low(int activation) { return activation == 2 || activation == 3 ? 0.0f : -INFINITY; }
static float xp_high(int activation) { return activation == 2 ? 6.0f : INFINITY; }

xp_network *xp_create(const xp_layer *layers, int count, int input_channels, const int *last_use, int threads,
                      char *why, size_t size) {
    CS_QUIET_SCOPE;
    if (!xp_available(why, size)) return NULL;
    xp_network *net = calloc(1, sizeof *net);
    size_t slots = (size_t)(count > 0 ? count : 1);
    if (!net || !(net->nodes = calloc(slots, sizeof *net->nodes)) ||
        !(net->spare = calloc(slots + 2, sizeof *net->spare))) {
        if (net) free(net->nodes);
        free(net);
        cs_format(why, size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&net->lock, NULL);
    net->count = count;
    net->input_channels = input_channels;
    net->pool = threads > 1 ? xp_pool.pthreadpool_create((size_t)threads) : NULL;
    int channels = input_channels;
    for (int i = 0; i < count; i++) {
        const xp_layer *l = &layers[i];
        xp_node *n = &net->nodes[i];
        n->layer = *l;
        n->layer.weights = n->layer.bias = NULL;
        if (l->source_count < 0 || l->source_count > 64) {
            cs_format(why, size, "layer %d: too many sources", i);
            xp_destroy(net);
            return NULL;
        }
        if (l->source_count > 0) memcpy(n->sources, l->sources, sizeof(int) * (size_t)l->source_count);
        n->layer.sources = n->sources;
        enum xnn_status s = xnn_status_success;
        if (l->kind == XP_CONVOLUTION) {
            const xp_node *before = i ? &net->nodes[i - 1] : NULL;
            n->split = before && before->deferred;
            size_t per = (size_t)(l->inputs / l->groups), taps = (size_t)l->size * (size_t)l->size;
            size_t outputs = (size_t)l->outputs;
            n->kernel = malloc(sizeof(float) * outputs * per * taps + 1);
            n->bias = malloc(sizeof(float) * outputs + 1);
            if (!n->kernel || !n->bias) {
                s = xnn_status_out_of_memory;
            } else {
                memcpy(n->bias, l->bias, sizeof(float) * outputs);
                // darknet's [output][input / groups][ky][kx], to XNNPACK's: whole, or a block for
                // each source map of the route (its channels [first, first + c)).
                size_t first = 0, at = 0;
                for (int k = 0; k < (n->split ? before->layer.source_count : 1); k++) {
                    size_t c = n->split ? (size_t)net->nodes[before->sources[k]].channels : per;
                    for (size_t o = 0; o < outputs; o++)
                        for (size_t t = 0; t < taps; t++)
                            for (size_t j = 0; j < c; j++)
                                n->kernel[at + (o * taps + t) * c + j] = l->weights[(o * per + first + j) * taps + t];
                    at += outputs * taps * c;
                    first += c;
                }
                // Made once here to refuse what XNNPACK cannot make, before any run.
                xnn_operator_t op = NULL;
                s = xp_convolution(l, (size_t)l->inputs, (size_t)l->inputs, n->kernel, n->bias,
                                   xp_low(l->activation), xp_high(l->activation), &op);
                if (op) xp_xnn.xnn_delete_operator(op);
            }
            channels = l->outputs;
        } else if (l->kind == XP_ROUTE) {
            channels = 0;
            for (int k = 0; k < l->source_count; k++) channels += net->nodes[l->sources[k]].channels;
            // Split when the route's map would be larger than the spare map the sums take.
            n->deferred = l->source_count > 1 && i + 1 < count && layers[i + 1].kind == XP_CONVOLUTION &&
                          layers[i + 1].groups == 1 && last_use[i] == i + 1 && !l->is_output &&
                          channels > layers[i + 1].outputs;
        } else if (l->kind < XP_CONVOLUTION || l->kind > XP_SAME) {
            s = xnn_status_invalid_parameter;
        }
        if (s != xnn_status_success) {
            cs_format(why, size, "XNNPACK cannot make layer %d (status %d)", i, (int)s);
            xp_destroy(net);
            return NULL;
        }
        n->channels = channels;
    }
    return net;
}

// Runs a made operator once and deletes it: XNNPACK's status.
#define XP_ONCE(made, setup)                                                                                           \
    do {                                                                                                               \
        xnn_operator_t op = NULL;                                                                                      \
        s = (made);                                                                                                    \
        if (s == xnn_status_success) s = (setup);                                                                      \
        if (s == xnn_status_success) s = xp_xnn.xnn_run_operator(op, pool);                                            \
        if (op) xp_xnn.xnn_delete_operator(op);                                                                        \
    } while (0)

int xp_run(xp_network *net, const float *input, size_t in_stride, int height, int width, const int *shapes,
           const int *last_use, float *const *outputs, const size_t *out_strides, char *why, size_t size) {
    CS_QUIET_SCOPE;
    int count = net->count, ok = 1, output = 0;
    size_t slots = (size_t)(count > 0 ? count : 1);
    float **maps = calloc(slots, sizeof *maps);
    size_t *capacity = calloc(slots, sizeof *capacity);
    int *last = malloc(sizeof(int) * slots);
    size_t pixels = (size_t)height * (size_t)width, c0 = (size_t)net->input_channels, in_capacity = 0;
    pthread_mutex_lock(&net->lock);
    float *in = maps && capacity && last ? xp_take(net, pixels * c0, &in_capacity) : NULL;
    if (!in) {
        pthread_mutex_unlock(&net->lock);
        free(maps), free(capacity), free(last);
        cs_format(why, size, "out of memory");
        return 0;
    }
    for (size_t c = 0; c < c0; c++)
        for (size_t p = 0; p < pixels; p++) in[p * c0 + c] = input[c * in_stride + p];
    // A deferred route's maps live until the convolution that reads them.
    memcpy(last, last_use, sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++)
        if (net->nodes[i].deferred)
            for (int k = 0; k < net->nodes[i].layer.source_count; k++)
                if (last[net->nodes[i].sources[k]] < i + 1) last[net->nodes[i].sources[k]] = i + 1;
    pthreadpool_t pool = net->pool;
    for (int i = 0; i < count && ok; i++) {
        xp_node *n = &net->nodes[i];
        const xp_layer *l = &n->layer;
        const float *from = i ? maps[i - 1] : in;
        size_t ih = i ? (size_t)shapes[3 * (i - 1) + 1] : (size_t)height;
        size_t iw = i ? (size_t)shapes[3 * (i - 1) + 2] : (size_t)width;
        size_t ic = i ? (size_t)shapes[3 * (i - 1)] : c0;
        size_t oc = (size_t)shapes[3 * i], oh = (size_t)shapes[3 * i + 1], ow = (size_t)shapes[3 * i + 2];
        enum xnn_status s = xnn_status_success;
        if (n->deferred) continue;
        if (l->kind == XP_SAME) {
            maps[i] = maps[i - 1];
        } else if (!(maps[i] = xp_take(net, oc * oh * ow, &capacity[i]))) {
            cs_format(why, size, "out of memory");
            ok = 0;
            break;
        }
        float *to = maps[i];
        float low = xp_low(l->activation), high = xp_high(l->activation);
        switch (l->kind) {
        case XP_CONVOLUTION:
            if (!n->split) {
                XP_ONCE(xp_convolution(l, ic, ic, n->kernel, n->bias, low, high, &op),
                        xp_xnn.xnn_setup_convolution2d_nhwc_f32(op, 1, ih, iw, from, to, pool));
            } else {
                // Each source map of the route before through its block of the kernel, summed:
                // the first into `to` (with the bias), each next into a spare map added to it,
                // the activation's bounds on the last sum.
                const xp_node *route = &net->nodes[i - 1];
                size_t at = 0, spare_capacity = 0;
                float *part = NULL;
                for (int k = 0; k < route->layer.source_count && s == xnn_status_success; k++) {
                    int j = route->sources[k];
                    size_t c = (size_t)shapes[3 * j], rh = (size_t)shapes[3 * j + 1], rw = (size_t)shapes[3 * j + 2];
                    if (k == 0) {
                        XP_ONCE(xp_convolution(l, c, c, n->kernel + at, n->bias, -INFINITY, INFINITY, &op),
                                xp_xnn.xnn_setup_convolution2d_nhwc_f32(op, 1, rh, rw, maps[j], to, pool));
                    } else {
                        if (!part && !(part = xp_take(net, oc * oh * ow, &spare_capacity))) {
                            s = xnn_status_out_of_memory;
                            break;
                        }
                        XP_ONCE(xp_convolution(l, c, c, n->kernel + at, NULL, -INFINITY, INFINITY, &op),
                                xp_xnn.xnn_setup_convolution2d_nhwc_f32(op, 1, rh, rw, maps[j], part, pool));
                        int lastSum = k == route->layer.source_count - 1;
                        size_t shape[2] = {oh * ow, oc};
                        if (s == xnn_status_success)
                            XP_ONCE(xp_xnn.xnn_create_add_nd_f32(lastSum ? low : -INFINITY,
                                                                 lastSum ? high : INFINITY, 0, &op),
                                    xp_xnn.xnn_setup_add_nd_f32(op, 2, shape, 2, shape, to, part, to, pool));
                    }
                    at += (size_t)l->outputs * (size_t)l->size * (size_t)l->size * c;
                }
                xp_give(net, part, spare_capacity);
            }
            if (s == xnn_status_success && l->activation == 1)
                XP_ONCE(xp_xnn.xnn_create_leaky_relu_nc_f32(oc, oc, oc, 0.1f, 0, &op),
                        xp_xnn.xnn_setup_leaky_relu_nc_f32(op, oh * ow, to, to, pool));
            break;
        case XP_SHORTCUT: {
            size_t shape[2] = {oh * ow, oc};
            XP_ONCE(xp_xnn.xnn_create_add_nd_f32(-INFINITY, INFINITY, 0, &op),
                    xp_xnn.xnn_setup_add_nd_f32(op, 2, shape, 2, shape, from, maps[n->sources[0]], to, pool));
            break;
        }
        case XP_MAXPOOL:
            if (l->step == 2)  // ceil mode: TensorFlow's "same" padding, the padding never the largest
                XP_ONCE(xp_xnn.xnn_create_max_pooling2d_nhwc_f32(0, 0, 0, 0, 2, 2, 2, 2, 1, 1, oc, oc, oc, -INFINITY,
                                                                 INFINITY, XNN_FLAG_TENSORFLOW_SAME_PADDING, &op),
                        xp_xnn.xnn_setup_max_pooling2d_nhwc_f32(op, 1, ih, iw, from, to, pool));
            else {
                uint32_t r = (uint32_t)(l->size / 2), k = (uint32_t)l->size;
                XP_ONCE(xp_xnn.xnn_create_max_pooling2d_nhwc_f32(r, r, r, r, k, k, 1, 1, 1, 1, oc, oc, oc, -INFINITY,
                                                                 INFINITY, 0, &op),
                        xp_xnn.xnn_setup_max_pooling2d_nhwc_f32(op, 1, ih, iw, from, to, pool));
            }
            break;
        case XP_RESIZE:
            XP_ONCE(xp_xnn.xnn_create_resize_bilinear2d_nhwc_f32(oc, oc, oc, 0, &op),
                    xp_xnn.xnn_setup_resize_bilinear2d_nhwc_f32(op, 1, ih, iw, oh, ow, from, to, pool));
            break;
        case XP_AVERAGE:
            XP_ONCE(xp_xnn.xnn_create_global_average_pooling_nwc_f32(oc, oc, oc, -INFINITY, INFINITY, 0, &op),
                    xp_xnn.xnn_setup_global_average_pooling_nwc_f32(op, 1, ih * iw, from, to, pool));
            break;
        case XP_SOFTMAX:
            XP_ONCE(xp_xnn.xnn_create_softmax_nc_f32(oc, oc, oc, 0, &op),
                    xp_xnn.xnn_setup_softmax_nc_f32(op, oh * ow, from, to, pool));
            break;
        case XP_LOGISTIC:
            XP_ONCE(xp_xnn.xnn_create_sigmoid_nc_f32(oc, oc, oc, 0, &op),
                    xp_xnn.xnn_setup_sigmoid_nc_f32(op, oh * ow, from, to, pool));
            break;
        case XP_ROUTE: {
            size_t at = 0;
            for (int k = 0; k < l->source_count && s == xnn_status_success; k++) {
                int j = n->sources[k];
                size_t c = (size_t)shapes[3 * j];
                XP_ONCE(xp_xnn.xnn_create_copy_nc_x32(c, c, oc, 0, &op),
                        xp_xnn.xnn_setup_copy_nc_x32(op, oh * ow, maps[j], to + at, pool));
                at += c;
            }
            break;
        }
        case XP_UPSAMPLE:
            for (size_t y = 0; y < oh; y++)
                for (size_t x = 0; x < ow; x++)
                    memcpy(to + (y * ow + x) * oc, from + ((y / 2) * iw + x / 2) * ic, sizeof(float) * oc);
            break;
        default: break;
        }
        if (s != xnn_status_success) {
            cs_format(why, size, "XNNPACK failed at layer %d (status %d)", i, (int)s);
            ok = 0;
        }
        if (ok && l->is_output) {
            float *planes = outputs[output];
            size_t stride = out_strides[output++];
            for (size_t c = 0; c < oc; c++)
                for (size_t p = 0; p < oh * ow; p++) planes[c * stride + p] = to[p * oc + c];
        }
        // Maps no later layer reads (a layer that hands on the one before owns nothing).
        for (int j = 0; j <= i; j++)
            if (maps[j] && last[j] <= i && net->nodes[j].layer.kind != XP_SAME) {
                for (int k = j + 1; k <= i; k++)
                    if (maps[k] == maps[j]) maps[k] = NULL;
                xp_give(net, maps[j], capacity[j]);
                maps[j] = NULL;
            }
    }
    for (int j = 0; j < count; j++)  // what a failed run leaves
        if (maps[j] && net->nodes[j].layer.kind != XP_SAME) xp_give(net, maps[j], capacity[j]);
    xp_give(net, in, in_capacity);
    // The spare maps go back at the end of a run: a batch or the live editor would hold
    // some 100 MB of them between pictures (a run's own reuse is what saves its page faults).
    for (int i = 0; i < net->spares; i++) free(net->spare[i].values);
    net->spares = 0;
    pthread_mutex_unlock(&net->lock);
    free(maps), free(capacity), free(last);
    return ok;
}

#else  // built without XNNPACK's headers (macOS, a system without libxnnpack-dev)

int xp_available(char *why, size_t size) {
    cs_format(why, size, "catctl was built without XNNPACK (libxnnpack-dev)");
    return 0;
}
xp_network *xp_create(const xp_layer *layers, int count, int input_channels, const int *last_use, int threads,
                      char *why, size_t size) {
    (void)layers, (void)count, (void)input_channels, (void)last_use, (void)threads;
    xp_available(why, size);
    return NULL;
}
int xp_run(xp_network *network, const float *input, size_t in_stride, int height, int width, const int *shapes,
           const int *last_use, float *const *outputs, const size_t *out_strides, char *why, size_t size) {
    (void)network, (void)input, (void)in_stride, (void)height, (void)width, (void)shapes, (void)last_use,
        (void)outputs, (void)out_strides;
    xp_available(why, size);
    return 0;
}
void xp_destroy(xp_network *network) { (void)network; }

#endif
