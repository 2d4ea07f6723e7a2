// AV1 decoding for libheif through dav1d, bounded by what the pre-scan checked (av1_decoder.c).
#pragma once
#include <libheif/heif.h>

// Registers, on `ctx`, an AV1 decoder over dav1d that runs several threads for a large
// picture when `threaded`, else one. It takes precedence over libheif's own dav1d and aom
// plugins (for grid tiles and alpha planes too, which libheif decodes without options).
struct heif_error ch_register_av1_decoder(struct heif_context *ctx, int threaded);
