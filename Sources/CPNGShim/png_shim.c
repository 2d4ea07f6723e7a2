// libpng behind setjmp(png_jmpbuf): see include/cpng_shim.h and libpng-manual.txt.
#include "cpng_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>
#include <zlib.h>

// libpng's failures and ours in CShimSupport's record; the first, most precise reason is kept.
typedef cs_error cp_error;

static void cp_record(cp_error *err, int code, const char *message) {
    if (err->code == CS_OK) cs_fail(err, code, "%s", message);
}

static void cp_error_fn(png_structp png, png_const_charp message) {
    cp_error *err = png_get_error_ptr(png);
    cp_record(err, CS_ERR_CORRUPT, message);
    png_longjmp(png, 1);
}

static void cp_warning_fn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // ancillary problems (bad CRC in tEXt, unknown sRGB profile, ...) are not fatal
}

// ---------------------------------------------------------------- decoder

// Bytes of text (XMP and comment) that one file may have copied or inflated, in all.
#define CP_TEXT_BUDGET ((size_t)CS_METADATA_BUDGET)  // the one metadata budget

struct cp_decoder {
    png_structp png;
    png_infop info;
    cp_error err;
    uint8_t *data;
    size_t length, offset;
    int header_read, image_read, interlaced;
    uint32_t height, next_row;
    png_bytep *rows;
    // The two texts catctl reads (malloc'd; NULL when absent) and what is left of the
    // file's text budget (see cp_read_chunk).
    uint8_t *xmp, *comment;
    size_t xmp_length, comment_length;
    size_t text_budget;
    uint64_t max_pixels;  // 0: libpng's own limits
};

static void cp_read_fn(png_structp png, png_bytep out, size_t count) {
    cp_decoder *d = png_get_io_ptr(png);
    if (count > d->length - d->offset) {
        cp_record(&d->err, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
        png_error(png, "truncated");
    }
    memcpy(out, d->data + d->offset, count);
    d->offset += count;
}

cp_decoder *cp_decoder_create(const uint8_t *data, size_t length) {
    cp_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = cs_copy(data, length);
    if (!d->data) { free(d); return NULL; }
    d->length = length;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->err, cp_error_fn, cp_warning_fn);
    if (d->png) d->info = png_create_info_struct(d->png);
    if (!d->png || !d->info) cp_record(&d->err, CS_ERR_NOMEM, "out of memory");
    d->text_budget = CP_TEXT_BUDGET;
    return d;
}

void cp_decoder_destroy(cp_decoder *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->rows);
    free(d->xmp);
    free(d->comment);
    free(d->data);
    free(d);
}

const char *cp_decoder_message(const cp_decoder *d) { return d ? d->err.message : "out of memory"; }

// ---------------------------------------------------------------- text chunks
// libpng keeps every tEXt, zTXt and iTXt chunk it reads, each inflated up to the chunk
// limit (8 MiB): 40 zTXt chunks of 8 KB each made a 327 KB file cost 367 MB. So libpng
// hands them to cp_read_chunk as unknown chunks instead (libpng-manual.txt: a known chunk
// named to png_set_keep_unknown_chunks "will be handled as unknown", and the user chunk
// callback sees it first), and only the two texts catctl uses are kept: XMP (key
// "XML:com.adobe.xmp") and "Comment", the first of each with some text, as before. Every
// byte of text copied or inflated for them comes out of one budget for the whole file;
// other keys are never inflated. Text after IDAT is not read at all (png_read_end gets no
// info struct, so libpng skips those chunks unread).

// Where a kept text goes, or NULL when the chunk's key is not one catctl reads or that
// text was already found.
static uint8_t **cp_text_slot(cp_decoder *d, const uint8_t *key, size_t key_length, size_t **length) {
    if (key_length == 17 && memcmp(key, "XML:com.adobe.xmp", 17) == 0 && !d->xmp) {
        *length = &d->xmp_length;
        return &d->xmp;
    }
    if (key_length == 7 && memcmp(key, "Comment", 7) == 0 && !d->comment) {
        *length = &d->comment_length;
        return &d->comment;
    }
    return NULL;
}

