// The HEIF/AVIF pre-scan: see heif_scan.h. Boxes are ISO/IEC 14496-12's (tracks) and
// 23008-12's (items: meta, hdlr, pitm, iinf/infe, iloc, iref, iprp/ipco/ipma, idat);
// properties ispe, hvcC (14496-15), av1C and auxC; grid and iovl payloads (23008-12
// 6.6.2.3). The codec headers read are H.265's SPS (7.3.2.2, up to the picture size) and
// AV1's sequence header OBU (5.5, up to the maximum frame size). Every count is checked
// before anything is allocated for it, every offset and size before a byte is read.
#include "heif_scan.h"

#include "cheif_shim.h"

#include <stdlib.h>
#include <string.h>

#define FOURCC CS_FOURCC

// ---------------------------------------------------------------- boxes, as the libraries read them

// The next box in `in` at *at, read as libheif 1.15 (BoxHeader::parse, Box::read) and
// libavif 0.11 (avifROStreamReadBoxHeader) read one: a 32-bit size, or 1 and a 64-bit
// one; a 'uuid' box has 16 bytes of extended type before its body; a size of 0 (to the
// end, in ISO's words) is refused by both, and so here. 1 with *box, 0 at the end, -1 for
// a malformed box.
static int ch_box_next(cs_span in, size_t *at, cs_box *box) { return cs_box_read(in, at, box, CS_BOX_UUID); }

// How many children of `type` `in` has (from `skip`), the first of them in *first: -1
// when a child is malformed (the libraries fail on it too).
static long ch_children(cs_span in, size_t skip, uint32_t type, cs_span *first) {
    size_t at = skip;
    cs_box box;
    long found = 0;
    int got;
    while ((got = ch_box_next(in, &at, &box)) == 1)
        if (box.type == type && found++ == 0 && first) *first = box.body;
    return got < 0 ? -1 : found;
}

// The only child of `type`: 1 with *out, 0 when there is none, -1 when there are several
// or a child is malformed (which of several a library takes, the scan cannot know).
static int ch_only_child(cs_span in, size_t skip, uint32_t type, cs_span *out) {
    long n = ch_children(in, skip, type, out);
    return n < 0 || n > 1 ? -1 : (int)n;
}

// ---------------------------------------------------------------- bits

// Reads bits MSB first; with `epb`, H.265's emulation-prevention bytes (00 00 03) are
// dropped. Past the end, `bad` is set and 0 is read.
typedef struct ch_bits {
    const uint8_t *p;
    size_t n, at;
    int bit, zeros, bad, epb;
} ch_bits;

