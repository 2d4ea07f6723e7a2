#!/usr/bin/env python3
"""Generate catctl's WebP test fixtures and their reference decodes.

catctl decodes and encodes WebP through the system libwebp (Debian 12: 1.2.4).
The files here are ENCODED by Pillow (13.0.0, with its own bundled libwebp,
1.6.0 when this was written) and the expected pixels are Pillow's DECODES, so
the reference is independent of catctl's libwebp build.

Usage (from anywhere; paths are relative to this script's folder,
Tests/Fixtures/webp, and the only input is ../photos/chelsea.png):

    python3 Tests/Fixtures/webp/make_webp_fixtures.py

The script is idempotent: a file is rewritten only when its bytes change, and
with the same Pillow/libwebp the bytes do not change. Another libwebp version
may encode different (equally valid) .webp bytes; the .expected.png files are
then regenerated from those new bytes, so the pairs always agree.

Source images
-------------
CAT      chelsea.png resized (LANCZOS) to the odd size 97x61, RGB.
CAT_A    CAT as RGBA with alpha = a horizontal ramp (x * 255 // 96) multiplied
         by a vertical one, and a fully transparent 20x12 block at (60, 40)
         whose RGB stays the cat's (non-zero), so an encoder/decoder that
         drops "invisible" RGB is caught by the lossless comparison.
FRAMES   four 64x40 RGBA frames for the animations: chelsea resized (LANCZOS)
         to 64x40, opaque, then
           0: the plain cat
           1: + an opaque red 12x12 square at (8, 8)
           2: + the square moved to (30, 14) and a semi-transparent
                (alpha 128) blue 20x10 bar at (2, 26)
           3: + a fully transparent 16x16 hole at (40, 4) (RGB 0) on frame 2
         so the encoder emits sub-frames, blending and alpha.

Outputs (all in this folder)
-------
lossless.webp             CAT, lossless (VP8L, simple format: no VP8X chunk).
lossless-alpha.webp       CAT_A, lossless, exact=True (RGB under alpha 0 kept).
lossy.webp                CAT, lossy quality 80 (VP8, simple format).
lossy-alpha.webp          CAT_A, lossy quality 80 (VP8X + ALPH + VP8; the alpha
                          plane is lossless, RGB under alpha 0 is NOT kept).
animated.webp             FRAMES, lossless, exact, durations 100/250/40/500 ms,
                          loop 2 (VP8X + ANIM + 4 ANMF).
animated-lossy.webp       FRAMES, lossy quality 80, same durations, loop 0
                          (forever).
with-metadata.webp        CAT, lossless, with
                            ICCP: ImageCms.createProfile("sRGB") serialised,
                                  creation date pinned to 2025-01-01;
                            EXIF: big-endian TIFF ("MM\\0*", as Pillow
                                  writes it), Orientation (0x0112) = 1,
                                  Artist (0x013B) = "catctl test",
                                  Copyright (0x8298) = "CC0 catctl fixtures";
                            XMP : a small x:xmpmeta packet (dc:creator).
<name>.expected.png       Pillow's decode of each still file as an RGBA PNG
                          (alpha 255 where the file has none).
<name>.frameN.png         Pillow's decode of animation frame N (N = 0..3): the
                          composited canvas, RGBA PNG.
huge-vp8l.webp            crafted, 46 bytes: a complete RIFF/VP8L file whose
                          5-byte VP8L header declares 16383x16383 with alpha,
                          followed by 21 zero bytes (not a valid image). A decoder
                          must refuse it on the declared size (e.g. max_pixels
                          1e8) without allocating or decoding anything.
huge-vp8x.webp            crafted: VP8X canvas 16383x16383, then the same
                          VP8L chunk as huge-vp8l.webp (a still image must
                          match its canvas).
huge-anim.webp            crafted: VP8X canvas 4000x4000 with the animation
                          flag, ANIM (loop 0), and 10 ANMF frames each holding
                          a valid 1x1 VP8L image at offset (0, 0). 16 Mpx per
                          canvas, 160 Mpx over all frames: above 1e8 only when
                          the frame count is counted.
manifest.json             per file: size, lossless, alpha, frame count,
                          durations (ms), loop, and the metadata (ICC length +
                          SHA-256, EXIF and XMP bytes as hex / text).
"""

import hashlib
import io
import json
import os
import struct

from PIL import Image, ImageCms, features

