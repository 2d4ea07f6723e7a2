#!/usr/bin/env python3
"""Generate catctl's TIFF test fixtures and their reference decodes.

catctl decodes and encodes TIFF through the system libtiff (Debian 12: 4.5.0). The files
here are made by Pillow, tifffile and the Debian tool tiffcp (libtiff-tools 4.5.0), plus a
few crafted by hand below (struct.pack); the expected pixels are computed from tifffile's
raw samples with numpy (or Pillow's decode where noted), so the reference is independent
of catctl's libtiff. The versions used are printed when the script runs and written to
VERSIONS.txt.

Usage (from anywhere; paths are relative to this script's folder, Tests/Fixtures/tiff; the
inputs are ../photos/chelsea.png and ../metadata/warm-cmyk.icc):

    pip install pillow tifffile numpy imagecodecs   # imagecodecs: tifffile's JPEG/zlib
    python3 Tests/Fixtures/tiff/make_fixtures.py

Re-runnable: every file is rewritten; with the same tool versions the bytes are the same.

Source images: CAT = chelsea.png resized (LANCZOS) to the odd size 61x45 (partial strips
and tiles at the edges); CAT_A = CAT with alpha = a horizontal ramp times a vertical one
and a fully transparent 12x8 block at (40, 30).

<name>.expected.png is the reference decode as RGBA8 (alpha 255 where the file has none),
in stored order (Orientation NOT applied), exact for lossless files; for JPEG-compressed
files (Pillow's libtiff/libjpeg decode) and ICC-converted CMYK (Pillow's lcms2) a decoder
may differ by a few levels. Rules the references follow (and catctl's shim):
  16-bit -> 8-bit: (v*255 + 32767) // 65535;  palette: colormap >> 8;
  associated alpha: c = min(max, (c*max + a//2) // a), 0 where a == 0, at the sample depth;
  CMYK without a profile: R = round((255-C)(255-K)/255) etc.;  min-is-white: inverted.
Files without .expected.png are for error paths or have no exact reference (see FILES).

FILES (61x45 unless noted; expected = exact reference PNG)
  rgb-none (Pillow, one strip, IFD first), rgb-lzw / rgb-deflate (tiffcp, predictor 2),
  rgb-packbits, rgb-strips (LZW, 7 rows/strip), rgb-tiled (LZW, 16x16 tiles, partial edge
  tiles), rgb-planar (PlanarConfig 2, LZW strips), rgb-planar-tiled, rgb-bigtiff (BigTIFF,
  Deflate), rgb-bigtiff-tiled (BigTIFF, PackBits tiles), rgb-deflate-old (crafted,
  Compression 32946)                                                   expected
  rgb-jpeg (YCbCr 2x2, strips), rgb-jpeg-rgb (JPEG of RGB), rgb-jpeg-tiled   expected, +-2
  rgb16 (tifffile), rgba16-assoc (16-bit premultiplied, zlib)          expected
  rgba-unassoc (Pillow RGBA, ExtraSamples 2), rgba-assoc (tifffile, ExtraSamples 1),
  rgba-planar-tiled                                                    expected
  grey8 (LZW), grey16, grey-miniswhite, grey2, grey4 (tifffile), grey1 (Pillow "1"),
  grey1-g4 (CCITT G4), grey-alpha (Pillow LA)                          expected
  palette8 (Pillow P), palette4 (crafted 4-bit colormap)               expected
  cmyk (Pillow, naive conversion), cmyk-icc (+ ../metadata/warm-cmyk.icc; lcms2, +-2)
  two-page (2 directories), orient6 (Orientation 6, stored order), meta (ICC, XMP, Make/
  Model/DateTime/Artist/Copyright, EXIF and GPS sub-IFDs)               expected
  lab (CIELab), ycbcr-raw (crafted uncompressed YCbCr 4:2:0, 60x44)      no reference:
                                                  libtiff's RGBA interface, sanity only
  float32 (tifffile float samples: UNSUPPORTED), huge-declared (100000x100000 declared, 138
  bytes: LIMIT), giant-stripbytes (StripByteCounts 0xFFFFFF00: must not be allocated;
  TRUNCATED), giant-tile (one 32768x32768 tile for a 16x16 image: LIMIT)
"""
import io
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import tifffile
from PIL import Image, ImageCms, TiffImagePlugin, features

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "photos", "chelsea.png")
CMYK_ICC = os.path.join(HERE, "..", "metadata", "warm-cmyk.icc")
W, H = 61, 45


