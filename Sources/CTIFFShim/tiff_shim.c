// libtiff behind return codes: see include/ctiff_shim.h.
// The calls follow libtiff 4.5's tiffio.h and its documentation (TIFFClientOpenExt,
// TIFFOpenOptions, TIFFReadScanline, TIFFReadEncodedTile, TIFFRGBAImage). Notes on libtiff
// behaviour this file relies on are next to the code using it.
#include "ctiff_shim.h"
#include "cshim_support.h"

#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>
#include <tiffio.h>

#define CT_LIBMSG_SIZE 256
#define CT_MAX_PLANES 5                    // CMYK + alpha: the planes a separate-plane image needs
#define CT_MEM_BASE ((uint64_t)64 << 20)  // libtiff's single-allocation bound: this + 8 B/pixel
#define CT_MAX_SAMPLES 8                  // samples per pixel read (CMYK, alpha and 3 extra)
#define CT_TILE_FLOOR 1024                // a tile may exceed the image up to this size (or 2x)
#define CT_EXIF_MAX_ENTRIES 1024          // per IFD, when copying EXIF
#define CT_MAX_IFD_ENTRIES 4096           // entries of an IFD looked at (libtiff refuses a directory of more)
#define CT_EXIF_MAX_BYTES ((size_t)1 << 20)

// ---------------------------------------------------------------- common

static pthread_once_t ct_once = PTHREAD_ONCE_INIT;

// libtiff's process-wide handlers print to stderr by default. Every TIFF object here has
// its own handlers (TIFFOpenOptions), which stop the global ones for messages about that
// object; messages libtiff emits before an object exists (or with no object) would still
// reach the globals, so those are silenced once.
static void ct_silence_globals(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandlerExt(NULL);
    TIFFSetWarningHandlerExt(NULL);
}

static uint64_t ct_sat_mul(uint64_t a, uint64_t b) { return (a && b > UINT64_MAX / a) ? UINT64_MAX : a * b; }
static uint64_t ct_sat_add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// ------------------------------------------------ byte-level TIFF structure (IFD walking)

typedef struct ct_src {
    const uint8_t *p;  // the bytes in memory, or NULL: read from fd
    int fd;
    size_t n;
    int be;   // big-endian ("MM")
    int big;  // BigTIFF
} ct_src;

