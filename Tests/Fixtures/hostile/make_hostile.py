#!/usr/bin/env python3
"""Write catctl's hostile-input fixtures: small files that ask a decoder for far more
work or memory than their size suggests (issue "Trust nothing at the edges", part 3,
"Unbounded work").  Each one is valid enough that a decoder must either do the work,
skip it, or refuse the file on a stated limit before doing it.

Pure Python 3 standard library (struct, zlib); no other file is read.  Usage (from
anywhere; files are written next to this script):

    python3 Tests/Fixtures/hostile/make_hostile.py

Deterministic and idempotent: a second run rewrites nothing (a file is only written
when its bytes change).  Every file is CC0.

GIF (LZW written by this script: `lzw_literal` sends every pixel as its own code;
`lzw_run` compresses one colour as far as an encoder that clears a full dictionary can,
codes for runs of 1, 2, 3, ... 3838 pixels then a clear, exactly as giflib writes it;
`garbage_codes` are a clear code followed by a dictionary code the clear just emptied,
which giflib refuses as "image is defective"):

gif-wide-frames.gif (373,780 bytes)  1x1525 screen, global table (black, white), 6
    frames: frame 1 is 1x1525 at (0,0), white, so the screen does not grow (only frame 1
    may grow it); frames 2-6 are 65535x1525 at (0,0), all white, ~73 KB each.  One pixel
    column is visible, but every row of a wider frame must be decompressed in full to
    reach the next: 1,525 + 5 x 99,940,875 = 499.7 MP of LZW for a 1525-pixel canvas.
    A decoder must refuse it on that work (more than the 100 MP default) or spend
    seconds per frame.
gif-outside-frames.gif (2,964 bytes)  16x16 screen, global table (black, red, green,
    blue), 5 frames: frame 1, the only visible one, is 16x16 at (0,0), a red/green
    checkerboard of 4x4 squares (red at the top left); frames 2-5 lie wholly outside the
    screen (8x8 at (16,0), 8x8 at (0,16), 8x8 at (300,300), 4000x20 at (0,40)) and their
    data is garbage (in well-formed sub-blocks).  Must decode: every composited frame is
    frame 1's picture, because frames off the screen are skipped without being
    decompressed.  No GCE (disposal 0), no loop extension.
gif-rows-below-screen.gif (940 bytes)  16x8 screen, the same table, 3 frames: frame 1 is
    16x8 blue; frame 2 is 8x64 red at (0,0), not interlaced, whose data is valid for its
    8 visible rows and garbage after them; frame 3 is 8x64 green at (8,0), interlaced,
    whose visible rows 0-7 end with the 4th row of pass 4, so its data is valid for the
    first 36 stored rows (passes 1-3 whole: 8 + 8 + 16 rows, then rows 1, 3, 5, 7) and
    garbage after.  Must decode: frame 2 = left half red, right half blue; frame 3 = left
    half red, right half green.  A decoder that decompresses rows below the screen meets
    the garbage and fails.

PNG:

png-many-ztxt.png (331,782 bytes)  32x32 RGB, 8-bit, a gradient (R = 8x, G = 8y,
    B = 128), with these chunks, in this order, between IHDR and IDAT:
      1. iTXt "XML:com.adobe.xmp", uncompressed: a 2,419-byte XMP packet (a
         dc:description and the customary 2 KB of padding);
      2. 20 zTXt "Description", each inflating to 8 MiB - 1 KiB (8,387,584 bytes of 'A',
         as much as libpng's 8 MiB chunk limit lets through);
      3. 20 zTXt "Comment", the same;
      4. tEXt "Comment": "a comment after the hostile chunks".
    335 MB of text once inflated, which libpng alone keeps (about 340 MB peak).  catctl
    reads only XMP and "Comment", under one 8 MiB budget for all the text it copies or
    inflates: the XMP survives (2,419 bytes); the "Description" chunks are skipped
    without inflating; the first zTXt "Comment" needs more than the 8 MiB - 2,419 bytes
    left, so it is dropped once it has spent the budget, and every later text chunk (the
    other 19 zTXt and the tEXt "Comment") is skipped unread.  Result: XMP present, no
    comment, the image decodes.

JPEG (written by this script: progressive, Huffman, one DC and one AC table, a flat
mid-grey image, every AC band sent as "EOB runs" of up to 32,767 blocks):

jpeg-many-scans-<N>.jpg  512x512 greyscale progressive JPEG with N scans in all: a DC
    first scan, an AC first scan (1-63, Al=1), then N - 2 AC refinement scans (1-63,
    Ah=1, Al=0) of the same band, 13 bytes each.  libjpeg warns that the progression is
    inconsistent after the first refinement and goes on, checking all 63 coefficients
    of all 4,096 blocks in every scan.  Every scan covers the whole image, so the scans
    cover it N times over.  The pixels are mid grey (128) whatever N is.
      N = 32 (1,034 bytes): as many passes as catctl allows (32): decodes.
      N = 33 (1,046 bytes): one pass over: refused before any scan is decoded.
      N = 500 (6,650 bytes): the most scans the 500-scan limit lets through; refused by
        the 32-pass limit (0.14 s here before, 57 s at 100 MP).
"""

