// libjpeg(-turbo) behind setjmp: see include/cjpeg_shim.h.
// The API follows libjpeg.txt: error_exit must not return, so ours longjmps back
// to the entry point of this file that called into libjpeg.
#include "cjpeg_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>
#include <lcms2.h>

typedef struct cj_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    cs_error error;  // CShimSupport's record of the failure
} cj_error_mgr;

static void cj_fail(j_common_ptr cinfo, int code, const char *message) {
    cj_error_mgr *err = (cj_error_mgr *)cinfo->err;
    cs_fail(&err->error, code, "%s", message);
    longjmp(err->jump, 1);
}

static void cj_error_exit(j_common_ptr cinfo) {
    cj_error_mgr *err = (cj_error_mgr *)cinfo->err;
    if (err->error.code == CS_OK) {  // not already set by one of our own callbacks
        switch (err->pub.msg_code) {
        case JERR_BAD_PRECISION:
        case JERR_NOT_COMPILED:
            err->error.code = CS_ERR_UNSUPPORTED;
            break;
        case JERR_OUT_OF_MEMORY:
            err->error.code = CS_ERR_NOMEM;
            break;
        case JERR_INPUT_EOF:
        case JERR_INPUT_EMPTY:
            err->error.code = CS_ERR_TRUNCATED;
            break;
        default:
            err->error.code = CS_ERR_CORRUPT;
        }
        (*cinfo->err->format_message)(cinfo, err->error.message);
    }
    longjmp(err->jump, 1);
}

static void cj_emit_message(j_common_ptr cinfo, int level) {
    cj_error_mgr *err = (cj_error_mgr *)cinfo->err;
    if (level >= 0) return;  // trace messages
    // A warning. Corrupt entropy data is tolerated (libjpeg recovers, as browsers
    // do), but data that ends before the image is an error: the memory source
    // would otherwise pad the rest of the picture with grey.
    if (err->pub.msg_code == JWRN_JPEG_EOF)
        cj_fail(cinfo, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
    err->pub.num_warnings++;
}

static void cj_install_errors(j_common_ptr cinfo, cj_error_mgr *err) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = cj_error_exit;
    err->pub.emit_message = cj_emit_message;
    err->error.code = CS_OK;
    err->error.message[0] = '\0';
}

// ---------------------------------------------------------------- decoder

struct cj_decoder {
    struct jpeg_decompress_struct cinfo;
    cj_error_mgr err;
    struct jpeg_progress_mgr progress;
    uint8_t *data;             // the copied bytes; NULL when reading from fd
    size_t length;
    int fd;                    // -1: from data
    int created, header_read, started;
    int max_scans;
    int counted_scan;          // the last scan whose blocks are in scan_blocks (0: none yet)
    uint64_t image_blocks;     // DCT blocks of all components: what one pass over the image decodes
    uint64_t scan_blocks;      // blocks the scans so far make libjpeg decode, MCU padding included
    int cmyk, cmyk_inverted;
    uint8_t *cmyk_row;
    uint8_t *exif;
    size_t exif_length;
    JOCTET *icc;  // from jpeg_read_icc_profile (malloc'd)
    unsigned int icc_length;
    cmsHTRANSFORM cmyk_transform;  // the file's CMYK profile to sRGB, or NULL
};

static cj_decoder *cj_decoder_new(uint8_t *data, int fd, size_t length) {
    cj_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->fd = fd;
    d->length = length;
    cj_install_errors((j_common_ptr)&d->cinfo, &d->err);
    if (setjmp(d->err.jump)) return d;  // error recorded; read_header reports it
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    return d;
}

cj_decoder *cj_decoder_create(const uint8_t *data, size_t length) {
    uint8_t *copy = cs_copy(data, length);
    if (!copy) return NULL;
    cj_decoder *d = cj_decoder_new(copy, -1, length);
    if (!d) free(copy);
    return d;
}

cj_decoder *cj_decoder_create_file(int fd, size_t length) { return cj_decoder_new(NULL, fd, length); }

// ------------------------------------------------ reading from a file as libjpeg goes

enum { CJ_FILE_CHUNK = 64 * 1024 };