HERE = os.path.dirname(os.path.abspath(__file__))
CHELSEA = os.path.normpath(os.path.join(HERE, "..", "photos", "chelsea.png"))

DURATIONS = [100, 250, 40, 500]
EXIF_ARTIST = "catctl test"
EXIF_COPYRIGHT = "CC0 catctl fixtures"
XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
       b'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
       b'<dc:creator><rdf:Seq><rdf:li>catctl test</rdf:li></rdf:Seq></dc:creator>'
       b'</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>')


def write_if_changed(name, data):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    with open(path, "wb") as f:
        f.write(data)


def webp_bytes(im, **params):
    buf = io.BytesIO()
    im.save(buf, "WEBP", **params)
    return buf.getvalue()


def png_bytes(im):
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


# --------------------------------------------------------------------------
# sources
# --------------------------------------------------------------------------

def cat(size):
    return Image.open(CHELSEA).convert("RGB").resize(size, Image.LANCZOS)


def cat_alpha():
    im = cat((97, 61)).convert("RGBA")
    w, h = im.size
    alpha = Image.new("L", (w, h))
    alpha.putdata([(x * 255 // (w - 1)) * (64 + y * 191 // (h - 1)) // 255
                   for y in range(h) for x in range(w)])
    for y in range(40, 52):
        for x in range(60, 80):
            alpha.putpixel((x, y), 0)
    im.putalpha(alpha)
    return im


def frames():
    base = cat((64, 40)).convert("RGBA")
    f0 = base.copy()
    f1 = base.copy()
    f1.paste((255, 0, 0, 255), (8, 8, 20, 20))
    f2 = base.copy()
    f2.paste((255, 0, 0, 255), (30, 14, 42, 26))
    f2.paste((0, 0, 255, 128), (2, 26, 22, 36))
    f3 = f2.copy()
    f3.paste((0, 0, 0, 0), (40, 4, 56, 20))
    return [f0, f1, f2, f3]


def exif_bytes():
    exif = Image.Exif()
    exif[0x0112] = 1
    exif[0x013B] = EXIF_ARTIST
    exif[0x8298] = EXIF_COPYRIGHT
    data = exif.tobytes()  # b"Exif\0\0" + big-endian TIFF
    if data.startswith(b"Exif\x00\x00"):
        data = data[6:]
    assert data[:4] == b"MM\x00*", data[:8]
    return data


def icc_bytes():
    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    # lcms stamps the creation time into the header (bytes 24..35); pin it so
    # the output is reproducible. The profile ID (bytes 84..99) is not set, so
    # nothing else depends on those bytes.
    assert data[84:100] == bytes(16), "profile ID set: patching the date would invalidate it"
    data[24:36] = struct.pack(">6H", 2025, 1, 1, 0, 0, 0)
    return bytes(data)


# --------------------------------------------------------------------------
# crafted headers
# --------------------------------------------------------------------------

def chunk(fourcc, payload):
    pad = b"\x00" if len(payload) & 1 else b""
    return fourcc + struct.pack("<I", len(payload)) + payload + pad


def riff(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def vp8l_header(width, height, alpha):
    # signature 0x2f, then 14 bits width-1, 14 bits height-1, 1 bit alpha,
    # 3 bits version 0 (little-endian bit order)
    bits = (width - 1) | ((height - 1) << 14) | (int(alpha) << 28)
    return b"\x2f" + struct.pack("<I", bits)


def vp8x(flags, width, height):
    w, h = width - 1, height - 1
    return chunk(b"VP8X", bytes([flags, 0, 0, 0]) + w.to_bytes(3, "little") + h.to_bytes(3, "little"))


def huge_vp8l_chunk():
    return chunk(b"VP8L", vp8l_header(16383, 16383, True) + b"\x00" * 21)


def one_pixel_vp8l_payload():
    data = webp_bytes(Image.new("RGBA", (1, 1), (10, 200, 30, 255)), lossless=True)
    assert data[12:16] == b"VP8L", data[:16]
    size = struct.unpack("<I", data[16:20])[0]
    return data[20:20 + size]


def crafted():
    out = {}
    out["huge-vp8l.webp"] = riff([huge_vp8l_chunk()])
    out["huge-vp8x.webp"] = riff([vp8x(0x10, 16383, 16383), huge_vp8l_chunk()])
    pixel = chunk(b"VP8L", one_pixel_vp8l_payload())
    anmf = []
    for _ in range(10):
        # x/2, y/2 offsets (24 bits each), width-1, height-1, duration, flags
        head = (0).to_bytes(3, "little") * 2 + (0).to_bytes(3, "little") * 2
        head += (100).to_bytes(3, "little") + b"\x00"
        anmf.append(chunk(b"ANMF", head + pixel))
    anim = chunk(b"ANIM", struct.pack("<IH", 0, 0))
    out["huge-anim.webp"] = riff([vp8x(0x02, 4000, 4000), anim] + anmf)
    return out


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def describe(name, data):
    im = Image.open(io.BytesIO(data))
    n = getattr(im, "n_frames", 1)
    durations = []
    for i in range(n):
        im.seek(i)
        im.load()  # Pillow sets info["duration"] when it decodes the frame
        durations.append(im.info.get("duration", 0))
    entry = {
        "width": im.size[0], "height": im.size[1],
        "bytes": len(data),
        "lossless": b"VP8L" in data and b"VP8 " not in data,
        "alpha": im.mode == "RGBA",
        "frames": n,
        "animated": data[12:16] == b"VP8X" and bool(data[20] & 0x02),
        "durations_ms": durations if n > 1 else [],
        "loop": im.info.get("loop", 1) if n > 1 else 1,
    }
    icc = im.info.get("icc_profile")
    if icc:
        entry["icc_length"] = len(icc)
        entry["icc_sha256"] = hashlib.sha256(icc).hexdigest()
    if im.info.get("exif"):
        entry["exif_hex"] = im.info["exif"].hex()
    if im.info.get("xmp"):
        entry["xmp"] = im.info["xmp"].decode("utf-8")
    return entry


def expected(name, data):
    """Write Pillow's decodes of `data` next to `name`."""
    stem = name[:-len(".webp")]
    im = Image.open(io.BytesIO(data))
    n = getattr(im, "n_frames", 1)
    if n == 1:
        im.load()
        write_if_changed(stem + ".expected.png", png_bytes(im.convert("RGBA")))
    else:
        for i in range(n):
            im.seek(i)
            im.load()
            write_if_changed("%s.frame%d.png" % (stem, i), png_bytes(im.convert("RGBA")))


def main():
    assert features.check("webp"), "Pillow was built without WebP"
    files = {}
    c = cat((97, 61))
    ca = cat_alpha()
    files["lossless.webp"] = webp_bytes(c, lossless=True)
    files["lossless-alpha.webp"] = webp_bytes(ca, lossless=True, exact=True)
    files["lossy.webp"] = webp_bytes(c, quality=80)
    files["lossy-alpha.webp"] = webp_bytes(ca, quality=80)
    fr = frames()
    files["animated.webp"] = webp_bytes(fr[0], save_all=True, append_images=fr[1:], duration=DURATIONS,
                                        loop=2, lossless=True, exact=True)
    files["animated-lossy.webp"] = webp_bytes(fr[0], save_all=True, append_images=fr[1:], duration=DURATIONS,
                                              loop=0, quality=80)
    files["with-metadata.webp"] = webp_bytes(c, lossless=True, icc_profile=icc_bytes(), exif=exif_bytes(),
                                             xmp=XMP)

    # Sanity: what the tests rely on.
    assert files["lossless.webp"][12:16] == b"VP8L"
    assert files["lossy.webp"][12:16] == b"VP8 "
    assert b"ALPH" in files["lossy-alpha.webp"]
    assert files["animated.webp"].count(b"ANMF") == 4, "frames were merged"
    assert files["animated-lossy.webp"].count(b"ANMF") == 4, "frames were merged"
    for name in ("ICCP", "EXIF", "XMP "):
        assert name.encode() in files["with-metadata.webp"], name

    manifest = {}
    for name, data in sorted(files.items()):
        write_if_changed(name, data)
        expected(name, data)
        manifest[name] = describe(name, data)
    for name, data in sorted(crafted().items()):
        write_if_changed(name, data)
        manifest[name] = {"bytes": len(data), "crafted": True}
    assert manifest["animated.webp"]["durations_ms"] == DURATIONS
    assert manifest["animated.webp"]["loop"] == 2
    info = {"pillow": Image.__version__, "libwebp": features.version("webp"), "files": manifest}
    write_if_changed("manifest.json", (json.dumps(info, indent=1, sort_keys=True) + "\n").encode())


if __name__ == "__main__":
    os.chdir(HERE)
    main()
