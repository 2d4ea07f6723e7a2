// libchafa behind a GLib-free interface (see include/cchafa_shim.h).
//
// Written against chafa 1.12 (Debian 12), which lacks what later versions added for
// callers like this one: tmux passthrough (1.14), chafa_term_info_get_best_canvas_mode
// and _pixel_mode (1.14). Both are done here by hand, the second the way chafa 1.12's
// own command line tool does it: by asking which sequences the detected terminal has.
#include "cchafa_shim.h"

#include <chafa.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

// Settings, and why.
//
// Symbols: block + border + space, chafa's own default set, less wide symbols (its tool
// drops them too) and inverted ones (its tool drops those when there are colours: an
// inverted symbol is then just the plain one with fg and bg swapped, so they only cost
// time). Half, quarter and eighth blocks and box drawing are in the usual monospace
// fonts, and many terminals draw them themselves; sextants and braille would add detail
// but many fonts lack them, and a missing glyph is worse than a coarser one. (Limiting
// the set further, to half blocks say, saves no time: see the work factor.)
#define CC_SYMBOLS "block+border+space-wide-inverted"
// Without colour (CC_COLORS_NONE) a cell is one of two fixed colours (light on dark), so
// shapes and dithering are all there is; ASCII keeps the output plain text for any font,
// locale or pipe.
#define CC_SYMBOLS_PLAIN "ascii"
// Work factor: at chafa's 0.5 the symbol search looks at 5 candidates per cell, at 0.3
// at 3; on photos the difference did not show (same error against the source) and most
// of the time goes into the per-cell colour analysis anyway. Below 0.3 chafa scales the
// image nearest-neighbour instead of with its box filter, which makes fur and whiskers
// shimmer, so 0.3 is the floor.
#define CC_WORK_FACTOR 0.3f
// Dithering: ordered (Bayer) at 16 and 256 colours and without colour, none at truecolor
// (where chafa ignores it). With 256 colours chafa uses the 240 that are not the theme's
// 16, and photos posterize into flat patches of a few cube colours; the Bayer pattern
// mixes neighbouring palette colours and brings back the gradients (measured: lower error
// against the blurred source than without), for about 5 ms more per 160x48 render and a
// quarter more bytes. At 16 colours and without colour the gain is much larger. Error
// diffusion measured better still but scatters coloured specks over the fur and, worse
// for an editor, is not stable: a change in one place moves the error pattern all the
// way down the picture, so the preview would crawl on every keystroke. Bayer stays put.
#define CC_DITHER_GRAIN 4        // chafa's default for symbols: 4x4 of its 8x8 cell pixels
#define CC_DITHER_GRAIN_PLAIN 2  // finer: without colour the halftone is the only tone
// Preprocessing (chafa's histogram stretch and, at 16 colours, saturation boost) is off:
// it makes a 16-colour picture louder (a tabby turns red and yellow) and would undo the
// very brightness and contrast edits the preview is there to show.

// Unknown cell size: 1:2 for fitting, and 10x20 pixels for sixels, which the terminal
// draws pixel for pixel.
#define CC_GUESS_CELL_WIDTH 10
#define CC_GUESS_CELL_HEIGHT 20
// A cell size beyond this is surely wrong (and would make huge sixel images).
#define CC_MAX_CELL_PIXELS 512
// The most pixels each way chafa is asked to draw (for SYMBOLS, 8x8 per cell, so at most
// 1024 columns and rows). GLib aborts on a failed allocation, so a window larger than any
// screen must not turn into gigabytes: the picture is fitted into fewer cells instead.
#define CC_MAX_CANVAS_PIXELS 8192

// tmux passthrough: at most this many bytes (escaped) per ESC Ptmux; ... ESC \ wrapper,
// as chafa 1.14 does: tmux drops longer ones (its input buffer is 1 MiB by default).
#define CC_TMUX_PACKET_MAX 1000000

// ceil() for 0 < x < INT_MAX, less a hair of rounding error, without needing libm.
static int ceil_positive(double x) {
    int n = (int)x;
    return x - n > 1e-9 ? n + 1 : n;
}

static int is_graphics(int mode) {
    return mode == CC_MODE_KITTY || mode == CC_MODE_ITERM || mode == CC_MODE_SIXEL;
}

