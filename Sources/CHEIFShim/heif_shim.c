// libheif 1.15 (+ libavif 0.11 for AVIF sequences, lcms2 for nclx -> ICC) behind return
// codes: see include/cheif_shim.h. Facts about libheif 1.15.1 this file relies on (read in
// its source, tag v1.15.1, and checked by the harness in shimtests/heif):
// - HEIF(heif_context_set_maximum_image_size_limit)(ctx, n) limits width and height separately
//   (default 32768 each); an 'ispe' over it fails heif_context_read_from_memory with
//   heif_error_Memory_allocation_error / heif_suberror_Security_limit_exceeded, before any
//   pixel memory. Handle width/height are after clap and irot (90/270 swap).
// - The codec bitstream's own size is NOT checked against 'ispe' by libheif 1.15 before the
//   codec allocates its picture (dav1d is capped at 32768^2 pixels by the plugin, libde265
//   by its own SPS limits): a hostile file can make the codec allocate more than
//   max_pixels. We check the decoded size afterwards.
// - heif_decode_image to RGB/interleaved RGBA with convert_hdr_to_8bit=1 (decoding options
//   version 2) gives 8-bit output for 10/12-bit images (without it, 1.15 returns an
//   error for HDR -> interleaved RGBA: no conversion path).
// - libheif 1.15 does not un-premultiply: the decoded image carries the 'prem' flag.
// - heif_context_add_exif_metadata looks for "MM\0*"/"II*\0" in the data and writes the
//   4-byte big-endian offset prefix itself: give it bare TIFF.
// - The encoders convert RGB to YCbCr with the heif_image's nclx matrix (a default
//   1/13/6 full-range profile when none is set); plugins always take YCbCr at their
//   "chroma" parameter. Lossless = chroma 444 + nclx matrix 0 (identity, GBR) + lossless.
#include "cheif_shim.h"
#include "cshim_support.h"
#include "heif_libraries.h"
#include "av1_decoder.h"
#include "heif_expect.h"
#include "hevc_decoder.h"
#include "hevc_sequence.h"
#include "heif_scan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>
#include <libheif/heif.h>

#ifndef CH_NO_LIBAVIF
#include <avif/avif.h>
#endif


// libheif error -> CH_ code.
static int ch_code_for(struct heif_error e) {
    switch (e.code) {
    case heif_error_Ok: return CS_OK;
    case heif_error_Memory_allocation_error:
        return e.subcode == heif_suberror_Security_limit_exceeded ? CS_ERR_LIMIT : CS_ERR_NOMEM;
    case heif_error_Invalid_input:
        return e.subcode == heif_suberror_End_of_data ? CS_ERR_TRUNCATED : CS_ERR_CORRUPT;
    case heif_error_Unsupported_filetype: return CS_ERR_CORRUPT;
    case heif_error_Unsupported_feature: return CS_ERR_UNSUPPORTED;
    case heif_error_Decoder_plugin_error: return CS_ERR_CORRUPT;
    case heif_error_Usage_error:
        // 2000 "Nonexisting item referenced" is also libheif's code for bad references in files.
        return e.subcode == heif_suberror_Nonexisting_item_referenced ? CS_ERR_CORRUPT : CS_ERR_STATE;
    case heif_error_Encoder_plugin_error:
    case heif_error_Encoding_error: return CS_ERR_STATE;
    default: return CS_ERR_CORRUPT;
    }
}

// EXIF as stored in HEIF is a 4-byte big-endian offset, then that many bytes (usually none,
// sometimes "Exif\0\0"), then TIFF. libavif 0.11 may hand it over already stripped. Returns
// the TIFF start and length, or NULL when no TIFF header is where it should be.
static const uint8_t *ch_exif_tiff(const uint8_t *p, size_t n, size_t *out_length) {
    *out_length = 0;
    if (!p || n < 8) return NULL;
    static const uint8_t ii[4] = { 'I', 'I', 42, 0 }, mm[4] = { 'M', 'M', 0, 42 };
    if (memcmp(p, ii, 4) == 0 || memcmp(p, mm, 4) == 0) { *out_length = n; return p; }
    uint32_t offset = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    if (offset > n - 4) return NULL;
    const uint8_t *t = p + 4 + offset;
    size_t rest = n - 4 - offset;
    if (rest >= 6 && memcmp(t, "Exif\0\0", 6) == 0) { t += 6; rest -= 6; }  // some writers
    if (rest < 8 || (memcmp(t, ii, 4) != 0 && memcmp(t, mm, 4) != 0)) return NULL;
    *out_length = rest;
    return t;
}

// ---------------------------------------------------------------- nclx -> ICC (lcms2)

static void ch_lcms_silent(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context; (void)code; (void)text;
}

