// libwebp / libwebpdemux / libwebpmux behind return codes: see include/cwebp_shim.h.
// The calls follow libwebp's headers (decode.h, encode.h, demux.h, mux.h). Notes
// on libwebp 1.2.x behaviour this file relies on are next to the code using it.
#include "cwebp_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#define CW_ALPHA_SCAN_FRAMES 1024  // see cw_decoder_read_header

// libwebp's method (0 fast .. 6 small), clamped.
static int cw_method(int method) { return method < 0 ? 0 : method > 6 ? 6 : method; }


// ---------------------------------------------------------------- decoder

struct cw_decoder {
    uint8_t *data;
    size_t length;
    WebPDemuxer *demux;     // set by a successful read_header; points into `data`
    WebPAnimDecoder *anim;  // created on demand by next_frame / read_image of an animation
    int header_read;
    int animated;
    uint32_t width, height, frame_count;
    uint32_t frames_returned;
    int last_timestamp;     // WebPAnimDecoder's timestamp of the previous frame
    cs_error error;         // the last failure
};

#define cw_fail(d, ...) cs_fail(&(d)->error, __VA_ARGS__)

cw_decoder *cw_decoder_create(const uint8_t *data, size_t length) {
    cw_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = cs_copy(data, length);
    if (!d->data) { free(d); return NULL; }
    d->length = length;
    return d;
}

void cw_decoder_destroy(cw_decoder *d) {
    if (!d) return;
    WebPAnimDecoderDelete(d->anim);  // both accept NULL
    WebPDemuxDelete(d->demux);
    free(d->data);
    free(d);
}

const char *cw_decoder_message(const cw_decoder *d) { return d ? d->error.message : "out of memory"; }

// WebPDemux reports "need more data" both for a cut-off WebP file and for any
// input shorter than a RIFF + chunk header (20 bytes), before it looks at the
// magic. Tell the two apart by the bytes we do have: "RIFF" ???? "WEBP".
static int cw_is_webp_prefix(const uint8_t *p, size_t n) {
    static const char riff[4] = { 'R', 'I', 'F', 'F' }, webp[4] = { 'W', 'E', 'B', 'P' };
    size_t k = n < 4 ? n : 4;
    if (memcmp(p, riff, k) != 0) return 0;
    if (n > 8) {
        k = n - 8 < 4 ? n - 8 : 4;
        if (memcmp(p + 8, webp, k) != 0) return 0;
    }
    return 1;
}

static const uint8_t *cw_chunk(const WebPDemuxer *demux, const char fourcc[4], size_t *length) {
    WebPChunkIterator it;
    const uint8_t *bytes = NULL;
    *length = 0;
    // The demuxer stores ICCP/EXIF/XMP chunks only when the VP8X flag for them
    // is set (as browsers do), so a stray chunk without its flag is not reported.
    if (WebPDemuxGetChunk(demux, fourcc, 1, &it) && it.chunk.size > 0) {
        bytes = it.chunk.bytes;
        *length = it.chunk.size;
    }
    WebPDemuxReleaseChunkIterator(&it);
    return bytes;
}

