// An AV1 decoder plugin for libheif over dav1d, written for catctl.
//
// Why our own: libheif 1.15's dav1d plugin lets dav1d allocate frames up to 32768x32768
// whatever the file declares or the pixel limit says, leaves dav1d's default logger printing
// on stderr, and its aom plugin checks no size at all; decoding options, where catctl asked
// for aom, do not reach grid tiles or alpha planes. Here, as in hevc_decoder.c:
// - the data libheif pushes must be what the pre-scan predicted for an item it checked
//   (heif_expect.h), else it is refused before dav1d sees a byte;
// - dav1d's own frame_size_limit is the item's bound (twice its declared size and a
//   superblock, as the scan's rule for a sequence header; the pixel limit for a layered
//   image): dav1d refuses a larger frame header before it allocates;
// - the picture returned must be at least the declared size (an alpha plane smaller than
//   its image was read past its end by libheif's conversion);
// - dav1d's log goes nowhere.
// The picture is returned as planar YCbCr (or monochrome) with the sequence header's colour
// description as nclx, as libheif's own plugin does.
#include "av1_decoder.h"
#include "heif_expect.h"
#include "heif_libraries.h"
#include "heif_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// As for HEVC: one thread for small data (a tile: libheif decodes tiles side by side).
enum { CH_AV1_THREADED_BYTES = 256 * 1024, CH_AV1_MAX_THREADS = 8, CH_AV1_MARGIN = 128 };

typedef struct ch_av1 {
    Dav1dContext *ctx;
    Dav1dData data;
    int threads;
    ch_expect expect;
} ch_av1;

static _Thread_local char ch_av1_why[200];

static const char *ch_av1_name(void) { return "dav1d AV1 decoder (catctl, bounded)"; }

static int ch_av1_supports(enum heif_compression_format format) {
    return format == heif_compression_AV1 ? 200 : 0;  // libheif's dav1d plugin has 150, aom 100
}

static struct heif_error ch_av1_error(enum heif_error_code code, enum heif_suberror_code sub, const char *message) {
    struct heif_error e = {code, sub, message};
    return e;
}

static const struct heif_error ch_av1_ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static void ch_av1_quiet(void *cookie, const char *format, va_list ap) {
    (void)cookie;
    (void)format;
    (void)ap;
}

static struct heif_error ch_av1_new(void **out, int threads) {
    ch_av1 *d = calloc(1, sizeof *d);
    if (!d) return ch_av1_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
    d->threads = threads;
    *out = d;
    return ch_av1_ok;
}

static struct heif_error ch_av1_new_single(void **out) { return ch_av1_new(out, 1); }

static struct heif_error ch_av1_new_threaded(void **out) { return ch_av1_new(out, cs_cores(CH_AV1_MAX_THREADS)); }

static void ch_av1_free(void *decoder) {
    ch_av1 *d = decoder;
    if (!d) return;
    // The reference, not the size: data of 0 bytes still holds one (the fuzzer found that leak).
    if (d->data.ref) DAV1D(dav1d_data_unref)(&d->data);
    if (d->ctx) DAV1D(dav1d_close)(&d->ctx);
    free(d);
}

// The largest frame the item may have, in pixels: dav1d's frame_size_limit.
static uint64_t ch_av1_bound(const ch_expect *x) {
    uint64_t bound = x->max_pixels;
    if (x->width != UINT32_MAX) {
        uint64_t w = 2 * (uint64_t)x->cap_width + CH_AV1_MARGIN, h = 2 * (uint64_t)x->cap_height + CH_AV1_MARGIN;
        if (w * h < bound) bound = w * h;
    }
    return bound;
}

static struct heif_error ch_av1_push(void *decoder, const void *data, size_t size) {
    ch_av1 *d = decoder;
    if (d->ctx || d->data.ref)
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "data pushed twice");
    if (size == 0) return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "no AV1 data");
    if (!ch_expect_take(CH_EXPECT_AV1, data, size, &d->expect))
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                            "libheif asked to decode AV1 data that catctl's pre-scan did not check (the two read "
                            "the file differently)");
    // One frame (one a layer, at most 4, for a layered image), with an operating point that
    // is all of it: dav1d decodes frames it never shows, and would wait for the last.
    uint32_t frames = 0, op_idc = 0;
    int layered = d->expect.width == UINT32_MAX;
    if (!ch_av1_frames(data, size, &frames, &op_idc) || frames > (layered ? 4u : 1u) || (!layered && op_idc))
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                            "an AV1 item with more frames than an image has, or an operating point that hides some");
    Dav1dSettings s;
    DAV1D(dav1d_default_settings)(&s);
    s.n_threads = size >= CH_AV1_THREADED_BYTES ? d->threads : 1;
    s.max_frame_delay = 1;
    s.all_layers = 0;  // the highest spatial layer of operating point 0, as libheif's plugins
    uint64_t bound = ch_av1_bound(&d->expect);
    s.frame_size_limit = bound > UINT32_MAX ? UINT32_MAX : (unsigned)(bound ? bound : 1);
    s.logger.cookie = NULL;
    s.logger.callback = ch_av1_quiet;
    if (DAV1D(dav1d_open)(&d->ctx, &s) != 0)
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "cannot start dav1d");
    uint8_t *copy = DAV1D(dav1d_data_create)(&d->data, size);
    if (!copy) return ch_av1_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
    memcpy(copy, data, size);
    return ch_av1_ok;
}

