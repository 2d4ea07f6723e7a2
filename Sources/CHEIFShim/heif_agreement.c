// The differential check behind the fuzz target heif-agreement (Fuzz/FuzzHEIFAgreement.swift)
// and the fixtures' agreement test: the pre-scan's reading of a file against libheif 1.15's
// and libavif 0.11's own, through their public APIs. The scan is a second parser beside
// theirs; it is only as strong as their agreement (HOSTILE.md, "Two readers of the same
// bytes"), so every place where both can be asked is compared:
// - libheif: the primary item's ID and 'ispe', its thumbnails and metadata items (each
//   item's data length: the extents), whether it has an alpha plane; then a decode of the
//   primary through dry decoder plugins that accept only the buffers the scan predicted
//   (heif_expect.h), every tile and alpha plane included, and return blank pictures of
//   the declared size (no codec runs: a fuzzer can afford it);
// - libavif: an AVIF still's primary size and the span of its data; a sequence's frame
//   count and each frame's place in the file (avifDecoderNthImageMaxExtent), against the
//   scan's sample tables.
// A file the scan refuses, or one a library cannot read, has nothing to compare.
#include "cheif_shim.h"
#include "heif_expect.h"
#include "heif_libraries.h"
#include "heif_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ch_dry_unexpected[] = "catctl agreement: a buffer the scan did not predict";

typedef struct ch_dry {
    ch_expect expect;
    int pushed;
} ch_dry;

static const char *ch_dry_name(void) { return "catctl agreement check (no decoding)"; }
static int ch_dry_hevc(enum heif_compression_format f) { return f == heif_compression_HEVC ? 300 : 0; }
static int ch_dry_av1(enum heif_compression_format f) { return f == heif_compression_AV1 ? 300 : 0; }

static struct heif_error ch_dry_new(void **out) {
    *out = calloc(1, sizeof(ch_dry));
    struct heif_error e = {*out ? heif_error_Ok : heif_error_Memory_allocation_error, heif_suberror_Unspecified, "ok"};
    return e;
}

static void ch_dry_free(void *d) { free(d); }

static struct heif_error ch_dry_push(ch_dry *d, unsigned codec, const void *data, size_t size) {
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    struct heif_error unexpected = {heif_error_Decoder_plugin_error, heif_suberror_Unspecified, ch_dry_unexpected};
    if (!ch_expect_take(codec, data, size, &d->expect)) return unexpected;
    d->pushed = 1;
    return ok;
}

static struct heif_error ch_dry_push_hevc(void *d, const void *data, size_t size) {
    return ch_dry_push(d, CH_EXPECT_HEVC, data, size);
}

static struct heif_error ch_dry_push_av1(void *d, const void *data, size_t size) {
    return ch_dry_push(d, CH_EXPECT_AV1, data, size);
}

// A blank 4:2:0 picture of the declared size, as a codec would return it.
static struct heif_error ch_dry_decode(void *decoder, struct heif_image **out) {
    ch_dry *d = decoder;
    *out = NULL;
    uint32_t w = d->expect.width == UINT32_MAX ? 16 : d->expect.width;
    uint32_t h = d->expect.height == UINT32_MAX ? 16 : d->expect.height;
    struct heif_error e = HEIF(heif_image_create)((int)w, (int)h, heif_colorspace_YCbCr, heif_chroma_420, out);
    if (e.code) return e;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int c = 0; c < 3; c++) {
        int pw = c ? (int)(w + 1) / 2 : (int)w, ph = c ? (int)(h + 1) / 2 : (int)h;
        e = HEIF(heif_image_add_plane)(*out, channels[c], pw, ph, 8);
        if (e.code) {
            HEIF(heif_image_release)(*out);
            *out = NULL;
            return e;
        }
        int stride = 0;
        uint8_t *plane = HEIF(heif_image_get_plane)(*out, channels[c], &stride);
        for (int y = 0; y < ph; y++) memset(plane + (size_t)y * stride, c ? 128 : 16, (size_t)pw);
    }
    return e;
}

static const struct heif_decoder_plugin ch_dry_hevc_plugin = {
    .plugin_api_version = 1, .get_plugin_name = ch_dry_name, .does_support_format = ch_dry_hevc,
    .new_decoder = ch_dry_new, .free_decoder = ch_dry_free, .push_data = ch_dry_push_hevc, .decode_image = ch_dry_decode,
};
static const struct heif_decoder_plugin ch_dry_av1_plugin = {
    .plugin_api_version = 1, .get_plugin_name = ch_dry_name, .does_support_format = ch_dry_av1,
    .new_decoder = ch_dry_new, .free_decoder = ch_dry_free, .push_data = ch_dry_push_av1, .decode_image = ch_dry_decode,
};

#define CH_DISAGREE(...)                          \
    do {                                          \
        cs_format(why, size, __VA_ARGS__);        \
        rc = 1;                                   \
        goto done;                                \
    } while (0)

