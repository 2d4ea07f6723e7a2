// A small C layer over the text stack for captions: FreeType opens fonts, sets their pixel
// size, and draws glyphs (and their stroked outlines, with FreeType's own stroker) into 8-bit
// coverage masks, colour glyphs (emoji) into an RGBA layer; libraqm (HarfBuzz, FriBidi)
// shapes a line; fontconfig finds fonts for the characters the bundled one lacks. Every call
// into them stays here; errors come back as codes.
#ifndef CFT_SHIM_H
#define CFT_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct cft_font cft_font;

// Opens a font file (face `index` of a collection); NULL on failure, with FreeType's reason
// in `error`.
cft_font *cft_open(const char *path, char *error, size_t error_size);
cft_font *cft_open_face(const char *path, long index, char *error, size_t error_size);
// Whether the font has a glyph for `codepoint`.
int cft_has_char(cft_font *font, uint32_t codepoint);
// Whether its glyphs are colour bitmaps (emoji).
int cft_is_colour(cft_font *font);
void cft_close(cft_font *font);
// Sets the size in pixels per em (a bitmap font: its nearest strike, scaled to it when
// drawn); returns 0 or a FreeType error code.
int cft_set_size(cft_font *font, int pixels);
// Line metrics in whole pixels for the size set: ascender (> 0), descender (<= 0), line height.
void cft_metrics(const cft_font *font, int *ascender, int *descender, int *line_height);
// Draws glyph `glyph` (an index, as shaping gives it) with its origin at (pen_x / 64,
// pen_y / 64), y down: an outline glyph into `fill` and, when `outline` is not NULL, its
// border stroked `radius` / 64 pixels wide into `outline` (masks of width x height bytes;
// coverage combines with max; anything outside is clipped), a colour glyph into `colour`
// (RGBA, premultiplied, "over" what is there: the columns [colour_x, colour_x + colour_width)
// of the masks, colour_width x height x 4) scaled to the size set, its shape dilated by
// `radius` into `outline`. Returns 0 or a FreeType error code.
int cft_draw_glyph(cft_font *font, uint32_t glyph, long pen_x, long pen_y, uint8_t *fill, uint8_t *outline,
                   uint8_t *colour, int colour_x, int colour_width, int width, int height, long radius);

// One glyph of a shaped line, in visual order (left to right): its index in the font
// `font` (of those given to ctl_shape), where it goes (1/64 pixels) and the text position
// (in scalars) of the cluster it belongs to.
typedef struct {
    uint32_t glyph;
    int32_t font;
    int32_t x_advance, x_offset, y_offset;
    uint32_t cluster;
} ctl_glyph;

// Loads libraqm and fontconfig on first use: 1, or 0 with the reason in `why`.
int ctl_available(char *why, size_t size);
// Shapes `count` scalars, scalar i in fonts[font_of[i]], all set to one size; `language` a
// BCP 47 tag or NULL; `direction` 0 from the text, 1 left to right, 2 right to left. Returns
// the number of glyphs written, -1 on failure, or -(n + 1) when `capacity` is short of n.
long ctl_shape(const uint32_t *text, size_t count, cft_font *const *fonts, const int32_t *font_of, size_t font_count,
               const char *language, int direction, ctl_glyph *out, size_t capacity);
// A font file and face index with a glyph for every one of `count` scalars (a cluster), by
// fontconfig's order for `language` ("" for none) and weight: 1 found, 0 none.
int ctl_find_font(const char *language, int bold, const uint32_t *scalars, size_t count, char *path, size_t path_size,
                  int *index);
// Why no fallback font was looked for: 1 when fontconfig's configuration did not load
// within the wait (a config that includes a FIFO or a file on a hung mount), 2 when
// FONTCONFIG_FILE is no regular file of at most 16 MiB (not read); else 0.
int ctl_fonts_unanswered(void);
// The longest fontconfig's configuration is waited for, in seconds.
int ctl_fonts_wait(void);
// Where lines may break in `count` scalars, by UAX #14 (ICU's line break iterator, libicuuc,
// loaded on first use; `locale` as "ja" or "" for the root rules): kinds[i] is 1 when a line
// may break before scalar i, 2 when it must (after a line feed), else 0. Returns 1, 0 when
// ICU is not installed (kinds untouched), or -1 when it failed.
int ctl_line_breaks(const uint32_t *scalars, size_t count, const char *locale, uint8_t *kinds);

#endif
