// HEVC decoding for libheif through libde265 on several threads (hevc_decoder.c).
#pragma once
#include <libheif/heif.h>

// Registers, on `ctx`, an HEVC decoder that runs libde265 with a worker thread per core
// (up to 8) for a large picture when `threaded`, else one (more workers change nothing in
// the result, only the speed). It takes precedence over libheif's own libde265 plugin,
// which always runs one.
struct heif_error ch_register_hevc_decoder(struct heif_context *ctx, int threaded);
