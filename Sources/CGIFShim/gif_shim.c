// giflib behind a small API: see include/cgif_shim.h.
//
// Decoding uses giflib's record-level calls (DGifGetRecordType, DGifGetImageHeader,
// DGifGetLine, ...) over an in-memory reader, never DGifSlurp: slurping allocates every
// frame's raster at its declared size before we could check it. cg_decoder_scan walks the
// records once, skipping the LZW data sub-block by sub-block, and remembers where each image
// descriptor starts. cg_decoder_next_frame then moves the reader to that offset and lets
// giflib read the descriptor and decompress the rows; DGifGetImageHeader resets all of
// giflib's decompression state, so starting there is always safe, even after the previous
// frame's data was abandoned half-way.
//
// Browser behaviour we follow (Chrome's GIF reader; Pillow agrees except where noted):
//  - the canvas starts transparent; a frame's transparent index leaves the canvas alone;
//  - disposal 2 clears the frame's rectangle to transparent, not to the background colour
//    (Pillow paints an opaque background or transparent colour there unless a transparent
//    index is in play), 3 restores the canvas as it was before that frame, and 4 is read as 3
//    (some encoders set that bit for "previous"); 0, 1, 5-7 keep the frame;
//  - the logical screen grows to hold the first frame when that frame sticks out of it
//    (this also rescues files declaring a 0x0 screen); later frames are clipped (Pillow
//    grows the canvas for them too). Clipping also bounds the work: a frame wholly off the
//    screen is never decompressed, and a frame's data is abandoned after its last row on
//    the screen. Rows wider than the screen must still be decompressed whole, so scan adds
//    up what decoding every frame costs and refuses the file above the caller's pixel limit
//    (a 1x1525 screen with five 65535x1525 frames would cost 500 MP of LZW);
//  - palette indices beyond the colour table are opaque black (the table is padded with
//    zeros; Pillow does the same);
//  - LZW data that stops before the frame is complete (an early end code or data blocks that
//    run out) leaves the rest of the frame undrawn instead of failing, as browsers do (Pillow
//    raises "image file is truncated" here); a row cut short is not drawn;
//  - a missing trailer, or bytes that start no known block after the last frame, end the file.
#include "cgif_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gif_lib.h>


// ---------------------------------------------------------------- decoder

typedef struct cg_frame_record {
    size_t descriptor;       // offset of the image descriptor, just after its ',' introducer
    size_t data_end;         // offset just past the frame's LZW block terminator
    uint16_t left, top, width, height;
    uint16_t delay;          // centiseconds
    uint8_t has_gce;
    uint8_t disposal;        // 0..7 as stored
    int16_t transparent;     // -1 when none
} cg_frame_record;

struct cg_decoder {
    uint8_t *data;
    size_t length;
    size_t position;         // next byte giflib's reader gets
    bool hit_end;            // a read asked for more bytes than were left

    GifFileType *gif;
    cs_error error;          // sticky: once a call fails, later calls return the same
    bool scanned;
    uint32_t width, height;
    uint32_t frame_count, next_frame;
    cg_frame_record *frames;
    size_t frames_capacity;

    uint8_t *canvas;         // width*height RGBA8, allocated by the first next_frame
    uint8_t *row;            // one row of palette indices (frame widths are < 65536)
    uint8_t *saved;          // canvas under the previous frame when its disposal is "previous"
    size_t saved_capacity;
    // Clipped rectangle and disposal of the frame drawn last, applied before the next one.
    uint32_t prev_x0, prev_y0, prev_x1, prev_y1;
    int prev_disposal;
};

// Records an error in the file (or memory): later calls return it too.
#define cg_dfail(d, ...) cs_fail(&(d)->error, __VA_ARGS__)

