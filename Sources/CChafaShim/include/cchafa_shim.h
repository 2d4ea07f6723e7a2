// A small C layer over libchafa, which turns pixels into something a terminal can
// show: coloured Unicode symbols, or a kitty / iTerm2 / sixel graphics sequence.
// libchafa's API is GLib's (GString, gchar **, refcounted objects); all of that stays
// in chafa_shim.c, so this header, which Swift imports, needs only <stddef.h> and
// <stdint.h>, and what crosses it is plain bytes and ints.
//
// Thread safety: cc_render and cc_detect keep no state between calls and may run on
// several threads at once. chafa itself spreads one render over all CPU cores.
#ifndef CCHAFA_SHIM_H
#define CCHAFA_SHIM_H

#include <stddef.h>
#include <stdint.h>

// How the picture is drawn.
enum {
    CC_MODE_SYMBOLS = 0,  // text: block and border characters with SGR colours
    CC_MODE_KITTY = 1,    // kitty graphics protocol: APC ESC _G ... ESC \, uncompressed RGBA
    CC_MODE_ITERM = 2,    // iTerm2 inline image: OSC ESC ]1337;File=... BEL, an uncompressed TIFF
    CC_MODE_SIXEL = 3,    // DEC sixels: DCS ESC P ... q ... ESC \, at most 256 colours
};

// Which colour escape sequences SYMBOLS may use. The graphics modes ignore it: their
// pixels are not SGR colours.
enum {
    CC_COLORS_NONE = 0,       // no escape sequence at all (NO_COLOR, TERM=dumb, a pipe)
    CC_COLORS_16 = 1,         // SGR 30-37/90-97 and 40-47/100-107
    CC_COLORS_256 = 2,        // SGR 38;5;n / 48;5;n
    CC_COLORS_TRUECOLOR = 3,  // SGR 38;2;r;g;b / 48;2;r;g;b
};

// The largest `columns` and `rows` cc_render accepts; larger is a bad argument.
// (Far beyond any screen; it keeps a stray value from asking GLib for gigabytes,
// and GLib aborts the process when an allocation fails.)
enum { CC_MAX_CELLS = 4096 };

// Renders an RGBA8 image (unpremultiplied, rows `stride` bytes apart) to fit within
// `columns` x `rows` character cells, keeping the aspect ratio given the cell size in
// pixels (cell_width x cell_height; pass 0,0 when unknown, e.g. TIOCGWINSZ gave no pixel
// size: then cells count as 1:2, and sixels, which the terminal shows pixel for pixel,
// are drawn for 10x20-pixel cells, so pass the real size whenever sixels are used).
// Returns a malloc'd NUL-terminated string (caller frees with cc_free) holding exactly
// what to write to the terminal:
// - SYMBOLS: text rows separated by "\n" (no trailing newline). With colours, the
//   first row starts and every row ends with an SGR reset ("\033[0m"), so nothing
//   leaks into the rest of the screen. With CC_COLORS_NONE: printable ASCII only, no
//   escape sequence, assuming light text on a dark background.
// - KITTY / ITERM / SIXEL: the graphics escape sequence(s), nothing else. The image
//   appears at the cursor; where the cursor ends up afterwards is the terminal's
//   business (sixel terminals usually move it below the image). KITTY and ITERM send
//   at most the source's own resolution: the terminal scales the image to the cells.
//   kitty keeps every image it is sent (no image id is given): to replace a picture,
//   delete the old one first ("\033_Ga=d\033\\" deletes all visible ones).
// Transparency: in SYMBOLS, fully transparent areas become cells without a background
// colour (the terminal's own shows through; chafa may use SGR 7, reverse video, for
// that), partly transparent pixels are blended over black. The graphics modes keep alpha.
// *out_columns / *out_rows (either may be NULL): the cells the picture covers, at most
// columns x rows, at least 1x1; 0x0 when NULL is returned. (To bound chafa's memory,
// SYMBOLS uses at most 1024 columns and rows, SIXEL at most 8192 pixels each way.)
// in_tmux nonzero: KITTY / ITERM / SIXEL sequences are wrapped for tmux passthrough
// (ESC Ptmux; <sequence, every ESC doubled> ESC \), one wrapper per sequence and at
// most ~1 MB each, as chafa 1.14 does (1.12 has no passthrough of its own). tmux
// forwards them only with `set -g allow-passthrough on` (tmux 3.3+). SYMBOLS output is
// never wrapped: tmux understands SGR.
// Returns NULL only on out of memory or bad arguments (rgba NULL, a zero size, stride
// below width * 4, stride or width * 4 or height beyond INT_MAX, unknown mode or colors,
// columns or rows outside 1...CC_MAX_CELLS, a cell size below 0 or above 512). Out of
// memory means this shim's own buffers: GLib aborts the process when chafa's fail.
char *cc_render(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int mode, int colors,
                int columns, int rows, int cell_width, int cell_height, int in_tmux,
                int *out_columns, int *out_rows);

// Frees a string from cc_render (NULL is fine).
void cc_free(char *text);

// chafa's own terminal database guess from the environment: fills *mode (CC_MODE_*) and
// *colors (CC_COLORS_*) for the terminal that `envp` (a NULL-terminated "KEY=VALUE"
// array, like environ; NULL counts as empty) describes, with chafa_term_db_detect.
// It reads TERM, COLORTERM, TERM_PROGRAM, LC_TERMINAL, VTE_VERSION, KONSOLE_VERSION,
// TERMINAL_NAME, TMUX and ComSpec, nothing else, and never asks the terminal. Note what
// chafa 1.12 answers: an unknown or missing TERM, "dumb" included, gives 256 colours,
// and kitty is recognised by TERM=xterm-kitty alone (not KITTY_WINDOW_ID); so check
// NO_COLOR and TERM=dumb before calling this. Returns 0 on success, -1 when mode or
// colors is NULL.
int cc_detect(char **envp, int *mode, int *colors);

#endif