int cw_decoder_read_header(cw_decoder *d, uint64_t max_pixels, uint32_t max_frames, cw_info *info) {
    if (!d) return CS_ERR_NOMEM;
    if (!info) return cw_fail(d, CS_ERR_STATE, "no info structure");
    memset(info, 0, sizeof *info);
    if (d->header_read) return cw_fail(d, CS_ERR_STATE, "the header was already read");
    if (d->length == 0) return cw_fail(d, CS_ERR_TRUNCATED, "the file is empty");

    // WebPDemuxPartial rather than WebPDemux: the latter returns NULL for both a
    // cut-off file and garbage; the partial parser's state separates the two.
    // Parsing allocates one small record per frame/chunk and never pixel memory.
    WebPData data = { d->data, d->length };
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    WebPDemuxer *demux = WebPDemuxPartial(&data, &state);
    if (!demux) {
        if (state == WEBP_DEMUX_PARSING_HEADER && cw_is_webp_prefix(d->data, d->length))
            return cw_fail(d, CS_ERR_TRUNCATED, "the file ends inside the WebP header (truncated)");
        return cw_fail(d, CS_ERR_CORRUPT, "not a WebP file, or its RIFF container is malformed");
    }
    if (state == WEBP_DEMUX_PARSING_HEADER) {  // (a VP8X file cut before the end of the VP8X chunk)
        WebPDemuxDelete(demux);
        return cw_fail(d, CS_ERR_TRUNCATED, "the file ends inside the WebP header (truncated)");
    }

    // From here (PARSED_HEADER or DONE) the canvas size is known. Check the limits
    // before reporting truncation: a partial parse counts the frames seen so far,
    // so exceeding the limit there means the whole file would exceed it too.
    uint32_t width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    uint32_t height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    uint32_t frames = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    uint32_t flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS);
    // The demuxer refuses a canvas of 2^32 pixels or more, and frames < 2^32: no overflow.
    uint64_t pixels = (uint64_t)width * height * (frames ? frames : 1);
    if (frames > max_frames) {
        WebPDemuxDelete(demux);
        return cw_fail(d, CS_ERR_LIMIT, "the file has %u frames, more than the limit of %u", frames, max_frames);
    }
    if (pixels > max_pixels) {
        WebPDemuxDelete(demux);
        if (frames > 1)
            return cw_fail(d, CS_ERR_LIMIT, "%ux%u x %u frames = %llu pixels exceeds the limit of %llu pixels",
                           width, height, frames, (unsigned long long)pixels, (unsigned long long)max_pixels);
        return cw_fail(d, CS_ERR_LIMIT, "%ux%u = %llu pixels exceeds the limit of %llu pixels", width, height,
                       (unsigned long long)pixels, (unsigned long long)max_pixels);
    }
    if (state != WEBP_DEMUX_DONE) {
        WebPDemuxDelete(demux);
        return cw_fail(d, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
    }
    if (width == 0 || height == 0 || frames == 0) {  // the demuxer's validation rules these out
        WebPDemuxDelete(demux);
        return cw_fail(d, CS_ERR_CORRUPT, "the file holds no image");
    }

    int animated = (flags & ANIMATION_FLAG) ? 1 : 0;
    // ALPHA_FLAG is only a hint, and frames carry their own alpha. An animation
    // can also show the transparent starting canvas where its first frame does
    // not reach or where a frame is disposed to background, so it may have
    // alpha even when every frame is opaque.
    // libwebp finds frame n by walking its list from the start, so visiting all
    // frames is quadratic (a 2.5 MB file of 50000 frames: 2.8 s), and callers
    // may read the header with no frame limit. Past CW_ALPHA_SCAN_FRAMES frames
    // an animation is simply reported as having alpha.
    int has_alpha = (flags & ALPHA_FLAG) ? 1 : 0;
    if (animated && frames > CW_ALPHA_SCAN_FRAMES) has_alpha = 1;
    WebPIterator it;
    if (!has_alpha && WebPDemuxGetFrame(demux, 1, &it)) {
        do {
            if (it.has_alpha) has_alpha = 1;
            if (animated && it.frame_num == 1 &&
                (it.x_offset != 0 || it.y_offset != 0 || (uint32_t)it.width != width || (uint32_t)it.height != height))
                has_alpha = 1;
            if (animated && it.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND) has_alpha = 1;
        } while (!has_alpha && WebPDemuxNextFrame(&it));
        WebPDemuxReleaseIterator(&it);
    }

    d->demux = demux;
    d->header_read = 1;
    d->animated = animated;
    d->width = width;
    d->height = height;
    d->frame_count = frames;

    info->width = width;
    info->height = height;
    info->has_alpha = has_alpha;
    info->animated = animated;
    info->frame_count = frames;
    info->loop_count = animated ? (int)WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT) : 1;  // 16 bits in the file
    info->metadata.icc = cw_chunk(demux, "ICCP", &info->metadata.icc_length);
    info->metadata.exif = cw_chunk(demux, "EXIF", &info->metadata.exif_length);
    info->metadata.xmp = cw_chunk(demux, "XMP ", &info->metadata.xmp_length);
    // The one metadata budget: a chunk over it is left out (its size noted), not carried.
    cs_metadata *m = &info->metadata;
    if (m->icc_length > CS_METADATA_BUDGET) { m->icc_dropped = m->icc_length; m->icc = NULL; m->icc_length = 0; }
    if (m->exif_length > CS_METADATA_BUDGET) { m->exif_dropped = m->exif_length; m->exif = NULL; m->exif_length = 0; }
    if (m->xmp_length > CS_METADATA_BUDGET) { m->xmp_dropped = m->xmp_length; m->xmp = NULL; m->xmp_length = 0; }
    return CS_OK;
}