typedef struct cj_file_source {
    struct jpeg_source_mgr pub;
    int fd;
    uint64_t pos, length;  // the next byte to read; the file's size when opened
    JOCTET buffer[CJ_FILE_CHUNK];
} cj_file_source;

static void cj_file_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void cj_file_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean cj_file_fill(j_decompress_ptr cinfo) {
    cj_file_source *src = (cj_file_source *)cinfo->src;
    ssize_t got = 0;
    if (src->pos < src->length) {
        uint64_t want = src->length - src->pos;
        do {
            got = pread(src->fd, src->buffer, want < CJ_FILE_CHUNK ? (size_t)want : CJ_FILE_CHUNK, (off_t)src->pos);
        } while (got < 0 && errno == EINTR);
        if (got < 0) ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (got <= 0) {
        // The end (or a file cut under us): as libjpeg's memory source, a warning -- which
        // this layer turns into "truncated" -- and a fake EOI.
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        got = 2;
    } else {
        src->pos += (uint64_t)got;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)got;
    return TRUE;
}

static void cj_file_skip(j_decompress_ptr cinfo, long count) {
    cj_file_source *src = (cj_file_source *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= src->pub.bytes_in_buffer) {
        src->pub.next_input_byte += count;
        src->pub.bytes_in_buffer -= (size_t)count;
        return;
    }
    uint64_t beyond = (uint64_t)count - src->pub.bytes_in_buffer;
    src->pos = beyond > src->length - src->pos ? src->length : src->pos + beyond;
    src->pub.bytes_in_buffer = 0;  // the next read fills from pos
}

static void cj_file_src(j_decompress_ptr cinfo, int fd, uint64_t length) {
    cj_file_source *src = (cj_file_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT,
                                                                        sizeof(cj_file_source));
    src->pub.init_source = cj_file_init;
    src->pub.fill_input_buffer = cj_file_fill;
    src->pub.skip_input_data = cj_file_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = cj_file_term;
    src->pub.bytes_in_buffer = 0;
    src->pub.next_input_byte = NULL;
    src->fd = fd;
    src->pos = 0;
    src->length = length;
    cinfo->src = &src->pub;
}

void cj_decoder_destroy(cj_decoder *d) {
    if (!d) return;
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d->cmyk_row);
    free(d->exif);
    free(d->icc);
    if (d->cmyk_transform) cmsDeleteTransform(d->cmyk_transform);
    free(d->data);
    free(d);
}

const char *cj_decoder_message(const cj_decoder *d) { return d ? d->err.error.message : "out of memory"; }

static int cj_color_space(J_COLOR_SPACE cs) {
    switch (cs) {
    case JCS_GRAYSCALE: return CJ_CS_GRAY;
    case JCS_RGB: return CJ_CS_RGB;
    case JCS_YCbCr: return CJ_CS_YCBCR;
    case JCS_CMYK: return CJ_CS_CMYK;
    case JCS_YCCK: return CJ_CS_YCCK;
    default: return CJ_CS_UNKNOWN;
    }
}