// Reads exactly `len` bytes at `off` of a file (EINTR retried); 0 when it falls short.
static int ct_pread_all(int fd, uint8_t *dst, size_t len, uint64_t off) {
    while (len > 0) {
        ssize_t r = pread(fd, dst, len, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        dst += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return 1;
}

static int ct_in(const ct_src *s, uint64_t off, uint64_t len) { return off <= s->n && len <= s->n - off; }

// `len` bytes at `off`: a pointer into the bytes in memory, or into `scratch` read from the
// file. NULL when out of range or when the file is shorter than it was (changed under us).
static const uint8_t *ct_at(const ct_src *s, uint64_t off, size_t len, uint8_t *scratch) {
    if (!ct_in(s, off, len)) return NULL;
    if (s->p) return s->p + off;
    return ct_pread_all(s->fd, scratch, len, off) ? scratch : NULL;
}

static uint64_t ct_rd(const ct_src *s, size_t off, int bytes) {  // caller checked off + bytes <= n
    uint8_t scratch[8];
    const uint8_t *p = ct_at(s, off, (size_t)bytes, scratch);
    if (!p) return 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        int k = s->be ? i : bytes - 1 - i;
        v = (v << 8) | p[k];
    }
    return v;
}

static void ct_wr(uint8_t *p, int be, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[be ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

// Parses a TIFF header. 1: ok; 0: not TIFF; -1: too short to tell (a prefix of a header).
static int ct_parse_header(ct_src *s, uint64_t *ifd0) {
    static const uint8_t ii[4] = {'I', 'I', 42, 0}, mm[4] = {'M', 'M', 0, 42}, iib[4] = {'I', 'I', 43, 0},
                         mmb[4] = {'M', 'M', 0, 43};
    size_t k = s->n < 4 ? s->n : 4;
    uint8_t scratch[4];
    const uint8_t *p = ct_at(s, 0, k, scratch);
    if (!p) return -1;
    int classic = memcmp(p, ii, k) == 0 || memcmp(p, mm, k) == 0;
    int big = memcmp(p, iib, k) == 0 || memcmp(p, mmb, k) == 0;
    if (!classic && !big) return 0;
    if (s->n < (big ? 16u : 8u)) return -1;
    s->be = p[0] == 'M';
    s->big = big;
    if (big) {
        if (ct_rd(s, 4, 2) != 8 || ct_rd(s, 6, 2) != 0) return 0;
        *ifd0 = ct_rd(s, 8, 8);
    } else {
        *ifd0 = ct_rd(s, 4, 4);
    }
    return 1;
}

// The size of an IFD's entry table, count field and next-pointer included; 0 when the
// count field lies outside the data.
static uint64_t ct_ifd_table(const ct_src *s, uint64_t off, uint64_t *count) {
    int cs = s->big ? 8 : 2;
    if (!ct_in(s, off, (uint64_t)cs)) return 0;
    *count = ct_rd(s, (size_t)off, cs);
    if (*count > (s->big ? ((uint64_t)1 << 40) : 65535u)) return UINT64_MAX;
    return (uint64_t)cs + *count * (s->big ? 20u : 12u) + (s->big ? 8u : 4u);
}

// Offsets below this, past the end of the data, are taken for a cut file (a file cut to
// 1/16 of its size still counts as cut), those above for garbage.
static uint64_t ct_near_end(const ct_src *s) { return ct_sat_add(ct_sat_mul(s->n, 16), (uint64_t)1 << 20); }

// Counts the main-chain IFDs (loop-safe: an offset seen before ends the walk, as does
// CT_MAX_PAGES). *ifd0_state: 1 = IFD0's table and every value it points to lie within the
// data, 0 = IFD0 or one of its values extends past the end (a cut file), -1 = no IFD0.
static uint32_t ct_count_pages(const ct_src *s, uint64_t off, int *capped, int *ifd0_state) {
    enum { SLOTS = 32768 };  // > 2 * CT_MAX_PAGES: open addressing stays short
    uint64_t *seen = calloc(SLOTS, sizeof *seen);
    uint32_t pages = 0;
    *capped = 0;
    *ifd0_state = -1;
    while (off != 0) {
        uint64_t count = 0, table = ct_ifd_table(s, off, &count);
        if (pages == 0) {
            *ifd0_state = 0;
            if (table != 0 && table != UINT64_MAX && ct_in(s, off, table)) {
                *ifd0_state = 1;
                size_t e0 = (size_t)off + (s->big ? 8 : 2), es = s->big ? 20 : 12;
                for (uint64_t i = 0; i < count && i < CT_MAX_IFD_ENTRIES; i++) {
                    size_t e = e0 + (size_t)i * es;
                    static const uint8_t sizes[19] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8};
                    uint64_t type = ct_rd(s, e + 2, 2);
                    uint64_t n = ct_rd(s, e + 4, s->big ? 8 : 4);
                    uint64_t size = type < 19 ? ct_sat_mul(n, sizes[type]) : 0;
                    if (size <= (s->big ? 8u : 4u)) continue;
                    uint64_t voff = ct_rd(s, e + (s->big ? 12 : 8), s->big ? 8 : 4);
                    // Past the end: a cut file. Wild offsets (far beyond) count as corrupt.
                    if (!ct_in(s, voff, size) && voff < ct_near_end(s)) *ifd0_state = 0;
                }
            }
        }
        if (table == 0 || table == UINT64_MAX || !ct_in(s, off, table)) break;
        if (seen) {
            size_t h = (size_t)((off * 0x9E3779B97F4A7C15ull) >> 49) % SLOTS;
            while (seen[h] && seen[h] != off) h = (h + 1) % SLOTS;
            if (seen[h] == off) { *capped = 1; break; }  // a loop
            seen[h] = off;
        }
        if (pages == CT_MAX_PAGES) { *capped = 1; break; }
        pages++;
        off = ct_rd(s, (size_t)(off + table - (s->big ? 8 : 4)), s->big ? 8 : 4);
    }
    free(seen);
    return pages;
}

// Where values read from a file are kept while an EXIF blob is built (file sources only).
typedef struct ct_arena {
    uint8_t *p;
    size_t used, cap;
} ct_arena;

// One IFD entry, its value pointing at bytes of the source or of the arena (in the
// source's byte order).
typedef struct ct_entry {
    uint16_t tag, type;
    uint32_t count;
    const uint8_t *value;
    size_t size;
} ct_entry;

static size_t ct_type_size(unsigned type) {
    static const uint8_t sizes[13] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8};
    return type < 13 ? sizes[type] : 0;  // classic TIFF types only (no IFD, LONG8, IFD8)
}

typedef int (*ct_entry_filter)(uint16_t tag);

// Reads an IFD's entries (at most CT_EXIF_MAX_ENTRIES) whose type is a classic value type
// (1..12), whose value lies within the data and that `keep` accepts; out-of-line values
// are charged to *budget and skipped when over it. Returns the number of entries. A file
// source's values are read into `arena` (which holds the budget plus the inline values).
static size_t ct_read_ifd(const ct_src *s, uint64_t off, ct_entry_filter keep, ct_entry *out, size_t *budget,
                          ct_arena *arena) {
    uint64_t count = 0, table = ct_ifd_table(s, off, &count);
    if (table == 0 || table == UINT64_MAX || !ct_in(s, off, table)) return 0;
    size_t e0 = (size_t)off + (s->big ? 8 : 2), es = s->big ? 20 : 12, inl = s->big ? 8 : 4, n = 0;
    for (uint64_t i = 0; i < count && i < CT_MAX_IFD_ENTRIES && n < CT_EXIF_MAX_ENTRIES; i++) {
        size_t e = e0 + (size_t)i * es;
        uint16_t tag = (uint16_t)ct_rd(s, e, 2), type = (uint16_t)ct_rd(s, e + 2, 2);
        uint64_t cnt = ct_rd(s, e + 4, s->big ? 8 : 4);
        size_t ts = ct_type_size(type);
        if (ts == 0 || cnt == 0 || cnt > UINT32_MAX || (keep && !keep(tag))) continue;
        uint64_t size = cnt * ts, voff = e + (s->big ? 12 : 8);
        if (size > inl) {
            voff = ct_rd(s, e + (s->big ? 12 : 8), (int)inl);
            if (!ct_in(s, voff, size) || size > *budget) continue;
            *budget -= (size_t)size;
        }
        uint8_t *scratch = NULL;
        if (!s->p) {
            if (!arena->p || size > arena->cap - arena->used) continue;
            scratch = arena->p + arena->used;
        }
        const uint8_t *value = ct_at(s, voff, (size_t)size, scratch);
        if (!value) continue;
        if (scratch) arena->used += (size_t)size;
        out[n].tag = tag;
        out[n].type = type;
        out[n].count = (uint32_t)cnt;
        out[n].value = value;
        out[n].size = (size_t)size;
        n++;
    }
    return n;
}

// The offset a pointer entry (ExifIFD, GPS) in an IFD holds, 0 when absent or malformed.
static uint64_t ct_find_pointer(const ct_src *s, uint64_t off, uint16_t want) {
    uint64_t count = 0, table = ct_ifd_table(s, off, &count);
    if (table == 0 || table == UINT64_MAX || !ct_in(s, off, table)) return 0;
    size_t e0 = (size_t)off + (s->big ? 8 : 2), es = s->big ? 20 : 12;
    for (uint64_t i = 0; i < count && i < CT_MAX_IFD_ENTRIES; i++) {
        size_t e = e0 + (size_t)i * es;
        if (ct_rd(s, e, 2) != want || ct_rd(s, e + 4, s->big ? 8 : 4) != 1) continue;
        unsigned type = (unsigned)ct_rd(s, e + 2, 2);
        if (type == 4 || type == 13) return ct_rd(s, e + (s->big ? 12 : 8), 4);  // LONG/IFD: first 4 bytes
        if (s->big && (type == 16 || type == 18)) return ct_rd(s, e + 12, 8);
        return 0;
    }
    return 0;
}

static int ct_entry_cmp(const void *a, const void *b) {
    const ct_entry *x = a, *y = b;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

// Sorts by tag (IFDs must be ascending) and drops repeated tags (a hostile file's).
static size_t ct_sort_entries(ct_entry *e, size_t n) {
    if (n < 2) return n;
    qsort(e, n, sizeof *e, ct_entry_cmp);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (e[i].tag != e[m - 1].tag) e[m++] = e[i];
    return m;
}

// Bytes an IFD with these entries takes when serialised: table plus out-of-line values,
// each padded to an even length (so every IFD and value starts on a word boundary).
static uint64_t ct_ifd_bytes(const ct_entry *e, size_t n, int big) {
    uint64_t total = (big ? 16u : 6u) + (uint64_t)n * (big ? 20u : 12u);
    for (size_t i = 0; i < n; i++)
        if (e[i].size > (big ? 8u : 4u)) total += e[i].size + (e[i].size & 1);
    return total;
}

// Writes the IFD at dst (file offset `base`), next-IFD pointer 0. The values are copied as
// bytes: they must already be in the output's byte order.
static void ct_write_ifd(uint8_t *dst, uint64_t base, const ct_entry *e, size_t n, int big, int be) {
    size_t cs = big ? 8 : 2, es = big ? 20 : 12, inl = big ? 8 : 4;
    size_t table = cs + n * es + inl;
    size_t values = table;
    ct_wr(dst, be, n, (int)cs);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = dst + cs + i * es;
        ct_wr(p, be, e[i].tag, 2);
        ct_wr(p + 2, be, e[i].type, 2);
        ct_wr(p + 4, be, e[i].count, big ? 8 : 4);
        uint8_t *field = p + (big ? 12 : 8);
        memset(field, 0, inl);
        if (e[i].size <= inl) {
            memcpy(field, e[i].value, e[i].size);
        } else {
            ct_wr(field, be, base + values, (int)inl);
            memcpy(dst + values, e[i].value, e[i].size);
            if (e[i].size & 1) dst[values + e[i].size] = 0;
            values += e[i].size + (e[i].size & 1);
        }
    }
    memset(dst + cs + n * es, 0, inl);  // no next IFD
}

static int ct_keep_ifd0(uint16_t tag) {
    // Make, Model, Orientation, DateTime, Artist, Copyright
    return tag == 271 || tag == 272 || tag == 274 || tag == 306 || tag == 315 || tag == 33432;
}
static int ct_keep_exif(uint16_t tag) { return tag != 40965; }  // not the Interoperability IFD pointer
static int ct_keep_gps(uint16_t tag) { (void)tag; return 1; }

// Builds bare EXIF (classic TIFF, the source's byte order) from a TIFF file's IFD0:
// selected IFD0 tags plus copies of the EXIF and GPS IFDs. NULL when there is nothing to
// carry or out of memory.
static uint8_t *ct_build_exif(const ct_src *s, uint64_t ifd0, size_t *length) {
    *length = 0;
    ct_entry *e = malloc(sizeof *e * (3 * CT_EXIF_MAX_ENTRIES + 2));
    if (!e) return NULL;
    ct_entry *a = e, *b = e + CT_EXIF_MAX_ENTRIES + 2, *c = b + CT_EXIF_MAX_ENTRIES;
    size_t budget = CT_EXIF_MAX_BYTES - 4096;
    // A file source's values: the budget plus 8 bytes inline for each entry kept.
    ct_arena arena = {0};
    if (!s->p) {
        arena.cap = budget + 3 * CT_EXIF_MAX_ENTRIES * 8;
        arena.p = malloc(arena.cap);
    }
    size_t na = ct_read_ifd(s, ifd0, ct_keep_ifd0, a, &budget, &arena);
    uint64_t exif_off = ct_find_pointer(s, ifd0, 34665), gps_off = ct_find_pointer(s, ifd0, 34853);
    size_t nb = exif_off ? ct_sort_entries(b, ct_read_ifd(s, exif_off, ct_keep_exif, b, &budget, &arena)) : 0;
    size_t nc = gps_off ? ct_sort_entries(c, ct_read_ifd(s, gps_off, ct_keep_gps, c, &budget, &arena)) : 0;
    int has_orientation = 0;
    for (size_t i = 0; i < na; i++) has_orientation |= a[i].tag == 274;
    if (na - (size_t)has_orientation + nb + nc == 0) {  // Orientation alone: info carries it
        free(arena.p);
        free(e);
        return NULL;
    }
    uint8_t ptr_exif[4], ptr_gps[4];
    // Layout: header, IFD0, EXIF IFD, GPS IFD. Offsets stay below CT_EXIF_MAX_BYTES.
    size_t na_full = na + (nb ? 1 : 0) + (nc ? 1 : 0);
    uint64_t size0 = ct_ifd_bytes(a, na, 0) + (na_full - na) * 12u;
    uint64_t exif_at = 8 + size0, gps_at = exif_at + (nb ? ct_ifd_bytes(b, nb, 0) : 0);
    uint64_t total = gps_at + (nc ? ct_ifd_bytes(c, nc, 0) : 0);
    if (nb) {
        ct_wr(ptr_exif, s->be, exif_at, 4);
        a[na++] = (ct_entry){34665, 4, 1, ptr_exif, 4};
    }
    if (nc) {
        ct_wr(ptr_gps, s->be, gps_at, 4);
        a[na++] = (ct_entry){34853, 4, 1, ptr_gps, 4};
    }
    na = ct_sort_entries(a, na);
    uint8_t *out = total <= CT_EXIF_MAX_BYTES ? calloc(1, (size_t)total) : NULL;
    if (out) {
        memcpy(out, s->be ? "MM\0*" : "II*\0", 4);
        ct_wr(out + 4, s->be, 8, 4);
        ct_write_ifd(out + 8, 8, a, na, 0, s->be);
        if (nb) ct_write_ifd(out + exif_at, exif_at, b, nb, 0, s->be);
        if (nc) ct_write_ifd(out + gps_at, gps_at, c, nc, 0, s->be);
        *length = (size_t)total;
    }
    free(arena.p);
    free(e);
    return out;
}

// ---------------------------------------------------------------- memory reader

typedef struct ct_mem {
    const uint8_t *p;  // the bytes in memory, or NULL: read from fd
    int fd;
    size_t n;
    uint64_t pos;
} ct_mem;

static tmsize_t ct_mem_read(thandle_t h, void *buf, tmsize_t size) {
    ct_mem *m = (ct_mem *)h;
    if (size <= 0 || m->pos >= m->n) return 0;
    size_t k = m->n - (size_t)m->pos;
    if ((uint64_t)size < k) k = (size_t)size;
    if (m->p) {
        memcpy(buf, m->p + m->pos, k);
    } else {
        // A file shorter than it was gives a short count, which libtiff reports as a read
        // error. Never -1: libtiff 4.5 adds the count to its offset before it checks it.
        size_t got = 0;
        while (got < k) {
            ssize_t r = pread(m->fd, (uint8_t *)buf + got, k - got, (off_t)(m->pos + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        k = got;
    }
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t ct_mem_nowrite(thandle_t h, void *buf, tmsize_t size) {
    (void)h; (void)buf; (void)size;
    return -1;
}

static toff_t ct_seek_to(uint64_t *pos, uint64_t length, toff_t off, int whence) {
    uint64_t base = whence == SEEK_CUR ? *pos : whence == SEEK_END ? length : 0;
    int64_t delta = (int64_t)off;  // libtiff passes negative offsets as two's complement
    if (whence == SEEK_SET) {
        *pos = off;
        return off;
    }
    if (delta < 0 ? (uint64_t)(-(delta + 1)) + 1 > base : (uint64_t)delta > UINT64_MAX - base)
        return (toff_t)-1;
    *pos = base + (uint64_t)delta;
    return *pos;
}

static toff_t ct_mem_seek(thandle_t h, toff_t off, int whence) {
    ct_mem *m = (ct_mem *)h;
    return ct_seek_to(&m->pos, m->n, off, whence);
}

static int ct_mem_close(thandle_t h) { (void)h; return 0; }
static toff_t ct_mem_size(thandle_t h) { return ((ct_mem *)h)->n; }

// Neither the reader nor the writer maps: libtiff goes through the read and write procedures.
static int ct_nomap(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void ct_mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

// ---------------------------------------------------------------- decoder

enum { CT_MODE_SCANLINE = 1, CT_MODE_TILES, CT_MODE_RGBA };
enum { CT_KIND_GREY = 1, CT_KIND_PALETTE, CT_KIND_RGB, CT_KIND_CMYK };

struct ct_decoder {
    const uint8_t *data;              // the caller's bytes, as handed to the current call
    int fd;                           // or the file they are read from (-1: bytes)
    size_t length;
    ct_src src;
    ct_mem mem[CT_MAX_PLANES];
    TIFF *tif[CT_MAX_PLANES];  // [0]: the file; [1..]: one more handle per extra sample plane
    int header_tried, header_read, started, finished;
    uint32_t width, height;
    uint64_t max_pixels;              // the caller's limit (read_header)
    tmsize_t mem_limit;
    // The plan (ct_decoder_start).
    int mode, kind;
    int bps, spp, channels, alpha_index, alpha_assoc, min_white, separate, planes;
    int has_alpha;
    uint16_t photometric, compression;
    size_t plane_bytes;               // one scanline or one tile, per plane
    uint8_t *plane[CT_MAX_PLANES];
    uint32_t tile_w, tile_h;
    size_t tile_row_bytes;
    uint8_t *band;                    // RGBA8 rows [band_y0, band_y0 + band_rows) (tiles, RGBA mode)
    uint32_t band_y0, band_rows, band_height;
    uint32_t *raster;                 // TIFFRGBAImageGet output (RGBA mode)
    TIFFRGBAImage img;
    int img_begun;
    uint8_t *pal;                     // 3 * (1 << bps) bytes: the colormap as RGB8
    uint8_t *cmyk_row, *alpha_row;
    cmsHTRANSFORM xform;
    uint32_t next_row;
    uint8_t *exif;
    size_t exif_length;
    cs_error error;                   // the last failure
    char lib[CT_LIBMSG_SIZE];         // libtiff's last error (or first warning when no error)
    int lib_is_error;
};

static int ct_lib_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    char *lib = user;
    int n = module ? snprintf(lib, CT_LIBMSG_SIZE, "%s: ", module) : 0;
    if (n < 0 || n >= CT_LIBMSG_SIZE) n = 0;
    vsnprintf(lib + n, CT_LIBMSG_SIZE - (size_t)n, fmt, ap);
    return 1;  // handled: libtiff does not call the process-wide handlers
}

static int ct_dec_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    ct_decoder *d = user;
    d->lib_is_error = 1;
    return ct_lib_error(tif, d->lib, module, fmt, ap);
}

static int ct_dec_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    ct_decoder *d = user;
    if (d->lib_is_error || d->lib[0]) return 1;  // keep the error, or the first warning
    return ct_lib_error(tif, d->lib, module, fmt, ap);
}

// A failure (CShimSupport's cs_error), with libtiff's own error after it when there is one.
static int ct_with_lib(cs_error *error, int code, const char *lib, int is_error, const char *format, va_list args) {
    cs_vformat(error->message, sizeof error->message, format, args);
    if (lib[0] && is_error) {
        size_t n = strlen(error->message);
        snprintf(error->message + n, sizeof error->message - n, " (libtiff: %s)", lib);
    }
    return cs_failed(error, code);
}

static int ct_fail(ct_decoder *d, int code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    ct_with_lib(&d->error, code, d->lib, d->lib_is_error, format, args);
    va_end(args);
    return code;
}

static void ct_lib_clear(ct_decoder *d) {
    d->lib[0] = '\0';
    d->lib_is_error = 0;
}

ct_decoder *ct_decoder_create(size_t length, int fd) {
    pthread_once(&ct_once, ct_silence_globals);
    ct_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->length = length;
    d->fd = fd;
    d->src.fd = fd;
    return d;
}

// Points every reader at the bytes this call was handed (see ct_decoder_create); a file
// decoder's readers keep reading the file.
static void ct_borrow(ct_decoder *d, const uint8_t *data) {
    if (d->fd >= 0) return;
    d->data = data;
    d->src.p = data;
    for (int i = 0; i < CT_MAX_PLANES; i++) d->mem[i].p = data;
}

void ct_decoder_destroy(ct_decoder *d) {
    if (!d) return;
    if (d->img_begun) TIFFRGBAImageEnd(&d->img);
    for (int i = 0; i < CT_MAX_PLANES; i++) {
        if (d->tif[i]) TIFFClose(d->tif[i]);
        free(d->plane[i]);
    }
    if (d->xform) cmsDeleteTransform(d->xform);
    free(d->band);
    free(d->raster);
    free(d->pal);
    free(d->cmyk_row);
    free(d->alpha_row);
    free(d->exif);
    free(d);
}

const char *ct_decoder_message(const ct_decoder *d) { return d ? d->error.message : "out of memory"; }

static TIFF *ct_open_handle(ct_decoder *d, int i) {
    d->mem[i] = (ct_mem){.p = d->fd >= 0 ? NULL : d->data, .fd = d->fd, .n = d->length};
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, d->mem_limit);
    TIFFOpenOptionsSetErrorHandlerExtR(o, ct_dec_error, d);
    TIFFOpenOptionsSetWarningHandlerExtR(o, ct_dec_warning, d);
    // "rm": read-only, no memory map: libtiff reads strips through ct_mem_read into its own
    // buffer, so it holds no pointer into the caller's bytes between calls.
    TIFF *t = TIFFClientOpenExt("TIFF data", "rm", (thandle_t)&d->mem[i], ct_mem_read, ct_mem_nowrite, ct_mem_seek,
                                ct_mem_close, ct_mem_size, ct_nomap, ct_mem_unmap, o);
    TIFFOpenOptionsFree(o);  // TIFFClientOpenExt copied what it needs
    return t;
}

// The colour channels and alpha of the current directory, as this layer reads them.
// Returns 0 when the photometric interpretation is none this layer handles natively.
static int ct_layout(TIFF *tif, uint16_t photometric, uint16_t spp, int *kind, int *channels, int *alpha_index,
                     int *assoc) {
    *alpha_index = -1;
    *assoc = 0;
    switch (photometric) {
    case PHOTOMETRIC_MINISWHITE:
    case PHOTOMETRIC_MINISBLACK: *kind = CT_KIND_GREY; *channels = 1; break;
    case PHOTOMETRIC_PALETTE: *kind = CT_KIND_PALETTE; *channels = 1; break;
    case PHOTOMETRIC_RGB: *kind = CT_KIND_RGB; *channels = 3; break;
    case PHOTOMETRIC_SEPARATED: {
        uint16_t inkset = INKSET_CMYK;
        TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
        if (inkset != INKSET_CMYK) return 0;
        *kind = CT_KIND_CMYK;
        *channels = 4;
        break;
    }
    default: return 0;
    }
    if (spp < *channels) return 0;
    uint16_t extras = 0;
    uint16_t *info = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extras, &info) && info) {
        // libtiff keeps extras <= spp. The first associated/unassociated extra is the alpha.
        for (uint16_t i = 0; i < extras; i++) {
            if (info[i] == EXTRASAMPLE_ASSOCALPHA || info[i] == EXTRASAMPLE_UNASSALPHA) {
                int index = spp - extras + i;
                if (index >= *channels) {
                    *alpha_index = index;
                    *assoc = info[i] == EXTRASAMPLE_ASSOCALPHA;
                }
                break;
            }
        }
    } else if (spp > *channels && *kind != CT_KIND_PALETTE) {
        // No ExtraSamples tag: Pillow reads the sample after the colour as alpha (LA, RGBA, CMYKA).
        *alpha_index = *channels;
    }
    return 1;
}