static int cw_check_output(cw_decoder *d, const uint8_t *dst, size_t stride) {
    if (!d->header_read) return cw_fail(d, CS_ERR_STATE, "the header has not been read");
    if (!dst) return cw_fail(d, CS_ERR_STATE, "no output buffer");
    // libwebp takes the stride as an int; the width is at most 2^24 so width*4 fits.
    if (stride < (size_t)d->width * 4 || stride > INT_MAX)
        return cw_fail(d, CS_ERR_STATE, "invalid row stride %zu for width %u", stride, d->width);
    return CS_OK;
}

static int cw_status(cw_decoder *d, VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return CS_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return cw_fail(d, CS_ERR_NOMEM, "out of memory");
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        return cw_fail(d, CS_ERR_UNSUPPORTED, "the image uses a WebP feature this libwebp cannot decode");
    case VP8_STATUS_NOT_ENOUGH_DATA:
        return cw_fail(d, CS_ERR_TRUNCATED, "the image data ends before the image does (truncated)");
    default:
        // A cut-off VP8L bitstream also lands here (libwebp reports a bitstream
        // error); for RIFF files read_header has already ruled truncation out.
        return cw_fail(d, CS_ERR_CORRUPT, "the image data is corrupt or incomplete (libwebp status %d)", (int)status);
    }
}

static int cw_open_anim(cw_decoder *d, int use_threads) {
    if (d->anim) return CS_OK;
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return cw_fail(d, CS_ERR_STATE, "libwebpdemux version mismatch");
    options.color_mode = MODE_RGBA;  // not premultiplied: RGB under partial alpha is kept
    options.use_threads = use_threads ? 1 : 0;
    WebPData data = { d->data, d->length };
    // WebPAnimDecoder demuxes again (cheaply) and allocates two canvases of
    // width*height*4 bytes, which read_header bounded by max_pixels.
    d->anim = WebPAnimDecoderNew(&data, &options);
    if (!d->anim) return cw_fail(d, CS_ERR_NOMEM, "cannot start the animation decoder (out of memory?)");
    WebPAnimInfo ai;
    if (!WebPAnimDecoderGetInfo(d->anim, &ai) || ai.canvas_width != d->width || ai.canvas_height != d->height ||
        ai.frame_count != d->frame_count) {
        WebPAnimDecoderDelete(d->anim);
        d->anim = NULL;
        return cw_fail(d, CS_ERR_CORRUPT, "the animation decoder disagrees with the container");
    }
    d->frames_returned = 0;
    d->last_timestamp = 0;
    return CS_OK;
}

// Decodes the next composited canvas into dst. Caller checked the output.
static int cw_anim_next(cw_decoder *d, uint8_t *dst, size_t stride, int *delay_ms) {
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(d->anim, &canvas, &timestamp) || !canvas)
        return cw_fail(d, CS_ERR_CORRUPT, "frame %u of %u could not be decoded (corrupt data)",
                       d->frames_returned + 1, d->frame_count);
    size_t row = (size_t)d->width * 4;
    for (uint32_t y = 0; y < d->height; y++) memcpy(dst + (size_t)y * stride, canvas + (size_t)y * row, row);
    // Timestamps are the running sum of the frame durations, so the difference
    // is this frame's own duration (0 for a still image).
    if (delay_ms) *delay_ms = timestamp - d->last_timestamp;
    d->last_timestamp = timestamp;
    d->frames_returned++;
    return CS_OK;
}