// Copies dav1d's picture into a new heif_image of the same layout and depth.
static struct heif_error ch_av1_picture(const Dav1dPicture *f, struct heif_image **out) {
    enum heif_chroma chroma;
    switch (f->p.layout) {
    case DAV1D_PIXEL_LAYOUT_I400: chroma = heif_chroma_monochrome; break;
    case DAV1D_PIXEL_LAYOUT_I420: chroma = heif_chroma_420; break;
    case DAV1D_PIXEL_LAYOUT_I422: chroma = heif_chroma_422; break;
    case DAV1D_PIXEL_LAYOUT_I444: chroma = heif_chroma_444; break;
    default: return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "an unknown layout");
    }
    int mono = chroma == heif_chroma_monochrome;
    struct heif_error e = HEIF(heif_image_create)(f->p.w, f->p.h, mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                                  chroma, out);
    if (e.code) return e;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int sx = chroma == heif_chroma_420 || chroma == heif_chroma_422, sy = chroma == heif_chroma_420;
    for (int c = 0; c < (mono ? 1 : 3); c++) {
        int w = c == 0 ? f->p.w : (f->p.w + sx) >> sx, h = c == 0 ? f->p.h : (f->p.h + sy) >> sy;
        e = HEIF(heif_image_add_plane)(*out, channels[c], w, h, f->p.bpc);
        if (e.code) {
            HEIF(heif_image_release)(*out);
            *out = NULL;
            return e;
        }
        int dst_stride = 0;
        uint8_t *dst = HEIF(heif_image_get_plane)(*out, channels[c], &dst_stride);
        const uint8_t *src = f->data[c];
        ptrdiff_t src_stride = f->stride[c > 0];
        size_t row = (size_t)w * (f->p.bpc > 8 ? 2 : 1);
        for (int y = 0; y < h; y++) memcpy(dst + (size_t)y * dst_stride, src + (ptrdiff_t)y * src_stride, row);
    }
    struct heif_color_profile_nclx *nclx = HEIF(heif_nclx_color_profile_alloc)();
    if (nclx && f->seq_hdr) {
        HEIF(heif_nclx_color_profile_set_color_primaries)(nclx, (uint16_t)f->seq_hdr->pri);
        HEIF(heif_nclx_color_profile_set_transfer_characteristics)(nclx, (uint16_t)f->seq_hdr->trc);
        HEIF(heif_nclx_color_profile_set_matrix_coefficients)(nclx, (uint16_t)f->seq_hdr->mtrx);
        nclx->full_range_flag = (uint8_t)(f->seq_hdr->color_range != 0);
        HEIF(heif_image_set_nclx_color_profile)(*out, nclx);
    }
    if (nclx) HEIF(heif_nclx_color_profile_free)(nclx);
    return ch_av1_ok;
}

static struct heif_error ch_av1_decode(void *decoder, struct heif_image **out) {
    ch_av1 *d = decoder;
    *out = NULL;
    if (!d->ctx) return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "no data");
    Dav1dPicture f;
    memset(&f, 0, sizeof f);
    // Send everything, taking a picture whenever dav1d has one; then drain (a few tries:
    // frame threads may still be finishing). The first picture is the image, as libheif's
    // plugins take it. Each round sends data or asks for a picture: the loop ends.
    int got = 0, failed = 0, drained = 0;
    while (!got && !failed && drained < 4) {
        if (d->data.sz) {
            int sent = DAV1D(dav1d_send_data)(d->ctx, &d->data);
            if (sent < 0 && sent != DAV1D_ERR(EAGAIN)) failed = 1;
        }
        int res = DAV1D(dav1d_get_picture)(d->ctx, &f);
        if (res == 0) got = 1;
        else if (res != DAV1D_ERR(EAGAIN)) failed = 1;
        else if (d->data.sz == 0) drained++;
    }
    if (!got) {
        snprintf(ch_av1_why, sizeof ch_av1_why,
                 "dav1d decoded no picture of item %u (corrupt, or a frame over its bound of %llu pixels)",
                 d->expect.item, (unsigned long long)ch_av1_bound(&d->expect));
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, ch_av1_why);
    }
    const ch_expect *x = &d->expect;
    uint32_t w = (uint32_t)f.p.w, h = (uint32_t)f.p.h;
    // A layered stream's first layer is half its last: twice the declared size and a margin.
    if (ch_expect_misfit(x, "AV1 picture is", w, h, 2, CH_AV1_MARGIN, 1, ch_av1_why, sizeof ch_av1_why)) {
        DAV1D(dav1d_picture_unref)(&f);
        return ch_av1_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, ch_av1_why);
    }
    struct heif_error e = ch_av1_picture(&f, out);
    DAV1D(dav1d_picture_unref)(&f);
    return e;
}

#define CH_AV1_PLUGIN(maker)                                                                             \
    {                                                                                                    \
        .plugin_api_version = 1, .get_plugin_name = ch_av1_name, .does_support_format = ch_av1_supports, \
        .new_decoder = maker, .free_decoder = ch_av1_free, .push_data = ch_av1_push,                      \
        .decode_image = ch_av1_decode,                                                                    \
    }
static const struct heif_decoder_plugin ch_av1_single = CH_AV1_PLUGIN(ch_av1_new_single);
static const struct heif_decoder_plugin ch_av1_threaded = CH_AV1_PLUGIN(ch_av1_new_threaded);

struct heif_error ch_register_av1_decoder(struct heif_context *ctx, int threaded) {
    return HEIF(heif_register_decoder)(ctx, threaded ? &ch_av1_threaded : &ch_av1_single);
}
