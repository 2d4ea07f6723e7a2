// HEIF image sequences: see hevc_sequence.h. The boxes are ISO/IEC 14496-12's (moov, trak,
// mdia, mdhd, hdlr, minf, stbl, stsd, stts, stsz, stsc, stco, co64) and 14496-15's hvcC;
// every size and offset is checked against the file before it is used.
#include "hevc_sequence.h"

#include "cheif_shim.h"
#include "cshim_support.h"
#include "heif_libraries.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CH_SEQ_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

typedef struct ch_span {
    const uint8_t *p;
    size_t n;
} ch_span;

struct ch_hevs {
    const uint8_t *data;
    size_t length;
    uint32_t width, height, count;
    uint64_t *offsets;   // each sample's place in the file
    uint32_t *sizes;
    uint32_t *durations; // in the track's timescale
    uint32_t timescale;
    ch_span config;      // the hvcC payload
    int nal_length;      // bytes of each NAL unit's length in the samples (1, 2 or 4)
    de265_decoder_context *ctx;
    uint32_t pushed, returned;
    int flushed;
};

static uint32_t ch_be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint64_t ch_be64(const uint8_t *p) { return (uint64_t)ch_be32(p) << 32 | ch_be32(p + 4); }

// The first box of `type` directly inside `in` (its payload), skipping `skip` bytes of the
// parent's own fields first. 0 when there is none or a box is malformed.
static int ch_child(ch_span in, size_t skip, uint32_t type, ch_span *out) {
    size_t at = skip;
    while (at < in.n && in.n - at >= 8) {
        uint64_t size = ch_be32(in.p + at);
        uint32_t kind = ch_be32(in.p + at + 4);
        size_t header = 8;
        if (size == 1) {
            if (in.n - at < 16) return 0;
            size = ch_be64(in.p + at + 8);
            header = 16;
        } else if (size == 0) {
            size = in.n - at;
        }
        if (size < header || size > in.n - at) return 0;
        if (kind == type) {
            *out = (ch_span){in.p + at + header, (size_t)size - header};
            return 1;
        }
        at += (size_t)size;
    }
    return 0;
}

// A full box's payload after its version and flags.
static int ch_full(ch_span box, ch_span *out, int *version) {
    if (box.n < 4) return 0;
    *version = box.p[0];
    *out = (ch_span){box.p + 4, box.n - 4};
    return 1;
}

static int ch_seq_fail(char *why, size_t size, int code, const char *message) {
    cs_format(why, size, "%s", message);
    return code;
}

