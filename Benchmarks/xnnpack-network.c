// catctl's networks (Yolo-Fastest-1.1-xl, the cat detector; EfficientNet-Lite0, the second
// look's classifier) run by XNNPACK's operators, to time them against catctl's own kernels
// (Benchmarks/xnnpack-networks.sh). A benchmark, not part of catctl: it reads the same .cfg
// and .weights catctl installs, builds each layer as an XNNPACK operator (batch normalisation
// folded into the convolutions, as catctl does), and runs the network at the input sizes
// asked for, timing each run.
//
//   xnnpack-network CFG WEIGHTS THREADS RUNS WxH [WxH...] [--dump INPUT.f32 OUTPUT_PREFIX]
//
// With --dump: runs the first size once on INPUT.f32 (planar RGB floats, as OpenCV's blob)
// and writes each output (a YOLO head's map, planar floats; a softmax's probabilities) to
// OUTPUT_PREFIX-0.f32, -1.f32..., for xnnpack-networks.sh to hold against OpenCV's dnn.
//
// Darknet's layers these networks use: convolutional (groups, batch_normalize, leaky, ReLU6
// or linear; catctl's padding_after and weights=int8|half), shortcut, route (one or more
// layers, concatenated along channels), maxpool (stride 1: the SPP block), upsample (nearest,
// x2), avgpool (global), dropout (nothing at inference), yolo (the raw map of the layer
// before is the head) and softmax. XNNPACK 2022 has no concatenation nor
// nearest upsampling: a route's inputs are written into channel slices of one buffer (every
// operator takes channel strides), and the upsample is a loop here.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthreadpool.h>
#include <xnnpack.h>

enum kind { CONV, SHORTCUT, ROUTE, MAXPOOL, UPSAMPLE, DROPOUT, YOLO, AVGPOOL, SOFTMAX };

typedef struct {
    enum kind kind;
    int filters, size, stride, pad, groups, bn, leaky, relu6;
    int padding, padding_after;  // explicit zeros before and after (-1: darknet's pad)
    int form;                    // weights: 0 float32, 1 int8 with a scale an output, 2 float16
    int from;         // shortcut
    int routes[4], nroutes;
    // Shapes (NHWC): input and output height, width, channels.
    int ih, iw, ic, oh, ow, oc;
    float *weights, *bias;  // folded, XNNPACK's layout (OHWI per group)
    float *out;             // this layer's output (or a view into a route buffer)
    size_t out_stride;      // channels between pixels in `out`
    xnn_operator_t op, act;
} layer;

static layer layers[256];
static int nlayers;
static int net_c = 3;

static void fail(const char *what) {
    fprintf(stderr, "xnnpack-network: %s\n", what);
    exit(1);
}

