// A small C layer over libtiff (4.5: TIFFClientOpenExt and TIFFOpenOptions are needed).
// libtiff never aborts or longjmps out of its API (its JPEG codec uses setjmp inside
// libtiff only), so no setjmp is needed here. Every libtiff message goes to a handler of
// the TIFF object it concerns (TIFFOpenOptionsSetErrorHandlerExtR/...WarningHandlerExtR),
// which folds it into that object's message; the process-wide handlers (which print to
// stderr by default) are set to NULL once, under pthread_once, the first time a decoder
// or encoder is created. What this layer adds: one error code + message per object, the
// caller's pixel limit checked on the DECLARED size of the first page before any pixel
// memory exists, strips and tiles streamed top to bottom so a large image never sits
// whole in memory, and RGBA8 rows in caller-owned memory as the only pixel format Swift
// sees.
#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: not TIFF, or a directory / strip / tile is malformed
//   CS_ERR_TRUNCATED: the data ends before the first directory or the image data does
//   CS_ERR_UNSUPPORTED: valid TIFF this layer cannot turn into RGBA8 (float samples, a codec libtiff was built without), or JPEG asked with alpha
//   CS_ERR_IO: a write to the output descriptor failed (see the errno)
//   CS_ERR_STATE: the API was called out of order or with invalid arguments
//   CS_ERR_LIMIT: the caller's max_pixels was exceeded, or a strip/tile/size bound of this layer was (a tile far larger than the image, ...)

// Main-chain directories are counted up to this many (page_count_capped then says "at least").
#define CT_MAX_PAGES 10000

typedef struct ct_info {
    uint32_t width, height;   // of the first page (directory 0), as declared
    int has_alpha;            // ExtraSamples says associated or unassociated alpha (or, with no
                              // ExtraSamples tag, a grey/RGB/CMYK page has one sample more than
                              // its colour needs, which Pillow also reads as alpha). ct_decoder_start
                              // sets it again to what the chosen conversion delivers: read it after.
    int orientation;          // tag 274 of the first page, 1..8 (1 when absent or invalid).
                              // NOT applied: pixels come out in stored order.
    uint32_t page_count;      // directories in the main IFD chain (SubIFDs not counted), >= 1
    int page_count_capped;    // 1: the chain goes on past CT_MAX_PAGES (or loops): "at least"
    // Informational (first page): what the file declares.
    uint16_t bits_per_sample, samples_per_pixel, photometric, compression, planar_config;
    int tiled, bigtiff;
    // Metadata of the first page, owned by the decoder, valid until ct_decoder_destroy; NULL/0
    // when absent. exif is bare TIFF data ("II*\0" or "MM\0*", the file's byte order) built
    // by this layer: IFD0 with Make, Model, DateTime, Artist, Copyright and Orientation when
    // the file has them, an ExifIFD pointer to a copy of the file's EXIF sub-IFD and a GPS
    // pointer to a copy of its GPS IFD (Interoperability IFDs and LONG8/IFD8 entries are
    // left out; a MakerNote is copied as bytes). NULL when the file has none of those.
    // icc: TIFFTAG_ICCPROFILE (34675); xmp: TIFFTAG_XMLPACKET (700); a profile or packet
    // over CS_METADATA_BUDGET is left out (*_dropped: its size).
    cs_metadata metadata;
    int color_managed;        // after ct_decoder_start: CMYK converted through the file's ICC profile
} ct_info;

typedef struct ct_decoder ct_decoder;

