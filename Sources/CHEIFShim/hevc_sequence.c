// HEIF image sequences: see hevc_sequence.h. The track's boxes are read by heif_scan.c's
// ch_track_read (every size and offset checked against the file, no two samples
// overlapping); here the HEVC samples go through libde265, their SPS checked again.
#include "hevc_sequence.h"

#include "cheif_shim.h"
#include "cshim_support.h"
#include "heif_libraries.h"
#include "heif_scan.h"

#include <stdlib.h>
#include <string.h>

struct ch_hevs {
    const uint8_t *data;
    size_t length;
    ch_track track;      // sizes, offsets and durations of the samples; the hvcC
    uint32_t width, height, count;
    int nal_length;      // bytes of each NAL unit's length in the samples (1, 2 or 4)
    de265_decoder_context *ctx;
    uint32_t pushed, returned;
    int flushed;
};

int ch_hevs_open(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, ch_hevs **out,
                 uint32_t *width, uint32_t *height, uint32_t *frames, char *why, size_t size) {
    *out = NULL;
    static const uint32_t hevc[] = {CS_FOURCC('h', 'v', 'c', '1'), CS_FOURCC('h', 'e', 'v', '1'), 0};
    ch_track track;
    int rc = ch_track_read(data, length, hevc, 0, max_frames, &track, why, size);
    if (rc != CS_OK || track.count == 0) return rc;
    uint32_t w = track.width, h = track.height;
    *width = w;
    *height = h;
    if (track.config.n < 23) rc = ch_fail_why(why, size, CS_ERR_CORRUPT, "the HEVC sample entry has no 'hvcC'");
    else if (w == 0 || h == 0) rc = ch_fail_why(why, size, CS_ERR_CORRUPT, "the sequence declares no size");
    else if ((track.config.p[21] & 3) == 2) rc = ch_fail_why(why, size, CS_ERR_CORRUPT, "a NAL length of 3 bytes");
    else if ((uint64_t)w * h > max_pixels) {
        cs_format(why, size, "the sequence is %ux%u, %llu pixels, over the limit of %llu", w, h,
                  (unsigned long long)w * h, (unsigned long long)max_pixels);
        rc = CS_ERR_LIMIT;
    }
    ch_hevs *s = rc == CS_OK ? calloc(1, sizeof *s) : NULL;
    if (rc == CS_OK && !s) rc = ch_fail_why(why, size, CS_ERR_NOMEM, "out of memory");
    if (rc != CS_OK) {
        ch_track_free(&track);
        return rc;
    }
    s->data = data;
    s->length = length;
    s->track = track;
    s->width = w;
    s->height = h;
    s->count = track.count;
    s->nal_length = (track.config.p[21] & 3) + 1;
    *frames = s->count;
    *out = s;
    return CS_OK;
}

void ch_hevs_free(ch_hevs *s) {
    if (!s) return;
    if (s->ctx) DE265(de265_free_decoder)(s->ctx);
    ch_track_free(&s->track);
    free(s);
}

// An SPS (NAL type 33) must declare the track's size, so that libde265 never allocates
// for a larger picture than the limits were checked against. 1 when `nal` is fine.
static int ch_sps_fits(const ch_hevs *s, const uint8_t *nal, size_t n) {
    if (n < 2 || ((nal[0] >> 1) & 0x3f) != 33) return 1;
    uint32_t w = 0, h = 0;
    return ch_hevc_sps_size(nal, n, &w, &h) && w >= s->width && h >= s->height && w <= s->width + 64 &&
           h <= s->height + 64;  // coded sizes round up to the coding block; the rest is cropped
}

// Pushes NAL units with `length`-byte sizes; 0 when one runs past the end or is an SPS of
// another size.
static int ch_push_nals(ch_hevs *s, const uint8_t *p, size_t n, int length) {
    size_t at = 0;
    unsigned pictures = 0;  // a sample is one picture (a VCL unit that starts one)
    while (at < n) {
        if (n - at < (size_t)length) return 0;
        uint32_t size = 0;
        for (int i = 0; i < length; i++) size = size << 8 | p[at + (size_t)i];
        at += (size_t)length;
        if (size > n - at || !ch_sps_fits(s, p + at, size)) return 0;
        if (size >= 3 && ((p[at] >> 1) & 0x3f) < 32 && (p[at + 2] & 0x80) && ++pictures > 1) return 0;
        DE265(de265_push_NAL)(s->ctx, p + at, size, 0, NULL);
        at += size;
    }
    return 1;
}

