// Palette quantizer for GIF frames: RGBA8 in, <= 256 palette indices out (see cg_quantize in
// include/cgif_shim.h).
//
// Why our own: giflib's GifQuantizeBuffer (deprecated) is a plain median cut on 5-bit colours
// that maps every pixel to its box with no error diffusion, which bands visibly on photos, and
// it knows nothing about alpha.
//
// Method, in the order cg_quantize runs it:
//  1. Exact pass. Opaque colours go into a small hash table until a 257th distinct colour
//     shows up (a photo gets there within a few rows). A frame with few enough colours
//     (256, or 255 when some pixel is transparent) gets exactly those colours, in order of
//     first appearance, and no dithering: flat graphics and frames that were GIFs already
//     come back bit-exact.
//  2. Histogram. Each opaque pixel falls into one of 32768 cells (5 bits per channel); a cell
//     keeps its pixel count and the sums of the 3 low bits it drops, so the mean colour of its
//     pixels is exact. When fewer cells than palette entries are used (gradients, antialiased
//     drawings with a few thousand colours), the exact colours become the cells instead, so
//     the palette can be as fine as the image.
//  3. Box splitting (median cut, variance flavour): start with one box of all cells;
//     repeatedly take the box with the largest summed squared error, order its cells along
//     the channel where they vary most, and cut where the two halves' summed squared error is
//     smallest (not at the median: a cut by count wastes colours on large flat areas). Each
//     final box's weighted mean is a palette colour.
//  4. Refinement: two k-means (Lloyd) passes over the cells, weighted by pixel count, move
//     each colour to the mean of the cells nearest to it.
//  5. Mapping: Floyd–Steinberg error diffusion in serpentine order (even rows left to right,
//     odd rows right to left, which avoids the diagonal drift of one-way scans), with error
//     kept in 1/16 units. Nearest colours come from a cache over 5-bit cells holding the two
//     colours nearest each cell's centre; the pixel takes the nearer of the two. (An exact
//     search per pixel costs 3-4 times more on photos for a mean error 0.08 lower; a 6-bit
//     cache is 512 KB and spends its time in cache misses.) Palettes from exact colours are
//     too fine for 5-bit cells, so there each pixel gets an exact search instead, started
//     from its neighbour's colour.
//     Palette searches walk the palette sorted by r+g+b outwards from the target's sum and
//     stop when the difference in sums alone rules out every remaining colour.
// Alpha: pixels with alpha < 128 take the transparent index and neither receive nor pass on
// diffusion error; all other pixels count as opaque, with their colour unchanged.
// Everything lives in per-call allocations, so calls may run in parallel.
// Measured (2-core VM, -O2): 451x300 photo 6-7 ms, mean absolute error 2.8 per channel;
// 4000x3000 photo ~300 ms, 3.4.
#include "cgif_shim.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- 1. exact colours

#define CG_EXACT_SLOTS 1024  // for at most 257 keys: short probe chains

static inline uint32_t cg_hash(uint32_t rgb) { return (rgb * 2654435761u) >> 22; }  // 10 bits

// Returns the number of distinct opaque colours (stopping at 257) and whether some pixel is
// transparent (only reliable when the count stayed <= 256). Writes indices as it goes;
// transparent pixels get 255 for now.
static int cg_exact_pass(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, uint8_t *indices,
                         uint8_t palette[256 * 3], bool *has_transparency) {
    uint32_t keys[CG_EXACT_SLOTS];   // 0 = empty; else 0x01000000 | rgb
    uint8_t slot_index[CG_EXACT_SLOTS];
    memset(keys, 0, sizeof keys);
    int count = 0;
    bool transparent = false;
    uint32_t last_key = 0;
    uint8_t last_index = 0;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        uint8_t *out = indices + (size_t)y * width;
        for (uint32_t x = 0; x < width; x++, p += 4) {
            if (p[3] < 128) { transparent = true; out[x] = 255; continue; }
            uint32_t key = 0x01000000u | ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
            if (key == last_key) { out[x] = last_index; continue; }
            uint32_t h = cg_hash(key);
            while (keys[h] && keys[h] != key) h = (h + 1) & (CG_EXACT_SLOTS - 1);
            if (!keys[h]) {
                if (count == 256) { *has_transparency = transparent; return 257; }
                keys[h] = key;
                slot_index[h] = (uint8_t)count;
                palette[count * 3] = p[0];
                palette[count * 3 + 1] = p[1];
                palette[count * 3 + 2] = p[2];
                count++;
            }
            last_key = key;
            last_index = slot_index[h];
            out[x] = last_index;
        }
    }
    *has_transparency = transparent;
    return count;
}