int cw_decoder_read_image(cw_decoder *d, uint8_t *dst, size_t stride, int use_threads) {
    if (!d) return CS_ERR_NOMEM;
    int rc = cw_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;

    if (d->animated) {
        // The first canvas of an animation is the first frame composited onto a
        // transparent canvas; let WebPAnimDecoder do it so read_image and
        // next_frame agree bit for bit (blend rules for alpha 0, offsets...).
        if ((rc = cw_open_anim(d, use_threads)) != CS_OK) return rc;
        WebPAnimDecoderReset(d->anim);
        d->frames_returned = 0;
        d->last_timestamp = 0;
        rc = cw_anim_next(d, dst, stride, NULL);
        WebPAnimDecoderReset(d->anim);
        d->frames_returned = 0;
        d->last_timestamp = 0;
        return rc;
    }

    // A still image: decode the frame's bitstream (ALPH + VP8, or VP8L) straight
    // into the caller's rows, with no intermediate canvas.
    WebPIterator it;
    if (!WebPDemuxGetFrame(d->demux, 1, &it))
        return cw_fail(d, CS_ERR_CORRUPT, "the file holds no image");
    // The demuxer checks that a still frame matches the canvas; keep our own check
    // since libwebp writes the frame's size into our buffer sized for the canvas.
    if ((uint32_t)it.width != d->width || (uint32_t)it.height != d->height) {
        WebPDemuxReleaseIterator(&it);
        return cw_fail(d, CS_ERR_CORRUPT, "the image is %dx%d but the canvas %ux%u", it.width, it.height, d->width,
                       d->height);
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        WebPDemuxReleaseIterator(&it);
        return cw_fail(d, CS_ERR_STATE, "libwebp version mismatch");
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = dst;
    config.output.u.RGBA.stride = (int)stride;
    // Exactly what libwebp checks against: the last row need not be padded.
    config.output.u.RGBA.size = stride * (d->height - 1) + (size_t)d->width * 4;
    config.options.use_threads = use_threads ? 1 : 0;
    VP8StatusCode status = WebPDecode(it.fragment.bytes, it.fragment.size, &config);
    WebPFreeDecBuffer(&config.output);  // frees nothing for external memory; kept for symmetry
    WebPDemuxReleaseIterator(&it);
    return cw_status(d, status);
}

int cw_decoder_next_frame(cw_decoder *d, uint8_t *dst, size_t stride, int use_threads, int *delay_ms) {
    if (!d) return CS_ERR_NOMEM;
    if (delay_ms) *delay_ms = 0;
    int rc = cw_check_output(d, dst, stride);
    if (rc != CS_OK) return rc;
    if ((rc = cw_open_anim(d, use_threads)) != CS_OK) return rc;
    if (d->frames_returned >= d->frame_count)
        return cw_fail(d, CS_ERR_STATE, "all %u frames were already read", d->frame_count);
    return cw_anim_next(d, dst, stride, delay_ms);
}

// ---------------------------------------------------------------- metadata

static int cw_has(const uint8_t *p, size_t n) { return p != NULL && n > 0; }

static int cw_has_metadata(const cs_metadata *m) {
    return m && (cw_has(m->icc, m->icc_length) || cw_has(m->exif, m->exif_length) || cw_has(m->xmp, m->xmp_length));
}

static int cw_mux_code(WebPMuxError err) {
    return err == WEBP_MUX_MEMORY_ERROR ? CS_ERR_NOMEM : CS_ERR_STATE;
}

// Re-muxes a complete WebP file (still or animated) with the metadata chunks.
// WebPMuxAssemble writes the VP8X chunk with the ICCP/EXIF/XMP/ALPHA/ANIMATION
// flags and puts the chunks in the order the container spec requires.
// On success *out holds WebPMalloc'ed data (release with WebPDataClear).
static int cw_add_metadata(const WebPData *in, const cs_metadata *m, WebPData *out, char *message, size_t size) {
    WebPDataInit(out);
    WebPMux *mux = WebPMuxCreate(in, 0);  // 0: refer to `in`, which outlives mux
    if (!mux) {
        cs_format(message, size, "cannot prepare the metadata chunks (out of memory?)");
        return CS_ERR_NOMEM;
    }
    WebPMuxError err = WEBP_MUX_OK;
    const char *what = "";
    if (cw_has(m->icc, m->icc_length)) {
        WebPData chunk = { m->icc, m->icc_length };
        err = WebPMuxSetChunk(mux, "ICCP", &chunk, 0);
        what = "ICC profile";
    }
    if (err == WEBP_MUX_OK && cw_has(m->exif, m->exif_length)) {
        WebPData chunk = { m->exif, m->exif_length };
        err = WebPMuxSetChunk(mux, "EXIF", &chunk, 0);
        what = "EXIF";
    }
    if (err == WEBP_MUX_OK && cw_has(m->xmp, m->xmp_length)) {
        WebPData chunk = { m->xmp, m->xmp_length };
        err = WebPMuxSetChunk(mux, "XMP ", &chunk, 0);
        what = "XMP";
    }
    if (err == WEBP_MUX_OK) {
        err = WebPMuxAssemble(mux, out);
        what = "file";
    }
    WebPMuxDelete(mux);
    if (err != WEBP_MUX_OK) {
        WebPDataClear(out);
        cs_format(message, size, "cannot add the %s chunk (WebPMux error %d)", what, (int)err);
        return cw_mux_code(err);
    }
    return CS_OK;
}

static int cw_write_file(int fd, const WebPData *file, char *message, size_t size, int *error_number) {
    int e = cs_write_all(fd, file->bytes, file->size);
    if (e) {
        if (error_number) *error_number = e;
        cs_format(message, size, "write failed: %s", strerror(e));
        return CS_ERR_IO;
    }
    return CS_OK;
}

// ---------------------------------------------------------------- still encoder

static int cw_check_size(uint32_t width, uint32_t height) {
    return width >= 1 && height >= 1 && width <= WEBP_MAX_DIMENSION && height <= WEBP_MAX_DIMENSION;
}

static int cw_encoding_error(WebPEncodingError e, char *message, size_t size) {
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BAD_WRITE:  // our writer is WebPMemoryWrite, which fails only on allocation
        cs_format(message, size, "out of memory while encoding");
        return CS_ERR_NOMEM;
    case VP8_ENC_ERROR_BAD_DIMENSION:
        cs_format(message, size, "WebP images are at most %dx%d pixels", WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION);
        return CS_ERR_UNSUPPORTED;
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW:
        cs_format(message, size, "the image is too large for lossy WebP at this quality (a VP8 partition "
                                  "exceeds its size limit); try a lower quality or lossless");
        return CS_ERR_LIMIT;
    case VP8_ENC_ERROR_FILE_TOO_BIG:
        cs_format(message, size, "the encoded file would exceed 4 GiB");
        return CS_ERR_LIMIT;
    default:
        cs_format(message, size, "libwebp could not encode the image (error %d)", (int)e);
        return CS_ERR_STATE;
    }
}

