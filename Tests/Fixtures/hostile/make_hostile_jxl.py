#!/usr/bin/env python3
"""Write catctl's hostile JPEG XL fixtures of issue 31 ("The newest decoders under attack"),
and the TIFF, PNG and AVIF ones of the same issue that make_hostile_heif.py does not write.

Pure Python 3 standard library: every JPEG XL codestream, Brotli stream, zstd frame, TIFF
and PNG is assembled bit by bit here (no cjxl, no brotli, no zstd).  The only file read is
../heif/grid.avif (for avif-unknown-obu.avif).  Usage (from anywhere; files are written
next to this script):

    python3 Tests/Fixtures/hostile/make_hostile_jxl.py

Deterministic and idempotent: a second run rewrites nothing (a file is only written when
its bytes change).  Every file is CC0.

JPEG XL codestreams (bare, FF 0A) are written field by field as ISO/IEC 18181-1 and
libjxl's headers.cc / image_metadata.cc / frame_header.cc / toc.cc read them.  Every frame
here is the smallest modular frame there is: one group (group_size_shift 3, 1024x1024 at
most), so one TOC entry, and one section of 3 bytes: LF dequantisation all default, no
global tree, a local tree that is one leaf (predictor Zero) and histograms that are prefix
codes of one symbol each, so every sample is 0 and costs no bit.  libjxl still decodes,
renders and blends every such frame in full: the work is the frame's area, not its bytes.
Images are 8-bit sRGB, not XYB; the loop filter is the default (Gabor + 1 EPF pass).

jxl-hidden-frames.jxl (3,617 bytes, 9 bytes a frame)  1024x1024 animation (1000 ticks per second, loop
    forever): 400 frames of duration 0 (each a full 1024x1024 black frame that replaces
    the canvas and may be referenced), then 1 frame of duration 1, the last.  libjxl 0.7
    coalesces: the header walk (JXL_DEC_FRAME with coalescing on) reports 1 frame, the
    decoder renders all 401: 401 MP of work behind a 1 MP, 1-frame image.  With coalescing
    off (JxlDecoderSetCoalescing(dec, JXL_FALSE)) libjxl reports 401 frames of 1024x1024,
    over the 100 MP default limit.  Must be refused (65) before the pixel pass.
jxl-offcanvas-layers.jxl (8,013 bytes, 20 bytes a layer)  an 8x8 still image (no animation) made of 401
    frames: 400 layers of 1024x1024 with their origin at (100000, 100000), wholly outside
    the canvas (blend mode replace, not the last frame), then one 8x8 frame, the last.  The
    header walk reports 1 frame of 8x8; libjxl decodes and renders every layer in full
    before it crops it away: 400 MP of work for 64 pixels.  Charging each frame the
    CANVAS's area (64 pixels) lets it through; each layer must be charged its own size
    (JxlFrameHeader.layer_info.xsize * ysize with coalescing off), then 65.
jxl-many-frames.jxl (issue 42)  a 100x100 animation of 9,999 frames of duration 1: see
    jxl_many_frames.
jxl-terminal-escapes.jxl (59 bytes)  an 8x8 codestream whose image header declares one
    extra channel of type kUnknown (15), 8-bit, named
      ESC ] 0 ; catctl hostile title BEL  ESC [ 2 J  ESC [ H  ESC [ 1 ; 31 m COLOURED ESC [ 0 m
    and ends there.  libjxl 0.7 refuses an extra channel of unknown type with
    JXL_FAILURE("Unknown extra channel (bits %u, shift %u, name '%s')"), and Debian's
    build prints that on fd 2 with the name's raw bytes: a terminal gets its title set,
    its screen cleared and its text coloured, once per header parse.  Expected: 65 (corrupt)
    and no byte of the name on stderr (at most neutralised, with --verbose).
jxl-brob-exif.jxl (120 bytes)  a JPEG XL container: "JXL " signature box, ftyp, a 'brob'
    box (Brotli-compressed, original type "Exif") of 55 bytes of Brotli, then jxlc with an
    8x8 black codestream (13 bytes).  The Brotli stream (WBITS 24) has a first meta-block of 16
    literals (00 00 00 00, a big-endian TIFF header "MM\\0*" with its IFD at offset 8, then
    4 zero bytes), then 4 meta-blocks of copies of 9 bytes at the last distance (4), whose
    prefix codes have one symbol each: 0 bits per copy.  It inflates to 66,060,286 bytes
    (63 MiB - 2): the 4-byte Exif offset (0), then a TIFF header and an IFD of 0 entries,
    then zeros.  Under libjxl's and catctl's 64 MiB box limit, over the 8 MiB metadata
    budget: expected to be dropped with a note, the image decoded (not a 66 MB eXIf in the
    output, not a refusal of the image).

TIFF:

tiff-tile-samples.tif (25,755 bytes)  little-endian TIFF, 1x1 pixel, min-is-black, 16 bits
    per sample, SamplesPerPixel 400 (the 399 beyond grey are taken by libtiff as extra
    samples), tiled: one tile of 1024x1024 (the most catctl's tile-size check allows for a
    1-pixel image), zstd-compressed (Compression 50000, Debian's libtiff 4.5 has it): one
    zstd frame of 6,400 RLE blocks of 131,072 zero bytes (4 bytes each) = 838,860,800 bytes
    = 1024 x 1024 x 400 x 2.  The tile buffer is 800 MiB for one pixel: the tile check must
    count samples per pixel and bits per sample (expected 65 on the limit, not 840 MB RSS).

PNG:

png-tall.png (80 bytes)  IHDR 1 x 25,000,000, 8-bit grey; one IDAT of 1,000 zero rows
    (a 2,000-byte zlib stream); IEND.  25 MP is under the 100 MP default limit but over
    libpng's own 1,000,000-row user limit, which today calls it "corrupt (Invalid IHDR
    data)".  Expected: an explicit refusal on a stated limit, or (with libpng's row limit
    raised to catctl's) 65 as truncated image data, never "corrupt IHDR".

AVIF:

avif-unknown-obu.avif (3,348 bytes)  ../heif/grid.avif (a 2x2 grid of 64x48 AV1 tiles)
    with the first OBU of each tile, a temporal delimiter (header 0x12, size 0), retyped to
    the reserved OBU type 9 (header 0x4A, size 0): four bytes changed.  Decoders must ignore
    reserved OBUs, and the pixels are those of grid.avif; but dav1d logs "Unknown OBU type 9
    of size 0" to stderr for each tile (libheif 1.15 decodes grid tiles through dav1d with
    its default logger).  Expected: the image decoded, nothing from dav1d on stderr.
"""

