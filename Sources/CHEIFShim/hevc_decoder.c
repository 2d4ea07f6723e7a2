// An HEVC decoder plugin for libheif over libde265, written for catctl.
//
// Why our own: libheif 1.15's libde265 plugin starts one libde265 worker thread, so a
// single (non-grid) HEIC picture decodes on one core; libde265 itself parallelises the
// wavefront rows, deblocking and SAO of one picture over more workers. On the 12 MP test
// photo, on this 2-core VM, the HEVC decode takes 0.35 s with two workers against 0.52 s
// with libheif's plugin. The result is the same picture (the same decoder, the same
// bitstream): tests compare with pillow-heif as before.
//
// libheif hands the plugin the hvcC parameter sets and then the image data, every NAL unit
// with a 4-byte big-endian length; the plugin returns planar YCbCr (or monochrome) with the
// bitstream's VUI colour description (primaries, transfer, matrix, full range) as nclx,
// which libheif's conversion to RGB reads when the file has no colr box of its own.
//
// It is also where the size of a coded picture is checked on the bytes that are decoded
// (heif_expect.h): the data must be what the pre-scan predicted for an item it checked,
// every SPS among it must ask for no more than the item declares (one coding block more)
// and the pixel limit allow, before libde265 sees a byte; and the picture it returns must
// be the declared size (libheif 1.15 checks neither).
#include "hevc_decoder.h"
#include "heif_expect.h"
#include "heif_libraries.h"
#include "heif_scan.h"

#include <stdio.h>

#include <libde265/de265.h>
#include <libheif/heif_plugin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Below this much compressed data (a grid tile, a thumbnail, an alpha plane) one worker:
// starting threads costs more than it saves, and libheif already decodes grid tiles in
// parallel.
enum { CH_HEVC_THREADED_BYTES = 256 * 1024, CH_HEVC_MAX_THREADS = 8 };

typedef struct ch_hevc {
    de265_decoder_context *ctx;
    size_t pushed;
    int threads;
    ch_expect expect;  // the item the data is, as the pre-scan checked it
} ch_hevc;

// A coding block: what a coded picture may add to the declared size (it is cropped off).
enum { CH_HEVC_MARGIN = 64 };

// A refusal's text, made in the thread that returns it (libheif copies it at once).
static _Thread_local char ch_hevc_why[200];

static const char *ch_hevc_name(void) { return "libde265 HEVC decoder (catctl, threaded)"; }

static int ch_hevc_supports(enum heif_compression_format format) {
    return format == heif_compression_HEVC ? 200 : 0;  // libheif's own plugin has 100
}

static struct heif_error ch_hevc_error(enum heif_error_code code, enum heif_suberror_code sub, const char *message) {
    struct heif_error e = {code, sub, message};
    return e;
}

static const struct heif_error ch_hevc_ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error ch_hevc_new(void **out, int threads) {
    ch_hevc *d = calloc(1, sizeof *d);
    if (!d) return ch_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
    d->ctx = DE265(de265_new_decoder)();
    if (!d->ctx) {
        free(d);
        return ch_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory");
    }
    d->threads = threads;
    *out = d;
    return ch_hevc_ok;
}

static struct heif_error ch_hevc_new_single(void **out) { return ch_hevc_new(out, 1); }

static struct heif_error ch_hevc_new_threaded(void **out) { return ch_hevc_new(out, cs_cores(CH_HEVC_MAX_THREADS)); }

static void ch_hevc_free(void *decoder) {
    ch_hevc *d = decoder;
    if (!d) return;
    DE265(de265_free_decoder)(d->ctx);
    free(d);
}

// Whether a picture of w x h fits what the item declares and the pixel limit; if not, why.
// The SPS's coded size (`coded`) is checked for larger only, but under its own words.
static const char *ch_hevc_misfit(const ch_expect *x, uint32_t w, uint32_t h, int coded) {
    if ((uint64_t)w * h > x->max_pixels) coded = 0;  // "picture is ... over the limit", as before
    return ch_expect_misfit(x, coded ? "HEVC SPS asks for" : "HEVC picture is", w, h, 1, CH_HEVC_MARGIN, !coded,
                            ch_hevc_why, sizeof ch_hevc_why);
}

