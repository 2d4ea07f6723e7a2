// A small C layer over libheif 1.15 (HEIC = HEVC in HEIF, AVIF = AV1 in HEIF) and, for
// AVIF image sequences only, libavif 0.11 (libheif 1.15 reads no sequences). lcms2 builds
// an ICC profile for files that describe their colours only by an nclx 'colr' box.
// libheif, libavif and lcms2 never abort or longjmp on bad data (they return errors); the
// encoders they drive (x265, aom) print nothing here: logging is set to none.
// What this layer adds: one error code + message per object, the caller's pixel/frame
// limits checked on the DECLARED sizes before any pixel memory exists, and RGBA8 rows in
// caller-owned memory as the only pixel format Swift sees.
//
// Decoders/encoders in Debian 12's libheif1 1.15.1: decoding HEVC (libde265), AV1 (dav1d,
// aom); encoding HEVC (x265 3.5) and AV1 (aom 3.6). See heif_shim.c for what was checked.
#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: not HEIF/AVIF, or the container/bitstream is malformed
//   CS_ERR_TRUNCATED: the data ends before the image does
//   CS_ERR_UNSUPPORTED: valid file or request this build cannot handle (a sequence with neither an HEVC track nor a still image, a codec with no decoder/encoder, ...)
//   CS_ERR_IO: a write to the output descriptor failed (see *error_number)
//   CS_ERR_STATE: the API was called out of order or with invalid arguments
//   CS_ERR_LIMIT: the caller's max_pixels / max_frames (or libheif's own security limit, set from max_pixels) was exceeded

enum {
    CH_FORMAT_HEIC = 1,      // HEVC-coded HEIF ('heic', 'heix', 'mif1' + hvc1 items, ...)
    CH_FORMAT_AVIF = 2,      // AV1-coded HEIF ('avif', and 'avis' sequences)
};

typedef struct ch_info {
    uint32_t width, height;          // displayed size: after clap/irot (90/270 swap the two)
    int has_alpha;                   // an alpha auxiliary image is attached (libheif), or the
                                     // sequence has an alpha track (libavif)
    int format;                      // CH_FORMAT_*, from the coded image items/tracks
    int bit_depth;                   // luma bits per sample as coded (8, 10, 12); pixels come
                                     // out as 8 bits whatever this is
    int animated;                    // 1: an AVIF sequence ('avis') read through libavif
    uint32_t frame_count;            // 1 for still images
    // Orientation: HEIF's irot/imir are applied by the decoder (pixels come out upright), and
    // an EXIF Orientation tag inside a HEIF file is informational only (ISO/IEC 23008-12):
    // callers must NOT rotate again by it. (AVIF sequences: irot/imir are not applied.)
    // Owned by the decoder: icc, the file's 'prof'/'rICC' colr box, or one built from its
    // nclx colr box (icc_synthesized); exif as bare TIFF; xmp, the 'mime'
    // application/rdf+xml item. Over CS_METADATA_BUDGET, left out: *_dropped, its size.
    cs_metadata metadata;
    int icc_synthesized;                       // 1 when metadata.icc was made from nclx values
} ch_info;

typedef struct ch_decoder ch_decoder;

