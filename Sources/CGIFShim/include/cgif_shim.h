// A small C layer over giflib (5.2): decoding with browser-style frame
// compositing, a palette quantizer with Floyd–Steinberg dithering, and an
// animated GIF89a encoder. giflib reports errors through return codes (it has
// no fatal-error callback), so unlike the JPEG and PNG shims no setjmp is needed.
//
// Frame numbers in messages count from 1 ("frame 1" is the first image).
#ifndef CGIF_SHIM_H
#define CGIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: the data is not a GIF, or breaks the format in a way we cannot draw around
//   CS_ERR_TRUNCATED: the data ended inside a block (a missing trailer alone is tolerated)
//   CS_ERR_IO: a write to the output descriptor failed (see cg_encoder_errno)
//   CS_ERR_STATE: the API was called out of order, or with arguments that do not fit
//   CS_ERR_LIMIT: a caller-supplied bound (pixels, frames) or a GIF format limit was exceeded

typedef struct cg_info {
    uint32_t width, height;  // logical screen size, enlarged to hold the first frame when that
                             // frame sticks out of it (as Chrome, Firefox and Pillow do)
    uint32_t frame_count;    // image descriptors in the file
    int loop_count;          // NETSCAPE2.0 / ANIMEXTS1.0 loop count: -1 when absent (play once), 0 = forever, else n
    int has_alpha;           // some frame has a transparent index in its GCE, or does not cover the whole screen
} cg_info;

// ---------------------------------------------------------------- decoder

typedef struct cg_decoder cg_decoder;

// Copies `length` bytes. NULL only when out of memory.
cg_decoder *cg_decoder_create(const uint8_t *data, size_t length);
void cg_decoder_destroy(cg_decoder *decoder);
// Reads the screen descriptor and walks every record without decompressing pixel data, filling
// `info`. CS_ERR_LIMIT (info->width and height are set then, the rest of `info` only on success):
//  - when the screen (or one frame's rectangle) has more than `max_pixels` pixels, checked
//    before anything large is allocated or scanned;
//  - when the file has more than `max_frames` frames (info->frame_count is max_frames + 1);
//  - when decoding every frame would decompress more than `max_pixels` pixels of LZW data in
//    all, counted as cg_decoder_next_frame works: for each frame, its width times the rows
//    stored up to its last row on the screen (interlaced: all rows of the passes before the
//    last pass holding a visible row), nothing for a frame wholly off the screen. Frames
//    inside the screen cost at most frame_count x width x height; a frame wider than the
//    screen costs its full width on every visible row.
// CS_ERR_CORRUPT when it holds no image. Afterwards decoding starts at the first frame.
// Call once.
int cg_decoder_scan(cg_decoder *decoder, uint64_t max_pixels, uint32_t max_frames, cg_info *info);
// Decodes the next frame, composites it onto the canvas as browsers do and copies the whole
// canvas (width x height RGBA8, unpremultiplied, rows `stride` bytes apart) to `dst`.
// Frames are clipped to the canvas: one wholly outside it is not decompressed (its data is
// not even read), and a frame's data is abandoned after its last row on the canvas.
// *delay_ms = the GCE delay * 10 (0 without a GCE). Call exactly frame_count times.
int cg_decoder_next_frame(cg_decoder *decoder, uint8_t *dst, size_t stride, int *delay_ms);
// A human-readable reason for the last error ("" when none).
const char *cg_decoder_message(const cg_decoder *decoder);

// ---------------------------------------------------------------- quantizer

// Parallel-safe: no shared state, so several frames may be quantized at once.
typedef struct cg_indexed {
    uint8_t *indices;          // width*height, row-major, no padding; malloc'd by cg_quantize
    uint8_t palette[256 * 3];  // RGB
    int colors;                // palette entries used, 1..256
    int transparent;           // palette index for alpha < 128 pixels, or -1 when the frame has none
    uint32_t width, height;
} cg_indexed;

// Reduces an RGBA8 frame to at most 256 colours (255 + one transparent entry when some pixel
// has alpha < 128; other alpha values count as opaque) and maps it with Floyd–Steinberg error
// diffusion. Frames with few enough distinct opaque colours map exactly, without dithering.
// On error `out` holds no allocation. Returns CS_OK or CS_ERR_NOMEM.
int cg_quantize(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, cg_indexed *out);
void cg_indexed_free(cg_indexed *frame);

// ---------------------------------------------------------------- encoder

typedef struct cg_encoder cg_encoder;

// Starts a GIF89a of width x height (1..65535 each) on `fd`. loop_count -1: no NETSCAPE2.0
// extension (play once); 0: loop forever; n: n (clamped to 65535). NULL only when out of memory;
// other failures (a bad size, a failed write) are returned by the next call.
cg_encoder *cg_encoder_create(int fd, uint32_t width, uint32_t height, int loop_count);
// Writes one full-canvas frame with its own local palette and a GCE: delay_ms/10 (rounded),
// its transparent index if any, and disposal 2 (restore to background) on every frame -- the
// disposal of frame n acts before frame n+1, which may have transparent pixels that frame n
// must not show through. The frame must be width x height.
int cg_encoder_write_frame(cg_encoder *encoder, const cg_indexed *frame, int delay_ms);
// Writes the trailer and flushes. CS_ERR_IO on a failed write.
int cg_encoder_finish(cg_encoder *encoder);
// Also valid when finish was never called (then nothing more is written). Does not close fd.
void cg_encoder_destroy(cg_encoder *encoder);
const char *cg_encoder_message(const cg_encoder *encoder);
int cg_encoder_errno(const cg_encoder *encoder);

#endif