// ---------------------------------------------------------------- 2. histogram

typedef struct cg_bin {
    uint32_t count;
    uint32_t low[3];  // sums of the 3 bits dropped from each channel
} cg_bin;

// A histogram cell: a 5-bit-per-channel bin, or one exact colour (see cg_exact_cells).
typedef struct cg_cell {
    float c[3];       // mean colour of the cell's pixels
    float weight;     // pixel count
    uint8_t q[3];     // c rounded, for sorting
} cg_cell;

// At most this many pixels go into the histogram (rows are sampled beyond it), which also
// keeps the 32-bit low-bit sums (<= 7 per pixel) from overflowing.
#define CG_HISTOGRAM_PIXELS (1u << 24)

// ---------------------------------------------------------------- 3. box splitting

typedef struct cg_box {
    uint32_t start, end;   // cells[start..end)
    double weight, sum[3], sq[3];
    double error;          // summed squared error around the mean; < 0: cannot be split
} cg_box;

static void cg_box_stats(cg_box *box, const cg_cell *cells) {
    double w = 0, s[3] = { 0, 0, 0 }, q[3] = { 0, 0, 0 };
    for (uint32_t i = box->start; i < box->end; i++) {
        const cg_cell *c = &cells[i];
        w += c->weight;
        for (int k = 0; k < 3; k++) {
            double v = c->c[k];
            s[k] += c->weight * v;
            q[k] += c->weight * v * v;
        }
    }
    box->weight = w;
    double e = 0;
    for (int k = 0; k < 3; k++) {
        box->sum[k] = s[k];
        box->sq[k] = q[k];
        e += q[k] - s[k] * s[k] / w;
    }
    box->error = box->end - box->start > 1 ? (e > 0 ? e : 0) : -1;
}

// Splits `box` (of at least two cells) into itself and `right`.
static void cg_split(cg_box *box, cg_box *right, cg_cell *cells, cg_cell *scratch) {
    // The channel with the largest variance.
    int axis = 0;
    double best_var = -1;
    for (int k = 0; k < 3; k++) {
        double var = box->sq[k] - box->sum[k] * box->sum[k] / box->weight;
        if (var > best_var) { best_var = var; axis = k; }
    }
    // Counting sort of the box's cells on that channel.
    uint32_t offsets[257];
    memset(offsets, 0, sizeof offsets);
    for (uint32_t i = box->start; i < box->end; i++) offsets[cells[i].q[axis] + 1]++;
    for (int v = 0; v < 256; v++) offsets[v + 1] += offsets[v];
    for (uint32_t i = box->start; i < box->end; i++) scratch[offsets[cells[i].q[axis]]++] = cells[i];
    uint32_t n = box->end - box->start;
    memcpy(cells + box->start, scratch, n * sizeof *cells);

    // The cut minimising SSE(left) + SSE(right) = const - |S_l|^2/W_l - |S_r|^2/W_r,
    // i.e. maximising |S_l|^2/W_l + |S_r|^2/W_r. Only between cells of different coordinate.
    double lw = 0, ls[3] = { 0, 0, 0 };
    double best = -1;
    uint32_t cut = 0;
    for (uint32_t i = box->start; i + 1 < box->end; i++) {
        const cg_cell *c = &cells[i];
        lw += c->weight;
        for (int k = 0; k < 3; k++) ls[k] += c->weight * c->c[k];
        if (c->q[axis] == cells[i + 1].q[axis]) continue;
        double rw = box->weight - lw;
        if (rw <= 0) break;
        double score = 0;
        for (int k = 0; k < 3; k++) {
            double rs = box->sum[k] - ls[k];
            score += ls[k] * ls[k] / lw + rs * rs / rw;
        }
        if (score > best) { best = score; cut = i + 1; }
    }
    if (cut == 0) cut = box->start + n / 2;  // all cells round to one value on that channel
    right->start = cut;
    right->end = box->end;
    box->end = cut;
    cg_box_stats(box, cells);
    cg_box_stats(right, cells);
}

