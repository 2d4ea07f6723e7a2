#!/usr/bin/env python3
"""Write catctl's hostile fixtures of an attack on issue 31's own fixes (the HEIF/AVIF
pre-scan, heif_scan.c, and the JPEG XL layer count of commit 67bd21b), and check the valid
file of the same step, which avifenc made and this script does not write.

Each hostile file asks one question twice and gets two answers: libheif 1.15 reads the
FIRST of two boxes (iref, ipma, pitm) or of two properties of one kind (hvcC) where the
pre-scan of 238ba7b kept the LAST; libheif takes an auxC of urn:mpeg:avc:2015:auxid:1 for
alpha where the scan knew only the HEVC and MPEG-B URNs; libavif 0.11 takes a track when ANY
of its sample entries is av01 where the scan read the first; libjxl 0.7 blends every frame
onto the whole canvas where the header walk charged a layer its own area.

Pure Python 3 standard library.  The helpers are imported from the two scripts next to this
one, not copied: make_hostile_heif.py (boxes, read_heif / write_heif, the SPS and AV1
sequence header rewriters, seq.avif as a box tree, the iloc offset fields) and
make_hostile_jxl.py (the JPEG XL header and frame writer, iloc_extents).  Raw material:
../heif/photo.heic, photo.avif, alpha.heic and seq.avif, through make_hostile_heif.py.
Usage (from anywhere; files are written next to this script):

    python3 Tests/Fixtures/hostile/make_hostile_probe2.py

Deterministic and idempotent: a second run rewrites nothing (a file is only written when
its bytes change).  CC0, like their sources.

Provenance.  The seven files were first made by an attack session's generators
(gen_dup_boxes.py, gen_dup_hvcc.py, gen_pitm_codec.py, gen_stsd_dummy.py and
`gen_jxl_tiny_layers.py 2048 2048 1000`, over a helper module doing the same meta
surgery).  This script writes them byte for byte as those did (checked with cmp, no byte
differs): D-two-iref.heic, A1-hvcc-big-first.heic, B2-two-ipma.heic,
P2-two-pitm-av1-under-heic-only.heic, E-alpha-avc-urn.heic,
T5-avis-stsd-dummy-frame-larger.avif and J-tiny-layers-2048x2048-1000.jxl, in the order
of FIXTURES below.

Layouts.  The HEIF files are make_hostile_heif.write_heif's (ftyp heic, mif1, miaf; meta =
hdlr 'pict', pitm, iloc version 1 with 4-byte offsets and lengths, iinf of infe version 2,
iref version 0, iprp = ipco + ipma version 0, idat holding the grid payloads; then mdat).
Meta surgery (edit_meta) then puts a raw box among the meta's children and moves every
iloc file offset by as many bytes as the meta grew (the mdat follows the meta).

heic-two-iref.heic (1,299 bytes)  heic-grid-self.heic (tile 1: hidden 64x64 HEVC; grid 2:
    primary, 1x1, 64x48) with two iref boxes of 26 bytes, one after the other: the first
    says dimg 2 -> [2] (the grid is its own tile), the second, harmless, dimg 2 -> [1].
    libheif reads the first and aborts as on heic-grid-self.heic; the scan kept the
    last and saw a valid 1x1 grid.
heic-two-hvcc.heic (1,396 bytes)  photo.heic whose tile (item 1) has, in its one ipma
    entry, two essential hvcC properties and then its ispe: the first hvcC (property 1,
    122 bytes) with an SPS of 16384x16384, the second (property 2, 118 bytes) the tile's
    own 64x64 one.  libheif takes the first: libde265 decodes a 16384x16384 picture for
    the 64x64 tile.  The scan kept the last.
heic-two-ipma.heic (1,415 bytes)  photo.heic whose ipco holds the 16384x16384 hvcC (1),
    the tile's ispe 64x64 (2), the grid's ispe 64x48 (3), pixi (4), then the tile's own
    hvcC (5, appended), and whose iprp holds two ipma boxes: write_heif's (item 1 ->
    hvcC 1, ispe 2; item 2 -> ispe 3, pixi 4), then a second of 20 bytes with one entry,
    item 1 -> property 5, essential.  libheif uses the first ipma (16384x16384); the
    scan walked both and kept the last hvcC association (64x64).
heic-two-pitm-av1.heic (1,928 bytes)  photo.heic (ftyp heic; tile 1, grid 2) with
    photo.avif's AV1 item as item 3 (av01, visible, unreferenced: colr, av1C, ispe 64x48,
    pixi; its 566 bytes last in the mdat) and two pitm boxes: the first names item 3,
    the second, write_heif's own, grid 2.  Under --formats heic libheif decodes the
    first pitm's item with its AV1 decoder: the allow-list was enforced only by the
    scan, which took the last pitm (an HEVC grid).
heic-alpha-avc-urn.heic (2,011 bytes)  alpha.heic (grid 2, primary, 64x48, of HEVC tile
    1; grid 4, 64x48, of HEVC tile 3, auxl 4 -> 2) whose alpha grid's auxC names
    urn:mpeg:avc:2015:auxid:1 (the AVC alpha URN, not HEVC's) and whose alpha tile's
    hvcC SPS says 16384x16384 (its ispe still 64x64).  libheif 1.15 takes that URN for
    alpha and decodes the alpha grid, tile and all; the scan knew only
    urn:mpeg:hevc:2015:auxid:1 and urn:mpeg:mpegB:cicp:systems:auxiliary:alpha, so it
    charged no alpha image.
avif-seq-two-entries.avif (3,220 bytes)  seq.avif moved to ftyp, meta, mdat, moov
    (make_hostile_heif.seq_avif; 'avis', a colour and an alpha track of three 32x24
    frames) whose colour track's first frame has an AV1 sequence header of 8192x8192
    (the tkhd and the sample entry still say 32x24; the sample grows from 328 to 330
    bytes); the colour item of the meta points at an untouched copy of the old frame,
    appended to the mdat (file offset 1,405, 328 bytes), so the still image is harmless;
    and in both tracks the stsd has two entries: a dummy 'mp4v' (86 bytes: the av01
    entry's 78 bytes of fields, no child box), then the av01 entry.  The moov is last,
    so its growth moves no offset.  libavif 0.11 takes a track when any of its entries
    is av01 and decodes the 8192x8192 frame; the scan read only the first entry and
    skipped both tracks.
jxl-tiny-layers.jxl (14,022 bytes: 8 of signature and header, 14 a frame)  a bare
    2048x2048 codestream, make_hostile_jxl's animated image header (1000 ticks a second,
    looping forever), then 1001 frames, each a 1x1 layer at (0, 0), blend mode replace
    (make_hostile_jxl's one-group modular frame, all zeros): 1000 of duration 0, then one
    of duration 1, the last.  The header walk (coalescing off) charged each layer its own
    1 pixel; libjxl 0.7 with coalescing on blends every frame onto the whole canvas:
    1001 x 4.2 MP of work behind a 4.2 MP image.

Not written here: avif-grid-shared-extents.avif (VALID, 571 bytes, sha256 968135124667...),
made by avifenc 0.11.1 (libavif 0.11.1, its default AV1 encoder aom 3.6.0) from flat.png:

    avifenc -s 10 --grid 2x2 flat.png avif-grid-shared-extents.avif

flat.png (761 bytes, sha256 158ac736f634...) is 256x256 8-bit RGB, every pixel
(200, 100, 50): the PNG signature, IHDR (256, 256, depth 8, colour type 2, 0, 0, 0), one
IDAT of zlib.compress(rows) (zlib's default level, 6) where each row is the filter byte 0
then (200, 100, 50) 256 times, IEND.  Every other avifenc setting is its default (YUV
4:4:4, full range, nclx 1/13/6, colour quantizer 24 to 26, 1 thread).  The attack session
kept no command line (no shell history; its flat.png is this one, byte for byte); the
command above reproduces its ae-grid-flat.avif byte for byte, as do -s 8 and -s 9, while
the default speed, 6, gives 570 bytes (another coded tile); the session's other avifenc
files reproduce at -s 9 and -s 10 alike.  The file: ftyp avif (avif, mif1, miaf, MA1A);
meta = hdlr 'pict' ("libavif"), pitm 1, iloc version 0 (4-byte offsets and lengths): grid
1 -> 8 bytes at 521, the av01 tiles 2, 3, 4 and 5 -> the same 42 bytes at 529; iinf; iref
dimg 1 -> [2, 3, 4, 5]; iprp (ispe 256x256, pixi, colr, ispe 128x128, av1C); then an
mdat of 50 bytes: the grid payload and the one coded tile that the four identical 128x128
cells share (libavif stores identical tiles once).  It decodes to 256x256 of one colour.
This script only checks that it is here and that items share an extent in it.

Today (release binary of 238ba7b, the pre-scan before these fixes; `prlimit --as=$((2<<30))
timeout 30 catctl edit --filter sepia IN OUT.png` unless said; a normal small decode takes
0.02 s and 25-32 MB; times on 2 busy cores):

  file                        exit  time     max RSS   output left / what
  heic-two-iref.heic          134   0.07 s     27 MB   none; SIGABRT (`detect`: 134 too)
  heic-two-hvcc.heic            0   10.4 s   1.20 GB   64x48 PNG
  heic-two-ipma.heic            0   10.3 s   1.20 GB   64x48 PNG
  heic-two-pitm-av1.heic        0   0.02 s     28 MB   64x48 PNG, with --formats heic: the
                                                        AV1 item's picture (photo.avif's)
  heic-alpha-avc-urn.heic       0   5.4 s    1.47 GB   64x48 PNG
  avif-seq-two-entries.avif    65   0.5 s    1.01 GB   none; libaom: "frame 1 of 3: Decoding
    (the same with --max-pixels 10000)                  of color planes failed"
  jxl-tiny-layers.jxl           0   13 s      269 MB   2048x2048 PNG
  avif-grid-shared-extents.avif
                                0   0.02 s     32 MB   256x256 PNG (VALID: it must stay so)
    (the pre-scan's first form, 67bd21b: 65, "items' data overlap (bytes 529 to 570 are
    placed twice in 'iloc')"; before issue 31: 0, the same PNG)

Expected (Tests/CLITests/HostileDecoderTests.swift): 65 for the seven hostile files (two
'iref', two 'ipma' or two 'pitm' boxes, two properties of one kind, the 16384x16384 alpha
tile, the track's sample descriptions, the layers and frames of no duration), before any
codec runs; avif-grid-shared-extents.avif decoded.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)            # the sibling scripts
sys.dont_write_bytecode = True      # no __pycache__ among the fixtures

import make_hostile_heif as H       # noqa: E402
import make_hostile_jxl as J        # noqa: E402
from make_hostile import write_fixtures  # noqa: E402
from make_hostile_heif import be, box, boxes, fullbox  # noqa: E402


# --------------------------------------------------------------------------
# Meta surgery: a file from make_hostile_heif.write_heif (ftyp, meta, mdat), its
# meta's child boxes edited as raw bytes, every iloc offset moved by the meta's growth
# --------------------------------------------------------------------------

def meta_children(data):
    """(bytes before the meta, its version and flags, [(type, child box)], bytes after)."""
    for kind, start, end in boxes(data):
        if kind == "meta":
            children = [(k, bytes(data[s - 8:e])) for k, s, e in boxes(data, start + 4, end)]
            return bytes(data[:start - 8]), bytes(data[start:start + 4]), children, bytes(data[end:])
    raise KeyError("meta")


def edit_meta(data, edit):
    """data whose meta holds edit(children) instead of its children.  The mdat follows the
    meta, so every file offset in the (first) iloc moves by as much as the meta grew."""
    before, head, children, after = meta_children(data)
    old = len(data) - len(before) - len(after)
    payload = head + b"".join(raw for _, raw in edit(children))
    payload = H.shift_iloc(payload, 8 + len(payload) - old)
    return before + box("meta", payload) + after


def insert_box(children, kind, new, before=False):
    """children with the box `new` put just after (or before) the first `kind` child."""
    at = next(i for i, (k, _) in enumerate(children) if k == kind) + (0 if before else 1)
    return children[:at] + [(kind, new)] + children[at:]


# --------------------------------------------------------------------------
# Items and properties
# --------------------------------------------------------------------------

def replace_prop(item, kind, make):
    """The item's `kind` property replaced by make(old property box)."""
    item.props = [(make(p) if p[4:8] == kind.encode() else p, e) for p, e in item.props]