static int cw_encode_picture(WebPConfig *config, WebPPicture *picture, int fd, const cs_metadata *metadata,
                             char *message, size_t message_size, int *error_number);

int cw_encode_image(int fd, const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int has_alpha,
                    int lossless, int quality, int method, int threads, const cs_metadata *metadata,
                    char *message, size_t message_size, int *error_number) {
    if (error_number) *error_number = 0;
    cs_format(message, message_size, "%s", "");
    if (!cw_check_size(width, height)) {
        cs_format(message, message_size, "WebP images are 1 to %d pixels wide and high, not %ux%u",
                   WEBP_MAX_DIMENSION, width, height);
        return (width == 0 || height == 0) ? CS_ERR_STATE : CS_ERR_UNSUPPORTED;
    }
    if (!rgba || stride < (size_t)width * 4 || stride > INT_MAX) {
        cs_format(message, message_size, "invalid pixel buffer or stride");
        return CS_ERR_STATE;
    }

    WebPConfig config;
    if (!WebPConfigInit(&config)) {  // quality 75, method 4, exact 0
        cs_format(message, message_size, "libwebp version mismatch");
        return CS_ERR_STATE;
    }
    if (lossless) {
        config.lossless = 1;
        config.exact = 1;  // keep RGB under alpha 0: the decode must equal the input
    } else {
        config.quality = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    }
    config.method = cw_method(method);
    config.thread_level = threads ? 1 : 0;

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        cs_format(message, message_size, "libwebp version mismatch");
        return CS_ERR_STATE;
    }
    picture.width = (int)width;
    picture.height = (int)height;
    // Lossless works on ARGB; lossy on YUV 4:2:0, into which libwebp converts
    // straight from our RGBA rows when use_argb is 0 (no ARGB copy), as cwebp does.
    // RGBX import ignores the alpha bytes; RGBA import drops the alpha plane by
    // itself when every pixel is opaque.
    picture.use_argb = lossless ? 1 : 0;
    int imported = has_alpha ? WebPPictureImportRGBA(&picture, rgba, (int)stride)
                             : WebPPictureImportRGBX(&picture, rgba, (int)stride);
    if (!imported) {
        WebPPictureFree(&picture);
        cs_format(message, message_size, "out of memory while importing the pixels");
        return CS_ERR_NOMEM;
    }

    return cw_encode_picture(&config, &picture, fd, metadata, message, message_size, error_number);
}