// ---------------------------------------------------------------- nearest colour

// The palette sorted by r+g+b. For colours v and p, (Σv - Σp)² <= 3·|v - p|², so once the sums
// alone put a colour 3·best away, every colour further along the sorted list is worse too.
typedef struct cg_search {
    int n;
    int sum[256];
    int16_t c[256][3];
    uint8_t index[256];      // sorted position -> palette index
    uint8_t position[256];   // palette index -> sorted position
} cg_search;

static void cg_search_build(cg_search *s, const uint8_t *palette, int n) {
    // Insertion sort: n <= 256 and this runs a handful of times per frame.
    s->n = n;
    for (int i = 0; i < n; i++) {
        int r = palette[i * 3], g = palette[i * 3 + 1], b = palette[i * 3 + 2], sum = r + g + b;
        int j = i;
        while (j > 0 && s->sum[j - 1] > sum) {
            s->sum[j] = s->sum[j - 1];
            memcpy(s->c[j], s->c[j - 1], sizeof s->c[j]);
            s->index[j] = s->index[j - 1];
            j--;
        }
        s->sum[j] = sum;
        s->c[j][0] = (int16_t)r;
        s->c[j][1] = (int16_t)g;
        s->c[j][2] = (int16_t)b;
        s->index[j] = (uint8_t)i;
    }
    for (int j = 0; j < n; j++) s->position[s->index[j]] = (uint8_t)j;
}

static inline int cg_distance(const int16_t *c, int r, int g, int b) {
    int dr = c[0] - r, dg = c[1] - g, db = c[2] - b;
    return dr * dr + dg * dg + db * db;
}

// The palette index nearest to (r, g, b). `guess` (a palette index, or -1) is a likely answer:
// starting from its distance lets the walk stop sooner.
static int cg_nearest(const cg_search *s, int r, int g, int b, int guess) {
    int sum = r + g + b;
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (s->sum[mid] < sum) lo = mid + 1;
        else hi = mid;
    }
    int best = 1 << 20, best_at = lo < s->n ? lo : s->n - 1;  // above any real distance (3·255²)
    if (guess >= 0) {
        best_at = s->position[guess];
        best = cg_distance(s->c[best_at], r, g, b);
    }
    int up = lo, down = lo - 1;
    bool go_up = up < s->n, go_down = down >= 0;
    while (go_up || go_down) {
        if (go_up) {
            int ds = s->sum[up] - sum;
            if (ds * ds >= 3 * best) go_up = false;
            else {
                int d = cg_distance(s->c[up], r, g, b);
                if (d < best) { best = d; best_at = up; }
                go_up = ++up < s->n;
            }
        }
        if (go_down) {
            int ds = sum - s->sum[down];
            if (ds * ds >= 3 * best) go_down = false;
            else {
                int d = cg_distance(s->c[down], r, g, b);
                if (d < best) { best = d; best_at = down; }
                go_down = --down >= 0;
            }
        }
    }
    return s->index[best_at];
}

// The two palette indices nearest to (r, g, b), nearest first (the same twice for a
// one-colour palette), packed as first | second << 8. Same walk as cg_nearest, bounded by
// the runner-up's distance.
static uint16_t cg_nearest_two(const cg_search *s, int r, int g, int b) {
    int sum = r + g + b;
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (s->sum[mid] < sum) lo = mid + 1;
        else hi = mid;
    }
    int best = 1 << 20, second = 1 << 20, best_at = -1, second_at = -1;
    int up = lo, down = lo - 1;
    bool go_up = up < s->n, go_down = down >= 0;
    while (go_up || go_down) {
        for (int side = 0; side < 2; side++) {
            if (side == 0 ? !go_up : !go_down) continue;
            int j = side == 0 ? up : down;
            int ds = side == 0 ? s->sum[j] - sum : sum - s->sum[j];
            if (ds * ds >= 3 * second) {
                if (side == 0) go_up = false; else go_down = false;
                continue;
            }
            int d = cg_distance(s->c[j], r, g, b);
            if (d < best) { second = best; second_at = best_at; best = d; best_at = j; }
            else if (d < second) { second = d; second_at = j; }
            if (side == 0) go_up = ++up < s->n;
            else go_down = --down >= 0;
        }
    }
    if (second_at < 0) second_at = best_at;
    return (uint16_t)(s->index[best_at] | (s->index[second_at] << 8));
}