// A call out of order (the message only: the decoder stays usable).
static int cg_state(cs_error *error, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int cg_state(cs_error *error, const char *format, ...) {
    va_list args;
    va_start(args, format);
    cs_vformat(error->message, sizeof error->message, format, args);
    va_end(args);
    return CS_ERR_STATE;
}
#define cg_dstate(d, ...) cg_state(&(d)->error, __VA_ARGS__)

// giflib's InputFunc: it treats a short count as a read failure, and we record that the data
// ran out so the caller can tell truncation from corruption (giflib reports both as errors
// without saying which).
static int cg_read(GifFileType *gif, GifByteType *buffer, int wanted) {
    cg_decoder *d = (cg_decoder *)gif->UserData;
    if (wanted <= 0) return 0;
    size_t left = d->length - d->position;
    size_t n = (size_t)wanted < left ? (size_t)wanted : left;
    memcpy(buffer, d->data + d->position, n);
    d->position += n;
    if (n < (size_t)wanted) d->hit_end = true;
    return (int)n;
}

cg_decoder *cg_decoder_create(const uint8_t *data, size_t length) {
    cg_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = cs_copy(data, length);
    if (!d->data) { free(d); return NULL; }
    d->length = length;
    return d;
}

void cg_decoder_destroy(cg_decoder *d) {
    if (!d) return;
    if (d->gif) DGifCloseFile(d->gif, NULL);
    free(d->frames);
    free(d->canvas);
    free(d->row);
    free(d->saved);
    free(d->data);
    free(d);
}

const char *cg_decoder_message(const cg_decoder *d) { return d ? d->error.message : "out of memory"; }

static void cg_pixel_count(char *out, size_t size, uint64_t pixels) {
    if (pixels < 100000) snprintf(out, size, "%llu pixels", (unsigned long long)pixels);  // as Swift says sizes
    else snprintf(out, size, "%.1f MP", (double)pixels / 1e6);
}

static int cg_limit_pixels(cg_decoder *d, const char *what, uint64_t w, uint64_t h, uint64_t max_pixels) {
    char have[32], limit[32];
    cg_pixel_count(have, sizeof have, w * h);
    cg_pixel_count(limit, sizeof limit, max_pixels);
    return cg_dfail(d, CS_ERR_LIMIT, "%s is %llux%llu (%s), more than the limit of %s", what,
                    (unsigned long long)w, (unsigned long long)h, have, limit);
}

// Interlaced frames store rows 0,8,16.. then 4,12.. then 2,6.. then 1,3..; a frame that
// is not interlaced is read as the last "pass" (every row in order).
static const uint32_t cg_pass_start[4] = { 0, 4, 2, 1 }, cg_pass_step[4] = { 8, 8, 4, 2 };

// Rows of pass `pass` among the first `rows` rows.
static uint32_t cg_pass_rows(uint32_t rows, int pass) {
    if (rows <= cg_pass_start[pass]) return 0;
    return (rows - cg_pass_start[pass] + cg_pass_step[pass] - 1) / cg_pass_step[pass];
}

// Stored rows that must be decompressed to draw the top `visible` rows of a frame of
// `height` rows: LZW data can only be read in order, so every row stored before the last
// visible one. Not interlaced: the visible rows. Interlaced: all rows of the passes before
// the last pass that holds a visible row, then that pass's visible rows.
static uint32_t cg_rows_to_decode(uint32_t height, uint32_t visible, bool interlaced) {
    if (visible == 0 || !interlaced) return visible;
    int last = 3;
    while (cg_pass_rows(visible, last) == 0) last--;  // pass 0 holds row 0
    uint32_t rows = cg_pass_rows(visible, last);
    for (int pass = 0; pass < last; pass++) rows += cg_pass_rows(height, pass);
    return rows;
}

// Pixels of LZW data cg_decoder_next_frame decompresses for frame `f` on a width x height
// screen: whole rows (the visible part of a row cannot be reached without decoding the rest),
// down to the frame's last row on the screen; none for a frame wholly outside it.
static uint64_t cg_frame_work(const cg_frame_record *f, bool interlaced, uint64_t width, uint64_t height) {
    if (f->left >= width || f->top >= height) return 0;
    uint64_t bottom = (uint64_t)f->top + f->height;
    uint32_t visible = (uint32_t)((bottom < height ? bottom : height) - f->top);
    return (uint64_t)f->width * cg_rows_to_decode(f->height, visible, interlaced);
}

static int cg_add_frame(cg_decoder *d, const cg_frame_record *record) {
    if (d->frame_count == d->frames_capacity) {
        size_t capacity = d->frames_capacity ? d->frames_capacity * 2 : 16;
        cg_frame_record *grown = realloc(d->frames, capacity * sizeof *grown);
        if (!grown) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
        d->frames = grown;
        d->frames_capacity = capacity;
    }
    d->frames[d->frame_count++] = *record;
    return CS_OK;
}

static int cg_truncated_extension(cg_decoder *d) {
    if (d->frame_count == 0)
        return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends inside an extension block before the first frame");
    return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends inside an extension block after frame %u", d->frame_count);
}

// Reads the rest of an extension after DGifGetExtension returned its first sub-block.
// Fills *loop_count from a NETSCAPE2.0 / ANIMEXTS1.0 application extension (the first one wins).
static int cg_read_extension(cg_decoder *d, int function, GifByteType *block, int *loop_count,
                             cg_frame_record *pending) {
    if (function == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
        // Packed fields, delay (little-endian centiseconds), transparent index. Several GCEs
        // before one image: the last one applies.
        pending->has_gce = 1;
        pending->disposal = (uint8_t)((block[1] >> 2) & 7);
        pending->delay = (uint16_t)(block[2] | (block[3] << 8));
        pending->transparent = (block[1] & 1) ? (int16_t)block[4] : -1;
    }
    bool looping = function == APPLICATION_EXT_FUNC_CODE && block && block[0] == 11 &&
                   (memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0);
    while (block) {
        if (DGifGetExtensionNext(d->gif, &block) == GIF_ERROR) {
            if (d->hit_end)
                return cg_truncated_extension(d);
            return cg_dfail(d, CS_ERR_CORRUPT, "unreadable extension block (%s)", GifErrorString(d->gif->Error));
        }
        // Sub-block 1 of the looping extension: 0x01, then the count (little-endian).
        if (looping && block && block[0] >= 3 && block[1] == 1) {
            if (*loop_count < 0) *loop_count = block[2] | (block[3] << 8);
            looping = false;
        }
    }
    return CS_OK;
}

int cg_decoder_scan(cg_decoder *d, uint64_t max_pixels, uint32_t max_frames, cg_info *info) {
    memset(info, 0, sizeof *info);
    info->loop_count = -1;
    if (d->error.code) return d->error.code;
    if (d->scanned || d->gif) return cg_dstate(d, "the file was already scanned");
    if (d->length == 0) return cg_dfail(d, CS_ERR_TRUNCATED, "the file is empty");

    int error = 0;
    d->position = 0;
    d->hit_end = false;
    d->gif = DGifOpen(d, cg_read, &error);
    if (!d->gif) {
        if (error == D_GIF_ERR_NOT_ENOUGH_MEM) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
        if (error == D_GIF_ERR_NOT_GIF_FILE) return cg_dfail(d, CS_ERR_CORRUPT, "not a GIF file (no GIF signature)");
        if (d->hit_end) return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends inside its header");
        return cg_dfail(d, CS_ERR_CORRUPT, "unreadable GIF header (%s)", GifErrorString(error));
    }
    // Checked before anything else is read: a hostile file may declare 65535x65535. The
    // caller gets the size with the error, to word its own message.
    uint64_t width = (uint64_t)d->gif->SWidth, height = (uint64_t)d->gif->SHeight;
    info->width = (uint32_t)width;
    info->height = (uint32_t)height;
    if (width * height > max_pixels) return cg_limit_pixels(d, "the GIF's screen", width, height, max_pixels);

    int loop_count = -1;
    bool has_alpha = false;
    uint64_t work = 0;        // pixels of LZW data that decoding every frame decompresses
    cg_frame_record pending;  // GCE fields for the next image
    memset(&pending, 0, sizeof pending);
    pending.transparent = -1;

    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(d->gif, &type) == GIF_ERROR) {
            // No trailer (common in files cut after their last frame, and harmless), or junk
            // where a block should start: browsers stop there and show what they have.
            if (d->frame_count > 0) break;
            if (d->hit_end) return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends before its first image");
            d->position--;
            return cg_dfail(d, CS_ERR_CORRUPT, "unexpected byte 0x%02x where a GIF block should start (offset %zu)",
                            d->data[d->position], d->position);
        }
        if (type == TERMINATE_RECORD_TYPE) break;

        if (type == EXTENSION_RECORD_TYPE) {
            int function = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(d->gif, &function, &block) == GIF_ERROR) {
                if (d->hit_end) return cg_truncated_extension(d);
                return cg_dfail(d, CS_ERR_CORRUPT, "unreadable extension block (%s)", GifErrorString(d->gif->Error));
            }
            int rc = cg_read_extension(d, function, block, &loop_count, &pending);
            if (rc) return rc;
            continue;
        }

        // An image descriptor.
        uint32_t number = d->frame_count + 1;
        if (d->frame_count >= max_frames) {
            info->frame_count = number;  // so that the caller can tell this limit from the size limit
            return cg_dfail(d, CS_ERR_LIMIT, "the file has more than %u frames", max_frames);
        }
        cg_frame_record record = pending;
        record.descriptor = d->position;
        if (DGifGetImageHeader(d->gif) == GIF_ERROR) {
            if (d->gif->Error == D_GIF_ERR_NOT_ENOUGH_MEM) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
            if (d->hit_end) return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends inside frame %u's header", number);
            // The only other failure: an LZW minimum code size above 8.
            return cg_dfail(d, CS_ERR_CORRUPT, "frame %u has an invalid LZW code size", number);
        }
        GifImageDesc *image = &d->gif->Image;
        record.left = (uint16_t)image->Left;
        record.top = (uint16_t)image->Top;
        record.width = (uint16_t)image->Width;
        record.height = (uint16_t)image->Height;
        // A declared rectangle is held to the same limit as the screen. What decoding
        // costs, which may be far less (a frame mostly off the screen), is bounded below.
        if ((uint64_t)record.width * record.height > max_pixels) {
            char what[48];
            snprintf(what, sizeof what, "frame %u", number);
            return cg_limit_pixels(d, what, record.width, record.height, max_pixels);
        }
        if (d->frame_count == 0) {
            uint64_t right = (uint64_t)record.left + record.width, bottom = (uint64_t)record.top + record.height;
            if (right > width || bottom > height) {
                if (right > width) width = right;
                if (bottom > height) height = bottom;
                info->width = (uint32_t)width;
                info->height = (uint32_t)height;
                if (width * height > max_pixels)
                    return cg_limit_pixels(d, "the GIF's screen (grown to hold frame 1)", width, height, max_pixels);
            }
        }
        // The screen is final once frame 1 is read, so this frame's cost is known.
        uint64_t frame_work = cg_frame_work(&record, image->Interlace, width, height);
        work = work > UINT64_MAX - frame_work ? UINT64_MAX : work + frame_work;
        // Skip the LZW data without decompressing it.
        int code_size = 0;
        GifByteType *block = NULL;
        int status = DGifGetCode(d->gif, &code_size, &block);
        while (status == GIF_OK && block) status = DGifGetCodeNext(d->gif, &block);
        if (status == GIF_ERROR) {
            if (d->hit_end) return cg_dfail(d, CS_ERR_TRUNCATED, "the file ends inside frame %u", number);
            return cg_dfail(d, CS_ERR_CORRUPT, "unreadable data in frame %u (%s)", number, GifErrorString(d->gif->Error));
        }
        record.data_end = d->position;
        int rc = cg_add_frame(d, &record);
        if (rc) return rc;
        if (record.transparent >= 0) has_alpha = true;
        memset(&pending, 0, sizeof pending);
        pending.transparent = -1;
    }

    if (d->frame_count == 0) return cg_dfail(d, CS_ERR_CORRUPT, "no image in the file");
    if (width == 0 || height == 0) return cg_dfail(d, CS_ERR_CORRUPT, "the image is %llux%llu",
                                                   (unsigned long long)width, (unsigned long long)height);
    // Refused before any pixel is decompressed. Frames inside the screen cost at most
    // frame_count x width x height, which the caller bounds anyway; this catches frames
    // far wider than the screen, each of whose rows is decompressed in full.
    if (work > max_pixels) {
        char have[32], limit[32];
        cg_pixel_count(have, sizeof have, work);
        cg_pixel_count(limit, sizeof limit, max_pixels);
        return cg_dfail(d, CS_ERR_LIMIT,
                        "the frames hold %s of pixel data to decompress (rows wider than the screen count in "
                        "full), more than the limit of %s", have, limit);
    }
    for (uint32_t i = 0; i < d->frame_count && !has_alpha; i++) {
        const cg_frame_record *f = &d->frames[i];
        if (f->left != 0 || f->top != 0 || f->width < width || f->height < height) has_alpha = true;
    }
    d->width = (uint32_t)width;
    d->height = (uint32_t)height;
    d->scanned = true;
    d->next_frame = 0;
    info->width = d->width;
    info->height = d->height;
    info->frame_count = d->frame_count;
    info->loop_count = loop_count;
    info->has_alpha = has_alpha ? 1 : 0;
    return CS_OK;
}