// Encodes `picture` (freed here) with `config` and writes the file, metadata added.
static int cw_encode_picture(WebPConfig *config, WebPPicture *picture, int fd, const cs_metadata *metadata,
                             char *message, size_t message_size, int *error_number) {
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture->writer = WebPMemoryWrite;
    picture->custom_ptr = &writer;
    int ok = WebPEncode(config, picture);
    WebPEncodingError encode_error = picture->error_code;
    WebPPictureFree(picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        return cw_encoding_error(encode_error, message, message_size);
    }

    int rc;
    WebPData file = { writer.mem, writer.size };
    if (cw_has_metadata(metadata)) {
        WebPData with_metadata;
        rc = cw_add_metadata(&file, metadata, &with_metadata, message, message_size);
        if (rc == CS_OK) rc = cw_write_file(fd, &with_metadata, message, message_size, error_number);
        WebPDataClear(&with_metadata);
    } else {
        rc = cw_write_file(fd, &file, message, message_size, error_number);
    }
    WebPMemoryWriterClear(&writer);
    return rc;
}

// ---------------------------------------------------------------- lossy rows encoder

struct cw_rows_encoder {
    WebPPicture picture;  // YUV 4:2:0, filled a block of rows at a time
    uint32_t width, height, next_row;
    uint8_t *carry;       // an odd last row of a block, waiting for its pair (width * 4 bytes)
    int carrying;
};

cw_rows_encoder *cw_rows_encoder_create(uint32_t width, uint32_t height) {
    if (!cw_check_size(width, height)) return NULL;
    cw_rows_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->width = width;
    e->height = height;
    e->carry = malloc((size_t)width * 8);
    if (!e->carry || !WebPPictureInit(&e->picture)) { free(e->carry); free(e); return NULL; }
    e->picture.width = (int)width;
    e->picture.height = (int)height;
    e->picture.use_argb = 0;
    e->picture.colorspace = WEBP_YUV420;
    if (!WebPPictureAlloc(&e->picture)) { free(e->carry); free(e); return NULL; }
    return e;
}

void cw_rows_encoder_destroy(cw_rows_encoder *e) {
    if (!e) return;
    WebPPictureFree(&e->picture);
    free(e->carry);
    free(e);
}

// Converts `rows` RGBX rows (an even number, or the image's last ones) to YUV into the
// picture at e->next_row, through a small picture of their own: libwebp's conversion
// works on pairs of rows (4:2:0 chroma averages 2x2 blocks), so converting in even
// blocks gives exactly the planes a whole-image import gives.
static int cw_rows_convert(cw_rows_encoder *e, const uint8_t *rgba, size_t stride, uint32_t rows) {
    WebPPicture block;
    if (!WebPPictureInit(&block)) return CS_ERR_STATE;
    block.width = (int)e->width;
    block.height = (int)rows;
    block.use_argb = 0;
    if (!WebPPictureImportRGBX(&block, rgba, (int)stride)) { WebPPictureFree(&block); return CS_ERR_NOMEM; }
    WebPPicture *p = &e->picture;
    for (uint32_t y = 0; y < rows; y++)
        memcpy(p->y + (size_t)(e->next_row + y) * p->y_stride, block.y + (size_t)y * block.y_stride, e->width);
    uint32_t uv_width = (e->width + 1) / 2;
    for (uint32_t y = 0; y < (rows + 1) / 2; y++) {
        size_t row = (size_t)(e->next_row / 2 + y);
        memcpy(p->u + row * p->uv_stride, block.u + (size_t)y * block.uv_stride, uv_width);
        memcpy(p->v + row * p->uv_stride, block.v + (size_t)y * block.uv_stride, uv_width);
    }
    WebPPictureFree(&block);
    e->next_row += rows;
    return CS_OK;
}