// Inflates a zlib stream into a malloc'd buffer of at most `limit` bytes. *spent = bytes
// produced, on failure too (what the attempt cost). Returns the buffer (*out_length
// bytes) when the stream ended within the limit, else NULL: over the limit, corrupt,
// cut short, or out of memory.
static uint8_t *cp_inflate_text(const uint8_t *in, size_t in_length, size_t limit, size_t *out_length,
                                size_t *spent) {
    *spent = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (in_length > UINT_MAX || inflateInit(&z) != Z_OK) return NULL;
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)in_length;
    uint8_t *out = NULL;
    size_t capacity = 0;
    bool ended = false;
    for (;;) {
        // When full, grow up to one byte beyond the limit, so that a stream of exactly
        // `limit` bytes can end.
        if (z.total_out == capacity) {
            size_t grown = capacity ? capacity * 2 : 4096;
            if (grown > limit + 1) grown = limit + 1;
            uint8_t *p = realloc(out, grown);
            if (!p) break;
            out = p;
            capacity = grown;
        }
        z.next_out = out + z.total_out;
        z.avail_out = (uInt)(capacity - z.total_out);
        int ret = inflate(&z, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) { ended = true; break; }
        // Corrupt data, the input ended first (Z_BUF_ERROR), or over the limit.
        if (ret != Z_OK || z.total_out > limit) break;
    }
    *spent = z.total_out;
    inflateEnd(&z);
    if (!ended || *spent > limit) {
        free(out);
        return NULL;
    }
    *out_length = *spent;
    return out;
}

// A tEXt, zTXt or iTXt chunk's text for the slot, parsed as libpng does (a chunk libpng
// would drop is dropped), up to its first NUL as libpng reports it. Uncompressed text is
// copied when it fits in the budget; compressed text is inflated until it ends or the
// budget runs out, and the budget pays for what was inflated either way.
static void cp_keep_text(cp_decoder *d, const png_unknown_chunk *chunk, size_t key_length, uint8_t **slot,
                         size_t *slot_length) {
    const uint8_t *data = chunk->data;
    size_t size = chunk->size, start;  // where the text (or its zlib stream) starts
    bool compressed;
    if (memcmp(chunk->name, "tEXt", 4) == 0) {
        start = key_length + 1;
        compressed = false;
    } else if (memcmp(chunk->name, "zTXt", 4) == 0) {
        if (key_length + 3 > size || data[key_length + 1] != 0) return;  // truncated, unknown method
        start = key_length + 2;
        compressed = true;
    } else {  // iTXt: flag, method, language tag and translated keyword (NUL-ended), text
        if (key_length + 5 > size) return;
        uint8_t flag = data[key_length + 1], method = data[key_length + 2];
        if (flag > 1 || (flag == 1 && method != 0)) return;
        compressed = flag == 1;
        start = key_length + 3;
        for (int field = 0; field < 2; field++) {
            const uint8_t *nul = memchr(data + start, 0, size - start);
            if (!nul) return;  // truncated
            start = (size_t)(nul - data) + 1;
        }
        if (compressed && start == size) return;
    }
    uint8_t *text;
    size_t length;
    if (compressed) {
        size_t spent = 0;
        text = cp_inflate_text(data + start, size - start, d->text_budget, &length, &spent);
        d->text_budget -= spent < d->text_budget ? spent : d->text_budget;
        if (!text) return;
        const uint8_t *nul = memchr(text, 0, length);
        if (nul) length = (size_t)(nul - text);
    } else {
        const uint8_t *nul = memchr(data + start, 0, size - start);
        length = nul ? (size_t)(nul - (data + start)) : size - start;
        if (length > d->text_budget) return;
        text = length ? malloc(length) : NULL;
        if (!text) return;
        memcpy(text, data + start, length);
        d->text_budget -= length;
    }
    if (length == 0) {  // empty: a later chunk with the same key may still have some
        free(text);
        return;
    }
    *slot = text;
    *slot_length = length;
}