static unsigned ch_bit(ch_bits *b) {
    if (b->at >= b->n) {
        b->bad = 1;
        return 0;
    }
    if (b->epb && b->bit == 0 && b->zeros >= 2 && b->p[b->at] == 3) {
        b->zeros = 0;
        if (++b->at >= b->n) {
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

static uint32_t ch_bits_ue(ch_bits *b) {  // H.265 Exp-Golomb, at most 32 bits of value
    int zeros = 0;
    while (!ch_bit(b)) {
        if (b->bad || ++zeros > 31) {
            b->bad = 1;
            return 0;
        }
    }
    return (uint32_t)((1ull << zeros) - 1 + ch_bits_u(b, zeros));
}

static uint32_t ch_bits_uvlc(ch_bits *b) {  // AV1's uvlc(): 32 or more zeros mean 2^32 - 1
    int zeros = 0;
    while (!ch_bit(b)) {
        if (b->bad) return 0;
        if (++zeros >= 32) return UINT32_MAX;
    }
    return (uint32_t)((1ull << zeros) - 1 + ch_bits_u(b, zeros));
}

// ---------------------------------------------------------------- codec headers

int ch_hevc_sps_size(const uint8_t *nal, size_t n, uint32_t *width, uint32_t *height) {
    if (n < 3 || ((nal[0] >> 1) & 0x3f) != 33) return 0;
    ch_bits b = {nal, n, 2, 0, 0, 0, 1};  // after the 2-byte NAL header
    ch_bits_u(&b, 4);                      // sps_video_parameter_set_id
    unsigned sub_layers = ch_bits_u(&b, 3);
    ch_bits_u(&b, 1);                      // sps_temporal_id_nesting_flag
    ch_bits_u(&b, 32), ch_bits_u(&b, 32), ch_bits_u(&b, 32);  // general profile, flags, level
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
    ch_bits_ue(&b);                        // sps_seq_parameter_set_id
    if (ch_bits_ue(&b) == 3) ch_bit(&b);   // chroma_format_idc; separate_colour_plane_flag
    *width = ch_bits_ue(&b);
    *height = ch_bits_ue(&b);
    return !b.bad;
}

// The maximum frame size of an AV1 sequence header OBU's payload, and its first operating
// point's idc (which layers it decodes; 0: all, one layer): 1, or 0 when cut short.
static int ch_av1_sequence_size(const uint8_t *p, size_t n, uint32_t *width, uint32_t *height, uint32_t *op_idc) {
    *op_idc = 0;
    ch_bits b = {p, n, 0, 0, 0, 0, 0};
    ch_bits_u(&b, 3);                      // seq_profile
    ch_bit(&b);                            // still_picture
    if (ch_bit(&b)) {                      // reduced_still_picture_header
        ch_bits_u(&b, 5);                  // seq_level_idx[0]
    } else {
        unsigned decoder_model = 0, delay_bits = 0;
        if (ch_bit(&b)) {                  // timing_info_present_flag
            ch_bits_u(&b, 32), ch_bits_u(&b, 32);  // num_units_in_display_tick, time_scale
            if (ch_bit(&b)) ch_bits_uvlc(&b);       // equal_picture_interval: num_ticks_per_picture_minus_1
            decoder_model = ch_bit(&b);
            if (decoder_model) {
                delay_bits = ch_bits_u(&b, 5) + 1;  // buffer_delay_length_minus_1
                ch_bits_u(&b, 32);                  // num_units_in_decoding_tick
                ch_bits_u(&b, 5), ch_bits_u(&b, 5); // buffer_removal_time_length, frame_presentation_time_length
            }
        }
        unsigned initial_delay = ch_bit(&b);
        unsigned points = ch_bits_u(&b, 5) + 1;
        for (unsigned i = 0; i < points && !b.bad; i++) {
            uint32_t idc = ch_bits_u(&b, 12);  // operating_point_idc
            if (i == 0) *op_idc = idc;
            if (ch_bits_u(&b, 5) > 7) ch_bit(&b);  // seq_level_idx; seq_tier
            if (decoder_model && ch_bit(&b)) {     // decoder_model_present_for_this_op
                ch_bits_u(&b, (int)delay_bits), ch_bits_u(&b, (int)delay_bits);
                ch_bit(&b);                // low_delay_mode_flag
            }
            if (initial_delay && ch_bit(&b)) ch_bits_u(&b, 4);
        }
    }
    int wbits = (int)ch_bits_u(&b, 4) + 1, hbits = (int)ch_bits_u(&b, 4) + 1;
    *width = ch_bits_u(&b, wbits) + 1;     // max_frame_width_minus_1 (at most 16 bits)
    *height = ch_bits_u(&b, hbits) + 1;
    return !b.bad;
}

// ---------------------------------------------------------------- item data across extents

typedef struct ch_extent {
    uint64_t start, length;  // in the file (idat's extents too: idat is part of the file)
    uint32_t owner;          // the iloc entry it belongs to
} ch_extent;

typedef struct ch_item_data {
    const uint8_t *file;
    const ch_extent *extents;
    uint32_t count;
    uint64_t length;         // all extents together
} ch_item_data;

// Copies up to `n` bytes at `offset` of the item's data; returns how many were there.
static size_t ch_item_copy(const ch_item_data *d, uint64_t offset, uint8_t *out, size_t n) {
    size_t done = 0;
    for (uint32_t i = 0; i < d->count && done < n; i++) {
        const ch_extent *e = &d->extents[i];
        if (offset >= e->length) {
            offset -= e->length;
            continue;
        }
        uint64_t take = e->length - offset;
        if (take > n - done) take = n - done;
        memcpy(out + done, d->file + e->start + offset, (size_t)take);
        done += (size_t)take;
        offset = 0;
    }
    return done;
}

// ---------------------------------------------------------------- checks of codec pictures

typedef struct ch_check {
    uint32_t declared_w, declared_h;  // the size the container states
    uint32_t margin;                  // one coding block: what a coded picture may add
    uint32_t factor;                  // how many times the declared size a header may say:
                                      // 1 for HEVC's SPS (the picture's size); 2 for AV1's
                                      // sequence header, whose size is the largest frame's
                                      // (a layered stream's first layer is half its last)
    uint64_t max_pixels;
    uint32_t largest_w, largest_h;    // the largest picture a codec header asks for
    int code;                         // CS_OK until a header fails
    char *why;
    size_t size;
    const char *what;                 // "the HEVC SPS", "the AV1 sequence header"
    // What the data holds besides its headers: HEVC pictures (VCL units that start one),
    // AV1 frames (frame and frame-header OBUs), the operating point of a sequence header
    // other than 0 (a layered stream whose lower layers are decoded and never shown).
    uint32_t pictures, frames, op_idc;
} ch_check;

static void ch_check_picture(ch_check *c, uint32_t w, uint32_t h) {
    if (c->code != CS_OK) return;
    if ((uint64_t)w * h > (uint64_t)c->largest_w * c->largest_h) c->largest_w = w, c->largest_h = h;
    if ((uint64_t)w * h > c->max_pixels) {
        cs_format(c->why, c->size, "%s asks for a %ux%u picture, over the limit of %llu pixels", c->what, w, h,
                  (unsigned long long)c->max_pixels);
        c->code = CS_ERR_LIMIT;
    } else if (w > (uint64_t)c->declared_w * c->factor + c->margin ||
               h > (uint64_t)c->declared_h * c->factor + c->margin) {
        cs_format(c->why, c->size, "%s says %ux%u, larger than the %ux%u the file declares", c->what, w, h,
                  c->declared_w, c->declared_h);
        c->code = CS_ERR_CORRUPT;
    }
}

// Every SPS among an hvcC's parameter-set arrays. 0 when the box is malformed.
static int ch_check_hvcc(ch_check *c, cs_span hvcc, int *nal_length) {
    if (hvcc.n < 23) return 0;
    *nal_length = (hvcc.p[21] & 3) + 1;
    cs_reader r = {hvcc, 22, 0};
    unsigned arrays = (unsigned)cs_read(&r, 1);
    for (unsigned a = 0; a < arrays && !r.bad; a++) {
        cs_skip(&r, 1);  // array_completeness, NAL unit type
        unsigned count = (unsigned)cs_read(&r, 2);
        for (unsigned k = 0; k < count && !r.bad; k++) {
            size_t n = (size_t)cs_read(&r, 2);
            if (cs_left(&r) < n) return 0;
            uint32_t w, h;
            if (n >= 2 && ((hvcc.p[r.at] >> 1) & 0x3f) == 33) {
                if (!ch_hevc_sps_size(hvcc.p + r.at, n, &w, &h)) return 0;
                ch_check_picture(c, w, h);
            }
            // Parameter sets only: a picture's slices here would be decoded with every
            // tile that shares the box (1,000 pictures in one hvcC, 256 tiles: 16 s).
            if (n >= 1 && ((hvcc.p[r.at] >> 1) & 0x3f) < 32) return 0;
            r.at += n;
        }
    }
    return !r.bad;
}

// Every SPS among an HEVC item's or sample's NAL units (`length`-byte sizes). 0 when a
// unit runs past the end.
static int ch_check_hevc_data(ch_check *c, const ch_item_data *d, int length) {
    uint8_t sps[256];
    for (uint64_t at = 0; at < d->length && c->code == CS_OK;) {
        uint8_t head[4];
        if (d->length - at < (uint64_t)length || ch_item_copy(d, at, head, (size_t)length) != (size_t)length) return 0;
        uint32_t n = 0;
        for (int i = 0; i < length; i++) n = n << 8 | head[i];
        at += (uint64_t)length;
        if (n > d->length - at) return 0;
        uint8_t head3[3];
        // A VCL unit (types 0-31) whose first_slice_segment_in_pic_flag is set starts a picture.
        if (n >= 3 && ch_item_copy(d, at, head3, 3) == 3 && ((head3[0] >> 1) & 0x3f) < 32 && (head3[2] & 0x80))
            c->pictures++;
        if (n >= 2 && ch_item_copy(d, at, sps, 1) == 1 && ((sps[0] >> 1) & 0x3f) == 33) {
            size_t got = ch_item_copy(d, at, sps, n < sizeof sps ? n : sizeof sps);
            uint32_t w, h;
            if (!ch_hevc_sps_size(sps, got, &w, &h)) return 0;
            ch_check_picture(c, w, h);
        }
        at += n;
    }
    return 1;
}

// Every sequence header among a run of AV1 OBUs (low-overhead format: each with a size
// field, or the last one running to the end). 0 when the OBUs are malformed.
static int ch_check_av1_data(ch_check *c, const ch_item_data *d) {
    uint8_t seq[1024];
    for (uint64_t at = 0; at < d->length && c->code == CS_OK;) {
        uint8_t head[10];
        size_t got = ch_item_copy(d, at, head, sizeof head);
        if (got < 1 || (head[0] & 0x80)) return 0;  // obu_forbidden_bit
        unsigned type = (head[0] >> 3) & 15;
        size_t header = (head[0] & 4) ? 2 : 1;      // obu_extension_flag
        uint64_t n;
        if (head[0] & 2) {                          // obu_has_size_field: leb128
            n = 0;
            size_t i = header;
            for (int shift = 0;; shift += 7, i++) {
                if (i >= got || shift > 56) return 0;
                n |= (uint64_t)(head[i] & 0x7f) << shift;
                if (!(head[i] & 0x80)) break;
            }
            header = i + 1;
        } else {
            if (got < header) return 0;
            n = d->length - at - header;
        }
        if (header > d->length - at || n > d->length - at - header) return 0;
        if (type == 1) {  // OBU_SEQUENCE_HEADER
            size_t take = (size_t)(n < sizeof seq ? n : sizeof seq);
            uint32_t w, h, idc;
            if (ch_item_copy(d, at + header, seq, take) != take || !ch_av1_sequence_size(seq, take, &w, &h, &idc))
                return 0;
            ch_check_picture(c, w, h);
            if (idc) c->op_idc = idc;
        }
        if (type == 3 || type == 6) c->frames++;  // OBU_FRAME_HEADER, OBU_FRAME
        at += header + n;
    }
    return 1;
}

int ch_av1_frames(const uint8_t *p, size_t n, uint32_t *frames, uint32_t *op_idc) {
    ch_check c = {UINT32_MAX, UINT32_MAX, 0, 1, UINT64_MAX, 0, 0, CS_OK, NULL, 0, "", 0, 0, 0};
    ch_extent e = {0, n, 0};
    ch_item_data d = {p, &e, 1, n};
    int ok = ch_check_av1_data(&c, &d);
    *frames = c.frames;
    *op_idc = c.op_idc;
    return ok;
}

// An av1C box: 4 bytes of fields, then configuration OBUs.
static int ch_check_av1c(ch_check *c, cs_span av1c) {
    if (av1c.n < 4) return 0;
    ch_extent e = {0, av1c.n - 4};
    ch_item_data d = {av1c.p + 4, &e, 1, av1c.n - 4};
    return ch_check_av1_data(c, &d);
}

// ---------------------------------------------------------------- items

typedef struct ch_item {
    uint32_t id, type;
    int construction;          // iloc construction_method (0 file, 1 idat)
    uint32_t first_extent, extents;
    uint64_t length;
    int located;               // it has an iloc entry
    uint32_t ispe_w, ispe_h;
    int has_ispe;
    cs_span hvcc, av1c;        // its codec configuration property, if any
    int alpha;                 // an auxC of the alpha kind
    int layered;               // a1op, a1lx or lsel: a layered AV1 picture (see ch_charge)
    int associated;            // it has an ipma entry
    unsigned transforms;       // irot 1, imir 2, clap 4: one of each
    uint32_t uses;             // how often the picture checked decodes it (a tile named twice: 2)
    int charging;              // ch_charge is under way for it (a cycle through alpha planes)
    uint32_t in_grid;          // how often the derived image being charged names it
    uint32_t first_ref, refs;  // its 'dimg' references (into refs)
    int state;                 // cycle search: 0 new, 1 on the path, 2 done
    uint64_t own;              // pixels of its own picture or canvas
    uint64_t charge;           // pixels its decoding allocates, inputs included (0: not yet counted)
    uint64_t decodes;          // codec runs its decoding takes (a grid's tiles, each use counted)
} ch_item;

typedef struct ch_ref {
    uint32_t type, from, to;   // item indices
    uint32_t sequence;         // the order read
} ch_ref;

typedef struct ch_meta {
    const uint8_t *file;
    size_t length;
    ch_item *items;
    uint32_t item_count;
    ch_extent *extents;
    uint32_t extent_count;
    ch_ref *refs;              // sorted by type == 'dimg' first, then as read
    uint32_t ref_count;
    uint32_t *dimg;            // each item's dimg targets, in order
    uint32_t dimg_count;
    // Each item's alpha images (auxl sources with an alpha auxC): alpha[alpha_start[i] ..
    // alpha_start[i + 1]). libheif decodes the alpha of every image it decodes.
    uint32_t *alpha, *alpha_start;
    cs_span idat;
    uint64_t max_pixels;
    unsigned codecs;
    uint64_t decodes;          // codec runs counted so far (ch_charge)
    char *why;
    size_t size;
} ch_meta;

int ch_fail_why(char *why, size_t size, int code, const char *message) {
    cs_format(why, size, "%s", message);
    return code;
}

static int ch_item_cmp(const void *a, const void *b) {
    uint32_t x = ((const ch_item *)a)->id, y = ((const ch_item *)b)->id;
    return x < y ? -1 : x > y;
}

// The index of the item with this id, or -1.
static long ch_find(const ch_meta *m, uint32_t id) {
    size_t lo = 0, hi = m->item_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->items[mid].id == id) return (long)mid;
        if (m->items[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

// iinf: every infe's id and type. Items are sorted by id afterwards; ids are unique.
static int ch_read_iinf(ch_meta *m, cs_span iinf) {
    cs_span body;
    int version;
    // libheif reads a 16-bit count for version 0, else 32 bits; libavif takes 0 and 1 only.
    if (!cs_full_box(iinf, &body, &version, NULL) || version > 1)
        return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'iinf'");
    size_t skip = version == 0 ? 2 : 4;
    cs_reader r = {body, 0, 0};
    uint64_t declared = cs_read(&r, skip);
    if (r.bad) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'iinf'");
    if (declared > CH_SCAN_MAX_ITEMS) {
        cs_format(m->why, m->size, "the file declares %llu items, more than %d", (unsigned long long)declared,
                  CH_SCAN_MAX_ITEMS);
        return CS_ERR_LIMIT;
    }
    // The entries counted first, so that the list is as long as the file needs (a batch of
    // small files allocates a few items each, not the limit's worth).
    size_t at = skip, entries = 0;
    cs_box box;
    int got;
    while ((got = ch_box_next(body, &at, &box)) == 1)
        if (box.type == FOURCC('i', 'n', 'f', 'e') && ++entries > CH_SCAN_MAX_ITEMS) {
            cs_format(m->why, m->size, "the file has more than %d items", CH_SCAN_MAX_ITEMS);
            return CS_ERR_LIMIT;
        }
    if (got < 0) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a box inside 'iinf' runs past its end");
    m->items = calloc(entries ? entries : 1, sizeof *m->items);
    if (!m->items) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    at = skip;
    while (ch_box_next(body, &at, &box) == 1) {
        if (box.type != FOURCC('i', 'n', 'f', 'e')) continue;
        cs_span infe;
        int v;
        // The item ID is 16 bits up to version 2 and 32 bits from 3 on in libheif (any
        // version), 2 and 3 only in libavif: a later version is refused (the third attack's
        // version 4, read with 16 bits here and 32 there, hid the primary).
        if (!cs_full_box(box.body, &infe, &v, NULL) || v > 3)
            return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'infe' (a version past 3)");
        cs_reader e = {infe, 0, 0};
        ch_item item = {0};
        item.id = (uint32_t)cs_read(&e, v >= 3 ? 4 : 2);
        cs_skip(&e, 2);  // item_protection_index
        if (v >= 2) item.type = (uint32_t)cs_read(&e, 4);
        if (e.bad) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'infe'");
        m->items[m->item_count++] = item;
    }
    qsort(m->items, m->item_count, sizeof *m->items, ch_item_cmp);
    for (uint32_t i = 1; i < m->item_count; i++)
        if (m->items[i].id == m->items[i - 1].id) {
            cs_format(m->why, m->size, "item %u is declared twice", m->items[i].id);
            return CS_ERR_CORRUPT;
        }
    return CS_OK;
}

static int ch_extent_cmp(const void *a, const void *b) {
    const ch_extent *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->length != y->length) return x->length < y->length ? -1 : 1;
    return x->owner < y->owner ? -1 : x->owner > y->owner;
}

// Items may share an extent whole (the layers of a layered image name the same data;
// Apple's multilayer AVIF, HEIF multilayer005), but no byte is in two extents otherwise,
// nor twice in one item, and all items together read at most CH_SCAN_READ_FACTOR times
// the file (libheif 1.15 reads every item's data while parsing: 32 overlapping extents an
// item made 300 items of 99 KB read 954 MB).
enum { CH_SCAN_READ_FACTOR = 8 };

// iloc: each item's extents, inside the file (or idat), at most CH_SCAN_MAX_EXTENTS an
// item, and no byte in two extents.
static int ch_read_iloc(ch_meta *m, cs_span iloc) {
    cs_span body;
    int version;
    if (!cs_full_box(iloc, &body, &version, NULL) || version > 2)
        return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'iloc'");
    cs_reader r = {body, 0, 0};
    unsigned sizes = (unsigned)cs_read(&r, 1), more = (unsigned)cs_read(&r, 1);
    size_t offset_size = sizes >> 4, length_size = sizes & 15, base_size = more >> 4;
    uint64_t count = cs_read(&r, version < 2 ? 2 : 4);
    if (r.bad) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'iloc'");
    // libheif 1.15 reads a field only when its size is 4 or 8 (another size reads nothing
    // and gives 0) and an extent's index only in version 2; libavif takes sizes 0, 1, 2, 4
    // and 8 and no index at all. Where they differ, the file is refused: the same bytes
    // would be two extent tables (the third attack's iloc).
    if (offset_size % 4 || length_size % 4 || base_size % 4 || offset_size > 8 || length_size > 8 || base_size > 8)
        return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "'iloc' field sizes other than 0, 4 or 8");
    if (version >= 1 && (more & 15) != 0)
        return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "an 'iloc' with extent indices");
    if (count > CH_SCAN_MAX_ITEMS) {
        cs_format(m->why, m->size, "'iloc' places %llu items, more than %d", (unsigned long long)count,
                  CH_SCAN_MAX_ITEMS);
        return CS_ERR_LIMIT;
    }
    m->extents = malloc((size_t)(count ? count : 1) * CH_SCAN_MAX_EXTENTS * sizeof *m->extents);
    if (!m->extents) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    size_t extent_capacity = (size_t)count * CH_SCAN_MAX_EXTENTS;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t id = (uint32_t)cs_read(&r, version < 2 ? 2 : 4);
        int construction = version >= 1 ? (int)(cs_read(&r, 2) & 15) : 0;
        uint64_t reference = cs_read(&r, 2);
        uint64_t base = cs_read(&r, base_size);
        uint64_t extents = cs_read(&r, 2);
        if (r.bad) return ch_fail_why(m->why, m->size, CS_ERR_TRUNCATED, "'iloc' ends early");
        if (extents > CH_SCAN_MAX_EXTENTS) {
            cs_format(m->why, m->size, "item %u has %llu extents, more than %d", id, (unsigned long long)extents,
                      CH_SCAN_MAX_EXTENTS);
            return CS_ERR_LIMIT;
        }
        long at = ch_find(m, id);
        ch_item *item = at >= 0 ? &m->items[at] : NULL;
        if (item && item->located) {
            cs_format(m->why, m->size, "item %u is placed twice in 'iloc'", id);
            return CS_ERR_CORRUPT;
        }
        if (construction > 1 || reference != 0) {
            // Data in another item or another file: libheif 1.15 reads neither.
            cs_format(m->why, m->size, "item %u's data is %s, which is not read", id,
                      reference ? "in another file" : "built from other items (construction method 2)");
            return CS_ERR_UNSUPPORTED;
        }
        if (item) {
            item->located = 1;
            item->construction = construction;
            item->first_extent = m->extent_count;
        }
        for (uint64_t k = 0; k < extents; k++) {
            uint64_t offset = cs_read(&r, offset_size), length = cs_read(&r, length_size);
            if (r.bad) return ch_fail_why(m->why, m->size, CS_ERR_TRUNCATED, "'iloc' ends early");
            // Where the extent lies in the file: idat's offset plus the offset, for method 1.
            uint64_t area_start = construction == 1 ? (uint64_t)(m->idat.p - m->file) : 0;
            uint64_t area_length = construction == 1 ? m->idat.n : m->length;
            if (construction == 1 && !m->idat.p)
                return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "an item's data is in 'idat', which is missing");
            if (base > area_length || offset > area_length - base) {
                cs_format(m->why, m->size, "item %u's data starts past the end of the %s (truncated)", id,
                          construction == 1 ? "'idat' box" : "file");
                return CS_ERR_TRUNCATED;
            }
            uint64_t start = base + offset;
            // ISO's "the whole of the data" is 0 bytes to both libraries (and was the whole
            // file here: a canvas read past the data libheif reads).
            if (length == 0) {
                cs_format(m->why, m->size, "item %u has an extent of length 0", id);
                return CS_ERR_CORRUPT;
            }
            if (length > area_length - start) {
                cs_format(m->why, m->size, "item %u's data runs past the end of the %s (truncated)", id,
                          construction == 1 ? "'idat' box" : "file");
                return CS_ERR_TRUNCATED;
            }
            if (m->extent_count >= extent_capacity)  // cannot happen: count items of at most 32
                return ch_fail_why(m->why, m->size, CS_ERR_LIMIT, "too many extents");
            m->extents[m->extent_count++] = (ch_extent){area_start + start, length, (uint32_t)i};
            if (item) {
                item->extents++;
                item->length += length;
            }
        }
    }
    size_t n = m->extent_count;
    ch_extent *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    memcpy(sorted, m->extents, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, ch_extent_cmp);
    int rc = CS_OK;
    uint64_t total = 0, end = 0;  // the end of the extents before the current one
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        const ch_extent *e = &sorted[i];
        total += e->length;  // each at most the file's length, at most 2^17 of them: no overflow
        int same = i > 0 && e->start == sorted[i - 1].start && e->length == sorted[i - 1].length;
        if (same && e->owner == sorted[i - 1].owner) {
            cs_format(m->why, m->size, "an item places bytes %llu to %llu twice in 'iloc'",
                      (unsigned long long)e->start, (unsigned long long)(e->start + e->length - 1));
            rc = CS_ERR_CORRUPT;
        } else if (!same && i > 0 && e->start < end) {
            cs_format(m->why, m->size, "items' data overlap in part (bytes %llu to %llu, in 'iloc')",
                      (unsigned long long)e->start, (unsigned long long)(end - 1));
            rc = CS_ERR_CORRUPT;
        }
        if (e->start + e->length > end) end = e->start + e->length;
    }
    if (rc == CS_OK && total > (uint64_t)CH_SCAN_READ_FACTOR * (m->length ? m->length : 1)) {
        cs_format(m->why, m->size, "the items share data %llu times over (%llu bytes read from a file of %zu)",
                  (unsigned long long)(total / m->length), (unsigned long long)total, m->length);
        rc = CS_ERR_LIMIT;
    }
    free(sorted);
    return rc;
}

