// libheif, libavif, libde265 and dav1d, loaded when a HEIC or AVIF file is first read or written
// (CShimSupport's cs_library): catctl starts about 11 ms sooner without them and their
// AV1 and HEVC codecs. The lists are every function this shim calls; a call goes through
// HEIF(name), AVIF(name) or DE265(name). On Apple's systems they are linked as usual.
#pragma once
#include "cshim_support.h"

#include <avif/avif.h>
#include <dav1d/dav1d.h>
#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>

#define CH_LIBHEIF_FUNCTIONS(X) \
    X(heif_context_add_XMP_metadata) X(heif_context_add_exif_metadata) X(heif_context_alloc) \
    X(heif_context_encode_image) X(heif_context_free) X(heif_context_get_encoder_for_format) \
    X(heif_context_get_primary_image_handle) X(heif_context_get_primary_image_ID) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_max_decoding_threads) X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_write) X(heif_decode_image) X(heif_decoding_options_alloc) X(heif_decoding_options_free) \
    X(heif_deinit) X(heif_encoder_release) X(heif_encoder_set_lossless) X(heif_encoder_set_lossy_quality) \
    X(heif_encoder_set_parameter_boolean) X(heif_encoder_set_parameter_integer) \
    X(heif_encoder_set_parameter_string) X(heif_encoding_options_alloc) X(heif_encoding_options_free) \
    X(heif_have_encoder_for_format) X(heif_image_add_plane) X(heif_image_create) \
    X(heif_image_get_bits_per_pixel_range) X(heif_image_get_height) X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) X(heif_image_get_width) X(heif_image_handle_get_height) \
    X(heif_image_handle_get_ispe_height) X(heif_image_handle_get_ispe_width) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_luma_bits_per_pixel) X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_metadata) X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_metadata_type) \
    X(heif_image_handle_get_nclx_color_profile) X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_raw_color_profile) X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_width) X(heif_image_handle_has_alpha_channel) X(heif_image_handle_release) \
    X(heif_image_is_premultiplied_alpha) X(heif_image_release) X(heif_image_set_nclx_color_profile) \
    X(heif_image_set_raw_color_profile) X(heif_init) X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free) X(heif_nclx_color_profile_set_color_primaries) \
    X(heif_nclx_color_profile_set_matrix_coefficients) \
    X(heif_nclx_color_profile_set_transfer_characteristics) X(heif_register_decoder)

#define CH_LIBAVIF_FUNCTIONS(X) \
    X(avifColorPrimariesGetValues) X(avifDecoderCreate) X(avifDecoderDestroy) X(avifDecoderNextImage) \
    X(avifDecoderNthImageMaxExtent) X(avifDecoderParse) X(avifDecoderReset) X(avifDecoderSetIOMemory) \
    X(avifDecoderSetSource) \
    X(avifImageYUVToRGB) X(avifRGBImageSetDefaults) X(avifResultToString)

#define CH_LIBDE265_FUNCTIONS(X) \
    X(de265_decode) X(de265_flush_data) X(de265_free_decoder) X(de265_get_bits_per_pixel) \
    X(de265_get_chroma_format) X(de265_get_error_text) X(de265_get_image_colour_primaries) \
    X(de265_get_image_full_range_flag) X(de265_get_image_height) X(de265_get_image_matrix_coefficients) \
    X(de265_get_image_plane) X(de265_get_image_transfer_characteristics) X(de265_get_image_width) \
    X(de265_get_next_picture) X(de265_isOK) X(de265_new_decoder) X(de265_push_NAL) X(de265_push_end_of_frame) \
    X(de265_release_next_picture) X(de265_start_worker_threads)

#define CH_LIBDAV1D_FUNCTIONS(X) \
    X(dav1d_close) X(dav1d_data_create) X(dav1d_data_unref) X(dav1d_default_settings) X(dav1d_get_picture) \
    X(dav1d_open) X(dav1d_picture_unref) X(dav1d_send_data)

#if defined(__linux__)
struct ch_libdav1d { CH_LIBDAV1D_FUNCTIONS(CS_LIBRARY_SLOT) };
extern struct ch_libdav1d ch_libdav1d;
#define DAV1D(name) (*ch_libdav1d.name)
struct ch_libheif { CH_LIBHEIF_FUNCTIONS(CS_LIBRARY_SLOT) };
struct ch_libavif { CH_LIBAVIF_FUNCTIONS(CS_LIBRARY_SLOT) };
struct ch_libde265 { CH_LIBDE265_FUNCTIONS(CS_LIBRARY_SLOT) };
extern struct ch_libheif ch_libheif;
extern struct ch_libavif ch_libavif;
extern struct ch_libde265 ch_libde265;
#define HEIF(name) (*ch_libheif.name)
#define AVIF(name) (*ch_libavif.name)
#define DE265(name) (*ch_libde265.name)
#else
#define DAV1D(name) name
#define HEIF(name) name
#define AVIF(name) name
#define DE265(name) name
#endif
