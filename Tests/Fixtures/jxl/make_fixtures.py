#!/usr/bin/env python3
"""Generate catctl's JPEG XL test fixtures and their reference decodes.

catctl decodes and encodes JPEG XL through the system libjxl (Debian 12: 0.7.0)
behind Sources/CJXLShim. The files here are ENCODED by cjxl and the expected
pixels of lossy files are DECODED by djxl (both from Debian's libjxl-tools
0.7.0, the same library version -- libjxl has no independent decoder in
Debian); expected pixels of lossless files are the source images themselves.
Source images come from Pillow (13.0.0 when this was written); the Display P3
ICC profile is built with the system lcms2 (2.14) through ctypes.

Usage (from anywhere; paths are relative to this script's folder,
Tests/Fixtures/jxl, and the only input is ../photos/chelsea.png):

    python3 Tests/Fixtures/jxl/make_fixtures.py

Needs: python3 with Pillow, cjxl/djxl (apt-get install libjxl-tools),
liblcms2-2. The script is idempotent: a file is rewritten only when its bytes
change, and with the same tool versions the bytes do not change. Intermediate
files go to a temporary folder and are deleted.

Source images
-------------
CAT     chelsea.png resized (LANCZOS) to 64x48, RGB, its ICC profile dropped
        (so it is plain sRGB).
CAT_A   CAT as RGBA, alpha = horizontal ramp (x*255//63) times a vertical one
        (y*255//47)/255, plus a fully transparent 16x12 block at (40, 30)
        whose RGB stays the cat's (non-zero): lossless must keep it.
CAT16   CAT as 16-bit RGB (each 8-bit value v scaled to v*257, then a small
        x/y dependent offset (x*37 + y*101) % 257 added so the low byte
        matters; still < 65536).
FRAMES  four 48x32 RGBA frames: CAT resized (LANCZOS) to 48x32, opaque, then
          0: the plain cat
          1: + an opaque red 10x10 square at (6, 6)
          2: + the square moved to (24, 12) and a semi-transparent
               (alpha 128) blue 16x8 bar at (2, 20)
          3: + a fully transparent 12x12 hole at (30, 2) (RGB 0) on frame 2
        and in frame i the corner pixels (0,0) = (60i, 255-60i, 7) and
        (47,31) = (255-60i, 60i, 9), opaque, so every APNG frame is full size
        (cjxl 0.7 mishandles Pillow's cropped APNG sub-frames).
        durations 100/250/40/500 ms, loop count 2, as an APNG (cjxl 0.7 does
        not carry the APNG loop count over: the .jxl says 0 = forever).

Outputs
-------
lossless.jxl            CAT, cjxl -d 0 (bare codestream, FF 0A).
                        expected: lossless.expected.png (= CAT as RGBA).
lossless-alpha.jxl      CAT_A, cjxl -d 0 (keep_invisible defaults to 1).
                        expected: lossless-alpha.expected.png (= CAT_A).
container.jxl           CAT, cjxl -d 0 --container=1 (JXL / ftyp / jxlc boxes).
                        expected: lossless.expected.png.
lossy.jxl               CAT, cjxl -d 1.0 (VarDCT, XYB).
                        expected: lossy.expected.png = djxl --bits_per_sample=8,
                        as RGBA.
lossy-alpha.jxl         CAT_A, cjxl -d 1.5. expected: djxl decode (RGBA).
sixteen.jxl             CAT16 as a 16-bit PNG, cjxl -d 0 (16-bit lossless).
                        expected: sixteen.expected.png = the 16-bit source
                        rounded to 8 bits, (v*255 + 32767) // 65535, RGBA
                        (djxl 0.7 --bits_per_sample=8 writes wrong values for
                        this file, so it is not the reference here).
animated.jxl            FRAMES as APNG, cjxl -d 0: 4 frames, 100/250/40/500 ms
                        (ticks of 1/1000 s), loop 0 (forever; see above).
                        expected: animated.frameN.png = FRAMES[N] (RGBA), which
                        the coalesced frames must equal exactly.
p3.jxl                  CAT tagged with a Display P3 ICC profile (lcms2:
                        P3 primaries, D65, sRGB curve; description
                        "catctl Display P3"), cjxl -d 0.
                        expected pixels: lossless.expected.png; lossless
                        keeps the ICC profile as is, so a decoder returns
                        exactly display-p3.icc (the profile that went in).
p3-lossy.jxl            the same, cjxl -d 1.0 (XYB): cjxl stores the space as
                        an enumerated encoding (P3 primaries, D65, sRGB curve),
                        and libjxl outputs the pixels in P3 with a generated
                        P3 profile (732 bytes, equal to djxl --icc_out).
                        expected: p3-lossy.expected.png = djxl 8-bit decode.
metadata.jxl            container written by this script around the codestream
                        of lossless.jxl: JXL , ftyp, "Exif" (4-byte zero offset
                        + big-endian TIFF from Pillow: Orientation 1, Artist
                        "catctl test", Copyright "CC0 catctl fixtures"), jxlc,
                        then "xml " (an XMP packet) AFTER the codestream.
                        metadata.exif.bin / metadata.xmp.xml are the payloads
                        a decoder must return (EXIF without the offset).
jpeg-recompressed.jxl   cjxl lossless JPEG transcode of a 64x48 JPEG (CAT,
                        quality 90) carrying EXIF Orientation 6 and XMP: the
                        orientation moves into the codestream header, EXIF and
                        XMP become Brotli-compressed "brob" boxes, plus "jbrd".
                        expected: jpeg-recompressed.expected.png = djxl pixel
                        decode to 8-bit PNG (48x64: orientation applied).
                        jpeg-recompressed.xmp.xml is the XMP that went in.
huge.jxl                crafted 16-byte bare codestream whose SizeHeader
                        declares 1000000 x 1000000 (then default image
                        metadata, then nothing): must be refused on the
                        declared size, before any pixel memory.
manifest.json           per file: size, frames, durations, loop, alpha, and the
                        tool versions.
"""
import ctypes
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw
import PIL

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, '..', 'photos', 'chelsea.png')

XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
       b'<dc:creator>catctl fixtures</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>'
       b'<?xpacket end="w"?>')


def write(name, data):
    path = os.path.join(HERE, name)
    if os.path.exists(path) and open(path, 'rb').read() == data:
        return
    with open(path, 'wb') as f:
        f.write(data)
    print('wrote', name, len(data), 'bytes')


def png_bytes(im):
    b = io.BytesIO()
    im.save(b, 'PNG', optimize=True)
    return b.getvalue()


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tool_version(tool):
    out = subprocess.run([tool, '--version'], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else tool


def display_p3_icc():
    """A small Display P3 profile from lcms2 (ctypes), creation date pinned."""
    lcms = ctypes.CDLL('liblcms2.so.2')

    class xyY(ctypes.Structure):
        _fields_ = [('x', ctypes.c_double), ('y', ctypes.c_double), ('Y', ctypes.c_double)]

    class xyYTriple(ctypes.Structure):
        _fields_ = [('Red', xyY), ('Green', xyY), ('Blue', xyY)]

    lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
    lcms.cmsBuildParametricToneCurve.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
    lcms.cmsCreateRGBProfile.argtypes = [ctypes.POINTER(xyY), ctypes.POINTER(xyYTriple), ctypes.c_void_p * 3]
    lcms.cmsMLUalloc.restype = ctypes.c_void_p
    lcms.cmsMLUalloc.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    lcms.cmsMLUsetASCII.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    lcms.cmsWriteTag.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p]
    lcms.cmsSetProfileVersion.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lcms.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint)]
    lcms.cmsCloseProfile.argtypes = [ctypes.c_void_p]
    lcms.cmsFreeToneCurve.argtypes = [ctypes.c_void_p]
    lcms.cmsMLUfree.argtypes = [ctypes.c_void_p]

    params = (ctypes.c_double * 5)(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
    curve = lcms.cmsBuildParametricToneCurve(None, 4, params)
    white = xyY(0.3127, 0.3290, 1.0)
    prim = xyYTriple(xyY(0.680, 0.320, 1.0), xyY(0.265, 0.690, 1.0), xyY(0.150, 0.060, 1.0))
    curves = (ctypes.c_void_p * 3)(curve, curve, curve)
    h = lcms.cmsCreateRGBProfile(ctypes.byref(white), ctypes.byref(prim), curves)
    lcms.cmsSetProfileVersion(h, 2.1)
    for sig, text in ((0x64657363, b'catctl Display P3'), (0x63707274, b'CC0')):  # desc, cprt
        mlu = lcms.cmsMLUalloc(None, 1)
        lcms.cmsMLUsetASCII(mlu, b'en', b'US', text)
        lcms.cmsWriteTag(h, sig, mlu)
        lcms.cmsMLUfree(mlu)
    size = ctypes.c_uint(0)
    lcms.cmsSaveProfileToMem(h, None, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lcms.cmsSaveProfileToMem(h, buf, ctypes.byref(size))
    lcms.cmsCloseProfile(h)
    lcms.cmsFreeToneCurve(curve)
    data = bytearray(buf.raw[:size.value])
    data[24:36] = struct.pack('>6H', 2025, 1, 1, 0, 0, 0)  # dateTimeNumber
    data[84:100] = bytes(16)                              # no profile ID
    return bytes(data)


def box(typ, payload):
    return struct.pack('>I', 8 + len(payload)) + typ + payload


class Bits:
    """JPEG XL bit writer: least significant bit first."""

    def __init__(self):
        self.value, self.n = 0, 0

    def put(self, v, count):
        self.value |= v << self.n
        self.n += count

    def bytes(self):
        return self.value.to_bytes((self.n + 7) // 8, 'little')


def huge_codestream():
    b = Bits()
    b.put(0, 1)          # SizeHeader.small = false
    b.put(3, 2)          # ysize_minus_1: U32 selector 3 = Bits(30)
    b.put(1000000 - 1, 30)
    b.put(0, 3)          # ratio 0: xsize follows
    b.put(3, 2)
    b.put(1000000 - 1, 30)
    b.put(1, 1)          # ImageMetadata.all_default
    return b'\xff\x0a' + b.bytes() + bytes(4)


def main():
    if not os.path.exists(PHOTO):
        sys.exit('missing ' + PHOTO)
    tmp = tempfile.mkdtemp(prefix='jxlfix')
    try:
        make(tmp)
    finally:
        shutil.rmtree(tmp)


def make(tmp):
    t = lambda name: os.path.join(tmp, name)
    manifest = {'tools': {'cjxl': tool_version('cjxl'), 'djxl': tool_version('djxl'),
                          'Pillow': PIL.__version__}, 'files': {}}
    src = Image.open(PHOTO).convert('RGB')
    cat = src.resize((64, 48), Image.LANCZOS)
    cat = Image.frombytes('RGB', cat.size, cat.tobytes())  # no ICC / info
    cat.save(t('cat.png'))
    write('lossless.expected.png', png_bytes(cat.convert('RGBA')))

    cat_a = cat.convert('RGBA')
    px = cat_a.load()
    for y in range(48):
        for x in range(64):
            r, g, b, _ = px[x, y]
            a = (x * 255 // 63) * (y * 255 // 47) // 255
            if 40 <= x < 56 and 30 <= y < 42:
                a = 0
            px[x, y] = (r, g, b, a)
    cat_a.save(t('cat_a.png'))
    write('lossless-alpha.expected.png', png_bytes(cat_a))

    # 16-bit RGB PNG: Pillow cannot write 16-bit RGB, so assemble it by hand.
    import zlib
    raw = bytearray()
    cpx = cat.load()
    for y in range(48):
        raw.append(0)
        for x in range(64):
            for c in cpx[x, y]:
                raw += struct.pack('>H', min(65535, c * 257 + (x * 37 + y * 101) % 257))
    def chunk(typ, data):
        return struct.pack('>I', len(data)) + typ + data + struct.pack('>I', zlib.crc32(typ + data))
    png16 = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 64, 48, 16, 2, 0, 0, 0)) +
             chunk(b'IDAT', zlib.compress(bytes(raw), 9)) + chunk(b'IEND', b''))
    open(t('cat16.png'), 'wb').write(png16)

    def cjxl(inp, out, *opts):
        run('cjxl', t(inp), t(out), '--num_threads=0', *opts)
        data = open(t(out), 'rb').read()
        write(out, data)
        return data

    def djxl8(name, expected):
        run('djxl', os.path.join(HERE, name), t('dec.png'), '--bits_per_sample=8', '--num_threads=0')
        im = Image.open(t('dec.png'))
        im.load()
        write(expected, png_bytes(im.convert('RGBA')))

    lossless = cjxl('cat.png', 'lossless.jxl', '-d', '0')
    cjxl('cat_a.png', 'lossless-alpha.jxl', '-d', '0')
    cjxl('cat.png', 'container.jxl', '-d', '0', '--container=1')
    cjxl('cat.png', 'lossy.jxl', '-d', '1.0')
    djxl8('lossy.jxl', 'lossy.expected.png')
    cjxl('cat_a.png', 'lossy-alpha.jxl', '-d', '1.5')
    djxl8('lossy-alpha.jxl', 'lossy-alpha.expected.png')
    cjxl('cat16.png', 'sixteen.jxl', '-d', '0')
    # djxl 0.7's --bits_per_sample=8 PNG of this file is garbage (not a rounding
    # of the 16-bit values), so the reference is computed from the source.
    exp16 = Image.new('RGBA', (64, 48))
    epx = exp16.load()
    for y in range(48):
        for x in range(64):
            vals = [min(65535, c * 257 + (x * 37 + y * 101) % 257) for c in cpx[x, y]]
            epx[x, y] = tuple((v * 255 + 32767) // 65535 for v in vals) + (255,)
    write('sixteen.expected.png', png_bytes(exp16))

    # Animation
    base = cat.resize((48, 32), Image.LANCZOS).convert('RGBA')
    f0 = base.copy()
    f1 = base.copy(); ImageDraw.Draw(f1).rectangle((6, 6, 15, 15), fill=(255, 0, 0, 255))
    f2 = base.copy(); d = ImageDraw.Draw(f2)
    d.rectangle((24, 12, 33, 21), fill=(255, 0, 0, 255))
    bar = Image.new('RGBA', (16, 8), (0, 0, 255, 128))
    f2.paste(bar, (2, 20))  # paste replaces: the bar pixels are (0,0,255,128)
    f3 = f2.copy(); f3.paste(Image.new('RGBA', (12, 12), (0, 0, 0, 0)), (30, 2))
    frames = [f0, f1, f2, f3]
    # Pillow crops each APNG frame to the box that changed (blend "source",
    # dispose "none"), and cjxl 0.7 converts such sub-frames wrongly (the rest
    # of the canvas becomes transparent instead of keeping the previous frame).
    # Corner pixels that change in every frame keep every frame full-size.
    for i, f in enumerate(frames):
        f.putpixel((0, 0), (i * 60, 255 - i * 60, 7, 255))
        f.putpixel((47, 31), (255 - i * 60, i * 60, 9, 255))
    durations = [100, 250, 40, 500]
    frames[0].save(t('anim.png'), save_all=True, append_images=frames[1:], duration=durations, loop=2,
                   disposal=0, blend=0)
    cjxl('anim.png', 'animated.jxl', '-d', '0')
    for i, f in enumerate(frames):
        write('animated.frame%d.png' % i, png_bytes(f))

    # Display P3
    icc = display_p3_icc()
    write('display-p3.icc', icc)
    cat.save(t('p3.png'), icc_profile=icc)
    cjxl('p3.png', 'p3.jxl', '-d', '0')
    cjxl('p3.png', 'p3-lossy.jxl', '-d', '1.0')
    djxl8('p3-lossy.jxl', 'p3-lossy.expected.png')

    # Metadata boxes around lossless.jxl's codestream
    exif = Image.Exif()
    exif[0x0112] = 1
    exif[0x013B] = 'catctl test'
    exif[0x8298] = 'CC0 catctl fixtures'
    tiff = exif.tobytes()  # "Exif\0\0" + TIFF
    assert tiff.startswith(b'Exif\x00\x00')
    tiff = tiff[6:]
    write('metadata.exif.bin', tiff)
    write('metadata.xmp.xml', XMP)
    meta = (box(b'JXL ', b'\r\n\x87\n') + box(b'ftyp', b'jxl \x00\x00\x00\x00jxl ') +
            box(b'Exif', bytes(4) + tiff) + box(b'jxlc', lossless) + box(b'xml ', XMP))
    write('metadata.jxl', meta)

    # JPEG recompression with orientation 6, EXIF and XMP (brob boxes)
    ex6 = Image.Exif()
    ex6[0x0112] = 6
    ex6[0x013B] = 'catctl test'
    cat.save(t('meta.jpg'), quality=90, exif=ex6.tobytes(), xmp=XMP)
    cjxl('meta.jpg', 'jpeg-recompressed.jxl', '--lossless_jpeg=1')
    djxl8('jpeg-recompressed.jxl', 'jpeg-recompressed.expected.png')
    write('jpeg-recompressed.xmp.xml', XMP)

    write('huge.jxl', huge_codestream())

    files = manifest['files']
    for name, w, h, alpha, lossless_ in (('lossless.jxl', 64, 48, 0, 1), ('lossless-alpha.jxl', 64, 48, 1, 1),
                                         ('container.jxl', 64, 48, 0, 1), ('lossy.jxl', 64, 48, 0, 0),
                                         ('lossy-alpha.jxl', 64, 48, 1, 0), ('sixteen.jxl', 64, 48, 0, 1),
                                         ('p3.jxl', 64, 48, 0, 1), ('p3-lossy.jxl', 64, 48, 0, 0),
                                         ('metadata.jxl', 64, 48, 0, 1), ('jpeg-recompressed.jxl', 48, 64, 0, 0)):
        files[name] = {'width': w, 'height': h, 'alpha': alpha, 'lossless': lossless_, 'frames': 1}
    files['animated.jxl'] = {'width': 48, 'height': 32, 'alpha': 1, 'lossless': 1, 'frames': 4,
                             'durations_ms': durations, 'loop': 0}
    files['huge.jxl'] = {'width': 1000000, 'height': 1000000, 'error': 'LIMIT'}
    write('manifest.json', (json.dumps(manifest, indent=1, sort_keys=True) + '\n').encode())


if __name__ == '__main__':
    main()