// iref: references between items. Refused: an unknown item, an item naming itself. (A
// grid may name one tile twice, as HEIF conformance file C021 does: each use is charged.)
static int ch_read_iref(ch_meta *m, cs_span iref, uint32_t *ref_capacity) {
    cs_span body;
    int version;
    if (!cs_full_box(iref, &body, &version, NULL)) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'iref'");
    size_t id_size = version == 0 ? 2 : 4;
    size_t at = 0;
    cs_box box;
    int got;
    while ((got = ch_box_next(body, &at, &box)) == 1) {
        // libheif 1.15 and libavif 0.11 read the references one after another and never
        // use a reference box's size: a box longer than its list could hide another box
        // in its tail from the scan. So each box is exactly its list, with a plain header.
        const uint8_t *head = box.body.p - 8;
        uint32_t size = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (size < 8 || box.type == FOURCC('u', 'u', 'i', 'd') || size != box.body.n + 8)
            return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "an 'iref' reference box with an unusual header");
        cs_reader r = {box.body, 0, 0};
        uint32_t from_id = (uint32_t)cs_read(&r, id_size);
        uint32_t count = (uint32_t)cs_read(&r, 2);
        if (r.bad || cs_left(&r) != (size_t)count * id_size)
            return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "an 'iref' reference box whose size is not its list's");
        long from = ch_find(m, from_id);
        if (from < 0) {
            cs_format(m->why, m->size, "a reference from item %u, which does not exist", from_id);
            return CS_ERR_CORRUPT;
        }
        if (*ref_capacity - m->ref_count < count) {
            // Each reference is at least 2 bytes of the file: the file bounds the total.
            uint64_t want = (uint64_t)m->ref_count + count + 64;
            ch_ref *grown = realloc(m->refs, (size_t)want * sizeof *grown);
            if (!grown) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
            m->refs = grown;
            *ref_capacity = (uint32_t)want;
        }
        for (uint32_t k = 0; k < count; k++) {
            uint32_t to_id = (uint32_t)cs_read(&r, id_size);
            long to = ch_find(m, to_id);
            if (to < 0) {
                cs_format(m->why, m->size, "item %u refers to item %u, which does not exist", from_id, to_id);
                return CS_ERR_CORRUPT;
            }
            if (to == from) {
                cs_format(m->why, m->size, "item %u refers to itself", from_id);
                return CS_ERR_CORRUPT;
            }
            m->refs[m->ref_count] = (ch_ref){box.type, (uint32_t)from, (uint32_t)to, m->ref_count};
            m->ref_count++;
        }
    }
    if (got < 0) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a box inside 'iref' runs past its end");
    return CS_OK;
}

