// libjxl 0.7 behind return codes: see include/cjxl_shim.h.
// The calls follow libjxl 0.7's headers (jxl/decode.h, encode.h, types.h,
// codestream_header.h, color_encoding.h, thread_parallel_runner.h). Notes on
// libjxl 0.7 behaviour this file relies on are next to the code using it.
#include "cjxl_shim.h"
#include "cshim_support.h"
#include "jxl_libraries.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include <lcms2.h>

#define CX_MAX_THREADS 256

// A JxlThreadParallelRunner with `threads` workers, or NULL (single-threaded:
// libjxl runs everything on the calling thread) for threads <= 1.
static void *cx_runner_create(int threads) {
    if (threads <= 1) return NULL;
    if (threads > CX_MAX_THREADS) threads = CX_MAX_THREADS;
    return JXL(JxlThreadParallelRunnerCreate)(NULL, (size_t)threads);
}

// libjxl 0.7 runs every frame it decodes through the parallel runner (2 or 3 calls a frame),
// the frames it never reports too (skip-progressive, reference-only and DC frames): a
// budget of calls from the frames the header walk counted stops a file that hides frames
// (1000 hidden 1x1 layers on a 2048x2048 canvas took 20 s). Always installed; with no
// thread pool it runs the work on the calling thread, as libjxl would.
typedef struct cx_counted_runner {
    void *inner;  // a JxlThreadParallelRunner, or NULL
    uint64_t calls_left;
    int tripped;
} cx_counted_runner;

// Calls a frame may take: 2 or 3 for most (a 16 MP photo: 3, with progressive DC 6); the
// conformance suite's most is 49, for one frame of many passes (bicycles, progressive).
// Beyond 8 a counted frame: as many more canvas-sized frames (a hidden one takes 2 calls)
// as the pixel limit has room for after the walk's frames, so hidden frames are charged
// against the limit as shown ones are, but never fewer than CX_RUNNER_CALLS_EXTRA calls,
// which the passes of one legitimate frame may take. That floor is what a file hiding
// frames on the largest canvas gets through: about 36 frames, 1.4 s each at 100 MP (49 s).
#define CX_RUNNER_CALLS_PER_FRAME 8
#define CX_RUNNER_CALLS_EXTRA 64


static JxlParallelRetCode cx_counted_run(void *opaque, void *jxl_opaque, JxlParallelRunInit init,
                                         JxlParallelRunFunction func, uint32_t start, uint32_t end) {
    cx_counted_runner *r = opaque;
    if (r->calls_left == 0) {
        r->tripped = 1;
        return -1;
    }
    r->calls_left--;
    if (r->inner) return JXL(JxlThreadParallelRunner)(r->inner, jxl_opaque, init, func, start, end);
    if (init(jxl_opaque, 1) != 0) return -1;
    for (uint32_t i = start; i < end; i++) func(jxl_opaque, i, 0);
    return 0;
}

// ---------------------------------------------------------------- growable buffer

typedef struct cx_buffer {
    uint8_t *bytes;
    size_t size, capacity;
} cx_buffer;

// Makes room for at least `extra` more bytes past `size`, doubling; 0 or -1 (overflow / no memory).
static int cx_buffer_reserve(cx_buffer *b, size_t extra, size_t cap) {
    if (extra > SIZE_MAX - b->size) return -1;
    size_t need = b->size + extra;
    if (need > cap) return -1;
    if (need <= b->capacity) return 0;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < need) capacity = capacity > SIZE_MAX / 2 ? SIZE_MAX : capacity * 2;
    if (capacity > cap) capacity = cap;
    uint8_t *bytes = realloc(b->bytes, capacity);
    if (!bytes) return -1;
    b->bytes = bytes;
    b->capacity = capacity;
    return 0;
}

static void cx_buffer_free(cx_buffer *b) {
    free(b->bytes);
    memset(b, 0, sizeof *b);
}

// ---------------------------------------------------------------- decoder

enum { CX_BOX_NONE = 0, CX_BOX_EXIF, CX_BOX_XMP };

struct cx_decoder {
    uint8_t *data;
    size_t length;
    int header_read;
    uint32_t width, height;       // after orientation
    uint32_t frame_count;
    uint64_t max_pixels;
    uint32_t max_frames;
    uint32_t all_frames;          // every frame the walk counted, layers too (the runner's budget)
    uint64_t walk_area;           // and their areas together
    cx_counted_runner image_runner, frames_runner_budget;
    int animated;
    uint32_t tps_numerator, tps_denominator;
    uint8_t *icc;   size_t icc_length;
    cx_buffer exif_box, xmp_box;  // raw box payloads (exif still with its 4-byte offset)
    uint64_t icc_dropped, exif_dropped, xmp_dropped;  // over the metadata budget: left out
    // A CMYK image (a CMYK profile; black as an extra channel): its colour channels are
    // C, M and Y with 1 = no ink, turned into sRGB with K through the profile (lcms2).
    void *cmyk;                   // cs_cmyk_transform, or NULL
    int black;                    // the black extra channel's index, or -1
    uint8_t *black_plane;         // K of the frame being decoded (width*height)
    const uint8_t *exif; size_t exif_length;  // into exif_box
    // next_frame state
    JxlDecoder *frames;           // decoding pass used by next_frame
    void *frames_runner;
    uint32_t frames_returned;
    cs_error error;               // the last failure
};

#define cx_fail(d, ...) cs_fail(&(d)->error, __VA_ARGS__)

cx_decoder *cx_decoder_create(const uint8_t *data, size_t length) {
    if (!cx_available(NULL, 0)) return NULL;
    cx_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = cs_copy(data, length);
    if (!d->data) { free(d); return NULL; }
    d->length = length;
    d->black = -1;
    return d;
}

static void cx_close_frames(cx_decoder *d) {
    if (d->frames) JXL(JxlDecoderDestroy)(d->frames);
    if (d->frames_runner) JXL(JxlThreadParallelRunnerDestroy)(d->frames_runner);
    d->frames = NULL;
    d->frames_runner = NULL;
    d->frames_returned = 0;
}

void cx_decoder_destroy(cx_decoder *d) {
    if (!d) return;
    cx_close_frames(d);
    if (d->cmyk) cmsDeleteTransform(d->cmyk);
    free(d->black_plane);
    free(d->icc);
    cx_buffer_free(&d->exif_box);
    cx_buffer_free(&d->xmp_box);
    free(d->data);
    free(d);
}

const char *cx_decoder_message(const cx_decoder *d) { return d ? d->error.message : "out of memory"; }

static int cx_is_srgb(const JxlColorEncoding *c) {
    if (c->white_point != JXL_WHITE_POINT_D65 || c->transfer_function != JXL_TRANSFER_FUNCTION_SRGB) return 0;
    if (c->color_space == JXL_COLOR_SPACE_GRAY) return 1;
    return c->color_space == JXL_COLOR_SPACE_RGB && c->primaries == JXL_PRIMARIES_SRGB;
}

// At JXL_DEC_COLOR_ENCODING, in every pass alike: for an XYB image whose
// original space is an arbitrary ICC profile, libjxl 0.7 would output LINEAR
// sRGB (its default for that case), which 8 bits band badly; ask for sRGB.
// For XYB images with an enumerated original space libjxl outputs that space,
// and for non-XYB images the original space; the preference is ignored there.
static void cx_prefer_srgb(JxlDecoder *dec, const JxlBasicInfo *bi) {
    if (bi->uses_original_profile) return;
    JxlColorEncoding original;
    if (JXL(JxlDecoderGetColorAsEncodedProfile)(dec, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) ==
        JXL_DEC_SUCCESS)
        return;
    JxlColorEncoding srgb;
    JXL(JxlColorEncodingSetToSRGB)(&srgb, bi->num_color_channels == 1 ? JXL_TRUE : JXL_FALSE);
    JXL(JxlDecoderSetPreferredColorProfile)(dec, &srgb);  // a failure leaves libjxl's choice; the ICC tells it
}