static void cg_clear_rect(cg_decoder *d, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
    for (uint32_t y = y0; y < y1; y++)
        memset(d->canvas + ((size_t)y * d->width + x0) * 4, 0, (size_t)(x1 - x0) * 4);
}

// Copies the canvas rectangle to or from d->saved (rows packed).
static void cg_copy_rect(cg_decoder *d, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, bool to_saved) {
    size_t row_bytes = (size_t)(x1 - x0) * 4;
    for (uint32_t y = y0; y < y1; y++) {
        uint8_t *canvas = d->canvas + ((size_t)y * d->width + x0) * 4;
        uint8_t *saved = d->saved + (size_t)(y - y0) * row_bytes;
        if (to_saved) memcpy(saved, canvas, row_bytes);
        else memcpy(canvas, saved, row_bytes);
    }
}

// Decompresses frame `f`'s rows in file order (giflib has just read its header) and draws
// the part inside the canvas rectangle [x0, x1) x [y0, y1), which is not empty. Stops after
// the last row on the canvas: exactly the rows cg_decoder_scan counted for this frame.
static int cg_draw_rows(cg_decoder *d, const cg_frame_record *f, uint32_t x0, uint32_t y0, uint32_t x1,
                        uint32_t y1, const uint8_t colors[256][4], const uint8_t draw[256], uint32_t number) {
    const bool interlaced = d->gif->Image.Interlace;
    const uint32_t to_decode = cg_rows_to_decode(f->height, y1 - y0, interlaced);
    uint32_t decoded = 0;
    for (int pass = interlaced ? 0 : 3; pass < 4 && decoded < to_decode; pass++) {
        uint32_t first = interlaced ? cg_pass_start[pass] : 0, step = interlaced ? cg_pass_step[pass] : 1;
        for (uint32_t r = first; r < f->height && decoded < to_decode; r += step, decoded++) {
            if (DGifGetLine(d->gif, d->row, (int)f->width) == GIF_ERROR) {
                int e = d->gif->Error;
                // The data ran out early: an end code, or the block terminator (just read,
                // so the reader sits at data_end). Keep what was drawn.
                if (e == D_GIF_ERR_EOF_TOO_SOON || (e == D_GIF_ERR_IMAGE_DEFECT && d->position == f->data_end))
                    return CS_OK;
                if (e == D_GIF_ERR_NOT_ENOUGH_MEM) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
                return cg_dfail(d, CS_ERR_CORRUPT, "frame %u's pixel data is corrupt (%s)", number,
                                GifErrorString(e));
            }
            uint32_t y = y0 + r;
            if (y >= y1) continue;
            uint8_t *out = d->canvas + ((size_t)y * d->width + x0) * 4;
            const uint8_t *in = d->row;
            for (uint32_t x = x0; x < x1; x++, in++, out += 4)
                if (draw[*in]) memcpy(out, colors[*in], 4);
        }
    }
    return CS_OK;
}

