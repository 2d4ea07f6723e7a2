// A small C layer over libjpeg(-turbo). Every libjpeg call happens here, behind
// setjmp, so libjpeg's fatal errors come back as return codes and never exit()
// the process or longjmp across Swift frames.
#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cshim_support.h"

// Every call answers with CShimSupport's codes (CS_OK, CS_ERR_*; cshim_support.h). Here:
//   CS_ERR_CORRUPT: libjpeg reported a fatal error in the data
//   CS_ERR_TRUNCATED: the data ended before the image did
//   CS_ERR_UNSUPPORTED: valid JPEG that this build cannot decode (e.g. 12-bit)
//   CS_ERR_IO: a write to the output descriptor failed (see cj_encoder_errno)
//   CS_ERR_STATE: the API was called out of order
//   CS_ERR_LIMIT: a resource limit was hit (too many progressive scans, or too much work in them)

enum {
    CJ_CS_UNKNOWN = 0, CJ_CS_GRAY = 1, CJ_CS_RGB = 2, CJ_CS_YCBCR = 3, CJ_CS_CMYK = 4, CJ_CS_YCCK = 5,
};

typedef struct cj_info {
    uint32_t width, height;        // image size as declared in the frame header
    int components;
    int color_space;               // CJ_CS_*
    int progressive;
    int arithmetic;
    int adobe_transform;           // -1: no Adobe APP14 marker, else its transform flag
    // Owned by the decoder: exif, the TIFF data of the first APP1 "Exif" segment; icc, the
    // profile joined from its APP2 segments; xmp, the packet of the APP1
    // "http://ns.adobe.com/xap/1.0/" segment; comment, the first COM segment (NULL: none).
    cs_metadata metadata;
    uint32_t output_width, output_height;  // valid after cj_decoder_start
    int color_managed;             // after cj_decoder_start: CMYK/YCCK converted to sRGB through the file's profile
} cj_info;

typedef struct cj_decoder cj_decoder;

// Copies `length` bytes of JPEG data. Returns NULL only when out of memory.
cj_decoder *cj_decoder_create(const uint8_t *data, size_t length);
// A decoder that reads `length` bytes of JPEG data from the open file `fd` as it goes
// (pread, 64 KiB at a time; the caller keeps fd open until destroy), so the file is never
// whole in memory. Only a multi-scan (progressive) file is read whole, once, for the scan
// check before decoding, and let go after. A file shorter than `length` reads as a cut
// file. Returns NULL only when out of memory.
cj_decoder *cj_decoder_create_file(int fd, size_t length);
void cj_decoder_destroy(cj_decoder *decoder);
// Reads the headers (no pixel memory is allocated yet) and fills `info`.
int cj_decoder_read_header(cj_decoder *decoder, cj_info *info);
// Starts decompression at 1/scale_denom size (1, 2, 4 or 8), output RGBA8. A progressive
// (or other multi-scan) file is read whole here, every scan decoded into libjpeg's
// coefficient buffer. CS_ERR_LIMIT when the file has more than `max_scans` scans (0: no
// bound on the count), or when its scans together cover the image more than 32 times over
// (each scan counts the blocks libjpeg visits for it; a one-component scan of 4:2:0 YCbCr
// is 2/3 or 1/6 of the image), as a scan costs time for every block it covers however few
// bytes it has. Real files cover the image 1 (baseline) to 6 times. Both are checked by
// walking the file's markers before anything is decoded or allocated, and again as libjpeg
// reads each scan. CMYK and YCCK files with a CMYK ICC profile are converted to sRGB
// through it with lcms2; without one, by the naive formula R = (1-C)(1-K).
int cj_decoder_start(cj_decoder *decoder, int scale_denom, int max_scans, cj_info *info);
// Decodes up to `max_rows` RGBA8 rows (alpha 255) into `dst`; sets *rows_read.
int cj_decoder_read_rows(cj_decoder *decoder, uint8_t *dst, size_t stride, uint32_t max_rows,
                         uint32_t *rows_read);
int cj_decoder_finish(cj_decoder *decoder);
// A human-readable reason for the last error ("" when none).
const char *cj_decoder_message(const cj_decoder *decoder);

typedef struct cj_encoder cj_encoder;

// What to write besides the pixels; NULL/0 for what is absent.
// Metadata comes as CShimSupport's cs_metadata. Here:
//   icc: split over APP2 segments as the ICC spec says
//   exif: TIFF data; APP1 "Exif", left out above 65527 bytes
//   xmp: APP1 XMP, left out above 65504 bytes
//   comment: COM, left out above 65533 bytes

// Returns NULL only when out of memory.
cj_encoder *cj_encoder_create(void);
// Starts a baseline JPEG (4:2:0, quality 1-100) of RGBA8 rows (alpha ignored), written to
// `fd`, with `metadata` (may be NULL). A file with EXIF gets no JFIF APP0 segment, as
// cameras write it: EXIF's APP1 comes first.
int cj_encoder_start(cj_encoder *encoder, int fd, uint32_t width, uint32_t height, int quality,
                     const cs_metadata *metadata);
int cj_encoder_write_rows(cj_encoder *encoder, const uint8_t *src, size_t stride, uint32_t rows);
int cj_encoder_finish(cj_encoder *encoder);
void cj_encoder_destroy(cj_encoder *encoder);
const char *cj_encoder_message(const cj_encoder *encoder);
int cj_encoder_errno(const cj_encoder *encoder);

#endif