int cj_decoder_read_header(cj_decoder *d, cj_info *info) {
    if (!d->created) return d->err.error.code ? d->err.error.code : CS_ERR_NOMEM;
    if (d->header_read) { d->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(d->err.jump)) return d->err.error.code;
    if (d->length == 0) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_TRUNCATED, "the file is empty");
    if (d->fd >= 0)
        cj_file_src(&d->cinfo, d->fd, d->length);
    else
        jpeg_mem_src(&d->cinfo, d->data, (unsigned long)d->length);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);  // EXIF, XMP
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC profile
    jpeg_save_markers(&d->cinfo, JPEG_COM, 0xFFFF);
    if (jpeg_read_header(&d->cinfo, TRUE) != JPEG_HEADER_OK)
        cj_fail((j_common_ptr)&d->cinfo, CS_ERR_CORRUPT, "the file holds tables but no image");
    d->header_read = 1;

    memset(info, 0, sizeof *info);
    info->width = d->cinfo.image_width;
    info->height = d->cinfo.image_height;
    info->components = d->cinfo.num_components;
    info->color_space = cj_color_space(d->cinfo.jpeg_color_space);
    info->progressive = d->cinfo.progressive_mode ? 1 : 0;
    info->arithmetic = d->cinfo.arith_code ? 1 : 0;
    info->adobe_transform = d->cinfo.saw_Adobe_marker ? d->cinfo.Adobe_transform : -1;
    static const char xmp_ns[] = "http://ns.adobe.com/xap/1.0/";  // with its NUL: 29 bytes
    for (jpeg_saved_marker_ptr m = d->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            if (d->exif) continue;  // the first one is the image's
            d->exif = malloc(m->data_length - 6);
            if (!d->exif) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_NOMEM, "out of memory");
            d->exif_length = m->data_length - 6;
            memcpy(d->exif, m->data + 6, d->exif_length);
        } else if (m->marker == JPEG_APP0 + 1 && m->data_length > sizeof xmp_ns
                   && memcmp(m->data, xmp_ns, sizeof xmp_ns) == 0 && !info->metadata.xmp) {
            // Points into libjpeg's saved marker, which lives as long as the decoder.
            info->metadata.xmp = m->data + sizeof xmp_ns;
            info->metadata.xmp_length = m->data_length - sizeof xmp_ns;
        } else if (m->marker == JPEG_COM && m->data_length > 0 && !info->metadata.comment) {
            info->metadata.comment = m->data;
            info->metadata.comment_length = m->data_length;
        }
    }
    info->metadata.exif = d->exif;
    info->metadata.exif_length = d->exif_length;
    // libjpeg-turbo joins the APP2 "ICC_PROFILE" segments in sequence order and refuses a
    // broken sequence (then the image is read without its profile, as browsers do).
    if (!jpeg_read_icc_profile(&d->cinfo, &d->icc, &d->icc_length)) {
        d->icc = NULL;
        d->icc_length = 0;
    }
    // 255 segments may join to 16 MB: over the one metadata budget the profile is left out
    // of the metadata (its size noted); a CMYK image is still converted through it.
    if (d->icc_length > CS_METADATA_BUDGET) {
        info->metadata.icc_dropped = d->icc_length;
    } else {
        info->metadata.icc = d->icc;
        info->metadata.icc_length = d->icc_length;
    }
    return CS_OK;
}

// Progressive scans together may make libjpeg decode the image's blocks at most this many
// times over (each scan counts the blocks it covers). libjpeg visits every block a scan
// covers even when the scan holds nothing for it: an AC scan that is all "EOB runs" (32,767
// blocks in 18 bits) or has no data at all costs ~9 ns a block, an AC refinement scan ~75 ns
// (it checks every coefficient of its band). At 100 MP, 499 such scans of 13 bytes each took
// 57 s, where a real progressive file of that size decodes in 2 s; 32 passes allow about
// 5 s. Real files stay far below: libjpeg's default progression covers the image 4.7 to 6
// times (10 scans), mozjpeg's 3.3 to 4, a baseline file once.
#define CJ_MAX_SCAN_PASSES 32

// The blocks libjpeg visits for a scan of the components with these ids, as its
// per_scan_setup lays the scan out: one component's blocks, or every MCU of an interleaved
// scan with the padding blocks at the edges. 0 when an id names no component.
static uint64_t cj_scan_blocks(const struct jpeg_decompress_struct *c, const uint8_t *ids, int count) {
    uint64_t per_mcu = 0;
    for (int k = 0; k < count; k++) {
        const jpeg_component_info *comp = NULL;
        for (int ci = 0; ci < c->num_components && !comp; ci++)
            if (c->comp_info[ci].component_id == ids[k]) comp = &c->comp_info[ci];
        if (!comp) return 0;
        if (count == 1) return (uint64_t)comp->width_in_blocks * comp->height_in_blocks;
        per_mcu += (uint64_t)comp->h_samp_factor * comp->v_samp_factor;
    }
    uint64_t mcu_w = (uint64_t)c->max_h_samp_factor * DCTSIZE, mcu_h = (uint64_t)c->max_v_samp_factor * DCTSIZE;
    return ((c->image_width + mcu_w - 1) / mcu_w) * ((c->image_height + mcu_h - 1) / mcu_h) * per_mcu;
}