// The profile of the pixels libjxl will output; NULL when they are sRGB.
static int cx_read_icc(cx_decoder *d, JxlDecoder *dec, const JxlBasicInfo *bi) {
    JxlColorEncoding data;
    if (JXL(JxlDecoderGetColorAsEncodedProfile)(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS &&
        cx_is_srgb(&data))
        return CS_OK;
    if (bi->num_color_channels != 3) return CS_OK;  // grey: a grey profile does not describe RGBA rows
    size_t size = 0;
    if (JXL(JxlDecoderGetICCProfileSize)(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS || size == 0)
        return CS_OK;  // no profile can be made (e.g. unknown space): report none
    // Real print profiles are 0.5-3 MB (stored compressed in the codestream): the one
    // metadata budget decides, and a profile over it is left out, not the image.
    if (size > CS_METADATA_BUDGET) {
        d->icc_dropped = size;
        return CS_OK;
    }
    d->icc = malloc(size);
    if (!d->icc) return cx_fail(d, CS_ERR_NOMEM, "out of memory for the ICC profile");
    if (JXL(JxlDecoderGetColorAsICCProfile)(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, d->icc, size) != JXL_DEC_SUCCESS) {
        free(d->icc);
        d->icc = NULL;
        return CS_OK;
    }
    d->icc_length = size;
    return CS_OK;
}

static int cx_check_frames(cx_decoder *d, uint32_t count) {
    // width, height < 2^32 each and count < 2^32: width*height fits in 64 bits,
    // the product with count may not, so compare by division.
    uint64_t area = (uint64_t)d->width * d->height;
    if (count > d->max_frames)
        return cx_fail(d, CS_ERR_LIMIT, "the file has more than %u frames (the limit)", d->max_frames);
    if (area > 0 && count > d->max_pixels / area)
        return cx_fail(d, CS_ERR_LIMIT, "%ux%u x %u frames exceeds the limit of %llu pixels", d->width, d->height,
                       count, (unsigned long long)d->max_pixels);
    return CS_OK;
}

// A box over the metadata budget: the walk starts again without it (libjxl 0.7 cannot
// drop a box it is writing out).
enum { CX_OVER_BUDGET = -1 };

// Box output: libjxl writes the current box's (decompressed) payload into the
// buffer we set; when it runs out it returns JXL_DEC_BOX_NEED_MORE_OUTPUT and we
// grow the buffer (to the budget at most) and hand it the free tail.
static int cx_box_more(cx_decoder *d, JxlDecoder *dec, cx_buffer *b) {
    size_t unused = JXL(JxlDecoderReleaseBoxBuffer)(dec);
    b->size = b->capacity - unused;
    if (b->size >= CS_METADATA_BUDGET) return CX_OVER_BUDGET;
    size_t extra = b->capacity / 2 + 4096;
    if (extra > CS_METADATA_BUDGET - b->size) extra = CS_METADATA_BUDGET - b->size;
    if (cx_buffer_reserve(b, extra, CS_METADATA_BUDGET) != 0)
        return cx_fail(d, CS_ERR_NOMEM, "out of memory for a metadata box");
    if (JXL(JxlDecoderSetBoxBuffer)(dec, b->bytes + b->size, b->capacity - b->size) != JXL_DEC_SUCCESS)
        return cx_fail(d, CS_ERR_STATE, "libjxl refused the box buffer");
    return CS_OK;
}

static void cx_box_done(JxlDecoder *dec, cx_buffer *b) {
    size_t unused = JXL(JxlDecoderReleaseBoxBuffer)(dec);
    b->size = b->capacity - unused;
}

// The EXIF box payload is a 4-byte big-endian offset to the TIFF header, then data.
static void cx_take_exif(cx_decoder *d) {
    const cx_buffer *b = &d->exif_box;
    if (b->size < 4) return;
    uint32_t offset = (uint32_t)b->bytes[0] << 24 | (uint32_t)b->bytes[1] << 16 | (uint32_t)b->bytes[2] << 8 |
                      b->bytes[3];
    if (offset > b->size - 4 || b->size - 4 - offset < 8) return;
    const uint8_t *tiff = b->bytes + 4 + offset;
    if (!(memcmp(tiff, "II*\0", 4) == 0 || memcmp(tiff, "MM\0*", 4) == 0)) return;
    d->exif = tiff;
    d->exif_length = b->size - 4 - offset;
}

static int cx_status_error(cx_decoder *d, JxlDecoderStatus status, const char *where) {
    if (status == JXL_DEC_NEED_MORE_INPUT)
        return cx_fail(d, CS_ERR_TRUNCATED, "the file ends before the %s does (truncated)", where);
    if (status == JXL_DEC_ERROR)
        return cx_fail(d, CS_ERR_CORRUPT, "libjxl could not decode the %s (corrupt or unsupported data)", where);
    return cx_fail(d, CS_ERR_CORRUPT, "unexpected libjxl status %d while reading the %s", (int)status, where);
}

// The header walk needs JxlDecoderCloseInput (for boxes), and with the input
// closed libjxl 0.7 reports a cut-off file as JXL_DEC_ERROR. On an error, walk
// the headers again with the input left open: NEED_MORE_INPUT there means the
// file is truncated. (Headers only, no pixels: cheap.)
static int cx_classify_error(cx_decoder *d) {
    JxlDecoder *dec = JXL(JxlDecoderCreate)(NULL);
    if (!dec) return CS_ERR_CORRUPT;
    int code = CS_ERR_CORRUPT;
    if (JXL(JxlDecoderSubscribeEvents)(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME) == JXL_DEC_SUCCESS &&
        JXL(JxlDecoderSetInput)(dec, d->data, d->length) == JXL_DEC_SUCCESS) {
        for (;;) {
            JxlDecoderStatus status = JXL(JxlDecoderProcessInput)(dec);
            if (status == JXL_DEC_BASIC_INFO || status == JXL_DEC_COLOR_ENCODING || status == JXL_DEC_FRAME) continue;
            if (status == JXL_DEC_NEED_MORE_INPUT) code = CS_ERR_TRUNCATED;
            break;
        }
    }
    JXL(JxlDecoderDestroy)(dec);
    return code;
}

// The container's boxes, before libjxl reads them: every size inside its parent, a bounded
// count, and an uncompressed Exif or xml box over the budget marked to be left out.
static int cx_scan_container(cx_decoder *d) {
    cs_span file = {d->data, d->length};
    size_t at = 0, boxes = 0;
    cs_box box;
    int got, seen_exif = 0, seen_xmp = 0;
    while ((got = cs_box_next(file, &at, &box)) == 1) {
        if (++boxes > 100000) return cx_fail(d, CS_ERR_LIMIT, "more than 100000 boxes in the container");
        // A brob box holds its box compressed: the type it stands for is its body's first 4 bytes.
        uint32_t type = box.type;
        if (type == CS_FOURCC('b', 'r', 'o', 'b') && box.body.n >= 4)
            type = CS_FOURCC(box.body.p[0], box.body.p[1], box.body.p[2], box.body.p[3]);
        int exif = type == CS_FOURCC('E', 'x', 'i', 'f'), xmp = type == CS_FOURCC('x', 'm', 'l', ' ');
        // cx_walk reads the first box of each kind only: its size alone decides (a larger
        // second one must not make the first one left out).
        if (exif && !seen_exif++ && box.body.n > CS_METADATA_BUDGET) d->exif_dropped = box.body.n;
        if (xmp && !seen_xmp++ && box.body.n > CS_METADATA_BUDGET) d->xmp_dropped = box.body.n;
    }
    if (got < 0) {
        // A box cut by the end of the file is a truncation; one larger than its parent otherwise.
        size_t left = d->length - at;
        uint32_t size = left >= 4 ? (uint32_t)d->data[at] << 24 | (uint32_t)d->data[at + 1] << 16 |
                                        (uint32_t)d->data[at + 2] << 8 | d->data[at + 3]
                                  : 0;
        if (left < 8 || size > left) return cx_fail(d, CS_ERR_TRUNCATED, "the file ends inside a box (truncated)");
        return cx_fail(d, CS_ERR_CORRUPT, "a malformed box in the container");
    }
    return CS_OK;
}

// One walk over the headers (see read_header). CX_OVER_BUDGET: a metadata box grew past
// the budget; it is marked as dropped and the caller walks again.
static int cx_walk(cx_decoder *d, cx_info *info, JxlBasicInfo *bi, uint32_t *shown) {
    uint64_t max_pixels = d->max_pixels;
    uint32_t max_frames = d->max_frames;
    JxlDecoder *dec = JXL(JxlDecoderCreate)(NULL);
    if (!dec) return cx_fail(d, CS_ERR_NOMEM, "cannot create the libjxl decoder");
    // No JXL_DEC_FULL_IMAGE: libjxl 0.7 then skips each frame's sections by its
    // table of contents and never allocates pixel memory; the walk is linear in
    // the file size. Boxes after the codestream are reported too. Not coalescing,
    // libjxl reports every regular frame (layers, zero-duration frames), each
    // decoded when the pixels are: all are counted.
    int rc = CS_OK;
    if (JXL(JxlDecoderSubscribeEvents)(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME | JXL_DEC_BOX) !=
            JXL_DEC_SUCCESS ||
        JXL(JxlDecoderSetCoalescing)(dec, JXL_FALSE) != JXL_DEC_SUCCESS ||
        JXL(JxlDecoderSetInput)(dec, d->data, d->length) != JXL_DEC_SUCCESS) {
        JXL(JxlDecoderDestroy)(dec);
        return cx_fail(d, CS_ERR_STATE, "libjxl refused the decoder settings");
    }
    // Without Brotli support this fails and "brob" boxes stay compressed: their
    // decompressed type is then unknown ("brob") and they are not reported.
    JXL(JxlDecoderSetDecompressBoxes)(dec, JXL_TRUE);
    JXL(JxlDecoderCloseInput)(dec);

    memset(bi, 0, sizeof *bi);
    int have_basic = 0, have_color = 0;
    uint32_t frames = 0, all_frames = 0;
    uint64_t all_area = 0, units = 1;  // units: pictures' worth a pixel costs (RGBA: 1)
    cx_buffer *box = NULL;  // the box being collected, if any
    for (;;) {
        JxlDecoderStatus status = JXL(JxlDecoderProcessInput)(dec);
        if (status == JXL_DEC_BOX_NEED_MORE_OUTPUT && box) {
            if ((rc = cx_box_more(d, dec, box)) == CX_OVER_BUDGET) {
                if (box == &d->exif_box) d->exif_dropped = box->size;
                else d->xmp_dropped = box->size;
            }
            if (rc != CS_OK) break;
            continue;
        }
        if (box && (status == JXL_DEC_BOX || status == JXL_DEC_SUCCESS || status == JXL_DEC_BASIC_INFO ||
                    status == JXL_DEC_COLOR_ENCODING || status == JXL_DEC_FRAME)) {
            // The previous box ended (libjxl reports a box's end with the next event).
            cx_box_done(dec, box);
            box = NULL;
        }
        if (status == JXL_DEC_BASIC_INFO) {
            if (JXL(JxlDecoderGetBasicInfo)(dec, bi) != JXL_DEC_SUCCESS) {
                rc = cx_fail(d, CS_ERR_CORRUPT, "libjxl reported no basic info");
                break;
            }
            // With orientation applied (the default) libjxl reports xsize/ysize
            // of the returned pixels (swapped for orientations 5..8).
            d->width = bi->xsize;
            d->height = bi->ysize;
            info->width = bi->xsize;  // also when the size is over the limit, for the caller's message
            info->height = bi->ysize;
            have_basic = 1;
            if (bi->xsize == 0 || bi->ysize == 0) {
                rc = cx_fail(d, CS_ERR_CORRUPT, "the image has no pixels");
                break;
            }
            uint64_t area = (uint64_t)bi->xsize * bi->ysize;
            if (area > max_pixels) {
                rc = cx_fail(d, CS_ERR_LIMIT, "%ux%u = %llu pixels exceeds the limit of %llu pixels", bi->xsize,
                             bi->ysize, (unsigned long long)area, (unsigned long long)max_pixels);
                break;
            }
            // libjxl holds every channel as whole planes (integers, then floats: about 5.5
            // bytes a pixel; 256 extra channels of a 1 MP image took 1.4 GB): an extra channel
            // past two (alpha, and black or depth) costs as much as one more picture.
            units = 1 + (bi->num_extra_channels > 2 ? (uint64_t)bi->num_extra_channels - 2 : 0);
            if (area > max_pixels / units) {
                rc = cx_fail(d, CS_ERR_LIMIT,
                             "%ux%u with %u extra channels costs as much as %llu pictures of its size: over the "
                             "limit of %llu pixels",
                             bi->xsize, bi->ysize, bi->num_extra_channels, (unsigned long long)units,
                             (unsigned long long)max_pixels);
                break;
            }
            if (max_frames == 0) {
                rc = cx_fail(d, CS_ERR_LIMIT, "the file has more than 0 frames (the limit)");
                break;
            }
            d->black = -1;
            for (uint32_t i = 0; i < bi->num_extra_channels && d->black < 0; i++) {
                JxlExtraChannelInfo extra;
                if (JXL(JxlDecoderGetExtraChannelInfo)(dec, i, &extra) == JXL_DEC_SUCCESS &&
                    extra.type == JXL_CHANNEL_BLACK)
                    d->black = (int)i;
            }
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            cx_prefer_srgb(dec, bi);
            if ((rc = cx_read_icc(d, dec, bi)) != CS_OK) break;
            have_color = 1;
        } else if (status == JXL_DEC_FRAME) {
            JxlFrameHeader fh;
            if (JXL(JxlDecoderGetFrameHeader)(dec, &fh) != JXL_DEC_SUCCESS) {
                rc = cx_fail(d, CS_ERR_CORRUPT, "libjxl reported no frame header");
                break;
            }
            // A layer's own size (it may be larger than the canvas, or placed off it), and at
            // least the canvas: libjxl 0.7 blends every frame, a 1x1 one too, onto a whole
            // canvas (1000 such frames of a 2048x2048 image took 10 s).
            uint64_t area = (uint64_t)fh.layer_info.xsize * fh.layer_info.ysize;
            uint64_t canvas = (uint64_t)bi->xsize * bi->ysize;
            if (area < canvas) area = canvas;
            area = area > UINT64_MAX / units ? UINT64_MAX : area * units;
            all_frames++;
            all_area = area > UINT64_MAX - all_area ? UINT64_MAX : all_area + area;
            if (all_frames > max_frames) {
                rc = cx_fail(d, CS_ERR_LIMIT,
                             "the file has more than %u frames (the limit), counting layers and frames of no duration",
                             max_frames);
                break;
            }
            if (all_area > max_pixels) {
                rc = cx_fail(d, CS_ERR_LIMIT,
                             "the frames' areas add up to more than the limit of %llu pixels (layers and frames of "
                             "no duration counted)",
                             (unsigned long long)max_pixels);
                break;
            }
            // Shown: what a coalescing decoder returns (a frame with a duration, or the last).
            if (fh.duration > 0 || fh.is_last) {
                if ((rc = cx_check_frames(d, frames + 1)) != CS_OK) break;
                frames++;
            }
        } else if (status == JXL_DEC_BOX) {
            JxlBoxType type;
            if (JXL(JxlDecoderGetBoxType)(dec, type, JXL_TRUE) != JXL_DEC_SUCCESS) continue;
            cx_buffer *target = NULL;
            if (memcmp(type, "Exif", 4) == 0 && !d->exif_box.bytes && !d->exif_dropped) target = &d->exif_box;
            else if (memcmp(type, "xml ", 4) == 0 && !d->xmp_box.bytes && !d->xmp_dropped) target = &d->xmp_box;
            if (!target) continue;  // no buffer: libjxl skips the box's contents
            if (cx_buffer_reserve(target, 4096, CS_METADATA_BUDGET) != 0) {
                rc = cx_fail(d, CS_ERR_NOMEM, "out of memory for a metadata box");
                break;
            }
            if (JXL(JxlDecoderSetBoxBuffer)(dec, target->bytes, target->capacity) != JXL_DEC_SUCCESS) {
                rc = cx_fail(d, CS_ERR_STATE, "libjxl refused the box buffer");
                break;
            }
            box = target;
        } else if (status == JXL_DEC_SUCCESS) {
            break;
        } else {
            if (status == JXL_DEC_ERROR && cx_classify_error(d) == CS_ERR_TRUNCATED) status = JXL_DEC_NEED_MORE_INPUT;
            rc = cx_status_error(d, status, have_basic ? "image" : "image header");
            break;
        }
    }
    JXL(JxlDecoderDestroy)(dec);
    if (rc == CS_OK && (!have_basic || !have_color || frames == 0))
        rc = cx_fail(d, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
    *shown = frames;
    d->all_frames = all_frames;
    d->walk_area = all_area;
    return rc;
}

int cx_decoder_read_header(cx_decoder *d, uint64_t max_pixels, uint32_t max_frames, cx_info *info) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    if (!info) return cx_fail(d, CS_ERR_STATE, "no info structure");
    memset(info, 0, sizeof *info);
    if (d->header_read) return cx_fail(d, CS_ERR_STATE, "the header was already read");
    if (d->length == 0) return cx_fail(d, CS_ERR_TRUNCATED, "the file is empty");
    switch (JXL(JxlSignatureCheck)(d->data, d->length)) {
    case JXL_SIG_CODESTREAM: break;
    case JXL_SIG_CONTAINER: {
        int rc = cx_scan_container(d);
        if (rc != CS_OK) return rc;
        break;
    }
    case JXL_SIG_NOT_ENOUGH_BYTES: return cx_fail(d, CS_ERR_TRUNCATED, "the file ends inside the JPEG XL signature");
    default: return cx_fail(d, CS_ERR_CORRUPT, "not a JPEG XL file");
    }
    d->max_pixels = max_pixels;
    d->max_frames = max_frames;

    JxlBasicInfo bi;
    uint32_t frames = 0;
    int rc;
    // At most twice more: each walk that finds a box over the budget marks it as dropped.
    for (int walk = 0;; walk++) {
        rc = cx_walk(d, info, &bi, &frames);
        if (rc != CX_OVER_BUDGET || walk == 2) break;
        free(d->icc);
        d->icc = NULL;
        d->icc_length = 0;
        cx_buffer_free(&d->exif_box);
        cx_buffer_free(&d->xmp_box);
    }
    if (rc == CX_OVER_BUDGET) rc = cx_fail(d, CS_ERR_CORRUPT, "metadata boxes keep growing past the budget");
    if (rc != CS_OK) {
        free(d->icc);
        d->icc = NULL;
        d->icc_length = 0;
        cx_buffer_free(&d->exif_box);
        cx_buffer_free(&d->xmp_box);
        return rc;
    }
    cx_take_exif(d);
    if (!d->icc && d->icc_dropped && d->black >= 0) {
        // Its C, M and Y would come out as R, G and B: refused, not shown in wrong colours.
        cx_buffer_free(&d->exif_box);
        cx_buffer_free(&d->xmp_box);
        return cx_fail(d, CS_ERR_UNSUPPORTED,
                       "a CMYK image whose ICC profile (%llu bytes) is over the %d MiB metadata budget",
                       (unsigned long long)d->icc_dropped, CS_METADATA_BUDGET >> 20);
    }
    if (d->icc && d->icc_length >= 20 && memcmp(d->icc + 16, "CMYK", 4) == 0) {
        // The pixels come out as sRGB through the profile (read_image), which is not kept.
        d->cmyk = cs_cmyk_transform(d->icc, d->icc_length, 1, 1);
        free(d->icc);
        d->icc = NULL;
        d->icc_length = 0;
        if (!d->cmyk) {
            cx_buffer_free(&d->exif_box);
            cx_buffer_free(&d->xmp_box);
            return cx_fail(d, CS_ERR_UNSUPPORTED, "a CMYK image whose profile lcms2 cannot use");
        }
    }

    d->header_read = 1;
    d->frame_count = frames;
    d->animated = bi.have_animation ? 1 : 0;
    d->tps_numerator = bi.animation.tps_numerator;
    d->tps_denominator = bi.animation.tps_denominator;

    info->width = d->width;
    info->height = d->height;
    info->has_alpha = bi.alpha_bits > 0;
    info->animated = d->animated;
    info->frame_count = frames;
    info->loop_count = d->animated ? (bi.animation.num_loops > INT_MAX ? INT_MAX : (int)bi.animation.num_loops) : 1;
    info->orientation = 1;
    info->bits_per_sample = bi.bits_per_sample;
    info->lossless_hint = bi.uses_original_profile ? 1 : 0;
    info->metadata.icc = d->icc;
    info->metadata.icc_length = d->icc_length;
    info->metadata.exif = d->exif;
    info->metadata.exif_length = d->exif_length;
    if (d->xmp_box.size > 0) {
        info->metadata.xmp = d->xmp_box.bytes;
        info->metadata.xmp_length = d->xmp_box.size;
    }
    info->metadata.icc_dropped = d->icc_dropped;
    info->metadata.exif_dropped = d->exif_dropped;
    info->metadata.xmp_dropped = d->xmp_dropped;
    return CS_OK;
}

// ---- pixel passes

typedef struct cx_rows {
    uint8_t *dst;
    size_t stride;
    uint32_t width, height;
} cx_rows;

// libjxl's image-out callback: a run of num_pixels RGBA8 pixels at (x, y). It
// may run on several threads at once, on different pixels; each call writes
// only its own bytes of dst.
static void cx_rows_callback(void *opaque, size_t x, size_t y, size_t num_pixels, const void *pixels) {
    const cx_rows *r = opaque;
    if (y >= r->height || x >= r->width || num_pixels > r->width - x) return;  // libjxl never does this
    memcpy(r->dst + y * r->stride + x * 4, pixels, num_pixels * 4);
}

static int cx_check_output(cx_decoder *d, const uint8_t *dst, size_t stride) {
    if (!d->header_read) return cx_fail(d, CS_ERR_STATE, "the header has not been read");
    if (!dst) return cx_fail(d, CS_ERR_STATE, "no output buffer");
    if (stride < (size_t)d->width * 4 || (d->height > 1 && stride > SIZE_MAX / (d->height - 1)))
        return cx_fail(d, CS_ERR_STATE, "invalid row stride %zu for width %u", stride, d->width);
    return CS_OK;
}

// A decoder for a pixel pass over the whole file.
static uint64_t cx_runner_budget(const cx_decoder *d) {
    uint64_t canvas = (uint64_t)d->width * d->height, room = d->max_pixels > d->walk_area ? d->max_pixels - d->walk_area : 0;
    uint64_t extra = canvas ? room / canvas * 2 : 0;
    if (extra < CX_RUNNER_CALLS_EXTRA) extra = CX_RUNNER_CALLS_EXTRA;
    return (uint64_t)CX_RUNNER_CALLS_PER_FRAME * d->all_frames + extra;
}

static int cx_open_pass(cx_decoder *d, int threads, JxlDecoder **out, void **runner_out, cx_counted_runner *budget) {
    *out = NULL;
    *runner_out = NULL;
    JxlDecoder *dec = JXL(JxlDecoderCreate)(NULL);
    if (!dec) return cx_fail(d, CS_ERR_NOMEM, "cannot create the libjxl decoder");
    void *runner = cx_runner_create(threads);
    if (threads > 1 && !runner) {
        JXL(JxlDecoderDestroy)(dec);
        return cx_fail(d, CS_ERR_NOMEM, "cannot create the libjxl thread runner");
    }
    *budget = (cx_counted_runner){runner, cx_runner_budget(d), 0};
    if (JXL(JxlDecoderSetParallelRunner)(dec, cx_counted_run, budget) != JXL_DEC_SUCCESS ||
        JXL(JxlDecoderSubscribeEvents)(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME |
                                           JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JXL(JxlDecoderSetUnpremultiplyAlpha)(dec, JXL_TRUE) != JXL_DEC_SUCCESS ||
        JXL(JxlDecoderSetInput)(dec, d->data, d->length) != JXL_DEC_SUCCESS) {
        JXL(JxlDecoderDestroy)(dec);
        if (runner) JXL(JxlThreadParallelRunnerDestroy)(runner);
        return cx_fail(d, CS_ERR_STATE, "libjxl refused the decoder settings");
    }
    // No JxlDecoderCloseInput here (optional without JXL_DEC_BOX): with the
    // input closed, libjxl 0.7 reports a cut-off codestream as JXL_DEC_ERROR;
    // open, as JXL_DEC_NEED_MORE_INPUT, which tells truncation from corruption.
    *out = dec;
    *runner_out = runner;
    return CS_OK;
}

static int cx_delay_ms(const cx_decoder *d, uint32_t ticks) {
    if (!d->animated || d->tps_numerator == 0) return 0;
    double ms = (double)ticks * 1000.0 * (double)d->tps_denominator / (double)d->tps_numerator;
    ms = floor(ms + 0.5);
    return ms >= (double)INT_MAX ? INT_MAX : (int)ms;
}

// A CMYK frame in dst (C, M, Y where R, G, B are; 255 = no ink) with K from black_plane
// (none: no black ink) to sRGB through the profile, the alpha left as it is.
static int cx_cmyk_to_srgb(cx_decoder *d, uint8_t *dst, size_t stride) {
    uint8_t *row = malloc((size_t)d->width * 4 + 1);
    if (!row) return cx_fail(d, CS_ERR_NOMEM, "out of memory for a CMYK row");
    for (uint32_t y = 0; y < d->height; y++) {
        uint8_t *p = dst + (size_t)y * stride;
        const uint8_t *k = d->black >= 0 ? d->black_plane + (size_t)y * d->width : NULL;
        for (uint32_t x = 0; x < d->width; x++) {
            row[4 * (size_t)x] = p[4 * (size_t)x];
            row[4 * (size_t)x + 1] = p[4 * (size_t)x + 1];
            row[4 * (size_t)x + 2] = p[4 * (size_t)x + 2];
            row[4 * (size_t)x + 3] = k ? k[x] : 255;
        }
        cmsDoTransform(d->cmyk, row, p, d->width);
    }
    free(row);
    return CS_OK;
}

// Runs `dec` to the end of its next displayed frame, writing it into dst.
static int cx_decode_frame(cx_decoder *d, JxlDecoder *dec, uint32_t *returned, uint8_t *dst, size_t stride,
                           int *delay_ms) {
    cx_rows rows = { dst, stride, d->width, d->height };
    JxlPixelFormat format = { 4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    int in_frame = 0;
    for (;;) {
        JxlDecoderStatus status = JXL(JxlDecoderProcessInput)(dec);
        switch (status) {
        case JXL_DEC_BASIC_INFO: {
            JxlBasicInfo bi;
            if (JXL(JxlDecoderGetBasicInfo)(dec, &bi) != JXL_DEC_SUCCESS || bi.xsize != d->width || bi.ysize != d->height)
                return cx_fail(d, CS_ERR_CORRUPT, "the image header changed between passes");
            break;
        }
        case JXL_DEC_COLOR_ENCODING: {
            JxlBasicInfo bi;
            if (JXL(JxlDecoderGetBasicInfo)(dec, &bi) != JXL_DEC_SUCCESS)
                return cx_fail(d, CS_ERR_CORRUPT, "libjxl reported no basic info");
            cx_prefer_srgb(dec, &bi);  // as in read_header, so the pixels match the reported profile
            break;
        }
        case JXL_DEC_FRAME: {
            int rc = cx_check_frames(d, *returned + 1);
            if (rc != CS_OK) return rc;
            if (*returned >= d->frame_count)
                return cx_fail(d, CS_ERR_CORRUPT, "the file has more frames than its first reading found");
            JxlFrameHeader fh;
            if (JXL(JxlDecoderGetFrameHeader)(dec, &fh) != JXL_DEC_SUCCESS)
                return cx_fail(d, CS_ERR_CORRUPT, "libjxl reported no frame header");
            if (delay_ms) *delay_ms = cx_delay_ms(d, fh.duration);
            in_frame = 1;
            break;
        }
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: {
            // Coalesced frames are always the full image size (checked against the
            // header above); the rows are caller memory, written by the callback.
            size_t need = 0;
            if (JXL(JxlDecoderImageOutBufferSize)(dec, &format, &need) != JXL_DEC_SUCCESS ||
                need != (size_t)d->width * d->height * 4)
                return cx_fail(d, CS_ERR_CORRUPT, "the frame size does not match the image");
            if (JXL(JxlDecoderSetImageOutCallback)(dec, &format, cx_rows_callback, &rows) != JXL_DEC_SUCCESS)
                return cx_fail(d, CS_ERR_STATE, "libjxl refused the output callback");
            if (d->cmyk && d->black >= 0) {
                JxlPixelFormat one = {1, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
                size_t size = 0;
                if (JXL(JxlDecoderExtraChannelBufferSize)(dec, &one, &size, (uint32_t)d->black) != JXL_DEC_SUCCESS ||
                    size != (size_t)d->width * d->height)
                    return cx_fail(d, CS_ERR_CORRUPT, "the black channel does not match the image");
                if (!d->black_plane && !(d->black_plane = malloc(size ? size : 1)))
                    return cx_fail(d, CS_ERR_NOMEM, "out of memory for the black channel");
                if (JXL(JxlDecoderSetExtraChannelBuffer)(dec, &one, d->black_plane, size, (uint32_t)d->black) !=
                    JXL_DEC_SUCCESS)
                    return cx_fail(d, CS_ERR_STATE, "libjxl refused the black channel's buffer");
            }
            break;
        }
        case JXL_DEC_FULL_IMAGE:
            if (!in_frame) return cx_fail(d, CS_ERR_CORRUPT, "a frame ended before it began");
            if (d->cmyk) {
                int rc = cx_cmyk_to_srgb(d, dst, stride);
                if (rc != CS_OK) return rc;
            }
            (*returned)++;
            return CS_OK;
        case JXL_DEC_SUCCESS:
            return cx_fail(d, CS_ERR_STATE, "all %u frames were already read", d->frame_count);
        default:
            // This pass's runner (each pass has its own budget, set when it opens).
            if (status == JXL_DEC_ERROR && (dec == d->frames ? d->frames_runner_budget : d->image_runner).tripped)
                return cx_fail(d, CS_ERR_LIMIT,
                               "the file decodes more than its %u frames and layers (frames it does not show)",
                               d->all_frames);
            return cx_status_error(d, status, "image data");
        }
    }
}

int cx_decoder_read_image(cx_decoder *d, uint8_t *dst, size_t stride, int threads) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    int rc = cx_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;
    cx_close_frames(d);  // next_frame starts over
    JxlDecoder *dec;
    void *runner;
    if ((rc = cx_open_pass(d, threads, &dec, &runner, &d->image_runner)) != CS_OK) return rc;
    uint32_t returned = 0;
    rc = cx_decode_frame(d, dec, &returned, dst, stride, NULL);
    JXL(JxlDecoderDestroy)(dec);
    if (runner) JXL(JxlThreadParallelRunnerDestroy)(runner);
    return rc;
}

int cx_decoder_next_frame(cx_decoder *d, uint8_t *dst, size_t stride, int threads, int *delay_ms) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!d) return CS_ERR_NOMEM;
    if (delay_ms) *delay_ms = 0;
    int rc = cx_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;
    if (d->frames_returned >= d->frame_count)
        return cx_fail(d, CS_ERR_STATE, "all %u frames were already read", d->frame_count);
    if (!d->frames) {
        if ((rc = cx_open_pass(d, threads, &d->frames, &d->frames_runner, &d->frames_runner_budget)) != CS_OK)
            return rc;
        d->frames_returned = 0;
    }
    rc = cx_decode_frame(d, d->frames, &d->frames_returned, dst, stride, delay_ms);
    if (rc != CS_OK) {
        // A libjxl decoder cannot go on after an error: drop it, and answer
        // further calls with CS_ERR_STATE rather than restart from frame 1.
        cx_close_frames(d);
        d->frames_returned = d->frame_count;
    } else if (d->frames_returned == d->frame_count) {
        cx_close_frames(d);  // frees libjxl's canvases
        d->frames_returned = d->frame_count;
    }
    return rc;
}

// ---------------------------------------------------------------- encoder

static int cx_has(const uint8_t *p, size_t n) { return p != NULL && n > 0; }

static float cx_distance(int quality) {
    double q = quality < 1 ? 1 : quality > 100 ? 100 : quality;
    double distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 53.0 / 3000.0 * q * q - 23.0 / 20.0 * q + 25.0;
    return (float)distance;
}

static int cx_enc_error(JxlEncoder *enc, const char *what, char *message, size_t size) {
    JxlEncoderError e = JXL(JxlEncoderGetError)(enc);
    switch (e) {
    case JXL_ENC_ERR_OOM:
        cs_format(message, size, "out of memory while %s", what);
        return CS_ERR_NOMEM;
    case JXL_ENC_ERR_NOT_SUPPORTED:
        cs_format(message, size, "libjxl does not support this while %s", what);
        return CS_ERR_UNSUPPORTED;
    case JXL_ENC_ERR_BAD_INPUT:
        cs_format(message, size, "libjxl rejected the input while %s", what);
        return CS_ERR_UNSUPPORTED;
    case JXL_ENC_ERR_API_USAGE:
        cs_format(message, size, "libjxl API misuse while %s", what);
        return CS_ERR_STATE;
    default:
        cs_format(message, size, "libjxl failed while %s (error %d)", what, (int)e);
        return CS_ERR_STATE;
    }
}

// Everything a frame needs, shared by the still and the animation encoder.
typedef struct cx_settings {
    uint32_t width, height;
    int has_alpha, quality, lossless, effort, threads;
    int animated, loop_count;
} cx_settings;

// Sets up `enc` (basic info, colour, metadata boxes, frame settings); returns
// the frame settings through *out.
static int cx_enc_setup(JxlEncoder *enc, const cx_settings *s, const cs_metadata *m, JxlEncoderFrameSettings **out,
                        char *message, size_t size) {
    JxlBasicInfo bi;
    JXL(JxlEncoderInitBasicInfo)(&bi);
    bi.xsize = s->width;
    bi.ysize = s->height;
    bi.bits_per_sample = 8;
    bi.exponent_bits_per_sample = 0;
    bi.num_color_channels = 3;
    bi.num_extra_channels = s->has_alpha ? 1 : 0;
    bi.alpha_bits = s->has_alpha ? 8 : 0;
    bi.alpha_exponent_bits = 0;
    bi.alpha_premultiplied = JXL_FALSE;
    bi.uses_original_profile = s->lossless ? JXL_TRUE : JXL_FALSE;
    bi.orientation = JXL_ORIENT_IDENTITY;
    if (s->animated) {
        bi.have_animation = JXL_TRUE;
        bi.animation.tps_numerator = 1000;
        bi.animation.tps_denominator = 1;
        bi.animation.num_loops = s->loop_count < 0 ? 0 : (uint32_t)s->loop_count;
        bi.animation.have_timecodes = JXL_FALSE;
    }
    int has_boxes = m && (cx_has(m->exif, m->exif_length) || cx_has(m->xmp, m->xmp_length));
    if (has_boxes && JXL(JxlEncoderUseBoxes)(enc) != JXL_ENC_SUCCESS) return cx_enc_error(enc, "enabling boxes", message, size);
    if (JXL(JxlEncoderSetBasicInfo)(enc, &bi) != JXL_ENC_SUCCESS) return cx_enc_error(enc, "setting the header", message, size);
    // Beyond level 5 (262144 px per side, 2^28 px) the file must say level 10.
    int level = JXL(JxlEncoderGetRequiredCodestreamLevel)(enc);
    if (level < 0) {
        cs_format(message, size, "%ux%u is too large for JPEG XL", s->width, s->height);
        return CS_ERR_UNSUPPORTED;
    }
    if (level == 10 && JXL(JxlEncoderSetCodestreamLevel)(enc, 10) != JXL_ENC_SUCCESS)
        return cx_enc_error(enc, "setting codestream level 10", message, size);
    if (m && cx_has(m->icc, m->icc_length)) {
        if (JXL(JxlEncoderSetICCProfile)(enc, m->icc, m->icc_length) != JXL_ENC_SUCCESS) {
            int rc = cx_enc_error(enc, "setting the ICC profile", message, size);
            if (rc == CS_ERR_STATE) rc = CS_ERR_UNSUPPORTED;  // 0.7 reports a bad profile as a generic error
            cs_format(message, size, "libjxl cannot use the ICC profile (%zu bytes)", m->icc_length);
            return rc;
        }
    } else {
        JxlColorEncoding srgb;
        JXL(JxlColorEncodingSetToSRGB)(&srgb, JXL_FALSE);
        if (JXL(JxlEncoderSetColorEncoding)(enc, &srgb) != JXL_ENC_SUCCESS)
            return cx_enc_error(enc, "setting the colour encoding", message, size);
    }
    if (has_boxes) {
        if (cx_has(m->exif, m->exif_length)) {
            if (m->exif_length > SIZE_MAX - 4) {
                cs_format(message, size, "EXIF too large");
                return CS_ERR_LIMIT;
            }
            uint8_t *payload = malloc(m->exif_length + 4);
            if (!payload) {
                cs_format(message, size, "out of memory for the EXIF box");
                return CS_ERR_NOMEM;
            }
            memset(payload, 0, 4);  // offset of the TIFF header: right after this field
            memcpy(payload + 4, m->exif, m->exif_length);
            JxlEncoderStatus st = JXL(JxlEncoderAddBox)(enc, "Exif", payload, m->exif_length + 4, JXL_FALSE);
            free(payload);
            if (st != JXL_ENC_SUCCESS) return cx_enc_error(enc, "adding the EXIF box", message, size);
        }
        if (cx_has(m->xmp, m->xmp_length) && JXL(JxlEncoderAddBox)(enc, "xml ", m->xmp, m->xmp_length, JXL_FALSE) != JXL_ENC_SUCCESS)
            return cx_enc_error(enc, "adding the XMP box", message, size);
        JXL(JxlEncoderCloseBoxes)(enc);
    }

    JxlEncoderFrameSettings *fs = JXL(JxlEncoderFrameSettingsCreate)(enc, NULL);
    if (!fs) {
        cs_format(message, size, "out of memory for the frame settings");
        return CS_ERR_NOMEM;
    }
    int effort = s->effort < 1 ? 1 : s->effort > 9 ? 9 : s->effort;
    if (JXL(JxlEncoderFrameSettingsSetOption)(fs, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS)
        return cx_enc_error(enc, "setting the effort", message, size);
    if (s->lossless) {
        if (JXL(JxlEncoderSetFrameLossless)(fs, JXL_TRUE) != JXL_ENC_SUCCESS ||
            JXL(JxlEncoderFrameSettingsSetOption)(fs, JXL_ENC_FRAME_SETTING_KEEP_INVISIBLE, 1) != JXL_ENC_SUCCESS)
            return cx_enc_error(enc, "setting lossless mode", message, size);
    } else if (JXL(JxlEncoderSetFrameDistance)(fs, cx_distance(s->quality)) != JXL_ENC_SUCCESS) {
        return cx_enc_error(enc, "setting the distance", message, size);
    }
    *out = fs;
    return CS_OK;
}

// Pulls everything libjxl has ready into `file` (growable, overflow-checked).
static int cx_enc_drain(JxlEncoder *enc, cx_buffer *file, char *message, size_t size) {
    for (;;) {
        if (file->capacity - file->size < 4096 && cx_buffer_reserve(file, file->capacity / 2 + 65536, SIZE_MAX) != 0) {
            cs_format(message, size, "out of memory for the encoded file");
            return CS_ERR_NOMEM;
        }
        uint8_t *next = file->bytes + file->size;
        size_t avail = file->capacity - file->size;
        JxlEncoderStatus st = JXL(JxlEncoderProcessOutput)(enc, &next, &avail);
        file->size = (size_t)(next - file->bytes);
        if (st == JXL_ENC_NEED_MORE_OUTPUT) {
            if (cx_buffer_reserve(file, file->capacity / 2 + 65536, SIZE_MAX) != 0) {
                cs_format(message, size, "out of memory for the encoded file");
                return CS_ERR_NOMEM;
            }
            continue;
        }
        if (st == JXL_ENC_SUCCESS) return CS_OK;
        return cx_enc_error(enc, "encoding", message, size);
    }
}

static int cx_write_file(int fd, const cx_buffer *file, char *message, size_t size, int *error_number) {
    int e = cs_write_all(fd, file->bytes, file->size);
    if (e) {
        if (error_number) *error_number = e;
        cs_format(message, size, "write failed: %s", strerror(e));
        return CS_ERR_IO;
    }
    return CS_OK;
}

// Copies width x height pixels from RGBA rows into a packed RGBA (has_alpha) or
// RGB buffer, the layout JxlEncoderAddImageFrame takes (align 0).
static uint8_t *cx_pack(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int has_alpha,
                        size_t *out_size) {
    size_t channels = has_alpha ? 4 : 3;
    if ((size_t)width > SIZE_MAX / channels / (height ? height : 1)) return NULL;
    size_t row = (size_t)width * channels, total = row * height;
    uint8_t *packed = malloc(total ? total : 1);
    if (!packed) return NULL;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *src = rgba + (size_t)y * stride;
        uint8_t *out = packed + (size_t)y * row;
        if (has_alpha) {
            memcpy(out, src, row);
        } else {
            for (uint32_t x = 0; x < width; x++) {
                out[3 * (size_t)x] = src[4 * (size_t)x];
                out[3 * (size_t)x + 1] = src[4 * (size_t)x + 1];
                out[3 * (size_t)x + 2] = src[4 * (size_t)x + 2];
            }
        }
    }
    *out_size = total;
    return packed;
}

static int cx_add_frame(JxlEncoder *enc, JxlEncoderFrameSettings *fs, const cx_settings *s, const uint8_t *rgba,
                        size_t stride, char *message, size_t size) {
    size_t packed_size = 0;
    uint8_t *packed = cx_pack(rgba, stride, s->width, s->height, s->has_alpha, &packed_size);
    if (!packed) {
        cs_format(message, size, "out of memory for the frame pixels");
        return CS_ERR_NOMEM;
    }
    JxlPixelFormat format = { s->has_alpha ? 4 : 3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    JxlEncoderStatus st = JXL(JxlEncoderAddImageFrame)(fs, &format, packed, packed_size);  // libjxl copies
    free(packed);
    if (st != JXL_ENC_SUCCESS) return cx_enc_error(enc, "adding the pixels", message, size);
    return CS_OK;
}

static int cx_check_input(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height) {
    if (!rgba || width == 0 || height == 0) return 0;
    if (stride < (size_t)width * 4) return 0;  // size_t is 64 bits wide: no overflow
    if (height > 1 && stride > SIZE_MAX / (height - 1)) return 0;
    return 1;
}

int cx_encode_image(int fd, const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int has_alpha,
                    int quality, int lossless, int effort, int threads, const cs_metadata *metadata,
                    char *message, size_t message_size, int *error_number) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (error_number) *error_number = 0;
    cs_format(message, message_size, "%s", "");
    if (!cx_available(message, message_size)) return CS_ERR_UNSUPPORTED;
    if (!cx_check_input(rgba, stride, width, height)) {
        cs_format(message, message_size, "invalid pixel buffer, size %ux%u or stride %zu", width, height, stride);
        return CS_ERR_STATE;
    }
    cx_settings s = { width, height, has_alpha ? 1 : 0, quality, lossless ? 1 : 0, effort, threads, 0, 0 };
    JxlEncoder *enc = JXL(JxlEncoderCreate)(NULL);
    if (!enc) {
        cs_format(message, message_size, "cannot create the libjxl encoder");
        return CS_ERR_NOMEM;
    }
    void *runner = cx_runner_create(threads);
    int rc = CS_OK;
    cx_buffer file = { 0 };
    JxlEncoderFrameSettings *fs = NULL;
    if (threads > 1 && !runner) {
        cs_format(message, message_size, "cannot create the libjxl thread runner");
        rc = CS_ERR_NOMEM;
    } else if (runner && JXL(JxlEncoderSetParallelRunner)(enc, JXL(JxlThreadParallelRunner), runner) != JXL_ENC_SUCCESS) {
        rc = cx_enc_error(enc, "setting the thread runner", message, message_size);
    }
    if (rc == CS_OK) rc = cx_enc_setup(enc, &s, metadata, &fs, message, message_size);
    if (rc == CS_OK) rc = cx_add_frame(enc, fs, &s, rgba, stride, message, message_size);
    if (rc == CS_OK) {
        JXL(JxlEncoderCloseInput)(enc);
        rc = cx_enc_drain(enc, &file, message, message_size);
    }
    JXL(JxlEncoderDestroy)(enc);
    if (runner) JXL(JxlThreadParallelRunnerDestroy)(runner);
    if (rc == CS_OK) rc = cx_write_file(fd, &file, message, message_size, error_number);
    cx_buffer_free(&file);
    return rc;
}

// ---------------------------------------------------------------- animation encoder

struct cx_anim_encoder {
    cx_settings settings;
    uint8_t **frames;        // packed width*height*4 RGBA each
    uint32_t *delays;        // ms
    size_t count, capacity;
    int finished;
    cs_error error;               // the last failure
};

#define cx_anim_fail(e, ...) cs_fail(&(e)->error, __VA_ARGS__)

cx_anim_encoder *cx_anim_encoder_create(uint32_t width, uint32_t height, int has_alpha, int loop_count, int quality,
                                        int lossless, int effort, int threads) {
    if (width == 0 || height == 0 || (size_t)width > SIZE_MAX / 4 / height || !cx_available(NULL, 0)) return NULL;
    cx_anim_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    cx_settings s = { width, height, has_alpha ? 1 : 0, quality, lossless ? 1 : 0, effort, threads, 1,
                      loop_count < 0 ? 0 : loop_count };
    e->settings = s;
    return e;
}

static void cx_anim_free_frames(cx_anim_encoder *e) {
    for (size_t i = 0; i < e->count; i++) free(e->frames[i]);
    free(e->frames);
    free(e->delays);
    e->frames = NULL;
    e->delays = NULL;
    e->count = e->capacity = 0;
}

void cx_anim_encoder_destroy(cx_anim_encoder *e) {
    if (!e) return;
    cx_anim_free_frames(e);
    free(e);
}

const char *cx_anim_encoder_message(const cx_anim_encoder *e) { return e ? e->error.message : "out of memory"; }

int cx_anim_encoder_add(cx_anim_encoder *e, const uint8_t *rgba, size_t stride, int delay_ms) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (!e) return CS_ERR_NOMEM;
    if (e->finished) return cx_anim_fail(e, CS_ERR_STATE, "the animation was already finished");
    if (!cx_check_input(rgba, stride, e->settings.width, e->settings.height))
        return cx_anim_fail(e, CS_ERR_STATE, "invalid pixel buffer or stride");
    if (delay_ms < 0) return cx_anim_fail(e, CS_ERR_STATE, "negative frame delay %d ms", delay_ms);
    if (e->count == e->capacity) {
        size_t capacity = e->capacity ? e->capacity * 2 : 16;
        if (capacity > SIZE_MAX / sizeof(uint8_t *) || capacity > UINT32_MAX)
            return cx_anim_fail(e, CS_ERR_LIMIT, "too many frames");
        uint8_t **frames = realloc(e->frames, capacity * sizeof *frames);
        if (!frames) return cx_anim_fail(e, CS_ERR_NOMEM, "out of memory for frame %zu", e->count + 1);
        e->frames = frames;
        uint32_t *delays = realloc(e->delays, capacity * sizeof *delays);
        if (!delays) return cx_anim_fail(e, CS_ERR_NOMEM, "out of memory for frame %zu", e->count + 1);
        e->delays = delays;
        e->capacity = capacity;
    }
    size_t row = (size_t)e->settings.width * 4;
    uint8_t *copy = malloc(row * e->settings.height);  // create() checked the product
    if (!copy) return cx_anim_fail(e, CS_ERR_NOMEM, "out of memory for frame %zu", e->count + 1);
    for (uint32_t y = 0; y < e->settings.height; y++) memcpy(copy + (size_t)y * row, rgba + (size_t)y * stride, row);
    e->frames[e->count] = copy;
    e->delays[e->count] = delay_ms == 0 ? 1 : (uint32_t)delay_ms;
    e->count++;
    return CS_OK;
}

int cx_anim_encoder_finish(cx_anim_encoder *e, int fd, const cs_metadata *metadata, int *error_number) {
    CS_QUIET_SCOPE;  // the libraries print on fd 2: see cshim_support.h
    if (error_number) *error_number = 0;
    if (!e) return CS_ERR_NOMEM;
    if (e->finished) return cx_anim_fail(e, CS_ERR_STATE, "the animation was already finished");
    if (e->count == 0) return cx_anim_fail(e, CS_ERR_STATE, "the animation has no frames");
    e->finished = 1;
    e->error.message[0] = '\0';
    const cx_settings *s = &e->settings;
    JxlEncoder *enc = JXL(JxlEncoderCreate)(NULL);
    if (!enc) {
        cx_anim_free_frames(e);
        return cx_anim_fail(e, CS_ERR_NOMEM, "cannot create the libjxl encoder");
    }
    void *runner = cx_runner_create(s->threads);
    int rc = CS_OK;
    cx_buffer file = { 0 };
    JxlEncoderFrameSettings *fs = NULL;
    if (s->threads > 1 && !runner) {
        rc = cx_anim_fail(e, CS_ERR_NOMEM, "cannot create the libjxl thread runner");
    } else if (runner && JXL(JxlEncoderSetParallelRunner)(enc, JXL(JxlThreadParallelRunner), runner) != JXL_ENC_SUCCESS) {
        rc = cx_enc_error(enc, "setting the thread runner", e->error.message, sizeof e->error.message);
    }
    if (rc == CS_OK) rc = cx_enc_setup(enc, s, metadata, &fs, e->error.message, sizeof e->error.message);
    for (size_t i = 0; rc == CS_OK && i < e->count; i++) {
        JxlFrameHeader fh;
        JXL(JxlEncoderInitFrameHeader)(&fh);
        fh.duration = e->delays[i];
        if (JXL(JxlEncoderSetFrameHeader)(fs, &fh) != JXL_ENC_SUCCESS) {
            rc = cx_enc_error(enc, "setting a frame header", e->error.message, sizeof e->error.message);
            break;
        }
        rc = cx_add_frame(enc, fs, s, e->frames[i], (size_t)s->width * 4, e->error.message, sizeof e->error.message);
        free(e->frames[i]);
        e->frames[i] = NULL;
        if (rc != CS_OK) break;
        if (i + 1 == e->count) JXL(JxlEncoderCloseInput)(enc);
        // Encode this frame now so libjxl's float copy of it can go.
        rc = cx_enc_drain(enc, &file, e->error.message, sizeof e->error.message);
    }
    JXL(JxlEncoderDestroy)(enc);
    if (runner) JXL(JxlThreadParallelRunnerDestroy)(runner);
    cx_anim_free_frames(e);
    if (rc == CS_OK) rc = cx_write_file(fd, &file, e->error.message, sizeof e->error.message, error_number);
    cx_buffer_free(&file);
    e->error.code = rc;
    return rc;
}
