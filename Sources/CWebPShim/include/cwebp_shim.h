// A small C layer over libwebp (still images), libwebpdemux (the RIFF container,
// animation compositing) and libwebpmux (metadata chunks, animation assembly).
// libwebp never aborts or longjmps, so no setjmp is needed here (unlike the JPEG
// shim). What this layer adds: one error code + message per object, the caller's
// pixel/frame limits checked on the DECLARED sizes before any pixel memory
// exists, and RGBA8 rows in caller-owned memory as the only pixel format Swift sees.
#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: not WebP, or the container/bitstream is malformed
//   CS_ERR_TRUNCATED: the data ends before the image does
//   CS_ERR_UNSUPPORTED: valid request the format cannot express (e.g. > 16383 px wide)
//   CS_ERR_IO: a write to the output descriptor failed (see *error_number)
//   CS_ERR_STATE: the API was called out of order or with invalid arguments
//   CS_ERR_LIMIT: the caller's max_pixels / max_frames was exceeded, or an encoder-internal size limit was hit

typedef struct cw_info {
    uint32_t width, height;          // canvas size
    int has_alpha;                   // for animations "may have alpha": 1 also when the transparent
                                     // start canvas can show, and always past 1024 frames
    int animated;                    // VP8X animation flag set (ANIM + ANMF frames)
    uint32_t frame_count;
    int loop_count;                  // 0 = forever (WebP's meaning); 1 for still images
    // Owned by the decoder: the ICCP, EXIF (as stored) and "XMP " chunks' payloads (NULL: none).
    cs_metadata metadata;
} cw_info;

typedef struct cw_decoder cw_decoder;

// Copies `length` bytes of WebP data. Returns NULL only when out of memory.
cw_decoder *cw_decoder_create(const uint8_t *data, size_t length);
void cw_decoder_destroy(cw_decoder *decoder);
// Parses the container (WebPDemux; a raw VP8/VP8L bitstream without the RIFF
// header is accepted too, if it is at least 20 bytes long) and fills `info`. No
// pixel memory is allocated. CS_ERR_LIMIT when frame_count > max_frames or
// width*height*frame_count > max_pixels (0 is a limit, not "unlimited").
// The metadata pointers stay valid until cw_decoder_destroy. Cost: linear in
// the file size. (Decoding all frames is not: libwebp looks frame n up from
// the start of a list, so next_frame over N frames is O(N^2) -- keep
// max_frames to a few thousand: 10000 one-pixel frames take ~0.3 s.)
int cw_decoder_read_header(cw_decoder *decoder, uint64_t max_pixels, uint32_t max_frames, cw_info *info);
// Decodes a still image, or the first composited canvas of an animation, as
// non-premultiplied RGBA8 (alpha 255 when the image has none) into `dst`:
// height rows of `stride` bytes (stride >= width*4). For an animation this also
// rewinds cw_decoder_next_frame to the first frame.
int cw_decoder_read_image(cw_decoder *decoder, uint8_t *dst, size_t stride, int use_threads);
// Decodes the next frame, composited onto the canvas (WebPAnimDecoder, RGBA8,
// non-premultiplied; the canvas starts fully transparent, the ANIM background
// colour is ignored as the spec allows), and copies the full canvas into `dst`.
// *delay_ms = this frame's duration. Call frame_count times; one more call is
// CS_ERR_STATE. Works for stills too (one frame, delay 0). `use_threads` is
// taken from the first call.
int cw_decoder_next_frame(cw_decoder *decoder, uint8_t *dst, size_t stride, int use_threads, int *delay_ms);
// A human-readable reason for the last error ("" when none).
const char *cw_decoder_message(const cw_decoder *decoder);

// Metadata comes as CShimSupport's cs_metadata. Here:
//   icc: NULL/0 when none
//   exif: TIFF data ("II*\0"/"MM\0*"), written as the EXIF chunk as is

// Encodes one RGBA8 image (width, height 1..16383) and writes the whole .webp
// file to `fd`. `method` is libwebp's effort, 0 (fast) to 6 (small; clamped).
// lossless=0: lossy VP8 at `quality` 0..100; the alpha
// channel is kept (losslessly, as an ALPH chunk) when has_alpha and some pixel
// is not opaque, else ignored. lossless=1: VP8L with `exact`, so decoded pixels
// equal the input exactly (RGB under alpha 0 included; alpha 255 when
// !has_alpha); `quality` is ignored (libwebp's default, as cwebp
// -lossless, but at `method`). threads=1 sets libwebp's thread_level. Metadata chunks are added
// through WebPMux (which writes the VP8X header) when any is non-empty; metadata
// may be NULL. On failure a reason goes to `message` (if non-NULL) and, for
// CS_ERR_IO, errno to *error_number (if non-NULL; set to 0 otherwise).
int cw_encode_image(int fd, const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int has_alpha,
                    int lossless, int quality, int method, int threads, const cs_metadata *metadata,
                    char *message, size_t message_size, int *error_number);

// A still, lossy, opaque WebP fed rows top to bottom (any counts): each block is converted
// to YUV 4:2:0 as it comes (pairs of rows, exactly as a whole-image import converts them),
// so the RGBA picture never sits whole in memory and the conversion overlaps decoding.
// The file is the one cw_encode_image writes for the same opaque pixels (has_alpha 0).
typedef struct cw_rows_encoder cw_rows_encoder;
// NULL when out of memory or for a size WebP cannot hold (1..16383 each).
cw_rows_encoder *cw_rows_encoder_create(uint32_t width, uint32_t height);
int cw_rows_encoder_add(cw_rows_encoder *encoder, const uint8_t *rgba, size_t stride, uint32_t rows);
// Encodes at `quality` and `method` (as cw_encode_image) and writes the file with `metadata`.
int cw_rows_encoder_finish(cw_rows_encoder *encoder, int fd, int quality, int method, int threads,
                           const cs_metadata *metadata,
                           char *message, size_t message_size, int *error_number);
void cw_rows_encoder_destroy(cw_rows_encoder *encoder);

typedef struct cw_anim_encoder cw_anim_encoder;

// Animated WebP (WebPAnimEncoder) of a width x height canvas (1..16383 each).
// loop_count: 0 = forever, clamped to 0..65535. Returns NULL only when out of
// memory or for an invalid size.
cw_anim_encoder *cw_anim_encoder_create(uint32_t width, uint32_t height, int loop_count, int lossless, int quality,
                                        int method, int threads);
// Adds a full-canvas RGBA8 frame shown for delay_ms (0..16777215, the 24-bit
// ANMF field; more is CS_ERR_UNSUPPORTED). WebPAnimEncoder
// merges a frame identical to the previous one into it (summing the delays),
// so the file may hold fewer frames than were added; a lone frame becomes a
// still image.
int cw_anim_encoder_add(cw_anim_encoder *encoder, const uint8_t *rgba, size_t stride, int delay_ms);
// Assembles the file (with metadata chunks, metadata may be NULL) and writes it
// to `fd`. Once only; the encoder accepts no more frames afterwards.
int cw_anim_encoder_finish(cw_anim_encoder *encoder, int fd, const cs_metadata *metadata, int *error_number);
void cw_anim_encoder_destroy(cw_anim_encoder *encoder);
const char *cw_anim_encoder_message(const cw_anim_encoder *encoder);

#endif