// The sample tables of one track's 'stbl' into s (sizes, offsets, durations).
static int ch_tables(ch_hevs *s, ch_span stbl, uint32_t max_frames, char *why, size_t size) {
    ch_span box, body;
    int version;
    // stsz: the count and each size.
    if (!ch_child(stbl, 0, CH_SEQ_FOURCC('s', 't', 's', 'z'), &box) || !ch_full(box, &body, &version) || body.n < 8)
        return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the sequence track has no sample sizes ('stsz')");
    uint32_t fixed = ch_be32(body.p), count = ch_be32(body.p + 4);
    if (count == 0) return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the sequence track has no samples");
    if (count > max_frames) {
        cs_format(why, size, "the sequence has %u frames, over the limit of %u", count, max_frames);
        return CH_ERR_LIMIT;
    }
    if (fixed == 0 && (body.n - 8) / 4 < count)
        return ch_seq_fail(why, size, CH_ERR_TRUNCATED, "the sample sizes end early ('stsz')");
    s->count = count;
    s->sizes = calloc(count, sizeof *s->sizes);
    s->offsets = calloc(count, sizeof *s->offsets);
    s->durations = calloc(count, sizeof *s->durations);
    if (!s->sizes || !s->offsets || !s->durations) return ch_seq_fail(why, size, CH_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < count; i++) s->sizes[i] = fixed ? fixed : ch_be32(body.p + 8 + 4 * (size_t)i);

    // stco or co64: where each chunk starts.
    int wide = 0;
    if (!ch_child(stbl, 0, CH_SEQ_FOURCC('s', 't', 'c', 'o'), &box)) {
        if (!ch_child(stbl, 0, CH_SEQ_FOURCC('c', 'o', '6', '4'), &box))
            return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the sequence track has no chunk offsets");
        wide = 1;
    }
    if (!ch_full(box, &body, &version) || body.n < 4)
        return ch_seq_fail(why, size, CH_ERR_CORRUPT, "bad chunk offsets");
    uint32_t chunks = ch_be32(body.p);
    if (chunks == 0 || (body.n - 4) / (wide ? 8 : 4) < chunks)
        return ch_seq_fail(why, size, CH_ERR_TRUNCATED, "the chunk offsets end early");
    const uint8_t *offsets = body.p + 4;

    // stsc: samples per chunk, by runs of chunks.
    ch_span stsc;
    if (!ch_child(stbl, 0, CH_SEQ_FOURCC('s', 't', 's', 'c'), &box) || !ch_full(box, &stsc, &version) || stsc.n < 4)
        return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the sequence track has no sample-to-chunk table ('stsc')");
    uint32_t runs = ch_be32(stsc.p);
    if (runs == 0 || (stsc.n - 4) / 12 < runs)
        return ch_seq_fail(why, size, CH_ERR_TRUNCATED, "the sample-to-chunk table ends early");
    uint32_t sample = 0;
    for (uint32_t r = 0; r < runs && sample < count; r++) {
        const uint8_t *e = stsc.p + 4 + 12 * (size_t)r;
        uint32_t first = ch_be32(e), per = ch_be32(e + 4);
        uint32_t last = r + 1 < runs ? ch_be32(e + 12) - 1 : chunks;  // chunks are numbered from 1
        if (first == 0 || last < first || last > chunks || per == 0)
            return ch_seq_fail(why, size, CH_ERR_CORRUPT, "a bad sample-to-chunk entry");
        for (uint32_t c = first; c <= last && sample < count; c++) {
            uint64_t at = wide ? ch_be64(offsets + 8 * (size_t)(c - 1)) : ch_be32(offsets + 4 * (size_t)(c - 1));
            for (uint32_t k = 0; k < per && sample < count; k++, sample++) {
                if (at > s->length || s->sizes[sample] > s->length - at) {
                    cs_format(why, size, "frame %u lies past the end of the file (truncated)", sample + 1);
                    return CH_ERR_TRUNCATED;
                }
                s->offsets[sample] = at;
                at += s->sizes[sample];
            }
        }
    }
    if (sample < count) return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the chunks hold fewer samples than 'stsz'");

    // stts: durations, by runs (a missing table leaves every frame at 0: shown as 100 ms).
    if (ch_child(stbl, 0, CH_SEQ_FOURCC('s', 't', 't', 's'), &box) && ch_full(box, &body, &version) && body.n >= 4) {
        uint32_t entries = ch_be32(body.p), i = 0;
        for (uint32_t r = 0; r < entries && (size_t)r < (body.n - 4) / 8 && i < count; r++) {
            uint32_t n = ch_be32(body.p + 4 + 8 * (size_t)r), delta = ch_be32(body.p + 8 + 8 * (size_t)r);
            for (uint32_t k = 0; k < n && i < count; k++) s->durations[i++] = delta;
        }
    }
    return CH_OK;
}

