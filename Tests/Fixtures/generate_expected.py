#!/usr/bin/env python3
"""Generate catctl's reference ("expected") test fixtures with INDEPENDENT decoders.

catctl decodes PNG with libpng and JPEG with libjpeg(-turbo).  Its tests compare
those decoders against the pixels written here, which come from:

  * pypng   (pure Python, no libpng)  -- for every valid PngSuite file
  * Pillow  (its own bundled libjpeg-turbo build, not catctl's) -- for JPEGs

Made with pypng 0.20220715.0 and Pillow 13.0.0.  Other versions may produce
slightly different JPEG bytes / decodes; re-run and re-check the tests then.

Usage (from anywhere; every path is relative to this script's folder,
Tests/Fixtures, and the repository root is two levels above it):

    python3 Tests/Fixtures/generate_expected.py
    python3 Tests/Fixtures/generate_expected.py --corpus /work/shared/corpus

Without --corpus the script only uses inputs already committed under
Tests/Fixtures (pngsuite/, jpeg/test*.jpg, photos/chelsea.png), so it works on a
fresh clone.  With --corpus DIR it first (re)copies those inputs from the test
corpus (DIR/pngsuite/*.png + PngSuite.LICENSE/README, DIR/jpeg/{testorig,
testimgint,testimgari,monkey12}.jpg + LICENSE.txt, DIR/photos/chelsea.png).
The script is idempotent: running it again rewrites identical files.

Outputs
-------
pngsuite-expected/<name>.rgba   for every PngSuite file whose name does not
    start with "x": raw RGBA8, row-major, top row first, no padding,
    width*height*4 bytes.  Decoded with pypng Reader.asRGBA(), which expands
    palette, tRNS and grey.  Then:
      - 16-bit samples -> 8-bit as (v * 255 + 32767) // 65535 (rounded);
      - 1/2/4-bit samples (pypng keeps the native depth, e.g. 0..1 for 1-bit)
        -> 8-bit as round(v * 255 / (2**depth - 1)) (exact for 1/2/4 bits);
      - gAMA is NOT applied (pypng never applies it);
      - sBIT is IGNORED: pypng's asDirect() would otherwise shift samples down
        to the sBIT depth (e.g. s01n3p01 to 4 bits, cs3n3p08 to 3 bits), which
        loses information; libpng also returns the stored samples unless the
        caller asks for png_set_shift.  We clear reader.sbit after preamble().
pngsuite-expected/manifest.tsv  header + one line per valid file:
    name, width, height, source_bitdepth (IHDR bit depth), has_alpha (1 if the
    colour type has an alpha channel or the file has a tRNS chunk, else 0).
pngsuite-expected/manifest-corrupt.txt  every x*.png (deliberately corrupt;
    all must be rejected).  Listed regardless of pypng's own verdict.

jpeg/chelsea-{444,422,420}.jpg   chelsea.png resized (LANCZOS) to the odd size
    97x61, quality 92, subsampling 0 / 1 / 2.
jpeg/chelsea-gray.jpg            same, mode L, quality 92.
jpeg/chelsea-progressive.jpg     same, progressive, 4:2:0, quality 92.
jpeg/<those five>.expected.png   Pillow's decode of each, as an RGB PNG
    (gray converted to RGB by replication).
jpeg/chelsea-cmyk.jpg            NOT chelsea: 40x40 CMYK, quality 95,
    subsampling 0, four 20x20 quadrants (C,M,Y,K):
        top-left     (255,  0,  0, 0) cyan    -> naive RGB (  0, 255, 255)
        top-right    (  0,255,  0, 0) magenta -> naive RGB (255,   0, 255)
        bottom-left  (  0,  0,255, 0) yellow  -> naive RGB (255, 255,   0)
        bottom-right (  0,  0,  0, 0) white   -> naive RGB (255, 255, 255)
    naive conversion: R=(255-C)(255-K)/255, G=(255-M)(255-K)/255,
    B=(255-Y)(255-K)/255.  Pillow (via libjpeg) writes an Adobe APP14 marker
    (transform 0) and stores the samples INVERTED (255-C, ...), as Adobe/
    Photoshop do; a decoder must un-invert when an Adobe marker is present.
    The script asserts the file contains b"Adobe".  No .expected.png: the
    quadrant colours above are the expectation (allow small JPEG error).
jpeg/{testorig,testimgint,testimgari}.expected.png
    Pillow's decode (RGB PNG) of libjpeg-turbo's baseline, progressive and
    arithmetic-coded test images.  (Pillow 13.0.0 decodes all three; if a
    Pillow build lacks arithmetic decoding, testimgari is skipped with a
    warning.)  monkey12.jpg (12-bit) has no expected file: an 8-bit decoder
    must refuse it.
jpeg/orient-{1..8}.jpg           a 24x16 RGB image of six flat 8x8-aligned
    blocks with six distinct colours (so each of the 8 EXIF orientations gives
    a distinct upright image), quality 100, subsampling 0, EXIF Orientation
    (0x0112) = N.
jpeg/orient-N.expected.png       Pillow decode passed through
    ImageOps.exif_transpose: the upright image (16x24 for N = 5..8).

../../Resources/cats/chelsea.jpg chelsea.png at full size (451x300), JPEG
    quality 90, 4:2:0.
"""