// Counts one more scan covering `blocks` blocks against both limits; longjmps with
// CS_ERR_LIMIT when one breaks.
static void cj_count_scan(cj_decoder *d, int scan, uint64_t *total, uint64_t blocks) {
    char message[128];
    if (d->max_scans > 0 && scan > d->max_scans) {
        snprintf(message, sizeof message, "more than %d progressive scans (a hostile file?)", d->max_scans);
        cj_fail((j_common_ptr)&d->cinfo, CS_ERR_LIMIT, message);
    }
    *total += blocks;
    if (*total > CJ_MAX_SCAN_PASSES * d->image_blocks) {
        snprintf(message, sizeof message,
                 "the progressive scans cover the image more than %d times over (%.1f by scan %d; a hostile file?)",
                 CJ_MAX_SCAN_PASSES, (double)*total / (double)d->image_blocks, scan);
        cj_fail((j_common_ptr)&d->cinfo, CS_ERR_LIMIT, message);
    }
}

// Whether libjpeg's marker reader (read_markers in jdmarker.c) takes a segment with this
// marker, frame headers aside: SOS, DHT, DAC, DQT, DRI, DNL, COM, APPn. Any other marker
// stops it with an error.
static int cj_segment_marker(int marker) {
    return marker == 0xDA || marker == 0xC4 || marker == 0xCC || marker == 0xDB || marker == 0xDD ||
           marker == 0xDC || marker == 0xFE || (marker >= 0xE0 && marker <= 0xEF);
}

