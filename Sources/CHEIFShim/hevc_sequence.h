// HEIF image sequences (brands msf1/hevs): the HEVC track of the file's 'moov', decoded
// with libde265 frame by frame (hevc_sequence.c). libheif 1.15 reads only still items and
// no Debian 12 library reads these tracks, so this reads the few boxes a track needs.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct ch_hevs ch_hevs;

// The first HEVC track ('hvc1' or 'hev1' with an 'hvcC') in `data`'s 'moov': CS_OK with *out
// set (and its width, height and sample count), CS_OK with *out NULL when there is none, or
// a CH_ERR_* (cheif_shim.h) with the reason in why[0..size). Nothing is decoded yet; the declared
// size and the sample count are checked against max_pixels and max_frames here (LIMIT).
// `data` must stay alive and unchanged while *out lives.
int ch_hevs_open(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, ch_hevs **out,
                 uint32_t *width, uint32_t *height, uint32_t *frames, char *why, size_t size);

// Decodes the next frame, in presentation order, as RGBA8 (alpha 255) into `dst` (rows of
// `stride` bytes, at least width*4) and gives its duration in ms. `threaded`: libde265 with a
// worker per core. CS_OK, or a CH_ERR_* with the reason in why.
int ch_hevs_next(ch_hevs *sequence, uint8_t *dst, size_t stride, int threaded, int *delay_ms, char *why,
                 size_t size);

// Back to the first frame (the decoder starts again).
void ch_hevs_rewind(ch_hevs *sequence);

void ch_hevs_free(ch_hevs *sequence);