// Builds an ICC profile (malloc'ed) for nclx primaries (xy of R, G, B, white) and transfer
// characteristics (H.273 codes). Returns NULL when no profile should be made or lcms2 fails:
// - primaries BT.709 with the sRGB transfer, or unspecified primaries: sRGB is what a
//   reader assumes anyway, so no profile;
// - transfer unspecified (2): taken as sRGB's curve;
// - PQ (16) and HLG (18): absolute/scene-referred HDR curves that an ICC v2/v4 matrix/TRC
//   profile cannot describe; the pixels are handed over as coded (8-bit scaled), no profile;
// - other transfers (240M, log, xvYCC, ...): no profile.
static uint8_t *ch_nclx_icc(int primaries, int transfer, const float xy[8], size_t *out_length) {
    *out_length = 0;
    if (primaries == 2) return NULL;
    if (transfer == 2) transfer = 13;
    if (primaries == 1 && transfer == 13) return NULL;
    for (int i = 0; i < 8; i++)
        if (!(xy[i] > 0.0f && xy[i] < 1.0f)) return NULL;  // unknown primaries: libheif leaves 0

    double params[5];
    int type;
    switch (transfer) {
    case 13:  // IEC 61966-2-1 sRGB: Y = ((X + 0.055)/1.055)^2.4 for X >= 0.04045, else X/12.92
        type = 4;
        params[0] = 2.4; params[1] = 1.0 / 1.055; params[2] = 0.055 / 1.055; params[3] = 1.0 / 12.92;
        params[4] = 0.04045;
        break;
    case 1: case 6: case 14: case 15:  // BT.709/601/2020 OETF inverted (the 2020 10/12-bit forms
        // use more precise constants for the same curve): L = ((V + 0.099)/1.099)^(1/0.45)
        // for V >= 0.081, else V/4.5.
        type = 4;
        params[0] = 1.0 / 0.45; params[1] = 1.0 / 1.099; params[2] = 0.099 / 1.099; params[3] = 1.0 / 4.5;
        params[4] = 0.081;
        break;
    case 8: type = 1; params[0] = 1.0; break;   // linear
    case 4: type = 1; params[0] = 2.2; break;   // BT.470 System M: gamma 2.2
    case 5: type = 1; params[0] = 2.8; break;   // BT.470 System B/G: gamma 2.8
    default: return NULL;                       // PQ (16), HLG (18) and the rest: see above
    }

    cmsContext context = cmsCreateContext(NULL, NULL);
    if (!context) return NULL;
    cmsSetLogErrorHandlerTHR(context, ch_lcms_silent);
    uint8_t *bytes = NULL;
    cmsToneCurve *curve = cmsBuildParametricToneCurve(context, type, params);
    cmsHPROFILE profile = NULL;
    if (curve) {
        cmsCIExyY white = { xy[6], xy[7], 1.0 };
        cmsCIExyYTRIPLE prim = { { xy[0], xy[1], 1.0 }, { xy[2], xy[3], 1.0 }, { xy[4], xy[5], 1.0 } };
        cmsToneCurve *curves[3] = { curve, curve, curve };
        profile = cmsCreateRGBProfileTHR(context, &white, &prim, curves);
        cmsFreeToneCurve(curve);
    }
    if (profile) {
        char text[64];
        snprintf(text, sizeof text, "nclx primaries %d transfer %d", primaries, transfer);
        cmsMLU *mlu = cmsMLUalloc(context, 1);
        if (mlu && cmsMLUsetASCII(mlu, "en", "US", text)) {
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
            cmsMLUsetASCII(mlu, "en", "US", "No copyright, use freely");
            cmsWriteTag(profile, cmsSigCopyrightTag, mlu);
        }
        if (mlu) cmsMLUfree(mlu);
        cmsUInt32Number size = 0;
        if (cmsSaveProfileToMem(profile, NULL, &size) && size > 0 && (bytes = malloc(size)) != NULL) {
            if (cmsSaveProfileToMem(profile, bytes, &size) && size >= 128) {
                // lcms2 stamps the header with the time of making (bytes 24-35, six big-endian
                // 16-bit numbers): the same file gave other output bytes each second. A fixed
                // date, 2000-01-01 00:00:00, keeps outputs reproducible. (No profile ID is
                // written, so nothing else depends on those bytes.)
                static const uint8_t fixed[12] = { 0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0 };
                memcpy(bytes + 24, fixed, sizeof fixed);
                *out_length = size;
            } else {
                free(bytes);
                bytes = NULL;
            }
        }
        cmsCloseProfile(profile);
    }
    cmsDeleteContext(context);
    return bytes;
}

// ---------------------------------------------------------------- decoder

struct ch_decoder {
    uint8_t *data;
    size_t length;
    struct heif_context *ctx;          // still images (libheif)
    struct heif_image_handle *handle;  // the primary image
#ifndef CH_NO_LIBAVIF
    avifDecoder *avif;                 // AVIF sequences (libavif)
#endif
    ch_hevs *hevs;                     // HEIF image sequences (hevc_sequence.c)
    ch_scan_result scan;               // what the pre-scan checked: what the plugins may decode
    int header_read;
    uint32_t width, height, frame_count, frames_returned;
    uint8_t *icc, *exif, *xmp;         // owned copies
    uint64_t icc_dropped, exif_dropped, xmp_dropped;  // over the metadata budget (ch_info)
    unsigned codecs;                   // CH_CODEC_* allowed
    cs_error error;                    // the last failure
};

// A failure (CShimSupport's cs_error: libheif's messages end in a newline, made one line);
// ch_failed when the message is already written.
#define ch_fail(d, ...) cs_fail(&(d)->error, __VA_ARGS__)
#define ch_failed(d, code) cs_failed(&(d)->error, code)

static int ch_fail_heif(ch_decoder *d, struct heif_error e, const char *what) {
    return ch_fail(d, ch_code_for(e), "%s: %s", what, e.message ? e.message : "libheif error");
}

ch_decoder *ch_decoder_create(const uint8_t *data, size_t length) {
    if (!ch_available(NULL, 0)) return NULL;
    ch_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = cs_copy(data, length);
    if (!d->data) { free(d); return NULL; }
    d->length = length;
    d->codecs = CH_CODEC_HEVC | CH_CODEC_AV1;
    HEIF(heif_init)(NULL);  // reference counted; built-in plugins need nothing else
    return d;
}

void ch_decoder_allow_codecs(ch_decoder *d, unsigned codecs) {
    if (d) d->codecs = codecs;
}

void ch_decoder_destroy(ch_decoder *d) {
    if (!d) return;
    if (d->handle) HEIF(heif_image_handle_release)(d->handle);
    if (d->ctx) HEIF(heif_context_free)(d->ctx);
#ifndef CH_NO_LIBAVIF
    if (d->avif) AVIF(avifDecoderDestroy)(d->avif);
#endif
    ch_hevs_free(d->hevs);
    ch_scan_result_free(&d->scan);
    free(d->icc);
    free(d->exif);
    free(d->xmp);
    free(d->data);
    free(d);
    HEIF(heif_deinit)();
}

const char *ch_decoder_message(const ch_decoder *d) { return d ? d->error.message : "out of memory"; }

static uint32_t ch_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

// Reads the 'ftyp' box: major brand and whether `brand` is among the compatible ones.
static int ch_ftyp(const uint8_t *p, size_t n, uint32_t *major, uint32_t want, int *has_want) {
    *major = 0;
    *has_want = 0;
    if (n < 16 || memcmp(p + 4, "ftyp", 4) != 0) return 0;
    uint32_t size = ch_be32(p);
    if (size < 16 || size > n) size = (uint32_t)(n < 4096 ? n : 4096);  // a cut-off box: use what is there
    *major = ch_be32(p + 8);
    if (*major == want) *has_want = 1;
    for (uint32_t off = 16; off + 4 <= size; off += 4)
        if (ch_be32(p + off) == want) *has_want = 1;
    return 1;
}

#define CH_FOURCC(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static int ch_check_limits(ch_decoder *d, uint32_t w, uint32_t h, uint32_t frames, uint64_t max_pixels,
                           uint32_t max_frames) {
    if (frames > max_frames)
        return ch_fail(d, CS_ERR_LIMIT, "the file has %u frames, more than the limit of %u", frames, max_frames);
    // w, h < 2^32 and frames < 2^32: the product can exceed 2^64, so divide instead.
    uint64_t pixels = (uint64_t)w * h;
    if (pixels > max_pixels || (frames > 1 && pixels > max_pixels / frames)) {
        if (frames > 1)
            return ch_fail(d, CS_ERR_LIMIT, "%ux%u x %u frames exceeds the limit of %llu pixels", w, h, frames,
                           (unsigned long long)max_pixels);
        return ch_fail(d, CS_ERR_LIMIT, "%ux%u = %llu pixels exceeds the limit of %llu pixels", w, h,
                       (unsigned long long)pixels, (unsigned long long)max_pixels);
    }
    return CS_OK;
}

