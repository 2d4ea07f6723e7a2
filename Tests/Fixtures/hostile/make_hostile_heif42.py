#!/usr/bin/env python3
"""Write catctl's hostile HEIF/AVIF fixtures for issue 42: files that the pre-scan as it
was before issue 42's fix (Sources/CHEIFShim/heif_scan.c at d64f589^, "the old scan")
passed to libheif 1.15 or libavif 0.11 while the bytes those libraries decode ask for a
huge picture (an HEVC SPS of 16384x16384, an AV1 sequence header of 8192x8192, a grid
canvas of 32767x32767), or for a lot of memory or decodes.  Each is the old scan and the
library reading one box two ways.

Pure Python 3 standard library; it reuses make_hostile_heif.py's boxes, bit writers and
raw material (../heif/photo.heic, ../heif/seq.avif), so no encoder is needed.  Usage
(from anywhere; files are written next to this script):

    python3 Tests/Fixtures/hostile/make_hostile_heif42.py

Deterministic and idempotent: a second run rewrites nothing.  CC0, like their sources.
Each generator checks its own design: it reads its iloc as the old scan read it and as
libheif 1.15's Box_iloc::parse reads it (read_iloc), or splits its NAL units as the old
scan split them (split_nals), and asserts that the two readings differ as described.

"The big SPS" below is photo.heic's SPS rewritten (rewrite_sps) to say
pic_width/height_in_luma_samples = 16384x16384; "the tile" is photo.heic's 64x64 HEVC
tile (one IDR slice NAL unit of 812 bytes, ispe 64x64), "the grid" its 1x1 grid (ispe
64x48).  Still files are laid out as make_hostile_heif.write_heif lays them out (ftyp,
meta, mdat) unless said.

heic-infe-v4.heic (infe version 4, 1,167 bytes)  the tile alone, primary, item_ID
    0x00010001, its hvcC SPS the big one; every box naming it uses 32-bit IDs: infe
    version 4, pitm version 1, iloc version 2, ipma version 1.  libheif 1.15 reads a
    32-bit item_ID for every infe version >= 3; the old scan read 16 bits unless the
    version was 3, so its item table held item 1 (of a type made of other bytes), pitm's
    0x00010001 was no item of it, and it checked no primary.  (No grid and no iref: the
    old scan refused an iref naming an item it did not know, and under 16-bit
    misreadings no two items can be known to both readers.)
heic-hvcc-length1.heic (hvcC lengthSizeMinusOne, 1,803 bytes)  photo.heic whose tile's
    hvcC says lengthSizeMinusOne = 0 (1-byte NAL lengths; its own SPS is the normal
    64x64 one) while the tile's data keeps 4-byte lengths, as libheif always writes and
    its plugins always read: the big SPS, zero-padded to a 256-byte NAL unit (length
    00 00 01 00), the hvcC's PPS again (libde265 drops the PPS of an SPS sent again),
    the slice, and a 256-byte unspecified NAL unit (type 48), zeros after its header.  Split
    with 1-byte lengths (the old scan: 0, 0, 1, then 0x42 = 66 bytes, into the zeros)
    the data is 365 other units, none an SPS, ending exactly at its end.
heic-iloc-length0.heic (iloc extent_length 0, 1,285 bytes)  photo.heic whose grid
    (primary, ispe 64x48) has two extents: [X, length 0], then [Y, 12] with Y + 12 = X.
    At X (the file's last 8 bytes) an ImageGrid of 1x1 cells, canvas 64x48: the old
    scan read length 0 as "to the end of the file" and the canvas from X.  At Y an
    ImageGrid with flags 1 (32-bit sizes), 1x1 cells, canvas 32767x32767: libheif 1.15
    appends nothing for length 0 and makes its canvas from Y's 12 bytes.
heic-iloc-sizes.heic (iloc offset_size 2, 1,246 bytes)  the tile alone (item 1,
    primary, its hvcC SPS the normal one) in an iloc version 1 with offset_size 2
    (length and base_offset sizes 4) and three entries.  libheif 1.15 reads nothing for
    a size other than 4 or 8, the old scan read 2 bytes, so from the first extent on
    they read other fields.  The old scan: items 256 ([1245, 1 byte]), 512 (no extents)
    and 876 ([1, 2 bytes]), so item 1 has no data and only its hvcC is checked.
    libheif (heif-info -d agrees): items 256 ([1245, 0 bytes]), 1 ([369, 876 bytes]:
    the big SPS, the PPS, the slice) and 0 ([1, 2 bytes]).
heic-iloc-index.heic (iloc index_size in version 1, 1,301 bytes)  the tile alone (item
    1, primary, its hvcC SPS the normal one) in an iloc version 1 with index_size 4
    (offset, length and base_offset sizes 4), 2 extents.  libheif 1.15 reads the
    extent_index only from version 2 on, the old scan from version 1: the old scan read
    (index, offset, length) where libheif reads (offset, length), 8 bytes left over.
    Old scan: [1241, 60] (a filler NAL unit), [425, 816] (the slice).  libheif:
    [357, 884] (the big SPS, the PPS, an 8-byte filler unit, the slice), [417, 8] (the
    filler again).
avif-seq-fixed-stsz.avif (sample tables, 3,362 bytes)  seq.avif (see
    make_hostile_heif.seq_avif) whose colour track has a fixed-size stsz (sample_size
    330, sample_count 1), an stco of 2 chunks and one stsc entry [1, 1, 1]; its stts
    gives 2 samples (100, 200 ticks).  Chunk 1: the first colour frame; chunk 2: that
    frame, its sequence header saying 8192x8192 (rewrite_av1_obus); each zero-filled to
    330 bytes (both added at the end of the mdat).  libavif 0.11 makes a sample of every
    chunk (imageCount 2); the old scan made sample_count samples (1) and never read
    chunk 2.  The alpha track and the items are kept.
avif-trak-meta-exif.avif (track meta, 100,000 bytes)  seq.avif whose colour trak ends
    with a meta (version 0: hdlr 'pict'; iinf of 1,200 infe version 2 'Exif' items;
    iloc version 1, each item 2 extents, both the whole mdat payload, zero-filled to
    44,161 bytes).  libavif 0.11 reads every Exif item of the colour track's meta while
    parsing, each multi-extent one merged into a buffer of its own that lives as long as
    the decoder: 1,200 x 88,322 bytes = 106 MB from a 100 KB file (an item may not be
    larger than the file: libavif's one check).  The old scan never read a trak's meta.
heic-grid-4096.heic (4,096 decodes, 9,463 bytes)  a 64x64-cell grid, canvas and ispe
    4096x4096, whose 4,096 dimg references all name the tile (its true ispe 64x64): the
    old scan allowed exactly CH_SCAN_MAX_DECODES = 4,096 decodes; libheif 1.15 decodes
    the tile 4,096 times.

Checked when written: the old scan (heif_scan.c and shim_support.c of d64f589^, built
alone with a main calling ch_scan_file, max_pixels 10^8, max_frames 10^4) passes all
eight (it refuses heic-sps-larger.heic and heic-grid-repeated.heic).  What the libraries
do (system libheif 1.15.1 with libde265 1.0.11, libavif 0.11.1):
  heif-convert heic-iloc-index.heic under a 3 GiB cap: a 16384x16384 PNG, 27 s, 1.58 GB;
    heic-infe-v4, -hvcc-length1, -iloc-sizes, -iloc-index under 512 MiB: fail after
    0.1-0.25 s at 76 MB, as heic-sps-larger.heic does (photo.heic: 7 MB);
    heic-iloc-length0 under 512 MiB: "Wrong tile image pixel depth" (the 32767x32767
    canvas planes were not allocated); heic-grid-4096: 4096x4096 PNG, 3.2 s.
  libavif, tracks: avif-seq-fixed-stsz imageCount 2; with aom frame 2 fails after
    growing to 991 MB (dav1d refuses it at once); avif-trak-meta-exif parses at 111 MB
    (seq.avif: 5.5 MB).

Today (debug build of d64f589, `prlimit --as=$((1<<30)) timeout 30 catctl edit --filter
sepia IN OUT.png`): every one exits 65 in 0.06-0.15 s at 28-29 MB, nothing written:

  heic-infe-v4.heic         corrupt data (a bad 'infe' (a version past 3))
  heic-hvcc-length1.heic    the HEVC SPS asks for a 16384x16384 picture, over the limit
                            (with --max-pixels 400000000: "the HEVC SPS says
                            16384x16384, larger than the 64x64 the file declares")
  heic-iloc-length0.heic    corrupt data (item 2 has an extent of length 0)
  heic-iloc-sizes.heic      corrupt data ('iloc' field sizes other than 0, 4 or 8)
  heic-iloc-index.heic      corrupt data (an 'iloc' with extent indices)
  avif-seq-fixed-stsz.avif  corrupt data (a track's chunks hold 2 samples, its sample
                            sizes 1)
  avif-trak-meta-exif.avif  corrupt data (an item places bytes 449 to 44609 twice in
                            'iloc')
  heic-grid-4096.heic       derived image item 2 names one input more than 4 times
The attack on the fix (issue 42's review found these; each is refused by the scan and, on
its own bytes, by the decoder plugin):

heic-two-pictures.heic (2,089 bytes)  photo.heic whose tile's data is its picture twice:
    two pictures in one item (libde265 decodes each; 1,000 of 4096x4096 took 26 s).
heic-hvcc-slice.heic (2,090 bytes)  photo.heic whose tile's hvcC holds, after its
    parameter sets, an array of the tile's slice unit: a picture in the configuration.
avif-two-frames.avif (1,387 bytes)  photo.avif whose item holds its frame twice.
avif-hidden-layers.avif (836 bytes)  photo.avif whose sequence header is a full one with
    operating point 0 of idc 0x101: lower layers' frames decoded, never shown (800 of
    4096x4096 in 22 KB took 12 s).
heic-grid-gap.heic (1,273 bytes)  a 128x128 grid of one 64x64 tile: libheif 1.15 leaves
    the cells no tile covers as the memory held them (another file's pixels, in a batch).
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the fixtures
sys.path.insert(0, HERE)
from make_hostile import write_fixtures  # noqa: E402 (one writer for every fixture script)
from make_hostile_heif import (  # noqa: E402
    AVIF_BRANDS, HEIC_BRANDS, PIXI, BitReader, BitWriter, Item, Node, av1_size, be, box, fullbox, grid_payload,
    hvcc_nals, ispe, leb128, obus, photo_heic, prop_of, read_heif, rewrite_av1_obus, rewrite_hvcc, rewrite_sps,
    seq_avif, source, sps_fields, track_samples, write_heif)

SPS_SIDE = 16384  # see make_hostile_heif.heic_sps_larger: under a 2 GiB cap libde265 still decodes it


# --------------------------------------------------------------------------
# Two readings of one box
# --------------------------------------------------------------------------

def read_iloc(iloc, file_size, old):
    """An iloc box as the old scan read it (old=True: every field size 0-8 read as given,
    extent_index from version 1 on, extent_length 0 = to the end of the file) or as
    libheif 1.15 reads it (offset, length, base offset and index only when 4 or 8 bytes,
    else 0 and nothing consumed; the index only from version 2 on; length 0 = 0 bytes).
    [(item id, [(file offset, length)])], construction method 0 only."""
    version, p = iloc[8], 12
    off_size, len_size, base_size = iloc[p] >> 4, iloc[p] & 15, iloc[p + 1] >> 4
    idx_size = iloc[p + 1] & 15 if (version >= 1 if old else version > 1) else 0
    p += 2

    def raw(n):
        nonlocal p
        assert p + n <= len(iloc), "iloc read past its end"
        p += n
        return be(iloc, p - n, n)

    def sized(n):
        return raw(n) if old or n in (4, 8) else 0

    out = []
    for _ in range(raw(2 if version < 2 else 4)):
        item_id = raw(2 if version < 2 else 4)
        if version >= 1:
            assert raw(2) & 15 == 0, "construction method 0 only"
        raw(2)                                   # data_reference_index
        base = sized(base_size)
        extents = []
        for _ in range(raw(2)):
            sized(idx_size)
            offset, length = sized(off_size), sized(len_size)
            if old and length == 0:
                length = file_size - (base + offset)
            extents.append((base + offset, length))
        out.append((item_id, extents))
    return out


def find_box(data, kind):
    """The bytes of the first box of that type, searched for by its type (the fixtures'
    iloc and ipco types occur nowhere else)."""
    at = data.index(kind.encode()) - 4
    return data[at:at + be(data, at, 4)]


def item_bytes(data, extents):
    return b"".join(data[o:o + n] for o, n in extents)


def split_nals(data, length_size):
    """[(start, size)] of the NAL units in data with `length_size`-byte lengths, as the
    old scan's ch_check_hevc_data split them; None where a unit runs past the end."""
    out, at = [], 0
    while at < len(data):
        if len(data) - at < length_size:
            return None
        n = be(data, at, length_size)
        at += length_size
        if n > len(data) - at:
            return None
        out.append((at, n))
        at += n
    return out


