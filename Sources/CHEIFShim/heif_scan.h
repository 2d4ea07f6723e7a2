// The pre-scan of a HEIF/AVIF file (ISO/IEC 23008-12 items, ISO/IEC 14496-12 tracks), run
// before libheif, libavif or our sequence reader sees a byte. libheif 1.15 and libavif 0.11
// trust much of what the container says: libheif reads every item's data while parsing
// (any number of overlapping extents), follows a grid that names itself, decodes a tile as
// often as it is named and lets the codec allocate whatever its bitstream asks for; libavif
// expands any sample table. This refuses, in time linear in the file:
// - a second pitm, iloc, iinf, iref, iprp, idat or ipma, an item listed twice in ipma or with
//   two sizes or codec configurations, a video track with several sample descriptions:
//   libheif and libavif take the first (or any), and the scan must check what they decode;
// - boxes whose sizes leave their parent, more than CH_SCAN_MAX_ITEMS items or
//   CH_SCAN_MAX_EXTENTS extents an item, extents past the file or overlapping each other
//   (items may share an extent whole: layers name the same data), all items together
//   reading more than 8 times the file, samples that overlap;
// - references from an item to itself, cycles of the references a decoder follows
//   (dimg, auxl, thmb, base), more than CH_SCAN_MAX_DECODES codec runs for one picture
//   (a tile named twice counts twice);
// - for what will be decoded (the primary image, its tiles, every auxiliary image of it;
//   a sequence's every sample): no declared size, a declared size, canvas or codec picture (the HEVC
//   SPS, the AV1 sequence header, in the configuration box and in the data) over the pixel
//   limit, a codec picture larger than declared (an HEVC SPS by more than one coding block,
//   64, libheif 1.22's margin; an AV1 sequence header, whose size is the stream's largest
//   frame, by more than twice the size and 128), tiles whose areas add up to more than the
//   limit, and more samples than the frame limit.
// Items that are not decoded (thumbnails, other images) are checked for structure only,
// never for size, so a file is not refused for an image it does not show.
#pragma once
#include "cshim_support.h"
#include "heif_expect.h"

#include <stddef.h>
#include <stdint.h>

// Items, extents an item, and codec runs for one picture (a grid's tiles, each use counted:
// 65,280 uses of one tiny tile took 25 s; a 200 MP photo in 512-pixel tiles has 768).
enum { CH_SCAN_MAX_ITEMS = 4096, CH_SCAN_MAX_EXTENTS = 32, CH_SCAN_MAX_DECODES = 4096 };
// How often one derived image may name one input (HEIF conformance's C021 names a tile twice).
enum { CH_SCAN_MAX_REPEATS = 4 };

typedef struct ch_scan_result {
    // Metadata over CS_METADATA_BUDGET, to be left out (with a note): its size, else 0.
    uint64_t exif_dropped, xmp_dropped, icc_dropped;
    // What is shown, as declared (a track's size over the primary item's), also when a
    // limit then fails, so the caller can name it; frames only when over max_frames.
    uint32_t width, height, frames;
    // What libheif will hand the decoder plugins for the images checked (heif_expect.h):
    // every coded item the primary's picture needs, each as often as it is decoded.
    ch_expect *expect;
    uint32_t expect_count;
} ch_scan_result;

// Frees what a scan's result holds (its expectations).
void ch_scan_result_free(ch_scan_result *result);

// What the scan read of a file's items, to be compared with what libheif and libavif read
// of it (heif_agreement.c, the differential fuzz target). Lists past CH_REPORT_MAX
// entries are cut (`cut` set: that comparison is skipped).
enum { CH_REPORT_MAX = 64 };
typedef struct ch_scan_report {
    int has_primary;                 // pitm names an item
    uint32_t primary, primary_type;  // its id and type
    uint32_t ispe_w, ispe_h;         // its 'ispe'
    uint64_t primary_start, primary_end;  // the span of its extents in the file
    uint32_t thumbs[CH_REPORT_MAX], thumb_count;  // items 'thmb' to it
    uint32_t metas[CH_REPORT_MAX], meta_count;    // items 'cdsc' to it
    uint64_t meta_lengths[CH_REPORT_MAX];         // their data's length
    int alpha;                       // an alpha image the scan checked with it
    int cut;
} ch_scan_report;

// ch_scan_file, also filling *report (when the top-level 'meta' was read).
int ch_scan_file_report(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, unsigned codecs,
                        ch_scan_result *result, ch_scan_report *report, char *why, size_t size);

// CS_OK, or a CH_ERR_* (cheif_shim.h) with the reason in why[0..size). `codecs` (CH_CODEC_*,
// cheif_shim.h) are the codecs that may decode: a decoded item or a track of another is
// CS_ERR_UNSUPPORTED.
int ch_scan_file(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t max_frames, unsigned codecs,
                 ch_scan_result *result, char *why, size_t size);

// Writes `message` to why[0..size) and returns `code`: how the scan and the sequence reader fail.
int ch_fail_why(char *why, size_t size, int code, const char *message);

// The frames (frame and frame-header OBUs) in a run of AV1 OBUs, and the first operating
// point's idc of its sequence header (0 when none): 1, or 0 when the OBUs are malformed.
int ch_av1_frames(const uint8_t *p, size_t n, uint32_t *frames, uint32_t *op_idc);

// The picture size an HEVC SPS NAL unit (with its 2-byte header) declares: 1, or 0 when
// the unit is cut short or is no SPS.
int ch_hevc_sps_size(const uint8_t *nal, size_t n, uint32_t *width, uint32_t *height);

// One track's samples (ISO/IEC 14496-12 stsz, stsc, stco/co64, stts), every sample inside
// the file and no two overlapping, at most max_frames of them (more: CS_ERR_LIMIT with
// track->count set to how many there are).
typedef struct ch_track {
    uint32_t entry_type;   // the first sample entry's type ('hvc1', 'hev1', 'av01', ...)
    uint32_t width, height;  // the sample entry's size
    uint32_t tkhd_width, tkhd_height;  // the track header's (0 when absent)
    cs_span config;        // the sample entry's hvcC or av1C payload (n = 0 when none)
    uint32_t timescale;    // the media header's (1000 when absent)
    uint32_t count;
    uint64_t *offsets;     // each sample's place in the file
    uint32_t *sizes;
    uint32_t *durations;   // in the timescale
} ch_track;

// The index-th track (0-based) of the file's 'moov' whose first sample entry is of one of
// the `types` (a 0-terminated list): CS_OK with *track filled, CS_OK with track->count 0
// when there is no such track, or a CH_ERR_* with why. Free with ch_track_free.
int ch_track_read(const uint8_t *data, size_t length, const uint32_t *types, size_t index, uint32_t max_frames,
                  ch_track *track, char *why, size_t size);
void ch_track_free(ch_track *track);
