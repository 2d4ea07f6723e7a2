// A small C layer over FreeType for caption text: open a font, set its pixel size, measure
// and draw glyphs (and their stroked outlines, with FreeType's own stroker) into 8-bit
// coverage masks. Every FreeType call stays here; errors come back as codes.
#ifndef CFT_SHIM_H
#define CFT_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct cft_font cft_font;

// Opens a font file; NULL on failure, with FreeType's reason in `error`.
cft_font *cft_open(const char *path, char *error, size_t error_size);
void cft_close(cft_font *font);
// Sets the size in pixels per em; returns 0 or a FreeType error code.
int cft_set_size(cft_font *font, int pixels);
// Line metrics in whole pixels for the size set: ascender (> 0), descender (<= 0), line height.
void cft_metrics(const cft_font *font, int *ascender, int *descender, int *line_height);
// The advance of `codepoint` in 1/64 pixels, with the kerning after `previous` (0: none).
long cft_advance(cft_font *font, uint32_t previous, uint32_t codepoint);
// Draws `codepoint` with its origin at (pen_x / 64, baseline) into `fill` and, when
// `outline` is not NULL, its border stroked `radius` / 64 pixels wide into `outline`
// (masks of width x height bytes; coverage combines with max; anything outside is
// clipped). A code point the font lacks draws the font's missing-glyph box. Returns 0 or
// a FreeType error code.
int cft_draw(cft_font *font, uint32_t codepoint, long pen_x, int baseline, uint8_t *fill, uint8_t *outline,
             int width, int height, long radius);

#endif
