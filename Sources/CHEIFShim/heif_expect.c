// The registry of heif_expect.h, and its hash: SipHash-2-4 (Aumasson and Bernstein),
// written from the paper's description.
#include "heif_expect.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------- the key

static uint64_t ch_key[2];
static pthread_once_t ch_key_once = PTHREAD_ONCE_INIT;

static void ch_make_key(void) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, ch_key, sizeof ch_key) : -1;
    if (fd >= 0) close(fd);
    if (got != (ssize_t)sizeof ch_key) {  // no /dev/urandom (a chroot): the clock and the stack
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        ch_key[0] = (uint64_t)t.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&t;
        ch_key[1] = (uint64_t)t.tv_sec * 0xbf58476d1ce4e5b9ull ^ (uint64_t)getpid();
    }
}

// ---------------------------------------------------------------- SipHash-2-4

static inline uint64_t ch_rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static inline void ch_round(ch_hash *h) {
    h->v0 += h->v1, h->v1 = ch_rotl(h->v1, 13), h->v1 ^= h->v0, h->v0 = ch_rotl(h->v0, 32);
    h->v2 += h->v3, h->v3 = ch_rotl(h->v3, 16), h->v3 ^= h->v2;
    h->v0 += h->v3, h->v3 = ch_rotl(h->v3, 21), h->v3 ^= h->v0;
    h->v2 += h->v1, h->v1 = ch_rotl(h->v1, 17), h->v1 ^= h->v2, h->v2 = ch_rotl(h->v2, 32);
}

static inline void ch_block(ch_hash *h, uint64_t m) {
    h->v3 ^= m;
    ch_round(h);
    ch_round(h);
    h->v0 ^= m;
}

void ch_hash_begin(ch_hash *h) {
    pthread_once(&ch_key_once, ch_make_key);
    h->v0 = ch_key[0] ^ 0x736f6d6570736575ull;
    h->v1 = ch_key[1] ^ 0x646f72616e646f6dull;
    h->v2 = ch_key[0] ^ 0x6c7967656e657261ull;
    h->v3 = ch_key[1] ^ 0x7465646279746573ull;
    h->tail = 0;
    h->tail_bytes = 0;
    h->total = 0;
}

void ch_hash_add(ch_hash *h, const uint8_t *p, size_t n) {
    h->total += n;
    while (n > 0 && h->tail_bytes > 0) {  // finish the block begun before
        h->tail |= (uint64_t)*p++ << (8 * h->tail_bytes);
        n--;
        if (++h->tail_bytes == 8) {
            ch_block(h, h->tail);
            h->tail = 0;
            h->tail_bytes = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8) {  // little-endian 64-bit words
        uint64_t m = 0;
        for (int i = 7; i >= 0; i--) m = m << 8 | p[i];
        ch_block(h, m);
    }
    for (; n > 0; n--) h->tail |= (uint64_t)*p++ << (8 * h->tail_bytes++);
}

uint64_t ch_hash_end(ch_hash *h) {
    ch_block(h, h->tail | (h->total & 0xff) << 56);
    h->v2 ^= 0xff;
    for (int i = 0; i < 4; i++) ch_round(h);
    return h->v0 ^ h->v1 ^ h->v2 ^ h->v3;
}

// ---------------------------------------------------------------- the registry

struct ch_expectations {
    ch_expect *list;
    uint32_t count;
    struct ch_expectations *next;
};

static pthread_mutex_t ch_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ch_expectations *ch_registry;

ch_expectations *ch_expect_begin(const ch_expect *list, uint32_t count) {
    ch_expectations *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->list = malloc((count ? count : 1) * sizeof *s->list);
    if (!s->list) {
        free(s);
        return NULL;
    }
    if (count) memcpy(s->list, list, count * sizeof *list);
    s->count = count;
    pthread_mutex_lock(&ch_registry_lock);
    s->next = ch_registry;
    ch_registry = s;
    pthread_mutex_unlock(&ch_registry_lock);
    return s;
}

void ch_expect_end(ch_expectations *session) {
    if (!session) return;
    pthread_mutex_lock(&ch_registry_lock);
    for (ch_expectations **at = &ch_registry; *at; at = &(*at)->next)
        if (*at == session) {
            *at = session->next;
            break;
        }
    pthread_mutex_unlock(&ch_registry_lock);
    free(session->list);
    free(session);
}

int ch_expect_take(unsigned codec, const uint8_t *data, size_t size, ch_expect *out) {
    ch_hash h;
    ch_hash_begin(&h);
    ch_hash_add(&h, data, size);
    uint64_t hash = ch_hash_end(&h);
    int found = 0;
    ch_expect *used = NULL;
    pthread_mutex_lock(&ch_registry_lock);
    for (ch_expectations *s = ch_registry; s; s = s->next)
        for (uint32_t i = 0; i < s->count; i++) {
            ch_expect *e = &s->list[i];
            if (e->codec != codec || e->length != size || e->hash != hash) continue;
            if (!used && e->uses > 0) used = e;
            if (!found) {
                *out = *e;
                found = 1;
                continue;
            }
            if (e->width > out->width) out->width = e->width;
            if (e->height > out->height) out->height = e->height;
            if (e->cap_width < out->cap_width) out->cap_width = e->cap_width;
            if (e->cap_height < out->cap_height) out->cap_height = e->cap_height;
            if (e->max_pixels < out->max_pixels) out->max_pixels = e->max_pixels;
        }
    if (used) used->uses--;
    pthread_mutex_unlock(&ch_registry_lock);
    return used != NULL;
}

const char *ch_expect_misfit(const ch_expect *x, const char *what, uint32_t w, uint32_t h, unsigned scale,
                             unsigned margin, int whole, char *why, size_t size) {
    if ((uint64_t)w * h > x->max_pixels) {
        snprintf(why, size, "item %u's %s %ux%u, over the limit of %llu pixels", x->item, what, w, h,
                 (unsigned long long)x->max_pixels);
        return why;
    }
    if (x->width == UINT32_MAX) return NULL;
    int larger = w > (uint64_t)scale * x->cap_width + margin || h > (uint64_t)scale * x->cap_height + margin;
    int smaller = whole && (w < x->width || h < x->height);
    if (!larger && !smaller) return NULL;
    snprintf(why, size, "item %u's %s %ux%u, %s than the %ux%u it declares", x->item, what, w, h,
             larger ? "larger" : "smaller", x->width, x->height);
    return why;
}