// iprp: each item's ispe, codec configuration and auxC, through ipma's associations.
static int ch_read_iprp(ch_meta *m, cs_span iprp) {
    cs_span ipco;
    int ipcos = ch_only_child(iprp, 0, FOURCC('i', 'p', 'c', 'o'), &ipco);
    if (ipcos < 0) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "two 'ipco' boxes (or a bad box in 'iprp')");
    if (ipcos == 0) return CS_OK;
    // The properties in order (1-based indices in ipma).
    enum { MAX_PROPERTIES = 65535 };
    size_t count = 0, at = 0;
    cs_box box;
    int got;
    while ((got = ch_box_next(ipco, &at, &box)) == 1) count++;
    if (got < 0) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a property box runs past 'ipco'");
    if (count > MAX_PROPERTIES) return ch_fail_why(m->why, m->size, CS_ERR_LIMIT, "too many properties");
    cs_box *properties = malloc((count ? count : 1) * sizeof *properties);
    if (!properties) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    at = 0;
    for (size_t i = 0; i < count; i++) ch_box_next(ipco, &at, &properties[i]);

    int rc = CS_OK, ipmas = 0;
    at = 0;
    while (rc == CS_OK && (got = ch_box_next(iprp, &at, &box)) == 1) {
        if (box.type != FOURCC('i', 'p', 'm', 'a')) continue;
        // libheif 1.15 reads one; so must the scan (a second could hide the first's hvcC).
        if (ipmas++) {
            rc = ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "two 'ipma' boxes");
            break;
        }
        cs_span body;
        int version;
        uint32_t flags;
        if (!cs_full_box(box.body, &body, &version, &flags)) {
            rc = ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a bad 'ipma'");
            break;
        }
        cs_reader r = {body, 0, 0};
        uint32_t entries = (uint32_t)cs_read(&r, 4);
        for (uint32_t e = 0; e < entries && !r.bad && rc == CS_OK; e++) {
            uint32_t id = (uint32_t)cs_read(&r, version < 1 ? 2 : 4);
            unsigned associations = (unsigned)cs_read(&r, 1);
            long index = ch_find(m, id);
            if (r.bad) break;
            // libavif makes an item of every ID it meets (a linear search each: entries for
            // items no infe declares were a quadratic cost); libheif ignores them.
            if (index < 0) {
                cs_format(m->why, m->size, "'ipma' lists properties of item %u, which 'iinf' does not declare", id);
                rc = CS_ERR_CORRUPT;
                break;
            }
            if (m->items[index].associated++) {
                cs_format(m->why, m->size, "item %u's properties are listed twice in 'ipma'", id);
                rc = CS_ERR_CORRUPT;
                break;
            }
            for (unsigned k = 0; k < associations && !r.bad; k++) {
                uint32_t p = (uint32_t)cs_read(&r, (flags & 1) ? 2 : 1) & ((flags & 1) ? 0x7fff : 0x7f);
                if (index < 0 || p == 0) continue;
                if (p > count) {
                    cs_format(m->why, m->size, "item %u has property %u of %zu", id, p, count);
                    rc = CS_ERR_CORRUPT;
                    break;
                }
                ch_item *item = &m->items[index];
                cs_box *prop = &properties[p - 1];
                cs_span payload;
                // One of each kind an item: which of two libheif takes, the scan cannot know.
                int twice = (prop->type == FOURCC('i', 's', 'p', 'e') && item->has_ispe) ||
                            (prop->type == FOURCC('h', 'v', 'c', 'C') && item->hvcc.p) ||
                            (prop->type == FOURCC('a', 'v', '1', 'C') && item->av1c.p);
                // libheif applies every rotation, mirror and crop associated, each a copy of
                // the picture (255 of them on each of 4096 tiles): one of each, as ISO says.
                unsigned transform = prop->type == FOURCC('i', 'r', 'o', 't')   ? 1
                                     : prop->type == FOURCC('i', 'm', 'i', 'r') ? 2
                                     : prop->type == FOURCC('c', 'l', 'a', 'p') ? 4
                                                                                : 0;
                if (transform && (item->transforms & transform)) twice = 1;
                item->transforms |= transform;
                if (twice) {
                    cs_format(m->why, m->size,
                              "item %u has two properties of one kind (size, codec configuration or transform)", id);
                    rc = CS_ERR_CORRUPT;
                    break;
                }
                if (prop->type == FOURCC('i', 's', 'p', 'e') && cs_full_box(prop->body, &payload, NULL, NULL) &&
                    payload.n >= 8) {
                    cs_reader s = {payload, 0, 0};
                    item->ispe_w = (uint32_t)cs_read(&s, 4);
                    item->ispe_h = (uint32_t)cs_read(&s, 4);
                    item->has_ispe = 1;
                } else if (prop->type == FOURCC('h', 'v', 'c', 'C')) {
                    item->hvcc = prop->body;
                } else if (prop->type == FOURCC('a', 'v', '1', 'C')) {
                    item->av1c = prop->body;
                } else if (prop->type == FOURCC('a', '1', 'o', 'p') || prop->type == FOURCC('a', '1', 'l', 'x') ||
                           prop->type == FOURCC('l', 's', 'e', 'l')) {
                    item->layered = 1;
                } else if (prop->type == FOURCC('a', 'u', 'x', 'C') && cs_full_box(prop->body, &payload, NULL, NULL)) {
                    // aux_type: a URN, NUL-terminated. HEVC's and MPEG-B's alpha URNs.
                    static const char *const alpha[] = {"urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:avc:2015:auxid:1",
                                                        "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"};
                    for (size_t a = 0; a < 3; a++) {
                        size_t n = strlen(alpha[a]);
                        if (payload.n >= n && memcmp(payload.p, alpha[a], n) == 0) item->alpha = 1;
                    }
                }
            }
        }
        if (r.bad && rc == CS_OK) rc = ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "'ipma' ends early");
    }
    if (got < 0 && rc == CS_OK) rc = ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "a box inside 'iprp' runs past its end");
    free(properties);
    return rc;
}

// References a decoder follows to make a picture: a derived image's inputs, an image's
// alpha or depth, a thumbnail's master, a base image. ('prem' goes from an image to its
// alpha, against 'auxl': together they are a cycle of no consequence; 'cdsc' ties
// metadata to its image.)
static int ch_follows(uint32_t type) {
    return type == FOURCC('d', 'i', 'm', 'g') || type == FOURCC('a', 'u', 'x', 'l') ||
           type == FOURCC('t', 'h', 'm', 'b') || type == FOURCC('b', 'a', 's', 'e');
}

// Depth-first search over those references: a cycle is refused (libheif 1.15 recurses).
// Each reference is followed once: time linear in the references.
static int ch_find_cycle(ch_meta *m, uint32_t start, uint32_t *stack, uint32_t *next_ref) {
    // An explicit stack: the chain of references may be as long as the item list.
    size_t depth = 0;
    stack[depth] = start;
    next_ref[depth] = m->items[start].first_ref;
    m->items[start].state = 1;
    while (1) {
        uint32_t item = stack[depth];
        uint32_t k = next_ref[depth];  // the item's next reference (they are together, sorted)
        if (k >= m->items[item].first_ref + m->items[item].refs) {
            m->items[item].state = 2;
            if (depth == 0) return CS_OK;
            depth--;
            continue;
        }
        next_ref[depth] = k + 1;
        if (!ch_follows(m->refs[k].type)) continue;
        uint32_t to = m->refs[k].to;
        if (m->items[to].state == 1) {
            cs_format(m->why, m->size, "the references of items %u and %u form a cycle", m->items[item].id,
                      m->items[to].id);
            return CS_ERR_CORRUPT;
        }
        if (m->items[to].state == 0) {
            m->items[to].state = 1;
            depth++;
            stack[depth] = to;
            next_ref[depth] = m->items[to].first_ref;
        }
    }
}