int cg_decoder_next_frame(cg_decoder *d, uint8_t *dst, size_t stride, int *delay_ms) {
    *delay_ms = 0;
    if (d->error.code) return d->error.code;
    if (!d->scanned) return cg_dstate(d, "cg_decoder_scan must succeed before frames are decoded");
    if (d->next_frame >= d->frame_count) return cg_dstate(d, "all %u frames were already decoded", d->frame_count);

    const uint32_t W = d->width, H = d->height;
    if (!d->canvas) {
        if ((uint64_t)W * H > SIZE_MAX / 4) return cg_dfail(d, CS_ERR_NOMEM, "a %ux%u canvas does not fit in memory", W, H);
        d->canvas = calloc((size_t)W * H, 4);  // W*H <= max_pixels, checked by scan
        d->row = malloc(65536);
        if (!d->canvas || !d->row) return cg_dfail(d, CS_ERR_NOMEM, "out of memory for a %ux%u canvas", W, H);
    }

    // Dispose of the previous frame.
    if (d->prev_x1 > d->prev_x0 && d->prev_y1 > d->prev_y0) {
        if (d->prev_disposal == 2) cg_clear_rect(d, d->prev_x0, d->prev_y0, d->prev_x1, d->prev_y1);
        else if (d->prev_disposal == 3) cg_copy_rect(d, d->prev_x0, d->prev_y0, d->prev_x1, d->prev_y1, false);
    }
    d->prev_x0 = d->prev_y0 = d->prev_x1 = d->prev_y1 = 0;

    const cg_frame_record *f = &d->frames[d->next_frame];
    uint32_t number = d->next_frame + 1;
    d->next_frame++;
    int disposal = f->disposal == 4 ? 3 : f->disposal;

    d->position = f->descriptor;
    d->hit_end = false;
    if (DGifGetImageHeader(d->gif) == GIF_ERROR) {
        if (d->gif->Error == D_GIF_ERR_NOT_ENOUGH_MEM) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
        return cg_dfail(d, CS_ERR_CORRUPT, "frame %u's header cannot be read again", number);  // scan read it
    }
    const ColorMapObject *map = d->gif->Image.ColorMap ? d->gif->Image.ColorMap : d->gif->SColorMap;
    if (!map) return cg_dfail(d, CS_ERR_CORRUPT, "frame %u has no colour table", number);

    // Palette as RGBA, 256 entries so any byte indexes it; `draw` is 0 for the transparent index.
    uint8_t colors[256][4];
    uint8_t draw[256];
    memset(colors, 0, sizeof colors);
    for (int i = 0; i < 256; i++) {
        if (i < map->ColorCount) {
            colors[i][0] = map->Colors[i].Red;
            colors[i][1] = map->Colors[i].Green;
            colors[i][2] = map->Colors[i].Blue;
        }
        colors[i][3] = 255;
        draw[i] = 1;
    }
    if (f->transparent >= 0) draw[f->transparent] = 0;

    // The visible part of the frame rectangle. A frame wholly outside the canvas is not
    // decompressed at all: its data is never read (the next frame starts at its own
    // descriptor), so it costs nothing and garbage there goes unnoticed, as in browsers.
    uint32_t x0 = f->left, y0 = f->top;
    uint32_t x1 = (uint32_t)f->left + f->width, y1 = (uint32_t)f->top + f->height;
    if (x1 > W) x1 = W;
    if (y1 > H) y1 = H;
    bool visible = x0 < x1 && y0 < y1;

    if (visible) {
        if (disposal == 3) {
            size_t need = (size_t)(x1 - x0) * (y1 - y0) * 4;
            if (need > d->saved_capacity) {
                free(d->saved);
                d->saved = malloc(need);
                d->saved_capacity = d->saved ? need : 0;
                if (!d->saved) return cg_dfail(d, CS_ERR_NOMEM, "out of memory");
            }
            cg_copy_rect(d, x0, y0, x1, y1, true);
        }

        int rc = cg_draw_rows(d, f, x0, y0, x1, y1, colors, draw, number);
        if (rc) return rc;
        d->prev_x0 = x0; d->prev_y0 = y0; d->prev_x1 = x1; d->prev_y1 = y1;
    }
    d->prev_disposal = disposal;

    for (uint32_t y = 0; y < H; y++) memcpy(dst + (size_t)y * stride, d->canvas + (size_t)y * W * 4, (size_t)W * 4);
    *delay_ms = f->has_gce ? (int)f->delay * 10 : 0;
    return CS_OK;
}