def photo_hvccs(side=16384):
    """photo.heic's items (1: 64x64 HEVC tile, 2: 1x1 grid, primary), the tile's own
    hvcC, and that hvcC with its SPS saying side x side."""
    items = H.photo_heic()
    small = H.prop_of(items[1], "hvcC")
    big = H.rewrite_hvcc(small, width=side, height=side)
    assert sps_sizes(big) == [(side, side)] and sps_sizes(small) == [(64, 64)]
    return items, small, big


def sps_sizes(hvcc_box):
    """[(width, height)] of the SPS units in an hvcC box."""
    return [H.sps_fields(nal)[:2] for kind, nal in H.hvcc_nals(hvcc_box[8:]) if kind == 33]


def set_hvccs(tile, hvccs):
    """The tile's properties: the given hvcC boxes (essential), in order, then the rest."""
    tile.props = [(h, True) for h in hvccs] + [(p, e) for p, e in tile.props if p[4:8] != b"hvcC"]


def write_photo(items, extra=()):
    """photo.heic again: tile 1, grid 2 (primary, dimg 2 -> 1), then `extra` items."""
    return H.write_heif(H.HEIC_BRANDS, [items[1], items[2]] + list(extra), [("dimg", 2, [1])], 2)


def iprp_with_second_ipma(iprp, prop, item_id):
    """An iprp box (raw) whose ipco gains `prop` at its end and which gains a second ipma
    (version 0, flags 0) after its own: one entry, item_id -> that property, essential."""
    parts = {k: bytes(iprp[s:e]) for k, s, e in boxes(iprp, 8)}
    index = len(list(boxes(parts["ipco"]))) + 1
    second = fullbox("ipma", 0, 0, struct.pack(">IHB", 1, item_id, 1) + bytes([index | 0x80]))
    return box("iprp", box("ipco", parts["ipco"] + prop) + box("ipma", parts["ipma"]) + second)