static int ch_ref_cmp(const void *a, const void *b) {
    const ch_ref *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

static int ch_is_coded(uint32_t type) {
    return type == FOURCC('h', 'v', 'c', '1') || type == FOURCC('a', 'v', '0', '1');
}

static int ch_is_derived(uint32_t type) {
    return type == FOURCC('g', 'r', 'i', 'd') || type == FOURCC('i', 'o', 'v', 'l') ||
           type == FOURCC('i', 'd', 'e', 'n');
}

static uint64_t ch_add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// The pixels decoding item `index` allocates: a coded picture's declared (or codec) size,
// a derived image's canvas plus all its inputs. Refuses a size over the limit or a codec
// picture larger than declared: CS_OK with *out, or a CH_ERR_* with m->why.
static int ch_charge(ch_meta *m, uint32_t index, uint64_t *out, int depth) {
    ch_item *item = &m->items[index];
    item->uses++;
    if (item->charge) {
        *out = item->charge;
        m->decodes = ch_add_sat(m->decodes, item->decodes);
        return CS_OK;
    }
    if (item->charging) {
        cs_format(m->why, m->size, "item %u's picture needs itself (through alpha planes and derived images)", item->id);
        return CS_ERR_CORRUPT;
    }
    uint64_t decodes_before = m->decodes;
    if (depth > 64) return ch_fail_why(m->why, m->size, CS_ERR_CORRUPT, "derived images nest too deeply");
    if (!item->has_ispe || item->ispe_w == 0 || item->ispe_h == 0) {
        cs_format(m->why, m->size, "image item %u has no size ('ispe' missing or zero)", item->id);
        return CS_ERR_CORRUPT;
    }
    uint64_t area = (uint64_t)item->ispe_w * item->ispe_h;
    if (area > m->max_pixels) {
        cs_format(m->why, m->size, "image item %u is %ux%u, over the limit of %llu pixels", item->id, item->ispe_w,
                  item->ispe_h, (unsigned long long)m->max_pixels);
        return CS_ERR_LIMIT;
    }
    ch_item_data data = {m->file, m->extents + item->first_extent, item->extents, item->length};
    uint64_t own = area, inputs = 0;
    if (ch_is_coded(item->type)) {
        int hevc = item->type == FOURCC('h', 'v', 'c', '1');
        if (!(m->codecs & (hevc ? CH_CODEC_HEVC : CH_CODEC_AV1))) {
            cs_format(m->why, m->size, "it holds %s-coded images, which are not allowed here", hevc ? "HEVC (HEIC)" : "AV1 (AVIF)");
            return CS_ERR_UNSUPPORTED;
        }
        ch_check c = {item->ispe_w, item->ispe_h, hevc ? 64 : 128, hevc ? 1 : 2, m->max_pixels, 0, 0, CS_OK, m->why,
                      m->size, hevc ? "the HEVC SPS" : "the AV1 sequence header"};
        // A layered AV1 image (spatial layers, an operating point) declares the size of the
        // layer shown, while its sequence header gives the largest layer's: only the pixel
        // limit applies to it (AOMediaCodec's Xiph/quebec_3layer_op2.avif).
        if (item->layered) c.declared_w = c.declared_h = UINT32_MAX;
        int ok = 1, nal_length = 4;
        if (hevc) {
            if (!item->hvcc.p) {
                cs_format(m->why, m->size, "HEVC item %u has no 'hvcC'", item->id);
                return CS_ERR_CORRUPT;
            }
            // An item's NAL units have 4-byte lengths whatever its hvcC says: so libheif
            // and catctl's plugin read them (with 1-byte ones, the scan read other units).
            ok = ch_check_hvcc(&c, item->hvcc, &nal_length) && (c.code != CS_OK || ch_check_hevc_data(&c, &data, 4));
        } else {
            ok = (!item->av1c.p || ch_check_av1c(&c, item->av1c)) && (c.code != CS_OK || ch_check_av1_data(&c, &data));
        }
        if (c.code != CS_OK) return c.code;
        if (!ok) {
            cs_format(m->why, m->size, "image item %u's %s data is malformed", item->id, hevc ? "HEVC" : "AV1");
            return CS_ERR_CORRUPT;
        }
        // One picture an item: a decoder decodes every one it is given, and libheif shows
        // the last (1,000 pictures of 4096x4096 in 173 KB: 26 s). An AV1 item decodes one
        // frame, or one a layer (AVIF has at most 4), and only with an operating point
        // that is all of it: another hides its lower layers' frames, decoded and never shown.
        const char *many = NULL;
        if (hevc && c.pictures > 1) many = "more than one HEVC picture";
        if (!hevc && c.frames > (item->layered ? 4u : 1u)) many = "more frames than an AV1 image has";
        if (!hevc && !item->layered && c.op_idc) many = "an AV1 operating point that hides frames";
        if (many) {
            cs_format(m->why, m->size, "image item %u holds %s", item->id, many);
            return CS_ERR_CORRUPT;
        }
        uint64_t coded = (uint64_t)c.largest_w * c.largest_h;
        if (coded > own) own = coded;
        m->decodes++;
    } else if (ch_is_derived(item->type)) {
        if (item->type != FOURCC('i', 'd', 'e', 'n')) {
            // The canvas size is in the payload: grid 8 or 12 bytes, iovl 12 or 20 after
            // the fill colour. libheif allocates it, whatever 'ispe' says.
            uint8_t head[20];
            size_t got = ch_item_copy(&data, 0, head, sizeof head);
            int grid = item->type == FOURCC('g', 'r', 'i', 'd');
            size_t at = grid ? 4 : 10;
            int wide = got >= 2 && (head[1] & 1);
            if (got < at + (wide ? 8 : 4)) {
                cs_format(m->why, m->size, "derived image item %u's description is cut short", item->id);
                return CS_ERR_CORRUPT;
            }
            uint32_t w = 0, h = 0;
            for (int i = 0; i < (wide ? 4 : 2); i++) w = w << 8 | head[at + (size_t)i];
            for (int i = 0; i < (wide ? 4 : 2); i++) h = h << 8 | head[at + (size_t)(wide ? 4 : 2) + (size_t)i];
            if ((uint64_t)w * h > m->max_pixels) {
                cs_format(m->why, m->size, "image item %u's canvas is %ux%u, over the limit of %llu pixels", item->id, w,
                          h, (unsigned long long)m->max_pixels);
                return CS_ERR_LIMIT;
            }
            // The canvas may exceed 'ispe' by one coding block (a padded tile), no more.
            if (w > (uint64_t)item->ispe_w + 128 || h > (uint64_t)item->ispe_h + 128) {
                cs_format(m->why, m->size, "image item %u's canvas is %ux%u, larger than its declared %ux%u", item->id,
                          w, h, item->ispe_w, item->ispe_h);
                return CS_ERR_CORRUPT;
            }
            if ((uint64_t)w * h > own) own = (uint64_t)w * h;
            // A grid's tiles cover its canvas: libheif 1.15 does not clear the canvas, so a
            // cell no tile fills shows whatever the memory held (another file's pixels, in a
            // batch). rows x columns tiles, none rotated, mirrored or cropped.
            if (grid) {
                uint32_t rows = (uint32_t)head[2] + 1, columns = (uint32_t)head[3] + 1, tiles = 0;
                const ch_item *tile = NULL;
                for (uint32_t k = item->first_ref; k < item->first_ref + item->refs; k++) {
                    if (m->refs[k].type != FOURCC('d', 'i', 'm', 'g')) continue;
                    tiles++;
                    if (!tile) tile = &m->items[m->refs[k].to];
                    if (m->items[m->refs[k].to].transforms) tile = NULL, tiles = UINT32_MAX;
                    if (tiles == UINT32_MAX) break;
                }
                if (!tile || tiles != rows * columns || (uint64_t)tile->ispe_w * columns < w ||
                    (uint64_t)tile->ispe_h * rows < h) {
                    cs_format(m->why, m->size, "grid item %u's tiles do not cover its %ux%u canvas", item->id, w, h);
                    return CS_ERR_CORRUPT;
                }
            }
        }
        // A grid's tiles share one size (libheif places them by the first's), and none is
        // named more than CH_SCAN_MAX_REPEATS times: libheif decodes a tile as often as it
        // is named (one 152x152 tile named 4,096 times made a 9728x9728 canvas).
        int repeated = 0, unequal = 0;
        const ch_item *first_tile = NULL;
        for (uint32_t k = item->first_ref; k < item->first_ref + item->refs; k++) {
            if (m->refs[k].type != FOURCC('d', 'i', 'm', 'g')) continue;
            ch_item *tile = &m->items[m->refs[k].to];
            if (++tile->in_grid > CH_SCAN_MAX_REPEATS) repeated = 1;
            if (!first_tile) first_tile = tile;
            else if (tile->ispe_w != first_tile->ispe_w || tile->ispe_h != first_tile->ispe_h) unequal = 1;
        }
        for (uint32_t k = item->first_ref; k < item->first_ref + item->refs; k++) m->items[m->refs[k].to].in_grid = 0;
        if (repeated) {
            cs_format(m->why, m->size, "derived image item %u names one input more than %d times", item->id,
                      CH_SCAN_MAX_REPEATS);
            return CS_ERR_LIMIT;
        }
        if (unequal && item->type == FOURCC('g', 'r', 'i', 'd')) {
            cs_format(m->why, m->size, "grid item %u's tiles are not all of one size", item->id);
            return CS_ERR_CORRUPT;
        }
        for (uint32_t k = item->first_ref; k < item->first_ref + item->refs; k++) {
            if (m->refs[k].type != FOURCC('d', 'i', 'm', 'g')) continue;
            uint64_t input = 0;
            int rc = ch_charge(m, m->refs[k].to, &input, depth + 1);
            if (rc != CS_OK) return rc;
            inputs = ch_add_sat(inputs, input);
            if (m->decodes > CH_SCAN_MAX_DECODES) {
                cs_format(m->why, m->size, "image item %u takes more than %d decodes of its inputs (grid tiles)",
                          item->id, CH_SCAN_MAX_DECODES);
                return CS_ERR_LIMIT;
            }
        }
    }
    // Its alpha planes, decoded with it (a tile's too: libheif does it for every image),
    // each checked on its own as the image is (not counted among a grid's tiles).
    item->charging = 1;
    for (uint32_t k = m->alpha_start[index]; k < m->alpha_start[index + 1]; k++) {
        uint64_t alpha = 0;
        int rc = ch_charge(m, m->alpha[k], &alpha, depth + 1);
        if (rc != CS_OK) return rc;
    }
    item = &m->items[index];
    item->charging = 0;
    item->own = own;
    item->decodes = m->decodes - decodes_before;
    item->charge = ch_add_sat(own, inputs);
    *out = item->charge;
    return CS_OK;
}

// The alpha images of every item (see ch_meta.alpha), from the auxl references.
static int ch_index_alpha(ch_meta *m) {
    m->alpha_start = calloc((size_t)m->item_count + 1, sizeof *m->alpha_start);
    m->alpha = malloc(((size_t)m->ref_count + 1) * sizeof *m->alpha);
    if (!m->alpha_start || !m->alpha) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < m->ref_count; k++)
        if (m->refs[k].type == FOURCC('a', 'u', 'x', 'l') && m->items[m->refs[k].from].alpha)
            m->alpha_start[m->refs[k].to + 1]++;
    for (uint32_t i = 0; i < m->item_count; i++) m->alpha_start[i + 1] += m->alpha_start[i];
    uint32_t *fill = calloc((size_t)m->item_count + 1, sizeof *fill);
    if (!fill) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < m->ref_count; k++)
        if (m->refs[k].type == FOURCC('a', 'u', 'x', 'l') && m->items[m->refs[k].from].alpha) {
            uint32_t to = m->refs[k].to;
            m->alpha[m->alpha_start[to] + fill[to]++] = m->refs[k].from;
        }
    free(fill);
    return CS_OK;
}

// The decoded images (the primary, its alpha) must fit the limit, tiles and all.
static int ch_check_decoded(ch_meta *m, uint32_t primary) {
    // The primary, then each auxiliary image of it: libheif decodes an alpha one (of one of
    // three URNs, and which of several it takes is its own affair), so all are checked.
    for (uint32_t k = 0; k <= m->ref_count; k++) {
        uint32_t image = primary;
        if (k < m->ref_count) {
            if (m->refs[k].to != primary || m->refs[k].type != FOURCC('a', 'u', 'x', 'l')) continue;
            image = m->refs[k].from;
            if (m->items[image].alpha) continue;  // charged with the primary
            if (!ch_is_coded(m->items[image].type) && !ch_is_derived(m->items[image].type)) continue;
        }
        uint64_t charge = 0;
        m->decodes = 0;
        int rc = ch_charge(m, image, &charge, 0);
        if (rc != CS_OK) return rc;
        // Its own canvas was checked in ch_charge; its inputs (a grid's tiles, each named
        // once, outside the canvas too) may together have the pixel limit again.
        const ch_item *item = &m->items[image];
        if (charge - item->own > m->max_pixels) {
            cs_format(m->why, m->size,
                      "image item %u's inputs (e.g. grid tiles) have %llu pixels together, over the limit of %llu",
                      item->id, (unsigned long long)(charge - item->own), (unsigned long long)m->max_pixels);
            return CS_ERR_LIMIT;
        }
    }
    return CS_OK;
}