static uint8_t *ch_dup(const uint8_t *p, size_t n) {
    uint8_t *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

#ifndef CH_NO_LIBAVIF
static int ch_avif_code(avifResult r) {
    switch (r) {
    case AVIF_RESULT_OK: return CS_OK;
    case AVIF_RESULT_OUT_OF_MEMORY: return CS_ERR_NOMEM;
    case AVIF_RESULT_TRUNCATED_DATA: return CS_ERR_TRUNCATED;
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_UNSUPPORTED_DEPTH: return CS_ERR_UNSUPPORTED;
    case AVIF_RESULT_INVALID_ARGUMENT: return CS_ERR_STATE;
    default: return CS_ERR_CORRUPT;
    }
}

static int ch_fail_avif(ch_decoder *d, avifResult r, const char *what) {
    const char *detail = d->avif && d->avif->diag.error[0] ? d->avif->diag.error : "";
    return ch_fail(d, ch_avif_code(r), "%s: %s%s%s", what, AVIF(avifResultToString)(r), *detail ? " (" : "",
                   *detail ? detail : "");
}

// An AVIF image sequence through libavif (libheif 1.15 reads only items).
static int ch_read_avis(ch_decoder *d, uint64_t max_pixels, uint32_t max_frames, ch_info *info) {
    avifDecoder *a = AVIF(avifDecoderCreate)();
    if (!a) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
    d->avif = a;
    a->maxThreads = 1;
    // dav1d, which libavif gives imageSizeLimit as its frame_size_limit: every frame's size
    // is checked on its own header, before dav1d allocates it (libaom checks nothing). What
    // dav1d prints on fd 2 is caught by the quiet scope (cshim_support.h).
    a->codecChoice = AVIF_CODEC_CHOICE_DAV1D;
    // The limit: the pixel limit, and at most twice the declared size and a superblock (the
    // scan's rule for an AV1 sequence header): a frame larger than the track declares is
    // refused by the decoder itself, whatever the sample tables or the scan made of it.
    uint64_t limit = max_pixels < AVIF_DEFAULT_IMAGE_SIZE_LIMIT ? max_pixels : AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    if (d->scan.width && d->scan.height) {
        uint64_t bound = (2 * (uint64_t)d->scan.width + 128) * (2 * (uint64_t)d->scan.height + 128);
        if (bound < limit) limit = bound;
    }
    a->imageSizeLimit = limit ? (uint32_t)limit : 1;  // 0 means "reserved"; our own check catches it
    // Exif and XMP of the track's own 'meta' are not read: libavif merges each item of them
    // into a buffer of its own, any number of them (261 KB made 1.57 GB).
    a->ignoreExif = AVIF_TRUE;
    a->ignoreXMP = AVIF_TRUE;
    // The pre-scan counted every track's samples against max_frames already; libavif's own
    // count limit then cannot trip on a file that passed. 0 would mean "unlimited" (a sample
    // table of overlapping chunks made 1e9 samples, 54 GB): never 0.
    a->imageCountLimit = max_frames ? max_frames : 1;
    a->strictFlags = AVIF_STRICT_DISABLED;  // as browsers: accept files with minor spec violations
    if (AVIF(avifDecoderSetSource)(a, AVIF_DECODER_SOURCE_TRACKS) != AVIF_RESULT_OK)
        return ch_fail(d, CS_ERR_STATE, "libavif: cannot select the tracks");
    avifResult r = AVIF(avifDecoderSetIOMemory)(a, d->data, d->length);
    if (r != AVIF_RESULT_OK) return ch_fail_avif(d, r, "libavif");
    r = AVIF(avifDecoderParse)(a);
    if (r != AVIF_RESULT_OK) {
        // libavif refuses sizes over imageSizeLimit while parsing: that is our limit.
        if (strstr(a->diag.error, "imageCountLimit"))
            return ch_fail(d, CS_ERR_LIMIT, "the sequence has more than %u frames (the limit)", max_frames);
        if (strstr(a->diag.error, "imageSizeLimit") || strstr(a->diag.error, "too large"))
            return ch_fail(d, CS_ERR_LIMIT, "the image is larger than the limit of %llu pixels (%s)",
                           (unsigned long long)max_pixels, a->diag.error);
        return ch_fail_avif(d, r, "cannot read the AVIF sequence");
    }
    uint32_t w = a->image->width, h = a->image->height;
    if (a->imageCount <= 0 || w == 0 || h == 0) return ch_fail(d, CS_ERR_CORRUPT, "the AVIF sequence holds no image");
    uint32_t frames = (uint32_t)a->imageCount;
    info->width = w;  // also when over the limit, so the caller can name the size
    info->height = h;
    info->frame_count = frames;
    int rc = ch_check_limits(d, w, h, frames, max_pixels, max_frames);
    if (rc != CS_OK) return rc;

    d->width = w;
    d->height = h;
    d->frame_count = frames;
    info->width = w;
    info->height = h;
    info->has_alpha = a->alphaPresent ? 1 : 0;
    info->format = CH_FORMAT_AVIF;
    info->bit_depth = (int)a->image->depth;
    info->animated = frames > 1;
    info->frame_count = frames;
    const avifImage *im = a->image;
    if (im->icc.size > 0) {
        if (!(d->icc = ch_dup(im->icc.data, im->icc.size))) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
        info->metadata.icc = d->icc;
        info->metadata.icc_length = im->icc.size;
    } else {
        float xy[8];
        AVIF(avifColorPrimariesGetValues)(im->colorPrimaries, xy);
        size_t n = 0;
        d->icc = ch_nclx_icc((int)im->colorPrimaries, (int)im->transferCharacteristics, xy, &n);
        if (d->icc) { info->metadata.icc = d->icc; info->metadata.icc_length = n; info->icc_synthesized = 1; }
    }
    if (im->icc.size > CS_METADATA_BUDGET) {  // left out (with a note), not the image
        free(d->icc);
        d->icc = NULL;
        info->metadata.icc = NULL;
        info->metadata.icc_length = 0;
        info->icc_synthesized = 0;
        info->metadata.icc_dropped = d->icc_dropped = im->icc.size;
    }
    size_t n = 0;
    const uint8_t *tiff = im->exif.size > CS_METADATA_BUDGET ? NULL : ch_exif_tiff(im->exif.data, im->exif.size, &n);
    if (im->exif.size > CS_METADATA_BUDGET) info->metadata.exif_dropped = d->exif_dropped = im->exif.size;
    if (im->xmp.size > CS_METADATA_BUDGET) info->metadata.xmp_dropped = d->xmp_dropped = im->xmp.size;
    if (tiff) {
        if (!(d->exif = ch_dup(tiff, n))) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
        info->metadata.exif = d->exif;
        info->metadata.exif_length = n;
    }
    if (im->xmp.size > 0 && im->xmp.size <= CS_METADATA_BUDGET) {
        if (!(d->xmp = ch_dup(im->xmp.data, im->xmp.size))) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
        info->metadata.xmp = d->xmp;
        info->metadata.xmp_length = im->xmp.size;
    }
    d->header_read = 1;
    return CS_OK;
}

// Decodes libavif's next frame into dst (8-bit RGBA, un-premultiplied by libavif).
static int ch_avis_next(ch_decoder *d, uint8_t *dst, size_t stride, int *delay_ms) {
    avifDecoder *a = d->avif;
    avifResult r = AVIF(avifDecoderNextImage)(a);
    if (r != AVIF_RESULT_OK) {
        char what[64];
        snprintf(what, sizeof what, "frame %u of %u", d->frames_returned + 1, d->frame_count);
        return ch_fail_avif(d, r, what);
    }
    if (a->image->width != d->width || a->image->height != d->height)
        return ch_fail(d, CS_ERR_CORRUPT, "frame %u is %ux%u, the sequence %ux%u", d->frames_returned + 1,
                       a->image->width, a->image->height, d->width, d->height);
    avifRGBImage rgb;
    AVIF(avifRGBImageSetDefaults)(&rgb, a->image);
    rgb.depth = 8;
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.alphaPremultiplied = AVIF_FALSE;  // libavif un-premultiplies a premultiplied image
    rgb.pixels = dst;
    rgb.rowBytes = (uint32_t)stride;      // checked <= UINT32_MAX by the caller
    r = AVIF(avifImageYUVToRGB)(a->image, &rgb);
    if (r != AVIF_RESULT_OK) return ch_fail_avif(d, r, "cannot convert the frame to RGB");
    if (!a->image->alphaPlane) {  // make "alpha 255 when none" explicit
        for (uint32_t y = 0; y < d->height; y++) {
            uint8_t *p = dst + (size_t)y * stride;
            for (uint32_t x = 0; x < d->width; x++) p[4 * (size_t)x + 3] = 255;
        }
    }
    if (delay_ms) {
        uint64_t ts = a->imageTiming.timescale, dur = a->imageTiming.durationInTimescales;
        uint64_t ms = 0;
        if (ts > 0) {
            // dur * 1000 / ts rounded, without overflow for any 64-bit values
            ms = dur / ts * 1000 + ((dur % ts) * 1000 + ts / 2) / ts;
        }
        *delay_ms = ms > INT_MAX ? INT_MAX : (int)ms;
    }
    d->frames_returned++;
    return CS_OK;
}
#endif

// Metadata blocks of the primary image: EXIF (to bare TIFF) and XMP.
static int ch_read_metadata(ch_decoder *d, ch_info *info) {
    int count = HEIF(heif_image_handle_get_number_of_metadata_blocks)(d->handle, NULL);
    if (count <= 0) return CS_OK;
    if (count > 64) count = 64;  // metadata items of one image; more is no real file
    heif_item_id ids[64];
    count = HEIF(heif_image_handle_get_list_of_metadata_block_IDs)(d->handle, NULL, ids, count);
    for (int i = 0; i < count; i++) {
        const char *type = HEIF(heif_image_handle_get_metadata_type)(d->handle, ids[i]);
        int is_exif = type && strcmp(type, "Exif") == 0;
        int is_xmp = 0;
        if (!is_exif && type && strcmp(type, "mime") == 0) {
            const char *content = HEIF(heif_image_handle_get_metadata_content_type)(d->handle, ids[i]);
            is_xmp = content && strcmp(content, "application/rdf+xml") == 0;
        }
        if ((is_exif && d->exif) || (is_xmp && d->xmp) || (!is_exif && !is_xmp)) continue;  // first of each
        size_t n = HEIF(heif_image_handle_get_metadata_size)(d->handle, ids[i]);
        if (n == 0) continue;
        if (n > CS_METADATA_BUDGET) {  // left out, with a note; the image is still read
            if (is_exif) info->metadata.exif_dropped = d->exif_dropped = n;
            else info->metadata.xmp_dropped = d->xmp_dropped = n;
            continue;
        }
        uint8_t *bytes = malloc(n);
        if (!bytes) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
        struct heif_error e = HEIF(heif_image_handle_get_metadata)(d->handle, ids[i], bytes);
        if (e.code != heif_error_Ok) { free(bytes); continue; }  // unreadable metadata: leave it out
        if (is_xmp) {
            // 1.15 returns the item as stored; a deflate-coded XMP ('content_encoding') would
            // come out compressed. libheif 1.15 itself writes none; real files have none.
            d->xmp = bytes;
            info->metadata.xmp = bytes;
            info->metadata.xmp_length = n;
        } else {
            size_t tn = 0;
            const uint8_t *tiff = ch_exif_tiff(bytes, n, &tn);
            if (tiff) {
                memmove(bytes, tiff, tn);
                d->exif = bytes;
                info->metadata.exif = bytes;
                info->metadata.exif_length = tn;
            } else {
                free(bytes);
            }
        }
    }
    return CS_OK;
}

static int ch_read_colour(ch_decoder *d, ch_info *info) {
    size_t n = HEIF(heif_image_handle_get_raw_color_profile_size)(d->handle);
    if (n > CS_METADATA_BUDGET) {  // left out, with a note: no nclx stand-in either
        info->metadata.icc_dropped = d->icc_dropped = n;
        return CS_OK;
    }
    if (n > 0) {
        uint8_t *icc = malloc(n);
        if (!icc) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
        struct heif_error e = HEIF(heif_image_handle_get_raw_color_profile)(d->handle, icc);
        if (e.code == heif_error_Ok) {
            d->icc = icc;
            info->metadata.icc = icc;
            info->metadata.icc_length = n;
            return CS_OK;
        }
        free(icc);
    }
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error got = HEIF(heif_image_handle_get_nclx_color_profile)(d->handle, &nclx);
    if (got.code != heif_error_Ok && nclx) {
        // libheif 1.15 can hand out the profile and an error together (found by fuzz-heif).
        HEIF(heif_nclx_color_profile_free)(nclx);
        nclx = NULL;
    }
    if (nclx) {
        float xy[8] = { nclx->color_primary_red_x, nclx->color_primary_red_y, nclx->color_primary_green_x,
                        nclx->color_primary_green_y, nclx->color_primary_blue_x, nclx->color_primary_blue_y,
                        nclx->color_primary_white_x, nclx->color_primary_white_y };
        size_t length = 0;
        d->icc = ch_nclx_icc((int)nclx->color_primaries, (int)nclx->transfer_characteristics, xy, &length);
        HEIF(heif_nclx_color_profile_free)(nclx);
        if (d->icc) {
            info->metadata.icc = d->icc;
            info->metadata.icc_length = length;
            info->icc_synthesized = 1;
        }
    }
    return CS_OK;
}

// (Re)creates d->ctx from the file with libheif's per-side size limit.
static struct heif_error ch_open_context(ch_decoder *d, int side_limit) {
    if (d->ctx) HEIF(heif_context_free)(d->ctx);
    d->ctx = HEIF(heif_context_alloc)();
    if (!d->ctx) {
        struct heif_error e = { heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory" };
        return e;
    }
    HEIF(heif_context_set_maximum_image_size_limit)(d->ctx, side_limit);
    return HEIF(heif_context_read_from_memory_without_copy)(d->ctx, d->data, d->length, NULL);
}

int ch_decoder_read_header(ch_decoder *d, uint64_t max_pixels, uint32_t max_frames, ch_info *info) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    if (!info) return ch_fail(d, CS_ERR_STATE, "no info structure");
    memset(info, 0, sizeof *info);
    if (d->header_read) return ch_fail(d, CS_ERR_STATE, "the header was already read");
    if (d->length == 0) return ch_fail(d, CS_ERR_TRUNCATED, "the file is empty");
    if (d->length < 16) {
        if (d->length >= 8 && memcmp(d->data + 4, "ftyp", 4) == 0)
            return ch_fail(d, CS_ERR_TRUNCATED, "the file ends inside its 'ftyp' box (truncated)");
        return ch_fail(d, CS_ERR_CORRUPT, "not a HEIF/AVIF file");
    }
    if (d->length > INT_MAX) return ch_fail(d, CS_ERR_LIMIT, "files over 2 GiB are not read");

    ch_scan_result_free(&d->scan);
    ch_scan_result scan;
    int scanned =
        ch_scan_file(d->data, d->length, max_pixels, max_frames, d->codecs, &scan, d->error.message, sizeof d->error.message);
    d->scan = scan;  // its expectations, freed with the decoder
    if (scanned != CS_OK) {
        info->width = scan.width;  // so the caller can name what is over the limit
        info->height = scan.height;
        info->frame_count = scan.frames;
        return ch_failed(d, scanned);
    }
    d->icc_dropped = info->metadata.icc_dropped = scan.icc_dropped;
    d->exif_dropped = info->metadata.exif_dropped = scan.exif_dropped;
    d->xmp_dropped = info->metadata.xmp_dropped = scan.xmp_dropped;

    uint32_t major = 0;
    int has_avif = 0, has_avis = 0;
    if (!ch_ftyp(d->data, d->length, &major, CH_FOURCC('a', 'v', 'i', 'f'), &has_avif))
        return ch_fail(d, CS_ERR_CORRUPT, "not a HEIF/AVIF file (no 'ftyp' box first)");
    ch_ftyp(d->data, d->length, &major, CH_FOURCC('a', 'v', 'i', 's'), &has_avis);

    if (major == CH_FOURCC('a', 'v', 'i', 's')) {
#ifndef CH_NO_LIBAVIF
        return ch_read_avis(d, max_pixels, max_frames, info);
#else
        // fall through: libheif reads the still primary item if the file has one
#endif
    }

    // A HEIF image sequence (msf1, hevs) is read as an animation from its HEVC track; one
    // without such a track is read as its still image, as before.
    if (major == CH_FOURCC('m', 's', 'f', '1') || major == CH_FOURCC('h', 'e', 'v', 's')) {
        ch_hevs *sequence = NULL;
        uint32_t w = 0, h = 0, frames = 0;
        int rc = ch_hevs_open(d->data, d->length, max_pixels, max_frames, &sequence, &w, &h, &frames, d->error.message,
                              sizeof d->error.message);
        info->width = w;  // also when over the limit, so the caller can name the size
        info->height = h;
        if (rc != CS_OK) return ch_failed(d, rc);
        if (sequence) {
            d->hevs = sequence;
            if ((rc = ch_check_limits(d, w, h, frames, max_pixels, max_frames)) != CS_OK) return rc;
            d->width = w;
            d->height = h;
            d->frame_count = frames;
            info->frame_count = frames;
            info->animated = frames > 1;
            info->format = CH_FORMAT_HEIC;
            info->bit_depth = 8;
            d->header_read = 1;
            return CS_OK;
        }
    }

    // libheif's limit is per dimension, on every item's 'ispe' while parsing and on a grid's
    // or overlay's canvas before it is allocated: one side over max_pixels means the area is
    // too. libheif's own default (32768) stays the ceiling.
    uint64_t side = max_pixels < 32768 ? max_pixels : 32768;
    struct heif_error e = ch_open_context(d, (int)side);
    if (e.code != heif_error_Ok) {
        if (e.code == heif_error_Memory_allocation_error && e.subcode == heif_suberror_Security_limit_exceeded)
            return ch_fail(d, CS_ERR_LIMIT,
                           "an image side exceeds %llu, the per-side limit (the pixel limit %llu, at most "
                           "libheif's 32768) (libheif: %s)",
                           (unsigned long long)side, (unsigned long long)max_pixels, e.message);
        int is_sequence = major == CH_FOURCC('m', 's', 'f', '1') || major == CH_FOURCC('h', 'e', 'v', 's') ||
                          major == CH_FOURCC('a', 'v', 'i', 's');
        if (is_sequence && (e.subcode == heif_suberror_No_meta_box || e.subcode == heif_suberror_No_pitm_box ||
                            e.subcode == heif_suberror_No_or_invalid_primary_item))
            return ch_fail(d, CS_ERR_UNSUPPORTED,
                           "this is a HEIF image sequence without a still image; libheif 1.15 reads no sequences");
        return ch_fail_heif(d, e, "cannot read the HEIF file");
    }
    e = HEIF(heif_context_get_primary_image_handle)(d->ctx, &d->handle);
    if (e.code != heif_error_Ok) return ch_fail_heif(d, e, "no primary image");

    int w = HEIF(heif_image_handle_get_width)(d->handle), h = HEIF(heif_image_handle_get_height)(d->handle);
    int iw = HEIF(heif_image_handle_get_ispe_width)(d->handle), ih = HEIF(heif_image_handle_get_ispe_height)(d->handle);
    if (w <= 0 || h <= 0 || iw <= 0 || ih <= 0)
        return ch_fail(d, CS_ERR_CORRUPT, "the image has no size ('ispe' missing or zero)");
    info->width = (uint32_t)w;  // also when over the limit, so the caller can name the size
    info->height = (uint32_t)h;
    info->frame_count = 1;
    int rc = ch_check_limits(d, (uint32_t)w, (uint32_t)h, 1, max_pixels, max_frames);
    // The coded picture ('ispe', before a 'clap' crop) is what gets allocated.
    if (rc == CS_OK) rc = ch_check_limits(d, (uint32_t)iw, (uint32_t)ih, 1, max_pixels, max_frames);
    if (rc != CS_OK) return rc;
    // A grid's or overlay's canvas and its tiles were checked by the pre-scan (ch_scan_file):
    // libheif 1.15 ties neither to 'ispe'. (Before, the file was read again with libheif's
    // per-side limit at the primary's size, which refused files whose thumbnail or other
    // image was larger than the primary.)

    d->width = (uint32_t)w;
    d->height = (uint32_t)h;
    d->frame_count = 1;
    info->width = d->width;
    info->height = d->height;
    info->has_alpha = HEIF(heif_image_handle_has_alpha_channel)(d->handle) ? 1 : 0;
    info->format = (has_avif || has_avis) ? CH_FORMAT_AVIF : CH_FORMAT_HEIC;
    int bits = HEIF(heif_image_handle_get_luma_bits_per_pixel)(d->handle);
    info->bit_depth = bits > 0 ? bits : 8;
    info->frame_count = 1;
    if ((rc = ch_read_colour(d, info)) != CS_OK) return rc;
    if ((rc = ch_read_metadata(d, info)) != CS_OK) return rc;
    d->header_read = 1;
    return CS_OK;
}

static int ch_check_output(ch_decoder *d, const uint8_t *dst, size_t stride) {
    if (!d->header_read) return ch_fail(d, CS_ERR_STATE, "the header has not been read");
    if (!dst) return ch_fail(d, CS_ERR_STATE, "no output buffer");
    if (stride < (size_t)d->width * 4 || stride > UINT32_MAX)
        return ch_fail(d, CS_ERR_STATE, "invalid row stride %zu for width %u", stride, d->width);
    return CS_OK;
}

static void ch_unpremultiply(uint8_t *dst, size_t stride, uint32_t w, uint32_t h) {
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *p = dst + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, p += 4) {
            unsigned a = p[3];
            if (a == 255 || a == 0) continue;
            for (int c = 0; c < 3; c++) {
                unsigned v = (p[c] * 255u + a / 2) / a;
                p[c] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
    }
}

// The primary image through libheif, into dst. Every coded picture libheif decodes for
// it goes through catctl's own plugins (hevc_decoder.c, av1_decoder.c), which take only
// what the pre-scan checked (this decoder's expectations, registered while it decodes).
static int ch_decode_still(ch_decoder *d, uint8_t *dst, size_t stride, int use_threads) {
    HEIF(heif_context_set_max_decoding_threads)(d->ctx, use_threads ? 4 : 0);
    struct heif_error registered = ch_register_hevc_decoder(d->ctx, use_threads);
    if (!registered.code) registered = ch_register_av1_decoder(d->ctx, use_threads);
    if (registered.code) return ch_fail(d, CS_ERR_NOMEM, "cannot register the decoders: %s", registered.message);
    struct heif_decoding_options *options = HEIF(heif_decoding_options_alloc)();
    if (!options) return ch_fail(d, CS_ERR_NOMEM, "out of memory");
    if (options->version >= 2) options->convert_hdr_to_8bit = 1;
    ch_expectations *session = ch_expect_begin(d->scan.expect, d->scan.expect_count);
    if (!session) {
        HEIF(heif_decoding_options_free)(options);
        return ch_fail(d, CS_ERR_NOMEM, "out of memory");
    }
    struct heif_image *img = NULL;
    struct heif_error e =
        HEIF(heif_decode_image)(d->handle, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options);
    ch_expect_end(session);
    HEIF(heif_decoding_options_free)(options);
    if (e.code != heif_error_Ok) {
        if (img) HEIF(heif_image_release)(img);
        // A codec error on a file whose container parsed is most often a cut-off bitstream;
        // libheif cannot tell which.
        return ch_fail_heif(d, e, "cannot decode the image");
    }
    int rc = CS_OK;
    int iw = HEIF(heif_image_get_width)(img, heif_channel_interleaved);
    int ih = HEIF(heif_image_get_height)(img, heif_channel_interleaved);
    int bits = HEIF(heif_image_get_bits_per_pixel_range)(img, heif_channel_interleaved);
    int src_stride = 0;
    const uint8_t *src = HEIF(heif_image_get_plane_readonly)(img, heif_channel_interleaved, &src_stride);
    if (!src || src_stride <= 0 || bits != 8) {
        rc = ch_fail(d, CS_ERR_UNSUPPORTED, "libheif returned no 8-bit RGBA picture (%d bits)", bits);
    } else if (iw < 0 || ih < 0 || (uint32_t)iw < d->width || (uint32_t)ih < d->height) {
        rc = ch_fail(d, CS_ERR_CORRUPT, "the coded image is %dx%d, smaller than the declared %ux%u", iw, ih, d->width,
                     d->height);
    } else {
        size_t row = (size_t)d->width * 4;
        if ((size_t)src_stride < row) {
            rc = ch_fail(d, CS_ERR_CORRUPT, "libheif returned a short row");
        } else {
            for (uint32_t y = 0; y < d->height; y++)
                memcpy(dst + (size_t)y * stride, src + (size_t)y * (size_t)src_stride, row);
            if (HEIF(heif_image_is_premultiplied_alpha)(img)) ch_unpremultiply(dst, stride, d->width, d->height);
        }
    }
    HEIF(heif_image_release)(img);
    if (rc != CS_OK) return rc;
    d->error.code = CS_OK;
    return CS_OK;
}

int ch_decoder_read_image(ch_decoder *d, uint8_t *dst, size_t stride, int use_threads) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    int rc = ch_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;
#ifndef CH_NO_LIBAVIF
    if (d->avif) {
        d->avif->maxThreads = use_threads ? 4 : 1;
        avifResult r = AVIF(avifDecoderReset)(d->avif);
        if (r != AVIF_RESULT_OK) return ch_fail_avif(d, r, "cannot restart the sequence");
        d->frames_returned = 0;
        rc = ch_avis_next(d, dst, stride, NULL);
        AVIF(avifDecoderReset)(d->avif);
        d->frames_returned = 0;
        return rc;
    }
#endif
    if (d->hevs) {
        int delay = 0;
        ch_hevs_rewind(d->hevs);
        rc = ch_hevs_next(d->hevs, dst, stride, use_threads, &delay, d->error.message, sizeof d->error.message);
        ch_hevs_rewind(d->hevs);
        d->frames_returned = 0;
        return rc == CS_OK ? CS_OK : ch_failed(d, rc);
    }
    return ch_decode_still(d, dst, stride, use_threads);
}