// ---------------------------------------------------------------- encoder

#define CG_OUT_BUFFER 65536

struct cg_encoder {
    GifFileType *gif;
    int fd;
    cs_error error;     // sticky
    int saved_errno;
    bool io_failed;
    bool discard;       // destroy without finish: drop giflib's last writes
    bool finished;
    uint32_t width, height;
    uint8_t *row;       // giflib masks the row it is given in place, so it gets a copy
    size_t used;
    uint8_t buffer[CG_OUT_BUFFER];
};

// Records an error that leaves the output unusable: later calls return it too.
#define cg_efail(e, ...) cs_fail(&(e)->error, __VA_ARGS__)
// A call out of order or with a frame that does not fit, caught before anything was written.
#define cg_estate(e, ...) cg_state(&(e)->error, __VA_ARGS__)

static bool cg_flush(cg_encoder *e) {
    int err = cs_write_all(e->fd, e->buffer, e->used);
    e->used = 0;
    if (err) {
        e->saved_errno = err;
        e->io_failed = true;
        cg_efail(e, CS_ERR_IO, "write failed: %s", strerror(err));
        return false;
    }
    return true;
}

// giflib's OutputFunc. giflib writes a few bytes at a time (255-byte data blocks at most), so
// we buffer. Many giflib calls ignore this function's result; callers check e->io_failed.
static int cg_write(GifFileType *gif, const GifByteType *bytes, int length) {
    cg_encoder *e = (cg_encoder *)gif->UserData;
    if (e->discard) return length;
    if (e->io_failed || length < 0) return 0;
    size_t n = (size_t)length;
    while (n > 0) {
        if (e->used == CG_OUT_BUFFER && !cg_flush(e)) return 0;
        size_t room = CG_OUT_BUFFER - e->used, take = n < room ? n : room;
        memcpy(e->buffer + e->used, bytes, take);
        e->used += take;
        bytes += take;
        n -= take;
    }
    return length;
}