int ct_decoder_read_header(ct_decoder *d, const uint8_t *data, uint64_t max_pixels, ct_info *info) {
    if (!d) return CS_ERR_NOMEM;
    ct_borrow(d, data);
    if (!info) return ct_fail(d, CS_ERR_STATE, "no info structure");
    memset(info, 0, sizeof *info);
    if (d->header_tried) return ct_fail(d, CS_ERR_STATE, "read_header was already called");
    d->header_tried = 1;
    if (d->length == 0) return ct_fail(d, CS_ERR_TRUNCATED, "the file is empty");

    d->src = (ct_src){.p = d->fd >= 0 ? NULL : d->data, .fd = d->fd, .n = d->length};
    uint64_t ifd0 = 0;
    int h = ct_parse_header(&d->src, &ifd0);
    if (h == 0) return ct_fail(d, CS_ERR_CORRUPT, "not a TIFF file (no II*/MM* header)");
    if (h < 0) return ct_fail(d, CS_ERR_TRUNCATED, "the file ends inside the TIFF header (truncated)");
    int capped = 0, ifd0_state = -1;
    uint32_t pages = ct_count_pages(&d->src, ifd0, &capped, &ifd0_state);

    // 64 MiB + 8 bytes (16-bit RGBA) per allowed pixel: enough for any strip, tile or
    // offset array a legitimate file of that size has; a bound on hostile declarations.
    uint64_t limit = ct_sat_add(CT_MEM_BASE, ct_sat_mul(max_pixels, 8));
    d->mem_limit = limit > (uint64_t)(INT64_MAX / 2) ? (tmsize_t)(INT64_MAX / 2) : (tmsize_t)limit;
    ct_lib_clear(d);
    d->tif[0] = ct_open_handle(d, 0);
    TIFF *tif = d->tif[0];
    if (!tif) {
        if (ifd0_state == 0 || (ifd0 >= d->length && ifd0 < ct_near_end(&d->src)))
            return ct_fail(d, CS_ERR_TRUNCATED, "the file ends inside the first directory (truncated)");
        return ct_fail(d, CS_ERR_CORRUPT, "the first TIFF directory cannot be read");
    }
    // libtiff opens a directory whose large values (an ICC profile, XMP) lie past the end by
    // dropping those tags with a warning: a cut file, refused as such rather than decoded
    // without its profile.
    if (ifd0_state == 0)
        return ct_fail(d, CS_ERR_TRUNCATED, "a value of the first directory lies past the end of the file (truncated)");
    uint32_t w = 0, hgt = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &hgt) || w == 0 ||
        hgt == 0)
        return ct_fail(d, CS_ERR_CORRUPT, "the first page has no size (ImageWidth/ImageLength)");
    uint64_t pixels = (uint64_t)w * hgt;
    info->width = w;  // also when over the limit, so the caller can name the size
    info->height = hgt;
    if (pixels > max_pixels)
        return ct_fail(d, CS_ERR_LIMIT, "%ux%u = %llu pixels exceeds the limit of %llu pixels", w, hgt,
                       (unsigned long long)pixels, (unsigned long long)max_pixels);
    d->width = w;
    d->height = hgt;
    d->max_pixels = max_pixels;

    uint16_t bps = 1, spp = 1, photometric = 0, compression = COMPRESSION_NONE, planar = PLANARCONFIG_CONTIG;
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // libtiff guesses the same way
    if (TIFFGetField(tif, TIFFTAG_ORIENTATION, &orientation) && (orientation < 1 || orientation > 8))
        orientation = 1;
    int kind = 0, channels = 0, alpha_index = -1, assoc = 0;
    int has_alpha = 0;
    if (ct_layout(tif, photometric, spp, &kind, &channels, &alpha_index, &assoc)) {
        has_alpha = alpha_index >= 0;
    } else {
        uint16_t extras = 0, *xinfo = NULL;
        if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extras, &xinfo) && xinfo && extras > 0)
            has_alpha = xinfo[0] == EXTRASAMPLE_ASSOCALPHA || xinfo[0] == EXTRASAMPLE_UNASSALPHA;
    }
    d->photometric = photometric;
    d->compression = compression;
    d->has_alpha = has_alpha;

    info->width = w;
    info->height = hgt;
    info->has_alpha = has_alpha;
    info->orientation = orientation;
    info->page_count = pages ? pages : 1;
    info->page_count_capped = capped;
    info->bits_per_sample = bps;
    info->samples_per_pixel = spp;
    info->photometric = photometric;
    info->compression = compression;
    info->planar_config = planar;
    info->tiled = TIFFIsTiled(tif) ? 1 : 0;
    info->bigtiff = TIFFIsBigTIFF(tif) ? 1 : 0;
    uint32_t n = 0;
    void *p = NULL;
    // A profile or packet over the metadata budget is left out (its size noted), not carried
    // into the output; a CMYK profile still converts the pixels (ct_decoder_start).
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &p) && p && n > CS_METADATA_BUDGET) {
        info->metadata.icc_dropped = n;
    } else if (p && n > 0) {
        info->metadata.icc = p;  // libtiff's copy, alive while the handle is (we never change directory)
        info->metadata.icc_length = n;
    }
    p = NULL;
    n = 0;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &n, &p) && p && n > CS_METADATA_BUDGET) {
        info->metadata.xmp_dropped = n;
    } else if (p && n > 0) {
        info->metadata.xmp = p;
        info->metadata.xmp_length = n;
    }
    d->exif = ct_build_exif(&d->src, ifd0, &d->exif_length);
    info->metadata.exif = d->exif;
    info->metadata.exif_length = d->exif_length;
    d->header_read = 1;
    return CS_OK;
}