import argparse
import os
import shutil
import sys

import png  # pypng
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

PNGSUITE = os.path.join(HERE, "pngsuite")
PNG_EXPECTED = os.path.join(HERE, "pngsuite-expected")
JPEG = os.path.join(HERE, "jpeg")
PHOTOS = os.path.join(HERE, "photos")
CHELSEA = os.path.join(PHOTOS, "chelsea.png")
CATS = os.path.join(REPO, "Resources", "cats")

CORPUS_JPEGS = ["testorig.jpg", "testimgint.jpg", "testimgari.jpg",
                "monkey12.jpg", "LICENSE.txt"]


# --------------------------------------------------------------------------
# optional: refresh inputs from the corpus
# --------------------------------------------------------------------------

def copy_if_changed(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst):
        with open(src, "rb") as a, open(dst, "rb") as b:
            if a.read() == b.read():
                return
    shutil.copyfile(src, dst)  # contents only; no read-only mode bits


def copy_from_corpus(corpus):
    src = os.path.join(corpus, "pngsuite")
    for name in sorted(os.listdir(src)):
        if name.endswith(".png") or name in ("PngSuite.LICENSE", "PngSuite.README"):
            copy_if_changed(os.path.join(src, name), os.path.join(PNGSUITE, name))
    for name in CORPUS_JPEGS:
        copy_if_changed(os.path.join(corpus, "jpeg", name), os.path.join(JPEG, name))
    copy_if_changed(os.path.join(corpus, "photos", "chelsea.png"), CHELSEA)


# --------------------------------------------------------------------------
# PNG: pypng reference decodes
# --------------------------------------------------------------------------

def to8(v, depth):
    if depth == 8:
        return v
    if depth == 16:
        return (v * 255 + 32767) // 65535
    maxv = (1 << depth) - 1
    return round(v * 255 / maxv)  # exact for depth 1, 2, 4 (255/maxv integral)


def decode_png_rgba8(path):
    """Return (width, height, rgba8 bytes, source_bitdepth, has_alpha)."""
    r = png.Reader(filename=path)
    r.preamble()
    source_depth = r.bitdepth
    has_alpha = bool(r.alpha or r.trns)
    r.sbit = None  # do not let asDirect() shift samples down to sBIT depth
    width, height, rows, info = r.asRGBA()
    depth = info["bitdepth"]
    assert info["planes"] == 4 and info["alpha"] and not info["greyscale"]
    out = bytearray()
    if depth == 8:
        for row in rows:
            out += bytes(row)
    else:
        lut = None if depth == 16 else [to8(v, depth) for v in range(1 << depth)]
        for row in rows:
            if lut is None:
                out += bytes(to8(v, 16) for v in row)
            else:
                out += bytes(lut[v] for v in row)
    assert len(out) == width * height * 4, (path, len(out))
    return width, height, bytes(out), source_depth, has_alpha


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    with open(path, "wb") as f:
        f.write(data)


def generate_png_expected():
    os.makedirs(PNG_EXPECTED, exist_ok=True)
    names = sorted(n for n in os.listdir(PNGSUITE) if n.endswith(".png"))
    valid = [n for n in names if not n.startswith("x")]
    corrupt = [n for n in names if n.startswith("x")]
    manifest = ["name\twidth\theight\tsource_bitdepth\thas_alpha"]
    for name in valid:
        try:
            w, h, data, depth, alpha = decode_png_rgba8(os.path.join(PNGSUITE, name))
        except Exception as e:  # only PngSuite.png may be skipped
            if name == "PngSuite.png":
                print("warning: pypng cannot read %s (%s); skipped" % (name, e),
                      file=sys.stderr)
                continue
            raise
        write_if_changed(os.path.join(PNG_EXPECTED, name + ".rgba"), data)
        manifest.append("%s\t%d\t%d\t%d\t%d" % (name, w, h, depth, int(alpha)))
    write_if_changed(os.path.join(PNG_EXPECTED, "manifest.tsv"),
                     ("\n".join(manifest) + "\n").encode())
    write_if_changed(os.path.join(PNG_EXPECTED, "manifest-corrupt.txt"),
                     ("\n".join(corrupt) + "\n").encode())

    # pypng's own verdict on the corrupt files (informational only)
    for name in corrupt:
        try:
            w, h, rows, info = png.Reader(filename=os.path.join(PNGSUITE, name)).asRGBA()
            for _ in rows:
                pass
            print("note: pypng ACCEPTS corrupt %s" % name, file=sys.stderr)
        except Exception:
            pass
    print("pngsuite-expected: %d .rgba files, %d corrupt listed"
          % (len(manifest) - 1, len(corrupt)))


# --------------------------------------------------------------------------
# JPEG: Pillow-made fixtures and Pillow reference decodes
# --------------------------------------------------------------------------