// What libheif 1.15 pushes to a decoder plugin for a coded item (heif_expect.h): the
// hvcC's NAL units (empty ones left out) each with a 4-byte length, or the av1C's OBUs;
// then the item's extents in iloc order. Its hash and length into *e.
static void ch_push_hash(const ch_meta *m, const ch_item *item, ch_expect *e) {
    ch_hash h;
    ch_hash_begin(&h);
    if (item->type == FOURCC('h', 'v', 'c', '1') && item->hvcc.n >= 23) {
        cs_reader r = {item->hvcc, 22, 0};
        unsigned arrays = (unsigned)cs_read(&r, 1);
        for (unsigned a = 0; a < arrays && !r.bad; a++) {
            cs_skip(&r, 1);
            unsigned count = (unsigned)cs_read(&r, 2);
            for (unsigned k = 0; k < count && !r.bad; k++) {
                size_t n = (size_t)cs_read(&r, 2);
                if (r.bad || n == 0 || cs_left(&r) < n) continue;
                const uint8_t size[4] = {0, 0, (uint8_t)(n >> 8), (uint8_t)n};
                ch_hash_add(&h, size, 4);
                ch_hash_add(&h, item->hvcc.p + r.at, n);
                r.at += n;
            }
        }
    } else if (item->type == FOURCC('a', 'v', '0', '1') && item->av1c.n >= 4) {
        ch_hash_add(&h, item->av1c.p + 4, item->av1c.n - 4);
    }
    for (uint32_t k = 0; k < item->extents; k++) {
        const ch_extent *x = &m->extents[item->first_extent + k];
        ch_hash_add(&h, m->file + x->start, (size_t)x->length);
    }
    e->length = h.total;
    e->hash = ch_hash_end(&h);
}

// The expectations of the coded items the picture checked (each as often as it is used).
static int ch_list_expectations(ch_meta *m, ch_scan_result *result) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < m->item_count; i++) count += m->items[i].uses > 0 && ch_is_coded(m->items[i].type);
    if (count == 0) return CS_OK;
    result->expect = calloc(count, sizeof *result->expect);
    if (!result->expect) return ch_fail_why(m->why, m->size, CS_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < m->item_count; i++) {
        const ch_item *item = &m->items[i];
        if (!item->uses || !ch_is_coded(item->type)) continue;
        ch_expect *e = &result->expect[result->expect_count++];
        ch_push_hash(m, item, e);
        e->codec = item->type == FOURCC('h', 'v', 'c', '1') ? CH_EXPECT_HEVC : CH_EXPECT_AV1;
        e->item = item->id;
        e->width = e->cap_width = item->layered ? UINT32_MAX : item->ispe_w;
        e->height = e->cap_height = item->layered ? UINT32_MAX : item->ispe_h;
        e->uses = item->uses;
        e->max_pixels = m->max_pixels;
    }
    return CS_OK;
}

void ch_scan_result_free(ch_scan_result *result) {
    if (!result) return;
    free(result->expect);
    result->expect = NULL;
    result->expect_count = 0;
}

// Metadata items over the budget (their data is read by libheif while parsing, bounded
// by the file since no extents overlap; they are then left out).
static void ch_check_metadata(ch_meta *m, ch_scan_result *result) {
    for (uint32_t i = 0; i < m->item_count; i++) {
        const ch_item *item = &m->items[i];
        if (item->length <= CS_METADATA_BUDGET) continue;
        if (item->type == FOURCC('E', 'x', 'i', 'f')) result->exif_dropped = item->length;
        if (item->type == FOURCC('m', 'i', 'm', 'e')) result->xmp_dropped = item->length;
    }
}

// A 'meta' box: its items, extents, references and properties read as the libraries read
// them, every bound checked; then, unless `in_track`, the primary's picture (ch_check_decoded)
// and its expectations. A track's own 'meta' (libavif 0.11 parses every one, making items
// of every ID it meets and merging the Exif and XMP ones) is held to the same bounds.
// What ch_scan_report holds, from a read 'meta' (the references sorted by item).
static void ch_report(const ch_meta *m, long primary, ch_scan_report *report) {
    if (!report || primary < 0) return;
    const ch_item *p = &m->items[primary];
    report->has_primary = 1;
    report->primary = p->id;
    report->primary_type = p->type;
    report->ispe_w = p->ispe_w;
    report->ispe_h = p->ispe_h;
    report->primary_start = UINT64_MAX;
    for (uint32_t k = 0; k < p->extents; k++) {
        const ch_extent *x = &m->extents[p->first_extent + k];
        if (x->start < report->primary_start) report->primary_start = x->start;
        if (x->start + x->length > report->primary_end) report->primary_end = x->start + x->length;
    }
    if (p->extents == 0) report->primary_start = 0;
    for (uint32_t k = 0; k < m->ref_count; k++) {
        const ch_ref *r = &m->refs[k];
        if (r->to != (uint32_t)primary) continue;
        if (r->type == FOURCC('t', 'h', 'm', 'b')) {
            if (report->thumb_count < CH_REPORT_MAX) report->thumbs[report->thumb_count++] = m->items[r->from].id;
            else report->cut = 1;
        } else if (r->type == FOURCC('c', 'd', 's', 'c')) {
            if (report->meta_count < CH_REPORT_MAX) {
                report->metas[report->meta_count] = m->items[r->from].id;
                report->meta_lengths[report->meta_count++] = m->items[r->from].length;
            } else {
                report->cut = 1;
            }
        }
    }
    report->alpha = m->alpha_start[primary + 1] > m->alpha_start[primary];
}

