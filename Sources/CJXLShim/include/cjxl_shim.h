// A small C layer over libjxl 0.7 (JPEG XL): libjxl (decode.h, encode.h) and
// libjxl_threads (the std::thread parallel runner). What this layer adds: one
// error code + message per object, the caller's pixel/frame limits checked on
// the DECLARED sizes (image header, frame headers) before any pixel memory
// exists, and RGBA8 rows in caller-owned memory as the only pixel format Swift
// sees.
//
// libjxl never longjmps. Two things it does that this layer cannot change:
//  - Debian's libjxl 0.7 is built to print a "file.cc:line: reason" line to
//    stderr for each internal failure (corrupt or truncated input, bad encoder
//    arguments) through its own fprintf(stderr); there is no API to silence or
//    redirect it. The shim itself never prints. The reasons are not available
//    through the API either, so the messages here say what the shim knows.
//  - libjxl is C++ built without exceptions: an internal invariant failure
//    (JXL_ASSERT / JXL_CHECK, not expected for any input: the decoder is fuzzed)
//    or a failed allocation inside a std:: container aborts the process.
//    Allocations the shim can bound (pixels, metadata, output) are bounded.
#ifndef CJXL_SHIM_H
#define CJXL_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: not JPEG XL, or the codestream/container is malformed
//   CS_ERR_TRUNCATED: the data ends before the image does
//   CS_ERR_UNSUPPORTED: valid request the format / libjxl cannot do (e.g. an ICC profile it rejects)
//   CS_ERR_IO: a write to the output descriptor failed (see *error_number)
//   CS_ERR_STATE: the API was called out of order or with invalid arguments
//   CS_ERR_LIMIT: the caller's max_pixels / max_frames was exceeded

typedef struct cx_info {
    uint32_t width, height;          // size of the returned pixels, i.e. AFTER orientation (see below)
    int has_alpha;                   // the image has an alpha channel (alpha_bits > 0)
    int animated;                    // the codestream has an animation header
    uint32_t frame_count;            // displayed frames (1 for a still image), counted by read_header
    int loop_count;                  // 0 = forever (as in WebP); 1 for still images
    int orientation;                 // always 1: libjxl applies the codestream orientation itself,
                                     // so the pixels come upright. The EXIF Orientation tag (if any)
                                     // must be IGNORED (the JPEG XL spec says the codestream wins).
    uint32_t bits_per_sample;        // of the original (the pixels come out as 8 bits anyway)
    int lossless_hint;               // 1 when the codestream is not XYB (modular lossless or
                                     // original-profile lossy); 0 for XYB (lossy)
    // Owned by the decoder: icc, the profile of the RETURNED pixels (NULL when they are
    // sRGB; see read_header); exif, the first "Exif" box as bare TIFF; xmp, the first "xml "
    // box. Over CS_METADATA_BUDGET (a Brotli box counted as it decompresses), left out:
    // *_dropped, the bytes seen (at least the budget).
    cs_metadata metadata;
} cx_info;

typedef struct cx_decoder cx_decoder;

// Copies `length` bytes of JPEG XL data (bare codestream FF 0A, or the ISO BMFF
// container starting with the "JXL " box). Returns NULL only when out of memory.
cx_decoder *cx_decoder_create(const uint8_t *data, size_t length);
// Whether libjxl and libjxl_threads are there: on Linux they are loaded when first needed
// (dlopen), not at start. 1, or 0 with the reason in why[0..size) (why may be NULL). The
// decoder and encoder makers return NULL when they are not.
int cx_available(char *why, size_t size);
void cx_decoder_destroy(cx_decoder *decoder);
// Reads the headers and walks the whole file once WITHOUT decoding pixels
// (libjxl skips frame data through the frame's table of contents), and fills
// `info`. The checks, in file order and before any pixel memory exists:
//   the container's boxes malformed (cs_box_next)         -> CS_ERR_CORRUPT/TRUNCATED
//   width*height > max_pixels                              -> CS_ERR_LIMIT
//   at each frame header: displayed frames > max_frames, or
//   width*height*displayed frames > max_pixels             -> CS_ERR_LIMIT
//   every frame (layers and zero-duration frames too: the walk does not coalesce,
//   so libjxl 0.7 reports each regular frame, which it would otherwise decode
//   unseen): count > max_frames, or their areas together (each frame's own, and at
//   least the canvas, on which libjxl blends it; each extra channel past two charged
//   as one more picture of that size) > max_pixels                    -> CS_ERR_LIMIT
// (0 is a limit, not "unlimited": max_frames 0 refuses every file). info->width and
// height are set as soon as they are read, so a caller can name an image over the limit.
// Not reported by libjxl 0.7 and so not counted here: skip-progressive, reference-only
// and DC frames. Decoding then counts every frame libjxl decodes through its parallel
// runner (a few calls a frame) and stops a file that decodes far more frames than the
// walk counted (CS_ERR_LIMIT). A CMYK image whose profile is over the budget is
// CS_ERR_UNSUPPORTED (its colours cannot be converted).
// Metadata: the first "Exif" box (its 4-byte TIFF-header offset removed; left
// out when it does not then start with a TIFF header) and the first "xml " box,
// wherever they are in the container (before or after the codestream), "brob"
// (Brotli-compressed) boxes decompressed. A profile or a box over
// CS_METADATA_BUDGET is left out (icc_dropped, exif_dropped, xmp_dropped), not the image.
// Colour: the pixels come out as libjxl outputs them for 8-bit integers
// (JXL_COLOR_PROFILE_TARGET_DATA): for lossless / original-profile images the
// original space; for XYB (lossy) images the original space when the header
// describes it as an enumerated encoding (sRGB, Display P3, ...), and sRGB
// (requested through JxlDecoderSetPreferredColorProfile) when the original is an
// arbitrary ICC profile (out-of-gamut colours clip). `icc` is that output
// profile, or NULL when it is sRGB (or a grey image with the sRGB curve). Grey
// images come out as R=G=B; a grey profile other than sRGB-grey is NOT reported
// (it does not describe RGB data).
// A file cut inside a frame's pixel data may pass read_header (the walk does
// not read pixel data); decoding it then fails with CS_ERR_TRUNCATED.
// The metadata pointers stay valid until cx_decoder_destroy. Call once.
int cx_decoder_read_header(cx_decoder *decoder, uint64_t max_pixels, uint32_t max_frames, cx_info *info);
// Decodes a still image, or the first (coalesced) frame of an animation, as
// non-premultiplied RGBA8 (alpha 255 when the image has none; premultiplied
// files are un-premultiplied by libjxl) into `dst`: height rows of `stride`
// bytes (stride >= width*4; libjxl writes straight into the rows through its
// output callback, no intermediate image). threads <= 1: single-threaded,
// else a JxlThreadParallelRunner with that many worker threads. For an
// animation this also rewinds cx_decoder_next_frame to the first frame.
int cx_decoder_read_image(cx_decoder *decoder, uint8_t *dst, size_t stride, int threads);
// Decodes the next displayed frame, coalesced by libjxl (full canvas, blended
// onto the previous frames as the file says), into `dst` like read_image.
// *delay_ms = the frame's duration in ticks converted with the animation
// header's tps_numerator/tps_denominator, rounded to the nearest ms (0 for a
// still image). Call frame_count times; one more call is CS_ERR_STATE. The
// frame limits are checked again as frames come. `threads` is taken from the
// first call after read_header / read_image.
int cx_decoder_next_frame(cx_decoder *decoder, uint8_t *dst, size_t stride, int threads, int *delay_ms);
// A human-readable reason for the last error ("" when none).
const char *cx_decoder_message(const cx_decoder *decoder);