int ch_decoder_next_frame(ch_decoder *d, uint8_t *dst, size_t stride, int use_threads, int *delay_ms) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    if (delay_ms) *delay_ms = 0;
    int rc = ch_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;
    if (d->frames_returned >= d->frame_count)
        return ch_fail(d, CS_ERR_STATE, "all %u frames were already read", d->frame_count);
#ifndef CH_NO_LIBAVIF
    if (d->avif) {
        if (d->frames_returned == 0) d->avif->maxThreads = use_threads ? 4 : 1;
        return ch_avis_next(d, dst, stride, delay_ms);
    }
#endif
    if (d->hevs) {
        int delay = 0;
        rc = ch_hevs_next(d->hevs, dst, stride, use_threads, &delay, d->error.message, sizeof d->error.message);
        if (rc != CS_OK) return ch_failed(d, rc);
        if (delay_ms) *delay_ms = delay;
        d->frames_returned++;
        return CS_OK;
    }
    rc = ch_decode_still(d, dst, stride, use_threads);
    if (rc == CS_OK) d->frames_returned++;
    return rc;
}

// ---------------------------------------------------------------- encoder

struct ch_rows_encoder {
    struct heif_image *image;  // interleaved RGB or RGBA, 8 bits
    uint8_t *plane;
    size_t plane_stride;
    uint32_t width, height, next_row;
    int has_alpha;     // the caller's flag
    int any_alpha;     // some pixel has alpha < 255
    int finished;
};