# --------------------------------------------------------------------------
# The HEIF fixtures
# --------------------------------------------------------------------------

def heic_two_iref():
    """heic-grid-self.heic (grid 2 -> [2]) with a second iref after its own: dimg 2 -> [1]."""
    harmless = fullbox("iref", 0, 0, box("dimg", struct.pack(">HHH", 2, 1, 1)))
    return edit_meta(H.heic_grid_self(), lambda children: insert_box(children, "iref", harmless))


def heic_two_hvcc():
    """photo.heic whose tile has two hvcC properties: 16384x16384 first, its own second."""
    items, small, big = photo_hvccs()
    set_hvccs(items[1], [big, small])
    return write_photo(items)


def heic_two_ipma():
    """photo.heic whose tile's hvcC says 16384x16384 in the ipma, and a second ipma that
    gives the tile its own 64x64 hvcC (appended to the ipco)."""
    items, small, big = photo_hvccs()
    set_hvccs(items[1], [big])

    def edit(children):
        return [(k, iprp_with_second_ipma(raw, small, 1) if k == "iprp" else raw) for k, raw in children]
    return edit_meta(write_photo(items), edit)


def heic_two_pitm_av1():
    """photo.heic plus photo.avif's AV1 item as item 3, and a first pitm naming it before
    the file's own pitm (naming grid 2)."""
    items = H.photo_heic()
    primary, avif_items, _ = H.read_heif(H.source("photo.avif"))
    av1 = avif_items[primary]
    av1.id = 3
    first = fullbox("pitm", 0, 0, struct.pack(">H", 3))
    data = write_photo(items, [av1])
    return edit_meta(data, lambda children: insert_box(children, "pitm", first, before=True))