// After a giflib call: our write failure first, then giflib's own error.
static int cg_check(cg_encoder *e, int status, const char *doing) {
    if (e->io_failed) return e->error.code;  // message set by cg_flush
    if (status == GIF_ERROR) {
        int error = e->gif->Error;
        if (error == E_GIF_ERR_NOT_ENOUGH_MEM) return cg_efail(e, CS_ERR_NOMEM, "out of memory");
        return cg_efail(e, CS_ERR_STATE, "giflib failed while %s: %s", doing, GifErrorString(error));
    }
    return CS_OK;
}

cg_encoder *cg_encoder_create(int fd, uint32_t width, uint32_t height, int loop_count) {
    cg_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->fd = fd;
    e->width = width;
    e->height = height;
    if (width == 0 || height == 0 || width > 65535 || height > 65535) {
        cg_efail(e, CS_ERR_LIMIT, "a GIF cannot be %ux%u: each side must be 1 to 65535 pixels", width, height);
        return e;
    }
    e->row = malloc(width);
    int error = 0;
    e->gif = e->row ? EGifOpen(e, cg_write, &error) : NULL;
    if (!e->gif) {  // EGifOpen fails only for lack of memory
        free(e->row);
        free(e);
        return NULL;
    }
    // Without this giflib writes "GIF87a": with the low-level API it cannot see our extensions.
    EGifSetGifVersion(e->gif, true);
    // No global colour table: every frame carries its own.
    if (cg_check(e, EGifPutScreenDesc(e->gif, (int)width, (int)height, 8, 0, NULL), "writing the header"))
        return e;
    if (loop_count >= 0) {
        int n = loop_count > 65535 ? 65535 : loop_count;
        uint8_t sub[3] = { 1, (uint8_t)(n & 0xFF), (uint8_t)(n >> 8) };
        int status = EGifPutExtensionLeader(e->gif, APPLICATION_EXT_FUNC_CODE);
        if (status == GIF_OK) status = EGifPutExtensionBlock(e->gif, 11, "NETSCAPE2.0");
        if (status == GIF_OK) status = EGifPutExtensionBlock(e->gif, 3, sub);
        if (status == GIF_OK) status = EGifPutExtensionTrailer(e->gif);
        cg_check(e, status, "writing the loop count");
    }
    return e;
}