static void parse_cfg(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) fail("cannot open the cfg");
    char line[512];
    layer *cur = NULL;
    int in_net = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || !*s) continue;
        if (*s == '[') {
            in_net = strncmp(s, "[net]", 5) == 0;
            if (in_net) continue;
            if (nlayers == 256) fail("too many layers");
            cur = &layers[nlayers++];
            memset(cur, 0, sizeof *cur);
            cur->groups = 1;
            cur->stride = 1;
            cur->padding = cur->padding_after = -1;
            if (!strncmp(s, "[convolutional]", 15)) cur->kind = CONV;
            else if (!strncmp(s, "[shortcut]", 10)) cur->kind = SHORTCUT;
            else if (!strncmp(s, "[route]", 7)) cur->kind = ROUTE;
            else if (!strncmp(s, "[maxpool]", 9)) cur->kind = MAXPOOL;
            else if (!strncmp(s, "[upsample]", 10)) cur->kind = UPSAMPLE;
            else if (!strncmp(s, "[dropout]", 9)) cur->kind = DROPOUT;
            else if (!strncmp(s, "[yolo]", 6)) cur->kind = YOLO;
            else if (!strncmp(s, "[avgpool]", 9)) cur->kind = AVGPOOL;
            else if (!strncmp(s, "[softmax]", 9)) cur->kind = SOFTMAX;
            else fail("a layer this network does not have");
            continue;
        }
        char key[64], value[256];
        if (sscanf(s, " %63[^= ] = %255[^\n\r]", key, value) != 2) continue;
        if (in_net) {
            if (!strcmp(key, "channels")) net_c = atoi(value);
            continue;
        }
        if (!cur) continue;
        if (!strcmp(key, "filters")) cur->filters = atoi(value);
        else if (!strcmp(key, "size")) cur->size = atoi(value);
        else if (!strcmp(key, "stride")) cur->stride = atoi(value);
        else if (!strcmp(key, "pad")) cur->pad = atoi(value);
        else if (!strcmp(key, "groups")) cur->groups = atoi(value);
        else if (!strcmp(key, "batch_normalize")) cur->bn = atoi(value);
        else if (!strcmp(key, "activation")) cur->leaky = !strncmp(value, "leaky", 5), cur->relu6 = !strncmp(value, "relu6", 5);
        else if (!strcmp(key, "padding")) cur->padding = atoi(value);
        else if (!strcmp(key, "padding_after")) cur->padding_after = atoi(value);
        else if (!strcmp(key, "weights")) cur->form = !strncmp(value, "int8", 4) ? 1 : !strncmp(value, "half", 4) ? 2 : 0;
        else if (!strcmp(key, "from")) cur->from = atoi(value);
        else if (!strcmp(key, "layers")) {
            char *p = value;
            while (*p && cur->nroutes < 4) {
                cur->routes[cur->nroutes++] = (int)strtol(p, &p, 10);
                while (*p == ',' || *p == ' ') p++;
            }
        }
    }
    fclose(f);
}

// Shapes for an input of h x w; a route's layers are absolute indices from here on.
static void shape(int h, int w) {
    int ph = h, pw = w, pc = net_c;
    for (int i = 0; i < nlayers; i++) {
        layer *l = &layers[i];
        l->ih = ph, l->iw = pw, l->ic = pc;
        switch (l->kind) {
        case CONV: {
            if (l->padding < 0) l->padding = l->pad ? l->size / 2 : 0;
            if (l->padding_after < 0) l->padding_after = l->padding;
            l->oh = (ph + l->padding + l->padding_after - l->size) / l->stride + 1;
            l->ow = (pw + l->padding + l->padding_after - l->size) / l->stride + 1;
            l->oc = l->filters;
            break;
        }
        case AVGPOOL: l->oh = 1, l->ow = 1, l->oc = pc; break;
        case SHORTCUT:
            if (l->from < 0) l->from += i;
            l->oh = ph, l->ow = pw, l->oc = pc;
            break;
        case ROUTE:
            l->oc = 0;
            for (int k = 0; k < l->nroutes; k++) {
                if (l->routes[k] < 0) l->routes[k] += i;
                layer *r = &layers[l->routes[k]];
                l->oh = r->oh, l->ow = r->ow;
                l->oc += r->oc;
            }
            break;
        case UPSAMPLE: l->oh = ph * 2, l->ow = pw * 2, l->oc = pc; break;
        default: l->oh = ph, l->ow = pw, l->oc = pc; break;  // maxpool (stride 1), dropout, yolo
        }
        ph = l->oh, pw = l->ow, pc = l->oc;
    }
}