import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    with open(path, "wb") as f:
        f.write(data)
    return True


def write_fixtures(folder, fixtures):
    """Writes each fixture (name -> bytes, or name -> a function making them) into `folder`
    where its bytes changed, and names it with its size."""
    for name, made in fixtures.items():
        data = made() if callable(made) else made
        changed = write_if_changed(os.path.join(folder, name), data)
        print("%-28s %8d bytes%s" % (name, len(data), "" if changed else " (unchanged)"))


# --------------------------------------------------------------------------
# GIF
# --------------------------------------------------------------------------

class BitsLSB:
    """Codes packed least significant bit first, as GIF's LZW wants them."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.bits = 0

    def put(self, code, width):
        self.acc |= code << self.bits
        self.bits += width
        while self.bits >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.bits -= 8

    def bytes(self):
        """The codes so far, the last byte padded with zero bits."""
        return bytes(self.out) + (bytes([self.acc & 0xFF]) if self.bits else b"")


def lzw_literal(indices, min_code_size, end_code=True, trailer=()):
    """LZW data whose codes are the pixel indices themselves: a clear code is sent
    before the dictionary would need a wider code, so every code is
    min_code_size + 1 bits.  Valid LZW, not compressed.  `trailer`: codes to send
    after the pixels (and before the end code, if any)."""
    clear = 1 << min_code_size
    width = min_code_size + 1
    per_clear = (1 << width) - clear - 2
    w = BitsLSB()
    w.put(clear, width)
    run = 0
    for i in indices:
        w.put(i, width)
        run += 1
        if run == per_clear:
            w.put(clear, width)
            run = 0
    for code in trailer:
        w.put(code, width)
    if end_code:
        w.put(clear + 1, width)
    return w.bytes()


def lzw_run(count, index, min_code_size=8):
    """LZW for `count` pixels of one colour, as a dictionary-clearing encoder (giflib's,
    say) writes it: after a clear, the n-th code stands for n pixels (the string the
    previous code added), so codes cover 1, 2, 3, ... pixels.  Code widths grow
    exactly as in giflib's encoder and decoder (one bit more once the next free code
    reaches 2^width), and the dictionary is cleared when the next free code reaches
    4095.  Returns the packed codes, ending with the end code."""
    clear = 1 << min_code_size
    end = clear + 1
    w = BitsLSB()
    width = min_code_size + 1
    next_code = end + 1
    k = 0  # codes written since the last clear
    w.put(clear, width)

    def emit(code, last):
        nonlocal width, next_code, k
        w.put(code, width)
        k += 1
        if next_code >= (1 << width) and width < 12:
            width += 1
        if last:
            return  # the encoder adds no string after its last code
        if next_code >= 4095:
            w.put(clear, width)
            width = min_code_size + 1
            next_code = end + 1
            k = 0
        else:
            next_code += 1

    left = count
    while left > 0:
        # The (k+1)-th code after a clear stands for k+1 pixels; a shorter final
        # string is any code already in the dictionary.
        n = min(k + 1, left)
        left -= n
        emit(index if n == 1 else end + 1 + (n - 2), left == 0)
    w.put(end, width)
    return w.bytes()


def lzw_reference(indices, min_code_size):
    """A plain dictionary LZW encoder with giflib's code-width and clear rules; used
    only to check `lzw_run` on small inputs."""
    clear = 1 << min_code_size
    end = clear + 1
    w = BitsLSB()
    width = min_code_size + 1
    next_code = end + 1
    table = {}
    w.put(clear, width)
    current = None
    for px in indices:
        if current is None:
            current = px
            continue
        key = (current, px)
        if key in table:
            current = table[key]
            continue
        w.put(current, width)
        if next_code >= (1 << width) and width < 12:
            width += 1
        if next_code >= 4095:
            w.put(clear, width)
            table = {}
            width = min_code_size + 1
            next_code = end + 1
        else:
            table[key] = next_code
            next_code += 1
        current = px
    w.put(current, width)
    if next_code >= (1 << width) and width < 12:
        width += 1
    w.put(end, width)
    return w.bytes()


def garbage_codes(min_code_size, pairs):
    """Codes no decoder can follow: a clear code, then the first dictionary code,
    which a clear has just emptied (giflib: "image is defective").  Repeated, so
    that the data goes on for several sub-blocks past the bad code."""
    clear = 1 << min_code_size
    return [clear, clear + 2] * pairs


def lzw_garbage(min_code_size, pairs):
    return lzw_literal([], min_code_size, end_code=False, trailer=garbage_codes(min_code_size, pairs))


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def gif_screen(width, height, colours):
    bits = max(1, (len(colours) - 1).bit_length())
    table = b"".join(bytes(c) for c in colours) + b"\0" * (3 * ((1 << bits) - len(colours)))
    return b"GIF89a" + struct.pack("<HH", width, height) + bytes([0x80 | 0x70 | (bits - 1), 0, 0]) + table


def gif_image(left, top, width, height, lzw, min_code_size, interlace=False):
    flags = 0x40 if interlace else 0
    return (b"\x2c" + struct.pack("<HHHH", left, top, width, height) + bytes([flags, min_code_size])
            + sub_blocks(lzw))


def interlaced_order(height):
    rows = []
    for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)):
        rows.extend(range(start, height, step))
    return rows


def gif_wide_frames():
    colours = [(0, 0, 0), (255, 255, 255)]
    out = bytearray(gif_screen(1, 1525, colours))
    out += gif_image(0, 0, 1, 1525, lzw_literal([1] * 1525, 2), 2)
    wide = lzw_run(65535 * 1525, 1, 8)
    for _ in range(5):
        out += gif_image(0, 0, 65535, 1525, wide, 8)
    out += b"\x3b"
    return bytes(out)


FOUR = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]


def gif_outside_frames():
    out = bytearray(gif_screen(16, 16, FOUR))
    checker = [1 if ((x // 4) + (y // 4)) % 2 == 0 else 2 for y in range(16) for x in range(16)]
    out += gif_image(0, 0, 16, 16, lzw_literal(checker, 2), 2)
    for n, (left, top, width, height) in enumerate(((16, 0, 8, 8), (0, 16, 8, 8), (300, 300, 8, 8),
                                                    (0, 40, 4000, 20))):
        out += gif_image(left, top, width, height, lzw_garbage(8, 300 + n), 8)
    out += b"\x3b"
    return bytes(out)


def rows_below_screen_data(width, height, visible, index, interlace):
    """Valid codes for the frame's storage rows up to and including the last one on
    the screen (the top `visible` rows are), then garbage where the rest would be."""
    order = interlaced_order(height) if interlace else list(range(height))
    last = max(i for i, r in enumerate(order) if r < visible)
    pixels = [index] * (width * (last + 1))
    return lzw_literal(pixels, 2, end_code=False, trailer=garbage_codes(2, 400))


def gif_rows_below_screen():
    out = bytearray(gif_screen(16, 8, FOUR))
    out += gif_image(0, 0, 16, 8, lzw_literal([3] * 128, 2), 2)
    out += gif_image(0, 0, 8, 64, rows_below_screen_data(8, 64, 8, 1, False), 2)
    out += gif_image(8, 0, 8, 64, rows_below_screen_data(8, 64, 8, 2, True), 2, interlace=True)
    out += b"\x3b"
    return bytes(out)


# --------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
       b' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
       b'  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
       b'   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">hostile: many zTXt chunks'
       b'</rdf:li></rdf:Alt></dc:description>\n'
       b'  </rdf:Description>\n'
       b' </rdf:RDF>\n'
       b'</x:xmpmeta>\n'
       + (b' ' * 99 + b'\n') * 20
       + b'<?xpacket end="w"?>')

TEXT_SIZE = 8 * 1024 * 1024 - 1024


def png_many_ztxt():
    width = height = 32
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw += bytes([8 * x, 8 * y, 128])
    hostile = zlib.compress(b"A" * TEXT_SIZE, 9)
    out = bytearray(b"\x89PNG\r\n\x1a\n")
    out += png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    out += png_chunk(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + XMP)
    for key in [b"Description"] * 20 + [b"Comment"] * 20:
        out += png_chunk(b"zTXt", key + b"\0\0" + hostile)
    out += png_chunk(b"tEXt", b"Comment\0a comment after the hostile chunks")
    out += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    out += png_chunk(b"IEND", b"")
    return bytes(out)


# --------------------------------------------------------------------------
# JPEG
# --------------------------------------------------------------------------

class BitsMSB:
    """Entropy-coded JPEG data: most significant bit first, 0xFF followed by a stuffed
    0x00, the last byte padded with one bits."""

    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.bits = 0

    def put(self, value, width):
        self.acc = (self.acc << width) | (value & ((1 << width) - 1))
        self.bits += width
        while self.bits >= 8:
            self.bits -= 8
            self._byte((self.acc >> self.bits) & 0xFF)
        self.acc &= (1 << self.bits) - 1

    def zeros(self, count):
        """`count` zero bits, fast."""
        while count and self.bits:
            self.put(0, 1)
            count -= 1
        self.out += b"\0" * (count // 8)
        self.put(0, count % 8) if count % 8 else None

    def _byte(self, b):
        self.out.append(b)
        if b == 0xFF:
            self.out.append(0)

    def bytes(self):
        if self.bits:
            pad = 8 - self.bits
            self.put((1 << pad) - 1, pad)
        return bytes(self.out)


def jpeg_segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


# AC table 0: the 15 end-of-band-run symbols EOB0..EOB14 (0x00, 0x10, .. 0xE0), every
# code 4 bits long, so EOBr's code is r.  DC table 0: the one symbol 0 (a DC
# difference of 0), code "0".
AC_SYMBOLS = bytes(r << 4 for r in range(15))


def jpeg_tables():
    dqt = jpeg_segment(0xDB, b"\x00" + b"\x01" * 64)
    dc_counts = bytes([1] + [0] * 15)
    ac_counts = bytes([0, 0, 0, 15] + [0] * 12)
    dht = jpeg_segment(0xC4, b"\x00" + dc_counts + b"\x00" + b"\x10" + ac_counts + AC_SYMBOLS)
    return dqt + dht


def eob_runs(blocks):
    """An AC scan of `blocks` blocks that are all zero in the band: EOB runs of at
    most 32,767 blocks (EOB14 plus 14 bits)."""
    w = BitsMSB()
    while blocks > 0:
        run = min(blocks, 32767)
        r = run.bit_length() - 1
        w.put(r, 4)
        if r:
            w.put(run - (1 << r), r)
        blocks -= run
    return w.bytes()


def sos(components, ss, se, ah, al):
    payload = bytes([len(components)])
    for c in components:
        payload += bytes([c, 0x00])  # DC table 0, AC table 0
    payload += bytes([ss, se, (ah << 4) | al])
    return jpeg_segment(0xDA, payload)


def progressive_jpeg(width, height, scans, subsampling="gray", extra="refine"):
    """A flat mid-grey progressive JPEG with `scans` scans in all (at least 3).

    gray: one component.  420: YCbCr, Y 2x2, Cb and Cr 1x1.  The first scans make a
    complete image: DC first (all components), then AC first 1-63 of each component
    with Al=1 ("refine") or Al=0.  The remaining scans are `extra` scans of
    component 1 (Y), each covering every one of its blocks:
      refine:  AC 1-63, Ah=1, Al=0 (libjpeg warns "bogus progression" after the
               first and checks all 63 coefficients of every block: the costliest);
      acfirst: AC 1-63, Ah=0, Al=0 again (a repeat libjpeg does not even warn about);
      empty:   AC 1-63, Ah=0, Al=0 with no data at all (libjpeg warns and fills the
               scan with zeros)."""
    if subsampling == "gray":
        comps = [(1, 1, 1)]
    else:
        comps = [(1, 2, 2), (2, 1, 1), (3, 1, 1)]
    hmax = max(c[1] for c in comps)
    vmax = max(c[2] for c in comps)
    sof = struct.pack(">BHHB", 8, height, width, len(comps))
    for cid, h, v in comps:
        sof += bytes([cid, (h << 4) | v, 0])
    out = bytearray(b"\xff\xd8")
    out += jpeg_tables()
    out += jpeg_segment(0xC2, sof)

    def blocks_of(h, v):
        cw = -(-width * h // hmax)
        ch = -(-height * v // vmax)
        return -(-cw // 8) * -(-ch // 8)

    # DC first: one bit ("0": difference 0) per block; interleaved when there are
    # several components, so MCU padding blocks count too.
    if len(comps) == 1:
        dc_blocks = blocks_of(1, 1)
    else:
        mcus = -(-width // (8 * hmax)) * -(-height // (8 * vmax))
        dc_blocks = mcus * sum(h * v for _, h, v in comps)
    w = BitsMSB()
    w.zeros(dc_blocks)
    out += sos([c[0] for c in comps], 0, 0, 0, 0) + w.bytes()
    al = 1 if extra == "refine" else 0
    used = 1
    for cid, h, v in comps:
        out += sos([cid], 1, 63, 0, al) + eob_runs(blocks_of(h, v))
        used += 1
    y_blocks = blocks_of(comps[0][1], comps[0][2])
    data = eob_runs(y_blocks)
    for _ in range(scans - used):
        if extra == "refine":
            out += sos([1], 1, 63, 1, 0) + data
        elif extra == "acfirst":
            out += sos([1], 1, 63, 0, 0) + data
        else:
            out += sos([1], 1, 63, 0, 0)
    out += b"\xff\xd9"
    return bytes(out)


# Scan counts for the jpeg-many-scans-<N>.jpg files.
JPEG_SCAN_COUNTS = (32, 33, 500)


# --------------------------------------------------------------------------

def check_lzw_run():
    """`lzw_run` against the plain encoder, around the code-width steps and clears
    (3838 codes after a clear cover 7,368,441 pixels).  Slow: --check only."""
    for count in (1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 255, 256, 4000, 9000,
                  7368440, 7368441, 7368442, 7372280, 7372281):
        for size, index in ((8, 5), (2, 1)):
            if lzw_run(count, index, size) != lzw_reference([index] * count, size):
                raise SystemExit("lzw_run disagrees with the reference for %d pixels (code size %d)"
                                 % (count, size))
    print("lzw_run agrees with the reference encoder")


def main():
    if "--check" in sys.argv:
        check_lzw_run()
    files = {
        "gif-wide-frames.gif": gif_wide_frames(),
        "gif-outside-frames.gif": gif_outside_frames(),
        "gif-rows-below-screen.gif": gif_rows_below_screen(),
        "png-many-ztxt.png": png_many_ztxt(),
    }
    for n in JPEG_SCAN_COUNTS:
        files["jpeg-many-scans-%d.jpg" % n] = progressive_jpeg(512, 512, n)
    write_fixtures(HERE, files)


if __name__ == "__main__":
    main()