// The parameter sets of the hvcC (VPS, SPS, PPS, SEI arrays), each with a 2-byte length.
static int ch_push_config(ch_hevs *s) {
    const uint8_t *p = s->track.config.p;
    size_t n = s->track.config.n, at = 23;
    unsigned arrays = p[22];
    for (unsigned a = 0; a < arrays; a++) {
        if (n - at < 3) return 0;
        unsigned count = (unsigned)p[at + 1] << 8 | p[at + 2];
        at += 3;
        for (unsigned k = 0; k < count; k++) {
            if (n - at < 2) return 0;
            size_t size = (size_t)p[at] << 8 | p[at + 1];
            at += 2;
            if (size > n - at || !ch_sps_fits(s, p + at, size)) return 0;
            if (size >= 1 && ((p[at] >> 1) & 0x3f) < 32) return 0;  // parameter sets only
            DE265(de265_push_NAL)(s->ctx, p + at, size, 0, NULL);
            at += size;
        }
    }
    return 1;
}

static inline uint8_t ch_clamp8(double v) { return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5); }

// libde265's picture to RGBA8: the VUI's matrix (BT.601 when unspecified, BT.709, BT.2020)
// and range, chroma by nearest neighbour (as libheif 1.15 converts a still).
static int ch_to_rgba(ch_hevs *s, const struct de265_image *picture, uint8_t *dst, size_t stride, char *why,
                      size_t size) {
    int w = DE265(de265_get_image_width)(picture, 0), h = DE265(de265_get_image_height)(picture, 0);
    if (w != (int)s->width || h != (int)s->height) {
        cs_format(why, size, "a frame is %dx%d, not the %ux%u the track declares", w, h, s->width, s->height);
        return CS_ERR_CORRUPT;
    }
    enum de265_chroma chroma = DE265(de265_get_chroma_format)(picture);
    int depth = DE265(de265_get_bits_per_pixel)(picture, 0);
    if (depth < 8 || depth > 16) return ch_fail_why(why, size, CS_ERR_UNSUPPORTED, "an unusual bit depth");
    int sx = chroma == de265_chroma_420 || chroma == de265_chroma_422 ? 1 : 0, sy = chroma == de265_chroma_420 ? 1 : 0;
    // The chroma planes are read with the luma plane's sample size and at half (or full)
    // its size: an SPS may give chroma another depth (12-bit luma, 8-bit chroma read as
    // 16-bit ran past libde265's plane), so both are checked before any sample is read.
    for (int c = 1; chroma != de265_chroma_mono && c < 3; c++) {
        if (DE265(de265_get_bits_per_pixel)(picture, c) != depth)
            return ch_fail_why(why, size, CS_ERR_CORRUPT, "planes of different depths (luma and chroma)");
        if (DE265(de265_get_image_width)(picture, c) < (w + sx) >> sx ||
            DE265(de265_get_image_height)(picture, c) < (h + sy) >> sy)
            return ch_fail_why(why, size, CS_ERR_CORRUPT, "a chroma plane smaller than the picture needs");
    }
    int matrix = DE265(de265_get_image_matrix_coefficients)(picture);
    int full = DE265(de265_get_image_full_range_flag)(picture);
    double kr = 0.299, kb = 0.114;  // BT.601 (matrix 5, 6 and unspecified)
    if (matrix == 1) kr = 0.2126, kb = 0.0722;
    if (matrix == 9 || matrix == 10) kr = 0.2627, kb = 0.0593;
    double max = (double)((1 << depth) - 1), scale = 255.0 / max;
    double y_off = full ? 0 : 16.0 * (1 << (depth - 8)), y_range = full ? max : 219.0 * (1 << (depth - 8));
    double c_mid = (double)(1 << (depth - 1)), c_range = full ? max : 224.0 * (1 << (depth - 8));
    int ys, cbs = 0, crs = 0;
    const uint8_t *yp = DE265(de265_get_image_plane)(picture, 0, &ys);
    const uint8_t *cbp = chroma == de265_chroma_mono ? NULL : DE265(de265_get_image_plane)(picture, 1, &cbs);
    const uint8_t *crp = chroma == de265_chroma_mono ? NULL : DE265(de265_get_image_plane)(picture, 2, &crs);
    int wide = depth > 8;
    for (int y = 0; y < h; y++) {
        uint8_t *out = dst + (size_t)y * stride;
        for (int x = 0; x < w; x++) {
            double yv = wide ? ((const uint16_t *)(yp + (size_t)y * ys))[x] : yp[(size_t)y * ys + x];
            double l = (yv - y_off) / y_range * max, cb = 0, cr = 0;
            if (cbp) {
                size_t cx = (size_t)(x >> sx), cy = (size_t)(y >> sy);
                double b = wide ? ((const uint16_t *)(cbp + cy * cbs))[cx] : cbp[cy * cbs + cx];
                double r = wide ? ((const uint16_t *)(crp + cy * crs))[cx] : crp[cy * crs + cx];
                cb = (b - c_mid) / c_range * max;
                cr = (r - c_mid) / c_range * max;
            }
            double kg = 1 - kr - kb;
            double rr = l + 2 * (1 - kr) * cr;
            double bb = l + 2 * (1 - kb) * cb;
            double gg = (l - kr * rr - kb * bb) / kg;
            out[4 * x] = ch_clamp8(rr * scale);
            out[4 * x + 1] = ch_clamp8(gg * scale);
            out[4 * x + 2] = ch_clamp8(bb * scale);
            out[4 * x + 3] = 255;
        }
    }
    return CS_OK;
}