int ch_hevs_open(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, ch_hevs **out,
                 uint32_t *width, uint32_t *height, uint32_t *frames, char *why, size_t size) {
    *out = NULL;
    ch_span file = {data, length}, moov, trak;
    if (!ch_child(file, 0, CH_SEQ_FOURCC('m', 'o', 'o', 'v'), &moov)) return CH_OK;
    // Each track until one holds HEVC pictures.
    for (size_t at = 0; at < moov.n;) {
        ch_span rest = {moov.p + at, moov.n - at};
        if (!ch_child(rest, 0, CH_SEQ_FOURCC('t', 'r', 'a', 'k'), &trak)) break;
        at = (size_t)(trak.p + trak.n - moov.p);
        ch_span mdia, minf, stbl, stsd, mdhd, body, entry, hvcc;
        int version;
        if (!ch_child(trak, 0, CH_SEQ_FOURCC('m', 'd', 'i', 'a'), &mdia) ||
            !ch_child(mdia, 0, CH_SEQ_FOURCC('m', 'i', 'n', 'f'), &minf) ||
            !ch_child(minf, 0, CH_SEQ_FOURCC('s', 't', 'b', 'l'), &stbl) ||
            !ch_child(stbl, 0, CH_SEQ_FOURCC('s', 't', 's', 'd'), &stsd) || !ch_full(stsd, &body, &version) ||
            body.n < 4)
            continue;
        // The first sample entry: 8 bytes of box header, then a VisualSampleEntry (78 bytes
        // of fields, width and height at 24 and 26) and its boxes.
        if (body.n - 4 < 8 + 78) continue;
        uint32_t entry_size = ch_be32(body.p + 4), kind = ch_be32(body.p + 8);
        if (kind != CH_SEQ_FOURCC('h', 'v', 'c', '1') && kind != CH_SEQ_FOURCC('h', 'e', 'v', '1')) continue;
        if (entry_size < 8 + 78 || entry_size > body.n - 4) return ch_seq_fail(why, size, CH_ERR_CORRUPT, "a bad sample entry");
        entry = (ch_span){body.p + 12, entry_size - 8};
        uint32_t w = (uint32_t)entry.p[24] << 8 | entry.p[25], h = (uint32_t)entry.p[26] << 8 | entry.p[27];
        if (!ch_child(entry, 78, CH_SEQ_FOURCC('h', 'v', 'c', 'C'), &hvcc) || hvcc.n < 23)
            return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the HEVC sample entry has no 'hvcC'");
        *width = w;
        *height = h;
        if (w == 0 || h == 0) return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the sequence declares no size");
        if ((uint64_t)w * h > max_pixels) {
            cs_format(why, size, "the sequence is %ux%u, %llu pixels, over the limit of %llu", w, h,
                      (unsigned long long)w * h, (unsigned long long)max_pixels);
            return CH_ERR_LIMIT;
        }
        ch_hevs *s = calloc(1, sizeof *s);
        if (!s) return ch_seq_fail(why, size, CH_ERR_NOMEM, "out of memory");
        s->data = data;
        s->length = length;
        s->width = w;
        s->height = h;
        s->config = hvcc;
        s->nal_length = (hvcc.p[21] & 3) + 1;
        s->timescale = 1000;
        if (ch_child(mdia, 0, CH_SEQ_FOURCC('m', 'd', 'h', 'd'), &mdhd) && ch_full(mdhd, &body, &version)) {
            size_t place = version == 1 ? 16 : 8;
            if (body.n >= place + 4 && ch_be32(body.p + place) > 0) s->timescale = ch_be32(body.p + place);
        }
        if (s->nal_length == 3) {
            ch_hevs_free(s);
            return ch_seq_fail(why, size, CH_ERR_CORRUPT, "a NAL length of 3 bytes");
        }
        int rc = ch_tables(s, stbl, max_frames, why, size);
        if (rc != CH_OK) {
            ch_hevs_free(s);
            return rc;
        }
        *frames = s->count;
        *out = s;
        return CH_OK;
    }
    return CH_OK;
}

void ch_hevs_free(ch_hevs *s) {
    if (!s) return;
    if (s->ctx) DE265(de265_free_decoder)(s->ctx);
    free(s->offsets);
    free(s->sizes);
    free(s->durations);
    free(s);
}

// Reads bits of an SPS's payload, emulation-prevention bytes (00 00 03) dropped.
typedef struct ch_bits {
    const uint8_t *p;
    size_t n, at;  // bytes; the next bit is bit `bit` of byte `at`
    int bit, zeros, bad;
} ch_bits;