// The largest columns x rows (within the limits) showing a width x height image at the
// right aspect ratio on cells cell_width x cell_height pixels; at least 1x1.
static void fit_cells(uint32_t width, uint32_t height, int columns, int rows, int cell_width, int cell_height,
                      int *out_columns, int *out_rows) {
    double image_aspect = (double)width / (double)height;
    double cell_aspect = (double)cell_width / (double)cell_height;
    double c = (double)rows * image_aspect / cell_aspect;
    int fit_columns, fit_rows;
    if (c <= (double)columns + 0.5) {
        fit_rows = rows;
        fit_columns = (int)(c + 0.5);
    } else {
        fit_columns = columns;
        fit_rows = (int)((double)columns * cell_aspect / image_aspect + 0.5);
    }
    if (fit_columns < 1) fit_columns = 1;
    if (fit_columns > columns) fit_columns = columns;
    if (fit_rows < 1) fit_rows = 1;
    if (fit_rows > rows) fit_rows = rows;
    *out_columns = fit_columns;
    *out_rows = fit_rows;
}

// Copies into a malloc'd string (the API promises malloc/cc_free, not GLib's g_free).
static char *copy_out(const char *data, size_t length) {
    char *text = malloc(length + 1);
    if (!text) return NULL;
    memcpy(text, data, length);
    text[length] = '\0';
    return text;
}

// Wraps every escape sequence in `data` for tmux: ESC Ptmux; <the sequence, each ESC
// doubled> ESC \, starting a new wrapper at each sequence (so kitty's many small chunks
// each get their own) and within one when it grows past CC_TMUX_PACKET_MAX (a sixel or
// iTerm2 image can be megabytes; the outer terminal gets the pieces back to back, as one
// sequence). An ESC directly followed by '\' is a string terminator and stays with the
// sequence it ends. With out NULL, only counts; returns the wrapped length either way.
static size_t tmux_wrap_pass(const char *data, size_t length, char *out) {
    static const char begin[] = "\033Ptmux;";
    static const char end[] = "\033\\";
    const size_t begin_length = sizeof begin - 1, end_length = sizeof end - 1;
    size_t o = 0, packet = 0;
    int open = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char byte = (unsigned char)data[i];
        int starts_sequence = byte == 0x1b && !(i + 1 < length && data[i + 1] == '\\');
        size_t need = byte == 0x1b ? 2 : 1;
        if (open && (starts_sequence || packet + need > CC_TMUX_PACKET_MAX)) {
            if (out) memcpy(out + o, end, end_length);
            o += end_length;
            open = 0;
        }
        if (!open) {
            if (out) memcpy(out + o, begin, begin_length);
            o += begin_length;
            open = 1;
            packet = 0;
        }
        if (out) {
            out[o] = (char)byte;
            if (byte == 0x1b) out[o + 1] = (char)byte;
        }
        o += need;
        packet += need;
    }
    if (open) {
        if (out) memcpy(out + o, end, end_length);
        o += end_length;
    }
    return o;
}

static char *wrap_for_tmux(const char *data, size_t length) {
    // Cannot overflow: chafa's output fits in memory, and wrapping at most doubles each
    // byte plus 9 bytes per ESC (it is at most 11 times as long).
    size_t wrapped_length = tmux_wrap_pass(data, length, NULL);
    char *out = malloc(wrapped_length + 1);
    if (!out) return NULL;
    tmux_wrap_pass(data, length, out);
    out[wrapped_length] = '\0';
    return out;
}