// Whether the chunk's stored CRC is right. libpng warns about a bad CRC in an unknown
// chunk but still passes it on, whereas it drops a text chunk with one: checked here to
// keep that. cp_read_fn hands libpng exactly what it asks for, so the chunk (length,
// name, data, CRC) ends where d->offset is now.
static bool cp_chunk_crc_ok(const cp_decoder *d, const png_unknown_chunk *chunk) {
    if (d->offset < chunk->size + 12) return false;
    const uint8_t *start = d->data + d->offset - chunk->size - 12;
    const uint8_t *crc = start + 8 + chunk->size;
    uint32_t stored = ((uint32_t)crc[0] << 24) | ((uint32_t)crc[1] << 16) | ((uint32_t)crc[2] << 8) | crc[3];
    uint32_t length = ((uint32_t)start[0] << 24) | ((uint32_t)start[1] << 16) | ((uint32_t)start[2] << 8) | start[3];
    if (length != chunk->size || memcmp(start + 4, chunk->name, 4) != 0) return false;
    uLong computed = crc32(0, start + 4, 4);
    if (chunk->size) computed = crc32(computed, chunk->data, (uInt)chunk->size);  // <= 8 MiB
    return computed == stored;
}

// libpng's callback for every chunk it treats as unknown: the three text chunks (see
// above) and chunks libpng does not know (read into memory first, within the 8 MiB chunk
// limit). Returns 1 ("handled": libpng discards it) for ancillary chunks, which libpng
// skipped before, and 0 for an unknown critical chunk, which libpng then refuses
// ("unhandled critical chunk") as it did before.
static int cp_read_chunk(png_structp png, png_unknown_chunkp chunk) {
    cp_decoder *d = png_get_user_chunk_ptr(png);
    bool text = memcmp(chunk->name, "tEXt", 4) == 0 || memcmp(chunk->name, "zTXt", 4) == 0 ||
                memcmp(chunk->name, "iTXt", 4) == 0;
    if (!text) return (chunk->name[0] & 0x20) ? 1 : 0;
    if (!(chunk->location & PNG_HAVE_IHDR)) png_chunk_error(png, "missing IHDR");  // as libpng's handlers
    if (d->header_read || d->text_budget == 0 || chunk->size == 0) return 1;
    const uint8_t *nul = memchr(chunk->data, 0, chunk->size);
    if (!nul) return 1;  // no keyword end: no text
    size_t key_length = (size_t)(nul - chunk->data), *slot_length;
    uint8_t **slot = cp_text_slot(d, chunk->data, key_length, &slot_length);
    if (slot && cp_chunk_crc_ok(d, chunk)) cp_keep_text(d, chunk, key_length, slot, slot_length);
    return 1;
}

// The metadata chunks read before IDAT (a later eXIf or text is not looked for).
static void cp_read_metadata(cp_decoder *d, cp_info *out) {
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_length;
    if (png_get_iCCP(d->png, d->info, &name, &compression, &profile, &profile_length) && profile_length > 0) {
        out->metadata.icc = profile;
        out->metadata.icc_length = profile_length;
    }
    png_uint_32 exif_length;
    png_bytep exif;
    if (png_get_eXIf_1(d->png, d->info, &exif_length, &exif) && exif_length > 0) {
        out->metadata.exif = exif;
        out->metadata.exif_length = exif_length;
    }
    out->metadata.xmp = d->xmp;
    out->metadata.xmp_length = d->xmp_length;
    out->metadata.comment = d->comment;
    out->metadata.comment_length = d->comment_length;
}

// Whether no chunk before IEND claims far more bytes than the file has left. libpng
// allocates a chunk's buffer from its length field before reading it, and the Debian
// build lets an ancillary chunk (zTXt) ask for up to 2 GiB whatever
// png_set_chunk_malloc_max says (found by the fuzzer:
// Tests/Fixtures/fuzz/png-huge-ztxt-length.png). Such a chunk is refused here as the
// truncation it is; a chunk cut short by at most 1 MiB is left to libpng, which reports
// the truncation where it meets it, as before.
static int cp_chunks_fit(const cp_decoder *d) {
    size_t offset = 8;  // after the signature
    while (d->length >= offset + 8) {
        const uint8_t *p = d->data + offset;
        uint64_t length = ((uint64_t)p[0] << 24) | ((uint64_t)p[1] << 16) | ((uint64_t)p[2] << 8) | p[3];
        if (length + 12 > d->length - offset) return length + 12 - (d->length - offset) <= (uint64_t)1 << 20;
        if (memcmp(p + 4, "IEND", 4) == 0) break;
        offset += (size_t)length + 12;
    }
    return 1;
}

void cp_decoder_set_max_pixels(cp_decoder *d, uint64_t max_pixels) {
    if (d) d->max_pixels = max_pixels;
}

