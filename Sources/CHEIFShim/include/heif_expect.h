// What the pre-scan (heif_scan.c) checked, handed to catctl's own decoder plugins for
// libheif (hevc_decoder.c, av1_decoder.c), which receive every coded picture libheif 1.15
// decodes as one buffer: an item's codec configuration (hvcC NAL units with 4-byte
// lengths, or av1C's OBUs) followed by the item's extents, in iloc order.
//
// The scan predicts each of those buffers for the items it checked (the primary, its
// tiles, its alpha and other auxiliary images) and registers them here, by a keyed hash,
// with the item's declared size and how many times it may be decoded. The plugins look up
// every buffer they are given: one the scan did not predict means the scan and libheif
// read the file differently, and it is refused before the codec sees a byte. One that is
// found is then checked again on its own bytes (each HEVC SPS, each AV1 sequence header)
// and on the picture the codec returns: never larger than declared (by more than a coding
// block) or than the pixel limit, never smaller than declared (libheif 1.15 does not
// check: an alpha plane smaller than its image is read past its end).
#pragma once
#include <stddef.h>
#include <stdint.h>

enum { CH_EXPECT_HEVC = 1, CH_EXPECT_AV1 = 2 };

typedef struct ch_expect {
    uint64_t hash, length;      // of the buffer libheif will push (ch_hash)
    unsigned codec;             // CH_EXPECT_HEVC or CH_EXPECT_AV1
    uint32_t item;              // the item's id, to name it
    uint32_t width, height;     // declared ('ispe'); UINT32_MAX for a layered AV1 image (any size)
    // The least of the declared sizes the same bytes have in the decodes under way (the
    // bound a picture may not pass); width and height, the greatest (it may not be smaller).
    uint32_t cap_width, cap_height;
    uint32_t uses;              // decodes left
    uint64_t max_pixels;
} ch_expect;

// A keyed hash of bytes given in pieces (SipHash-2-4 under a key made once a process from
// the system's randomness: a file cannot be crafted to collide with another buffer).
typedef struct ch_hash {
    uint64_t v0, v1, v2, v3, tail, total;
    unsigned tail_bytes;
} ch_hash;

void ch_hash_begin(ch_hash *h);
void ch_hash_add(ch_hash *h, const uint8_t *p, size_t n);
uint64_t ch_hash_end(ch_hash *h);

// A decode's expectations, registered while libheif decodes (a batch decodes several
// files at once: the registry holds every session's).
typedef struct ch_expectations ch_expectations;

// Registers `count` expectations (copied); NULL when out of memory.
ch_expectations *ch_expect_begin(const ch_expect *list, uint32_t count);
void ch_expect_end(ch_expectations *session);

// The expectation for a buffer a plugin was given: 1 with *out filled (its use counted),
// 0 when no session expects it (or it was decoded as often as expected already). The same
// bytes may be an item of two files decoded at once (a batch): *out is then all of them
// at once (the greatest declared size below, the least above, the least pixel limit), and
// a use is taken from one that has one left.
int ch_expect_take(unsigned codec, const uint8_t *data, size_t size, ch_expect *out);

// Whether a picture of w x h, of `what` ("HEVC picture is", "AV1 picture is"), fits x:
// within the pixel limit; not larger than `scale` times the least declared size and
// `margin` (the codec's coding block, or a layered stream's first layer); with `whole`,
// not smaller than the greatest declared size (a coded size still has its cropping).
// NULL when it fits, else why, in `why`. A layered image (width UINT32_MAX) is held to
// the pixel limit alone.
const char *ch_expect_misfit(const ch_expect *x, const char *what, uint32_t w, uint32_t h, unsigned scale,
                             unsigned margin, int whole, char *why, size_t size);