// Metadata comes as CShimSupport's cs_metadata. Here:
//   icc: NULL/0 when none: the pixels are then sRGB
//   exif: TIFF data ("II*\0"/"MM\0*"), written as an "Exif" box after a 4-byte zero offset
//   xmp: written as an "xml " box

// Encodes one RGBA8 image (width, height >= 1; beyond JPEG XL level 5's
// 262144 per side or 2^28 pixels the file is level 10, which needs a
// container) and writes the whole .jxl file to `fd`.
// lossless=1: modular lossless (JxlEncoderSetFrameLossless, uses_original_profile,
// invisible pixels kept): decoded pixels equal the input exactly (alpha 255
// when !has_alpha, which drops the alpha channel). `quality` is ignored.
// lossless=0: VarDCT/XYB at a butteraugli distance from `quality` (clamped to
// 1..100) as libvips 8.14 maps it for libjxl < 0.9 (after cjxl):
//   q >= 30: distance = 0.1 + (100 - q) * 0.09     (q 100 -> 0.1, q 90 -> 1.0)
//   q <  30: distance = 53/3000*q*q - 23/20*q + 25 (q 1 -> 23.9)
// `effort` 0..9 -> libjxl effort 1..9 (0 and 1 both mean 1, "lightning";
// clamped; libjxl's default is 7). threads <= 1: single-threaded, else a
// thread runner with that many workers.
// Metadata (may be NULL): icc -> JxlEncoderSetICCProfile (the pixels are taken
// to be in that space; a profile libjxl cannot parse is CS_ERR_UNSUPPORTED),
// else the colour encoding is sRGB; exif / xmp -> "Exif" / "xml " boxes placed
// before the codestream (the file then uses the container). On failure a reason
// goes to `message` (if non-NULL) and, for CS_ERR_IO, errno to *error_number
// (if non-NULL; set to 0 otherwise). The file is built in memory and written
// with one cs_write_all, so `fd` may be a pipe.
int cx_encode_image(int fd, const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int has_alpha,
                    int quality, int lossless, int effort, int threads, const cs_metadata *metadata,
                    char *message, size_t message_size, int *error_number);

typedef struct cx_anim_encoder cx_anim_encoder;

// An animated JPEG XL of a width x height canvas with ticks of 1 ms
// (tps 1000/1), so frame durations are stored in ms. loop_count: 0 = forever,
// negative -> 0. quality/lossless/effort/threads as in cx_encode_image, for every
// frame. Frames are kept in memory as RGBA8 (width*height*4 bytes each) until
// cx_anim_encoder_finish, because the ICC profile and the metadata boxes, which
// only finish receives, must precede them in the file. Returns NULL when out of
// memory or for a zero size.
cx_anim_encoder *cx_anim_encoder_create(uint32_t width, uint32_t height, int has_alpha, int loop_count, int quality,
                                        int lossless, int effort, int threads);
// Adds a full-canvas RGBA8 frame (copied) shown for delay_ms. A JPEG XL frame
// of duration 0 is not a displayed frame (it is merged into the next one), so
// delay 0 is stored as 1 ms; negative delays are CS_ERR_STATE.
int cx_anim_encoder_add(cx_anim_encoder *encoder, const uint8_t *rgba, size_t stride, int delay_ms);
// Encodes the frames (each handed to libjxl and encoded in turn, so only one
// frame at a time exists in libjxl's float format) with `metadata` (may be
// NULL; as in cx_encode_image) and writes the file to `fd`. Once only; the
// encoder accepts no more frames afterwards, and its frames are freed.
int cx_anim_encoder_finish(cx_anim_encoder *encoder, int fd, const cs_metadata *metadata, int *error_number);
void cx_anim_encoder_destroy(cx_anim_encoder *encoder);
const char *cx_anim_encoder_message(const cx_anim_encoder *encoder);

#endif
