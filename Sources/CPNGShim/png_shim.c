// libpng behind setjmp(png_jmpbuf): see include/cpng_shim.h and libpng-manual.txt.
#include "cpng_shim.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

typedef struct cp_error {
    int code;
    char message[256];
} cp_error;

static void cp_record(cp_error *err, int code, const char *message) {
    if (err->code != CP_OK) return;  // keep the first, most precise reason
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", message);
}

static void cp_error_fn(png_structp png, png_const_charp message) {
    cp_error *err = png_get_error_ptr(png);
    cp_record(err, CP_ERR_CORRUPT, message);
    png_longjmp(png, 1);
}

static void cp_warning_fn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // ancillary problems (bad CRC in tEXt, unknown sRGB profile, ...) are not fatal
}

// ---------------------------------------------------------------- decoder

struct cp_decoder {
    png_structp png;
    png_infop info;
    cp_error err;
    uint8_t *data;
    size_t length, offset;
    int header_read, image_read, interlaced;
    uint32_t height, next_row;
    png_bytep *rows;
};

static void cp_read_fn(png_structp png, png_bytep out, size_t count) {
    cp_decoder *d = png_get_io_ptr(png);
    if (count > d->length - d->offset) {
        cp_record(&d->err, CP_ERR_TRUNCATED, "the file ends before the image does (truncated)");
        png_error(png, "truncated");
    }
    memcpy(out, d->data + d->offset, count);
    d->offset += count;
}

cp_decoder *cp_decoder_create(const uint8_t *data, size_t length) {
    cp_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = malloc(length ? length : 1);
    if (!d->data) { free(d); return NULL; }
    if (length) memcpy(d->data, data, length);
    d->length = length;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->err, cp_error_fn, cp_warning_fn);
    if (d->png) d->info = png_create_info_struct(d->png);
    if (!d->png || !d->info) cp_record(&d->err, CP_ERR_NOMEM, "out of memory");
    return d;
}

void cp_decoder_destroy(cp_decoder *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->rows);
    free(d->data);
    free(d);
}

const char *cp_decoder_message(const cp_decoder *d) { return d ? d->err.message : "out of memory"; }

// The metadata chunks libpng read before IDAT (a later eXIf is not looked for).
static void cp_read_metadata(cp_decoder *d, cp_info *out) {
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_length;
    if (png_get_iCCP(d->png, d->info, &name, &compression, &profile, &profile_length) && profile_length > 0) {
        out->icc = profile;
        out->icc_length = profile_length;
    }
    png_uint_32 exif_length;
    png_bytep exif;
    if (png_get_eXIf_1(d->png, d->info, &exif_length, &exif) && exif_length > 0) {
        out->exif = exif;
        out->exif_length = exif_length;
    }
    png_textp text;
    int count = 0;
    png_get_text(d->png, d->info, &text, &count);
    for (int i = 0; i < count; i++) {
        // libpng has decompressed zTXt/iTXt already; iTXt's text is in text/itxt_length.
        size_t length = text[i].compression >= PNG_ITXT_COMPRESSION_NONE ? text[i].itxt_length : text[i].text_length;
        if (!text[i].key || !text[i].text || length == 0) continue;
        if (!out->xmp && strcmp(text[i].key, "XML:com.adobe.xmp") == 0) {
            out->xmp = (const uint8_t *)text[i].text;
            out->xmp_length = length;
        } else if (!out->comment && strcmp(text[i].key, "Comment") == 0) {
            out->comment = (const uint8_t *)text[i].text;
            out->comment_length = length;
        }
    }
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

int cp_decoder_read_header(cp_decoder *d, cp_info *out) {
    if (d->err.code != CP_OK) return d->err.code;
    if (d->header_read) { cp_record(&d->err, CP_ERR_STATE, "header already read"); return CP_ERR_STATE; }
    if (!cp_chunks_fit(d)) {
        cp_record(&d->err, CP_ERR_TRUNCATED, "the file ends before the image does (truncated)");
        return d->err.code;
    }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    png_set_read_fn(d->png, d, cp_read_fn);  // libpng checks the signature itself
    // Keep libpng's own defenses tight: ancillary chunk count and size.
    png_set_chunk_cache_max(d->png, 1000);
    png_set_chunk_malloc_max(d->png, 8 * 1024 * 1024);
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
        cp_record(&d->err, CP_ERR_CORRUPT, "unexpected row layout after transformations");
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
    return CP_OK;
}

int cp_decoder_read_image(cp_decoder *d, uint8_t *dst, size_t stride) {
    if (!d->header_read || d->image_read) { cp_record(&d->err, CP_ERR_STATE, "out of order"); return CP_ERR_STATE; }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    if (!d->rows) {
        d->rows = malloc(sizeof(png_bytep) * (d->height ? d->height : 1));
        if (!d->rows) { cp_record(&d->err, CP_ERR_NOMEM, "out of memory"); png_error(d->png, "nomem"); }
    }
    for (uint32_t y = 0; y < d->height; y++) d->rows[y] = dst + (size_t)y * stride;
    png_read_image(d->png, d->rows);
    d->image_read = 1;
    return CP_OK;
}

int cp_decoder_read_rows(cp_decoder *d, uint8_t *dst, size_t stride, uint32_t rows) {
    if (!d->header_read || d->image_read || d->interlaced || d->next_row + rows > d->height) {
        cp_record(&d->err, CP_ERR_STATE, "out of order");
        return CP_ERR_STATE;
    }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    for (uint32_t y = 0; y < rows; y++) png_read_row(d->png, dst + (size_t)y * stride, NULL);
    d->next_row += rows;
    if (d->next_row == d->height) d->image_read = 1;
    return CP_OK;
}

int cp_decoder_finish(cp_decoder *d) {
    if (!d->image_read) { cp_record(&d->err, CP_ERR_STATE, "out of order"); return CP_ERR_STATE; }
    if (setjmp(png_jmpbuf(d->png))) return d->err.code;
    png_read_end(d->png, NULL);
    return CP_OK;
}