AVC_ALPHA_URN = b"urn:mpeg:avc:2015:auxid:1\0"


def heic_alpha_avc_urn(side=16384):
    """alpha.heic whose alpha grid's auxC names the AVC alpha URN and whose alpha tile's
    hvcC SPS says side x side."""
    primary, items, refs = H.read_heif(H.source("alpha.heic"))
    assert refs == [("dimg", 2, [1]), ("dimg", 4, [3]), ("auxl", 4, [2])], refs
    replace_prop(items[3], "hvcC", lambda p: H.rewrite_hvcc(p, width=side, height=side))
    replace_prop(items[4], "auxC", lambda p: fullbox("auxC", 0, 0, AVC_ALPHA_URN))
    assert sps_sizes(H.prop_of(items[3], "hvcC")) == [(side, side)]
    return H.write_heif(H.HEIC_BRANDS, [items[i] for i in sorted(items)], refs, primary)


# --------------------------------------------------------------------------
# The AVIF sequence
# --------------------------------------------------------------------------

def enlarge_first_sample(colour, mdat, mdat_start, side):
    """Rewrites the colour track's first sample (its sequence header: side x side) in the
    mdat payload and the sample table; returns (its offset, the sample as it was)."""
    file = bytes(mdat_start - 8) + box("mdat", mdat.payload)  # offsets as in the final file
    samples = H.track_samples(file, colour)
    first, size, sample = samples[0]
    new = H.rewrite_av1_obus(sample, side, side)
    assert [H.av1_size(pl) for k, _, pl in H.obus(new) if k == 1] == [(side, side)]
    at = first - mdat_start
    mdat.payload = mdat.payload[:at] + new + mdat.payload[at + size:]
    H.set_sample_table(colour, [len(new)] + [s for _, s, _ in samples[1:]], [first], len(samples))
    return first, sample