int cw_rows_encoder_add(cw_rows_encoder *e, const uint8_t *rgba, size_t stride, uint32_t rows) {
    if (stride < (size_t)e->width * 4 || stride > INT_MAX || e->next_row + e->carrying + rows > e->height)
        return CS_ERR_STATE;
    size_t row_bytes = (size_t)e->width * 4;
    if (rows > 0 && e->carrying) {  // pair the waiting row with the first new one
        memcpy(e->carry + row_bytes, rgba, row_bytes);
        e->carrying = 0;
        int rc = cw_rows_convert(e, e->carry, row_bytes, 2);
        if (rc != CS_OK) return rc;
        rgba += stride;
        rows -= 1;
    }
    uint32_t even = rows & ~1u;
    int last = e->next_row + rows == e->height;
    if (last) even = rows;  // the image's last rows, odd or not
    if (even > 0) {
        int rc = cw_rows_convert(e, rgba, stride, even);
        if (rc != CS_OK) return rc;
    }
    if (even < rows) {
        memcpy(e->carry, rgba + (size_t)even * stride, row_bytes);
        e->carrying = 1;
    }
    return CS_OK;
}

int cw_rows_encoder_finish(cw_rows_encoder *e, int fd, int quality, int method, int threads,
                           const cs_metadata *metadata,
                           char *message, size_t message_size, int *error_number) {
    if (error_number) *error_number = 0;
    cs_format(message, message_size, "%s", "");
    if (e->next_row != e->height || e->carrying) {
        cs_format(message, message_size, "%u of %u rows given", e->next_row, e->height);
        return CS_ERR_STATE;
    }
    WebPConfig config;
    if (!WebPConfigInit(&config)) {
        cs_format(message, message_size, "libwebp version mismatch");
        return CS_ERR_STATE;
    }
    config.quality = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    config.method = cw_method(method);
    config.thread_level = threads ? 1 : 0;
    // The picture goes to the encoder (which frees it); the encoder object keeps none.
    WebPPicture picture = e->picture;
    memset(&e->picture, 0, sizeof e->picture);
    return cw_encode_picture(&config, &picture, fd, metadata, message, message_size, error_number);
}

// ---------------------------------------------------------------- animation encoder

struct cw_anim_encoder {
    WebPAnimEncoder *enc;
    WebPConfig config;
    uint32_t width, height;
    long long timestamp;  // start of the next frame = sum of the delays so far (ms)
    uint32_t frames;
    int finished;
    cs_error error;         // the last failure
};

#define cw_anim_fail(e, ...) cs_fail(&(e)->error, __VA_ARGS__)

cw_anim_encoder *cw_anim_encoder_create(uint32_t width, uint32_t height, int loop_count, int lossless, int quality,
                                        int method, int threads) {
    if (!cw_check_size(width, height)) return NULL;
    cw_anim_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&e->config)) { free(e); return NULL; }
    // The ANIM chunk stores the loop count in 16 bits; WebPMux rejects larger values.
    options.anim_params.loop_count = loop_count < 0 ? 0 : loop_count > 65535 ? 65535 : loop_count;
    options.anim_params.bgcolor = 0x00000000;  // transparent: what decoders start from anyway
    options.allow_mixed = 0;                   // every frame lossy, or every frame lossless, as asked
    if (lossless) {
        e->config.lossless = 1;
        e->config.exact = 1;  // composited frames decode to exactly the frames added
    } else {
        e->config.quality = (float)(quality < 0 ? 0 : quality > 100 ? 100 : quality);
    }
    e->config.method = cw_method(method);
    e->config.thread_level = threads ? 1 : 0;
    e->enc = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (!e->enc) { free(e); return NULL; }
    e->width = width;
    e->height = height;
    return e;
}

void cw_anim_encoder_destroy(cw_anim_encoder *e) {
    if (!e) return;
    WebPAnimEncoderDelete(e->enc);
    free(e);
}

const char *cw_anim_encoder_message(const cw_anim_encoder *e) { return e ? e->error.message : "out of memory"; }