static struct heif_error ch_hevc_push(void *decoder, const void *data, size_t size) {
    ch_hevc *d = decoder;
    const uint8_t *p = data;
    if (!ch_expect_take(CH_EXPECT_HEVC, p, size, &d->expect))
        return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                             "libheif asked to decode HEVC data that catctl's pre-scan did not check (the two read "
                             "the file differently)");
    // Every SPS first, before libde265 is given any unit; and one picture (a VCL unit that
    // starts one), as the pre-scan counted.
    unsigned pictures = 0;
    for (size_t at = 0; at < size;) {
        if (size - at < 4)
            return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a cut NAL length");
        uint32_t n = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | (uint32_t)p[at + 2] << 8 | p[at + 3];
        at += 4;
        if (n > size - at)
            return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a NAL unit past the end");
        if (n >= 2 && ((p[at] >> 1) & 0x3f) == 33) {
            uint32_t w = 0, h = 0;
            if (!ch_hevc_sps_size(p + at, n, &w, &h))
                return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, "a malformed SPS");
            const char *why = ch_hevc_misfit(&d->expect, w, h, 1);
            if (why) return ch_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Security_limit_exceeded, why);
        }
        if (n >= 3 && ((p[at] >> 1) & 0x3f) < 32 && (p[at + 2] & 0x80) && ++pictures > 1)
            return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                                 "an HEVC item holds more than one picture");
        at += n;
    }
    size_t at = 0;
    while (at < size) {
        uint32_t n = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | (uint32_t)p[at + 2] << 8 | p[at + 3];
        at += 4;
        de265_error e = DE265(de265_push_NAL)(d->ctx, p + at, n, 0, NULL);
        if (!DE265(de265_isOK)(e))
            return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, DE265(de265_get_error_text)(e));
        at += n;
        d->pushed += n;
    }
    return ch_hevc_ok;
}

// Copies libde265's picture into a new heif_image of the same chroma and depth.
static struct heif_error ch_hevc_picture(const struct de265_image *picture, struct heif_image **out) {
    enum de265_chroma chroma = DE265(de265_get_chroma_format)(picture);
    int mono = chroma == de265_chroma_mono;
    // de265_chroma and heif_chroma number mono, 4:2:0, 4:2:2 and 4:4:4 alike (0, 1, 2, 3).
    enum heif_chroma heif_chroma = mono                          ? heif_chroma_monochrome
                                   : chroma == de265_chroma_420 ? heif_chroma_420
                                   : chroma == de265_chroma_422 ? heif_chroma_422
                                                                 : heif_chroma_444;
    struct heif_error e = HEIF(heif_image_create)(DE265(de265_get_image_width)(picture, 0), DE265(de265_get_image_height)(picture, 0),
                                            mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr, heif_chroma, out);
    if (e.code) return e;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int depth = DE265(de265_get_bits_per_pixel)(picture, 0);
    for (int c = 0; c < (mono ? 1 : 3); c++) {
        int w = DE265(de265_get_image_width)(picture, c), h = DE265(de265_get_image_height)(picture, c);
        if (DE265(de265_get_bits_per_pixel)(picture, c) != depth || w <= 0 || h <= 0) {
            HEIF(heif_image_release)(*out);
            *out = NULL;
            return ch_hevc_error(heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                                 "planes of different depths or an empty plane");
        }
        e = HEIF(heif_image_add_plane)(*out, channels[c], w, h, depth);
        if (e.code) {
            HEIF(heif_image_release)(*out);
            *out = NULL;
            return e;
        }
        int src_stride = 0, dst_stride = 0;
        const uint8_t *src = DE265(de265_get_image_plane)(picture, c, &src_stride);
        uint8_t *dst = HEIF(heif_image_get_plane)(*out, channels[c], &dst_stride);
        size_t row = (size_t)w * (size_t)((depth + 7) / 8);
        for (int y = 0; y < h; y++) memcpy(dst + (size_t)y * dst_stride, src + (size_t)y * src_stride, row);
    }
    struct heif_color_profile_nclx *nclx = HEIF(heif_nclx_color_profile_alloc)();
    if (nclx) {
        // Values the VUI may hold but libheif does not know are left at its defaults.
        HEIF(heif_nclx_color_profile_set_color_primaries)(nclx, (uint16_t)DE265(de265_get_image_colour_primaries)(picture));
        HEIF(heif_nclx_color_profile_set_transfer_characteristics)(nclx,
                                                             (uint16_t)DE265(de265_get_image_transfer_characteristics)(picture));
        HEIF(heif_nclx_color_profile_set_matrix_coefficients)(nclx, (uint16_t)DE265(de265_get_image_matrix_coefficients)(picture));
        nclx->full_range_flag = (uint8_t)(DE265(de265_get_image_full_range_flag)(picture) != 0);
        HEIF(heif_image_set_nclx_color_profile)(*out, nclx);
        HEIF(heif_nclx_color_profile_free)(nclx);
    }
    return ch_hevc_ok;
}