static int ch_check_size(uint32_t width, uint32_t height) {
    return width >= 1 && height >= 1 && width <= 65535 && height <= 65535;
}

ch_rows_encoder *ch_rows_encoder_create(uint32_t width, uint32_t height, int has_alpha) {
    if (!ch_check_size(width, height) || !ch_available(NULL, 0)) return NULL;
    ch_rows_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    HEIF(heif_init)(NULL);
    e->width = width;
    e->height = height;
    e->has_alpha = has_alpha ? 1 : 0;
    // Always RGBA: whether the alpha is kept is decided at finish, when all pixels are known.
    struct heif_error err =
        HEIF(heif_image_create)((int)width, (int)height, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, &e->image);
    if (err.code == heif_error_Ok)
        err = HEIF(heif_image_add_plane)(e->image, heif_channel_interleaved, (int)width, (int)height, 8);
    int stride = 0;
    if (err.code == heif_error_Ok) e->plane = HEIF(heif_image_get_plane)(e->image, heif_channel_interleaved, &stride);
    if (err.code != heif_error_Ok || !e->plane || stride < (int)width * 4) {
        ch_rows_encoder_destroy(e);
        return NULL;
    }
    e->plane_stride = (size_t)stride;
    return e;
}

void ch_rows_encoder_destroy(ch_rows_encoder *e) {
    if (!e) return;
    if (e->image) HEIF(heif_image_release)(e->image);
    free(e);
    HEIF(heif_deinit)();
}

