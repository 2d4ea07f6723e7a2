#!/usr/bin/env python3
"""The third probe's TIFF and JPEG XL files (docs/review-tiff-jxl-2026-11-27.md), made with
plain struct packing: no tifffile, no libtiff.

    make_hostile_tiff_jxl.py                 writes the small committed fixtures here
    make_hostile_tiff_jxl.py big-xmp OUT     a 1x1 TIFF with a 9 MiB XMP packet (made by the tests)
    make_hostile_tiff_jxl.py two-exif OUT    a JPEG XL container: a small Exif box, then a 9 MiB one

Two JPEG XL fixtures need libjxl's encoder API and are committed as made:
jxl-extra-channels.jxl (1024x1024, 256 empty optional extra channels; 690 bytes; made by
docs/review-tiff-jxl-2026-11-27/mk_jxl_extra.c 1024 1024 256) and jxl-skip-progressive.jxl
(a 2048x2048 canvas with 1000 1x1 layers, all but the last turned into skip-progressive
frames by flip_skip_progressive.py; 19 KB).
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = {1: ('B', 1), 2: ('s', 1), 3: ('H', 2), 4: ('I', 4), 7: ('B', 1)}


def tiff(entries, prefix=b''):
    """A classic little-endian TIFF: `prefix` at offset 8, then IFD0, then the values that do
    not fit in an entry. entries: (tag, type, [ints] or bytes)."""
    entries = sorted(entries, key=lambda e: e[0])
    if len(prefix) & 1:
        prefix += b'\0'
    ifd_at = 8 + len(prefix)
    data_at = ifd_at + 2 + 12 * len(entries) + 4
    extra, table = b'', b''
    for tag, typ, values in entries:
        if isinstance(values, (bytes, bytearray)):
            raw = bytes(values)
            count = len(raw) // TYPES[typ][1]
        else:
            fmt, _ = TYPES[typ]
            raw = struct.pack('<%d%s' % (len(values), fmt), *values)
            count = len(values)
        if len(raw) <= 4:
            table += struct.pack('<HHI', tag, typ, count) + raw.ljust(4, b'\0')
        else:
            table += struct.pack('<HHII', tag, typ, count, data_at + len(extra))
            extra += raw + (b'\0' if len(raw) & 1 else b'')
    return b'II*\0' + struct.pack('<I', ifd_at) + prefix + struct.pack('<H', len(entries)) + table + \
        struct.pack('<I', 0) + extra


def many_samples(w=100, h=10, spp=65535, bps=16):
    """T2: RGB strips of 65535 samples a pixel (one BitsPerSample, no ExtraSamples): each pixel
    decodes 131 KB; every strip points at one Deflate blob of a zero row."""
    blob = zlib.compress(b'\0' * (w * spp * bps // 8), 9)
    return tiff([(256, 4, [w]), (257, 4, [h]), (258, 3, [bps]), (259, 3, [8]), (262, 3, [2]), (277, 3, [spp]),
                 (278, 4, [1]), (317, 3, [2]), (273, 4, [8] * h), (279, 4, [len(blob)] * h)], blob)


def wide_tiles(w=2000000, h=1, tw=1024, th=1024):
    """T1: a 2000000x1 RGBA image in 1024x1024 tiles: 1954 tiles, each decoded whole, 1024 rows
    for the one shown (2 GP of tiles); every tile is one shared zero blob."""
    spp, bps = 4, 16
    blob = zlib.compress(b'\0' * (tw * th * spp * bps // 8), 9)
    n = ((w + tw - 1) // tw) * ((h + th - 1) // th)
    return tiff([(256, 4, [w]), (257, 4, [h]), (258, 3, [bps] * spp), (259, 3, [8]), (262, 3, [2]),
                 (277, 3, [spp]), (317, 3, [2]), (322, 4, [tw]), (323, 4, [th]), (324, 4, [8] * n),
                 (325, 4, [len(blob)] * n), (338, 3, [2])], blob)


def separate_tiles(w=1000, h=1000, tw=2000, th=2000):
    """T3: CMYK and alpha, 16 bits, separate planes, one 2000x2000 tile a plane: 8 MB a plane
    is within the 16 bytes a pixel a tile may take, 5 planes of it are not."""
    spp, bps = 5, 16
    blob = zlib.compress(b'\0' * (tw * th * bps // 8), 9)
    n = ((w + tw - 1) // tw) * ((h + th - 1) // th) * spp
    return tiff([(256, 4, [w]), (257, 4, [h]), (258, 3, [bps]), (259, 3, [8]), (262, 3, [5]), (277, 3, [spp]),
                 (284, 3, [2]), (338, 3, [2]), (322, 4, [tw]), (323, 4, [th]), (324, 4, [8] * n),
                 (325, 4, [len(blob)] * n)], blob)


def tile_bytes(w=1100, h=1000, tw=2200, th=2000):
    """A tile within twice the image on each side, but of 8 samples of 16 bits: 70 MB for a
    1.1 MP image, over the 16 bytes a pixel a tile may take. Refused before any tile is read
    (the tile's data is 8 bytes)."""
    spp, bps = 8, 16
    return tiff([(256, 4, [w]), (257, 4, [h]), (258, 3, [bps] * spp), (259, 3, [8]), (262, 3, [2]),
                 (277, 3, [spp]), (322, 4, [tw]), (323, 4, [th]), (324, 4, [8]), (325, 4, [8]),
                 (338, 3, [2] + [0] * (spp - 4))], b'\0' * 8)


def big_xmp(size=9 << 20):
    """T4: a 1x1 RGB TIFF with an XMP packet over the 8 MiB metadata budget."""
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">' + b' ' * size + b'</x:xmpmeta>'
    return tiff([(256, 4, [1]), (257, 4, [1]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]), (277, 3, [3]),
                 (278, 4, [1]), (273, 4, [8]), (279, 4, [3]), (700, 1, xmp)], b'\x10\x20\x30')


def two_exif(size=9 << 20):
    """J3: a container with a small Exif box (Artist "first box"), then one over the budget."""
    codestream = open(os.path.join(HERE, '..', 'jxl', 'lossy.jxl'), 'rb').read()
    assert codestream[:2] == b'\xff\x0a'

    def box(kind, body):
        return struct.pack('>I', 8 + len(body)) + kind + body
    artist = b'first box\0'
    exif = b'II*\0' + struct.pack('<IH', 8, 1) + struct.pack('<HHII', 315, 2, len(artist), 26) + \
        struct.pack('<I', 0) + artist
    return box(b'JXL ', b'\r\n\x87\n') + box(b'ftyp', b'jxl \0\0\0\0jxl ') + box(b'Exif', b'\0\0\0\0' + exif) + \
        box(b'Exif', b'\0\0\0\0II*\0\x08\0\0\0' + b'\0' * size) + box(b'jxlc', codestream)


if __name__ == '__main__':
    if len(sys.argv) == 3:
        made = {'big-xmp': big_xmp, 'two-exif': two_exif}[sys.argv[1]]()
        open(sys.argv[2], 'wb').write(made)
    else:
        for name, make in [('tiff-many-samples.tif', many_samples), ('tiff-wide-tiles.tif', wide_tiles),
                           ('tiff-separate-tiles.tif', separate_tiles), ('tiff-tile-bytes.tif', tile_bytes)]:
            open(os.path.join(HERE, name), 'wb').write(make())