static unsigned ch_bit(ch_bits *b) {
    if (b->at >= b->n) {
        b->bad = 1;
        return 0;
    }
    if (b->bit == 0 && b->zeros >= 2 && b->p[b->at] == 3) {  // an emulation-prevention byte
        b->zeros = 0;
        b->at++;
        if (b->at >= b->n) {
            b->bad = 1;
            return 0;
        }
    }
    unsigned v = (b->p[b->at] >> (7 - b->bit)) & 1;
    if (++b->bit == 8) {
        b->zeros = b->p[b->at] == 0 ? b->zeros + 1 : 0;
        b->bit = 0;
        b->at++;
    }
    return v;
}

static uint32_t ch_bits_u(ch_bits *b, int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; i++) v = v << 1 | ch_bit(b);
    return v;
}

static uint32_t ch_bits_ue(ch_bits *b) {  // Exp-Golomb, at most 32 bits of value
    int zeros = 0;
    while (!ch_bit(b)) {
        if (b->bad || ++zeros > 31) {
            b->bad = 1;
            return 0;
        }
    }
    return (uint32_t)((1ull << zeros) - 1 + ch_bits_u(b, zeros));
}

// The picture size an SPS NAL unit declares (H.265 7.3.2.2, profile_tier_level 7.3.3):
// 1, or 0 when the unit is cut short.
static int ch_sps_size(const uint8_t *nal, size_t n, uint32_t *width, uint32_t *height) {
    ch_bits b = {nal, n, 2, 0, 0, 0};  // after the 2-byte NAL header
    ch_bits_u(&b, 4);                   // sps_video_parameter_set_id
    unsigned sub_layers = ch_bits_u(&b, 3);
    ch_bits_u(&b, 1);                   // sps_temporal_id_nesting_flag
    ch_bits_u(&b, 32), ch_bits_u(&b, 32), ch_bits_u(&b, 32);  // general profile, flags and level: 96 bits
    unsigned profile_present[8] = {0}, level_present[8] = {0};
    for (unsigned i = 0; i < sub_layers; i++) {
        profile_present[i] = ch_bit(&b);
        level_present[i] = ch_bit(&b);
    }
    if (sub_layers > 0)
        for (unsigned i = sub_layers; i < 8; i++) ch_bits_u(&b, 2);
    for (unsigned i = 0; i < sub_layers; i++) {
        if (profile_present[i]) ch_bits_u(&b, 32), ch_bits_u(&b, 32), ch_bits_u(&b, 24);  // 88 bits
        if (level_present[i]) ch_bits_u(&b, 8);
    }
    ch_bits_ue(&b);  // sps_seq_parameter_set_id
    if (ch_bits_ue(&b) == 3) ch_bit(&b);  // chroma_format_idc; separate_colour_plane_flag
    *width = ch_bits_ue(&b);
    *height = ch_bits_ue(&b);
    return !b.bad;
}

// An SPS (NAL type 33) must declare the track's size, so that libde265 never allocates
// for a larger picture than the limits were checked against. 1 when `nal` is fine.
static int ch_sps_fits(const ch_hevs *s, const uint8_t *nal, size_t n) {
    if (n < 2 || ((nal[0] >> 1) & 0x3f) != 33) return 1;
    uint32_t w = 0, h = 0;
    return ch_sps_size(nal, n, &w, &h) && w >= s->width && h >= s->height && w <= s->width + 64 &&
           h <= s->height + 64;  // coded sizes round up to the coding block; the rest is cropped
}

// Pushes NAL units with `length`-byte sizes; 0 when one runs past the end or is an SPS of
// another size.
static int ch_push_nals(ch_hevs *s, const uint8_t *p, size_t n, int length) {
    size_t at = 0;
    while (at < n) {
        if (n - at < (size_t)length) return 0;
        uint32_t size = 0;
        for (int i = 0; i < length; i++) size = size << 8 | p[at + (size_t)i];
        at += (size_t)length;
        if (size > n - at || !ch_sps_fits(s, p + at, size)) return 0;
        DE265(de265_push_NAL)(s->ctx, p + at, size, 0, NULL);
        at += size;
    }
    return 1;
}

