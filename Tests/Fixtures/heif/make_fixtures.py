#!/usr/bin/env python3
"""Writes Tests/Fixtures/heif/: small HEIC/AVIF files for the CHEIFShim tests.

Sources: Tests/Fixtures/photos/chelsea.png (CC0) downscaled with LANCZOS.
Tools (Debian 12): heif-enc (libheif-examples 1.15.1: x265 3.5 for HEIC, aom 3.6 for AVIF),
avifenc (libavif-bin 0.11.1, aom), Pillow. The versions found are printed and written to
VERSIONS.txt. Re-runnable: every file is rewritten (lossy files may differ by encoder build).

  photo.png              64x48 RGB source (the pictures below are made from it)
  photo.heic             heif-enc -q 50 (HEVC 4:2:0, no colr box; x265 codes at least 64x64, so
                         libheif wraps the 64x64 tile in a 1x1 grid cropped to 64x48)
  photo.avif             heif-enc -A -q 50 (aom)
  photo-avifenc.avif     avifenc defaults (4:4:4, q from --min/--max 20/30)
  photo-10bit.heic       heif-enc -b 10 from a 16-bit PNG
  photo-10bit.avif       avifenc -d 10;  photo-12bit.avif  avifenc -d 12
  alpha.png              64x48 RGBA source: the photo with a horizontal alpha ramp 0..255
  alpha.heic, alpha.avif heif-enc from alpha.png (alpha as an auxiliary image)
  alpha-prem.heic        heif-enc --premultiplied-alpha from alpha.png premultiplied ('prem')
  lossless.png           32x24 RGB source
  lossless.avif          avifenc -l (4:4:4, identity matrix, lossless): decodes to lossless.png
                         exactly
  lossless.heic          heif-enc -L -p chroma=444 --matrix_coefficients=0: NOT exact (heif-enc
                         1.15 gives differences of 1 in ~30% of samples; CHEIFShim's own lossless
                         encoder is exact), x265 lossless 4:4:4
  orient.avif            avifenc --irot 1 --imir 1 from photo.png: shows 48x64; the expected
                         upright pixels are orient.expected.png (photo.png rotated 90 degrees
                         anti-clockwise, then mirrored left-right)
  icc.heic, icc.avif     with Pillow's sRGB ICC profile, srgb.icc (ICC passthrough)
  p3-nclx.avif           avifenc --cicp 12/13/6: no ICC, nclx Display P3 (an ICC is synthesised)
  bt709-nclx.avif        avifenc --cicp 1/1/6 (BT.709 transfer: an ICC is synthesised; heif-enc
                         writes no nclx box into HEIC files, for macOS)
  pq-nclx.avif           avifenc -d 10 --cicp 9/16/9 (PQ: no ICC is synthesised)
  exif-xmp.avif          avifenc --exif (bare TIFF, Orientation 1, Artist) --xmp
  exif.tiff, meta.xmp    the EXIF (bare TIFF) and XMP payloads used above
  seq.avif               avifenc AVIF sequence ('avis'), 3 frames 32x24, timescale 1000,
                         durations 100/200/300 ms; seq.frame{0,1,2}.png are the sources
  grid.heic, grid.avif   a 2x2 grid of 64x64 tiles (each tile coded alone by heif-enc)
                         showing a 128x96 picture (the grid's output size crops the bottom
                         tiles, as iPhones do); grid.png is the source picture (128x128
                         before the crop)
  huge-ispe.heic         photo.heic with its 'ispe' boxes patched to 60000x60000
  grid-canvas.heic       grid.heic with the grid payload's output size patched to 60000x60000
                         (its 'ispe' still says 128x96)
  msf1-still.heic        photo.heic with its major brand patched to 'msf1' (a sequence brand
                         on a file with only a still image)

Run: python3 Tests/Fixtures/heif/make_fixtures.py
"""
import io
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "photos", "chelsea.png")
XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/avif">'
       b'<dc:creator><rdf:Seq><rdf:li>catctl tests</rdf:li></rdf:Seq></dc:creator>'
       b'</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')


def run(*args):
    subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def out(name):
    return os.path.join(HERE, name)


def versions():
    def first_line(cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True)
            text = (r.stdout + r.stderr).strip().splitlines()
            return next((l.strip() for l in text if l.strip()), "?")
        except OSError:
            return "missing"
    import PIL
    lines = [
        "heif-enc: " + first_line(["heif-enc", "--help"]),
        "avifenc: " + first_line(["avifenc", "--version"]),
        "Pillow: " + PIL.__version__,
    ]
    for pkg in ("libheif1", "libavif15", "libx265-199", "libaom3"):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
        lines.append("%s: %s" % (pkg, r.stdout or "?"))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- minimal ISOBMFF reading/writing

