// Parallel PNG encoding pieces: see include/cpng_shim.h and the PNG specification,
// sections 9 (filtering) and 10 (compression); zlib's manual for deflate with
// Z_SYNC_FLUSH, deflateSetDictionary and adler32_combine. The deflate is zlib-ng's native
// API (vendored: Sources/CZlibNG/README.md says why).
#include "cpng_shim.h"

#include <stdlib.h>
#include <string.h>

#include "zlib-ng.h"

size_t cp_scanline_bytes(uint32_t width, int channels, uint32_t rows) {
    return (size_t)rows * (1 + (size_t)width * (size_t)channels);
}

static void cp_pack_row(const uint8_t *rgba, uint32_t width, int channels, uint8_t *out) {
    if (channels == 4) {
        memcpy(out, rgba, (size_t)width * 4);
        return;
    }
    if (channels == 1) {  // grey: the picture's red (a grey picture's R = G = B)
        for (uint32_t x = 0; x < width; x++) out[x] = rgba[4 * x];
        return;
    }
    for (uint32_t x = 0; x < width; x++) {
        out[3 * x] = rgba[4 * x];
        out[3 * x + 1] = rgba[4 * x + 1];
        out[3 * x + 2] = rgba[4 * x + 2];
    }
}

static inline uint8_t cp_paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    return (uint8_t)(pb <= pc ? b : c);
}

// Sum of the filtered bytes read as signed values (libpng's heuristic).
static inline unsigned cp_cost(const uint8_t *row, size_t n) {
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) sum += row[i] < 128 ? row[i] : 256 - row[i];
    return sum;
}

int cp_filter_rows(const uint8_t *image, size_t stride, uint32_t width, uint32_t first, uint32_t count,
                   int channels, uint8_t *out) {
    const size_t n = (size_t)width * (size_t)channels, bpp = (size_t)channels;
    uint8_t *buffer = malloc(n * 7 + 16);
    if (!buffer) return CS_ERR_NOMEM;
    uint8_t *prev = buffer, *cur = buffer + n, *cand[5];
    for (int f = 0; f < 5; f++) cand[f] = buffer + (2 + (size_t)f) * n;
    if (first > 0) cp_pack_row(image + (size_t)(first - 1) * stride, width, channels, prev);
    else memset(prev, 0, n);

    // Rows of a few bytes (a picture 1 to 4 pixels wide): the Up filter for every row, the
    // previous row's difference, with no trial of the others (their cost was the row's).
    if (n <= 16) {
        for (uint32_t r = 0; r < count; r++) {
            cp_pack_row(image + (size_t)(first + r) * stride, width, channels, cur);
            uint8_t *line = out + (size_t)r * (n + 1);
            line[0] = 2;
            for (size_t i = 0; i < n; i++) line[1 + i] = (uint8_t)(cur[i] - prev[i]);
            uint8_t *t = prev; prev = cur; cur = t;
        }
        free(buffer);
        return CS_OK;
    }
    for (uint32_t r = 0; r < count; r++) {
        cp_pack_row(image + (size_t)(first + r) * stride, width, channels, cur);
        uint8_t *none = cand[0], *sub = cand[1], *up = cand[2], *avg = cand[3], *pae = cand[4];
        for (size_t i = 0; i < bpp; i++) {
            none[i] = cur[i];
            sub[i] = cur[i];
            up[i] = (uint8_t)(cur[i] - prev[i]);
            avg[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
            pae[i] = (uint8_t)(cur[i] - cp_paeth(0, prev[i], 0));
        }
        for (size_t i = bpp; i < n; i++) {
            none[i] = cur[i];
            sub[i] = (uint8_t)(cur[i] - cur[i - bpp]);
            up[i] = (uint8_t)(cur[i] - prev[i]);
            avg[i] = (uint8_t)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
            pae[i] = (uint8_t)(cur[i] - cp_paeth(cur[i - bpp], prev[i], prev[i - bpp]));
        }
        int best = 0;
        unsigned best_cost = cp_cost(none, n);
        for (int f = 1; f < 5; f++) {
            unsigned c = cp_cost(cand[f], n);
            if (c < best_cost) { best_cost = c; best = f; }
        }
        uint8_t *line = out + (size_t)r * (n + 1);
        line[0] = (uint8_t)best;
        memcpy(line + 1, cand[best], n);
        uint8_t *t = prev; prev = cur; cur = t;
    }
    free(buffer);
    return CS_OK;
}

int cp_deflate_piece(const uint8_t *data, size_t length, const uint8_t *dictionary, size_t dictionary_length,
                     int level, int last, uint8_t **out, size_t *out_length, uint32_t *adler) {
    *out = NULL;
    *out_length = 0;
    *adler = 1;
    zng_stream z;
    memset(&z, 0, sizeof z);
    if (zng_deflateInit2(&z, level < 0 ? 0 : level > 9 ? 9 : level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return CS_ERR_NOMEM;
    if (dictionary && dictionary_length) {
        if (dictionary_length > 32768) {
            dictionary += dictionary_length - 32768;
            dictionary_length = 32768;
        }
        zng_deflateSetDictionary(&z, dictionary, (uint32_t)dictionary_length);
    }
    size_t capacity = zng_deflateBound(&z, (unsigned long)length) + 64;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) { zng_deflateEnd(&z); return CS_ERR_NOMEM; }
    uint32_t a = zng_adler32(0, NULL, 0);
    size_t done = 0;
    z.next_out = buffer;
    z.avail_out = (uint32_t)capacity;
    // Feed at most 1 GiB at a time (avail_in is 32-bit).
    do {
        size_t piece = length - done > (1u << 30) ? (1u << 30) : length - done;
        z.next_in = data + done;
        z.avail_in = (uint32_t)piece;
        a = zng_adler32(a, data + done, (uint32_t)piece);
        done += piece;
        int flush = done < length ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
        int rc = zng_deflate(&z, flush);
        if (rc == Z_STREAM_ERROR || (flush == Z_FINISH && rc != Z_STREAM_END)) {
            free(buffer);
            zng_deflateEnd(&z);
            return CS_ERR_NOMEM;
        }
    } while (done < length);
    if (z.avail_out == 0) {  // cannot happen within deflateBound, but never write a cut stream
        free(buffer);
        zng_deflateEnd(&z);
        return CS_ERR_NOMEM;
    }
    *out_length = capacity - z.avail_out;
    *out = buffer;
    *adler = (uint32_t)a;
    zng_deflateEnd(&z);
    return CS_OK;
}

uint32_t cp_adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
    return zng_adler32_combine(first, second, (z_off_t)second_length);
}

uint32_t cp_crc32(uint32_t crc, const uint8_t *data, size_t length) {
    return zng_crc32(crc, data, (uint32_t)length);
}