def sps_seen(data, length_size):
    """The (width, height) of each SPS the old scan checked in data: units of 2 bytes or
    more whose type is 33."""
    return [sps_fields(data[s:s + n])[:2] for s, n in split_nals(data, length_size)
            if n >= 2 and (data[s] >> 1) & 63 == 33]


# --------------------------------------------------------------------------
# Pieces
# --------------------------------------------------------------------------

def nal4(nal):
    """A NAL unit with its 4-byte length, as libheif writes item data."""
    return struct.pack(">I", len(nal)) + nal


def filler(total):
    """A filler-data NAL unit (type 38: FF bytes, then the trailing bits) with its 4-byte
    length, `total` bytes in all; libde265 ignores the type."""
    assert total >= 7
    return nal4(bytes([38 << 1, 1]) + b"\xff" * (total - 7) + b"\x80")


def big_sps(tile):
    """The tile's hvcC SPS saying SPS_SIDE x SPS_SIDE, and the hvcC's PPS: libde265
    (1.0.11) drops every PPS of an SPS that comes again, so the PPS must follow it."""
    sps, = [n for k, n in hvcc_nals(prop_of(tile, "hvcC")[8:]) if k == 33]
    pps, = [n for k, n in hvcc_nals(prop_of(tile, "hvcC")[8:]) if k == 34]
    big = rewrite_sps(sps, width=SPS_SIDE, height=SPS_SIDE)
    assert sps_fields(big)[:2] == (SPS_SIDE, SPS_SIDE)
    return big, pps