char *cc_render(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int mode, int colors,
                int columns, int rows, int cell_width, int cell_height, int in_tmux,
                int *out_columns, int *out_rows) {
    if (out_columns) *out_columns = 0;
    if (out_rows) *out_rows = 0;

    if (!rgba || width == 0 || height == 0 || width > INT_MAX / 4 || height > INT_MAX) return NULL;
    if (stride < (size_t)width * 4 || stride > INT_MAX) return NULL;
    if (mode < CC_MODE_SYMBOLS || mode > CC_MODE_SIXEL) return NULL;
    if (colors < CC_COLORS_NONE || colors > CC_COLORS_TRUECOLOR) return NULL;
    if (columns < 1 || columns > CC_MAX_CELLS || rows < 1 || rows > CC_MAX_CELLS) return NULL;
    if (cell_width < 0 || cell_height < 0 || cell_width > CC_MAX_CELL_PIXELS || cell_height > CC_MAX_CELL_PIXELS)
        return NULL;

    int known_cells = cell_width > 0 && cell_height > 0;
    int cw = known_cells ? cell_width : CC_GUESS_CELL_WIDTH;
    int ch = known_cells ? cell_height : CC_GUESS_CELL_HEIGHT;

    int max_columns = columns, max_rows = rows;
    if (mode == CC_MODE_SYMBOLS) {
        if (max_columns > CC_MAX_CANVAS_PIXELS / CHAFA_SYMBOL_WIDTH_PIXELS)
            max_columns = CC_MAX_CANVAS_PIXELS / CHAFA_SYMBOL_WIDTH_PIXELS;
        if (max_rows > CC_MAX_CANVAS_PIXELS / CHAFA_SYMBOL_HEIGHT_PIXELS)
            max_rows = CC_MAX_CANVAS_PIXELS / CHAFA_SYMBOL_HEIGHT_PIXELS;
    } else if (mode == CC_MODE_SIXEL) {
        if (max_columns > CC_MAX_CANVAS_PIXELS / cw) max_columns = CC_MAX_CANVAS_PIXELS / cw;
        if (max_rows > CC_MAX_CANVAS_PIXELS / ch) max_rows = CC_MAX_CANVAS_PIXELS / ch;
    }
    int fit_columns, fit_rows;
    fit_cells(width, height, max_columns, max_rows, cw, ch, &fit_columns, &fit_rows);

    ChafaCanvasConfig *config = chafa_canvas_config_new();
    ChafaSymbolMap *symbols = NULL;
    chafa_canvas_config_set_geometry(config, fit_columns, fit_rows);
    chafa_canvas_config_set_work_factor(config, CC_WORK_FACTOR);
    chafa_canvas_config_set_preprocessing_enabled(config, FALSE);

    if (mode == CC_MODE_SYMBOLS) {
        chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS);
        ChafaCanvasMode canvas_mode = CHAFA_CANVAS_MODE_TRUECOLOR;
        switch (colors) {
        case CC_COLORS_TRUECOLOR: canvas_mode = CHAFA_CANVAS_MODE_TRUECOLOR; break;
        // 240, not 256: colours 0-15 are whatever the user's theme made of them, so
        // chafa (its tool does the same) leaves them out and emits only 16-255.
        case CC_COLORS_256: canvas_mode = CHAFA_CANVAS_MODE_INDEXED_240; break;
        case CC_COLORS_16: canvas_mode = CHAFA_CANVAS_MODE_INDEXED_16; break;
        // FGBG: two fixed colours and no escape sequence at all, not even a reset.
        case CC_COLORS_NONE: canvas_mode = CHAFA_CANVAS_MODE_FGBG; break;
        }
        chafa_canvas_config_set_canvas_mode(config, canvas_mode);

        symbols = chafa_symbol_map_new();
        chafa_symbol_map_apply_selectors(symbols, colors == CC_COLORS_NONE ? CC_SYMBOLS_PLAIN : CC_SYMBOLS, NULL);
        chafa_canvas_config_set_symbol_map(config, symbols);

        if (colors != CC_COLORS_TRUECOLOR) {
            int grain = colors == CC_COLORS_NONE ? CC_DITHER_GRAIN_PLAIN : CC_DITHER_GRAIN;
            chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_ORDERED);
            chafa_canvas_config_set_dither_grain_size(config, grain, grain);
        }
        // Reuse attributes (no SGR when the colours did not change): fewer bytes to the
        // terminal. Not REPEAT_CELLS (it needs REP, which not every terminal has and the
        // fallback terminal info lacks anyway) nor SKIP_CELLS (unused in 1.12).
        chafa_canvas_config_set_optimizations(config, CHAFA_OPTIMIZATION_REUSE_ATTRIBUTES);
    } else {
        chafa_canvas_config_set_pixel_mode(config, mode == CC_MODE_KITTY   ? CHAFA_PIXEL_MODE_KITTY
                                                   : mode == CC_MODE_ITERM ? CHAFA_PIXEL_MODE_ITERM2
                                                                           : CHAFA_PIXEL_MODE_SIXELS);
        // Graphics carry their own colours; chafa quantizes sixels to its own palette.
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR);
        chafa_canvas_config_set_dither_grain_size(config, 1, 1);

        // chafa makes the image fit_columns * cell width pixels wide. Sixels are shown
        // pixel for pixel, so that must be the real cell size. kitty and iTerm2 scale the
        // image to the cells they are told, so more pixels than the source has would only
        // be more bytes to send (kitty's and iTerm2's are uncompressed RGBA, base64'd):
        // shrink the cell down to the source's resolution (rounding up, so no source
        // pixel is lost; the slightly different pixel aspect does not matter, as the
        // terminal stretches the image to exactly the cells anyway).
        if (mode != CC_MODE_SIXEL) {
            double scale_x = (double)width / ((double)fit_columns * cw);
            double scale_y = (double)height / ((double)fit_rows * ch);
            double scale = scale_x > scale_y ? scale_x : scale_y;
            if (scale < 1.0) {
                cw = ceil_positive(cw * scale);
                ch = ceil_positive(ch * scale);
                if (cw < 1) cw = 1;
                if (ch < 1) ch = 1;
            }
            // And no more than CC_MAX_CANVAS_PIXELS each way (a huge source on many cells).
            if (fit_columns * cw > CC_MAX_CANVAS_PIXELS) cw = CC_MAX_CANVAS_PIXELS / fit_columns;
            if (fit_rows * ch > CC_MAX_CANVAS_PIXELS) ch = CC_MAX_CANVAS_PIXELS / fit_rows;
            if (cw < 1) cw = 1;
            if (ch < 1) ch = 1;
        }
        chafa_canvas_config_set_cell_geometry(config, cw, ch);
    }

    ChafaCanvas *canvas = chafa_canvas_new(config);
    chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, (gint)width, (gint)height,
                                 (gint)stride);

    // The fallback terminal info has every sequence chafa can emit; which ones are used
    // is decided above, by the caller's mode and colors, not by chafa's detection.
    ChafaTermInfo *term_info = chafa_term_db_get_fallback_info(chafa_term_db_get_default());
    GString *printed = chafa_canvas_print(canvas, term_info);

    char *text;
    if (in_tmux && is_graphics(mode))
        text = wrap_for_tmux(printed->str, printed->len);
    else
        text = copy_out(printed->str, printed->len);

    g_string_free(printed, TRUE);
    chafa_term_info_unref(term_info);
    chafa_canvas_unref(canvas);
    if (symbols) chafa_symbol_map_unref(symbols);
    chafa_canvas_config_unref(config);

    if (text) {
        if (out_columns) *out_columns = fit_columns;
        if (out_rows) *out_rows = fit_rows;
    }
    return text;
}

void cc_free(char *text) {
    free(text);
}

int cc_detect(char **envp, int *mode, int *colors) {
    if (!mode || !colors) return -1;

    char *empty[] = {NULL};
    ChafaTermInfo *info = chafa_term_db_detect(chafa_term_db_get_default(), envp ? envp : empty);
    if (!info) return -1;

    // chafa 1.12's tool picks its modes the same way, from the sequences present.
    if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1))
        *mode = CC_MODE_KITTY;
    else if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_ITERM2_IMAGE))
        *mode = CC_MODE_ITERM;
    else if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_SIXELS)
             && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_END_SIXELS))
        *mode = CC_MODE_SIXEL;
    else
        *mode = CC_MODE_SYMBOLS;

    if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FGBG_DIRECT)
        && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FG_DIRECT)
        && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_BG_DIRECT))
        *colors = CC_COLORS_TRUECOLOR;
    else if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FGBG_256)
             && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FG_256)
             && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_BG_256))
        *colors = CC_COLORS_256;
    else if (chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FGBG_16)
             && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FG_16)
             && chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_BG_16))
        *colors = CC_COLORS_16;
    else
        *colors = CC_COLORS_NONE;

    chafa_term_info_unref(info);
    return 0;
}