static void *ct_alloc(ct_decoder *d, uint64_t bytes, const char *what, int *rc) {
    if (bytes == 0) bytes = 1;
    if (bytes > (uint64_t)d->mem_limit || bytes > SIZE_MAX) {
        *rc = ct_fail(d, CS_ERR_LIMIT, "the %s would take %llu bytes, more than this image may use (%llu)", what,
                      (unsigned long long)bytes, (unsigned long long)d->mem_limit);
        return NULL;
    }
    // Zeroed: libtiff may fill less of a buffer than it says (a JPEG strip whose own header
    // is narrower than the image's left bytes of the scanline untouched), and what is left
    // must never be leftover heap (other images, keys); it is this image's earlier rows at worst.
    void *p = calloc(1, (size_t)bytes);
    if (!p) *rc = ct_fail(d, CS_ERR_NOMEM, "out of memory (%s, %llu bytes)", what, (unsigned long long)bytes);
    return p;
}

static int ct_start_rgba(ct_decoder *d, ct_info *info) {
    TIFF *tif = d->tif[0];
    char emsg[1024] = "";
    int rc = CS_OK;
    if (!TIFFRGBAImageOK(tif, emsg))
        return ct_fail(d, CS_ERR_UNSUPPORTED, "this TIFF cannot be converted to RGBA: %s", emsg);
    uint32_t band = 0;
    if (TIFFIsTiled(tif)) {
        band = d->tile_h;  // checked by the caller
    } else {
        uint32_t rps = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps == 0 || rps > d->height) rps = d->height;
        band = rps >= 64 ? rps : rps * (64 / rps);
    }
    if (band > d->height) band = d->height;
    d->raster = ct_alloc(d, ct_sat_mul((uint64_t)band * d->width, 4), "RGBA band", &rc);
    if (!d->raster) return rc;
    d->band = ct_alloc(d, ct_sat_mul((uint64_t)band * d->width, 4), "row buffer", &rc);
    if (!d->band) return rc;
    ct_lib_clear(d);
    if (!TIFFRGBAImageBegin(&d->img, tif, 1, emsg))
        return ct_fail(d, CS_ERR_UNSUPPORTED, "this TIFF cannot be converted to RGBA: %s", emsg);
    d->img_begun = 1;
    // Stored order, top row first: no flips (Swift applies the Orientation tag itself).
    d->img.req_orientation = ORIENTATION_TOPLEFT;
    d->img.orientation = ORIENTATION_TOPLEFT;
    d->band_height = band;
    d->mode = CT_MODE_RGBA;
    d->has_alpha = d->img.alpha != 0;
    info->has_alpha = d->has_alpha;
    return CS_OK;
}