// ---------------------------------------------------------------- 4. refinement

static inline uint8_t cg_round8(double v) {
    if (v <= 0) return 0;
    if (v >= 255) return 255;
    return (uint8_t)(v + 0.5);
}

// With dithering the passes change the mean error little (2.90 -> 2.89 on the test photo);
// they mostly pull colours off box averages that no pixel is near.
#define CG_KMEANS_PASSES 2

static void cg_refine(const cg_cell *cells, uint8_t *assignment, uint32_t n_cells, uint8_t *palette, int colors) {
    double *acc = malloc((size_t)colors * 4 * sizeof *acc);
    cg_search *search = malloc(sizeof *search);
    if (!acc || !search) { free(acc); free(search); return; }  // the unrefined palette is fine
    for (int pass = 0; pass < CG_KMEANS_PASSES; pass++) {
        cg_search_build(search, palette, colors);
        memset(acc, 0, (size_t)colors * 4 * sizeof *acc);
        for (uint32_t i = 0; i < n_cells; i++) {
            const cg_cell *c = &cells[i];
            int k = cg_nearest(search, cg_round8(c->c[0]), cg_round8(c->c[1]), cg_round8(c->c[2]), assignment[i]);
            assignment[i] = (uint8_t)k;
            double *a = acc + k * 4;
            a[0] += c->weight * c->c[0];
            a[1] += c->weight * c->c[1];
            a[2] += c->weight * c->c[2];
            a[3] += c->weight;
        }
        for (int k = 0; k < colors; k++) {
            double *a = acc + k * 4;
            if (a[3] <= 0) continue;  // no cell chose it: keep it where it was
            for (int ch = 0; ch < 3; ch++) palette[k * 3 + ch] = cg_round8(a[ch] / a[3]);
        }
    }
    free(acc);
    free(search);
}

// The opaque pixels' exact colours as cells, for frames whose 5-bit cells are fewer than the
// palette has room for: smooth gradients and antialiased drawings with a few hundred or
// thousand colours, which 5-bit cells would reduce to a coarse palette and then dither.
// Returns the number of cells (*cells malloc'd with room for as many again, as sort scratch),
// 0 when there are more than `limit` colours, or -1 when out of memory.
static long cg_exact_cells(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, uint32_t row_step,
                           uint32_t limit, cg_cell **cells_out) {
    uint32_t capacity = 4096, used = 0;  // open addressing, at most half full
    uint32_t *keys = calloc(capacity, sizeof *keys), *counts = calloc(capacity, sizeof *counts);
    if (!keys || !counts) { free(keys); free(counts); return -1; }
    for (uint32_t y = 0; y < height; y += row_step) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++, p += 4) {
            if (p[3] < 128) continue;
            uint32_t key = 0x01000000u | ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
            uint32_t mask = capacity - 1, h = (key * 2654435761u) & mask;
            while (keys[h] && keys[h] != key) h = (h + 1) & mask;
            if (keys[h]) { counts[h]++; continue; }
            if (used == limit) { free(keys); free(counts); return 0; }
            keys[h] = key;
            counts[h] = 1;
            if (++used * 2 > capacity) {
                uint32_t grown_capacity = capacity * 2, grown_mask = grown_capacity - 1;
                uint32_t *grown_keys = calloc(grown_capacity, sizeof *grown_keys);
                uint32_t *grown_counts = calloc(grown_capacity, sizeof *grown_counts);
                if (!grown_keys || !grown_counts) {
                    free(grown_keys); free(grown_counts); free(keys); free(counts);
                    return -1;
                }
                for (uint32_t i = 0; i < capacity; i++) {
                    if (!keys[i]) continue;
                    uint32_t g = (keys[i] * 2654435761u) & grown_mask;
                    while (grown_keys[g]) g = (g + 1) & grown_mask;
                    grown_keys[g] = keys[i];
                    grown_counts[g] = counts[i];
                }
                free(keys); free(counts);
                keys = grown_keys; counts = grown_counts;
                capacity = grown_capacity;
            }
        }
    }
    cg_cell *cells = malloc((size_t)used * 2 * sizeof *cells);
    if (!cells) { free(keys); free(counts); return -1; }
    uint32_t n = 0;
    for (uint32_t i = 0; i < capacity; i++) {
        if (!keys[i]) continue;
        cg_cell *c = &cells[n++];
        for (int k = 0; k < 3; k++) {
            c->q[k] = (uint8_t)(keys[i] >> (16 - 8 * k));
            c->c[k] = (float)c->q[k];
        }
        c->weight = (float)counts[i];
    }
    free(keys); free(counts);
    *cells_out = cells;
    return n;
}