def boxes(data, start=0, end=None):
    """Yields (type, payload_start, box_end) for the boxes in data[start:end]."""
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
        yield kind.decode("latin-1"), pos + head, pos + size
        pos += size


def find(data, kind, start=0, end=None):
    for k, s, e in boxes(data, start, end):
        if k == kind:
            return s, e
    raise KeyError(kind)


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def fullbox(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def single_image_parts(data):
    """From a one-image HEIF written by heif-enc: (item type, codec config box bytes,
    coded data) of its primary item."""
    ms, me = find(data, "meta")
    ms += 4  # meta is a full box
    pitm = find(data, "pitm", ms, me)
    primary = struct.unpack(">H", data[pitm[0] + 4:pitm[0] + 6])[0]
    # iinf -> item type of the primary
    iinf_s, iinf_e = find(data, "iinf", ms, me)
    version = data[iinf_s]
    pos = iinf_s + 4 + (2 if version == 0 else 4)
    item_type = None
    for k, s, e in boxes(data, pos, iinf_e):
        if k == "infe":
            v = data[s]
            if v >= 2:
                iid = struct.unpack(">H", data[s + 4:s + 6])[0]
                if iid == primary:
                    item_type = data[s + 8:s + 12].decode()
    assert item_type in ("hvc1", "av01"), item_type
    # iprp/ipco: the codec configuration box
    ps, pe = find(data, "iprp", ms, me)
    cs, ce = find(data, "ipco", ps, pe)
    config = None
    for k, s, e in boxes(data, cs, ce):
        if k in ("hvcC", "av1C"):
            config = data[s - 8:e]
    # iloc -> extent of the primary (construction method 0, offset into the file)
    ls, le = find(data, "iloc", ms, me)
    v = data[ls]
    p = ls + 4
    sizes = struct.unpack(">H", data[p:p + 2])[0]
    off_size, len_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
    idx_size = sizes & 15 if v in (1, 2) else 0
    p += 2
    count = struct.unpack(">H", data[p:p + 2])[0]
    p += 2

    def rd(n):
        nonlocal p
        val = int.from_bytes(data[p:p + n], "big") if n else 0
        p += n
        return val
    coded = None
    for _ in range(count):
        iid = rd(2)
        if v in (1, 2):
            rd(2)
        rd(2)  # data reference index
        base = rd(base_size)
        extents = rd(2)
        chunks = []
        for _ in range(extents):
            if idx_size:
                rd(idx_size)
            off = rd(off_size)
            ln = rd(len_size)
            chunks.append(data[base + off:base + off + ln])
        if iid == primary:
            coded = b"".join(chunks)
    assert coded is not None
    return item_type, config, coded


def grid_file(tile_files, cols, rows, out_w, out_h, tile_w, tile_h, avif):
    """Assembles a HEIF whose primary item is a 'grid' of the given one-image files."""
    parts = [single_image_parts(open(f, "rb").read()) for f in tile_files]
    item_type = parts[0][0]
    n = len(parts)
    grid_id = n + 1
    brand = b"avif" if avif else b"heic"
    ftyp = box("ftyp", brand + struct.pack(">I", 0) + b"mif1" + brand + (b"miaf" if avif else b""))
    hdlr = fullbox("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + b"\0" * 12 + b"\0")
    pitm = fullbox("pitm", 0, 0, struct.pack(">H", grid_id))
    infes = b"".join(fullbox("infe", 2, 1, struct.pack(">HH", i + 1, 0) + item_type.encode() + b"\0")
                     for i in range(n))  # flags 1: hidden tiles
    infes += fullbox("infe", 2, 0, struct.pack(">HH", grid_id, 0) + b"grid" + b"\0")
    iinf = fullbox("iinf", 0, 0, struct.pack(">H", n + 1) + infes)
    iref = fullbox("iref", 0, 0, box("dimg", struct.pack(">HH", grid_id, n) +
                                       b"".join(struct.pack(">H", i + 1) for i in range(n))))
    # ImageGrid payload: version 0, flags 0 (16-bit sizes), rows-1, cols-1, output w, h
    grid_payload = struct.pack(">BBBBHH", 0, 0, rows - 1, cols - 1, out_w, out_h)
    # properties: per tile its config box, one shared tile ispe, the grid's ispe, pixi
    props = [p[1] for p in parts]
    props.append(fullbox("ispe", 0, 0, struct.pack(">II", tile_w, tile_h)))   # index n+1
    props.append(fullbox("ispe", 0, 0, struct.pack(">II", out_w, out_h)))     # index n+2
    props.append(fullbox("pixi", 0, 0, bytes([3, 8, 8, 8])))                   # index n+3
    ipco = box("ipco", b"".join(props))
    entries = b""
    for i in range(n):
        entries += struct.pack(">HB", i + 1, 3) + bytes([0x80 | (i + 1), n + 1, n + 3])
    entries += struct.pack(">HB", grid_id, 2) + bytes([n + 2, n + 3])
    ipma = fullbox("ipma", 0, 0, struct.pack(">I", n + 1) + entries)
    iprp = box("iprp", ipco + ipma)
    # iloc version 1: offset/length 4 bytes, base 0, construction method 0 (file offsets)
    # for the tiles, 1 (idat) for the grid payload. Offsets are filled after layout.
    def build(mdat_start):
        body = struct.pack(">BBH", 0x44, 0x00, n + 1)
        pos = mdat_start + 8
        for i, p in enumerate(parts):
            body += struct.pack(">HHHHII", i + 1, 0, 0, 1, pos, len(p[2]))
            pos += len(p[2])
        body += struct.pack(">HHHHII", grid_id, 1, 0, 1, 0, len(grid_payload))
        iloc = fullbox("iloc", 1, 0, body)
        idat = box("idat", grid_payload)
        return fullbox("meta", 0, 0, hdlr + pitm + iloc + iinf + iref + iprp + idat)
    meta = build(0)
    mdat_start = len(ftyp) + len(meta)
    meta = build(mdat_start)
    assert len(ftyp) + len(meta) == mdat_start
    mdat = box("mdat", b"".join(p[2] for p in parts))
    return ftyp + meta + mdat


def patch_ispe(data, w, h):
    """Every 'ispe' (heif-enc's 64x48 HEIC is a 1x1 grid of a 64x64 tile: two of them)."""
    i = data.find(b"ispe")
    while i >= 0:
        data = data[:i + 8] + struct.pack(">II", w, h) + data[i + 16:]
        i = data.find(b"ispe", i + 4)
    return data


def main():
    tmp = tempfile.mkdtemp()
    src = Image.open(PHOTO).convert("RGB")
    src.info = {}  # chelsea.png carries an ICC profile: keep it out of the derived files
    photo = src.resize((64, 48), Image.LANCZOS)
    photo.save(out("photo.png"))
    run("heif-enc", "-q", "50", "-o", out("photo.heic"), out("photo.png"))
    run("heif-enc", "-A", "-q", "50", "-o", out("photo.avif"), out("photo.png"))
    run("avifenc", "-s", "6", out("photo.png"), out("photo-avifenc.avif"))

    # 16-bit source for the 10/12-bit files
    p16 = os.path.join(tmp, "photo16.png")
    a16 = (np.asarray(photo).astype(np.uint16) * 257)
    # Pillow writes no 16-bit RGB PNG: write_png16 makes one (photo.png's values * 257)
    write_png16(p16, a16)
    run("heif-enc", "-b", "10", "-q", "60", "-o", out("photo-10bit.heic"), p16)
    run("avifenc", "-s", "6", "-d", "10", p16, out("photo-10bit.avif"))
    run("avifenc", "-s", "6", "-d", "12", p16, out("photo-12bit.avif"))

    # alpha
    rgba = photo.convert("RGBA")
    ramp = Image.fromarray(np.tile(np.linspace(0, 255, 64).round().astype(np.uint8), (48, 1)), "L")
    rgba.putalpha(ramp)
    rgba.save(out("alpha.png"))
    run("heif-enc", "-q", "60", "-o", out("alpha.heic"), out("alpha.png"))
    run("heif-enc", "-A", "-q", "60", "-o", out("alpha.avif"), out("alpha.png"))
    prem = np.asarray(rgba).astype(np.uint32)
    prem[..., :3] = (prem[..., :3] * prem[..., 3:4] + 127) // 255
    pp = os.path.join(tmp, "prem.png")
    Image.fromarray(prem.astype(np.uint8), "RGBA").save(pp)
    run("heif-enc", "-q", "60", "--premultiplied-alpha", "-o", out("alpha-prem.heic"), pp)

    # lossless
    small = src.resize((32, 24), Image.LANCZOS)
    small.save(out("lossless.png"))
    run("avifenc", "-s", "6", "-l", out("lossless.png"), out("lossless.avif"))
    run("heif-enc", "-L", "-p", "chroma=444", "--matrix_coefficients=0", "-o", out("lossless.heic"),
        out("lossless.png"))

    # orientation: irot 1 (90 degrees anti-clockwise), then imir 1 (left-right)
    run("avifenc", "-s", "6", "--irot", "1", "--imir", "1", out("photo.png"), out("orient.avif"))
    photo.transpose(Image.ROTATE_90).transpose(Image.FLIP_LEFT_RIGHT).save(out("orient.expected.png"))

    # ICC
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    icc_png = os.path.join(tmp, "icc.png")
    photo.save(icc_png, icc_profile=srgb)
    run("heif-enc", "-q", "50", "-o", out("icc.heic"), icc_png)
    icc_file = out("srgb.icc")
    open(icc_file, "wb").write(srgb)
    run("avifenc", "-s", "6", "--icc", icc_file, out("photo.png"), out("icc.avif"))

    # nclx only
    run("avifenc", "-s", "6", "--cicp", "12/13/6", out("photo.png"), out("p3-nclx.avif"))
    run("avifenc", "-s", "6", "--cicp", "1/1/6", out("photo.png"), out("bt709-nclx.avif"))
    run("avifenc", "-s", "6", "-d", "10", "--cicp", "9/16/9", p16, out("pq-nclx.avif"))

    # EXIF + XMP
    e = Image.Exif()
    e[0x0112] = 1
    e[0x013B] = "catctl tests"
    tiff = e.tobytes()
    if tiff.startswith(b"Exif\0\0"):
        tiff = tiff[6:]
    open(out("exif.tiff"), "wb").write(tiff)
    open(out("meta.xmp"), "wb").write(XMP)
    run("avifenc", "-s", "6", "--exif", out("exif.tiff"), "--xmp", out("meta.xmp"), out("photo.png"),
        out("exif-xmp.avif"))

    # AVIF sequence
    frames = []
    for i, (dx, dy) in enumerate(((0, 0), (60, 20), (120, 40))):
        f = src.crop((dx, dy, dx + 320, dy + 240)).resize((32, 24), Image.LANCZOS)
        f.save(out("seq.frame%d.png" % i))
        frames.append(out("seq.frame%d.png" % i))
    run("avifenc", "-s", "8", "--timescale", "1000",
        "--duration", "100", frames[0], "--duration", "200", frames[1], "--duration", "300", frames[2],
        out("seq.avif"))

    # grids: 2x2 tiles of 64x64 showing 128x96
    big = src.resize((128, 96), Image.LANCZOS)
    canvas = Image.new("RGB", (128, 128))
    canvas.paste(big, (0, 0))
    canvas.paste(big.crop((0, 64, 128, 96)).transpose(Image.FLIP_TOP_BOTTOM), (0, 96))  # fill the padding
    canvas.save(out("grid.png"))
    for ext, extra in (("heic", []), ("avif", ["-A"])):
        tiles = []
        for r in range(2):
            for c in range(2):
                tp = os.path.join(tmp, "tile%d%d.png" % (r, c))
                canvas.crop((c * 64, r * 64, c * 64 + 64, r * 64 + 64)).save(tp)
                th = os.path.join(tmp, "tile%d%d.%s" % (r, c, ext))
                run("heif-enc", *extra, "-q", "60", "-o", th, tp)
                tiles.append(th)
        open(out("grid." + ext), "wb").write(grid_file(tiles, 2, 2, 128, 96, 64, 64, ext == "avif"))

    # hostile / special
    data = open(out("photo.heic"), "rb").read()
    open(out("huge-ispe.heic"), "wb").write(patch_ispe(data, 60000, 60000))
    g = bytearray(open(out("grid.heic"), "rb").read())
    i = g.index(b"idat") + 4 + 4  # version, flags, rows-1, cols-1, then output width/height
    assert struct.unpack(">HH", g[i:i + 4]) == (128, 96)
    g[i:i + 4] = struct.pack(">HH", 60000, 60000)
    open(out("grid-canvas.heic"), "wb").write(bytes(g))
    assert data[4:8] == b"ftyp"
    open(out("msf1-still.heic"), "wb").write(data[:8] + b"msf1" + data[12:])

    open(out("VERSIONS.txt"), "w").write(versions())
    sizes = {n: os.path.getsize(out(n)) for n in sorted(os.listdir(HERE)) if not n.endswith(".py")}
    for n, s in sizes.items():
        assert s < 100_000, (n, s)
    print("wrote", sizes, file=sys.stderr)


def write_png16(path, arr):
    """A 16-bit RGB PNG from an HxWx3 uint16 array (Pillow cannot write one)."""
    import zlib
    h, w, _ = arr.shape
    raw = b"".join(b"\0" + arr[y].astype(">u2").tobytes() for y in range(h))

    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(png)


if __name__ == "__main__":
    main()