// Before anything is decoded or allocated: walks a multi-scan file's markers from SOI to
// EOI the way libjpeg's marker reader will find them -- each segment skipped by its
// length, each scan's entropy-coded data up to the next marker (0xFF followed by neither a
// stuffed 0x00, a fill 0xFF nor a restart marker) -- and counts every scan against both
// limits (cj_count_scan), so that a hostile file is refused at no cost (no coefficient
// buffer either: 300 MB at 100 MP). It stops, having counted less, where libjpeg would stop
// with an error of its own; the progress monitor still counts what libjpeg reads. O(file
// size): memchr over the entropy-coded data.
static void cj_check_scans(cj_decoder *d) {
    const uint8_t *p = d->data;
    const size_t n = d->length;
    size_t i = 2;  // after SOI, which jpeg_read_header checked
    int scans = 0, saw_sof = 0;
    uint64_t total = 0;
    while (i < n) {
        const uint8_t *ff = memchr(p + i, 0xFF, n - i);
        if (!ff) return;
        i = (size_t)(ff - p) + 1;
        while (i < n && p[i] == 0xFF) i++;
        if (i >= n) return;
        int marker = p[i++];
        if (marker == 0x00 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;  // no segment
        if (marker == 0xD9) return;  // EOI
        int sof = marker == 0xC0 || marker == 0xC1 || marker == 0xC2 || marker == 0xC9 || marker == 0xCA;
        if (sof ? saw_sof : !cj_segment_marker(marker)) return;  // a second SOF, or a marker libjpeg refuses
        saw_sof |= sof;
        if (n - i < 2) return;
        size_t length = ((size_t)p[i] << 8) | p[i + 1];
        if (length < 2 || length > n - i) return;
        if (marker != 0xDA) {
            i += length;
            continue;
        }
        int count = length >= 3 ? p[i + 2] : 0;
        if (!saw_sof || count < 1 || count > MAX_COMPS_IN_SCAN || length != (size_t)(6 + 2 * count)) return;
        uint8_t ids[MAX_COMPS_IN_SCAN];
        for (int k = 0; k < count; k++) ids[k] = p[i + 3 + 2 * k];
        uint64_t blocks = cj_scan_blocks(&d->cinfo, ids, count);
        if (blocks == 0) return;
        cj_count_scan(d, ++scans, &total, blocks);
        // The scan's data: up to the next marker that is not a restart marker.
        for (i += length;;) {
            ff = memchr(p + i, 0xFF, n - i);
            if (!ff) return;
            size_t j = (size_t)(ff - p) + 1;
            while (j < n && p[j] == 0xFF) j++;
            if (j >= n) return;
            if (p[j] != 0x00 && (p[j] < 0xD0 || p[j] > 0xD7)) break;
            i = j + 1;
        }
        i = (size_t)(ff - p);
    }
}

// Called by libjpeg before each unit of input it consumes; jpeg_start_decompress reads every
// scan of a multi-scan file, and a new scan's header has been read (input_scan_number,
// the scan's MCU layout) before any of its data. cj_check_scans has counted the scans
// already; this counts the scans libjpeg actually meets, so that no reading of the markers
// that differs from libjpeg's can let more work through.
static void cj_progress_monitor(j_common_ptr cinfo) {
    cj_decoder *d = (cj_decoder *)cinfo;  // cinfo is the first member
    int scan = d->cinfo.input_scan_number;
    if (scan == d->counted_scan) return;
    d->counted_scan = scan;
    cj_count_scan(d, scan, &d->scan_blocks,
                  (uint64_t)d->cinfo.MCUs_per_row * d->cinfo.MCU_rows_in_scan * (uint64_t)d->cinfo.blocks_in_MCU);
}

int cj_decoder_start(cj_decoder *d, int scale_denom, int max_scans, cj_info *info) {
    if (!d->header_read || d->started) { d->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(d->err.jump)) return d->err.error.code;
    J_COLOR_SPACE in = d->cinfo.jpeg_color_space;
    if (in == JCS_CMYK || in == JCS_YCCK) {
        d->cinfo.out_color_space = JCS_CMYK;  // libjpeg turns YCCK into CMYK
        d->cmyk = 1;
        // Photoshop writes CMYK inverted and marks it with an Adobe APP14 segment.
        d->cmyk_inverted = d->cinfo.saw_Adobe_marker ? 1 : 0;
    } else {
        d->cinfo.out_color_space = JCS_EXT_RGBA;
    }
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = (unsigned)(scale_denom == 2 || scale_denom == 4 || scale_denom == 8 ? scale_denom : 1);
    d->max_scans = max_scans;
    // jpeg_read_header has sized the components (at the first SOS).
    d->image_blocks = 0;
    for (int ci = 0; ci < d->cinfo.num_components; ci++)
        d->image_blocks += (uint64_t)d->cinfo.comp_info[ci].width_in_blocks * d->cinfo.comp_info[ci].height_in_blocks;
    if (d->image_blocks == 0) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_CORRUPT, "the image has no blocks");
    if (jpeg_has_multiple_scans(&d->cinfo)) {
        if (d->fd >= 0) {
            // The scan check walks the whole file: read it once, let it go after.
            uint8_t *whole = malloc(d->length ? d->length : 1);
            if (!whole) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_NOMEM, "out of memory");
            size_t got = 0;
            while (got < d->length) {
                ssize_t r = pread(d->fd, whole + got, d->length - got, (off_t)got);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) break;
                got += (size_t)r;
            }
            d->data = whole;
            size_t length = d->length;
            d->length = got;
            cj_check_scans(d);  // may longjmp: d->data is freed by destroy then
            d->length = length;
            d->data = NULL;
            free(whole);
        } else {
            cj_check_scans(d);
        }
    }
    d->progress.progress_monitor = cj_progress_monitor;
    d->cinfo.progress = &d->progress;
    jpeg_start_decompress(&d->cinfo);
    d->started = 1;
    if (d->cmyk) {
        d->cmyk_row = malloc((size_t)d->cinfo.output_width * 4);
        if (!d->cmyk_row) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_NOMEM, "out of memory");
        d->cmyk_transform = cs_cmyk_transform(d->icc, d->icc_length, d->cmyk_inverted, 1);
    }
    info->output_width = d->cinfo.output_width;
    info->output_height = d->cinfo.output_height;
    info->color_managed = d->cmyk_transform != NULL;
    return CS_OK;
}

static inline uint8_t cj_mul255(unsigned a, unsigned b) {
    unsigned x = a * b + 128;
    return (uint8_t)((x + (x >> 8)) >> 8);  // round(a*b/255)
}