// Chooses up to `max_colors` colours for the opaque pixels. Returns the number chosen (>= 1
// when there is any opaque pixel), or -1 when out of memory. *exact_cells tells whether the
// palette came from exact colours (see cg_exact_cells).
static int cg_choose_palette(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, int max_colors,
                             uint8_t *palette, bool *exact_cells) {
    *exact_cells = false;
    cg_bin *bins = calloc(32768, sizeof *bins);
    if (!bins) return -1;
    uint64_t pixels = (uint64_t)width * height;
    uint32_t row_step = (uint32_t)(pixels / CG_HISTOGRAM_PIXELS + 1);
    uint32_t n_cells = 0;
    for (;;) {
        for (uint32_t y = 0; y < height; y += row_step) {
            const uint8_t *p = rgba + (size_t)y * stride;
            for (uint32_t x = 0; x < width; x++, p += 4) {
                if (p[3] < 128) continue;
                cg_bin *b = &bins[((p[0] >> 3) << 10) | ((p[1] >> 3) << 5) | (p[2] >> 3)];
                b->count++;
                b->low[0] += p[0] & 7;
                b->low[1] += p[1] & 7;
                b->low[2] += p[2] & 7;
            }
        }
        for (uint32_t key = 0; key < 32768; key++) n_cells += bins[key].count != 0;
        // The sampled rows may all be transparent while other rows are not: then every row.
        // (A bin's low-bit sums could wrap past 600 million pixels; that only skews its colour.)
        if (n_cells > 0 || row_step == 1) break;
        row_step = 1;
    }
    if (n_cells == 0) { free(bins); return 0; }

    cg_cell *cells = NULL;
    if (n_cells < (uint32_t)max_colors) {
        // A 5-bit cell holds at most 512 colours, so this is bounded; the limit keeps the
        // hash table and the box splitting small.
        long exact = cg_exact_cells(rgba, stride, width, height, row_step, 1u << 16, &cells);
        if (exact < 0) { free(bins); return -1; }
        if (exact > 0) { n_cells = (uint32_t)exact; *exact_cells = true; }
    }
    if (!cells) {
        cells = malloc((size_t)n_cells * 2 * sizeof *cells);  // second half: sort scratch
        if (!cells) { free(bins); return -1; }
        uint32_t n = 0;
        for (uint32_t key = 0; key < 32768; key++) {
            const cg_bin *b = &bins[key];
            if (!b->count) continue;
            cg_cell *c = &cells[n++];
            float count = (float)b->count;
            c->c[0] = (float)((key >> 10) << 3) + (float)b->low[0] / count;
            c->c[1] = (float)(((key >> 5) & 31) << 3) + (float)b->low[1] / count;
            c->c[2] = (float)((key & 31) << 3) + (float)b->low[2] / count;
            for (int k = 0; k < 3; k++) c->q[k] = cg_round8(c->c[k]);
            c->weight = count;
        }
    }
    free(bins);

    cg_box *boxes = malloc((size_t)max_colors * sizeof *boxes);
    uint8_t *assignment = malloc(n_cells);
    if (!boxes || !assignment) { free(cells); free(boxes); free(assignment); return -1; }
    int n_boxes = 1;
    boxes[0].start = 0;
    boxes[0].end = n_cells;
    cg_box_stats(&boxes[0], cells);
    while (n_boxes < max_colors) {
        int pick = -1;
        double worst = 0;
        for (int i = 0; i < n_boxes; i++)
            if (boxes[i].error > worst || (pick < 0 && boxes[i].error >= 0)) { worst = boxes[i].error; pick = i; }
        if (pick < 0) break;  // every box is a single cell
        cg_split(&boxes[pick], &boxes[n_boxes], cells, cells + n_cells);
        n_boxes++;
    }
    for (int i = 0; i < n_boxes; i++) {
        for (int k = 0; k < 3; k++) palette[i * 3 + k] = cg_round8(boxes[i].sum[k] / boxes[i].weight);
        for (uint32_t j = boxes[i].start; j < boxes[i].end; j++) assignment[j] = (uint8_t)i;
    }
    free(boxes);

    if (n_boxes > 1) cg_refine(cells, assignment, n_cells, palette, n_boxes);
    free(cells);
    free(assignment);
    return n_boxes;
}