static float half(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff), v = e == 0 ? ldexpf(m, -24) : e == 31 ? INFINITY : ldexpf(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

static void read_weights(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open the weights");
    int32_t version[3];
    if (fread(version, 4, 3, f) != 3) fail("short weights");
    if (version[0] * 10 + version[1] >= 2) fseek(f, 8, SEEK_CUR);
    else fseek(f, 4, SEEK_CUR);
    for (int i = 0; i < nlayers; i++) {
        layer *l = &layers[i];
        if (l->kind != CONV) continue;
        int n = l->filters, per = l->ic / l->groups, k = l->size;
        float *bias = malloc(n * sizeof *bias), *scale = malloc(n * sizeof *scale);
        float *mean = malloc(n * sizeof *mean), *var = malloc(n * sizeof *var);
        size_t count = (size_t)n * per * k * k;
        float *w = malloc(count * sizeof *w);
        if (fread(bias, 4, n, f) != (size_t)n) fail("short weights");
        if (l->bn) {
            if (fread(scale, 4, n, f) != (size_t)n || fread(mean, 4, n, f) != (size_t)n ||
                fread(var, 4, n, f) != (size_t)n)
                fail("short weights");
        }
        if (l->form == 1) {  // a scale an output, then int8s
            if (fread(scale, 4, n, f) != (size_t)n) fail("short weights");
            int8_t *codes = malloc(count);
            if (fread(codes, 1, count, f) != count) fail("short weights");
            for (size_t i = 0; i < count; i++) w[i] = (float)codes[i] * scale[i / (count / n)];
            free(codes);
        } else if (l->form == 2) {  // IEEE float16
            uint16_t *halves = malloc(count * 2);
            if (fread(halves, 2, count, f) != count) fail("short weights");
            for (size_t i = 0; i < count; i++) w[i] = half(halves[i]);
            free(halves);
        } else if (fread(w, 4, count, f) != count) {
            fail("short weights");
        }
        // Darknet: (x - mean) / sqrt(var + .00001) * scale + bias, folded.
        l->weights = malloc(count * sizeof(float));
        l->bias = malloc(n * sizeof(float));
        int out_per = n / l->groups;
        for (int o = 0; o < n; o++) {
            float a = l->bn ? scale[o] / sqrtf(var[o] + .00001f) : 1.f;
            l->bias[o] = l->bn ? bias[o] - mean[o] * a : bias[o];
            int g = o / out_per, og = o % out_per;
            for (int c = 0; c < per; c++)
                for (int y = 0; y < k; y++)
                    for (int x = 0; x < k; x++) {
                        // Darknet OIHW -> XNNPACK [group][out][kh][kw][in]
                        float v = w[(((size_t)o * per + c) * k + y) * k + x] * a;
                        l->weights[((((size_t)g * out_per + og) * k + y) * k + x) * per + c] = v;
                    }
        }
        free(bias), free(scale), free(mean), free(var), free(w);
    }
    fclose(f);
}

// Every layer has a buffer of its own, but a single-layer route, a dropout and a yolo layer,
// which alias the one they take; a route of several layers copies them side by side.
static float *input;
static pthreadpool_t pool;

static void build(void) {
    for (int i = 0; i < nlayers; i++) {
        layer *l = &layers[i];
        l->out_stride = l->oc;
        if (l->kind == ROUTE && l->nroutes > 1) {
            l->out = calloc((size_t)l->oh * l->ow * l->oc, sizeof(float));
        } else if (l->kind == ROUTE) {
            l->out = layers[l->routes[0]].out;  // an alias
            l->out_stride = layers[l->routes[0]].out_stride;
        } else if (l->kind == DROPOUT || l->kind == YOLO) {  // the input's map
            l->out = i ? layers[i - 1].out : input;
            l->out_stride = i ? layers[i - 1].out_stride : (size_t)net_c;
        } else {
            l->out = calloc((size_t)l->oh * l->ow * l->oc, sizeof(float));
        }
    }
    for (int i = 0; i < nlayers; i++) {
        layer *l = &layers[i];
        size_t in_stride = i ? layers[i - 1].out_stride : (size_t)net_c;
        enum xnn_status s = xnn_status_success;
        if (l->kind == CONV) {
            // Top, right, bottom, left; ReLU6 is the operator's output range.
            s = xnn_create_convolution2d_nhwc_f32(l->padding, l->padding_after, l->padding_after, l->padding, l->size,
                                                  l->size, l->stride, l->stride, 1, 1, l->groups, l->ic / l->groups,
                                                  l->oc / l->groups, in_stride, l->out_stride, l->weights, l->bias,
                                                  l->relu6 ? 0.f : -INFINITY, l->relu6 ? 6.f : INFINITY, 0, &l->op);
            if (s == xnn_status_success && l->leaky)
                s = xnn_create_leaky_relu_nc_f32(l->oc, l->out_stride, l->out_stride, 0.1f, 0, &l->act);
        } else if (l->kind == MAXPOOL) {
            int lo = (l->size - 1) / 2, hi = l->size - 1 - lo;
            s = xnn_create_max_pooling2d_nhwc_f32(lo, hi, hi, lo, l->size, l->size, 1, 1, 1, 1, l->ic, in_stride,
                                                  l->out_stride, -INFINITY, INFINITY, 0, &l->op);
        } else if (l->kind == SHORTCUT) {
            s = xnn_create_add_nd_f32(-INFINITY, INFINITY, 0, &l->op);
        } else if (l->kind == AVGPOOL) {
            s = xnn_create_global_average_pooling_nwc_f32(l->ic, in_stride, l->out_stride, -INFINITY, INFINITY, 0, &l->op);
        } else if (l->kind == SOFTMAX) {
            s = xnn_create_softmax_nc_f32(l->ic, in_stride, l->out_stride, 0, &l->op);
        }
        if (s != xnn_status_success) fail("an operator could not be made");
    }
}

static void copy_into(float *dst, size_t dst_stride, const float *src, size_t src_stride, size_t pixels,
                      size_t channels) {
    for (size_t p = 0; p < pixels; p++) memcpy(dst + p * dst_stride, src + p * src_stride, channels * sizeof(float));
}

static void run(void) {
    for (int i = 0; i < nlayers; i++) {
        layer *l = &layers[i];
        const float *in = i ? layers[i - 1].out : input;
        enum xnn_status s = xnn_status_success;
        switch (l->kind) {
        case CONV:
            s = xnn_setup_convolution2d_nhwc_f32(l->op, 1, l->ih, l->iw, in, l->out, pool);
            if (s == xnn_status_success) s = xnn_run_operator(l->op, pool);
            if (s == xnn_status_success && l->act) {
                s = xnn_setup_leaky_relu_nc_f32(l->act, (size_t)l->oh * l->ow, l->out, l->out, pool);
                if (s == xnn_status_success) s = xnn_run_operator(l->act, pool);
            }
            break;
        case MAXPOOL:
            s = xnn_setup_max_pooling2d_nhwc_f32(l->op, 1, l->ih, l->iw, in, l->out, pool);
            if (s == xnn_status_success) s = xnn_run_operator(l->op, pool);
            break;
        case SHORTCUT: {
            size_t shape[2] = {(size_t)l->oh * l->ow, (size_t)l->oc};
            s = xnn_setup_add_nd_f32(l->op, 2, shape, 2, shape, in, layers[l->from].out, l->out, pool);
            if (s == xnn_status_success) s = xnn_run_operator(l->op, pool);
            break;
        }
        case AVGPOOL:
            s = xnn_setup_global_average_pooling_nwc_f32(l->op, 1, (size_t)l->ih * l->iw, in, l->out, pool);
            if (s == xnn_status_success) s = xnn_run_operator(l->op, pool);
            break;
        case SOFTMAX:
            s = xnn_setup_softmax_nc_f32(l->op, 1, in, l->out, pool);
            if (s == xnn_status_success) s = xnn_run_operator(l->op, pool);
            break;
        case ROUTE:
            if (l->nroutes > 1) {
                size_t at = 0;
                for (int k = 0; k < l->nroutes; k++) {
                    layer *r = &layers[l->routes[k]];
                    copy_into(l->out + at, l->out_stride, r->out, r->out_stride, (size_t)l->oh * l->ow, r->oc);
                    at += r->oc;
                }
            }
            break;
        case UPSAMPLE: {
            size_t is = i ? layers[i - 1].out_stride : (size_t)net_c;
            for (int y = 0; y < l->oh; y++)
                for (int x = 0; x < l->ow; x++)
                    memcpy(l->out + ((size_t)y * l->ow + x) * l->oc, in + ((size_t)(y / 2) * l->iw + x / 2) * is,
                           l->oc * sizeof(float));
            break;
        }
        default: break;
        }
        if (s != xnn_status_success) fail("an operator failed");
    }
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 6) fail("usage: xnnpack-network CFG WEIGHTS THREADS RUNS WxH [WxH...] [--dump IN OUT]");
    int threads = atoi(argv[3]), runs = atoi(argv[4]);
    const char *dump_in = NULL, *dump_out = NULL;
    int sizes[8][2], nsizes = 0;
    for (int a = 5; a < argc; a++) {
        if (!strcmp(argv[a], "--dump") && a + 2 < argc) {
            dump_in = argv[a + 1], dump_out = argv[a + 2];
            a += 2;
        } else if (nsizes < 8 && sscanf(argv[a], "%dx%d", &sizes[nsizes][0], &sizes[nsizes][1]) == 2) {
            nsizes++;
        }
    }
    if (xnn_initialize(NULL) != xnn_status_success) fail("xnn_initialize");
    pool = threads > 1 ? pthreadpool_create(threads) : NULL;
    parse_cfg(argv[1]);
    double total = 0;
    for (int k = 0; k < nsizes; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        shape(h, w);
        static int weights_read;
        if (!weights_read) read_weights(argv[2]), weights_read = 1;
        input = calloc((size_t)h * w * net_c, sizeof(float));
        for (size_t i = 0; i < (size_t)h * w * net_c; i++) input[i] = (float)((i * 2654435761u) % 1000) / 1000.f;
        if (dump_in && k == 0) {
            FILE *f = fopen(dump_in, "rb");
            float *planar = malloc((size_t)h * w * net_c * sizeof(float));
            if (!f || fread(planar, sizeof(float), (size_t)h * w * net_c, f) != (size_t)h * w * net_c)
                fail("cannot read the input blob");
            fclose(f);
            for (int c = 0; c < net_c; c++)
                for (size_t p = 0; p < (size_t)h * w; p++) input[p * net_c + c] = planar[c * (size_t)h * w + p];
            free(planar);
        }
        build();
        run();  // the first run (page faults, packing) is not timed
        double times[64];
        int n = runs < 64 ? runs : 64;
        for (int r = 0; r < n; r++) {
            double t = now_ms();
            run();
            times[r] = now_ms() - t;
        }
        qsort(times, n, sizeof times[0], compare);
        printf("%dx%d: median %.2f ms over %d runs, %d thread%s\n", w, h, times[n / 2], n, threads,
               threads > 1 ? "s" : "");
        total += times[n / 2];
        if (dump_in && k == 0) {
            int head = 0;
            for (int i = 0; i < nlayers; i++) {
                if (layers[i].kind != YOLO && layers[i].kind != SOFTMAX) continue;
                layer *l = &layers[layers[i].kind == YOLO ? i - 1 : i];
                char name[512];
                snprintf(name, sizeof name, "%s-%d.f32", dump_out, head++);
                FILE *f = fopen(name, "wb");
                for (int c = 0; c < l->oc; c++)
                    for (size_t p = 0; p < (size_t)l->oh * l->ow; p++) fwrite(&l->out[p * l->out_stride + c], 4, 1, f);
                fclose(f);
            }
        }
        for (int i = 0; i < nlayers; i++) {
            layer *l = &layers[i];
            if (l->op) xnn_delete_operator(l->op);
            if (l->act) xnn_delete_operator(l->act);
            l->op = l->act = NULL;
            if ((l->kind == CONV || l->kind == MAXPOOL || l->kind == SHORTCUT || l->kind == UPSAMPLE ||
                 l->kind == AVGPOOL || l->kind == SOFTMAX || (l->kind == ROUTE && l->nroutes > 1)))
                free(l->out);
        }
        free(input);
    }
    printf("all sizes: %.2f ms\n", total);
    if (pool) pthreadpool_destroy(pool);
    return 0;
}