def path(name):
    return os.path.join(HERE, name)


def tiffcp(args, src, dst):
    subprocess.run(["tiffcp", *args, path(src), path(dst)], check=True)


def save_png(name, rgba):
    Image.fromarray(np.ascontiguousarray(rgba.astype(np.uint8)), "RGBA").save(path(name + ".expected.png"))


def to8(v, bits):
    v = v.astype(np.uint64)
    if bits == 16:
        return ((v * 255 + 32767) // 65535).astype(np.uint8)
    if bits == 8:
        return v.astype(np.uint8)
    return (v * 255 // ((1 << bits) - 1)).astype(np.uint8)


def unpremultiply(c, a, maxv):
    c = c.astype(np.uint64)
    a = a.astype(np.uint64)
    out = np.where(a == 0, 0, (c * maxv + a // 2) // np.maximum(a, 1))
    return np.minimum(out, maxv)


def rgba_from(rgb8, a8=None):
    h, w = rgb8.shape[:2]
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = rgb8
    out[..., 3] = 255 if a8 is None else a8
    return out


def pillow_rgba(name):
    with Image.open(path(name)) as im:
        return np.asarray(im.convert("RGBA"))


# ------------------------------------------------------------ crafted files

def le_tiff(entries, data, data_offset_tag=None):
    """A classic little-endian TIFF: header, pixel data at 8, then the IFD (+ values).
    entries: list of (tag, type, count, value-bytes or int). data: bytes placed at 8."""
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1}
    ifd_at = 8 + len(data) + (len(data) & 1)
    n = len(entries)
    values_at = ifd_at + 2 + 12 * n + 4
    table, values = b"", b""
    for tag, typ, count, value in sorted(entries, key=lambda e: e[0]):
        if isinstance(value, int):
            value = struct.pack("<H" if typ == 3 else "<I", value)
        if len(value) <= 4:
            field = value.ljust(4, b"\0")
        else:
            field = struct.pack("<I", values_at + len(values))
            values += value + (b"\0" if len(value) & 1 else b"")
        table += struct.pack("<HHI", tag, typ, count) + field
    body = data + (b"\0" if len(data) & 1 else b"")
    return b"II*\0" + struct.pack("<I", ifd_at) + body + struct.pack("<H", n) + table + b"\0\0\0\0" + values


def pin_profile_date(icc):
    """lcms2 stamps profiles with the time they were made: pin it (2025-01-01) and clear the
    profile ID (MD5 over the header, 0 = not computed) so the fixtures are reproducible."""
    date = struct.pack(">6H", 2025, 1, 1, 0, 0, 0)
    return icc[:24] + date + icc[36:84] + bytes(16) + icc[100:]


def main():
    versions = (f"Pillow {Image.__version__} (libtiff {features.version('libtiff')}, "
                f"lcms2 {features.version('littlecms2')}), tifffile {tifffile.__version__}, "
                f"numpy {np.__version__}, "
                + subprocess.run(["tiffcp"], capture_output=True, text=True).stderr.splitlines()[0].strip()
                + " (tiffcp)")
    print(versions)
    with open(path("VERSIONS.txt"), "w") as f:
        f.write("Made by make_fixtures.py with: " + versions + "\n")

    cat = Image.open(PHOTO).convert("RGB").resize((W, H), Image.LANCZOS)
    cat.info.pop("icc_profile", None)  # chelsea.png's profile: only the metadata fixtures carry one
    rgb = np.asarray(cat)
    yy, xx = np.mgrid[0:H, 0:W]
    alpha = (xx * 255 // (W - 1) * (yy + 10) // (H + 9)).astype(np.uint8)
    alpha[30:38, 40:52] = 0
    cat_a = Image.fromarray(np.dstack([rgb, alpha]), "RGBA")

    # --- RGB, every layout and codec
    cat.save(path("rgb-none.tif"), compression=None)
    save_png("rgb-none", rgba_from(rgb))
    for name, args in [("rgb-lzw", ["-c", "lzw:2"]), ("rgb-deflate", ["-c", "zip:2"]),
                       ("rgb-packbits", ["-c", "packbits"]), ("rgb-strips", ["-c", "lzw", "-r", "7"]),
                       ("rgb-tiled", ["-c", "lzw:2", "-t", "-w", "16", "-l", "16"]),
                       ("rgb-planar", ["-c", "lzw", "-p", "separate", "-r", "5"]),
                       ("rgb-planar-tiled", ["-p", "separate", "-t", "-w", "32", "-l", "16"]),
                       ("rgb-bigtiff", ["-8", "-c", "zip:2", "-r", "7"]),
                       ("rgb-bigtiff-tiled", ["-8", "-c", "packbits", "-t", "-w", "32", "-l", "32"])]:
        tiffcp(args, "rgb-none.tif", name + ".tif")
        save_png(name, rgba_from(rgb))
    # old-style Deflate (Compression 32946), crafted: one zlib stream, no predictor
    z = zlib.compress(rgb.tobytes(), 9)
    entries = [(256, 3, 1, W), (257, 3, 1, H), (258, 3, 3, struct.pack("<3H", 8, 8, 8)), (259, 3, 1, 32946),
               (262, 3, 1, 2), (273, 4, 1, 8), (277, 3, 1, 3), (278, 3, 1, H), (279, 4, 1, len(z))]
    open(path("rgb-deflate-old.tif"), "wb").write(le_tiff(entries, z))
    save_png("rgb-deflate-old", rgba_from(rgb))
    for name, args in [("rgb-jpeg", ["-c", "jpeg:90", "-r", "16"]), ("rgb-jpeg-rgb", ["-c", "jpeg:r:90", "-r", "8"]),
                       ("rgb-jpeg-tiled", ["-c", "jpeg:90", "-t", "-w", "32", "-l", "32"])]:
        tiffcp(args, "rgb-none.tif", name + ".tif")
        save_png(name, pillow_rgba(name + ".tif"))  # libjpeg's decode: compare with a tolerance

    # --- 16-bit RGB, RGBA
    rgb16 = (rgb.astype(np.uint16) * 257 + (xx * 37 % 200)[..., None].astype(np.uint16)).astype(np.uint16)
    tifffile.imwrite(path("rgb16.tif"), rgb16, photometric="rgb")
    save_png("rgb16", rgba_from(to8(rgb16, 16)))
    a16 = alpha.astype(np.uint32) * 257
    pre16 = (rgb16.astype(np.uint32) * a16[..., None] + 32767) // 65535
    tifffile.imwrite(path("rgba16-assoc.tif"), np.dstack([pre16, a16]).astype(np.uint16), photometric="rgb",
                     extrasamples=["assocalpha"], compression="zlib")
    save_png("rgba16-assoc", rgba_from(to8(unpremultiply(pre16, a16[..., None], 65535), 16), to8(a16, 16)))

    # --- RGBA, unassociated (Pillow) and associated (tifffile)
    cat_a.save(path("rgba-unassoc.tif"), compression="tiff_adobe_deflate")
    save_png("rgba-unassoc", np.dstack([rgb, alpha]))
    tiffcp(["-p", "separate", "-t", "-w", "16", "-l", "16", "-c", "lzw:2"], "rgba-unassoc.tif",
           "rgba-planar-tiled.tif")
    save_png("rgba-planar-tiled", np.dstack([rgb, alpha]))
    pre = (rgb.astype(np.uint32) * alpha[..., None] + 127) // 255
    tifffile.imwrite(path("rgba-assoc.tif"), np.dstack([pre, alpha]).astype(np.uint8), photometric="rgb",
                     extrasamples=["assocalpha"])
    save_png("rgba-assoc", rgba_from(unpremultiply(pre, alpha[..., None], 255).astype(np.uint8), alpha))

    # --- grey
    grey = np.asarray(cat.convert("L"))
    Image.fromarray(grey, "L").save(path("grey8.tif"), compression="tiff_lzw")
    save_png("grey8", rgba_from(np.dstack([grey] * 3)))
    grey16 = (grey.astype(np.uint16) * 257 + (yy * 91 % 256).astype(np.uint16)).astype(np.uint16)
    Image.frombytes("I;16", (W, H), grey16.astype("<u2").tobytes()).save(path("grey16.tif"))
    save_png("grey16", rgba_from(np.dstack([to8(grey16, 16)] * 3)))
    tifffile.imwrite(path("grey-miniswhite.tif"), grey, photometric="miniswhite")
    save_png("grey-miniswhite", rgba_from(np.dstack([255 - grey] * 3)))
    for bits in (2, 4):
        g = (grey >> (8 - bits)).astype(np.uint8)
        tifffile.imwrite(path(f"grey{bits}.tif"), g, photometric="minisblack", bitspersample=bits)
        save_png(f"grey{bits}", rgba_from(np.dstack([to8(g, bits)] * 3)))
    bw = cat.convert("1")
    bw.save(path("grey1.tif"))
    bw8 = np.asarray(bw.convert("L"))
    save_png("grey1", rgba_from(np.dstack([bw8] * 3)))
    tiffcp(["-c", "g4"], "grey1.tif", "grey1-g4.tif")
    save_png("grey1-g4", rgba_from(np.dstack([bw8] * 3)))
    Image.fromarray(np.dstack([grey, alpha]), "LA").save(path("grey-alpha.tif"))
    save_png("grey-alpha", rgba_from(np.dstack([grey] * 3), alpha))

    # --- palette
    pal_img = cat.quantize(200)
    pal_img.save(path("palette8.tif"))
    t = tifffile.TiffFile(path("palette8.tif"))
    cmap = t.pages[0].colormap  # (3, 256) uint16
    idx = t.pages[0].asarray()
    t.close()
    save_png("palette8", rgba_from(np.dstack([(cmap[k] >> 8)[idx] for k in range(3)]).astype(np.uint8)))
    # 4-bit palette, crafted: 16 colours, two pixels a byte (odd width: padded rows)
    cm16 = np.array([[(i * 17) * 257 for i in range(16)], [((15 - i) * 17) * 257 for i in range(16)],
                     [((i * 5) % 16 * 17) * 257 for i in range(16)]], np.uint16)
    idx4 = (grey >> 4).astype(np.uint8)
    rowbytes = (W + 1) // 2
    packed = bytearray()
    for y in range(H):
        row = list(idx4[y]) + [0]
        packed += bytes((row[2 * i] << 4) | row[2 * i + 1] for i in range(rowbytes))
    entries = [(256, 3, 1, W), (257, 3, 1, H), (258, 3, 1, 4), (259, 3, 1, 1), (262, 3, 1, 3), (273, 4, 1, 8),
               (277, 3, 1, 1), (278, 3, 1, H), (279, 4, 1, len(packed)), (320, 3, 48, cm16.astype("<u2").tobytes())]
    open(path("palette4.tif"), "wb").write(le_tiff(entries, bytes(packed)))
    save_png("palette4", rgba_from(np.dstack([(cm16[k] >> 8)[idx4] for k in range(3)]).astype(np.uint8)))

    # --- CMYK
    cmyk = cat.convert("CMYK")
    cmyk.save(path("cmyk.tif"), compression="tiff_lzw")
    c = np.asarray(cmyk).astype(np.uint32)
    k = 255 - c[..., 3]

    def mul255(a, b):
        x = a * b + 128
        return ((x + (x >> 8)) >> 8).astype(np.uint8)
    save_png("cmyk", rgba_from(np.dstack([mul255(255 - c[..., i], k) for i in range(3)])))
    icc = open(CMYK_ICC, "rb").read()
    cmyk.save(path("cmyk-icc.tif"), compression="tiff_lzw", icc_profile=icc)
    srgb = ImageCms.createProfile("sRGB")
    xf = ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(icc)), srgb, "CMYK", "RGB",
                                 renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                 flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    save_png("cmyk-icc", rgba_from(np.asarray(ImageCms.applyTransform(cmyk, xf))))  # lcms2: small tolerance

    # --- pages, orientation, metadata
    small = cat.resize((30, 20))
    cat.save(path("two-page.tif"), save_all=True, append_images=[small.convert("L")], compression="tiff_lzw")
    save_png("two-page", rgba_from(rgb))
    cat.save(path("orient6.tif"), tiffinfo={274: 6})
    save_png("orient6", rgba_from(rgb))  # stored order: the decoder does not rotate
    # IFD0 tags plus EXIF and GPS sub-IFDs (Pillow's own writer, uncompressed, writes nested IFDs)
    info = TiffImagePlugin.ImageFileDirectory_v2()
    info[271] = "CatCam"                # Make
    info[272] = "Whisker 1"             # Model
    info[306] = "2025:01:02 03:04:05"   # DateTime
    info[315] = "catctl test"           # Artist
    info[33432] = "CC0 catctl fixtures"  # Copyright
    info[34665] = {0x9003: "2025:01:02 03:04:05", 0x829A: TiffImagePlugin.IFDRational(1, 250), 0x8827: 400,
                   0x9286: b"ASCII\0\0\0purr"}  # DateTimeOriginal, ExposureTime, ISO, UserComment (as BYTE)
    info[34853] = {0: b"\x02\x02\x00\x00", 1: "N", 2: tuple(TiffImagePlugin.IFDRational(v, 1) for v in (52, 31, 0))}
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>catctl</dc:creator>'
           b'</rdf:Description></rdf:RDF></x:xmpmeta>')
    srgb_bytes = pin_profile_date(ImageCms.ImageCmsProfile(srgb).tobytes())
    # Uncompressed: Pillow's own writer (not libtiff's) writes the EXIF sub-IFD.
    info[700] = xmp
    cat.save(path("meta.tif"), icc_profile=srgb_bytes, tiffinfo=info)
    save_png("meta", rgba_from(rgb))

    # --- the RGBA-interface fallback (no exact reference: sanity only)
    lab = cat.convert("LAB")
    lab.info.pop("icc_profile", None)
    lab.save(path("lab.tif"))  # PhotometricInterpretation 8 (CIELab)
    # uncompressed YCbCr 4:2:0, crafted: 2x2 blocks of Y00 Y01 Y10 Y11 Cb Cr (JPEG full-range)
    ev = np.asarray(cat.crop((0, 0, 60, 44)).convert("YCbCr")).astype(np.int32)
    units = bytearray()
    for by in range(0, 44, 2):
        for bx in range(0, 60, 2):
            blk = ev[by:by + 2, bx:bx + 2]
            units += bytes([blk[0, 0, 0], blk[0, 1, 0], blk[1, 0, 0], blk[1, 1, 0],
                            int(blk[..., 1].mean() + 0.5), int(blk[..., 2].mean() + 0.5)])
    refbw = struct.pack("<12I", 0, 1, 255, 1, 128, 1, 255, 1, 128, 1, 255, 1)
    entries = [(256, 3, 1, 60), (257, 3, 1, 44), (258, 3, 3, struct.pack("<3H", 8, 8, 8)), (259, 3, 1, 1),
               (262, 3, 1, 6), (273, 4, 1, 8), (277, 3, 1, 3), (278, 3, 1, 44), (279, 4, 1, len(units)),
               (530, 3, 2, struct.pack("<2H", 2, 2)), (532, 5, 6, refbw)]
    open(path("ycbcr-raw.tif"), "wb").write(le_tiff(entries, bytes(units)))

    # --- error paths
    tifffile.imwrite(path("float32.tif"), rgb.astype(np.float32) / 255, photometric="rgb")  # UNSUPPORTED
    # 100000 x 100000 grey declared, 16 bytes of data: LIMIT before anything is allocated
    entries = [(256, 4, 1, 100000), (257, 4, 1, 100000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8), (277, 3, 1, 1), (278, 4, 1, 100000), (279, 4, 1, 16)]
    open(path("huge-declared.tif"), "wb").write(le_tiff(entries, bytes(16)))
    # a 61x45 RGB strip whose StripByteCounts claims 0xFFFFFF00 bytes: must not be allocated
    raw = rgb.tobytes()
    entries = [(256, 3, 1, W), (257, 3, 1, H), (258, 3, 3, struct.pack("<3H", 8, 8, 8)), (259, 3, 1, 5),
               (262, 3, 1, 2), (273, 4, 1, 8), (277, 3, 1, 3), (278, 3, 1, H), (279, 4, 1, 0xFFFFFF00)]
    open(path("giant-stripbytes.tif"), "wb").write(le_tiff(entries, raw[:4000]))
    # a 16x16 image with one 32768x32768 tile (4 GiB decoded): LIMIT
    entries = [(256, 3, 1, 16), (257, 3, 1, 16), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1), (277, 3, 1, 1),
               (322, 4, 1, 32768), (323, 4, 1, 32768), (324, 4, 1, 8), (325, 4, 1, 256)]
    open(path("giant-tile.tif"), "wb").write(le_tiff(entries, bytes(256)))

    for name in sorted(os.listdir(HERE)):
        size = os.path.getsize(path(name))
        assert size < 100_000, (name, size)


if __name__ == "__main__":
    sys.exit(main())