int ch_rows_encoder_add(ch_rows_encoder *e, const uint8_t *rgba, size_t stride, uint32_t rows) {
    if (!e || e->finished) return CS_ERR_STATE;
    if ((!rgba && rows) || stride < (size_t)e->width * 4 || rows > e->height - e->next_row) return CS_ERR_STATE;
    size_t row = (size_t)e->width * 4;
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *s = rgba + (size_t)y * stride;
        uint8_t *p = e->plane + (size_t)(e->next_row + y) * e->plane_stride;
        memcpy(p, s, row);
        if (e->has_alpha && !e->any_alpha) {
            for (uint32_t x = 0; x < e->width; x++)
                if (s[4 * (size_t)x + 3] != 255) { e->any_alpha = 1; break; }
        }
        if (!e->has_alpha)
            for (uint32_t x = 0; x < e->width; x++) p[4 * (size_t)x + 3] = 255;
    }
    e->next_row += rows;
    return CS_OK;
}

typedef struct ch_buffer {
    uint8_t *bytes;
    size_t size, capacity;
    int failed;
} ch_buffer;

static struct heif_error ch_writer_write(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    ch_buffer *b = userdata;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    struct heif_error nomem = { heif_error_Encoding_error, heif_suberror_Cannot_write_output_data, "out of memory" };
    if (size > SIZE_MAX - b->size) { b->failed = 1; return nomem; }
    size_t need = b->size + size;
    if (need > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 65536;
        while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        uint8_t *p = realloc(b->bytes, cap);
        if (!p) { b->failed = 1; return nomem; }
        b->bytes = p;
        b->capacity = cap;
    }
    if (size) memcpy(b->bytes + b->size, data, size);
    b->size = need;
    return ok;
}