int ct_decoder_start(ct_decoder *d, const uint8_t *data, ct_info *info) {
    if (!d) return CS_ERR_NOMEM;
    ct_borrow(d, data);
    if (!info) return ct_fail(d, CS_ERR_STATE, "no info structure");
    if (!d->header_read || d->started) return ct_fail(d, CS_ERR_STATE, "start needs a read header, once");
    d->started = 1;
    TIFF *tif = d->tif[0];
    int rc = CS_OK;
    uint16_t bps = 1, spp = 1, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    // Every sample of every pixel is decoded (and un-predicted), while at most 5 are read
    // (CMYK and alpha): 65535 of them make each pixel cost 131 KB of decoding. Real files
    // hold CMYK, alpha and a few extra samples.
    if (spp > CT_MAX_SAMPLES)
        return ct_fail(d, CS_ERR_LIMIT, "%u samples per pixel (catctl reads files of at most %d)", (unsigned)spp,
                       CT_MAX_SAMPLES);
    if (format == SAMPLEFORMAT_IEEEFP || format == SAMPLEFORMAT_COMPLEXIEEEFP)
        return ct_fail(d, CS_ERR_UNSUPPORTED, "floating-point TIFF samples (%u-bit) are not supported", bps);
    if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID)
        return ct_fail(d, CS_ERR_UNSUPPORTED, "signed or complex TIFF samples (SampleFormat %u) are not supported",
                       format);
    if (!TIFFIsCODECConfigured(d->compression)) {
        const TIFFCodec *codec = TIFFFindCODEC(d->compression);
        return ct_fail(d, CS_ERR_UNSUPPORTED, "compression %u (%s) is not available in this libtiff", d->compression,
                       codec ? codec->name : "unknown");
    }
    uint16_t photometric = d->photometric;
    if (d->compression == COMPRESSION_JPEG && photometric == PHOTOMETRIC_YCBCR) {
        // libjpeg upsamples and converts to RGB; scanline and tile sizes become RGB ones.
        if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB))
            return ct_fail(d, CS_ERR_CORRUPT, "cannot set up JPEG colour conversion");
        photometric = PHOTOMETRIC_RGB;
    }
    int tiled = TIFFIsTiled(tif);
    if (tiled) {
        uint32_t tw = 0, th = 0;
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) || !tw || !th)
            return ct_fail(d, CS_ERR_CORRUPT, "a tiled TIFF without tile size");
        uint64_t max_w = (uint64_t)d->width * 2 > CT_TILE_FLOOR ? (uint64_t)d->width * 2 : CT_TILE_FLOOR;
        uint64_t max_h = (uint64_t)d->height * 2 > CT_TILE_FLOOR ? (uint64_t)d->height * 2 : CT_TILE_FLOOR;
        if (tw > max_w || th > max_h)
            return ct_fail(d, CS_ERR_LIMIT, "%ux%u tiles for a %ux%u image (a hostile file?)", tw, th, d->width,
                           d->height);
        // Samples per pixel and bits per sample multiply a tile's bytes: at most 16 bytes a
        // pixel (8 samples of 16 bits) of the image, or of a 1024x1024 tile for a small one.
        // With separate planes TIFFTileSize64 is one plane's, and a buffer is kept for each.
        uint64_t area = (uint64_t)d->width * d->height, floor = (uint64_t)CT_TILE_FLOOR * CT_TILE_FLOOR;
        uint64_t planes = planar == PLANARCONFIG_SEPARATE ? (spp < CT_MAX_PLANES ? spp : CT_MAX_PLANES) : 1;
        uint64_t bytes = ct_sat_mul(TIFFTileSize64(tif), planes), bound = (area > floor ? area : floor) * 16;
        if (bytes > bound)
            return ct_fail(d, CS_ERR_LIMIT, "tiles of %llu bytes (%u samples of %u bits a pixel) for a %ux%u image",
                           (unsigned long long)bytes, (unsigned)spp, (unsigned)bps, d->width, d->height);
        // Every tile is decoded whole: what decoding costs is the grid of tiles, not the image
        // (a 2000000x1 image in 1024x1024 tiles decodes 1024 rows for each it shows).
        uint64_t grid = ct_sat_mul((d->width + (uint64_t)tw - 1) / tw * tw, (d->height + (uint64_t)th - 1) / th * th);
        if (grid > 4 * area && grid > floor && grid > d->max_pixels)
            return ct_fail(d, CS_ERR_LIMIT, "%ux%u tiles cover %llu pixels for a %ux%u image (the limit is %llu)", tw,
                           th, (unsigned long long)grid, d->width, d->height, (unsigned long long)d->max_pixels);
        d->tile_w = tw;
        d->tile_h = th;
    }

    int kind = 0, channels = 0, alpha_index = -1, assoc = 0;
    int native = ct_layout(tif, photometric, spp, &kind, &channels, &alpha_index, &assoc);
    if (native) {
        if (kind == CT_KIND_GREY || kind == CT_KIND_PALETTE)
            native = bps == 1 || bps == 2 || bps == 4 || bps == 8 || bps == 16;
        else
            native = bps == 8 || bps == 16;
    }
    int separate = planar == PLANARCONFIG_SEPARATE && spp > 1;
    if (!native) return ct_start_rgba(d, info);

    d->kind = kind;
    d->bps = bps;
    d->spp = spp;
    d->channels = channels;
    d->alpha_index = alpha_index;
    d->alpha_assoc = assoc;
    d->has_alpha = alpha_index >= 0;
    d->min_white = d->photometric == PHOTOMETRIC_MINISWHITE;
    d->separate = separate;
    d->planes = separate ? channels + (alpha_index >= 0 ? 1 : 0) : 1;
    info->has_alpha = d->has_alpha;

    if (kind == CT_KIND_PALETTE) {
        uint16_t *r = NULL, *g = NULL, *b = NULL;
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &r, &g, &b) || !r || !g || !b)
            return ct_fail(d, CS_ERR_CORRUPT, "a palette image without a colormap");
        size_t entries = (size_t)1 << bps;  // libtiff reads exactly 1 << BitsPerSample entries
        d->pal = ct_alloc(d, (uint64_t)entries * 3, "palette", &rc);
        if (!d->pal) return rc;
        int eight = 1;  // old writers stored 8-bit values; libtiff and Pillow accept them as is
        for (size_t i = 0; i < entries; i++)
            if (r[i] >= 256 || g[i] >= 256 || b[i] >= 256) { eight = 0; break; }
        for (size_t i = 0; i < entries; i++) {
            d->pal[3 * i] = (uint8_t)(eight ? r[i] : r[i] >> 8);
            d->pal[3 * i + 1] = (uint8_t)(eight ? g[i] : g[i] >> 8);
            d->pal[3 * i + 2] = (uint8_t)(eight ? b[i] : b[i] >> 8);
        }
    }
    if (kind == CT_KIND_CMYK) {
        d->cmyk_row = ct_alloc(d, (uint64_t)d->width * 4, "CMYK row", &rc);
        if (!d->cmyk_row) return rc;
        d->alpha_row = ct_alloc(d, d->width, "alpha row", &rc);
        if (!d->alpha_row) return rc;
        uint32_t n = 0;
        void *p = NULL;
        if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &p) && p) d->xform = cs_cmyk_transform(p, n, 0, 0);
    }
    info->color_managed = d->xform != NULL;

    if (tiled) {
        uint64_t tile = TIFFTileSize64(tif), row = TIFFTileRowSize64(tif);
        if (tile == 0 || row == 0) return ct_fail(d, CS_ERR_CORRUPT, "the tile size cannot be computed");
        d->plane_bytes = (size_t)(tile > SIZE_MAX ? 0 : tile);
        d->tile_row_bytes = (size_t)row;
        for (int i = 0; i < d->planes; i++)
            if (!(d->plane[i] = ct_alloc(d, tile, "tile buffer", &rc))) return rc;
        d->band_height = d->tile_h < d->height ? d->tile_h : d->height;
        d->band = ct_alloc(d, ct_sat_mul((uint64_t)d->band_height * d->width, 4), "row of tiles", &rc);
        if (!d->band) return rc;
        d->mode = CT_MODE_TILES;
    } else {
        uint64_t line = TIFFScanlineSize64(tif);
        if (line == 0) return ct_fail(d, CS_ERR_CORRUPT, "the scanline size cannot be computed");
        d->plane_bytes = (size_t)(line > SIZE_MAX ? 0 : line);
        for (int i = 0; i < d->planes; i++)
            if (!(d->plane[i] = ct_alloc(d, line, "scanline buffer", &rc))) return rc;
        // Separate planes are read row by row, each through its own handle: libtiff restarts
        // a strip from its start when asked for an earlier row, so alternating planes on one
        // handle would decode every strip over and over.
        for (int i = 1; i < d->planes; i++) {
            ct_lib_clear(d);
            if (!(d->tif[i] = ct_open_handle(d, i))) return ct_fail(d, CS_ERR_NOMEM, "cannot open a plane reader");
        }
        d->mode = CT_MODE_SCANLINE;
    }
    return CS_OK;
}