// ---------------------------------------------------------------- 5. mapping

static inline int cg_clamp8(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

// Rounds q/16 to nearest without a data-dependent branch (the sign of diffused error is
// random, so a branch would mispredict half the time). |q| <= 16·255 here, so the biased value
// is positive and the shift is well defined.
static inline int cg_div16(int32_t q) { return ((q + 8 + (4096 << 4)) >> 4) - 4096; }

// Dithers the frame into `indices`. With `exact_search`, every pixel gets its true nearest
// colour from a palette search started at its neighbour's colour (for palettes made of exact
// colours, spaced too finely for the cell cache below). Returns false when out of memory.
static bool cg_dither(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, const uint8_t *palette,
                      int colors, int transparent, bool exact_search, uint8_t *indices) {
    cg_search *search = malloc(sizeof *search);
    // Per 8x8x8 cell of RGB space: the two colours nearest its centre, looked up on first use
    // (0xFFFF until then: a real pair repeats an index only for a one-colour palette, index 0).
    // Comparing a pixel with both finds its true nearest colour almost always -- in
    // particular a flat area whose colour is in the palette keeps it exactly -- at the cost of
    // two distances instead of a palette search per pixel. 64 KB: it stays in cache, which a
    // finer (6-bit) table did not.
    uint16_t *cache = malloc(32768 * sizeof *cache);
    // Error pushed into the next row, in 1/16 units, per channel, with a guard pixel at each
    // end; two rows, swapped after each row.
    int32_t *errors = calloc((size_t)(width + 2) * 2 * 3, sizeof *errors);
    if (!search || !cache || !errors) { free(search); free(cache); free(errors); return false; }
    cg_search_build(search, palette, colors);
    memset(cache, 0xFF, 32768 * sizeof *cache);
    uint8_t color[256][4];  // padded copy for cheap loads
    memset(color, 0, sizeof color);
    for (int i = 0; i < colors; i++) memcpy(color[i], palette + i * 3, 3);

    // Floyd–Steinberg weights: 7/16 to the next pixel in scan order, 3/16, 5/16 and 1/16 to
    // the pixels below (behind, under, beyond).
#define DIFFUSE(ER, EG, EB) do { \
        int32_t er = (ER), eg = (EG), eb = (EB); \
        ahead_r = er * 7; ahead_g = eg * 7; ahead_b = eb * 7; \
        int32_t *below = next + (x + 1) * 3, *behind = below - dir * 3, *beyond = below + dir * 3; \
        behind[0] += er * 3; behind[1] += eg * 3; behind[2] += eb * 3; \
        below[0] += er * 5;  below[1] += eg * 5;  below[2] += eb * 5; \
        beyond[0] += er;     beyond[1] += eg;     beyond[2] += eb; \
    } while (0)

    int previous = 0;
    int32_t *current = errors, *next = errors + (size_t)(width + 2) * 3;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = rgba + (size_t)y * stride;
        uint8_t *out = indices + (size_t)y * width;
        // Serpentine: even rows left to right, odd rows right to left.
        const long dir = (y & 1) ? -1 : 1;
        long x = dir > 0 ? 0 : (long)width - 1;
        memset(next, 0, (size_t)(width + 2) * 3 * sizeof *next);
        int32_t ahead_r = 0, ahead_g = 0, ahead_b = 0;  // 7/16 of the last pixel's error, for the next one
        for (uint32_t i = 0; i < width; i++, x += dir) {
            const uint8_t *p = row + x * 4;
            if (p[3] < 128) {
                out[x] = (uint8_t)transparent;
                ahead_r = ahead_g = ahead_b = 0;
                continue;
            }
            const int32_t *e = current + (x + 1) * 3;
            int r = cg_clamp8(p[0] + cg_div16(e[0] + ahead_r));
            int g = cg_clamp8(p[1] + cg_div16(e[1] + ahead_g));
            int b = cg_clamp8(p[2] + cg_div16(e[2] + ahead_b));
            if (exact_search) {
                previous = cg_nearest(search, r, g, b, previous);
                const uint8_t *chosen = color[previous];
                out[x] = (uint8_t)previous;
                DIFFUSE(r - chosen[0], g - chosen[1], b - chosen[2]);
                continue;
            }
            uint32_t cell = ((uint32_t)(r >> 3) << 10) | ((uint32_t)(g >> 3) << 5) | (uint32_t)(b >> 3);
            uint16_t pair = cache[cell];
            if (pair == 0xFFFF)
                pair = cache[cell] = cg_nearest_two(search, (r & ~7) + 4, (g & ~7) + 4, (b & ~7) + 4);
            int first = (int)(pair & 255), other = (int)(pair >> 8);
            const uint8_t *c1 = color[first], *c2 = color[other];
            int d1 = (c1[0] - r) * (c1[0] - r) + (c1[1] - g) * (c1[1] - g) + (c1[2] - b) * (c1[2] - b);
            int d2 = (c2[0] - r) * (c2[0] - r) + (c2[1] - g) * (c2[1] - g) + (c2[2] - b) * (c2[2] - b);
            int index = d2 < d1 ? other : first;
            const uint8_t *chosen = d2 < d1 ? c2 : c1;
            out[x] = (uint8_t)index;
            DIFFUSE(r - chosen[0], g - chosen[1], b - chosen[2]);
        }
        int32_t *t = current; current = next; next = t;
    }
