// A small C layer over libpng. Every libpng call happens here, behind
// setjmp(png_jmpbuf), so libpng's errors come back as return codes and never
// longjmp across Swift frames.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: libpng reported an error in the data
//   CS_ERR_TRUNCATED: the data ended early
//   CS_ERR_LIMIT: the IHDR size is over cp_decoder_set_max_pixels (width and height set)

typedef struct cp_info {
    uint32_t width, height;
    int bit_depth;          // as stored: 1, 2, 4, 8 or 16
    int color_type;         // PNG_COLOR_TYPE_*: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
    int interlaced;         // Adam7
    int has_alpha;          // an alpha channel or a tRNS chunk
    // Metadata before the image data (owned by the decoder, valid until it is destroyed;
    // NULL/0 when absent). Of the text chunks only these two are read, the first of each
    // with some text (up to its first NUL), and together they get at most 8 MiB of text
    // copied or inflated per file: a text that does not fit is dropped, and inflating one
    // that turns out too big spends the rest of the budget. Other keys are never inflated.
    // icc: iCCP, decompressed; exif: eXIf (TIFF data); xmp: iTXt (or tEXt/zTXt)
    // "XML:com.adobe.xmp"; comment: tEXt/zTXt/iTXt "Comment" (Latin-1 or UTF-8 as stored).
    cs_metadata metadata;
} cp_info;

typedef struct cp_decoder cp_decoder;

// Copies `length` bytes of PNG data. Returns NULL only when out of memory.
cp_decoder *cp_decoder_create(const uint8_t *data, size_t length);
void cp_decoder_destroy(cp_decoder *decoder);
// The caller's pixel limit (before read_header): an IHDR over it is CS_ERR_LIMIT with the
// size in the info, and libpng's own per-side limits (1000000 by default, which called a
// 1x25000000 image "Invalid IHDR data") are set to it, so the one limit decides.
void cp_decoder_set_max_pixels(cp_decoder *decoder, uint64_t max_pixels);
// Reads everything up to the image data (no pixel memory allocated) and sets up
// the transformations to RGBA8: palette and low bit depths expanded, tRNS to
// alpha, grey to RGB, 16 bits scaled to 8, opaque alpha added when missing.
int cp_decoder_read_header(cp_decoder *decoder, cp_info *info);
// Decodes the whole image (any interlace) into `dst` (height rows of stride bytes).
int cp_decoder_read_image(cp_decoder *decoder, uint8_t *dst, size_t stride);
// Decodes the next `rows` rows of a non-interlaced image (streaming); the last call
// completes the image (then call cp_decoder_finish).
int cp_decoder_read_rows(cp_decoder *decoder, uint8_t *dst, size_t stride, uint32_t rows);
// Reads the chunks after the image data, up to IEND.
int cp_decoder_finish(cp_decoder *decoder);
const char *cp_decoder_message(const cp_decoder *decoder);


// ---------------------------------------------------------------- parallel PNG encoding
// The pieces of a pigz-style PNG encoder: the image is cut into stripes of rows that are
// filtered and deflated independently (on several threads), each stripe ending with a
// sync flush, so their outputs joined are one zlib stream; the Adler-32 values are
// combined. The Swift side (ImageIO/Codecs/PNGStreamWriter.swift) runs and joins them.

// Bytes of filtered scanlines for `rows` rows: a filter byte + width*channels bytes each.
size_t cp_scanline_bytes(uint32_t width, int channels, uint32_t rows);

// Filters rows [first, first + count) of an RGBA8 image (channels 4: RGBA, 3: RGB, alpha
// dropped, 1: grey, the red of each pixel) into `out`, choosing for each row the filter (None, Sub, Up, Average, Paeth)
// whose output has the smallest sum of absolute values, as libpng's adaptive filtering
// does. Row first - 1 is read when first > 0. Returns CS_OK or CS_ERR_NOMEM.
int cp_filter_rows(const uint8_t *image, size_t stride, uint32_t width, uint32_t first, uint32_t count,
                    int channels, uint8_t *out);

// Raw-deflates `length` bytes at `level` (0-9) with `dictionary` (the up to 32 KiB of
// stream data before this piece, or NULL), ending with a sync flush, or with the final
// block when `last`. *out is malloc'd (free it); *adler is the Adler-32 of the input.
// Returns CS_OK or CS_ERR_NOMEM.
int cp_deflate_piece(const uint8_t *data, size_t length, const uint8_t *dictionary, size_t dictionary_length,
                     int level, int last, uint8_t **out, size_t *out_length, uint32_t *adler);

uint32_t cp_adler32_combine(uint32_t first, uint32_t second, size_t second_length);
uint32_t cp_crc32(uint32_t crc, const uint8_t *data, size_t length);

#endif