// Whether some strip/tile of the image reaches past the end of the data (a cut file).
static int ct_data_cut(ct_decoder *d) {
    TIFF *tif = d->tif[0];
    uint32_t n = TIFFIsTiled(tif) ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    uint16_t spp = 1, planar = PLANARCONFIG_CONTIG;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    (void)spp;
    (void)planar;  // the counts above already include every plane
    for (uint32_t i = 0; i < n; i++) {
        int e1 = 0, e2 = 0;
        uint64_t off = TIFFGetStrileOffsetWithErr(tif, i, &e1), count = TIFFGetStrileByteCountWithErr(tif, i, &e2);
        if (e1 || e2) return 0;
        if (off > d->length || count > d->length - off) return 1;
    }
    return 0;
}

static int ct_read_failed(ct_decoder *d, const char *what, uint32_t index) {
    if (ct_data_cut(d))
        return ct_fail(d, CS_ERR_TRUNCATED, "the file ends before the image data does (truncated; %s %u)", what,
                       index);
    return ct_fail(d, CS_ERR_CORRUPT, "%s %u cannot be decoded", what, index);
}

static inline uint32_t ct_sample(const uint8_t *p, size_t index, int bps) {
    switch (bps) {
    case 8: return p[index];
    case 16: {
        uint16_t v;  // libtiff has swapped 16-bit samples to the host's order
        memcpy(&v, p + 2 * index, 2);
        return v;
    }
    default: {
        size_t bit = index * (size_t)bps;
        return (uint32_t)(p[bit >> 3] >> (8 - bps - (int)(bit & 7))) & ((1u << bps) - 1);
    }
    }
}

static inline uint8_t ct_to8(uint32_t v, int bps) {
    switch (bps) {
    case 8: return (uint8_t)v;
    case 16: return (uint8_t)((v * 255u + 32767u) / 65535u);
    default: return (uint8_t)(v * 255u / ((1u << bps) - 1));
    }
}

static inline uint32_t ct_unpremultiply(uint32_t c, uint32_t a, uint32_t max) {
    if (a == 0) return 0;
    uint64_t v = ((uint64_t)c * max + a / 2) / a;
    return v > max ? max : (uint32_t)v;
}

static inline uint8_t ct_mul255(unsigned a, unsigned b) {
    unsigned x = a * b + 128;
    return (uint8_t)((x + (x >> 8)) >> 8);  // round(a*b/255)
}

// Converts `count` pixels starting at pixel 0 of the given plane rows into RGBA8.
static void ct_convert(ct_decoder *d, uint8_t *const planes[], uint32_t count, uint8_t *out) {
    const int bps = d->bps, spp = d->spp, sep = d->separate;
    const uint32_t max = (1u << bps) - 1;
    const int ai = d->alpha_index;
    // Fast paths: 8-bit contiguous grey and RGB(A) without associated alpha.
    if (bps == 8 && !sep && !d->alpha_assoc && !d->min_white) {
        const uint8_t *s = planes[0];
        if (d->kind == CT_KIND_RGB) {
            for (uint32_t x = 0; x < count; x++, s += spp, out += 4) {
                out[0] = s[0]; out[1] = s[1]; out[2] = s[2];
                out[3] = ai >= 0 ? s[ai] : 255;
            }
            return;
        }
        if (d->kind == CT_KIND_GREY) {
            for (uint32_t x = 0; x < count; x++, s += spp, out += 4) {
                out[0] = out[1] = out[2] = s[0];
                out[3] = ai >= 0 ? s[ai] : 255;
            }
            return;
        }
    }
    // The plane slot of sample s when separate: colour samples 0..channels-1, then alpha.
    const int alpha_slot = d->channels;
#define CT_S(s, slot) (sep ? ct_sample(planes[(slot)], x, bps) : ct_sample(planes[0], (size_t)x * spp + (s), bps))
    for (uint32_t x = 0; x < count; x++, out += 4) {
        uint32_t a = ai >= 0 ? CT_S(ai, alpha_slot) : max;
        switch (d->kind) {
        case CT_KIND_GREY: {
            uint32_t v = CT_S(0, 0);
            if (d->min_white) v = max - v;
            if (d->alpha_assoc) v = ct_unpremultiply(v, a, max);
            out[0] = out[1] = out[2] = ct_to8(v, bps);
            break;
        }
        case CT_KIND_PALETTE: {
            const uint8_t *c = d->pal + 3 * (size_t)CT_S(0, 0);
            out[0] = c[0]; out[1] = c[1]; out[2] = c[2];
            if (d->alpha_assoc) {
                uint32_t a8 = ct_to8(a, bps);
                for (int k = 0; k < 3; k++) out[k] = (uint8_t)ct_unpremultiply(out[k], a8, 255);
            }
            break;
        }
        case CT_KIND_RGB:
            for (int k = 0; k < 3; k++) {
                uint32_t v = CT_S(k, k);
                if (d->alpha_assoc) v = ct_unpremultiply(v, a, max);
                out[k] = ct_to8(v, bps);
            }
            break;
        default:  // CMYK: 8-bit samples into cmyk_row, converted below
            for (int k = 0; k < 4; k++) d->cmyk_row[4 * (size_t)x + (size_t)k] = ct_to8(CT_S(k, k), bps);
            d->alpha_row[x] = ct_to8(a, bps);
            break;
        }
        out[3] = ct_to8(a, bps);
    }
#undef CT_S
    if (d->kind == CT_KIND_CMYK) {
        out -= (size_t)count * 4;
        if (d->xform) {
            // TYPE_RGB_8 out, then spread to RGBA in place from the back.
            cmsDoTransform(d->xform, d->cmyk_row, out, count);
            for (uint32_t x = count; x-- > 0;) {
                uint8_t r = out[3 * (size_t)x], g = out[3 * (size_t)x + 1], b = out[3 * (size_t)x + 2];
                out[4 * (size_t)x] = r; out[4 * (size_t)x + 1] = g; out[4 * (size_t)x + 2] = b;
                out[4 * (size_t)x + 3] = d->alpha_row[x];
            }
        } else {
            const uint8_t *c = d->cmyk_row;
            for (uint32_t x = 0; x < count; x++, c += 4, out += 4) {
                unsigned k = 255u - c[3];
                out[0] = ct_mul255(255u - c[0], k);
                out[1] = ct_mul255(255u - c[1], k);
                out[2] = ct_mul255(255u - c[2], k);
                out[3] = d->alpha_row[x];
            }
        }
    }
}

// The sample a plane buffer holds: colour samples 0..channels-1, then the alpha sample.
static uint16_t ct_plane_sample(const ct_decoder *d, int p) {
    if (!d->separate) return 0;
    return (uint16_t)(p < d->channels ? p : d->alpha_index);
}

// Fills the band with the row of tiles starting at row y0.
static int ct_fill_tiles(ct_decoder *d, uint32_t y0) {
    TIFF *tif = d->tif[0];
    uint32_t rows = d->height - y0 < d->band_height ? d->height - y0 : d->band_height;
    for (uint32_t x = 0; x < d->width; x += d->tile_w) {
        uint32_t cols = d->width - x < d->tile_w ? d->width - x : d->tile_w;
        for (int p = 0; p < d->planes; p++) {
            uint32_t tile = TIFFComputeTile(tif, x, y0, 0, ct_plane_sample(d, p));
            ct_lib_clear(d);
            if (TIFFReadEncodedTile(tif, tile, d->plane[p], (tmsize_t)d->plane_bytes) < 0)
                return ct_read_failed(d, "tile", tile);
        }
        for (uint32_t r = 0; r < rows; r++) {
            uint8_t *rowp[CT_MAX_PLANES];
            for (int p = 0; p < d->planes; p++) rowp[p] = d->plane[p] + (size_t)r * d->tile_row_bytes;
            ct_convert(d, rowp, cols, d->band + ((size_t)r * d->width + x) * 4);
        }
    }
    d->band_y0 = y0;
    d->band_rows = rows;
    return CS_OK;
}

// Fills the band through TIFFRGBAImageGet (premultiplied ABGR words, top row first).
static int ct_fill_rgba(ct_decoder *d, uint32_t y0) {
    uint32_t rows = d->height - y0 < d->band_height ? d->height - y0 : d->band_height;
    d->img.row_offset = (int)y0;
    d->img.col_offset = 0;
    ct_lib_clear(d);
    if (!TIFFRGBAImageGet(&d->img, d->raster, d->width, rows)) return ct_read_failed(d, "row", y0);
    size_t n = (size_t)rows * d->width;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = d->raster[i];
        uint8_t *o = d->band + 4 * i;
        uint32_t a = TIFFGetA(v);
        o[0] = (uint8_t)TIFFGetR(v);
        o[1] = (uint8_t)TIFFGetG(v);
        o[2] = (uint8_t)TIFFGetB(v);
        o[3] = (uint8_t)a;
        if (d->has_alpha && a != 255)
            for (int k = 0; k < 3; k++) o[k] = (uint8_t)ct_unpremultiply(o[k], a, 255);
    }
    d->band_y0 = y0;
    d->band_rows = rows;
    return CS_OK;
}