int cg_encoder_write_frame(cg_encoder *e, const cg_indexed *frame, int delay_ms) {
    if (e->error.code) return e->error.code;
    if (e->finished) return cg_estate(e, "the GIF was already finished");
    if (frame->width != e->width || frame->height != e->height)
        return cg_estate(e, "a %ux%u frame cannot go into a %ux%u GIF", frame->width, frame->height, e->width,
                         e->height);
    if (frame->colors < 1 || frame->colors > 256 || frame->transparent < -1 || frame->transparent >= frame->colors ||
        !frame->indices)
        return cg_estate(e, "invalid indexed frame (%d colours, transparent index %d)", frame->colors,
                         frame->transparent);

    // GIF colour tables hold 2^n entries, n >= 1; the unused tail is black.
    int size = 2;
    while (size < frame->colors) size *= 2;
    ColorMapObject *map = GifMakeMapObject(size, NULL);  // zero-filled
    if (!map) return cg_efail(e, CS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < frame->colors; i++) {
        map->Colors[i].Red = frame->palette[i * 3];
        map->Colors[i].Green = frame->palette[i * 3 + 1];
        map->Colors[i].Blue = frame->palette[i * 3 + 2];
    }

    GraphicsControlBlock gcb;
    memset(&gcb, 0, sizeof gcb);
    long delay = delay_ms <= 0 ? 0 : ((long)delay_ms + 5) / 10;
    gcb.DelayTime = (int)(delay > 65535 ? 65535 : delay);
    gcb.TransparentColor = frame->transparent >= 0 ? frame->transparent : NO_TRANSPARENT_COLOR;
    // Always "restore to background": a frame's disposal acts before the NEXT frame is drawn,
    // and if that one has transparent pixels this frame must not show through them. We
    // cannot see the next frame yet, and as frames cover the whole canvas, clearing an
    // opaque frame before an opaque one costs nothing.
    gcb.DisposalMode = DISPOSE_BACKGROUND;
    GifByteType extension[4];
    EGifGCBToExtension(&gcb, extension);

    int rc = cg_check(e, EGifPutExtension(e->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension), "writing a frame's GCE");
    if (!rc) rc = cg_check(e, EGifPutImageDesc(e->gif, 0, 0, (int)e->width, (int)e->height, false, map),
                           "writing a frame header");
    GifFreeMapObject(map);  // giflib keeps its own copy
    for (uint32_t y = 0; y < e->height && !rc; y++) {
        const uint8_t *src = frame->indices + (size_t)y * e->width;
        uint8_t highest = 0;
        for (uint32_t x = 0; x < e->width; x++) {
            e->row[x] = src[x];
            if (src[x] > highest) highest = src[x];
        }
        // giflib would silently mask such an index into another colour. Part of the frame is
        // out already, so the file is broken from here on.
        if (highest >= frame->colors)
            return cg_efail(e, CS_ERR_STATE, "palette index %d in a frame of %d colours", highest, frame->colors);
        rc = cg_check(e, EGifPutLine(e->gif, e->row, (int)e->width), "compressing a frame");
    }
    return rc;
}

int cg_encoder_finish(cg_encoder *e) {
    if (e->error.code) return e->error.code;
    if (e->finished) return cg_estate(e, "the GIF was already finished");
    e->finished = true;
    // EGifCloseFile writes the trailer (ignoring the write's result) and frees giflib's state.
    EGifCloseFile(e->gif, NULL);
    e->gif = NULL;
    if (e->io_failed) return e->error.code;
    if (!cg_flush(e)) return e->error.code;
    return CS_OK;
}

void cg_encoder_destroy(cg_encoder *e) {
    if (!e) return;
    if (e->gif) {
        e->discard = true;  // the caller gave up on this file: write nothing more
        EGifCloseFile(e->gif, NULL);
    }
    free(e->row);
    free(e);
}

const char *cg_encoder_message(const cg_encoder *e) { return e ? e->error.message : "out of memory"; }
int cg_encoder_errno(const cg_encoder *e) { return e ? e->saved_errno : ENOMEM; }