static void cj_cmyk_to_rgba(const uint8_t *src, uint8_t *dst, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, src += 4, dst += 4) {
        unsigned c = src[0], m = src[1], y = src[2], k = src[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        // Now 255 means "no ink": R = (1-C)(1-K) and so on.
        dst[0] = cj_mul255(c, k);
        dst[1] = cj_mul255(m, k);
        dst[2] = cj_mul255(y, k);
        dst[3] = 255;
    }
}

int cj_decoder_read_rows(cj_decoder *d, uint8_t *dst, size_t stride, uint32_t max_rows, uint32_t *rows_read) {
    *rows_read = 0;
    if (!d->started) { d->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(d->err.jump)) return d->err.error.code;
    uint32_t done = 0;
    while (done < max_rows && d->cinfo.output_scanline < d->cinfo.output_height) {
        uint8_t *row = dst + (size_t)done * stride;
        JDIMENSION got;
        if (d->cmyk) {
            JSAMPROW rows[1] = { d->cmyk_row };
            got = jpeg_read_scanlines(&d->cinfo, rows, 1);
            if (got == 1 && d->cmyk_transform) {
                cmsDoTransform(d->cmyk_transform, d->cmyk_row, row, d->cinfo.output_width);
                for (uint32_t x = 0; x < d->cinfo.output_width; x++) row[4 * x + 3] = 255;
            } else if (got == 1) {
                cj_cmyk_to_rgba(d->cmyk_row, row, d->cinfo.output_width, d->cmyk_inverted);
            }
        } else {
            JSAMPROW rows[16];
            uint32_t n = max_rows - done < 16 ? max_rows - done : 16;
            for (uint32_t i = 0; i < n; i++) rows[i] = row + (size_t)i * stride;
            got = jpeg_read_scanlines(&d->cinfo, rows, n);
        }
        if (got == 0) cj_fail((j_common_ptr)&d->cinfo, CS_ERR_TRUNCATED, "the file ends before the image does (truncated)");
        done += got;
        *rows_read = done;
    }
    return CS_OK;
}

int cj_decoder_finish(cj_decoder *d) {
    if (!d->started) { d->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(d->err.jump)) return d->err.error.code;
    if (d->cinfo.output_scanline < d->cinfo.output_height) jpeg_abort_decompress(&d->cinfo);
    else jpeg_finish_decompress(&d->cinfo);
    return CS_OK;
}

// ---------------------------------------------------------------- encoder

#define CJ_OUT_BUFFER 65536

struct cj_encoder {
    struct jpeg_compress_struct cinfo;
    cj_error_mgr err;
    struct jpeg_destination_mgr dest;
    int fd;
    int saved_errno;
    int created, started;
    uint8_t buffer[CJ_OUT_BUFFER];
};

static void cj_write_all(cj_encoder *e, const uint8_t *p, size_t n) {
    int err = cs_write_all(e->fd, p, n);
    if (err) {
        e->saved_errno = err;
        char message[160];
        snprintf(message, sizeof message, "write failed: %s", strerror(err));
        cj_fail((j_common_ptr)&e->cinfo, CS_ERR_IO, message);  // does not return
    }
}

static void cj_init_destination(j_compress_ptr cinfo) {
    cj_encoder *e = (cj_encoder *)cinfo;
    e->dest.next_output_byte = e->buffer;
    e->dest.free_in_buffer = CJ_OUT_BUFFER;
}

static boolean cj_empty_output_buffer(j_compress_ptr cinfo) {
    cj_encoder *e = (cj_encoder *)cinfo;
    cj_write_all(e, e->buffer, CJ_OUT_BUFFER);  // libjpeg.txt: ignore free_in_buffer here
    e->dest.next_output_byte = e->buffer;
    e->dest.free_in_buffer = CJ_OUT_BUFFER;
    return TRUE;
}

static void cj_term_destination(j_compress_ptr cinfo) {
    cj_encoder *e = (cj_encoder *)cinfo;
    cj_write_all(e, e->buffer, CJ_OUT_BUFFER - e->dest.free_in_buffer);
}

cj_encoder *cj_encoder_create(void) {
    cj_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    cj_install_errors((j_common_ptr)&e->cinfo, &e->err);
    if (setjmp(e->err.jump)) return e;
    jpeg_create_compress(&e->cinfo);
    e->created = 1;
    return e;
}

