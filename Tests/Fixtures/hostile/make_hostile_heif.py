#!/usr/bin/env python3
"""Write catctl's hostile HEIF/AVIF fixtures (issue 31, "The newest decoders under attack")
and two valid files the old second read refused.

Pure Python 3 standard library.  Raw material: files already in ../heif/ (seq.heic,
seq.avif, photo.heic, photo.avif, grid.heic); their coded HEVC and AV1 bytes are reused,
only boxes and parameter sets are rewritten, so no encoder is needed.  Usage (from
anywhere; files are written next to this script):

    python3 Tests/Fixtures/hostile/make_hostile_heif.py

Deterministic and idempotent: a second run rewrites nothing (a file is only written when
its bytes change).  CC0, like their sources.

Layouts.  Still files (write_heif): ftyp (major brand, then it and mif1, miaf as
compatible brands), meta (hdlr 'pict', pitm, iloc version 1 with 4-byte offsets and
lengths and no base offset, iinf version 0 of infe version 2, iref version 0, iprp =
ipco + ipma version 0, idat holding grid payloads), mdat (each item's data once).
Sequences keep their source's moov (mvhd, trak = tkhd, [tref], mdia = mdhd, hdlr 'pict'
or 'auxv', minf = vmhd, dinf, stbl = stsd (hvc1 + hvcC, or av01 + av1C), stts, stss,
stsc, stsz, stco); the two AVIF ones move the mdat before the moov (ftyp, meta, mdat,
moov) and move every stco and iloc offset with it.

heif-seq-mixed-depth.heic (F5, 3,495 bytes)  seq.heic (msf1, one HEVC 'pict' track)
    whose SPS says bit_depth_luma 12, bit_depth_chroma 8, in the hvcC (the SPS unit and
    the bitDepth fields; the samples carry no SPS) and whose picture is widened to
    4096x24 (SPS, sample entry, tkhd).  catctl reads the 8-bit chroma as 16-bit.
avif-seq-many-samples.avif (F1, 14,443 bytes)  seq.avif whose colour track has
    10,000,000 samples of 1 byte: 1,600 chunk offsets, all the same, of 6,250 samples.
heic-sps-larger.heic (F2, 1,277 bytes)  photo.heic (ispe 64x48 and 64x64) whose hvcC
    SPS says 16384x16384.
avif-av1-larger.avif (F2, 9,028 bytes)  photo.avif (ispe 64x48) whose AV1 sequence
    header says 4096x2304, its frame header's tile_info() made again for that size, the
    tile data followed by 8 KiB of zeros: dav1d decodes it to 4096x2304 (heif-convert).
avif-av1-larger-grid.avif (F2, 9,112 bytes)  that picture as the one tile of a 1x1
    64x48 grid: libheif 1.15 decodes grid tiles with dav1d whatever catctl asks for.
avif-seq-frame-larger.avif (F2, 2,720 bytes)  seq.avif whose tkhd and sample entry
    say 32x24 and whose first frame's sequence header says 8192x8192.
heic-grid-self.heic (F8, 1,273 bytes)  a 1x1 grid whose dimg is itself (2 -> [2]).
heic-dimg-cycle.heic (F8, 1,337 bytes)  grid 2 -> grid 3 -> grid 2.
heic-grid-repeated.heic (F3, 131,831 bytes)  a 256x255-cell grid, 65,280 dimg
    references to one 64x64 tile whose ispe says 1x1: canvas 256x255.
heic-iloc-overlap.heic (F9, 99,373 bytes)  300 'mime' items of 32 extents, each the
    whole file, linked to the primary by 'cdsc': 954 MB of items.
heic-exif-huge.heic (F9, 280,103 bytes)  an Exif item of 32 extents from its payload
    to the end of the file: 8,912,896 bytes (8.5 MiB) of Exif, a real TIFF first.
heic-thumb-larger.heic (VALID, 16,857 bytes)  primary 64x48, thumbnail 256x192 (a grid
    of 12 tiles, 'thmb' -> primary).
heic-alt-larger.heic (VALID, 16,843 bytes)  primary 64x48 and a second top-level image,
    256x192 (the same grid, no reference).

Today (release binary before issue 31's fixes; `prlimit --as=$((2<<30)) timeout 30
catctl edit --filter sepia IN OUT.png` unless said; a normal small decode takes 0.02 s
and 25-32 MB; times on 2 busy cores):

  file                        exit  time     max RSS   output left / what
  heif-seq-mixed-depth.heic   139   0.22 s     41 MB   none; SIGSEGV in ch_to_rgba
  avif-seq-many-samples.avif   65   1.2-1.9 s 1.37 GB  none; "more than 10000 frames"
  heic-sps-larger.heic          0   10.3 s   1.18 GB   64x48 PNG
  avif-av1-larger.avif         65   0.08 s    147 MB   none; libaom: corrupt frame
    (the same with --max-pixels 10000)
  avif-av1-larger-grid.avif     0   0.10 s     84 MB   64x48 PNG, also with
    --max-pixels 10000 (a 4096x2304 frame decoded)
  avif-seq-frame-larger.avif   65   0.5 s     983 MB   none; libaom: frame 1 failed
    (the same with --max-pixels 10000)
  heic-grid-self.heic         134   0.13 s     26 MB   none; std::system_error
    (`detect`: 134 too)
  heic-dimg-cycle.heic        139   0.02 s     32 MB   none; libheif recurses (`detect`:
    139 too)
  heic-grid-repeated.heic       0   23-29 s    27 MB   256x255 PNG
  heic-iloc-overlap.heic        0   1.5-3.3 s 939 MB   64x48 PNG
  heic-exif-huge.heic           0   0.05 s     58 MB   64x48 PNG of 8.9 MB (the Exif)
  heic-thumb-larger.heic       65   0.01 s     24 MB   none; "cannot read the HEIF file
  heic-alt-larger.heic         65   0.01 s     24 MB    again: ... Security limit
                                                        exceeded: Image size 256x192"
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the fixtures
sys.path.insert(0, HERE)
from make_hostile import write_fixtures  # noqa: E402 (one writer for every fixture script)
HEIF_DIR = os.path.join(HERE, "..", "heif")



def source(name):
    with open(os.path.join(HEIF_DIR, name), "rb") as f:
        return f.read()


# --------------------------------------------------------------------------
# ISOBMFF boxes
# --------------------------------------------------------------------------

def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode("latin-1")) + payload


def fullbox(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def boxes(data, start=0, end=None):
    """(type, payload start, box end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        head = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            head = 16
        elif size == 0:
            size = end - pos
        if size < head or pos + size > end:
            raise ValueError("bad box at %d" % pos)
        yield kind.decode("latin-1"), pos + head, pos + size
        pos += size


def child(data, kind, start=0, end=None):
    """(payload start, end) of the first `kind` box in data[start:end]."""
    for k, s, e in boxes(data, start, end):
        if k == kind:
            return s, e
    raise KeyError(kind)


def be(data, at, n):
    return int.from_bytes(data[at:at + n], "big")


# A box tree for the movie side (moov ...), so sample tables can be replaced and
# every size recomputed.  `head` is what a box holds before its children: a full box's
# version and flags, stsd's entry count, a visual sample entry's 78 bytes.
CONTAINER_HEAD = {"moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "dinf": 0, "edts": 0,
                  "udta": 0, "tref": 0, "stsd": 8, "hvc1": 78, "hev1": 78, "av01": 78}


class Node:
    def __init__(self, kind, head=b"", children=None, payload=b""):
        self.kind, self.head, self.children, self.payload = kind, head, children, payload

    def bytes(self):
        if self.children is None:
            return box(self.kind, self.payload)
        return box(self.kind, self.head + b"".join(c.bytes() for c in self.children))

    def find(self, *path):
        """The first descendant along `path` (each a child's type)."""
        node = self
        for kind in path:
            node = next(c for c in node.children if c.kind == kind)
        return node

    def all(self, kind):
        return [c for c in self.children if c.kind == kind]


def parse_node(data, kind, start, end):
    if kind in CONTAINER_HEAD:
        h = CONTAINER_HEAD[kind]
        return Node(kind, bytes(data[start:start + h]),
                    [parse_node(data, k, s, e) for k, s, e in boxes(data, start + h, end)])
    return Node(kind, payload=bytes(data[start:end]))


def top_level(data):
    """The file's top-level boxes as Nodes (a moov parsed as a tree)."""
    return [parse_node(data, k, s, e) for k, s, e in boxes(data)]


def track_samples(data, trak):
    """The samples of a track, in order: (file offset, size) from stsz, stsc, stco."""
    stbl = trak.find("mdia", "minf", "stbl")
    stsz = stbl.find("stsz").payload
    fixed, count = struct.unpack(">II", stsz[4:12])
    sizes = [fixed] * count if fixed else list(struct.unpack(">%dI" % count, stsz[12:12 + 4 * count]))
    stco = stbl.find("stco").payload
    chunks = list(struct.unpack(">%dI" % be(stco, 4, 4), stco[8:]))
    stsc = stbl.find("stsc").payload
    runs = [struct.unpack(">III", stsc[8 + 12 * i:20 + 12 * i]) for i in range(be(stsc, 4, 4))]
    out = []
    for c, offset in enumerate(chunks, 1):
        per = [r[1] for r in runs if r[0] <= c][-1]
        for _ in range(per):
            out.append((offset, sizes[len(out)]))
            offset += sizes[len(out) - 1]
    assert len(out) == count
    return [(o, s, bytes(data[o:o + s])) for o, s in out]


def set_sample_table(trak, sizes, chunk_offsets, samples_per_chunk, fixed_size=0):
    """stsz, stco and a one-run stsc for the track (the stts and stss are kept)."""
    stbl = trak.find("mdia", "minf", "stbl")
    count = len(chunk_offsets) * samples_per_chunk
    stbl.find("stsz").payload = struct.pack(">III", 0, fixed_size, count) + (
        b"" if fixed_size else struct.pack(">%dI" % len(sizes), *sizes))
    stbl.find("stco").payload = struct.pack(">II", 0, len(chunk_offsets)) + struct.pack(
        ">%dI" % len(chunk_offsets), *chunk_offsets)
    stbl.find("stsc").payload = struct.pack(">IIIII", 0, 1, 1, samples_per_chunk, 1)


def shift_chunk_offsets(trak, delta):
    stco = trak.find("mdia", "minf", "stbl", "stco")
    n = be(stco.payload, 4, 4)
    offsets = [o + delta for o in struct.unpack(">%dI" % n, stco.payload[8:8 + 4 * n])]
    stco.payload = stco.payload[:8] + struct.pack(">%dI" % n, *offsets)


# --------------------------------------------------------------------------
# HEIF items: read a file into items, write items back into a file
# --------------------------------------------------------------------------

class Item:
    """One item: its type, data, properties [(box bytes, essential)], and where its data
    goes: the mdat (construction method 0) or the idat (1).  `extents`, when set, is a
    function (where the item's own data was put, file size) -> [(file offset, length)]
    that replaces the one extent pointing at that data (`extent_count` of them)."""

    def __init__(self, item_id, kind, data=b"", props=(), hidden=False, name="", content_type=None,
                 idat=False, extents=None, extent_count=1):
        self.id, self.kind, self.data, self.props = item_id, kind, data, list(props)
        self.hidden, self.name, self.content_type = hidden, name, content_type
        self.idat, self.extents, self.extent_count = idat, extents, extent_count


def read_heif(data):
    """A HEIF file's primary item id, items {id: Item} and references [(type, from, [to])]."""
    ms, me = child(data, "meta")
    ms += 4
    primary = be(data, child(data, "pitm", ms, me)[0] + 4, 2)
    idat = b""
    if any(k == "idat" for k, _, _ in boxes(data, ms, me)):
        s, e = child(data, "idat", ms, me)
        idat = data[s:e]
    items = {}
    s, e = child(data, "iinf", ms, me)
    for k, s2, e2 in boxes(data, s + 4 + (2 if data[s] == 0 else 4), e):
        assert k == "infe" and data[s2] == 2, "infe version 2 only"
        iid, kind = be(data, s2 + 4, 2), data[s2 + 8:s2 + 12].decode("latin-1")
        name_end = data.index(b"\0", s2 + 12)
        ctype = data[name_end + 1:data.index(b"\0", name_end + 1)].decode() if kind == "mime" else None
        items[iid] = Item(iid, kind, hidden=bool(be(data, s2, 4) & 1),
                          name=data[s2 + 12:name_end].decode("latin-1"), content_type=ctype)
    # iloc: the data of each item
    s, e = child(data, "iloc", ms, me)
    version, p = data[s], s + 4
    off_size, len_size, base_size = data[p] >> 4, data[p] & 15, data[p + 1] >> 4
    idx_size = data[p + 1] & 15 if version in (1, 2) else 0
    p += 2
    id_size = 4 if version == 2 else 2
    count = be(data, p, id_size)
    p += id_size
    for _ in range(count):
        iid = be(data, p, id_size)
        p += id_size
        method = be(data, p, 2) & 15 if version in (1, 2) else 0
        p += 2 if version in (1, 2) else 0
        p += 2  # data reference index
        base = be(data, p, base_size)
        p += base_size
        chunks = []
        n = be(data, p, 2)
        p += 2
        for _ in range(n):
            p += idx_size
            off, ln = be(data, p, off_size), be(data, p + off_size, len_size)
            p += off_size + len_size
            src = idat if method == 1 else data
            chunks.append(src[base + off:base + off + ln])
        items[iid].data = b"".join(chunks)
        items[iid].idat = method == 1
    # iprp: properties by item
    s, e = child(data, "iprp", ms, me)
    cs, ce = child(data, "ipco", s, e)
    props = [bytes(data[k - 8:k2]) for _, k, k2 in boxes(data, cs, ce)]  # (no large boxes here)
    ps, pe = child(data, "ipma", s, e)
    version, flags = data[ps], be(data, ps + 1, 3)
    count, p = be(data, ps + 4, 4), ps + 8
    id_size = 4 if version >= 1 else 2
    for _ in range(count):
        iid = be(data, p, id_size)
        p += id_size
        n = data[p]
        p += 1
        for _ in range(n):
            if flags & 1:
                v = be(data, p, 2)
                p += 2
                essential, index = bool(v & 0x8000), v & 0x7FFF
            else:
                essential, index = bool(data[p] & 0x80), data[p] & 0x7F
                p += 1
            items[iid].props.append((props[index - 1], essential))
    refs = []
    if any(k == "iref" for k, _, _ in boxes(data, ms, me)):
        s, e = child(data, "iref", ms, me)
        wide = data[s] == 1
        w = 4 if wide else 2
        for k, s2, e2 in boxes(data, s + 4, e):
            frm, n = be(data, s2, w), be(data, s2 + w, 2)
            refs.append((k, frm, [be(data, s2 + w + 2 + w * i, w) for i in range(n)]))
    return primary, items, refs


def write_heif(brands, items, refs, primary, pad=b""):
    """A HEIF file: ftyp (brands[0] major, all of them compatible), meta (hdlr 'pict', pitm,
    iloc version 1 with 4-byte offsets and lengths, iinf of infe version 2, iref version 0,
    iprp with ipco and ipma version 0, idat when an item keeps its data there), then mdat
    (each item's data once, then `pad`).  Identical property boxes are stored once."""
    ftyp = box("ftyp", brands[0].encode() + struct.pack(">I", 0) + b"".join(b.encode() for b in brands))
    hdlr = fullbox("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + b"\0" * 12 + b"\0")
    pitm = fullbox("pitm", 0, 0, struct.pack(">H", primary))
    infes = b""
    for it in items:
        body = struct.pack(">HH", it.id, 0) + it.kind.encode() + it.name.encode() + b"\0"
        if it.kind == "mime":
            body += it.content_type.encode() + b"\0"
        infes += fullbox("infe", 2, 1 if it.hidden else 0, body)
    iinf = fullbox("iinf", 0, 0, struct.pack(">H", len(items)) + infes)
    iref = b""
    if refs:
        iref = fullbox("iref", 0, 0, b"".join(
            box(k, struct.pack(">HH", frm, len(to)) + struct.pack(">%dH" % len(to), *to)) for k, frm, to in refs))
    table = []
    for it in items:
        for prop, _ in it.props:
            if prop not in table:
                table.append(prop)
    wide = len(table) > 127
    entries = b""
    for it in items:
        entries += struct.pack(">HB", it.id, len(it.props))
        for prop, essential in it.props:
            index = table.index(prop) + 1
            entries += struct.pack(">H", index | (0x8000 if essential else 0)) if wide else \
                bytes([index | (0x80 if essential else 0)])
    iprp = box("iprp", box("ipco", b"".join(table)) + fullbox("ipma", 0, 1 if wide else 0,
                                                                struct.pack(">I", len(items)) + entries))
    idat_data = b"".join(it.data for it in items if it.idat)
    idat = box("idat", idat_data) if idat_data else b""

    def meta(mdat_data_start, file_size):
        body = struct.pack(">BBH", 0x44, 0x00, len(items))
        pos, ipos = mdat_data_start, 0
        for it in items:
            if it.idat:
                extents = [(ipos, len(it.data))]
                ipos += len(it.data)
            else:
                extents = it.extents(pos, file_size) if it.extents else [(pos, len(it.data))]
                pos += len(it.data)
            assert len(extents) == it.extent_count
            body += struct.pack(">HHHH", it.id, 1 if it.idat else 0, 0, len(extents))
            body += b"".join(struct.pack(">II", o, n) for o, n in extents)
        iloc = fullbox("iloc", 1, 0, body)
        return fullbox("meta", 0, 0, hdlr + pitm + iloc + iinf + iref + iprp + idat)

    mdat_payload = b"".join(it.data for it in items if not it.idat) + pad
    start = len(ftyp) + len(meta(0, 0x7FFFFFFF)) + 8  # every field has a fixed size
    size = start + len(mdat_payload)
    out = ftyp + meta(start, size) + box("mdat", mdat_payload)
    assert len(out) == size
    return out


def ispe(width, height):
    return fullbox("ispe", 0, 0, struct.pack(">II", width, height)), False


PIXI = fullbox("pixi", 0, 0, bytes([3, 8, 8, 8])), False


def grid_payload(rows, cols, width, height):
    """ImageGrid (ISO/IEC 23008-12 6.6.2.3.2): version 0, 16-bit sizes unless too large."""
    wide = width > 0xFFFF or height > 0xFFFF
    return struct.pack(">BBBB", 0, 1 if wide else 0, rows - 1, cols - 1) + struct.pack(
        ">II" if wide else ">HH", width, height)


def prop_of(item, kind):
    return next(p for p, _ in item.props if p[4:8] == kind.encode())


# --------------------------------------------------------------------------
# Bit fields: HEVC SPS (H.265 7.3.2.2) and the AV1 sequence header (AV1 5.5)
# --------------------------------------------------------------------------

class BitReader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def u(self, n):
        v = 0
        for _ in range(n):
            if self.pos >= 8 * len(self.data):
                raise ValueError("read past the end")
            v = v << 1 | (self.data[self.pos >> 3] >> (7 - (self.pos & 7))) & 1
            self.pos += 1
        return v

    def ue(self):
        """Exp-Golomb ue(v)."""
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.u(zeros)

    def rest(self):
        """The bits left before the trailing bits (the last 1 bit and the zeros after it)."""
        end = 8 * len(self.data) - 1
        while (self.data[end >> 3] >> (7 - (end & 7))) & 1 == 0:
            end -= 1
        bits = [(self.data[i >> 3] >> (7 - (i & 7))) & 1 for i in range(self.pos, end)]
        self.pos = 8 * len(self.data)
        return bits


class BitWriter:
    def __init__(self):
        self.bits = []

    def u(self, n, v):
        assert 0 <= v < 1 << n, (n, v)
        self.bits += [(v >> (n - 1 - i)) & 1 for i in range(n)]

    def ue(self, v):
        n = (v + 1).bit_length() - 1
        self.u(n, 0)
        self.u(n + 1, v + 1)

    def copy(self, reader, n):
        """n bits from reader, unchanged."""
        for _ in range(n):
            self.bits.append(reader.u(1))

    def aligned(self):
        """The bits as bytes, zeros added up to a byte boundary (AV1 byte_alignment)."""
        while len(self.bits) % 8:
            self.bits.append(0)
        return bytes(int("".join(map(str, self.bits[i:i + 8])), 2) for i in range(0, len(self.bits), 8))

    def trailing(self):
        """rbsp_trailing_bits / AV1 trailing_bits: a 1, then zeros to a byte boundary."""
        self.bits.append(1)
        return self.aligned()


def nal_to_rbsp(payload):
    """Drops the emulation-prevention bytes: 00 00 03 -> 00 00."""
    out, zeros = bytearray(), 0
    for b in payload:
        if zeros >= 2 and b == 3:
            zeros = 0
            continue
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return bytes(out)


def rbsp_to_nal(rbsp):
    """Inserts an emulation-prevention byte wherever two zeros meet a byte <= 3."""
    out, zeros = bytearray(), 0
    for b in rbsp:
        if zeros >= 2 and b <= 3:
            out.append(3)
            zeros = 0
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    return bytes(out)


def sps_fields(nal):
    """(width, height, luma bits, chroma bits) of an SPS NAL unit."""
    r = BitReader(nal_to_rbsp(nal[2:]))
    sps_head(r, BitWriter())
    width, height = r.ue(), r.ue()
    if r.u(1):
        for _ in range(4):
            r.ue()
    return width, height, r.ue() + 8, r.ue() + 8


def sps_head(r, w):
    """Copies an SPS from its first field to chroma_format_idc (and
    separate_colour_plane_flag), just before pic_width_in_luma_samples."""
    w.copy(r, 4)                      # sps_video_parameter_set_id
    sub_layers = r.u(3)
    w.u(3, sub_layers)
    w.copy(r, 1 + 96)                 # temporal_id_nesting; general profile, flags, level
    present = []
    for _ in range(sub_layers):
        present.append((r.u(1), r.u(1)))
        w.u(1, present[-1][0])
        w.u(1, present[-1][1])
    if sub_layers:
        w.copy(r, 2 * (8 - sub_layers))
    for profile, level in present:
        w.copy(r, 88 * profile + 8 * level)
    w.ue(r.ue())                      # sps_seq_parameter_set_id
    chroma = r.ue()
    w.ue(chroma)
    if chroma == 3:
        w.copy(r, 1)


def rewrite_sps(nal, width=None, height=None, luma=None, chroma=None):
    """An SPS NAL unit with new pic_width/height_in_luma_samples and bit depths (None:
    kept).  The conformance window is kept; every later field is copied bit for bit; the
    trailing bits and the emulation-prevention bytes are made again."""
    assert (nal[0] >> 1) & 63 == 33, "not an SPS"
    r, w = BitReader(nal_to_rbsp(nal[2:])), BitWriter()
    sps_head(r, w)
    old_w, old_h = r.ue(), r.ue()
    w.ue(old_w if width is None else width)
    w.ue(old_h if height is None else height)
    window = r.u(1)
    w.u(1, window)
    if window:
        for _ in range(4):
            w.ue(r.ue())
    old_luma, old_chroma = r.ue(), r.ue()
    w.ue(old_luma if luma is None else luma - 8)
    w.ue(old_chroma if chroma is None else chroma - 8)
    w.bits += r.rest()
    return nal[:2] + rbsp_to_nal(w.trailing())


def hvcc_nals(hvcc):
    """[(array NAL type, NAL unit)] of an hvcC payload (the box's contents)."""
    out, at = [], 23
    for _ in range(hvcc[22]):
        kind, count = hvcc[at] & 63, be(hvcc, at + 1, 2)
        at += 3
        for _ in range(count):
            n = be(hvcc, at, 2)
            out.append((kind, hvcc[at + 2:at + 2 + n]))
            at += 2 + n
    return out


def rewrite_hvcc(hvcc_box, luma=None, chroma=None, **size):
    """An hvcC box whose SPS units are rewritten (rewrite_sps), and whose own
    bitDepthLumaMinus8 / bitDepthChromaMinus8 fields follow the new depths."""
    hvcc = hvcc_box[8:]
    head = bytearray(hvcc[:23])
    if luma is not None:
        head[18] = 0xF8 | (luma - 8)
    if chroma is not None:
        head[19] = 0xF8 | (chroma - 8)
    out, at = bytes(head), 23
    for _ in range(hvcc[22]):
        kind, count = hvcc[at] & 63, be(hvcc, at + 1, 2)
        out += hvcc[at:at + 3]
        at += 3
        for _ in range(count):
            n = be(hvcc, at, 2)
            nal = hvcc[at + 2:at + 2 + n]
            if kind == 33:
                nal = rewrite_sps(nal, luma=luma, chroma=chroma, **size)
            out += struct.pack(">H", len(nal)) + nal
            at += 2 + n
    return box("hvcC", out)


def leb128(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def read_leb128(data, at):
    v = 0
    for i in range(8):
        v |= (data[at + i] & 0x7F) << (7 * i)
        if not data[at + i] & 0x80:
            return v, at + i + 1
    raise ValueError("leb128 too long")


def obus(data):
    """[(obu type, header bytes, payload)] of a run of OBUs that all have a size field."""
    out, at = [], 0
    while at < len(data):
        header = data[at]
        assert header & 2, "an OBU without obu_size"
        head_len = 2 if header & 4 else 1
        size, start = read_leb128(data, at + head_len)
        out.append(((header >> 3) & 15, data[at:at + head_len], data[start:start + size]))
        at = start + size
    return out


def av1_sequence_head(r, w):
    """Copies an AV1 sequence header OBU's payload up to frame_width_bits_minus_1."""
    w.copy(r, 3)                                   # seq_profile
    w.copy(r, 1)                                   # still_picture
    reduced = r.u(1)
    w.u(1, reduced)
    if reduced:
        w.copy(r, 5)                               # seq_level_idx[0]
        return
    timing = r.u(1)
    w.u(1, timing)
    decoder_model = 0
    if timing:
        w.copy(r, 64)                              # num_units_in_display_tick, time_scale
        equal = r.u(1)
        w.u(1, equal)
        if equal:                                  # num_ticks_per_picture_minus_1: uvlc()
            zeros = 0
            while True:
                bit = r.u(1)
                w.u(1, bit)
                if bit:
                    break
                zeros += 1
            w.copy(r, zeros)
        decoder_model = r.u(1)
        w.u(1, decoder_model)
        if decoder_model:
            delay_bits = r.u(5)
            w.u(5, delay_bits)
            w.copy(r, 32 + 5 + 5)
    initial = r.u(1)
    w.u(1, initial)
    points = r.u(5)
    w.u(5, points)
    for _ in range(points + 1):
        w.copy(r, 12)                              # operating_point_idc
        level = r.u(5)
        w.u(5, level)
        if level > 7:
            w.copy(r, 1)                           # seq_tier
        if decoder_model:
            present = r.u(1)
            w.u(1, present)
            if present:
                w.copy(r, 2 * (delay_bits + 1) + 1)
        if initial:
            present = r.u(1)
            w.u(1, present)
            if present:
                w.copy(r, 4)


def av1_size(payload):
    """(max_frame_width, max_frame_height) of a sequence header OBU's payload."""
    r = BitReader(payload)
    av1_sequence_head(r, BitWriter())
    wb, hb = r.u(4) + 1, r.u(4) + 1
    return r.u(wb) + 1, r.u(hb) + 1


def rewrite_av1_sequence_header(payload, width, height):
    """The payload with max_frame_width/height_minus_1 (and their bit counts, when they
    need more bits) set; every later field copied, trailing bits made again."""
    r, w = BitReader(payload), BitWriter()
    av1_sequence_head(r, w)
    wb, hb = r.u(4) + 1, r.u(4) + 1
    r.u(wb)
    r.u(hb)
    wb, hb = max(wb, (width - 1).bit_length()), max(hb, (height - 1).bit_length())
    w.u(4, wb - 1)
    w.u(4, hb - 1)
    w.u(wb, width - 1)
    w.u(hb, height - 1)
    w.bits += r.rest()
    return w.trailing()


def rewrite_av1_obus(data, width, height):
    """A run of OBUs with each sequence header (type 1) asking for width x height."""
    out = b""
    for kind, head, payload in obus(data):
        if kind == 1:
            payload = rewrite_av1_sequence_header(payload, width, height)
        out += head + leb128(len(payload)) + payload
    return out


def av1_sequence(payload):
    """The fields of a reduced still-picture sequence header (AV1 5.5) that a key
    frame's header depends on."""
    r = BitReader(payload)
    av1_sequence_head(r, BitWriter())
    assert payload[0] & 0x08, "a reduced_still_picture_header only"
    profile = payload[0] >> 5
    wb, hb = r.u(4) + 1, r.u(4) + 1
    f = {"width": r.u(wb) + 1, "height": r.u(hb) + 1}
    f["sb128"], _, _ = r.u(1), r.u(1), r.u(1)  # use_128x128_superblock, filter intra, edge filter
    f["superres"], f["cdef"], f["restoration"] = r.u(1), r.u(1), r.u(1)
    high = r.u(1)                                               # color_config (5.5.2)
    if profile == 2 and high:
        r.u(1)
    mono = 0 if profile == 1 else r.u(1)
    cp = tc = mc = 2
    if r.u(1):
        cp, tc, mc = r.u(8), r.u(8), r.u(8)
    f["planes"], f["subsampled"], f["separate_uv_delta_q"] = (1 if mono else 3), True, 0
    if not mono:
        if (cp, tc, mc) == (1, 13, 0):
            f["subsampled"] = False
        else:
            r.u(1)                                              # color_range
            assert profile == 0, "4:2:0 profile 0 only"
            r.u(2)                                              # chroma_sample_position
        f["separate_uv_delta_q"] = r.u(1)
    f["film_grain"] = r.u(1)
    assert not f["film_grain"], "no film grain"
    return f


def tile_log2(blk, target):
    k = 0
    while blk << k < target:
        k += 1
    return k


def uniform_tile_info(width, height, sb128):
    """tile_info() bits (AV1 5.9.15) for one tile: uniform spacing, no increments."""
    sb_log2 = 7 if sb128 else 6
    mi_cols, mi_rows = 2 * ((width + 7) >> 3), 2 * ((height + 7) >> 3)
    sb_cols = (mi_cols + (31 if sb128 else 15)) >> (5 if sb128 else 4)
    sb_rows = (mi_rows + (31 if sb128 else 15)) >> (5 if sb128 else 4)
    min_cols = tile_log2(4096 >> sb_log2, sb_cols)
    max_cols = tile_log2(1, min(sb_cols, 64))
    max_rows = tile_log2(1, min(sb_rows, 64))
    min_tiles = max(min_cols, tile_log2((4096 * 2304) >> (2 * sb_log2), sb_rows * sb_cols))
    min_rows = max(min_tiles - min_cols, 0)
    assert min_cols == 0 and min_rows == 0, "%dx%d needs more than one tile" % (width, height)
    return [1] + [0] * (max_cols > 0) + [0] * (max_rows > 0)


def still_frame_header_bits(seq, frame):
    """(start, end, header end) bit positions of tile_info() and of the uncompressed
    header in the payload of an OBU_FRAME under a reduced still-picture sequence header
    (AV1 5.9: a shown key frame), and the tile_info's bits.  Asserts one tile."""
    r = BitReader(frame)
    r.u(1)                                                      # disable_cdf_update
    screen = r.u(1)                                             # allow_screen_content_tools
    if screen:
        r.u(1)                                                  # force_integer_mv
    if seq["superres"]:
        assert r.u(1) == 0, "no superres"
    if r.u(1):                                                  # render_and_frame_size_different
        r.u(32)
    intrabc = r.u(1) if screen else 0
    start = r.pos
    assert r.u(1) == 1, "uniform tile spacing only"
    assert uniform_tile_info(seq["width"], seq["height"], seq["sb128"]) == [1], "one tile only"
    end = r.pos
    base_q = r.u(8)                                             # quantization_params
    deltas = []

    def delta_q():
        deltas.append(r.u(7) if r.u(1) else 0)
    delta_q()
    if seq["planes"] > 1:
        diff_uv = r.u(1) if seq["separate_uv_delta_q"] else 0
        delta_q()
        delta_q()
        if diff_uv:
            delta_q()
            delta_q()
    if r.u(1):                                                  # using_qmatrix
        r.u(8 if not seq["separate_uv_delta_q"] else 12)
    assert r.u(1) == 0, "no segmentation"
    delta_q_present = r.u(1) if base_q > 0 else 0               # delta_q_params
    if delta_q_present:
        r.u(2)
        if not intrabc and r.u(1):                              # delta_lf_params
            r.u(3)
    lossless = base_q == 0 and not any(deltas)
    if not (lossless or intrabc):                               # loop_filter_params
        levels = r.u(6), r.u(6)
        if seq["planes"] > 1 and any(levels):
            r.u(12)
        r.u(3)
        if r.u(1) and r.u(1):                                   # delta enabled, update
            for _ in range(10):
                if r.u(1):
                    r.u(7)
    if not (lossless or intrabc) and seq["cdef"]:               # cdef_params
        r.u(2)
        for _ in range(1 << r.u(2)):
            r.u(6 if seq["planes"] == 1 else 12)
    if not (lossless or intrabc) and seq["restoration"]:        # lr_params
        uses = [r.u(2) for _ in range(seq["planes"])]
        if any(uses):
            if r.u(1) and not seq["sb128"]:
                r.u(1)
            if seq["subsampled"] and any(uses[1:]):
                r.u(1)
    if not lossless:
        r.u(1)                                                  # tx_mode_select
    r.u(1)                                                      # reduced_tx_set
    return start, end, r.pos


def rewrite_av1_still(data, width, height, pad=0):
    """The item data (OBUs) of a still AV1 picture, its sequence header asking for
    width x height and its frame header's tile_info() made again for that size (larger
    frames read more tile bits), so the frame still parses.  Its one tile's data is the
    old picture's then `pad` zero bytes, which dav1d decodes on into the rest of the
    frame (libaom refuses it: its trailing-bits check after the symbol decoder)."""
    out, old, new = b"", None, None
    for kind, head, payload in obus(data):
        if kind == 1:
            old = av1_sequence(payload)
            payload = rewrite_av1_sequence_header(payload, width, height)
            new = av1_sequence(payload)
        elif kind == 6:
            start, end, header_end = still_frame_header_bits(old, payload)
            r, w = BitReader(payload), BitWriter()
            w.copy(r, start)
            w.bits += uniform_tile_info(width, height, new["sb128"])
            r.u(end - start)
            w.copy(r, header_end - end)
            payload = w.aligned() + payload[(header_end + 7) // 8:] + bytes(pad)  # then the tile
        out += head + leb128(len(payload)) + payload
    return out



# --------------------------------------------------------------------------
# The fixtures
# --------------------------------------------------------------------------

HEIC_BRANDS = ["heic", "mif1", "miaf"]
AVIF_BRANDS = ["avif", "mif1", "miaf"]


def photo_heic():
    """photo.heic's items: 1 = its 64x64 HEVC tile (hidden), 2 = the 1x1 grid showing
    64x48 (primary), and its references (dimg 2 -> 1)."""
    primary, items, refs = read_heif(source("photo.heic"))
    assert primary == 2 and items[1].kind == "hvc1" and items[2].kind == "grid" and refs == [("dimg", 2, [1])]
    return items


def heic_grid_self():
    """photo.heic whose grid (item 2, primary, 1x1, 64x48) lists itself as its one
    tile: dimg 2 -> [2].  The HEVC tile (item 1) is referenced by nobody.  (A 1x2 grid
    2 -> [1, 2] makes libheif 1.15 either abort or hang, depending on its threads; this
    one aborts every time.)"""
    items = photo_heic()
    return write_heif(HEIC_BRANDS, [items[1], items[2]], [("dimg", 2, [2])], 2)


def heic_dimg_cycle():
    """photo.heic with a second grid: grid 2 (primary, 1x1, 64x48) -> grid 3 (hidden,
    1x1, 64x48) -> grid 2, a cycle of two.  The tile (item 1) is referenced by nobody."""
    items = photo_heic()
    other = Item(3, "grid", items[2].data, items[2].props, hidden=True, idat=True)
    return write_heif(HEIC_BRANDS, [items[1], items[2], other], [("dimg", 2, [3]), ("dimg", 3, [2])], 2)


def heic_grid_repeated(cols=256, rows=255):
    """A grid of `rows` x `cols` cells that are all one tile: dimg 2 -> [1] * rows * cols
    (65,280 references).  The tile is photo.heic's 64x64 HEVC tile (item 1, hidden) with
    an ispe of 1x1, so libheif 1.15 places the tiles 1 pixel apart and the canvas (the
    grid's output size and ispe) is 256x255; every tile still decodes to 64x64."""
    items = photo_heic()
    tile = Item(1, "hvc1", items[1].data, [(prop_of(items[1], "hvcC"), True), ispe(1, 1)], hidden=True)
    grid = Item(2, "grid", grid_payload(rows, cols, cols, rows), [ispe(cols, rows), PIXI], idat=True)
    return write_heif(HEIC_BRANDS, [tile, grid], [("dimg", 2, [1] * (rows * cols))], 2)


def large_grid(first_id, cols=4, rows=3):
    """A (64 * cols) x (64 * rows) grid item `first_id` and its tiles (hidden, items
    first_id + 1 ...): grid.heic's four 64x64 tiles laid out again and again (the
    top-left, top-right, bottom-left and bottom-right quarter of its 128x128 picture),
    each cell its own item with its own copy of the coded bytes (no tile is referenced
    twice, no extents overlap)."""
    primary, source_items, refs = read_heif(source("grid.heic"))
    quarters = [source_items[i] for i in refs[0][2]]
    tiles = []
    for r in range(rows):
        for c in range(cols):
            q = quarters[(r % 2) * 2 + c % 2]
            tiles.append(Item(first_id + 1 + len(tiles), "hvc1", q.data, q.props, hidden=True))
    grid = Item(first_id, "grid", grid_payload(rows, cols, 64 * cols, 64 * rows),
                [ispe(64 * cols, 64 * rows), PIXI], idat=True)
    return grid, tiles, [("dimg", first_id, [t.id for t in tiles])]


def heic_thumb_larger():
    """VALID.  photo.heic (primary: grid 2, 64x48, of tile 1) with a thumbnail larger
    than itself: grid 20, 256x192, of tiles 21-32 (large_grid), 'thmb' 20 -> 2."""
    items = photo_heic()
    grid, tiles, refs = large_grid(20)
    return write_heif(HEIC_BRANDS, [items[1], items[2], grid] + tiles,
                      [("dimg", 2, [1])] + refs + [("thmb", 20, [2])], 2)


def heic_alt_larger():
    """VALID.  photo.heic (primary: grid 2, 64x48) and a second, non-primary, visible
    image larger than it: grid 20, 256x192, of tiles 21-32 (large_grid), with no
    reference to the primary."""
    items = photo_heic()
    grid, tiles, refs = large_grid(20)
    return write_heif(HEIC_BRANDS, [items[1], items[2], grid] + tiles, [("dimg", 2, [1])] + refs, 2)


# A bare TIFF (big-endian) with one IFD entry, Artist = "catctl tests": the Exif payload.
EXIF_TIFF = (b"MM\0*" + struct.pack(">I", 8) + struct.pack(">H", 1) +
             struct.pack(">HHII", 0x013B, 2, 13, 26) + struct.pack(">I", 0) + b"catctl tests\0")
MAX_EXTENTS = 32  # libheif 1.15's MAX_ILOC_EXTENTS_PER_ITEM


def heic_exif_huge(item_size=17 << 19):
    """photo.heic with an Exif item (3, cdsc 3 -> 2) of 32 extents that all start at its
    payload (a 4-byte TIFF header offset of 0, then a 39-byte big-endian TIFF whose one
    entry is Artist "catctl tests") and run to the end of the file; the mdat is padded
    with zeros so that the item is `item_size` bytes (8.5 MiB: over the 8 MiB metadata
    budget).  libheif 1.15 allows at most 32 extents an item, so an item over 8 MiB needs
    a file over 256 KiB; the zeros compress."""
    items = photo_heic()
    span = item_size // MAX_EXTENTS
    exif = Item(3, "Exif", struct.pack(">I", 0) + EXIF_TIFF, hidden=True, extent_count=MAX_EXTENTS,
                extents=lambda pos, size: [(pos, size - pos)] * MAX_EXTENTS)
    # The Exif payload ends the items' data: each extent is the payload and the zeros.
    return write_heif(HEIC_BRANDS, [items[1], items[2], exif], [("dimg", 2, [1]), ("cdsc", 3, [2])], 2,
                      pad=bytes(span - len(exif.data)))


def heic_iloc_overlap(count=300):
    """photo.heic with `count` more items (3 ...), each of type 'mime' (content type
    application/octet-stream), hidden, with no data of its own, a 'cdsc' reference to
    the primary, and 32 iloc extents that are each the whole file: 9,600 overlapping
    extents; every item is 32 times the file (3.2 MB), and libheif 1.15 reads every
    item while parsing and keeps the ones linked by 'cdsc' (954 MB from a 99 KB file,
    on each of catctl's two reads).  libheif's own limits (32 extents an item, 20,000
    items, 512 MB an item) all hold."""
    items = photo_heic()
    extra = [Item(3 + i, "mime", b"", hidden=True, content_type="application/octet-stream",
                  extent_count=MAX_EXTENTS, extents=lambda pos, size: [(0, size)] * MAX_EXTENTS)
             for i in range(count)]
    refs = [("dimg", 2, [1])] + [("cdsc", it.id, [2]) for it in extra]
    return write_heif(HEIC_BRANDS, [items[1], items[2]] + extra, refs, 2)


def heic_sps_larger(side=16384):
    """photo.heic (ispe: grid 64x48, tile 64x64) whose tile's hvcC SPS says
    pic_width/height_in_luma_samples = 16384x16384; the coded slice is the 64x64
    picture's.  libde265 allocates and decodes the whole picture (10 s, 1.2 GB).  At
    32768x32768 (libheif's MAX_IMAGE_WIDTH) it is 60 s and 4.7 GB uncapped, but under a
    2 GiB address-space cap libde265 fails at once ("out of memory", exit 65), which
    would let a capped test pass on the unfixed code: 16384 fits under the cap."""
    items = photo_heic()
    tile = items[1]
    tile.props = [(rewrite_hvcc(p, width=side, height=side), e) if p[4:8] == b"hvcC" else (p, e)
                  for p, e in tile.props]
    assert [sps_fields(n)[:2] for k, n in hvcc_nals(prop_of(tile, "hvcC")[8:]) if k == 33] == [(side, side)]
    return write_heif(HEIC_BRANDS, [tile, items[2]], [("dimg", 2, [1])], 2)


def avif_av1_item(width, height):
    """photo.avif's av01 item (ispe 64x48; its av1C has no configOBUs), its AV1 sequence
    header and frame header rewritten for width x height (rewrite_av1_still, 8 KiB of
    zeros after the tile data), and photo.avif's references."""
    primary, items, refs = read_heif(source("photo.avif"))
    item = items[primary]
    assert len(prop_of(item, "av1C")) == 12, "configOBUs to rewrite too"
    item.data = rewrite_av1_still(item.data, width, height, pad=8192)
    assert [av1_size(pl) for k, _, pl in obus(item.data) if k == 1] == [(width, height)]
    return primary, item, refs


def avif_av1_larger(width=4096, height=2304):
    """photo.avif (one av01 item, primary, ispe 64x48) whose AV1 sequence header says
    max_frame_width/height = 4096x2304 (frame_width/height_bits 12): the frame header does
    not override the size, so the frame is 4096x2304 (9.4 MP, as large as one tile may
    be), one tile made of the 64x48 picture's tile data and 8 KiB of zeros.  dav1d
    decodes it (avifdec; heif-convert and vips through libheif's dav1d plugin); libaom
    allocates the frame, then refuses the data as a corrupt frame."""
    primary, item, refs = avif_av1_item(width, height)
    return write_heif(AVIF_BRANDS, [item], refs, primary)


def avif_av1_larger_grid(width=4096, height=2304):
    """The same 4096x2304 AV1 picture (item 1, hidden, ispe 64x48) as the one tile of a
    1x1 grid (item 2, primary, 64x48).  libheif 1.15 decodes grid tiles with its default
    AV1 decoder (dav1d) whatever the decoding options ask for, so the whole frame is
    decoded, then cropped to the 64x48 canvas."""
    _, tile, _ = avif_av1_item(width, height)
    tile.id, tile.hidden = 1, True
    grid = Item(2, "grid", grid_payload(1, 1, 64, 48), [ispe(64, 48), PIXI], idat=True)
    return write_heif(AVIF_BRANDS, [tile, grid], [("dimg", 2, [1])], 2)


def set_track_size(trak, width, height):
    """The track's tkhd width and height (16.16) and its visual sample entry's."""
    tkhd = trak.find("tkhd")
    tkhd.payload = tkhd.payload[:-8] + struct.pack(">II", width << 16, height << 16)
    entry = trak.find("mdia", "minf", "stbl", "stsd").children[0]
    entry.head = entry.head[:24] + struct.pack(">HH", width, height) + entry.head[28:]


def heif_seq_mixed_depth(width=4096, height=24):
    """seq.heic (msf1, one 'pict' HEVC track of three 32x24 frames; ftyp, free, mdat,
    moov) whose SPS says bit_depth_luma = 12 and bit_depth_chroma = 8, in the hvcC (its
    SPS unit, and its bitDepthLumaMinus8 / bitDepthChromaMinus8 fields) and in any SPS
    in the samples (seq.heic has none: one IDR and two trailing slices, left as they
    are).  The picture is also widened to 4096x24, in the SPS, the sample entry and the
    tkhd alike (the slices fill its first 32x24): reading 8-bit chroma as 16-bit runs
    half a chroma row past libde265's plane, 16 bytes at 32x24 (harmless without
    ASan), 2,048 bytes at 4096x24, past the mapped heap."""
    data = source("seq.heic")
    top = top_level(data)
    assert [n.kind for n in top] == ["ftyp", "free", "mdat", "moov"]
    trak, = top[3].all("trak")
    hvcc = trak.find("mdia", "minf", "stbl", "stsd", "hvc1", "hvcC")
    hvcc.payload = rewrite_hvcc(hvcc.bytes(), luma=12, chroma=8, width=width, height=height)[8:]
    assert [sps_fields(n) for k, n in hvcc_nals(hvcc.payload) if k == 33] == [(width, height, 12, 8)]
    set_track_size(trak, width, height)
    samples = []
    for _, _, sample in track_samples(data, trak):
        out, at = b"", 0
        while at < len(sample):
            n = be(sample, at, 4)
            nal = sample[at + 4:at + 4 + n]
            if (nal[0] >> 1) & 63 == 33:
                nal = rewrite_sps(nal, luma=12, chroma=8, width=width, height=height)
            out += struct.pack(">I", len(nal)) + nal
            at += 4 + n
        samples.append(out)
    start = len(top[0].bytes()) + len(top[1].bytes()) + 8
    top[2].payload = b"".join(samples)
    set_sample_table(trak, [len(s) for s in samples], [start], len(samples))
    return b"".join(n.bytes() for n in top)


def seq_avif():
    """seq.avif's boxes (ftyp, meta, moov, mdat: an 'avis' file with a colour track and
    an alpha track ('auxv', tref 'auxl'), three 32x24 frames each, and a meta whose
    two items are the first colour and alpha frames), moved to ftyp, meta, mdat, moov so
    that the moov can change size: every stco and iloc offset is moved with the mdat."""
    data = source("seq.avif")
    top = top_level(data)
    assert [n.kind for n in top] == ["ftyp", "meta", "moov", "mdat"]
    ftyp, meta, moov, mdat = top
    old = len(ftyp.bytes()) + len(meta.bytes()) + len(moov.bytes())
    delta = len(ftyp.bytes()) + len(meta.bytes()) - old
    for trak in moov.all("trak"):
        shift_chunk_offsets(trak, delta)
    meta.payload = shift_iloc(meta.payload, delta)
    return ftyp, meta, mdat, moov


def iloc_extent_fields(meta_payload):
    """Where each construction-method-0 extent's offset and length lie in a meta box's
    payload (after its version and flags): [(offset at, length at)], 4-byte fields."""
    p = meta_payload
    s, _ = child(p, "iloc", 4)
    version, at = p[s], s + 4
    off_size, len_size, base_size = p[at] >> 4, p[at] & 15, p[at + 1] >> 4
    idx_size = p[at + 1] & 15 if version in (1, 2) else 0
    assert base_size == 0 and off_size == len_size == 4
    id_size = 4 if version == 2 else 2
    count = be(p, at + 2, id_size)
    at += 2 + id_size
    fields = []
    for _ in range(count):
        at += id_size
        method = be(p, at, 2) & 15 if version in (1, 2) else 0
        at += (2 if version in (1, 2) else 0) + 2
        n = be(p, at, 2)
        at += 2
        for _ in range(n):
            at += idx_size
            if method == 0:
                fields.append((at, at + 4))
            at += 8
    return fields


def shift_iloc(meta_payload, delta):
    """The meta payload with every file offset in its iloc moved by delta."""
    p = bytearray(meta_payload)
    for at, _ in iloc_extent_fields(p):
        p[at:at + 4] = struct.pack(">I", be(p, at, 4) + delta)
    return bytes(p)


def set_iloc_length(meta_payload, offset, length):
    """The meta payload with the length of the iloc extent that starts at `offset` set."""
    p = bytearray(meta_payload)
    at = next(ln for off, ln in iloc_extent_fields(p) if be(p, off, 4) == offset)
    p[at:at + 4] = struct.pack(">I", length)
    return bytes(p)


def avif_seq_many_samples(chunks=1600, per_chunk=6250):
    """seq.avif (see seq_avif) whose colour track has chunks x per_chunk = 10,000,000
    samples: stsz sample_size 1 (count 10,000,000), stsc one run of `per_chunk` samples
    a chunk, stco `chunks` offsets that are all the first colour frame's.  Every chunk
    is the same 6,250 bytes (the mdat is padded with zeros so they lie inside it); stts
    gives the 10,000,000 samples 1 tick each.  The alpha track and the items are kept."""
    ftyp, meta, mdat, moov = seq_avif()
    colour = moov.all("trak")[0]
    offset = struct.unpack(">I", colour.find("mdia", "minf", "stbl", "stco").payload[8:12])[0]
    mdat_start = len(ftyp.bytes()) + len(meta.bytes()) + 8
    need = offset + per_chunk - (mdat_start + len(mdat.payload))
    mdat.payload += bytes(max(0, need))
    set_sample_table(colour, [], [offset] * chunks, per_chunk, fixed_size=1)
    colour.find("mdia", "minf", "stbl", "stts").payload = struct.pack(">IIII", 0, 1, chunks * per_chunk, 1)
    return b"".join(n.bytes() for n in (ftyp, meta, mdat, moov))


def avif_seq_frame_larger(width=8192, height=8192):
    """seq.avif (see seq_avif) whose tkhd and av01 sample entry still say 32x24, but
    whose AV1 sequence header (in the first colour sample; the av1C holds no
    configOBUs) says max_frame_width/height = 8192x8192 (67 MP: under the default
    100 MP limit, but 87,000 times the 32x24 x 3 frames declared).  The frame headers
    are left as they are (their tile bits are the 32x24 frame's, so no decoder gets a
    whole frame out of it); the colour item in the meta (the same first sample) follows
    the sample's new length; the alpha track is kept as it was."""
    ftyp, meta, mdat, moov = seq_avif()
    colour = moov.all("trak")[0]
    mdat_start = len(ftyp.bytes()) + len(meta.bytes()) + 8
    file = bytes(mdat_start - 8) + box("mdat", mdat.payload)  # offsets as in the final file
    samples = track_samples(file, colour)
    assert [o for o, _, _ in samples] == [samples[0][0] + sum(s for _, s, _ in samples[:i]) for i in range(3)]
    first, size, sample = samples[0]
    new = rewrite_av1_obus(sample, width, height)
    assert [av1_size(pl) for k, _, pl in obus(new) if k == 1] == [(width, height)]
    at = first - mdat_start
    mdat.payload = mdat.payload[:at] + new + mdat.payload[at + size:]
    set_sample_table(colour, [len(new)] + [s for _, s, _ in samples[1:]], [first], 3)
    # the colour item of the meta is the first colour sample: its extent grows with it
    meta.payload = set_iloc_length(meta.payload, first, len(new))
    return b"".join(n.bytes() for n in (ftyp, meta, mdat, moov))



FIXTURES = {
    "heif-seq-mixed-depth.heic": heif_seq_mixed_depth,
    "avif-seq-many-samples.avif": avif_seq_many_samples,
    "heic-sps-larger.heic": heic_sps_larger,
    "avif-av1-larger.avif": avif_av1_larger,
    "avif-av1-larger-grid.avif": avif_av1_larger_grid,
    "avif-seq-frame-larger.avif": avif_seq_frame_larger,
    "heic-grid-self.heic": heic_grid_self,
    "heic-dimg-cycle.heic": heic_dimg_cycle,
    "heic-grid-repeated.heic": heic_grid_repeated,
    "heic-iloc-overlap.heic": heic_iloc_overlap,
    "heic-exif-huge.heic": heic_exif_huge,
    "heic-thumb-larger.heic": heic_thumb_larger,
    "heic-alt-larger.heic": heic_alt_larger,
}


def main():
    write_fixtures(HERE, FIXTURES)


if __name__ == "__main__":
    main()