static int cw_anim_lib_error(cw_anim_encoder *e, int code, const char *what) {
    const char *reason = WebPAnimEncoderGetError(e->enc);
    return cw_anim_fail(e, code, "%s%s%s", what, reason && *reason ? ": " : "", reason ? reason : "");
}

int cw_anim_encoder_add(cw_anim_encoder *e, const uint8_t *rgba, size_t stride, int delay_ms) {
    if (!e) return CS_ERR_NOMEM;
    if (e->finished) return cw_anim_fail(e, CS_ERR_STATE, "the animation was already finished");
    if (!rgba || stride < (size_t)e->width * 4 || stride > INT_MAX)
        return cw_anim_fail(e, CS_ERR_STATE, "invalid pixel buffer or stride");
    if (delay_ms < 0) return cw_anim_fail(e, CS_ERR_STATE, "negative frame delay %d ms", delay_ms);
    // ANMF stores a duration in 24 bits and WebPAnimEncoderAdd refuses a longer
    // gap between timestamps (it would only fail at cw_anim_encoder_finish).
    if (delay_ms > 0xFFFFFF)
        return cw_anim_fail(e, CS_ERR_UNSUPPORTED, "a WebP frame lasts at most 16777215 ms, not %d ms", delay_ms);
    // WebPAnimEncoder takes int timestamps (their running sum must fit).
    if (e->timestamp + delay_ms > INT_MAX)
        return cw_anim_fail(e, CS_ERR_LIMIT, "the animation would be longer than %d ms", INT_MAX);

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return cw_anim_fail(e, CS_ERR_STATE, "libwebp version mismatch");
    picture.width = (int)e->width;
    picture.height = (int)e->height;
    picture.use_argb = 1;  // WebPAnimEncoder works on ARGB (it would convert YUV back, lossily)
    if (!WebPPictureImportRGBA(&picture, rgba, (int)stride)) {
        WebPPictureFree(&picture);
        return cw_anim_fail(e, CS_ERR_NOMEM, "out of memory while importing frame %u", e->frames + 1);
    }
    // The encoder copies the frame into its own canvas, so the picture can go.
    int ok = WebPAnimEncoderAdd(e->enc, &picture, (int)e->timestamp, &e->config);
    WebPEncodingError encode_error = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        int code = (encode_error == VP8_ENC_ERROR_OUT_OF_MEMORY || encode_error == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY)
                       ? CS_ERR_NOMEM : CS_ERR_STATE;
        char what[64];
        snprintf(what, sizeof what, "cannot encode frame %u", e->frames + 1);
        return cw_anim_lib_error(e, code, what);
    }
    e->timestamp += delay_ms;
    e->frames++;
    return CS_OK;
}

int cw_anim_encoder_finish(cw_anim_encoder *e, int fd, const cs_metadata *metadata, int *error_number) {
    if (error_number) *error_number = 0;
    if (!e) return CS_ERR_NOMEM;
    if (e->finished) return cw_anim_fail(e, CS_ERR_STATE, "the animation was already finished");
    if (e->frames == 0) return cw_anim_fail(e, CS_ERR_STATE, "the animation has no frames");
    e->finished = 1;
    // A NULL frame at the end timestamp sets the last frame's duration (without
    // it libwebp would use the average of the others).
    if (!WebPAnimEncoderAdd(e->enc, NULL, (int)e->timestamp, NULL))
        return cw_anim_lib_error(e, CS_ERR_STATE, "cannot end the animation");
    WebPData file;
    WebPDataInit(&file);
    if (!WebPAnimEncoderAssemble(e->enc, &file)) {
        WebPDataClear(&file);
        return cw_anim_lib_error(e, CS_ERR_NOMEM, "cannot assemble the animation");
    }
    int rc;
    if (cw_has_metadata(metadata)) {
        WebPData with_metadata;
        rc = cw_add_metadata(&file, metadata, &with_metadata, e->error.message, sizeof e->error.message);
        if (rc == CS_OK) rc = cw_write_file(fd, &with_metadata, e->error.message, sizeof e->error.message, error_number);
        WebPDataClear(&with_metadata);
    } else {
        rc = cw_write_file(fd, &file, e->error.message, sizeof e->error.message, error_number);
    }
    WebPDataClear(&file);
    e->error.code = rc;
    return rc;
}