def heif_file(brands, meta_children, mdat_payload):
    """ftyp (brands[0] major, all compatible), meta (hdlr 'pict', then the boxes
    meta_children(where the mdat payload starts) returns, of one size whatever the
    start), mdat."""
    ftyp = box("ftyp", brands[0].encode() + struct.pack(">I", 0) + b"".join(b.encode() for b in brands))
    hdlr = fullbox("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + b"\0" * 12 + b"\0")

    def meta(start):
        return fullbox("meta", 0, 0, hdlr + meta_children(start))

    start = len(ftyp) + len(meta(0)) + 8
    out = ftyp + meta(start) + box("mdat", mdat_payload)
    assert out[start - 4:start] == b"mdat"
    return out


def iprp(entries, version):
    """iprp = ipco (each property once) + ipma of that version (0: 16-bit item IDs, 1:
    32-bit) with 7-bit indices: entries [(item id, [(property box, essential)])]."""
    table = []
    for _, props in entries:
        table += [p for p, _ in props if p not in table]
    body = struct.pack(">I", len(entries))
    for item_id, props in entries:
        body += struct.pack(">I" if version else ">H", item_id) + bytes([len(props)])
        body += bytes(table.index(p) + 1 | (0x80 if e else 0) for p, e in props)
    return box("iprp", box("ipco", b"".join(table)) + fullbox("ipma", version, 0, body))


def single_tile_meta(tile_id, props, iloc):
    """pitm version 0, the given iloc(start), iinf version 0 of one visible infe version 2
    'hvc1', iprp with ipma version 0: meta_children for a file whose primary is one tile."""
    infe = fullbox("infe", 2, 0, struct.pack(">HH", tile_id, 0) + b"hvc1" + b"\0")
    head = fullbox("pitm", 0, 0, struct.pack(">H", tile_id))
    tail = fullbox("iinf", 0, 0, struct.pack(">H", 1) + infe) + iprp([(tile_id, props)], 0)
    return lambda start: head + iloc(start) + tail


# --------------------------------------------------------------------------
# The fixtures
# --------------------------------------------------------------------------

def heic_infe_v4(tile_id=0x00010001):
    """The tile alone, primary, whose hvcC SPS says 16384x16384, named by 32-bit IDs
    everywhere: infe version 4, pitm version 1, iloc version 2, ipma version 1."""
    tile = photo_heic()[1]
    props = [(rewrite_hvcc(prop_of(tile, "hvcC"), width=SPS_SIDE, height=SPS_SIDE), True), ispe(64, 64)]
    assert ispe(64, 64)[0] in [p for p, _ in tile.props], "the tile's own ispe"
    infe = fullbox("infe", 4, 0, struct.pack(">IH", tile_id, 0) + b"hvc1" + b"\0")
    head = fullbox("pitm", 1, 0, struct.pack(">I", tile_id))
    tail = fullbox("iinf", 0, 0, struct.pack(">H", 1) + infe) + iprp([(tile_id, props)], 1)

    def children(start):
        iloc = fullbox("iloc", 2, 0, struct.pack(">BBI", 0x44, 0x00, 1) +
                       struct.pack(">IHHHII", tile_id, 0, 0, 1, start, len(tile.data)))
        return head + iloc + tail

    out = heif_file(HEIC_BRANDS, children, tile.data)
    # The old scan's reading of the infe: the ID's upper 16 bits, a type made of the
    # protection index and half of 'hvc1'; pitm then names no item it knows.
    old_id, old_type = tile_id >> 16, struct.pack(">H", 0) + b"hv"
    assert old_id != tile_id and old_type != b"hvc1"
    placed = [(tile_id, [(len(out) - len(tile.data), len(tile.data))])]
    assert read_iloc(find_box(out, "iloc"), len(out), old=False) == placed
    return out


def heic_hvcc_length1():
    """photo.heic whose tile's hvcC says 1-byte NAL lengths, its data (4-byte lengths)
    the big SPS (256 bytes, zero-padded), the PPS, the slice, and an unspecified NAL unit of
    zeros that the 1-byte split lands in and runs out on.  The last padding byte of the
    SPS unit is the first value that makes the 1-byte split meet no SPS."""
    items = photo_heic()
    tile = items[1]
    hvcc = bytearray(prop_of(tile, "hvcC"))
    hvcc[8 + 21] &= 0xFC                                     # lengthSizeMinusOne = 0
    big, pps = big_sps(tile)
    tail = nal4(bytes([48 << 1, 1]) + bytes(254))            # 260 bytes: no jump passes it
    for k in range(256):
        sps = big + bytes(255 - len(big)) + bytes([k])
        data = nal4(sps) + nal4(pps) + tile.data + tail
        one = split_nals(data, 1)
        if one is not None and not sps_seen(data, 1):
            break
    else:
        raise AssertionError("no padding hides the SPS")
    # With 4-byte lengths: 00 00 01 00 is the SPS unit's; with 1-byte lengths the split
    # reads 0, 0, 1 (skipping 00), then 0x42 = 66 bytes, into the padding's zeros.
    assert 4 + len(big) <= 5 + 0x42
    assert sps_seen(data, 4) == [(SPS_SIDE, SPS_SIDE)]
    assert [n for _, n in split_nals(data, 4)] == [256, len(pps), len(tile.data) - 4, 256]
    assert [sps_fields(n)[:2] for k, n in hvcc_nals(bytes(hvcc[8:])) if k == 33] == [(64, 64)]
    tile.data = data
    tile.props = [(bytes(hvcc), e) if p[4:8] == b"hvcC" else (p, e) for p, e in tile.props]
    return write_heif(HEIC_BRANDS, [tile, items[2]], [("dimg", 2, [1])], 2)


def heic_iloc_length0(side=32767):
    """photo.heic whose grid (item 2, primary, ispe 64x48) has the extents [X, 0] and
    [Y, 12]: X, the file's last 8 bytes, a 64x48 ImageGrid (the old scan's canvas); Y,
    just before it, a 12-byte ImageGrid with 32-bit sizes, side x side (libheif's)."""
    items = photo_heic()
    shown = grid_payload(1, 1, 64, 48)
    decoded = struct.pack(">BBBBII", 0, 1, 0, 0, side, side)
    grid = Item(2, "grid", decoded, items[2].props, extent_count=2,
                extents=lambda pos, size: [(size - len(shown), 0), (pos, len(decoded))])
    out = write_heif(HEIC_BRANDS, [items[1], grid], [("dimg", 2, [1])], 2, pad=shown)
    iloc = find_box(out, "iloc")
    old = dict(read_iloc(iloc, len(out), old=True))
    new = dict(read_iloc(iloc, len(out), old=False))
    x, y = len(out) - len(shown), len(out) - len(shown) - len(decoded)
    assert old[2] == [(x, len(shown)), (y, 12)] and new[2] == [(x, 0), (y, 12)]
    assert item_bytes(out, old[2])[:8] == shown and item_bytes(out, new[2]) == decoded
    return out


def heic_iloc_sizes(tile_id=1, id_a=0x0100, id_b=0x0200):
    """The tile alone (primary; its hvcC SPS the normal 64x64 one) in an iloc version 1
    with offset_size 2, length_size 4, base_offset_size 4 and three entries:

      old scan (offset 2 bytes)             libheif 1.15 (offset 0 bytes)
      A: id_a, base a, [0, tile_id]         id_a, base a, [length 0]
      B: id_b, base p << 16 | 1, none       tile_id (A's length), base p, [length C's id]
      C: len(SPS PPS slice), base 0, [1, 2] 0, base 1, [length 2]

    where p is where the big SPS, the PPS and the slice lie, a one byte after them.  libheif
    reads `id_b` as construction method (its low 4 bits are 0) and B's extent count 0
    and C's ID as a length; the old scan never sees the tile placed."""
    tile = photo_heic()[1]
    big, pps = big_sps(tile)
    pq = nal4(big) + nal4(pps) + tile.data
    id_c = len(pq)
    assert id_b & 15 == 0 and id_c not in (tile_id, id_a, id_b)

    def iloc(start):
        p, a = start, start + len(pq)
        assert p < 1 << 16
        body = struct.pack(">BBH", 0x24, 0x40, 3)
        body += struct.pack(">HHHIH", id_a, 0, 0, a, 1) + struct.pack(">HI", 0, tile_id)
        body += struct.pack(">HHHIH", id_b, 0, 0, p << 16 | 1, 0)
        body += struct.pack(">HHHIH", id_c, 0, 0, 0, 1) + struct.pack(">HI", 1, 2)
        return fullbox("iloc", 1, 0, body)

    out = heif_file(HEIC_BRANDS, single_tile_meta(tile_id, tile.props, iloc), pq + b"\0")
    p = len(out) - len(pq) - 1
    box_ = find_box(out, "iloc")
    assert read_iloc(box_, len(out), old=True) == [(id_a, [(p + len(pq), 1)]), (id_b, []), (id_c, [(1, 2)])]
    assert read_iloc(box_, len(out), old=False) == [(id_a, [(p + len(pq), 0)]), (tile_id, [(p, id_c)]), (0, [(1, 2)])]
    assert sps_seen(out[p:p + id_c], 4) == [(SPS_SIDE, SPS_SIDE)]
    return out


def heic_iloc_index(tile_id=1):
    """The tile alone (primary; its hvcC SPS the normal one) in an iloc version 1 with
    index_size 4 (offset, length and base_offset sizes 4), one entry, base b, 2 extents
    (index, offset, length) = (0, |S F Q|, |S|) and (|F|, |S F|, |Q|), where at b lie
    S (the big SPS and the PPS), F (an 8-byte filler unit), Q (the slice), O (a filler unit of
    |S| bytes).  The old scan: [b + |S F Q|, |S|] = O, [b + |S F|, |Q|] = Q.  libheif
    (no index in version 1): [b, |S F Q|] = S F Q, then [b + |S|, |F|] = F, and 8 bytes
    left over (skipped to the end of the box)."""
    tile = photo_heic()[1]
    big, pps = big_sps(tile)
    s, f, q = nal4(big) + nal4(pps), filler(8), tile.data
    o = filler(len(s))

    def iloc(start):
        body = struct.pack(">BBHHHHIH", 0x44, 0x44, 1, tile_id, 0, 0, start, 2)
        body += struct.pack(">III", 0, len(s + f + q), len(s))
        body += struct.pack(">III", len(f), len(s + f), len(q))
        return fullbox("iloc", 1, 0, body)

    out = heif_file(HEIC_BRANDS, single_tile_meta(tile_id, tile.props, iloc), s + f + q + o)
    b = len(out) - len(s + f + q + o)
    box_ = find_box(out, "iloc")
    (old_id, old), = read_iloc(box_, len(out), old=True)
    (new_id, new), = read_iloc(box_, len(out), old=False)
    assert old_id == new_id == tile_id
    assert item_bytes(out, old) == o + q and item_bytes(out, new) == s + f + q + f
    assert sps_seen(o + q, 4) == [] and sps_seen(s + f + q + f, 4) == [(SPS_SIDE, SPS_SIDE)]
    assert old == [(b + len(s + f + q), len(s)), (b + len(s + f), len(q))]
    return out


def padded(obu_run, size):
    """A run of OBUs filled with zeros to `size` bytes.  libaom allows zero bytes after
    a frame (and fails on an OBU_PADDING there); the old scan read them as one OBU of
    reserved type 0 without a size field, running to the end."""
    assert len(obu_run) <= size
    return obu_run + bytes(size - len(obu_run))


def avif_seq_fixed_stsz(width=8192, height=8192):
    """seq.avif (see seq_avif) whose colour track has stsz sample_size F, sample_count 1;
    stco 2 chunks; stsc [1, 1, 1]; stts 2 samples (100, 200 ticks).  Chunk 1 is the
    first colour frame, chunk 2 that frame with its sequence header saying width x
    height, each filled to F bytes (both added at the end of the mdat; the track's old
    samples and the items stay where they were)."""
    ftyp, meta, mdat, moov = seq_avif()
    colour = moov.all("trak")[0]
    mdat_start = len(ftyp.bytes()) + len(meta.bytes()) + 8
    file = bytes(mdat_start - 8) + box("mdat", mdat.payload)
    _, _, frame = track_samples(file, colour)[0]
    big = rewrite_av1_obus(frame, width, height)
    assert [av1_size(pl) for k, _, pl in obus(big) if k == 1] == [(width, height)]
    fixed = max(len(frame), len(big))
    at = mdat_start + len(mdat.payload)
    mdat.payload += padded(frame, fixed) + padded(big, fixed)
    stbl = colour.find("mdia", "minf", "stbl")
    stbl.find("stsz").payload = struct.pack(">III", 0, fixed, 1)
    stbl.find("stco").payload = struct.pack(">IIII", 0, 2, at, at + fixed)
    stbl.find("stsc").payload = struct.pack(">IIIII", 0, 1, 1, 1, 1)
    stbl.find("stts").payload = struct.pack(">IIIIII", 0, 2, 1, 100, 1, 200)
    return b"".join(n.bytes() for n in (ftyp, meta, mdat, moov))


def avif_trak_meta_exif(count=1200, size=100000):
    """seq.avif (see seq_avif) whose colour trak ends with a meta of `count` Exif items
    (IDs 1...), each of 2 extents that are both the whole mdat payload, the payload
    filled with zeros so that the file is `size` bytes."""
    ftyp, meta, mdat, moov = seq_avif()
    colour = moov.all("trak")[0]
    mdat_start = len(ftyp.bytes()) + len(meta.bytes()) + 8
    hdlr = fullbox("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + b"\0" * 12 + b"\0")
    iinf = fullbox("iinf", 0, 0, struct.pack(">H", count) + b"".join(
        fullbox("infe", 2, 0, struct.pack(">HH", i, 0) + b"Exif" + b"\0") for i in range(1, count + 1)))

    def trak_meta(length):
        iloc = fullbox("iloc", 1, 0, struct.pack(">BBH", 0x44, 0x00, count) + b"".join(
            struct.pack(">HHHHIIII", i, 0, 0, 2, mdat_start, length, mdat_start, length) for i in range(1, count + 1)))
        return Node("meta", payload=struct.pack(">I", 0) + hdlr + iinf + iloc)

    colour.children.append(trak_meta(0))
    rest = len(ftyp.bytes()) + len(meta.bytes()) + len(mdat.bytes()) + len(moov.bytes())
    mdat.payload += bytes(size - rest)
    colour.children[-1] = trak_meta(len(mdat.payload))
    out = b"".join(n.bytes() for n in (ftyp, meta, mdat, moov))
    assert len(out) == size and 2 * len(mdat.payload) <= size  # libavif: an item no larger than the file
    return out


def heic_grid_4096(cells=64):
    """A cells x cells grid (item 2, primary, canvas and ispe 64 * cells square) whose
    cells x cells dimg references all name the tile (item 1, hidden, ispe 64x64)."""
    items = photo_heic()
    side = 64 * cells
    grid = Item(2, "grid", grid_payload(cells, cells, side, side), [ispe(side, side), PIXI], idat=True)
    return write_heif(HEIC_BRANDS, [items[1], grid], [("dimg", 2, [1] * (cells * cells))], 2)


# --------------------------------------------------------------------------
# The attack on the fix (issue 42's review): more pictures or frames in one item than an
# image has, and a grid whose tile does not cover its canvas.
# --------------------------------------------------------------------------

def heic_two_pictures():
    """photo.heic whose tile's data is its one picture twice (every NAL unit of it, again):
    two pictures in one item.  libde265 decodes both and libheif shows the last (1,000
    pictures of 4096x4096 in 173 KB took 26 s)."""
    items = photo_heic()
    tile = items[1]
    tile.data = tile.data + tile.data
    return write_heif(HEIC_BRANDS, [tile, items[2]], [("dimg", 2, [1])], 2)


def heic_hvcc_slice():
    """photo.heic whose tile's hvcC holds, after its parameter sets, an array of the
    tile's own slice NAL unit (type 19, IDR_W_RADL): a picture in the configuration, which
    every item sharing the box decodes (1,000 of them, 256 tiles: 16 s)."""
    items = photo_heic()
    tile = items[1]
    hvcc = prop_of(tile, "hvcC")
    body = hvcc[8:]
    slices = [n for k, n in nal_units4(tile.data) if k < 32]
    array = bytes([0x80 | 19]) + struct.pack(">H", len(slices)) + b"".join(
        struct.pack(">H", len(n)) + n for n in slices)
    new = box("hvcC", body[:22] + bytes([body[22] + 1]) + body[23:] + array)
    tile.props = [(new, e) if p is hvcc else (p, e) for p, e in tile.props]
    return write_heif(HEIC_BRANDS, [tile, items[2]], [("dimg", 2, [1])], 2)


def nal_units4(data):
    """[(type, unit)] of data split with 4-byte lengths."""
    out, at = [], 0
    while at + 4 <= len(data):
        n = be(data, at, 4)
        unit = data[at + 4:at + 4 + n]
        out.append(((unit[0] >> 1) & 0x3F, unit))
        at += 4 + n
    return out


def avif_two_frames():
    """photo.avif whose av01 item holds its frame twice (the frame OBU again after it):
    dav1d decodes every frame it is given."""
    primary, items, refs = read_heif(source("photo.avif"))
    item = items[primary]
    frames = [head + leb128(len(pl)) + pl for k, head, pl in obus(item.data) if k in (3, 6)]
    assert frames, "a frame OBU"
    item.data = item.data + b"".join(frames)
    return write_heif(AVIF_BRANDS, [item], refs, primary)


def avif_hidden_layers():
    """photo.avif whose sequence header is a full one (reduced_still_picture_header 0)
    with one operating point of idc 0x101 (spatial layer 0 and temporal layer 0 of a
    stream that says it has layers): with all_layers 0 dav1d decodes frames of the lower
    layers and shows none of them (800 hidden 4096x4096 frames in 22 KB: 12 s).  Only
    the header up to the frame size matters: what follows it is the old header's bits."""
    primary, items, refs = read_heif(source("photo.avif"))
    item = items[primary]
    out = b""
    for kind, head, payload in obus(item.data):
        if kind == 1:
            r, w = BitReader(payload), BitWriter()
            profile, still, reduced = r.u(3), r.u(1), r.u(1)
            assert reduced == 1, "photo.avif's header is a reduced one"
            r.u(5)  # seq_level_idx[0]
            w.u(3, profile)
            w.u(1, still)
            w.u(1, 0)        # reduced_still_picture_header
            w.u(1, 0)        # timing_info_present_flag
            w.u(1, 0)        # initial_display_delay_present_flag
            w.u(5, 0)        # operating_points_cnt_minus_1
            w.u(12, 0x101)   # operating_point_idc[0]
            w.u(5, 0)        # seq_level_idx[0]
            w.bits += r.rest()
            payload = w.trailing()
        out += head + leb128(len(payload)) + payload
    item.data = out
    return write_heif(AVIF_BRANDS, [item], refs, primary)


def heic_grid_gap(side=128):
    """photo.heic's 64x64 tile as the one tile (1x1) of a grid whose canvas (and ispe) is
    side x side: libheif 1.15 does not clear the canvas, so the cells no tile covers show
    what the memory held (in a batch, another file's pixels)."""
    items = photo_heic()
    grid = Item(2, "grid", grid_payload(1, 1, side, side), [ispe(side, side), PIXI], idat=True)
    return write_heif(HEIC_BRANDS, [items[1], grid], [("dimg", 2, [1])], 2)


FIXTURES = {
    "heic-two-pictures.heic": heic_two_pictures,
    "heic-hvcc-slice.heic": heic_hvcc_slice,
    "avif-two-frames.avif": avif_two_frames,
    "avif-hidden-layers.avif": avif_hidden_layers,
    "heic-grid-gap.heic": heic_grid_gap,
    "heic-infe-v4.heic": heic_infe_v4,
    "heic-hvcc-length1.heic": heic_hvcc_length1,
    "heic-iloc-length0.heic": heic_iloc_length0,
    "heic-iloc-sizes.heic": heic_iloc_sizes,
    "heic-iloc-index.heic": heic_iloc_index,
    "avif-seq-fixed-stsz.avif": avif_seq_fixed_stsz,
    "avif-trak-meta-exif.avif": avif_trak_meta_exif,
    "heic-grid-4096.heic": heic_grid_4096,
}


def main():
    write_fixtures(HERE, FIXTURES)


if __name__ == "__main__":
    main()