// A decoder of `length` bytes of TIFF data, which it reads as it goes:
// - fd >= 0: from that open file, with pread (the caller keeps it open until destroy), so
//   the file is never whole in memory; the `data` arguments below are ignored (NULL);
// - fd < 0: from bytes in memory that stay the caller's: no copy is made, and every call
//   that reads them (read_header, start, read_rows) is handed `data` again, the same
//   bytes, possibly at another address.
// libtiff reads through its read procedure (no memory map, so it keeps no pointer into
// the bytes between calls). A file that shrinks while it is read gives a read error, not
// a crash. Returns NULL only when out of memory.
ct_decoder *ct_decoder_create(size_t length, int fd);
void ct_decoder_destroy(ct_decoder *decoder);
// Opens the file (TIFFClientOpenExt reads directory 0 with libtiff's single-allocation
// bound set to 64 MiB + 8 bytes per allowed pixel), counts the main-chain directories by
// walking the IFD offsets in the buffer (bounded, loop-safe), and fills `info`. No pixel
// memory is allocated. CS_ERR_LIMIT when width*height of the first page > max_pixels
// (0 is a limit, not "unlimited"); other pages are not looked at. Once only.
int ct_decoder_read_header(ct_decoder *decoder, const uint8_t *data, uint64_t max_pixels, ct_info *info);
// Chooses the conversion for the first page and allocates its buffers: one scanline per
// sample plane for strips; for tiles one tile per plane plus one row of tiles as RGBA8
// (tile height x image width x 4). Tiles larger than max(2 x the image, 1024) in either
// dimension are refused (LIMIT), so a file cannot make it allocate more than a few rows
// of tiles. Handled natively (exact): grey min-is-black/min-is-white and palette at
// 1/2/4/8/16 bits, RGB and CMYK (InkSet CMYK) at 8/16 bits, optional alpha (associated
// alpha is un-premultiplied: c*max/a rounded, 0 under alpha 0), contiguous or separate
// planes, and JPEG-compressed YCbCr (libjpeg converts it to RGB:
// TIFFTAG_JPEGCOLORMODE). 16-bit samples become 8-bit as (v*255+32767)/65535; colormaps
// as v>>8 (or as is when every entry is < 256, as libtiff and Pillow read old files).
// CMYK goes through the file's CMYK ICC profile to sRGB (lcms2, relative colorimetric
// with black point compensation; info->color_managed = 1), else R = (1-C)(1-K) etc.
// Everything else libtiff's RGBA interface reads (uncompressed/LZW YCbCr, CIELab,
// LogLuv, old-style JPEG, ...) goes through TIFFRGBAImageGet one strip or row of tiles
// at a time (libtiff premultiplies alpha there; it is un-premultiplied again, so RGB under
// low alpha may be off by a few levels on that path only). Float or signed samples and
// codecs this libtiff lacks: CS_ERR_UNSUPPORTED. Once only, after read_header succeeded.
int ct_decoder_start(ct_decoder *decoder, const uint8_t *data, ct_info *info);
// Decodes up to `max_rows` more rows, top to bottom, as non-premultiplied RGBA8 (alpha 255
// when the image has none) into `dst` (rows of `stride` >= width*4 bytes); *rows_read is
// set to the number of rows written, also on error. CS_ERR_TRUNCATED when the failing
// strip/tile lies (partly) past the end of the data, else CS_ERR_CORRUPT.
int ct_decoder_read_rows(ct_decoder *decoder, const uint8_t *data, uint8_t *dst, size_t stride, uint32_t max_rows,
                         uint32_t *rows_read);
// Ends decoding (nothing is left to verify beyond what read_rows reported). CS_ERR_STATE
// before ct_decoder_start. Rows need not all have been read.
int ct_decoder_finish(ct_decoder *decoder);
// A human-readable reason for the last error ("" when none), libtiff's own text folded in.
const char *ct_decoder_message(const ct_decoder *decoder);

// ---------------------------------------------------------------- encoder

enum {
    CT_COMPRESSION_NONE = 0,
    CT_COMPRESSION_LZW = 1,      // with the horizontal predictor (2)
    CT_COMPRESSION_DEFLATE = 2,  // Adobe Deflate (8), zlib level 6, horizontal predictor
    CT_COMPRESSION_JPEG = 3,     // JPEG (7), YCbCr 4:2:0, at `quality`; no alpha possible
};

// What to write besides the pixels; NULL/0 for what is absent.
// Metadata comes as CShimSupport's cs_metadata. Here:
//   icc: TIFFTAG_ICCPROFILE
//   exif: bare TIFF data ("II*\0"/"MM\0*"), see below
//   xmp: TIFFTAG_XMLPACKET

typedef struct ct_encoder ct_encoder;

// Returns NULL only when out of memory.
ct_encoder *ct_encoder_create(void);
// Starts an 8-bit, contiguous, strip TIFF (strips of about 64 KB; Software "catctl";
// Orientation 1) of width x height (1..2^31-1 each) RGBA8 rows: RGB (3 samples) when
// !has_alpha (the alpha bytes are ignored), else RGBA with ExtraSamples = unassociated
// alpha. compression: CT_COMPRESSION_*; quality 1..100 (clamped) is used by JPEG only.
// CT_COMPRESSION_JPEG with has_alpha is CS_ERR_UNSUPPORTED (JPEG-in-TIFF holds no alpha:
// flatten the image first, or choose another compression). The file is built in memory
// (classic TIFF; BigTIFF when the raw pixels exceed 2 GiB) and written at finish.
// metadata may be NULL; ICC and XMP are copied into tags here. EXIF (parsed here with
// bounds, every offset checked): Make, Model, DateTime, Artist and Copyright of its IFD0
// become tags of the image's IFD0, and the entries of its ExifIFD and GPS IFD are copied
// byte for byte into an EXIF and a GPS IFD appended to the file (Interoperability IFDs
// and entries whose values lie outside the blob are left out); the file then takes the
// EXIF blob's byte order. An EXIF blob that does not parse is ignored.
int ct_encoder_start(ct_encoder *encoder, uint32_t width, uint32_t height, int has_alpha, int compression,
                     int quality, const cs_metadata *metadata);
// Adds `rows` RGBA8 rows (top to bottom, `stride` bytes apart); more rows than the image
// has is CS_ERR_STATE.
int ct_encoder_write_rows(ct_encoder *encoder, const uint8_t *src, size_t stride, uint32_t rows);
// After all rows: completes the file and writes it to `fd` (cs_write_all; never seeks, so
// a pipe is fine). CS_ERR_STATE when rows are missing. Once only.
int ct_encoder_finish(ct_encoder *encoder, int fd);
void ct_encoder_destroy(ct_encoder *encoder);
// A human-readable reason for the last error ("" when none).
const char *ct_encoder_message(const ct_encoder *encoder);
// The errno of a failed write (CS_ERR_IO), else 0.
int ct_encoder_errno(const ct_encoder *encoder);

#endif