#undef DIFFUSE
    free(search);
    free(cache);
    free(errors);
    return true;
}

// ---------------------------------------------------------------- API

int cg_quantize(const uint8_t *rgba, size_t stride, uint32_t width, uint32_t height, cg_indexed *out) {
    memset(out, 0, sizeof *out);
    out->transparent = -1;
    out->width = width;
    out->height = height;
    uint64_t pixels = (uint64_t)width * height;
    if (pixels > SIZE_MAX) return CS_ERR_NOMEM;
    out->indices = malloc(pixels ? (size_t)pixels : 1);
    if (!out->indices) return CS_ERR_NOMEM;
    if (pixels == 0) { out->colors = 1; return CS_OK; }

    bool has_transparency = false;
    int count = cg_exact_pass(rgba, stride, width, height, out->indices, out->palette, &has_transparency);
    if (count <= (has_transparency ? 255 : 256)) {
        out->colors = count;
        if (has_transparency) {
            out->transparent = count;
            out->colors = count + 1;
            if (count != 255)
                for (size_t i = 0; i < (size_t)pixels; i++)
                    if (out->indices[i] == 255) out->indices[i] = (uint8_t)count;
        }
        return CS_OK;
    }

    // The exact pass stopped early, so it may not have seen a transparent pixel yet.
    if (!has_transparency) {
        for (uint32_t y = 0; y < height && !has_transparency; y++) {
            const uint8_t *p = rgba + (size_t)y * stride + 3;
            for (uint32_t x = 0; x < width; x++, p += 4)
                if (*p < 128) { has_transparency = true; break; }
        }
    }
    memset(out->palette, 0, sizeof out->palette);
    bool exact_cells = false;
    int colors = cg_choose_palette(rgba, stride, width, height, has_transparency ? 255 : 256, out->palette, &exact_cells);
    if (colors < 0) { cg_indexed_free(out); return CS_ERR_NOMEM; }
    if (colors == 0) colors = 1;  // no opaque pixel after all: unreachable, as 257 colours were seen
    if (has_transparency) out->transparent = colors;
    out->colors = colors + (has_transparency ? 1 : 0);
    if (!cg_dither(rgba, stride, width, height, out->palette, colors, out->transparent, exact_cells, out->indices)) {
        cg_indexed_free(out);
        return CS_ERR_NOMEM;
    }
    return CS_OK;
}

void cg_indexed_free(cg_indexed *frame) {
    if (!frame) return;
    free(frame->indices);
    frame->indices = NULL;
}