// The parameter sets of the hvcC (VPS, SPS, PPS, SEI arrays), each with a 2-byte length.
static int ch_push_config(ch_hevs *s) {
    const uint8_t *p = s->config.p;
    size_t n = s->config.n, at = 23;
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
        return CH_ERR_CORRUPT;
    }
    enum de265_chroma chroma = DE265(de265_get_chroma_format)(picture);
    int depth = DE265(de265_get_bits_per_pixel)(picture, 0);
    if (depth < 8 || depth > 16) return ch_seq_fail(why, size, CH_ERR_UNSUPPORTED, "an unusual bit depth");
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
    int sx = chroma == de265_chroma_420 || chroma == de265_chroma_422 ? 1 : 0, sy = chroma == de265_chroma_420 ? 1 : 0;
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
    return CH_OK;
}

int ch_hevs_next(ch_hevs *s, uint8_t *dst, size_t stride, int threaded, int *delay_ms, char *why, size_t size) {
    if (!s->ctx) {
        s->ctx = DE265(de265_new_decoder)();
        if (!s->ctx) return ch_seq_fail(why, size, CH_ERR_NOMEM, "out of memory");
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        DE265(de265_start_worker_threads)(s->ctx, threaded && cores > 1 ? (int)(cores > 8 ? 8 : cores) : 1);
        if (!ch_push_config(s))
            return ch_seq_fail(why, size, CH_ERR_CORRUPT,
                               "a bad 'hvcC' parameter set (cut, or a picture size other than the track's)");
    }
    // Each call of de265_decode makes progress or asks for data; the bound only guards
    // against a decoder that does neither.
    for (uint64_t rounds = 0;; rounds++) {
        if (rounds > 4096 + 64 * (uint64_t)s->count)
            return ch_seq_fail(why, size, CH_ERR_CORRUPT, "the decoder made no progress");
        const struct de265_image *picture = DE265(de265_get_next_picture)(s->ctx);
        if (picture) {
            int rc = ch_to_rgba(s, picture, dst, stride, why, size);
            DE265(de265_release_next_picture)(s->ctx);
            if (rc != CH_OK) return rc;
            uint32_t ticks = s->returned < s->count ? s->durations[s->returned] : 0;
            uint64_t ms = (uint64_t)ticks * 1000 / s->timescale;
            *delay_ms = ms > 65535 * 10 ? 65535 * 10 : (int)ms;
            s->returned++;
            return CH_OK;
        }
        int more = 0;
        de265_error e = DE265(de265_decode)(s->ctx, &more);
        if (e == DE265_ERROR_WAITING_FOR_INPUT_DATA || (e == DE265_OK && !more)) {
            if (s->pushed < s->count) {
                uint32_t i = s->pushed++;
                if (!ch_push_nals(s, s->data + s->offsets[i], s->sizes[i], s->nal_length)) {
                    cs_format(why, size, "frame %u's NAL units run past its end or change the picture size", i + 1);
                    return CH_ERR_CORRUPT;
                }
                DE265(de265_push_end_of_frame)(s->ctx);
            } else if (!s->flushed) {
                DE265(de265_flush_data)(s->ctx);
                s->flushed = 1;
            } else if (!more) {
                cs_format(why, size, "the sequence gave %u of its %u frames", s->returned, s->count);
                return CH_ERR_CORRUPT;
            }
            continue;
        }
        if (!DE265(de265_isOK)(e)) {
            cs_format(why, size, "libde265: %s", DE265(de265_get_error_text)(e));
            return CH_ERR_CORRUPT;
        }
    }
}

void ch_hevs_rewind(ch_hevs *s) {
    if (s->ctx) DE265(de265_free_decoder)(s->ctx);
    s->ctx = NULL;
    s->pushed = s->returned = 0;
    s->flushed = 0;
}