int cp_decoder_read_header(cp_decoder *d, cp_info *out) {
    if (d->err.code != CS_OK) return d->err.code;
    if (d->header_read) { cp_record(&d->err, CS_ERR_STATE, "header already read"); return CS_ERR_STATE; }
    if (!cp_chunks_fit(d)) {
        cp_record(&d->err, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
        return d->err.code;
    }
    if (d->max_pixels && d->length >= 24 && memcmp(d->data + 12, "IHDR", 4) == 0) {
        // The declared size against the caller's limit, before libpng's own checks.
        const uint8_t *p = d->data + 16;
        uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        uint32_t h = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
        if (w && h && (uint64_t)w * h > d->max_pixels) {
            out->width = w;
            out->height = h;
            cp_record(&d->err, CS_ERR_LIMIT, "the declared size is over the pixel limit");
            return CS_ERR_LIMIT;
        }
    }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    png_set_read_fn(d->png, d, cp_read_fn);  // libpng checks the signature itself
    if (d->max_pixels) {
        uint64_t side = d->max_pixels < 0x7fffffff ? d->max_pixels : 0x7fffffff;  // PNG's own maximum
        png_set_user_limits(d->png, (png_uint_32)side, (png_uint_32)side);
    }
    // Keep libpng's own defenses tight: ancillary chunk count and size.
    png_set_chunk_cache_max(d->png, 1000);
    png_set_chunk_malloc_max(d->png, 8 * 1024 * 1024);
    static const png_byte text_chunks[] = { 't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0' };
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, text_chunks, 3);
    // What libpng does with a chunk cp_read_chunk leaves (an unknown critical one): as the
    // manual advises for a callback, and without the warning it gives otherwise.
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_IF_SAFE, NULL, 0);
    png_set_read_user_chunk_fn(d->png, d, cp_read_chunk);
    png_read_info(d->png, d->info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    int has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;

    png_set_expand(d->png);  // palette -> RGB, grey < 8 bits -> 8, tRNS -> alpha
    if (bit_depth == 16) png_set_scale_16(d->png);
    if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(d->png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !has_trns) png_set_add_alpha(d->png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    if (png_get_rowbytes(d->png, d->info) != (size_t)width * 4) {
        cp_record(&d->err, CS_ERR_CORRUPT, "unexpected row layout after transformations");
        png_error(d->png, "layout");
    }

    d->header_read = 1;
    d->height = height;
    d->interlaced = interlace != PNG_INTERLACE_NONE;
    out->width = width;
    out->height = height;
    out->bit_depth = bit_depth;
    out->color_type = color_type;
    out->interlaced = interlace != PNG_INTERLACE_NONE;
    out->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || has_trns;
    cp_read_metadata(d, out);
    return CS_OK;
}

int cp_decoder_read_image(cp_decoder *d, uint8_t *dst, size_t stride) {
    if (!d->header_read || d->image_read) { cp_record(&d->err, CS_ERR_STATE, "out of order"); return CS_ERR_STATE; }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    if (!d->rows) {
        d->rows = malloc(sizeof(png_bytep) * (d->height ? d->height : 1));
        if (!d->rows) { cp_record(&d->err, CS_ERR_NOMEM, "out of memory"); png_error(d->png, "nomem"); }
    }
    for (uint32_t y = 0; y < d->height; y++) d->rows[y] = dst + (size_t)y * stride;
    png_read_image(d->png, d->rows);
    d->image_read = 1;
    return CS_OK;
}

int cp_decoder_read_rows(cp_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->header_read || d->image_read || d->interlaced || d->next_row + rows > d->height) {
        cp_record(&d->err, CS_ERR_STATE, "out of order");
        return CS_ERR_STATE;
    }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    for (uint32_t y = 0; y < rows; y++) png_read_row(d->png, dst + (size_t)y * stride, NULL);
    d->next_row += rows;
    if (d->next_row == d->height) d->image_read = 1;
    return CS_OK;
}

int cp_decoder_finish(cp_decoder *d) {
    if (!d->image_read) { cp_record(&d->err, CS_ERR_STATE, "out of order"); return CS_ERR_STATE; }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    png_read_end(d->png, NULL);
    return CS_OK;
}