// Copies `length` bytes of HEIF/AVIF data. Returns NULL only when out of memory.
ch_decoder *ch_decoder_create(const uint8_t *data, size_t length);
// The codecs read_header lets decode (both unless called): an allow-list that admits AVIF
// and not HEIC must not reach libde265 through an AVIF-branded file of HEVC items.
enum { CH_CODEC_HEVC = 1, CH_CODEC_AV1 = 2 };
void ch_decoder_allow_codecs(ch_decoder *decoder, unsigned codecs);
// Whether libheif, libavif and libde265 are there: on Linux they are loaded when first
// needed (dlopen), not at start. 1, or 0 with the reason in why[0..size) (why may be NULL).
// The decoder and encoder makers return NULL when they are not.
int ch_available(char *why, size_t size);
void ch_decoder_destroy(ch_decoder *decoder);
// Parses the container (libheif; for a file whose major brand is 'avis', libavif) and fills
// `info`. No pixel memory is allocated. First heif_scan.c's pre-scan checks the boxes
// (structure, references, extents, every decoded picture's declared and coded size, the
// tiles' sum, the sample count) against max_pixels and max_frames; then libheif's own
// per-dimension security limit is set from max_pixels before it reads the file, then
// width*height (*frame_count) is checked against max_pixels and frame_count against
// max_frames (0 is a limit, not "unlimited"): CS_ERR_LIMIT. A HEIF image sequence
// ('msf1'/'hevs' brands) with an HEVC track is read frame by frame (hevc_sequence.c); one
// without such a track as its still primary image, else CS_ERR_UNSUPPORTED. The metadata pointers stay valid until ch_decoder_destroy. width,
// height and frame_count are set as soon as they are known, also when a limit then fails.
int ch_decoder_read_header(ch_decoder *decoder, uint64_t max_pixels, uint32_t max_frames, ch_info *info);
// Decodes the primary image (for a sequence: the first frame, and next_frame is rewound) as
// non-premultiplied RGBA8 (alpha 255 when the image has none; a 'prem' image is
// un-premultiplied) into `dst`: height rows of `stride` bytes (stride >= width*4). irot/imir
// and clap are applied, grid (tiled) images are assembled, the alpha auxiliary image is
// merged, 10/12-bit samples are scaled to 8 bits by libheif. use_threads=0 keeps libheif's
// tile decoding on the calling thread (the codec may still use its own threads).
// CS_ERR_CORRUPT when the decoded picture is smaller than the header said (a larger one is
// cut to the header's size, top-left).
int ch_decoder_read_image(ch_decoder *decoder, uint8_t *dst, size_t stride, int use_threads);
// Decodes the next frame into `dst` (as read_image) and sets *delay_ms to its duration
// (media timescale rounded to ms; 0 for stills). Call frame_count times; one more call is
// CS_ERR_STATE. Works for stills too (one frame, delay 0).
int ch_decoder_next_frame(ch_decoder *decoder, uint8_t *dst, size_t stride, int use_threads, int *delay_ms);
// A human-readable reason for the last error ("" when none).
const char *ch_decoder_message(const ch_decoder *decoder);

// Metadata comes as CShimSupport's cs_metadata. Here:
//   icc: NULL/0 when none; written as a 'prof' colr box
//   exif: bare TIFF data; libheif adds the 4-byte offset prefix of the 'Exif' item itself
//   xmp: XMP packet, a 'mime' item (uncompressed)

typedef struct ch_encode_options {
    int format;     // CH_FORMAT_HEIC (x265) or CH_FORMAT_AVIF (aom)
    int quality;    // 1..100 (clamped), ignored when lossless
    int lossless;   // 1: RGB coded as 4:4:4 with identity matrix (nclx matrix 0) and the
                    // codec's lossless mode: decoded RGB(A) equals the input exactly
    int effort;     // 0..9 (clamped) as libvips' "effort": AVIF aom speed = 9 - effort;
                    // HEIC x265 preset = {ultrafast, superfast, veryfast, faster, fast,
                    // medium, slow, slower, veryslow, placebo}[effort]. libvips uses 4.
    int threads;    // AVIF: > 0 sets aom's thread count (1..16); 0 keeps libheif's default (4).
                    // HEIC: x265 sizes its own thread pool; ignored
} ch_encode_options;

// An RGBA8 image (1..65535 each way; x265 and aom have their own limits too) fed rows top
// to bottom (any counts) into libheif's own RGBA image, so the caller need not hold the whole
// picture, then encoded and written whole to `fd` (built in memory first; the fd is never
// seeked). Lossy: YCbCr 4:2:0 (libheif's default; 4:4:4 at quality >= 90, as libvips does)
// with libheif's default nclx 1/13/6 full range. The alpha channel is kept (as an auxiliary
// image) when has_alpha and some pixel is not opaque. Metadata may be NULL. On failure a
// reason goes to `message` (if non-NULL) and, for CS_ERR_IO, errno to *error_number (if
// non-NULL; 0 otherwise). create is NULL when out of memory or for an invalid size.
typedef struct ch_rows_encoder ch_rows_encoder;
ch_rows_encoder *ch_rows_encoder_create(uint32_t width, uint32_t height, int has_alpha);
int ch_rows_encoder_add(ch_rows_encoder *encoder, const uint8_t *rgba, size_t stride, uint32_t rows);
// Encodes and writes the file. Once only.
int ch_rows_encoder_finish(ch_rows_encoder *encoder, int fd, const ch_encode_options *options,
                           const cs_metadata *metadata, char *message, size_t message_size, int *error_number);
void ch_rows_encoder_destroy(ch_rows_encoder *encoder);

// The differential check of the pre-scan against libheif's and libavif's own reading of a
// file (heif_agreement.c): 0 when they agree, 1 when they disagree (how, in why), -1 when
// there is nothing to compare (the scan refuses the file, or the libraries cannot read it).
// For the heif-agreement fuzz target and the fixtures' test.
int ch_agreement(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, char *why, size_t size);

#endif