int cj_encoder_start(cj_encoder *e, int fd, uint32_t width, uint32_t height, int quality,
                     const cs_metadata *metadata) {
    if (!e->created) return e->err.error.code ? e->err.error.code : CS_ERR_NOMEM;
    if (e->started) { e->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(e->err.jump)) return e->err.error.code;
    e->fd = fd;
    e->dest.init_destination = cj_init_destination;
    e->dest.empty_output_buffer = cj_empty_output_buffer;
    e->dest.term_destination = cj_term_destination;
    e->cinfo.dest = &e->dest;
    e->cinfo.image_width = width;
    e->cinfo.image_height = height;
    e->cinfo.input_components = 4;
    e->cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&e->cinfo);  // YCbCr 4:2:0, Huffman tables, islow DCT
    jpeg_set_quality(&e->cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    const cs_metadata none = {0};
    const cs_metadata *m = metadata ? metadata : &none;
    int has_exif = m->exif && m->exif_length > 0 && m->exif_length <= 65533 - 6;
    if (has_exif) e->cinfo.write_JFIF_header = FALSE;
    jpeg_start_compress(&e->cinfo, TRUE);  // writes SOI (and JFIF APP0)
    if (has_exif) {
        jpeg_write_m_header(&e->cinfo, JPEG_APP0 + 1, (unsigned)(m->exif_length + 6));
        for (int i = 0; i < 6; i++) jpeg_write_m_byte(&e->cinfo, "Exif\0\0"[i]);
        for (size_t i = 0; i < m->exif_length; i++) jpeg_write_m_byte(&e->cinfo, m->exif[i]);
    }
    if (m->icc && m->icc_length > 0) jpeg_write_icc_profile(&e->cinfo, m->icc, (unsigned)m->icc_length);
    static const char xmp_ns[] = "http://ns.adobe.com/xap/1.0/";
    if (m->xmp && m->xmp_length > 0 && m->xmp_length <= 65533 - sizeof xmp_ns) {
        jpeg_write_m_header(&e->cinfo, JPEG_APP0 + 1, (unsigned)(m->xmp_length + sizeof xmp_ns));
        for (size_t i = 0; i < sizeof xmp_ns; i++) jpeg_write_m_byte(&e->cinfo, xmp_ns[i]);
        for (size_t i = 0; i < m->xmp_length; i++) jpeg_write_m_byte(&e->cinfo, m->xmp[i]);
    }
    if (m->comment && m->comment_length > 0 && m->comment_length <= 65533)
        jpeg_write_marker(&e->cinfo, JPEG_COM, m->comment, (unsigned)m->comment_length);
    e->started = 1;
    return CS_OK;
}

int cj_encoder_write_rows(cj_encoder *e, const uint8_t *src, size_t stride, uint32_t rows) {
    if (!e->started) { e->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(e->err.jump)) return e->err.error.code;
    uint32_t done = 0;
    while (done < rows) {
        JSAMPROW ptrs[16];
        uint32_t n = rows - done < 16 ? rows - done : 16;
        for (uint32_t i = 0; i < n; i++) ptrs[i] = (JSAMPROW)(src + (size_t)(done + i) * stride);
        JDIMENSION wrote = jpeg_write_scanlines(&e->cinfo, ptrs, n);
        if (wrote == 0) cj_fail((j_common_ptr)&e->cinfo, CS_ERR_STATE, "more rows than the image has");
        done += wrote;
    }
    return CS_OK;
}

int cj_encoder_finish(cj_encoder *e) {
    if (!e->started) { e->err.error.code = CS_ERR_STATE; return CS_ERR_STATE; }
    if (setjmp(e->err.jump)) return e->err.error.code;
    jpeg_finish_compress(&e->cinfo);
    return CS_OK;
}

void cj_encoder_destroy(cj_encoder *e) {
    if (!e) return;
    if (e->created) jpeg_destroy_compress(&e->cinfo);
    free(e);
}

const char *cj_encoder_message(const cj_encoder *e) { return e ? e->err.error.message : "out of memory"; }
int cj_encoder_errno(const cj_encoder *e) { return e ? e->saved_errno : ENOMEM; }
