// A small C layer over libpng. Every libpng call happens here, behind
// setjmp(png_jmpbuf), so libpng's errors come back as return codes and never
// longjmp across Swift frames.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <stddef.h>
#include <stdint.h>

enum {
    CP_OK = 0,
    CP_ERR_CORRUPT = 1,     // libpng reported an error in the data
    CP_ERR_TRUNCATED = 2,   // the data ended early
    CP_ERR_NOMEM = 4,
    CP_ERR_IO = 5,          // a write to the output descriptor failed (see cp_encoder_errno)
    CP_ERR_STATE = 6,
};

typedef struct cp_info {
    uint32_t width, height;
    int bit_depth;          // as stored: 1, 2, 4, 8 or 16
    int color_type;         // PNG_COLOR_TYPE_*: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
    int interlaced;         // Adam7
    int has_alpha;          // an alpha channel or a tRNS chunk
} cp_info;

typedef struct cp_decoder cp_decoder;

// Copies `length` bytes of PNG data. Returns NULL only when out of memory.
cp_decoder *cp_decoder_create(const uint8_t *data, size_t length);
void cp_decoder_destroy(cp_decoder *decoder);
// Reads everything up to the image data (no pixel memory allocated) and sets up
// the transformations to RGBA8: palette and low bit depths expanded, tRNS to
// alpha, grey to RGB, 16 bits scaled to 8, opaque alpha added when missing.
int cp_decoder_read_header(cp_decoder *decoder, cp_info *info);
// Decodes the whole image (any interlace) into `dst` (height rows of stride bytes).
int cp_decoder_read_image(cp_decoder *decoder, uint8_t *dst, size_t stride);
// Reads the chunks after the image data, up to IEND.
int cp_decoder_finish(cp_decoder *decoder);
const char *cp_decoder_message(const cp_decoder *decoder);

typedef struct cp_encoder cp_encoder;

cp_encoder *cp_encoder_create(void);
// Starts an 8-bit RGB or RGBA PNG of RGBA8 rows written to `fd`; level 0-9.
int cp_encoder_start(cp_encoder *encoder, int fd, uint32_t width, uint32_t height, int keep_alpha, int level);
int cp_encoder_write_rows(cp_encoder *encoder, const uint8_t *src, size_t stride, uint32_t rows);
int cp_encoder_finish(cp_encoder *encoder);
void cp_encoder_destroy(cp_encoder *encoder);
const char *cp_encoder_message(const cp_encoder *encoder);
int cp_encoder_errno(const cp_encoder *encoder);

#endif