import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the fixtures
sys.path.insert(0, HERE)
from make_hostile import write_fixtures  # noqa: E402 (one writer for every fixture script)
HEIF_DIR = os.path.join(HERE, "..", "heif")



# --------------------------------------------------------------------------
# Bits, least significant bit first (JPEG XL and Brotli alike)
# --------------------------------------------------------------------------

class Bits:
    def __init__(self):
        self.value = 0
        self.count = 0

    def put(self, value, width):
        if not 0 <= value < (1 << width):
            raise ValueError("%d does not fit in %d bits" % (value, width))
        self.value |= value << self.count
        self.count += width

    def msb_first(self, code, length):
        """A prefix code, its most significant bit first (Brotli's order)."""
        for i in range(length - 1, -1, -1):
            self.put((code >> i) & 1, 1)

    def pad_to_byte(self):
        self.count = (self.count + 7) // 8 * 8

    def raw(self, data):
        for byte in data:
            self.put(byte, 8)

    def bytes(self):
        return self.value.to_bytes((self.count + 7) // 8, "little")


# JPEG XL U32 distributions: ("val", v) or ("bits", n, offset).
def val(v):
    return ("val", v)


def bits(n, offset=0):
    return ("bits", n, offset)


def u32(w, value, dist):
    """Writes `value` with the first selector of `dist` that can hold it."""
    for selector, d in enumerate(dist):
        if d[0] == "val" and value == d[1]:
            w.put(selector, 2)
            return
        if d[0] == "bits" and d[2] <= value < d[2] + (1 << d[1]):
            w.put(selector, 2)
            w.put(value - d[2], d[1])
            return
    raise ValueError("%d cannot be written with %r" % (value, dist))


SIZE_DIST = [bits(9, 1), bits(13, 1), bits(18, 1), bits(30, 1)]
ENUM_DIST = [val(0), val(1), bits(4, 2), bits(6, 18)]
NAME_DIST = [val(0), bits(4), bits(5, 16), bits(10, 48)]
TOC_DIST = [bits(10), bits(14, 1024), bits(22, 17408), bits(30, 4211712)]
CROP_DIST = [bits(8), bits(11, 256), bits(14, 2304), bits(30, 18688)]
DURATION_DIST = [val(0), val(1), bits(8), bits(32)]


# --------------------------------------------------------------------------
# JPEG XL codestreams
# --------------------------------------------------------------------------

def jxl_size_header(w, width, height):
    if width % 8 == 0 and height % 8 == 0 and width <= 256 and height <= 256:
        w.put(1, 1)                        # small
        w.put(height // 8 - 1, 5)
        if width == height:
            w.put(1, 3)                    # ratio 1:1
        else:
            w.put(0, 3)
            w.put(width // 8 - 1, 5)
    else:
        w.put(0, 1)
        u32(w, height, SIZE_DIST)
        if width == height:
            w.put(1, 3)
        else:
            w.put(0, 3)
            u32(w, width, SIZE_DIST)


def jxl_bit_depth_8(w):
    w.put(0, 1)                            # integer samples
    u32(w, 8, [val(8), val(10), val(12), bits(6, 1)])


def jxl_image_header(w, width, height, animated):
    """SizeHeader, ImageMetadata (8-bit sRGB, not XYB, no extra channels; with an
    animation header of 1000 ticks per second, looping forever, when `animated`) and
    CustomTransformData, then the padding to a byte that the first frame starts after."""
    jxl_size_header(w, width, height)
    w.put(0, 1)                            # ImageMetadata.all_default
    w.put(1 if animated else 0, 1)         # extra_fields
    if animated:
        w.put(0, 3)                        # orientation 1
        w.put(0, 1)                        # no intrinsic size
        w.put(0, 1)                        # no preview
        w.put(1, 1)                        # have_animation
        u32(w, 1000, [val(100), val(1000), bits(10, 1), bits(30, 1)])  # tps numerator
        u32(w, 1, [val(1), val(1001), bits(8, 1), bits(10, 1)])        # tps denominator
        u32(w, 0, [val(0), bits(3), bits(16), bits(32)])              # loops: forever
        w.put(0, 1)                        # no timecodes
    jxl_bit_depth_8(w)
    w.put(1, 1)                            # modular_16_bit_buffer_sufficient
    u32(w, 0, [val(0), val(1), bits(4, 2), bits(12, 1)])  # no extra channels
    w.put(0, 1)                            # xyb_encoded = false
    w.put(1, 1)                            # ColorEncoding.all_default: sRGB
    if animated:
        w.put(1, 1)                        # ToneMapping.all_default
    w.put(0, 2)                            # extensions: none
    w.put(1, 1)                            # CustomTransformData.all_default
    w.pad_to_byte()


def zero_modular_section():
    """The one section of a one-group modular frame: every sample 0, at no bit's cost."""
    s = Bits()
    s.put(1, 1)                            # LF channel dequantisation: all default
    s.put(0, 1)                            # GlobalModular: no global tree
    s.put(0, 1)                            # GroupHeader.use_global_tree = false
    s.put(1, 1)                            # weighted predictor header: all default
    s.put(0, 2)                            # no transforms
    for tree in (True, False):             # histograms of the tree (6 contexts), then of the image (1)
        s.put(0, 1)                        # no LZ77
        if tree:
            s.put(1, 1)                    # simple context map ...
            s.put(0, 2)                    # ... 0 bits per entry: one cluster
        s.put(1, 1)                        # prefix codes
        s.put(15, 4)                       # HybridUint split exponent 15 (= log alphabet size)
        s.put(0, 1)                        # alphabet size 1: the one symbol 0, 0 bits per token
    return s.bytes()


SECTION = zero_modular_section()


def jxl_frame(w, last, duration=None, crop=None):
    """One regular modular frame (see the docstring).  duration: ticks when the image is
    animated, else None.  crop: (x0, y0, width, height), else the frame is the image."""
    w.put(0, 1)                            # FrameHeader.all_default
    u32(w, 0, [val(0), val(1), val(2), val(3)])  # regular frame
    w.put(1, 1)                            # modular
    w.put(0, 2)                            # flags: none (U64 0)
    w.put(0, 1)                            # not YCbCr
    u32(w, 1, [val(1), val(2), val(4), val(8)])  # upsampling 1
    w.put(3, 2)                            # group_size_shift 3: groups of 1024x1024
    u32(w, 1, [val(1), val(2), val(3), bits(3, 4)])  # one pass
    partial = False
    if crop is None:
        w.put(0, 1)                        # no custom size or origin
    else:
        x0, y0, fw, fh = crop
        packed = lambda v: 2 * v if v >= 0 else -2 * v - 1
        w.put(1, 1)
        u32(w, packed(x0), CROP_DIST)
        u32(w, packed(y0), CROP_DIST)
        u32(w, fw, CROP_DIST)
        u32(w, fh, CROP_DIST)
        partial = True                     # (all crops here are partial frames)
    u32(w, 0, [val(0), val(1), val(2), bits(2, 3)])  # blend mode: replace
    if partial:
        u32(w, 0, [val(0), val(1), val(2), val(3)])  # blend source 0
    if duration is not None:
        u32(w, duration, DURATION_DIST)
    w.put(1 if last else 0, 1)             # is_last
    if not last:
        u32(w, 0, [val(0), val(1), val(2), val(3)])  # save_as_reference 0
        # A frame of duration 0 (or of a still image) can be referenced: with blend
        # mode replace and no crop, save_before_color_transform follows.
        if not partial and not duration:
            w.put(0, 1)
    u32(w, 0, NAME_DIST)                   # no name
    w.put(1, 1)                            # LoopFilter.all_default
    w.put(0, 2)                            # extensions: none
    w.put(0, 1)                            # TOC not permuted
    w.pad_to_byte()
    u32(w, len(SECTION), TOC_DIST)         # the one TOC entry
    w.pad_to_byte()
    w.raw(SECTION)


JXL_SIGNATURE = b"\xff\x0a"

HIDDEN_FRAMES = 400


def jxl_hidden_frames():
    w = Bits()
    jxl_image_header(w, 1024, 1024, animated=True)
    for _ in range(HIDDEN_FRAMES):
        jxl_frame(w, last=False, duration=0)
    jxl_frame(w, last=True, duration=1)
    return JXL_SIGNATURE + w.bytes()


MANY_FRAMES = 9999


def jxl_many_frames():
    """Issue 42: 9,999 shown frames of 100x100 (duration 1 each): 99.99 MP, inside the
    100 MP default.  Written to a still format (PNG), catctl decoded and kept every frame
    and wrote the first (7.9 s and 419 MB for the attack's 10,000); an output that holds one
    frame must decode the first only."""
    w = Bits()
    jxl_image_header(w, 100, 100, animated=True)
    for i in range(MANY_FRAMES):
        jxl_frame(w, last=i == MANY_FRAMES - 1, duration=1)
    return JXL_SIGNATURE + w.bytes()


OFFCANVAS_LAYERS = 400


def jxl_offcanvas_layers():
    w = Bits()
    jxl_image_header(w, 8, 8, animated=False)
    for _ in range(OFFCANVAS_LAYERS):
        jxl_frame(w, last=False, crop=(100000, 100000, 1024, 1024))
    jxl_frame(w, last=True)
    return JXL_SIGNATURE + w.bytes()


ESCAPE_NAME = b"\x1b]0;catctl hostile title\x07\x1b[2J\x1b[H\x1b[1;31mCOLOURED\x1b[0m"


def jxl_terminal_escapes():
    w = Bits()
    jxl_size_header(w, 8, 8)
    w.put(0, 1)                            # ImageMetadata.all_default
    w.put(0, 1)                            # no extra fields
    jxl_bit_depth_8(w)
    w.put(1, 1)                            # modular_16_bit_buffer_sufficient
    u32(w, 1, [val(0), val(1), bits(4, 2), bits(12, 1)])  # one extra channel
    w.put(0, 1)                            # ExtraChannelInfo.all_default
    u32(w, 15, ENUM_DIST)                  # type kUnknown
    jxl_bit_depth_8(w)
    u32(w, 0, [val(0), val(3), val(4), bits(3, 1)])  # dim_shift 0
    u32(w, len(ESCAPE_NAME), NAME_DIST)
    w.raw(ESCAPE_NAME)
    return JXL_SIGNATURE + w.bytes()      # libjxl refuses the channel here: nothing follows


def jxl_still_8x8():
    w = Bits()
    jxl_image_header(w, 8, 8, animated=False)
    jxl_frame(w, last=True)
    return JXL_SIGNATURE + w.bytes()


# --------------------------------------------------------------------------
# Brotli (RFC 7932), for runs
# --------------------------------------------------------------------------

def brotli_simple_code(w, symbols, alphabet_bits):
    """A simple prefix code of 1 to 4 symbols (4: lengths 2, 2, 2, 2; the decoder gives
    the codes 00, 01, 10, 11 to the symbols in increasing order)."""
    w.put(1, 2)                            # HSKIP 1: simple
    w.put(len(symbols) - 1, 2)             # NSYM - 1
    for s in symbols:
        w.put(s, alphabet_bits)
    if len(symbols) == 4:
        w.put(0, 1)                        # tree-select 0


def brotli_meta_block_header(w, length, last):
    w.put(1 if last else 0, 1)             # ISLAST
    if last:
        w.put(0, 1)                        # ISLASTEMPTY = 0
    nibbles = max(4, ((length - 1).bit_length() + 3) // 4)
    w.put(nibbles - 4, 2)                  # MNIBBLES
    w.put(length - 1, 4 * nibbles)         # MLEN - 1
    if not last:
        w.put(0, 1)                        # ISUNCOMPRESSED = 0
    for _ in range(3):
        w.put(0, 1)                        # NBLTYPESL, NBLTYPESI, NBLTYPESD = 1
    w.put(0, 2)                            # NPOSTFIX 0
    w.put(0, 4)                            # NDIRECT 0
    w.put(0, 2)                            # context mode of the one literal block type
    w.put(0, 1)                            # NTREESL = 1
    w.put(0, 1)                            # NTREESD = 1


LITERAL_BITS, COMMAND_BITS, DISTANCE_BITS = 8, 10, 6  # alphabets 256, 704, 16 + 48
MAX_META_BLOCK = 16777215 - 16777215 % 9


def brotli_head_then_zeros(head, total):
    """A Brotli stream of `head` (14 to 17 literals of at most 4 distinct values, the
    last 4 zero) followed by zeros up to `total` bytes.  Meta-block 1 is one command
    that inserts the literals (insert code 9: 14 + 2 extra bits; the meta-block ends
    after them, so its copy is never made).  The zeros are copies of 9 bytes (command
    symbol 7: insert 0, copy code 7, no extra bits) at the last distance, which is the
    initial 4: each repeats 4 zero bytes.  With one-symbol prefix codes a copy costs no
    bit; a meta-block holds at most 2^24 bytes, so there are several."""
    symbols = sorted(set(head))
    if len(symbols) != 4 or head[-4:] != b"\0\0\0\0" or not 14 <= len(head) <= 17:
        raise ValueError("head does not fit this encoder")
    if (total - len(head)) % 9:
        raise ValueError("the zeros must be a multiple of 9 bytes")
    w = Bits()
    w.put(1, 1)
    w.put(7, 3)                            # WBITS 24
    brotli_meta_block_header(w, len(head), last=False)
    brotli_simple_code(w, symbols, LITERAL_BITS)
    brotli_simple_code(w, [256 + (1 << 3)], COMMAND_BITS)   # insert code 9, copy code 0
    brotli_simple_code(w, [0], DISTANCE_BITS)
    w.put(len(head) - 14, 2)               # insert code 9's extra bits
    for byte in head:
        w.msb_first(symbols.index(byte), 2)
    left = total - len(head)
    while left:
        length = min(left, MAX_META_BLOCK)
        left -= length
        brotli_meta_block_header(w, length, last=left == 0)
        brotli_simple_code(w, [0], LITERAL_BITS)
        brotli_simple_code(w, [7], COMMAND_BITS)
        brotli_simple_code(w, [0], DISTANCE_BITS)
    return w.bytes()


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


JXL_CONTAINER_SIGNATURE = box(b"JXL ", b"\r\n\x87\n")
JXL_FTYP = box(b"ftyp", b"jxl \0\0\0\0jxl ")

# The Exif box payload: 4-byte offset 0, then "MM\0*", IFD at offset 8, and zeros (an
# IFD of 0 entries, no next IFD, then padding).
EXIF_HEAD = b"\0\0\0\0" + b"MM\0*\0\0\0\x08" + b"\0\0\0\0"
EXIF_TOTAL = 66060286


def jxl_brob_exif():
    stream = brotli_head_then_zeros(EXIF_HEAD, EXIF_TOTAL)
    return (JXL_CONTAINER_SIGNATURE + JXL_FTYP + box(b"brob", b"Exif" + stream)
            + box(b"jxlc", jxl_still_8x8()))


# --------------------------------------------------------------------------
# TIFF (zstd written by hand: RLE blocks)
# --------------------------------------------------------------------------

def zstd_zeros(count):
    """One zstd frame (single segment, 4-byte content size, no checksum) of `count` zero
    bytes as RLE blocks of at most 128 KiB: 4 bytes each."""
    out = bytearray(b"\x28\xb5\x2f\xfd")
    out.append(0xA0)                       # content size in 4 bytes, single segment
    out += struct.pack("<I", count)
    left = count
    while left:
        n = min(left, 131072)
        left -= n
        header = n << 3 | 1 << 1 | (1 if left == 0 else 0)  # block type 1: RLE
        out += struct.pack("<I", header)[:3] + b"\0"
    return bytes(out)


def tiff_le(entries, data):
    """A little-endian TIFF: one IFD of `entries` (tag, type, value) with single SHORT
    or LONG values, right after the header, then `data`.  The value of tags 324/325
    (TileOffsets, TileByteCounts) is filled in: the data's offset and length."""
    count = len(entries) + 2
    data_offset = 8 + 2 + 12 * count + 4
    entries = sorted(entries + [(324, 4, data_offset), (325, 4, len(data))])
    out = bytearray(b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", count))
    for tag, kind, value in entries:
        packed = struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)
        out += struct.pack("<HHI", tag, kind, 1) + packed
    out += struct.pack("<I", 0)
    assert len(out) == data_offset
    return bytes(out) + data


TILE, TILE_SAMPLES, TILE_BITS = 1024, 400, 16


def tiff_tile_samples():
    tile = zstd_zeros(TILE * TILE * TILE_SAMPLES * TILE_BITS // 8)
    short, long_ = 3, 4
    return tiff_le([
        (256, short, 1),                   # ImageWidth
        (257, short, 1),                   # ImageLength
        (258, short, TILE_BITS),           # BitsPerSample (one value for every sample)
        (259, short, 50000),               # Compression: zstd
        (262, short, 1),                   # Photometric: min-is-black
        (277, short, TILE_SAMPLES),        # SamplesPerPixel
        (284, short, 1),                   # PlanarConfiguration: contiguous
        (322, short, TILE),                # TileWidth
        (323, short, TILE),                # TileLength
    ], tile)


# --------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_tall():
    return (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 25000000, 8, 0, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(b"\0\0" * 1000, 9))
            + png_chunk(b"IEND", b""))


# --------------------------------------------------------------------------
# AVIF
# --------------------------------------------------------------------------

def isobmff_boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if size < 8 or pos + size > end:
            raise ValueError("bad box at %d" % pos)
        yield kind, pos + 8, pos + size
        pos += size


def iloc_extents(data):
    """(item id, file offset, length) of every file-based extent in the meta box's iloc
    (versions 0-2; construction method 0 only)."""
    meta = next((s, e) for k, s, e in isobmff_boxes(data, 0, len(data)) if k == b"meta")
    start, end = next((s, e) for k, s, e in isobmff_boxes(data, meta[0] + 4, meta[1]) if k == b"iloc")
    version = data[start]
    p = start + 4
    offset_size, length_size = data[p] >> 4, data[p] & 15
    base_size, index_size = data[p + 1] >> 4, (data[p + 1] & 15) if version in (1, 2) else 0
    p += 2

    def read(n):
        nonlocal p
        v = int.from_bytes(data[p:p + n], "big")
        p += n
        return v

    out = []
    for _ in range(read(2 if version < 2 else 4)):
        item = read(2 if version < 2 else 4)
        method = read(2) & 15 if version in (1, 2) else 0
        read(2)                            # data reference index
        base = read(base_size)
        for _ in range(read(2)):
            read(index_size)
            offset, length = read(offset_size), read(length_size)
            if method == 0:
                out.append((item, base + offset, length))
    return out


def avif_unknown_obu():
    with open(os.path.join(HEIF_DIR, "grid.avif"), "rb") as f:
        data = bytearray(f.read())
    tiles = [(item, at) for item, at, length in iloc_extents(data) if length > 2]
    if len(tiles) != 4:
        raise SystemExit("grid.avif: expected 4 tile extents, found %r" % tiles)
    for item, at in tiles:
        if data[at:at + 2] != b"\x12\x00":
            raise SystemExit("grid.avif: item %d does not start with a temporal delimiter" % item)
        data[at] = 9 << 3 | 1 << 1         # OBU type 9 (reserved), has_size_field
    return bytes(data)


# --------------------------------------------------------------------------

def main():
    files = {
        "jxl-hidden-frames.jxl": jxl_hidden_frames(),
        "jxl-offcanvas-layers.jxl": jxl_offcanvas_layers(),
        "jxl-terminal-escapes.jxl": jxl_terminal_escapes(),
        "jxl-brob-exif.jxl": jxl_brob_exif(),
        "jxl-many-frames.jxl": jxl_many_frames(),
        "tiff-tile-samples.tif": tiff_tile_samples(),
        "png-tall.png": png_tall(),
        "avif-unknown-obu.avif": avif_unknown_obu(),
    }
    write_fixtures(HERE, files)


if __name__ == "__main__":
    sys.exit(main())