int ch_hevs_next(ch_hevs *s, uint8_t *dst, size_t stride, int threaded, int *delay_ms, char *why, size_t size) {
    if (!s->ctx) {
        s->ctx = DE265(de265_new_decoder)();
        if (!s->ctx) return ch_fail_why(why, size, CS_ERR_NOMEM, "out of memory");
        DE265(de265_start_worker_threads)(s->ctx, threaded ? cs_cores(8) : 1);
        if (!ch_push_config(s))
            return ch_fail_why(why, size, CS_ERR_CORRUPT,
                               "a bad 'hvcC' parameter set (cut, or a picture size other than the track's)");
    }
    // Each call of de265_decode makes progress or asks for data; the bound only guards
    // against a decoder that does neither.
    for (uint64_t rounds = 0;; rounds++) {
        if (rounds > 4096 + 64 * (uint64_t)s->count)
            return ch_fail_why(why, size, CS_ERR_CORRUPT, "the decoder made no progress");
        const struct de265_image *picture = DE265(de265_get_next_picture)(s->ctx);
        if (picture) {
            int rc = ch_to_rgba(s, picture, dst, stride, why, size);
            DE265(de265_release_next_picture)(s->ctx);
            if (rc != CS_OK) return rc;
            uint32_t ticks = s->returned < s->count ? s->track.durations[s->returned] : 0;
            uint64_t ms = (uint64_t)ticks * 1000 / s->track.timescale;
            *delay_ms = ms > 65535 * 10 ? 65535 * 10 : (int)ms;
            s->returned++;
            return CS_OK;
        }
        int more = 0;
        de265_error e = DE265(de265_decode)(s->ctx, &more);
        if (e == DE265_ERROR_WAITING_FOR_INPUT_DATA || (e == DE265_OK && !more)) {
            if (s->pushed < s->count) {
                uint32_t i = s->pushed++;
                if (!ch_push_nals(s, s->data + s->track.offsets[i], s->track.sizes[i], s->nal_length)) {
                    cs_format(why, size,
                              "frame %u's NAL units run past its end, change the picture size or hold two pictures",
                              i + 1);
                    return CS_ERR_CORRUPT;
                }
                DE265(de265_push_end_of_frame)(s->ctx);
            } else if (!s->flushed) {
                DE265(de265_flush_data)(s->ctx);
                s->flushed = 1;
            } else if (!more) {
                cs_format(why, size, "the sequence gave %u of its %u frames", s->returned, s->count);
                return CS_ERR_CORRUPT;
            }
            continue;
        }
        if (!DE265(de265_isOK)(e)) {
            cs_format(why, size, "libde265: %s", DE265(de265_get_error_text)(e));
            return CS_ERR_CORRUPT;
        }
    }
}

void ch_hevs_rewind(ch_hevs *s) {
    if (s->ctx) DE265(de265_free_decoder)(s->ctx);
    s->ctx = NULL;
    s->pushed = s->returned = 0;
    s->flushed = 0;
}