def move_item_extent(meta, old_offset, new_offset):
    """The meta's iloc extent that starts at old_offset made to start at new_offset."""
    p = bytearray(meta.payload)
    at = next(o for o, _ in H.iloc_extent_fields(p) if be(p, o, 4) == old_offset)
    p[at:at + 4] = struct.pack(">I", new_offset)
    meta.payload = bytes(p)


def lead_with_dummy_entry(trak):
    """The track's stsd led by an 'mp4v' entry (the av01 entry's 78 bytes, no children)."""
    stsd = trak.find("mdia", "minf", "stbl", "stsd")
    stsd.children.insert(0, H.Node("mp4v", stsd.children[0].head, []))
    stsd.head = stsd.head[:4] + struct.pack(">I", len(stsd.children))


def avif_seq_two_entries(side=8192):
    """seq.avif (ftyp, meta, mdat, moov) whose first colour frame's sequence header says
    side x side, whose colour item points at an untouched copy of that frame (appended to
    the mdat), and whose every track's stsd is led by a dummy 'mp4v' entry."""
    ftyp, meta, mdat, moov = H.seq_avif()
    mdat_start = len(ftyp.bytes()) + len(meta.bytes()) + 8
    first, original = enlarge_first_sample(moov.all("trak")[0], mdat, mdat_start, side)
    move_item_extent(meta, first, mdat_start + len(mdat.payload))
    mdat.payload += original
    for trak in moov.all("trak"):
        lead_with_dummy_entry(trak)     # the moov is last: no offset moves
    return b"".join(n.bytes() for n in (ftyp, meta, mdat, moov))


# --------------------------------------------------------------------------
# JPEG XL
# --------------------------------------------------------------------------

def jxl_tiny_layers(side=2048, hidden=1000):
    """A side x side animation: `hidden` frames of duration 0, each a 1x1 layer at (0, 0),
    then a last 1x1 layer of duration 1."""
    w = J.Bits()
    J.jxl_image_header(w, side, side, animated=True)
    for _ in range(hidden):
        J.jxl_frame(w, last=False, duration=0, crop=(0, 0, 1, 1))
    J.jxl_frame(w, last=True, duration=1, crop=(0, 0, 1, 1))
    return J.JXL_SIGNATURE + w.bytes()


# --------------------------------------------------------------------------
# The valid file made by avifenc (checked, never written here)
# --------------------------------------------------------------------------

AVIFENC_FILE = "avif-grid-shared-extents.avif"


def shared_extents(data):
    """{(offset, length): [item ids]} of the file extents that more than one item names."""
    by_extent = {}
    for item, offset, length in J.iloc_extents(data):
        by_extent.setdefault((offset, length), []).append(item)
    return {extent: ids for extent, ids in by_extent.items() if len(ids) > 1}


def check_avifenc_file():
    """Reports the avifenc file (see the docstring): here, and items sharing an extent."""
    path = os.path.join(HERE, AVIFENC_FILE)
    if not os.path.exists(path):
        print("%-28s missing: made by avifenc (see this script's docstring)" % AVIFENC_FILE)
        return
    with open(path, "rb") as f:
        data = f.read()
    shared = shared_extents(data)
    if not shared:
        raise SystemExit("%s: no two items share an extent" % AVIFENC_FILE)
    print("%-28s %8d bytes (avifenc; items %s share one extent)" % (
        AVIFENC_FILE, len(data), ", ".join(map(str, next(iter(shared.values()))))))


# --------------------------------------------------------------------------

FIXTURES = {
    "heic-two-iref.heic": heic_two_iref,
    "heic-two-hvcc.heic": heic_two_hvcc,
    "heic-two-ipma.heic": heic_two_ipma,
    "heic-two-pitm-av1.heic": heic_two_pitm_av1,
    "heic-alpha-avc-urn.heic": heic_alpha_avc_urn,
    "avif-seq-two-entries.avif": avif_seq_two_entries,
    "jxl-tiny-layers.jxl": jxl_tiny_layers,
}


def main():
    write_fixtures(HERE, FIXTURES)
    check_avifenc_file()


if __name__ == "__main__":
    main()