int ct_decoder_read_rows(ct_decoder *d, const uint8_t *data, uint8_t *dst, size_t stride, uint32_t max_rows,
                         uint32_t *rows_read) {
    if (!d) return CS_ERR_NOMEM;
    ct_borrow(d, data);
    uint32_t dummy;
    if (!rows_read) rows_read = &dummy;
    *rows_read = 0;
    if (!d->started || !d->mode || d->finished) return ct_fail(d, CS_ERR_STATE, "read_rows needs a started decoder");
    if (!dst || stride < (size_t)d->width * 4) return ct_fail(d, CS_ERR_STATE, "invalid output rows (stride %zu)", stride);
    uint32_t done = 0;
    int rc = CS_OK;
    while (done < max_rows && d->next_row < d->height) {
        uint8_t *out = dst + (size_t)done * stride;
        if (d->mode == CT_MODE_SCANLINE) {
            for (int p = 0; p < d->planes; p++) {
                ct_lib_clear(d);
                if (TIFFReadScanline(d->tif[p], d->plane[p], d->next_row, ct_plane_sample(d, p)) < 0) {
                    *rows_read = done;
                    return ct_read_failed(d, "row", d->next_row);
                }
            }
            ct_convert(d, d->plane, d->width, out);
            d->next_row++;
            done++;
            continue;
        }
        if (d->next_row >= d->band_y0 + d->band_rows) {
            rc = d->mode == CT_MODE_TILES ? ct_fill_tiles(d, d->next_row) : ct_fill_rgba(d, d->next_row);
            if (rc != CS_OK) {
                *rows_read = done;
                return rc;
            }
        }
        uint32_t avail = d->band_y0 + d->band_rows - d->next_row, want = max_rows - done;
        uint32_t k = avail < want ? avail : want;
        for (uint32_t r = 0; r < k; r++)
            memcpy(dst + (size_t)(done + r) * stride, d->band + ((size_t)(d->next_row - d->band_y0 + r) * d->width) * 4,
                   (size_t)d->width * 4);
        d->next_row += k;
        done += k;
    }
    *rows_read = done;
    return CS_OK;
}

int ct_decoder_finish(ct_decoder *d) {
    if (!d) return CS_ERR_NOMEM;
    if (!d->started || d->finished) return ct_fail(d, CS_ERR_STATE, "finish needs a started decoder, once");
    d->finished = 1;
    return CS_OK;
}

// ---------------------------------------------------------------- encoder

typedef struct ct_wbuf {
    uint8_t *p;
    size_t len, cap;
    uint64_t pos;
    int failed;
} ct_wbuf;

static int ct_wbuf_reserve(ct_wbuf *b, size_t need) {
    if (need <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) { cap = need; break; }
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

static tmsize_t ct_wbuf_write(thandle_t h, void *buf, tmsize_t size) {
    ct_wbuf *b = (ct_wbuf *)h;
    if (size < 0) return -1;
    if (b->pos > SIZE_MAX || (uint64_t)size > SIZE_MAX - b->pos || !ct_wbuf_reserve(b, (size_t)b->pos + (size_t)size)) {
        b->failed = 1;
        return -1;
    }
    if (b->pos > b->len) memset(b->p + b->len, 0, (size_t)b->pos - b->len);
    memcpy(b->p + b->pos, buf, (size_t)size);
    b->pos += (uint64_t)size;
    if (b->pos > b->len) b->len = (size_t)b->pos;
    return size;
}

static tmsize_t ct_wbuf_read(thandle_t h, void *buf, tmsize_t size) {
    ct_wbuf *b = (ct_wbuf *)h;
    if (size <= 0 || b->pos >= b->len) return 0;
    size_t k = b->len - (size_t)b->pos;
    if ((uint64_t)size < k) k = (size_t)size;
    memcpy(buf, b->p + b->pos, k);
    b->pos += k;
    return (tmsize_t)k;
}

static toff_t ct_wbuf_seek(thandle_t h, toff_t off, int whence) {
    ct_wbuf *b = (ct_wbuf *)h;
    return ct_seek_to(&b->pos, b->len, off, whence);
}

static toff_t ct_wbuf_size(thandle_t h) { return ((ct_wbuf *)h)->len; }
struct ct_encoder {
    TIFF *tif;
    ct_wbuf out;
    uint32_t width, height, y;
    int spp, big, be;
    int started, finished;
    uint8_t *row;
    uint8_t *exif;              // a copy of the caller's EXIF blob; the entries point into it
    ct_entry *exif_entries;     // [0, n_exif): EXIF IFD; [n_exif, n_exif + n_gps): GPS IFD
    size_t n_exif, n_gps;
    cs_error error;             // the last failure
    int saved_errno;
    char lib[CT_LIBMSG_SIZE];
    int lib_is_error;
};

static int ct_enc_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    ct_encoder *e = user;
    e->lib_is_error = 1;
    return ct_lib_error(tif, e->lib, module, fmt, ap);
}

static int ct_enc_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

static int ct_efail(ct_encoder *e, int code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    ct_with_lib(&e->error, code, e->lib, e->lib_is_error && code != CS_ERR_IO, format, args);
    va_end(args);
    return code;
}

ct_encoder *ct_encoder_create(void) {
    pthread_once(&ct_once, ct_silence_globals);
    return calloc(1, sizeof(ct_encoder));
}

void ct_encoder_destroy(ct_encoder *e) {
    if (!e) return;
    if (e->tif) TIFFClose(e->tif);  // writes into our buffer only
    free(e->out.p);
    free(e->row);
    free(e->exif);
    free(e->exif_entries);
    free(e);
}

const char *ct_encoder_message(const ct_encoder *e) { return e ? e->error.message : "out of memory"; }
int ct_encoder_errno(const ct_encoder *e) { return e ? e->saved_errno : ENOMEM; }

// IFD0 tags of the EXIF blob that become tags of the image's IFD0.
static int ct_keep_ascii(uint16_t tag) {
    return tag == TIFFTAG_MAKE || tag == TIFFTAG_MODEL || tag == TIFFTAG_DATETIME || tag == TIFFTAG_ARTIST ||
           tag == TIFFTAG_COPYRIGHT;
}

// Parses the caller's EXIF blob: its IFD0 ASCII tags are set on `tif`, its EXIF and GPS
// IFD entries are kept (pointing into e->exif) for ct_append_exif. Returns the blob's byte
// order (1 = big-endian), or -1 when there is no usable blob. Allocation failures drop EXIF.
static int ct_parse_exif(ct_encoder *e, const uint8_t *blob, size_t length) {
    if (!blob || length < 8 || length > ((size_t)64 << 20)) return -1;
    e->exif = malloc(length);
    e->exif_entries = malloc(sizeof(ct_entry) * (2 * CT_EXIF_MAX_ENTRIES + 8));
    if (!e->exif || !e->exif_entries) return -1;
    memcpy(e->exif, blob, length);
    ct_src s = {.p = e->exif, .fd = -1, .n = length};
    uint64_t ifd0 = 0;
    if (ct_parse_header(&s, &ifd0) != 1 || s.big) return -1;
    size_t budget = 64u << 20;
    ct_entry *a = e->exif_entries;
    e->n_exif = 0;
    uint64_t exif_off = ct_find_pointer(&s, ifd0, 34665), gps_off = ct_find_pointer(&s, ifd0, 34853);
    if (exif_off) e->n_exif = ct_sort_entries(a, ct_read_ifd(&s, exif_off, ct_keep_exif, a, &budget, NULL));
    if (gps_off)
        e->n_gps = ct_sort_entries(a + e->n_exif, ct_read_ifd(&s, gps_off, ct_keep_gps, a + e->n_exif, &budget, NULL));
    return s.be;
}

static void ct_set_ascii_tags(ct_encoder *e, size_t length) {
    ct_src s = {.p = e->exif, .fd = -1, .n = length};
    uint64_t ifd0 = 0;
    if (ct_parse_header(&s, &ifd0) != 1) return;
    ct_entry *tags = malloc(sizeof *tags * CT_EXIF_MAX_ENTRIES);
    char *text = malloc(65536);
    size_t budget = 1u << 20;
    size_t n = tags && text ? ct_read_ifd(&s, ifd0, ct_keep_ascii, tags, &budget, NULL) : 0;
    for (size_t i = 0; i < n; i++) {
        if (tags[i].type != 2 || tags[i].size > 65535) continue;
        memcpy(text, tags[i].value, tags[i].size);
        text[tags[i].size] = '\0';  // strings may lack their NUL; the first NUL ends them
        if (text[0]) TIFFSetField(e->tif, tags[i].tag, text);
    }
    free(tags);
    free(text);
}