// libheif's reading of the items against the scan's (see the top of the file).
static int ch_agree_libheif(const uint8_t *data, size_t length, const ch_scan_result *scan,
                            const ch_scan_report *report, char *why, size_t size) {
    int rc = -1;
    struct heif_image_handle *handle = NULL;
    struct heif_image *img = NULL;
    ch_expectations *session = NULL;
    struct heif_context *ctx = HEIF(heif_context_alloc)();
    if (!ctx) return -1;
    HEIF(heif_context_set_maximum_image_size_limit)(ctx, 32768);
    struct heif_error e = HEIF(heif_context_read_from_memory_without_copy)(ctx, data, length, NULL);
    if (e.code != heif_error_Ok) goto done;  // libheif refuses the file: nothing to compare
    heif_item_id primary = 0;
    if (HEIF(heif_context_get_primary_image_ID)(ctx, &primary).code != heif_error_Ok) goto done;
    rc = 0;
    if (!report->has_primary) CH_DISAGREE("libheif has a primary image (%u), the scan none", primary);
    if (primary != report->primary) CH_DISAGREE("the primary image is %u to libheif, %u to the scan", primary, report->primary);
    if (HEIF(heif_context_get_primary_image_handle)(ctx, &handle).code != heif_error_Ok) goto done;
    int iw = HEIF(heif_image_handle_get_ispe_width)(handle), ih = HEIF(heif_image_handle_get_ispe_height)(handle);
    if ((uint32_t)iw != report->ispe_w || (uint32_t)ih != report->ispe_h)
        CH_DISAGREE("the primary's 'ispe' is %dx%d to libheif, %ux%u to the scan", iw, ih, report->ispe_w, report->ispe_h);
    if (!report->cut) {
        heif_item_id ids[CH_REPORT_MAX];
        int thumbs = HEIF(heif_image_handle_get_number_of_thumbnails)(handle);
        if (thumbs < 0 || thumbs > CH_REPORT_MAX) CH_DISAGREE("libheif lists %d thumbnails", thumbs);
        HEIF(heif_image_handle_get_list_of_thumbnail_IDs)(handle, ids, thumbs);
        for (int i = 0; i < thumbs; i++) {
            uint32_t k = 0;
            while (k < report->thumb_count && report->thumbs[k] != ids[i]) k++;
            if (k == report->thumb_count) CH_DISAGREE("thumbnail %u is libheif's, not the scan's", ids[i]);
        }
        int metas = HEIF(heif_image_handle_get_number_of_metadata_blocks)(handle, NULL);
        if (metas < 0 || metas > CH_REPORT_MAX) CH_DISAGREE("libheif lists %d metadata items", metas);
        HEIF(heif_image_handle_get_list_of_metadata_block_IDs)(handle, NULL, ids, metas);
        for (int i = 0; i < metas; i++) {
            uint32_t k = 0;
            while (k < report->meta_count && report->metas[k] != ids[i]) k++;
            if (k == report->meta_count) CH_DISAGREE("metadata item %u is libheif's, not the scan's", ids[i]);
            size_t n = HEIF(heif_image_handle_get_metadata_size)(handle, ids[i]);
            if (n != report->meta_lengths[k])
                CH_DISAGREE("metadata item %u has %zu bytes to libheif, %llu to the scan", ids[i], n,
                            (unsigned long long)report->meta_lengths[k]);
        }
    }
    if (HEIF(heif_image_handle_has_alpha_channel)(handle) && !report->alpha)
        CH_DISAGREE("libheif gives the primary an alpha plane the scan did not check");
    // The decode: every buffer libheif pushes must be one the scan predicted.
    HEIF(heif_context_set_max_decoding_threads)(ctx, 0);
    if (HEIF(heif_register_decoder)(ctx, &ch_dry_hevc_plugin).code ||
        HEIF(heif_register_decoder)(ctx, &ch_dry_av1_plugin).code)
        goto done;
    session = ch_expect_begin(scan->expect, scan->expect_count);
    if (!session) goto done;
    e = HEIF(heif_decode_image)(handle, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
    if (e.code != heif_error_Ok && e.message && strstr(e.message, ch_dry_unexpected))
        CH_DISAGREE("libheif decodes a buffer the scan did not predict (the primary %u, a tile or an alpha plane)",
                    primary);
done:
    ch_expect_end(session);
    if (img) HEIF(heif_image_release)(img);
    if (handle) HEIF(heif_image_handle_release)(handle);
    HEIF(heif_context_free)(ctx);
    return rc;
}

#ifndef CH_NO_LIBAVIF
static avifDecoder *ch_avif_open(const uint8_t *data, size_t length, avifDecoderSource source, uint32_t max_frames) {
    avifDecoder *a = AVIF(avifDecoderCreate)();
    if (!a) return NULL;
    a->imageCountLimit = max_frames;
    a->strictFlags = AVIF_STRICT_DISABLED;
    a->ignoreExif = AVIF_TRUE;
    a->ignoreXMP = AVIF_TRUE;
    if (AVIF(avifDecoderSetSource)(a, source) != AVIF_RESULT_OK ||
        AVIF(avifDecoderSetIOMemory)(a, data, length) != AVIF_RESULT_OK ||
        AVIF(avifDecoderParse)(a) != AVIF_RESULT_OK) {
        AVIF(avifDecoderDestroy)(a);
        return NULL;
    }
    return a;
}

// libavif's frames against the scan's sample tables: their count is some AV1 track's, and
// each frame's data (libavif's extent runs from the key frame before it, over the colour
// and alpha tracks) starts at a sample's start and ends at a sample's end, frames up to it,
// and holds the frame's own sample.
static int ch_agree_libavif_tracks(const uint8_t *data, size_t length, uint32_t max_frames, char *why, size_t size) {
    avifDecoder *a = ch_avif_open(data, length, AVIF_DECODER_SOURCE_TRACKS, max_frames);
    if (!a) return -1;
    int rc = 0;
    enum { MAX_TRACKS = 8 };
    ch_track tracks[MAX_TRACKS];
    size_t count = 0;
    static const uint32_t av01[] = {CS_FOURCC('a', 'v', '0', '1'), 0};
    char ignored[128];
    for (size_t i = 0; i < MAX_TRACKS; i++) {
        if (ch_track_read(data, length, av01, i, max_frames, &tracks[count], ignored, sizeof ignored) != CS_OK ||
            tracks[count].count == 0)
            break;
        count++;
    }
    uint32_t frames = a->imageCount > 0 ? (uint32_t)a->imageCount : 0;
    size_t match = 0;
    while (match < count && tracks[match].count != frames) match++;
    if (match == count) CH_DISAGREE("libavif sees %u frames, no AV1 track of the scan's has as many", frames);
    for (uint32_t n = 0; n < frames; n++) {
        avifExtent x;
        if (AVIF(avifDecoderNthImageMaxExtent)(a, n, &x) != AVIF_RESULT_OK || x.size == 0) continue;
        int starts = 0, ends = 0, holds = 0;
        for (size_t t = 0; t < count; t++) {
            for (uint32_t k = 0; k <= n && k < tracks[t].count; k++) {
                starts |= tracks[t].offsets[k] == x.offset;
                ends |= tracks[t].offsets[k] + tracks[t].sizes[k] == x.offset + x.size;
            }
            if (tracks[t].count == frames)
                holds |= x.offset <= tracks[t].offsets[n] && tracks[t].offsets[n] + tracks[t].sizes[n] <= x.offset + x.size;
        }
        if (!starts || !ends || !holds)
            CH_DISAGREE("frame %u is bytes %llu+%zu to libavif, at no sample boundary of the scan's", n + 1,
                        (unsigned long long)x.offset, x.size);
    }
done:
    for (size_t t = 0; t < count; t++) ch_track_free(&tracks[t]);
    AVIF(avifDecoderDestroy)(a);
    return rc;
}

// An AVIF still's primary: its size and where its data lies, libavif's against the scan's.
static int ch_agree_libavif_item(const uint8_t *data, size_t length, const ch_scan_report *report, char *why,
                                 size_t size) {
    if (!report->has_primary || report->primary_type != CS_FOURCC('a', 'v', '0', '1')) return -1;
    avifDecoder *a = ch_avif_open(data, length, AVIF_DECODER_SOURCE_PRIMARY_ITEM, 1);
    if (!a) return -1;
    int rc = 0;
    if (a->image->width != report->ispe_w || a->image->height != report->ispe_h)
        CH_DISAGREE("the primary is %ux%u to libavif, %ux%u to the scan", a->image->width, a->image->height,
                    report->ispe_w, report->ispe_h);
    avifExtent x;
    if (AVIF(avifDecoderNthImageMaxExtent)(a, 0, &x) == AVIF_RESULT_OK && x.size > 0 &&
        (x.offset > report->primary_start || x.offset + x.size < report->primary_end))
        CH_DISAGREE("the primary's data is bytes %llu+%zu to libavif, %llu to %llu to the scan",
                    (unsigned long long)x.offset, x.size, (unsigned long long)report->primary_start,
                    (unsigned long long)report->primary_end);
done:
    AVIF(avifDecoderDestroy)(a);
    return rc;
}
#endif

int ch_agreement(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, char *why,
                 size_t size) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!ch_available(NULL, 0)) return -1;
    HEIF(heif_init)(NULL);
    ch_scan_result scan;
    ch_scan_report report;
    char refused[256];
    int rc = -1;
    if (ch_scan_file_report(data, length, max_pixels, max_frames, CH_CODEC_HEVC | CH_CODEC_AV1, &scan, &report,
                            refused, sizeof refused) == CS_OK) {
        int heif = ch_agree_libheif(data, length, &scan, &report, why, size);
        rc = heif;
#ifndef CH_NO_LIBAVIF
        if (rc != 1) {
            int tracks = ch_agree_libavif_tracks(data, length, max_frames, why, size);
            if (tracks >= 0) rc = tracks;
        }
        if (rc != 1) {
            int item = ch_agree_libavif_item(data, length, &report, why, size);
            if (item >= 0 && rc != 1) rc = item > rc ? item : (rc < 0 ? item : rc);
        }
#endif
    }
    ch_scan_result_free(&scan);
    HEIF(heif_deinit)();
    return rc;
}