static int ch_has(const uint8_t *p, size_t n) { return p != NULL && n > 0; }

static int ch_enc_fail(struct heif_error err, const char *what, char *message, size_t size) {
    int code = ch_code_for(err);
    if (code == CS_OK || code == CS_ERR_CORRUPT) code = CS_ERR_STATE;
    if (err.code == heif_error_Unsupported_feature || err.code == heif_error_Unsupported_filetype)
        code = CS_ERR_UNSUPPORTED;
    cs_error line;  // libheif's message made one line
    cs_fail(&line, code, "%s: %s", what, err.message ? err.message : "libheif error");
    cs_format(message, size, "%s", line.message);
    return code;
}

static const char *const ch_x265_presets[10] = { "ultrafast", "superfast", "veryfast", "faster", "fast",
                                                 "medium",    "slow",      "slower",   "veryslow", "placebo" };

int ch_rows_encoder_finish(ch_rows_encoder *e, int fd, const ch_encode_options *o, const cs_metadata *m,
                           char *message, size_t message_size, int *error_number) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (error_number) *error_number = 0;
    cs_format(message, message_size, "%s", "");
    if (!e || !o) { cs_format(message, message_size, "no encoder or options"); return CS_ERR_STATE; }
    if (e->finished) { cs_format(message, message_size, "the image was already encoded"); return CS_ERR_STATE; }
    if (e->next_row != e->height) {
        cs_format(message, message_size, "%u of %u rows given", e->next_row, e->height);
        return CS_ERR_STATE;
    }
    if (o->format != CH_FORMAT_HEIC && o->format != CH_FORMAT_AVIF) {
        cs_format(message, message_size, "unknown format %d", o->format);
        return CS_ERR_STATE;
    }
    if (m && ((m->icc_length > INT_MAX) || m->exif_length > INT_MAX || m->xmp_length > INT_MAX)) {
        cs_format(message, message_size, "metadata over 2 GiB");
        return CS_ERR_LIMIT;
    }
    e->finished = 1;
    int heic = o->format == CH_FORMAT_HEIC;
    enum heif_compression_format cf = heic ? heif_compression_HEVC : heif_compression_AV1;
    if (!HEIF(heif_have_encoder_for_format)(cf)) {
        cs_format(message, message_size, "this libheif has no %s encoder", heic ? "HEVC (x265)" : "AV1");
        return CS_ERR_UNSUPPORTED;
    }

    int rc = CS_OK;
    struct heif_context *ctx = HEIF(heif_context_alloc)();
    struct heif_encoder *enc = NULL;
    struct heif_encoding_options *eo = HEIF(heif_encoding_options_alloc)();
    struct heif_color_profile_nclx *nclx = HEIF(heif_nclx_color_profile_alloc)();
    struct heif_image_handle *handle = NULL;
    struct heif_image *img = e->image;
    ch_buffer out = { 0 };
    struct heif_error err;
    if (!ctx || !eo || !nclx) {
        cs_format(message, message_size, "out of memory");
        rc = CS_ERR_NOMEM;
        goto done;
    }
    err = HEIF(heif_context_get_encoder_for_format)(ctx, cf, &enc);
    if (err.code) { rc = ch_enc_fail(err, "no encoder", message, message_size); goto done; }
    // No heif_encoder_set_logging_level: x265's plugin starts at X265_LOG_NONE (-1), and the
    // lowest level the API accepts (0) is X265_LOG_ERROR, which prints to stderr.

    int quality = o->quality < 1 ? 1 : o->quality > 100 ? 100 : o->quality;
    int effort = o->effort < 0 ? 0 : o->effort > 9 ? 9 : o->effort;
    int has_icc = m && ch_has(m->icc, m->icc_length);
    err = HEIF(heif_encoder_set_lossy_quality)(enc, quality);
    if (!err.code) err = HEIF(heif_encoder_set_lossless)(enc, o->lossless ? 1 : 0);
    if (!err.code) err = HEIF(heif_encoder_set_parameter_string)(enc, "chroma", (o->lossless || quality >= 90) ? "444" : "420");
    if (!err.code) {
        if (heic) {
            // libheif picks a 16-pixel CTU for images under 32 pixels on a side, and x265 then
            // refuses placebo's TU depth of 4 ("QuadtreeTUMaxDepthInter must be ..."):
            // veryslow (depth 3) is the slowest preset that works there.
            int preset = effort;
            if (preset == 9 && (e->width < 32 || e->height < 32)) preset = 8;
            err = HEIF(heif_encoder_set_parameter_string)(enc, "preset", ch_x265_presets[preset]);
        } else {
            err = HEIF(heif_encoder_set_parameter_integer)(enc, "speed", 9 - effort);
            // aom codes the alpha image with its own quality (default 50): follow `quality`.
            if (!err.code) err = HEIF(heif_encoder_set_parameter_integer)(enc, "alpha-quality", quality);
            if (!err.code && o->lossless) err = HEIF(heif_encoder_set_parameter_boolean)(enc, "lossless-alpha", 1);
            if (!err.code && o->threads > 0)
                err = HEIF(heif_encoder_set_parameter_integer)(enc, "threads", o->threads > 16 ? 16 : o->threads);
        }
    }
    if (err.code) { rc = ch_enc_fail(err, "cannot configure the encoder", message, message_size); goto done; }

    // The colour description written in the nclx 'colr' box and used for RGB -> YCbCr.
    // Lossless: identity matrix (GBR), so no rounding happens in the conversion.
    nclx->color_primaries = has_icc && o->lossless ? heif_color_primaries_unspecified : heif_color_primaries_ITU_R_BT_709_5;
    nclx->transfer_characteristics =
        has_icc && o->lossless ? heif_transfer_characteristic_unspecified : heif_transfer_characteristic_IEC_61966_2_1;
    nclx->matrix_coefficients = o->lossless ? heif_matrix_coefficients_RGB_GBR : heif_matrix_coefficients_ITU_R_BT_601_6;
    nclx->full_range_flag = 1;
    err = HEIF(heif_image_set_nclx_color_profile)(img, nclx);
    if (!err.code && has_icc) err = HEIF(heif_image_set_raw_color_profile)(img, "prof", m->icc, m->icc_length);
    if (err.code) { rc = ch_enc_fail(err, "cannot set the colour profile", message, message_size); goto done; }

    eo->save_alpha_channel = (e->has_alpha && e->any_alpha) ? 1 : 0;
    // With an ICC profile libheif writes only the 'prof' box; readers then take the matrix
    // from the bitstream. Lossless needs the identity matrix to be seen: write both boxes.
    if (eo->version >= 3) eo->save_two_colr_boxes_when_ICC_and_nclx_available = (has_icc && o->lossless) ? 1 : 0;
    // libheif 1.15 by default writes no nclx box into HEIC files (macOS/iOS could not read
    // them; AVIF files always get one). Lossless needs the identity matrix signalled: write
    // it then, as libvips does.
    if (eo->version >= 4) eo->macOS_compatibility_workaround_no_nclx_profile = o->lossless ? 0 : 1;
    err = HEIF(heif_context_encode_image)(ctx, img, enc, eo, &handle);
    if (err.code) { rc = ch_enc_fail(err, "cannot encode the image", message, message_size); goto done; }

    if (m && ch_has(m->exif, m->exif_length)) {
        err = HEIF(heif_context_add_exif_metadata)(ctx, handle, m->exif, (int)m->exif_length);
        if (err.code) { rc = ch_enc_fail(err, "cannot add the EXIF data", message, message_size); goto done; }
    }
    if (m && ch_has(m->xmp, m->xmp_length)) {
        err = HEIF(heif_context_add_XMP_metadata)(ctx, handle, m->xmp, (int)m->xmp_length);
        if (err.code) { rc = ch_enc_fail(err, "cannot add the XMP data", message, message_size); goto done; }
    }

    struct heif_writer writer = { 1, ch_writer_write };
    err = HEIF(heif_context_write)(ctx, &writer, &out);
    if (err.code || out.failed) {
        if (out.failed) { cs_format(message, message_size, "out of memory while writing the file"); rc = CS_ERR_NOMEM; }
        else rc = ch_enc_fail(err, "cannot write the file", message, message_size);
        goto done;
    }
    int w = cs_write_all(fd, out.bytes, out.size);
    if (w) {
        if (error_number) *error_number = w;
        cs_format(message, message_size, "write failed: %s", strerror(w));
        rc = CS_ERR_IO;
    }

done:
    free(out.bytes);
    if (handle) HEIF(heif_image_handle_release)(handle);
    if (enc) HEIF(heif_encoder_release)(enc);
    if (nclx) HEIF(heif_nclx_color_profile_free)(nclx);
    if (eo) HEIF(heif_encoding_options_free)(eo);
    if (ctx) HEIF(heif_context_free)(ctx);
    return rc;
}