static struct heif_error ch_hevc_decode(void *decoder, struct heif_image **out) {
    ch_hevc *d = decoder;
    *out = NULL;
    int threads = d->pushed >= CH_HEVC_THREADED_BYTES ? d->threads : 1;
    de265_error e = DE265(de265_start_worker_threads)(d->ctx, threads);
    if (!DE265(de265_isOK)(e))
        return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, DE265(de265_get_error_text)(e));
    DE265(de265_flush_data)(d->ctx);
    int more = 0;
    do {
        more = 0;
        e = DE265(de265_decode)(d->ctx, &more);
        if (e != DE265_OK) break;
        const struct de265_image *picture = DE265(de265_get_next_picture)(d->ctx);
        if (picture) {
            const char *why = ch_hevc_misfit(&d->expect, (uint32_t)DE265(de265_get_image_width)(picture, 0),
                                             (uint32_t)DE265(de265_get_image_height)(picture, 0), 0);
            if (why) {
                DE265(de265_release_next_picture)(d->ctx);
                if (*out) HEIF(heif_image_release)(*out);
                *out = NULL;
                return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, why);
            }
            if (*out) HEIF(heif_image_release)(*out);  // a stream of several pictures: the last counts, as in libheif
            struct heif_error copied = ch_hevc_picture(picture, out);
            DE265(de265_release_next_picture)(d->ctx);
            if (copied.code) return copied;
        }
    } while (more);
    if (!*out) {
        const char *why = e == DE265_OK ? "no picture in the HEVC data" : DE265(de265_get_error_text)(e);
        return ch_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, why);
    }
    return ch_hevc_ok;
}

// The two plugins differ only in how many workers a decoder starts.
#define CH_HEVC_PLUGIN(maker)                                                                            \
    {                                                                                                    \
        .plugin_api_version = 1, .get_plugin_name = ch_hevc_name, .does_support_format = ch_hevc_supports, \
        .new_decoder = maker, .free_decoder = ch_hevc_free, .push_data = ch_hevc_push,                    \
        .decode_image = ch_hevc_decode,                                                                    \
    }
static const struct heif_decoder_plugin ch_hevc_single = CH_HEVC_PLUGIN(ch_hevc_new_single);
static const struct heif_decoder_plugin ch_hevc_threaded = CH_HEVC_PLUGIN(ch_hevc_new_threaded);

struct heif_error ch_register_hevc_decoder(struct heif_context *ctx, int threaded) {
    return HEIF(heif_register_decoder)(ctx, threaded ? &ch_hevc_threaded : &ch_hevc_single);
}