int ct_encoder_start(ct_encoder *e, uint32_t width, uint32_t height, int has_alpha, int compression, int quality,
                     const cs_metadata *metadata) {
    if (!e) return CS_ERR_NOMEM;
    if (e->started) return ct_efail(e, CS_ERR_STATE, "the encoder was already started");
    if (width == 0 || height == 0 || width > INT32_MAX || height > INT32_MAX)
        return ct_efail(e, CS_ERR_UNSUPPORTED, "invalid image size %ux%u", width, height);
    if (compression < CT_COMPRESSION_NONE || compression > CT_COMPRESSION_JPEG)
        return ct_efail(e, CS_ERR_STATE, "unknown compression %d", compression);
    if (compression == CT_COMPRESSION_JPEG && has_alpha)
        return ct_efail(e, CS_ERR_UNSUPPORTED,
                        "JPEG-compressed TIFF cannot hold alpha: flatten the image or choose another compression");
    e->started = 1;
    e->width = width;
    e->height = height;
    e->spp = has_alpha ? 4 : 3;
    e->row = malloc((size_t)width * 4);
    if (!e->row) return ct_efail(e, CS_ERR_NOMEM, "out of memory");
    const cs_metadata none = {0};
    const cs_metadata *m = metadata ? metadata : &none;

    int order = ct_parse_exif(e, m->exif, m->exif_length);
    if (order < 0) e->n_exif = e->n_gps = 0;
    e->be = order == 1;
    uint64_t raw = (uint64_t)width * height * (uint64_t)e->spp;
    e->big = raw > ((uint64_t)1 << 31);  // classic TIFF ends at 4 GiB; leave room for poor compression
    char mode[8] = "w";
    strcat(mode, e->be ? "b" : "l");
    if (e->big) strcat(mode, "8");

    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return ct_efail(e, CS_ERR_NOMEM, "out of memory");
    TIFFOpenOptionsSetErrorHandlerExtR(o, ct_enc_error, e);
    TIFFOpenOptionsSetWarningHandlerExtR(o, ct_enc_warning, e);
    e->tif = TIFFClientOpenExt("TIFF output", mode, (thandle_t)&e->out, ct_wbuf_read, ct_wbuf_write, ct_wbuf_seek,
                               ct_mem_close, ct_wbuf_size, ct_nomap, ct_mem_unmap, o);
    TIFFOpenOptionsFree(o);
    if (!e->tif) return ct_efail(e, CS_ERR_NOMEM, "cannot start the TIFF writer");
    TIFF *tif = e->tif;
    int ok = 1;
    ok &= TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    ok &= TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    ok &= TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    ok &= TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, e->spp);
    ok &= TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    ok &= TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    if (has_alpha) {
        uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
        ok &= TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    uint32_t rps = (uint32_t)(65536 / ((uint64_t)width * e->spp));
    if (rps < 1) rps = 1;
    switch (compression) {
    case CT_COMPRESSION_NONE:
        ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        break;
    case CT_COMPRESSION_LZW:
    case CT_COMPRESSION_DEFLATE:
        ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION,
                           compression == CT_COMPRESSION_LZW ? COMPRESSION_LZW : COMPRESSION_ADOBE_DEFLATE);
        ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        ok &= TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        break;
    default:  // JPEG: YCbCr 4:2:0 made by libjpeg from our RGB rows (as libvips writes it)
        ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_JPEG);
        ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
        ok &= TIFFSetField(tif, TIFFTAG_YCBCRSUBSAMPLING, 2, 2);
        ok &= TIFFSetField(tif, TIFFTAG_JPEGQUALITY, quality < 1 ? 1 : quality > 100 ? 100 : quality);
        ok &= TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        rps = (rps + 15) / 16 * 16;  // whole 16-row MCU rows per strip
        break;
    }
    ok &= TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps);
    ok &= TIFFSetField(tif, TIFFTAG_SOFTWARE, "catctl");
    if (m->icc && m->icc_length > 0 && m->icc_length <= UINT32_MAX)
        ok &= TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)m->icc_length, m->icc);
    if (m->xmp && m->xmp_length > 0 && m->xmp_length <= UINT32_MAX)
        ok &= TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)m->xmp_length, m->xmp);
    if (order >= 0) {
        ct_set_ascii_tags(e, m->exif_length);
        // Placeholders: ct_encoder_finish points them at the IFDs it appends.
        if (e->n_exif) ok &= TIFFSetField(tif, TIFFTAG_EXIFIFD, (uint64_t)8);
        if (e->n_gps) ok &= TIFFSetField(tif, TIFFTAG_GPSIFD, (uint64_t)8);
    }
    if (!ok) return ct_efail(e, CS_ERR_STATE, "libtiff refused a tag");
    return CS_OK;
}

int ct_encoder_write_rows(ct_encoder *e, const uint8_t *src, size_t stride, uint32_t rows) {
    if (!e) return CS_ERR_NOMEM;
    if (e->error.code) return e->error.code;  // an earlier failure; its message stays
    if (!e->started || !e->tif || e->finished) return ct_efail(e, CS_ERR_STATE, "the encoder is not writing");
    if (rows > e->height - e->y) return ct_efail(e, CS_ERR_STATE, "more rows than the image has");
    if (rows && (!src || stride < (size_t)e->width * 4)) return ct_efail(e, CS_ERR_STATE, "invalid input rows");
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *s = src + (size_t)r * stride;
        if (e->spp == 4) {
            memcpy(e->row, s, (size_t)e->width * 4);  // libtiff may work on the buffer in place
        } else {
            uint8_t *o = e->row;
            for (uint32_t x = 0; x < e->width; x++, s += 4, o += 3) { o[0] = s[0]; o[1] = s[1]; o[2] = s[2]; }
        }
        if (TIFFWriteScanline(e->tif, e->row, e->y, 0) < 0)
            return ct_efail(e, e->out.failed ? CS_ERR_NOMEM : CS_ERR_STATE, "cannot encode row %u", e->y);
        e->y++;
    }
    return CS_OK;
}

// Appends the EXIF/GPS IFDs to the finished file and points IFD0's tags at them.
static int ct_append_exif(ct_encoder *e) {
    if (!e->n_exif && !e->n_gps) return CS_OK;
    ct_wbuf *b = &e->out;
    ct_src s = {.p = b->p, .fd = -1, .n = b->len};
    uint64_t ifd0 = 0;
    if (ct_parse_header(&s, &ifd0) != 1) return ct_efail(e, CS_ERR_STATE, "libtiff wrote no header");
    uint64_t count = 0, table = ct_ifd_table(&s, ifd0, &count);
    if (table == 0 || table == UINT64_MAX || !ct_in(&s, ifd0, table)) return ct_efail(e, CS_ERR_STATE, "no IFD0");
    uint64_t at[2] = {0, 0}, end = (b->len + 1) & ~(uint64_t)1;
    const ct_entry *lists[2] = {e->exif_entries, e->exif_entries + e->n_exif};
    size_t ns[2] = {e->n_exif, e->n_gps};
    uint64_t total = end;
    for (int k = 0; k < 2; k++) {
        if (!ns[k]) continue;
        at[k] = total;
        total += ct_ifd_bytes(lists[k], ns[k], e->big);
    }
    if (!e->big && total > UINT32_MAX) return ct_efail(e, CS_ERR_LIMIT, "the file would exceed 4 GiB");
    if (total > SIZE_MAX || !ct_wbuf_reserve(b, (size_t)total)) return ct_efail(e, CS_ERR_NOMEM, "out of memory");
    memset(b->p + b->len, 0, (size_t)(total - b->len));
    for (int k = 0; k < 2; k++)
        if (ns[k]) ct_write_ifd(b->p + at[k], at[k], lists[k], ns[k], e->big, e->be);
    b->len = (size_t)total;
    s.p = b->p;
    s.n = b->len;
    size_t e0 = (size_t)ifd0 + (e->big ? 8 : 2), es = e->big ? 20 : 12;
    for (uint64_t i = 0; i < count; i++) {
        uint8_t *p = b->p + e0 + (size_t)i * es;
        uint64_t tag = ct_rd(&s, (size_t)(p - b->p), 2);
        int k = tag == 34665 ? 0 : tag == 34853 ? 1 : -1;
        if (k < 0 || !ns[k]) continue;
        if (e->big) {
            ct_wr(p + 12, e->be, at[k], 8);
        } else {
            ct_wr(p + 2, e->be, 4, 2);  // LONG, as cameras write it (libtiff wrote IFD)
            ct_wr(p + 8, e->be, at[k], 4);
        }
    }
    return CS_OK;
}

int ct_encoder_finish(ct_encoder *e, int fd) {
    if (!e) return CS_ERR_NOMEM;
    if (e->error.code) return e->error.code;
    if (!e->started || !e->tif || e->finished) return ct_efail(e, CS_ERR_STATE, "the encoder is not writing");
    if (e->y < e->height) return ct_efail(e, CS_ERR_STATE, "only %u of %u rows were written", e->y, e->height);
    e->finished = 1;
    int ok = TIFFWriteDirectory(e->tif);
    TIFFClose(e->tif);
    e->tif = NULL;
    if (!ok || e->out.failed)
        return ct_efail(e, e->out.failed ? CS_ERR_NOMEM : CS_ERR_STATE, "cannot complete the TIFF file");
    int rc = ct_append_exif(e);
    if (rc != CS_OK) return rc;
    int err = cs_write_all(fd, e->out.p, e->out.len);
    if (err) {
        e->saved_errno = err;
        return ct_efail(e, CS_ERR_IO, "write failed: %s", strerror(err));
    }
    return CS_OK;
}