static int ch_scan_meta(const uint8_t *data, size_t length, cs_span meta, uint64_t max_pixels, unsigned codecs,
                        ch_scan_result *result, ch_scan_report *report, char *why, size_t size, int in_track) {
    cs_span body;
    if (!cs_full_box(meta, &body, NULL, NULL)) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad 'meta' box");
    ch_meta m = {0};
    m.file = data;
    m.length = length;
    m.max_pixels = max_pixels;
    m.codecs = codecs;
    m.why = why;
    m.size = size;
    cs_span pitm = {0}, iloc = {0}, iinf = {0}, iref = {0}, iprp = {0};
    int has_pitm = 0, has_iloc = 0, has_iinf = 0, has_iref = 0, has_iprp = 0, got;
    size_t at = 0;
    cs_box box;
    // Each of these at most once: libheif reads the first, and a scan that read another
    // would check what is not decoded (a harmless second 'iref' hid a grid naming itself).
    int has_idat = 0, *seen = NULL;
    while ((got = ch_box_next(body, &at, &box)) == 1) {
        switch (box.type) {
        case FOURCC('p', 'i', 't', 'm'): pitm = box.body, seen = &has_pitm; break;
        case FOURCC('i', 'l', 'o', 'c'): iloc = box.body, seen = &has_iloc; break;
        case FOURCC('i', 'i', 'n', 'f'): iinf = box.body, seen = &has_iinf; break;
        case FOURCC('i', 'r', 'e', 'f'): iref = box.body, seen = &has_iref; break;
        case FOURCC('i', 'p', 'r', 'p'): iprp = box.body, seen = &has_iprp; break;
        case FOURCC('i', 'd', 'a', 't'): m.idat = box.body, seen = &has_idat; break;
        default: seen = NULL; break;
        }
        if (seen && (*seen)++) {
            char name[5] = {(char)(box.type >> 24), (char)(box.type >> 16), (char)(box.type >> 8), (char)box.type, 0};
            cs_format(why, size, "two '%s' boxes in 'meta'", name);
            return CS_ERR_CORRUPT;
        }
    }
    if (got < 0) return ch_fail_why(why, size, CS_ERR_TRUNCATED, "a box inside 'meta' runs past its end (truncated)");
    if (!in_track && (!has_iinf || !has_iloc || !has_pitm)) return CS_OK;  // libheif names what is missing

    uint32_t ref_capacity = 0;
    int rc = has_iinf ? ch_read_iinf(&m, iinf) : CS_OK;
    if (rc == CS_OK && has_iloc) rc = ch_read_iloc(&m, iloc);
    if (rc == CS_OK && has_iref) rc = ch_read_iref(&m, iref, &ref_capacity);
    if (rc == CS_OK && has_iprp) rc = ch_read_iprp(&m, iprp);
    if (rc == CS_OK && m.ref_count > 0) {
        // Each item's references together (in the order read: the sequence number breaks ties).
        qsort(m.refs, m.ref_count, sizeof *m.refs, ch_ref_cmp);
        for (uint32_t k = 0; k < m.ref_count; k++) {
            ch_item *from = &m.items[m.refs[k].from];
            if (from->refs++ == 0) from->first_ref = k;
        }
    }
    if (rc == CS_OK) rc = ch_index_alpha(&m);
    uint32_t *stack = NULL, *next_ref = NULL;
    if (rc == CS_OK) {
        stack = malloc((m.item_count + 1) * sizeof *stack);
        next_ref = malloc((m.item_count + 1) * sizeof *next_ref);
        if (!stack || !next_ref) rc = ch_fail_why(why, size, CS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; rc == CS_OK && i < m.item_count; i++)
        if (m.items[i].state == 0) rc = ch_find_cycle(&m, i, stack, next_ref);
    free(stack);
    free(next_ref);
    if (rc == CS_OK && !in_track) {
        int version = 0;
        cs_span p;
        cs_full_box(pitm, &p, &version, NULL);
        cs_reader r = {p, 0, 0};
        uint32_t primary_id = (uint32_t)cs_read(&r, version == 0 ? 2 : 4);
        long primary = r.bad ? -1 : ch_find(&m, primary_id);
        if (primary >= 0) result->width = m.items[primary].ispe_w, result->height = m.items[primary].ispe_h;
        ch_report(&m, primary, report);
        // A missing primary item is libheif's to name.
        if (!r.bad && primary >= 0 && (ch_is_coded(m.items[primary].type) || ch_is_derived(m.items[primary].type)))
            rc = ch_check_decoded(&m, (uint32_t)primary);
        if (rc == CS_OK) rc = ch_list_expectations(&m, result);
    }
    if (rc == CS_OK && !in_track) ch_check_metadata(&m, result);
    free(m.items);
    free(m.extents);
    free(m.refs);
    free(m.alpha);
    free(m.alpha_start);
    return rc;
}

// ---------------------------------------------------------------- tracks

static int ch_sample_cmp(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;  // pairs: offset, size
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

// One full box of version 0, the only child of its type in `stbl`: 1 with *body, 0 when
// there is none, or a CH_ERR_* (a second one, another version: libavif 0.11 appends the
// entries of every one of them, the scan could then check other samples than it decodes).
static int ch_table(cs_span stbl, uint32_t type, cs_span *body, const char *name, char *why, size_t size) {
    cs_span box;
    int n = ch_only_child(stbl, 0, type, &box), version = 0;
    if (n < 0) {
        cs_format(why, size, "a track has two '%s' boxes (or a bad box beside it)", name);
        return CS_ERR_CORRUPT;
    }
    if (n == 0) return 0;
    if (!cs_full_box(box, body, &version, NULL) || version != 0) {
        cs_format(why, size, "a bad '%s' box", name);
        return CS_ERR_CORRUPT;
    }
    return 1;
}

// The sample tables of one track's 'stbl' (see ch_track), made as libavif 0.11 makes them
// (avifCodecDecodeInputFillFromSampleTable): for every chunk of the chunk offsets, as many
// samples as the last sample-to-chunk entry at or before it says, each the fixed size or
// the next listed one. Where libavif would read the tables otherwise than their own words
// say, the file is refused: a sample count other than the chunks', several tables of one
// kind (libavif appends them), a version other than 0.
static int ch_tables(ch_track *t, const uint8_t *data, size_t length, cs_span stbl, uint32_t max_frames, char *why,
                     size_t size) {
    cs_span stsz, stco, co64, stsc, stts;
    int rc, has_stco, has_co64, has_stts;
    if ((rc = ch_table(stbl, FOURCC('s', 't', 's', 'z'), &stsz, "stsz", why, size)) < 0) return rc;
    if (rc == 0 || stsz.n < 8) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has no sample sizes ('stsz')");
    if ((has_stco = ch_table(stbl, FOURCC('s', 't', 'c', 'o'), &stco, "stco", why, size)) < 0) return has_stco;
    if ((has_co64 = ch_table(stbl, FOURCC('c', 'o', '6', '4'), &co64, "co64", why, size)) < 0) return has_co64;
    if (has_stco && has_co64) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has both 'stco' and 'co64'");
    if (!has_stco && !has_co64) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has no chunk offsets");
    if ((rc = ch_table(stbl, FOURCC('s', 't', 's', 'c'), &stsc, "stsc", why, size)) < 0) return rc;
    if (rc == 0 || stsc.n < 4)
        return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has no sample-to-chunk table ('stsc')");
    if ((has_stts = ch_table(stbl, FOURCC('s', 't', 't', 's'), &stts, "stts", why, size)) < 0) return has_stts;
    cs_span ignored;
    if ((rc = ch_table(stbl, FOURCC('s', 't', 's', 's'), &ignored, "stss", why, size)) < 0) return rc;

    int wide = has_co64;
    cs_span offsets_box = wide ? co64 : stco;
    cs_reader chunks_reader = {offsets_box, 0, 0};
    uint32_t chunks = (uint32_t)cs_read(&chunks_reader, 4);
    if (chunks_reader.bad || chunks == 0 || (offsets_box.n - 4) / (wide ? 8 : 4) < chunks)
        return ch_fail_why(why, size, CS_ERR_TRUNCATED, "the chunk offsets end early");
    cs_reader runs_reader = {stsc, 0, 0};
    uint32_t runs = (uint32_t)cs_read(&runs_reader, 4);
    if (runs == 0 || (stsc.n - 4) / 12 < runs)
        return ch_fail_why(why, size, CS_ERR_TRUNCATED, "the sample-to-chunk table ends early");
    // Entries start at chunk 1 and go up (libavif checks it too); each chunk then takes
    // the last entry at or before it, which is the run it is in.
    uint64_t total = 0;
    for (uint32_t run = 0; run < runs; run++) {
        cs_reader e = {stsc, 4 + 12 * (size_t)run, 0};
        uint32_t first = (uint32_t)cs_read(&e, 4), per = (uint32_t)cs_read(&e, 4);
        uint32_t next_first = chunks + 1;
        if (run + 1 < runs) {
            cs_reader n = {stsc, 4 + 12 * (size_t)(run + 1), 0};
            next_first = (uint32_t)cs_read(&n, 4);
        }
        if ((run == 0 && first != 1) || next_first <= first || per == 0)
            return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad sample-to-chunk entry");
        if (first > chunks) break;  // entries past the last chunk name no chunk
        uint64_t last = next_first - 1 < chunks ? next_first - 1 : chunks;
        total += (last - first + 1) * (uint64_t)per;
        if (total > max_frames) break;
    }
    cs_reader sizes_reader = {stsz, 0, 0};
    uint32_t fixed = (uint32_t)cs_read(&sizes_reader, 4), count = (uint32_t)cs_read(&sizes_reader, 4);
    if (total > max_frames || count > max_frames) {
        uint64_t n = total > count ? total : count;
        cs_format(why, size, "a track has %llu frames, over the limit of %u", (unsigned long long)n, max_frames);
        t->count = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        return CS_ERR_LIMIT;
    }
    if (count == 0) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has no samples");
    // libavif makes the chunks' samples and reads sample_count only to list the sizes.
    if (total != count) {
        cs_format(why, size, "a track's chunks hold %llu samples, its sample sizes %u", (unsigned long long)total,
                  count);
        return CS_ERR_CORRUPT;
    }
    if (fixed == 0 && (stsz.n - 8) / 4 < count)
        return ch_fail_why(why, size, CS_ERR_TRUNCATED, "the sample sizes end early ('stsz')");
    t->count = count;
    t->sizes = calloc(count, sizeof *t->sizes);
    t->offsets = calloc(count, sizeof *t->offsets);
    t->durations = calloc(count, sizeof *t->durations);
    if (!t->sizes || !t->offsets || !t->durations) return ch_fail_why(why, size, CS_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        t->sizes[i] = fixed ? fixed : (uint32_t)cs_read(&sizes_reader, 4);
        if (t->sizes[i] == 0) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a sample of size 0");  // libavif too
    }
    const uint8_t *offsets = offsets_box.p + 4;
    uint32_t sample = 0;
    for (uint32_t run = 0; run < runs && sample < count; run++) {
        cs_reader e = {stsc, 4 + 12 * (size_t)run, 0};
        uint32_t first = (uint32_t)cs_read(&e, 4), per = (uint32_t)cs_read(&e, 4);
        uint32_t last = chunks;
        if (run + 1 < runs) {
            cs_reader n = {stsc, 4 + 12 * (size_t)(run + 1), 0};
            uint32_t next = (uint32_t)cs_read(&n, 4) - 1;
            if (next < last) last = next;
        }
        for (uint32_t c = first; c <= last && sample < count; c++) {
            cs_reader o = {{offsets, (size_t)chunks * (wide ? 8 : 4)}, (size_t)(c - 1) * (wide ? 8 : 4), 0};
            uint64_t at = cs_read(&o, wide ? 8 : 4);
            for (uint32_t k = 0; k < per && sample < count; k++, sample++) {
                if (at > length || t->sizes[sample] > length - at) {
                    cs_format(why, size, "frame %u lies past the end of the file (truncated)", sample + 1);
                    return CS_ERR_TRUNCATED;
                }
                t->offsets[sample] = at;
                at += t->sizes[sample];
            }
        }
    }

    // No byte in two samples: the samples then hold at most the file, whatever the tables say.
    uint64_t *pairs = malloc((size_t)count * 2 * sizeof *pairs);
    if (!pairs) return ch_fail_why(why, size, CS_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < count; i++) pairs[2 * i] = t->offsets[i], pairs[2 * i + 1] = t->sizes[i];
    qsort(pairs, count, 2 * sizeof *pairs, ch_sample_cmp);
    rc = CS_OK;
    for (uint32_t i = 1; i < count && rc == CS_OK; i++)
        if (pairs[2 * i - 1] > pairs[2 * i] - pairs[2 * i - 2])
            rc = ch_fail_why(why, size, CS_ERR_CORRUPT, "two samples of a track overlap (its sample tables are bad)");
    free(pairs);
    if (rc != CS_OK) return rc;

    // Durations: libavif finds a frame's by walking the entries from the start, for every
    // frame before it (entries times frames squared): no empty entry, no more entries or
    // samples than the track has.
    if (has_stts && stts.n >= 4) {
        cs_reader d = {stts, 0, 0};
        uint32_t entries = (uint32_t)cs_read(&d, 4), i = 0;
        if (entries > count || (stts.n - 4) / 8 < entries)
            return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad time-to-sample table ('stts')");
        for (uint32_t run = 0; run < entries; run++) {
            uint32_t n = (uint32_t)cs_read(&d, 4), delta = (uint32_t)cs_read(&d, 4);
            if (n == 0 || n > count - i)
                return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad time-to-sample table ('stts')");
            for (uint32_t k = 0; k < n; k++) t->durations[i++] = delta;
        }
    }
    return CS_OK;
}

void ch_track_free(ch_track *t) {
    if (!t) return;
    free(t->offsets);
    free(t->sizes);
    free(t->durations);
    memset(t, 0, sizeof *t);
}

// One 'trak': CS_OK with t->count 0 when none of its sample entries is of `types`. Each
// box on the way to the samples is the only one of its kind (libavif reads them all, and
// a first 'mdia' without samples hid a second one with them from the scan).
static int ch_track_from(const uint8_t *data, size_t length, cs_span trak, const uint32_t *types, uint32_t max_frames,
                         ch_track *t, char *why, size_t size) {
    memset(t, 0, sizeof *t);
    cs_span mdia, minf, stbl, stsd, body, entry, tkhd, mdhd, ignored;
    int version;
    int has_mdia = ch_only_child(trak, 0, FOURCC('m', 'd', 'i', 'a'), &mdia);
    int has_minf = has_mdia == 1 ? ch_only_child(mdia, 0, FOURCC('m', 'i', 'n', 'f'), &minf) : 0;
    int has_stbl = has_minf == 1 ? ch_only_child(minf, 0, FOURCC('s', 't', 'b', 'l'), &stbl) : 0;
    int has_stsd = has_stbl == 1 ? ch_only_child(stbl, 0, FOURCC('s', 't', 's', 'd'), &stsd) : 0;
    int has_tkhd = ch_only_child(trak, 0, FOURCC('t', 'k', 'h', 'd'), &tkhd);
    int has_mdhd = has_mdia == 1 ? ch_only_child(mdia, 0, FOURCC('m', 'd', 'h', 'd'), &mdhd) : 0;
    if (has_mdia < 0 || has_minf < 0 || has_stbl < 0 || has_stsd < 0 || has_tkhd < 0 || has_mdhd < 0 ||
        ch_only_child(trak, 0, FOURCC('m', 'e', 't', 'a'), &ignored) < 0)
        return ch_fail_why(why, size, CS_ERR_CORRUPT, "a track has two boxes of one kind on the way to its samples");
    if (has_stsd != 1) return CS_OK;
    if (!cs_full_box(stsd, &body, &version, NULL) || version != 0 || body.n < 4)
        return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad sample description box ('stsd')");
    // The sample entries: one of the codec's is what a decoder takes (libavif takes a track
    // with any 'av01' entry), so one of them among others is refused: the samples could use
    // either, and the scan would check the wrong one. libavif reads entry_count of them.
    cs_reader count_reader = {body, 0, 0};
    uint32_t declared = (uint32_t)cs_read(&count_reader, 4);
    size_t entries_at = 4, entries = 0;
    cs_box each, chosen = {0};
    int got, wanted = 0;
    while ((got = ch_box_next(body, &entries_at, &each)) == 1) {
        entries++;
        for (const uint32_t *type = types; *type; type++)
            if (each.type == *type && !wanted) chosen = each, wanted = 1;
    }
    if (got < 0) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad sample entry");
    if (!wanted) return CS_OK;
    if (entries > 1 || declared != entries) {
        cs_format(why, size, "a video track has %zu sample descriptions (it says %u)", entries, declared);
        return CS_ERR_CORRUPT;
    }
    // A VisualSampleEntry: 78 bytes of fields (width and height at 24 and 26), then boxes;
    // the codec's configuration is the one its type names.
    entry = chosen.body;
    if (entry.n < 78) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad sample entry");
    t->entry_type = chosen.type;
    t->width = (uint32_t)entry.p[24] << 8 | entry.p[25];
    t->height = (uint32_t)entry.p[26] << 8 | entry.p[27];
    uint32_t config = chosen.type == FOURCC('a', 'v', '0', '1') ? FOURCC('a', 'v', '1', 'C') : FOURCC('h', 'v', 'c', 'C');
    if (ch_only_child(entry, 78, config, &t->config) < 0)
        return ch_fail_why(why, size, CS_ERR_CORRUPT, "a sample entry with two codec configurations");
    if (has_tkhd == 1 && cs_full_box(tkhd, &body, &version, NULL)) {
        // Versions 0 and 1 (libavif refuses others): width and height (16.16) at 72 or 84.
        if (version > 1) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a bad track header ('tkhd')");
        cs_reader r = {body, version == 1 ? 84 : 72, 0};
        t->tkhd_width = (uint32_t)(cs_read(&r, 4) >> 16);
        t->tkhd_height = (uint32_t)(cs_read(&r, 4) >> 16);
        if (r.bad) t->tkhd_width = t->tkhd_height = 0;
    }
    t->timescale = 1000;
    if (has_mdhd == 1 && cs_full_box(mdhd, &body, &version, NULL)) {
        cs_reader r = {body, version == 1 ? 16 : 8, 0};
        uint32_t timescale = (uint32_t)cs_read(&r, 4);
        if (!r.bad && timescale > 0) t->timescale = timescale;
    }
    int rc = ch_tables(t, data, length, stbl, max_frames, why, size);
    if (rc != CS_OK) {
        uint32_t count = t->count;
        ch_track_free(t);
        if (rc == CS_ERR_LIMIT) t->count = count;  // how many there are, to name them
    }
    return rc;
}

// The file's 'moov' as libavif finds it, among the top-level boxes before a malformed one
// (where libavif stops): 1 with *moov, 0 when there is none, -1 when there are two.
static int ch_find_moov(cs_span file, cs_span *moov) {
    size_t at = 0;
    cs_box box;
    int found = 0;
    while (ch_box_next(file, &at, &box) == 1)
        if (box.type == FOURCC('m', 'o', 'o', 'v') && found++ == 0) *moov = box.body;
    return found > 1 ? -1 : found;
}

int ch_track_read(const uint8_t *data, size_t length, const uint32_t *types, size_t index, uint32_t max_frames,
                  ch_track *t, char *why, size_t size) {
    memset(t, 0, sizeof *t);
    cs_span file = {data, length}, moov;
    if (ch_find_moov(file, &moov) != 1) return CS_OK;  // two: the scan refused the file
    size_t at = 0, found = 0;
    cs_box trak;
    int got;
    while ((got = ch_box_next(moov, &at, &trak)) == 1) {
        if (trak.type != FOURCC('t', 'r', 'a', 'k')) continue;
        int rc = ch_track_from(data, length, trak.body, types, max_frames, t, why, size);
        if (rc != CS_OK || (t->count > 0 && found++ == index)) return rc;
        ch_track_free(t);
    }
    if (got < 0) return ch_fail_why(why, size, CS_ERR_TRUNCATED, "a box inside 'moov' runs past its end (truncated)");
    return CS_OK;
}

// Every AV1 and HEVC track: its samples counted against max_frames, the picture of every
// configuration and every sample's in-band header against the track's declared size.
static int ch_scan_tracks(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames,
                          unsigned codecs, ch_scan_result *result, char *why, size_t size) {
    static const uint32_t types[] = {FOURCC('a', 'v', '0', '1'), FOURCC('h', 'v', 'c', '1'), FOURCC('h', 'e', 'v', '1'),
                                     0};
    cs_span file = {data, length}, moov;
    int moovs = ch_find_moov(file, &moov);
    if (moovs < 0) return ch_fail_why(why, size, CS_ERR_CORRUPT, "two 'moov' boxes");
    if (moovs == 0) return CS_OK;
    size_t at = 0, index = 0;
    cs_box trak;
    int got;
    while ((got = ch_box_next(moov, &at, &trak)) == 1) {  // each track once: linear in the file
        if (trak.type != FOURCC('t', 'r', 'a', 'k')) continue;
        cs_span track_meta;
        if (ch_only_child(trak.body, 0, FOURCC('m', 'e', 't', 'a'), &track_meta) == 1) {
            int rc = ch_scan_meta(data, length, track_meta, max_pixels, codecs, result, NULL, why, size, 1);
            if (rc != CS_OK) return rc;
        }
        ch_track t;
        int rc = ch_track_from(data, length, trak.body, types, max_frames, &t, why, size);
        if (rc == CS_ERR_LIMIT && t.count > max_frames) result->frames = t.count;
        if (rc != CS_OK) return rc;
        if (t.count == 0) continue;
        int hevc = t.entry_type != FOURCC('a', 'v', '0', '1');
        if (!(codecs & (hevc ? CH_CODEC_HEVC : CH_CODEC_AV1))) {
            ch_track_free(&t);
            cs_format(why, size, "it holds %s-coded frames, which are not allowed here", hevc ? "HEVC (HEIC)" : "AV1 (AVIF)");
            return CS_ERR_UNSUPPORTED;
        }
        // The declared size: the sample entry's, and the track header's where it is set.
        uint32_t w = t.width, h = t.height;
        if (t.tkhd_width && t.tkhd_width < w) w = t.tkhd_width;
        if (t.tkhd_height && t.tkhd_height < h) h = t.tkhd_height;
        if (index++ == 0) result->width = w, result->height = h;
        ch_check c = {w, h, hevc ? 64 : 128, hevc ? 1 : 2, max_pixels, 0, 0, CS_OK, why, size,
                      hevc ? "a frame's HEVC SPS" : "a frame's AV1 sequence header"};
        int ok = 1, nal_length = 4;
        if (hevc) ok = t.config.n == 0 || ch_check_hvcc(&c, t.config, &nal_length);
        else ok = t.config.n == 0 || ch_check_av1c(&c, t.config);
        // catctl's own sequence reader splits an HEVC track's samples by its hvcC's length
        // size, and refuses 3 (no reader takes it): so does the scan.
        if (hevc && nal_length == 3) ok = 0;
        // Each sample one picture (HEVC), or one temporal unit of a few frames (AV1: a hidden
        // alt-ref and the frame shown; no operating point that hides a layer).
        for (uint32_t i = 0; ok && c.code == CS_OK && i < t.count; i++) {
            ch_extent e = {t.offsets[i], t.sizes[i]};
            ch_item_data d = {data, &e, 1, t.sizes[i]};
            c.pictures = c.frames = 0;
            ok = hevc ? ch_check_hevc_data(&c, &d, nal_length) : ch_check_av1_data(&c, &d);
            if (ok && (c.pictures > 1 || c.frames > 8 || c.op_idc)) {
                ch_track_free(&t);
                cs_format(why, size, "frame %u holds %s", i + 1,
                          hevc ? "more than one HEVC picture"
                          : c.op_idc ? "an AV1 operating point that hides frames" : "more than 8 AV1 frames");
                return CS_ERR_CORRUPT;
            }
        }
        ch_track_free(&t);
        if (c.code != CS_OK) return c.code;
        if (!ok) return ch_fail_why(why, size, CS_ERR_CORRUPT, "a frame's coded data is malformed");
    }
    if (got < 0) return ch_fail_why(why, size, CS_ERR_TRUNCATED, "a box inside 'moov' runs past its end (truncated)");
    return CS_OK;
}

int ch_scan_file(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, unsigned codecs,
                 ch_scan_result *result, char *why, size_t size) {
    return ch_scan_file_report(data, length, max_pixels, max_frames, codecs, result, NULL, why, size);
}

int ch_scan_file_report(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, unsigned codecs,
                        ch_scan_result *result, ch_scan_report *report, char *why, size_t size) {
    memset(result, 0, sizeof *result);
    if (report) memset(report, 0, sizeof *report);
    cs_span file = {data, length};
    size_t at = 0, boxes = 0;
    cs_box box;
    int got, metas = 0;
    while ((got = ch_box_next(file, &at, &box)) == 1) {
        if (++boxes > 100000) return ch_fail_why(why, size, CS_ERR_LIMIT, "more than 100000 boxes at the top level");
        if (box.type != FOURCC('m', 'e', 't', 'a')) continue;
        if (metas++) return ch_fail_why(why, size, CS_ERR_CORRUPT, "two 'meta' boxes at the top level");
        int rc = ch_scan_meta(data, length, box.body, max_pixels, codecs, result, report, why, size, 0);
        if (rc != CS_OK) return rc;
    }
    // A cut-off last box is libheif's to report (as truncated); the boxes before it were read.
    (void)got;
    return ch_scan_tracks(data, length, max_pixels, max_frames, codecs, result, why, size);
}