def save_rgb_png(im, path):
    im = im.convert("RGB")
    im.save(path, format="PNG", optimize=False, compress_level=9)


def expected_from_jpeg(jpg_path):
    with Image.open(jpg_path) as im:
        im.load()
        return im.convert("RGB")


def generate_chelsea_jpegs():
    with Image.open(CHELSEA) as src:
        src = src.convert("RGB")
        small = src.resize((97, 61), Image.LANCZOS)

    made = {
        "chelsea-444.jpg": dict(image=small, quality=92, subsampling=0),
        "chelsea-422.jpg": dict(image=small, quality=92, subsampling=1),
        "chelsea-420.jpg": dict(image=small, quality=92, subsampling=2),
        "chelsea-gray.jpg": dict(image=small.convert("L"), quality=92),
        "chelsea-progressive.jpg": dict(image=small, quality=92, subsampling=2,
                                        progressive=True),
    }
    for name, opts in made.items():
        opts = dict(opts)
        im = opts.pop("image")
        path = os.path.join(JPEG, name)
        im.save(path, format="JPEG", **opts)
        save_rgb_png(expected_from_jpeg(path),
                     os.path.join(JPEG, name[:-4] + ".expected.png"))


def generate_cmyk():
    # Quadrants (C, M, Y, K); naive RGB = ((255-C)(255-K)/255, (255-M)(255-K)/255,
    # (255-Y)(255-K)/255):
    #   top-left     cyan    (255,0,0,0) -> RGB (0,255,255)
    #   top-right    magenta (0,255,0,0) -> RGB (255,0,255)
    #   bottom-left  yellow  (0,0,255,0) -> RGB (255,255,0)
    #   bottom-right white   (0,0,0,0)   -> RGB (255,255,255)
    im = Image.new("CMYK", (40, 40), (0, 0, 0, 0))
    im.paste((255, 0, 0, 0), (0, 0, 20, 20))
    im.paste((0, 255, 0, 0), (20, 0, 40, 20))
    im.paste((0, 0, 255, 0), (0, 20, 20, 40))
    path = os.path.join(JPEG, "chelsea-cmyk.jpg")
    im.save(path, format="JPEG", quality=95, subsampling=0)
    with open(path, "rb") as f:
        assert b"Adobe" in f.read(), "expected an Adobe APP14 marker in CMYK JPEG"


def generate_corpus_expected():
    for stem in ("testorig", "testimgint", "testimgari"):
        src = os.path.join(JPEG, stem + ".jpg")
        try:
            im = expected_from_jpeg(src)
        except Exception as e:
            # Pillow builds without arithmetic decoding cannot read testimgari.
            print("warning: Pillow cannot decode %s (%s); skipped" % (stem, e),
                  file=sys.stderr)
            continue
        save_rgb_png(im, os.path.join(JPEG, stem + ".expected.png"))


def orientation_source():
    """24x16, six flat 8x8 blocks (aligned to the JPEG 8x8 grid), all distinct."""
    colours = [
        [(0, 176, 0), (200, 0, 0), (255, 255, 255)],  # top:    green, red, white
        [(240, 220, 0), (0, 0, 0), (0, 0, 200)],      # bottom: yellow, black, blue
    ]
    im = Image.new("RGB", (24, 16))
    for by, row in enumerate(colours):
        for bx, c in enumerate(row):
            im.paste(c, (bx * 8, by * 8, bx * 8 + 8, by * 8 + 8))
    return im


def generate_orientation():
    src = orientation_source()
    seen = set()
    for n in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = n
        path = os.path.join(JPEG, "orient-%d.jpg" % n)
        src.save(path, format="JPEG", quality=100, subsampling=0,
                 exif=exif.tobytes())
        with Image.open(path) as im:
            im.load()
            assert im.getexif().get(0x0112) == n
            upright = ImageOps.exif_transpose(im).convert("RGB")
        want = (24, 16) if n <= 4 else (16, 24)
        assert upright.size == want, (n, upright.size)
        key = (upright.size, upright.tobytes())
        assert key not in seen, "orientation %d not distinct" % n
        seen.add(key)
        save_rgb_png(upright, os.path.join(JPEG, "orient-%d.expected.png" % n))


def generate_resource_cat():
    os.makedirs(CATS, exist_ok=True)
    with Image.open(CHELSEA) as src:
        src.convert("RGB").save(os.path.join(CATS, "chelsea.jpg"), format="JPEG",
                                quality=90, subsampling=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="refresh inputs from this corpus folder first")
    args = ap.parse_args()
    if args.corpus:
        copy_from_corpus(args.corpus)
    os.makedirs(JPEG, exist_ok=True)
    generate_png_expected()
    generate_chelsea_jpegs()
    generate_cmyk()
    generate_corpus_expected()
    generate_orientation()
    generate_resource_cat()
    print("done (pypng %s, Pillow %s)" % (getattr(png, "__version__", "?"),
                                          Image.__version__))


if __name__ == "__main__":
    main()
