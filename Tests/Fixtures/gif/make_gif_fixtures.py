#!/usr/bin/env python3
"""Generate catctl's GIF test fixtures and their expected decodes.

catctl decodes GIF with giflib (through Sources/CGIFShim) and composites frames the
way browsers do.  The fixtures here are written by Pillow, or assembled byte by byte
by this script for cases Pillow never writes; the expected decodes come from Pillow's
own GIF decoder (independent of giflib) or, where Pillow deliberately differs from
browsers, from the small compositing model in this script (`composite` below).

Made with Pillow 13.0.0.  Usage (from anywhere; paths are relative to this folder):

    python3 Tests/Fixtures/gif/make_gif_fixtures.py

Only Pillow and the standard library are needed; the script reads no other file.
It is idempotent: running it again rewrites identical files (files are only
rewritten when their bytes change).

Outputs (all in this folder)
----------------------------
<name>.expected.png   for every file that must decode: an RGBA PNG holding every
    frame of the composited canvas, stacked top to bottom (frame 0 at the top;
    height = frames x screen height).  Pixels with alpha 0 are stored as
    (0, 0, 0, 0), which is what catctl's decoder produces; a test may compare the
    whole RGBA, or (as against Pillow directly) colour only where alpha is 255.
manifest.json   one entry per .gif: width, height (canvas), frames, delays_ms,
    loop (-1: no looping extension), has_alpha (some frame has a transparent
    index or does not cover the whole canvas -- the cg_info definition),
    expected (file name or null), reference ("pillow" | "model" | null),
    error (null | "truncated" | "corrupt" | "limit"), error_at ("scan" or
    "frame N", 1-based, as decoding proceeds), note.

Written by Pillow (reference = Pillow's decode: im.seek(i); im.convert("RGBA")):
anim-delays-loop.gif      48x32, 5 frames: sky/ground background with a red
    square moving and changing size.  Pillow's optimizer stores frames 2-5 as
    sub-rectangles of different sizes with a local 4-colour table and a
    transparent index; delays 100, 200, 50, 300, 150 ms; loop = 3.
anim-transparent.gif      40x40 RGBA, 4 frames: a yellow disc moving over a fully
    transparent background, a blue 6x6 corner square on frames 1 and 3 only;
    disposal 2 on every frame; 80 ms each; loop = 0 (forever).
anim-local-palettes.gif   24x24, 3 frames of red, green and blue stripes: frame 1
    uses the global colour table, frames 2 and 3 carry local tables; 100 ms each;
    no looping extension (loop = -1).
still-interlaced.gif      37x29 single frame, interlaced (4-pass row order), the
    cat (photos/chelsea.png) resized and quantized to 64 colours; no GCE.
still-global-palette.gif  33x21 single frame, not interlaced, the cat quantized to
    16 colours, global colour table only; no GCE, no looping extension.

Assembled by this script (reference = `composite`, browser semantics):
edge-dispose-previous.gif 16x16 global 8-colour table, 4 frames: 1 full red
    (disposal 1); 2 green 8x8 at (4,4), disposal 3 (restore previous); 3 blue 4x4
    at (0,0) with a transparent pixel, disposal 2 (clear to transparent); 4 white
    and yellow 6x6 at (10,10) over what is left.  Delays 10..40 ms; loop = 2.
    Pillow agrees on frames 1-3 (checked); for frame 4 it fills frame 3's
    rectangle with colour 7 (grey, opaque) where browsers clear it.
edge-clipped-frames.gif   16x12 screen: frame 1 full; frame 2 10x8 at (10,8),
    interlaced, sticking out right and below (clipped to 6x4); frame 3 4x4 at
    (20,20), wholly outside (draws nothing).  Pillow grows its canvas for such
    frames instead, so the model is the reference.
edge-bad-index.gif        8x2, 2-colour global table, pixel indices up to 7:
    indices beyond the table are opaque black.  Pillow agrees (checked).
edge-no-trailer.gif       6x4 single frame with the trailer byte missing; decodes
    normally.  Pillow agrees (checked).
edge-short-data.gif       8x6, 2 frames whose pixel data stops early: frame 1
    after 3 rows with an LZW end code, frame 2 (offset (0,2)) after 2 rows
    because its data blocks run out mid-row.  The rows not decoded (and the cut
    row) are left undrawn, as browsers do.  Pillow raises "image file is
    truncated" instead.
edge-zero-screen.gif      logical screen 0x0 with one 6x4 frame: the canvas grows
    to 6x4 to hold the first frame (browsers and Pillow do the same; checked).

Must be rejected (no expected image):
bad-truncated.gif         anim-delays-loop.gif cut in the middle of frame 3's
    pixel data -> "truncated" at scan.
bad-no-colour-table.gif   a frame with neither a local nor a global colour table
    -> "corrupt" at frame 1.
bad-huge-screen.gif       a 65535x65535 screen (4295 MP) holding a 1x1 frame
    -> "limit" at scan for any pixel limit below that; 35 bytes.
bad-no-image.gif          header, looping extension and trailer, no image
    -> "corrupt" at scan.
bad-lzw-code-size.gif     a frame whose LZW minimum code size is 12 (> 8)
    -> "corrupt" at scan.
"""

import io
import json
import os
import struct
import sys

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
CHELSEA = os.path.join(HERE, "..", "photos", "chelsea.png")


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    with open(path, "wb") as f:
        f.write(data)


# --------------------------------------------------------------------------
# a minimal GIF writer for the hand-assembled files
# --------------------------------------------------------------------------

def lzw_literal(indices, min_code_size, end_code=True):
    """LZW data whose codes are the pixel indices themselves.

    A clear code is sent often enough that the decoder's dictionary never
    grows past the current code width, so every code is min_code_size + 1
    bits.  Valid LZW, just not compressed."""
    clear = 1 << min_code_size
    width = min_code_size + 1
    per_clear = (1 << width) - clear - 2  # codes before the width would grow
    codes = [clear]
    run = 0
    for i in indices:
        codes.append(i)
        run += 1
        if run == per_clear:
            codes.append(clear)
            run = 0
    if end_code:
        codes.append(clear + 1)
    out = bytearray()
    acc = bits = 0
    for c in codes:
        acc |= c << bits
        bits += width
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    return bytes(out)


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def colour_table(colours):
    """Packed-field size bits and the table bytes (padded to a power of two)."""
    bits = max(1, (len(colours) - 1).bit_length())
    data = b"".join(bytes(c) for c in colours) + b"\0" * (3 * ((1 << bits) - len(colours)))
    return bits - 1, data


def screen(width, height, colours=None):
    head = b"GIF89a" + struct.pack("<HH", width, height)
    if colours is None:
        return head + bytes([0x70, 0, 0])
    size, table = colour_table(colours)
    return head + bytes([0x80 | 0x70 | size, 0, 0]) + table


def gce(disposal=0, delay_cs=0, transparent=None):
    flags = (disposal << 2) | (1 if transparent is not None else 0)
    return (b"\x21\xf9\x04" + bytes([flags]) + struct.pack("<H", delay_cs)
            + bytes([transparent if transparent is not None else 0]) + b"\0")


def loop_extension(count):
    return b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", count) + b"\0"


def interlaced_order(height):
    rows = []
    for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)):
        rows.extend(range(start, height, step))
    return rows


def image(left, top, width, height, indices, colours=None, interlace=False,
          min_code_size=None, lzw=None):
    """An image descriptor with its data; `indices` are row-major, top row first."""
    flags = 0x40 if interlace else 0
    table = b""
    if colours is not None:
        size, table = colour_table(colours)
        flags |= 0x80 | size
    if min_code_size is None:
        min_code_size = max(2, max(indices, default=0).bit_length())
    if lzw is None:
        order = interlaced_order(height) if interlace else range(height)
        stream = [indices[r * width + x] for r in order for x in range(width)]
        lzw = lzw_literal(stream, min_code_size)
    return (b"\x2c" + struct.pack("<HHHH", left, top, width, height) + bytes([flags])
            + table + bytes([min_code_size]) + sub_blocks(lzw))


# --------------------------------------------------------------------------
# the compositing model (browser semantics, as catctl implements them)
# --------------------------------------------------------------------------

def composite(width, height, frames):
    """frames: dicts with left, top, w, h, indices, palette, transparent, disposal,
    and optionally rows (how many rows, in storage order, decode).  Returns one RGBA
    Image per frame.  The canvas starts transparent; before each frame the
    previous frame's disposal applies (2: its rectangle becomes transparent,
    3 or 4: the canvas goes back to what it was before that frame); indices
    beyond the palette are opaque black; the transparent index draws nothing;
    everything is clipped to the canvas."""
    canvas = [(0, 0, 0, 0)] * (width * height)
    out = []
    previous = None
    for f in frames:
        if previous:
            disposal, rect, saved = previous
            x0, y0, x1, y1 = rect
            if disposal == 2:
                for y in range(y0, y1):
                    for x in range(x0, x1):
                        canvas[y * width + x] = (0, 0, 0, 0)
            elif disposal in (3, 4):
                canvas = saved
        x0, y0 = min(f["left"], width), min(f["top"], height)
        x1, y1 = min(f["left"] + f["w"], width), min(f["top"] + f["h"], height)
        saved = list(canvas)
        order = interlaced_order(f["h"]) if f.get("interlace") else list(range(f["h"]))
        for r in order[:f.get("rows", f["h"])]:
            y = f["top"] + r
            if y >= y1:
                continue
            for x in range(x0, x1):
                i = f["indices"][r * f["w"] + (x - f["left"])]
                if i == f.get("transparent"):
                    continue
                rgb = f["palette"][i] if i < len(f["palette"]) else (0, 0, 0)
                canvas[y * width + x] = tuple(rgb) + (255,)
        previous = (f.get("disposal", 0), (x0, y0, x1, y1), saved)
        img = Image.new("RGBA", (width, height))
        img.putdata(canvas)
        out.append(img)
    return out


# --------------------------------------------------------------------------
# expected decodes and the manifest
# --------------------------------------------------------------------------

def pillow_decode(data):
    """Frames (RGBA, alpha-0 pixels zeroed), delays in ms, loop (-1 when absent)."""
    im = Image.open(io.BytesIO(data))
    frames, delays = [], []
    for i in range(im.n_frames):
        im.seek(i)
        frames.append(zero_transparent(im.convert("RGBA")))
        delays.append(im.info.get("duration", 0))
    loop = im.info.get("loop")
    return frames, delays, -1 if loop is None else loop


def zero_transparent(rgba):
    return Image.frombytes("RGBA", rgba.size, bytes(
        b for px in zip(*[iter(rgba.tobytes())] * 4) for b in (px if px[3] else (0, 0, 0, 0))))


def same_pixels(a, b):
    return a.size == b.size and a.tobytes() == b.tobytes()


def stack(frames):
    w, h = frames[0].size
    tall = Image.new("RGBA", (w, h * len(frames)))
    for i, f in enumerate(frames):
        tall.paste(f, (0, i * h))
    return tall


def png_bytes(im):
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=False, compress_level=9)
    return buf.getvalue()


def blocks_info(data):
    """Walks the blocks: canvas size, loop, has_alpha (cg_info's definitions)."""
    w, h, flags = struct.unpack("<HHB", data[6:11])
    pos = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
    loop, rects, transparent, first = -1, [], False, True
    while pos < len(data) and data[pos] != 0x3B:
        kind = data[pos]
        pos += 1
        if kind == 0x21:
            label = data[pos]
            pos += 1
            subs = []
            while data[pos]:
                subs.append(data[pos + 1:pos + 1 + data[pos]])
                pos += 1 + data[pos]
            pos += 1
            if label == 0xF9 and subs[0][0] & 1:
                transparent = True
            if label == 0xFF and subs[0] == b"NETSCAPE2.0" and loop < 0:
                loop = subs[1][1] | subs[1][2] << 8
        else:
            left, top, fw, fh, fl = struct.unpack("<HHHHB", data[pos:pos + 9])
            pos += 9 + (3 * (2 << (fl & 7)) if fl & 0x80 else 0) + 1
            while data[pos]:
                pos += 1 + data[pos]
            pos += 1
            if first:
                w, h, first = max(w, left + fw), max(h, top + fh), False
            rects.append((left, top, fw, fh))
    covers = all(r[0] == 0 and r[1] == 0 and r[2] >= w and r[3] >= h for r in rects)
    return w, h, loop, transparent or not covers


MANIFEST = {}


def emit(name, data, frames=None, delays=None, reference=None, error=None, error_at=None, note=""):
    assert len(data) < 30000, name
    write_if_changed(os.path.join(HERE, name), data)
    entry = dict(note=note, reference=reference, error=error, error_at=error_at, expected=None)
    if frames is not None:
        w, h, loop, has_alpha = blocks_info(data)
        assert frames[0].size == (w, h), (name, frames[0].size, (w, h))
        expected = name[:-4] + ".expected.png"
        write_if_changed(os.path.join(HERE, expected), png_bytes(stack(frames)))
        entry.update(width=w, height=h, frames=len(frames), delays_ms=delays, loop=loop,
                     has_alpha=has_alpha, expected=expected)
    MANIFEST[name] = entry


# --------------------------------------------------------------------------
# the fixtures
# --------------------------------------------------------------------------

def save_gif(frames, **options):
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=len(frames) > 1, append_images=frames[1:], **options)
    return buf.getvalue()


def pillow_fixture(name, data, note):
    frames, delays, _ = pillow_decode(data)
    emit(name, data, frames, delays, reference="pillow", note=note)
    return data


def generate_pillow_made():
    squares = [(4, 4, 10), (14, 6, 6), (24, 10, 14), (30, 2, 4), (8, 16, 8)]
    frames = []
    for x, y, s in squares:
        im = Image.new("RGB", (48, 32), (120, 180, 230))
        d = ImageDraw.Draw(im)
        d.rectangle((0, 22, 47, 31), fill=(60, 140, 60))
        d.rectangle((x, y, x + s - 1, y + s - 1), fill=(220, 40, 40))
        frames.append(im)
    anim = save_gif(frames, duration=[100, 200, 50, 300, 150], loop=3)
    pillow_fixture("anim-delays-loop.gif", anim, "sub-rectangle frames, local tables, delays, loop 3")

    frames = []
    for i in range(4):
        im = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        d.ellipse((2 + i * 8, 4 + i * 5, 16 + i * 8, 18 + i * 5), fill=(250, 200, 0, 255))
        if i % 2 == 0:
            d.rectangle((0, 0, 5, 5), fill=(0, 0, 255, 255))
        frames.append(im)
    pillow_fixture("anim-transparent.gif", save_gif(frames, duration=80, loop=0, disposal=2),
                   "transparency with disposal 2, loop forever")

    frames = []
    for base in ((255, 0, 0), (0, 255, 0), (0, 0, 255)):
        im = Image.new("RGB", (24, 24))
        d = ImageDraw.Draw(im)
        for k in range(6):
            d.rectangle((k * 4, 0, k * 4 + 3, 23), fill=tuple(min(255, c * (k + 2) // 7 + k * 10) for c in base))
        frames.append(im)
    pillow_fixture("anim-local-palettes.gif", save_gif(frames, duration=100),
                   "global table then local tables, no looping extension")

    with Image.open(CHELSEA) as src:
        src = src.convert("RGB")
        interlaced = src.resize((37, 29), Image.LANCZOS).quantize(64)
        plain = src.resize((33, 21), Image.LANCZOS).quantize(16)
    pillow_fixture("still-interlaced.gif", save_gif([interlaced], interlace=True),
                   "single interlaced frame, 64 colours")
    pillow_fixture("still-global-palette.gif", save_gif([plain], interlace=False),
                   "single frame, global table only, no GCE")
    return anim


def model_fixture(name, data, width, height, frames, pillow_agrees, note):
    """pillow_agrees: how many leading frames Pillow must decode exactly as the model
    (True: all), as a check on the model."""
    expected = composite(width, height, frames)
    delays = [f.get("delay", 0) * 10 for f in frames]
    if pillow_agrees:
        got, got_delays, _ = pillow_decode(data)
        assert len(got) == len(expected) and got_delays == delays, name
        checked = len(got) if pillow_agrees is True else pillow_agrees
        for i, (a, b) in enumerate(zip(got[:checked], expected)):
            assert same_pixels(a, b), "%s frame %d: Pillow and the model differ" % (name, i + 1)
    emit(name, data, expected, delays, reference="model", note=note)


def generate_assembled():
    # Disposal 3 and 2 on sub-rectangles.
    pal = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (255, 255, 0), (0, 255, 255),
           (128, 128, 128)]
    f1 = dict(left=0, top=0, w=16, h=16, indices=[1] * 256, disposal=1, delay=1)
    f2 = dict(left=4, top=4, w=8, h=8, indices=[2] * 64, disposal=3, delay=2)
    f3 = dict(left=0, top=0, w=4, h=4, indices=[3] * 5 + [7] + [3] * 10, transparent=7, disposal=2, delay=3)
    f4 = dict(left=10, top=10, w=6, h=6, indices=[4 if (x + y) % 3 else 5 for y in range(6) for x in range(6)],
              disposal=0, delay=4)
    frames = [f1, f2, f3, f4]
    data = screen(16, 16, pal) + loop_extension(2)
    for f in frames:
        f["palette"] = pal
        data += gce(f["disposal"], f["delay"], f.get("transparent"))
        data += image(f["left"], f["top"], f["w"], f["h"], f["indices"])
    data += b";"
    model_fixture("edge-dispose-previous.gif", data, 16, 16, frames, 3,
                  "disposal 3 (restore previous) and 2 (clear) on sub-rectangles")

    # Frames partly and wholly outside the screen.
    pal = [(10, 20, 30), (200, 100, 50), (50, 200, 100), (100, 50, 200)]
    f1 = dict(left=0, top=0, w=16, h=12, indices=[(x // 4 + y // 4) % 2 for y in range(12) for x in range(16)])
    f2 = dict(left=10, top=8, w=10, h=8, indices=[2 + (x + y) % 2 for y in range(8) for x in range(10)],
              interlace=True)
    f3 = dict(left=20, top=20, w=4, h=4, indices=[3] * 16)
    frames = [f1, f2, f3]
    data = screen(16, 12, pal)
    for f in frames:
        f["palette"] = pal
        data += gce(0, 5)
        f["delay"] = 5
        data += image(f["left"], f["top"], f["w"], f["h"], f["indices"], interlace=f.get("interlace", False))
    data += b";"
    model_fixture("edge-clipped-frames.gif", data, 16, 12, frames, False,
                  "frames partly and wholly outside the screen are clipped")

    # Indices beyond a 2-entry table.
    pal = [(255, 0, 0), (0, 255, 0)]
    f = dict(left=0, top=0, w=8, h=2, indices=[0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 1, 0, 3, 2, 1, 0], palette=pal)
    data = screen(8, 2, pal) + image(0, 0, 8, 2, f["indices"], min_code_size=3) + b";"
    model_fixture("edge-bad-index.gif", data, 8, 2, [f], True, "indices beyond the colour table are opaque black")

    # No trailer.
    pal = [(1, 2, 3), (250, 240, 230), (90, 80, 70), (0, 128, 255)]
    f = dict(left=0, top=0, w=6, h=4, indices=[(x * y) % 4 for y in range(4) for x in range(6)], palette=pal)
    data = screen(6, 4, pal) + image(0, 0, 6, 4, f["indices"])
    model_fixture("edge-no-trailer.gif", data, 6, 4, [f], True, "the trailer byte is missing")

    # Pixel data that stops early: an end code after 3 rows; data blocks that run out in row 3.
    pal = [(0, 0, 0), (255, 128, 0), (0, 128, 255), (255, 255, 255)]
    f1 = dict(left=0, top=0, w=8, h=6, indices=[1 + (x + y) % 3 for y in range(6) for x in range(8)],
              rows=3, delay=10, palette=pal)
    f2 = dict(left=0, top=2, w=8, h=4, indices=[3 - (x % 2) for y in range(4) for x in range(8)],
              rows=2, delay=10, palette=pal)
    data = screen(8, 6, pal) + gce(0, 10)
    data += image(0, 0, 8, 6, f1["indices"], lzw=lzw_literal(f1["indices"][:24], 2))
    cut = lzw_literal(f2["indices"][:21], 2, end_code=False)  # 2 rows and 5 pixels of the third
    data += gce(0, 10) + image(0, 2, 8, 4, f2["indices"], lzw=cut) + b";"
    model_fixture("edge-short-data.gif", data, 8, 6, [f1, f2], False,
                  "LZW data ending early: undecoded rows stay undrawn")

    # A 0x0 logical screen.
    pal = [(40, 40, 40), (220, 220, 0)]
    f = dict(left=0, top=0, w=6, h=4, indices=[(x + y) % 2 for y in range(4) for x in range(6)], palette=pal)
    data = screen(0, 0, pal) + image(0, 0, 6, 4, f["indices"]) + b";"
    model_fixture("edge-zero-screen.gif", data, 6, 4, [f], True, "a 0x0 screen grows to the first frame")


def generate_bad(anim):
    # Cut half-way through frame 3's pixel data.
    start, data_start, end = image_extent(anim, 3)
    cut = anim[:(data_start + end) // 2]
    assert data_start < len(cut) < end - 1
    emit("bad-truncated.gif", cut, error="truncated", error_at="scan", note="ends inside frame 3's data")

    data = screen(4, 4) + image(0, 0, 4, 4, [1] * 16) + b";"
    emit("bad-no-colour-table.gif", data, error="corrupt", error_at="frame 1", note="no local or global colour table")

    data = screen(65535, 65535, [(0, 0, 0), (255, 255, 255)]) + image(0, 0, 1, 1, [1]) + b";"
    emit("bad-huge-screen.gif", data, error="limit", error_at="scan", note="65535x65535 screen")

    data = screen(4, 4, [(0, 0, 0), (255, 255, 255)]) + loop_extension(0) + b";"
    emit("bad-no-image.gif", data, error="corrupt", error_at="scan", note="no image descriptor")

    data = (screen(4, 4, [(0, 0, 0), (255, 255, 255)]) + image(0, 0, 4, 4, [1] * 16)[:10] + bytes([12])
            + sub_blocks(b"\x00\x01") + b";")
    emit("bad-lzw-code-size.gif", data, error="corrupt", error_at="scan", note="LZW minimum code size 12")


def image_extent(data, number):
    """(descriptor offset, data offset, end offset) of image `number` (1-based)."""
    flags = data[10]
    pos = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
    seen = 0
    while pos < len(data) and data[pos] != 0x3B:
        start = pos
        if data[pos] == 0x21:
            pos += 2
        else:
            fl = data[pos + 9]
            pos += 10 + (3 * (2 << (fl & 7)) if fl & 0x80 else 0) + 1  # + LZW code size
            seen += 1
        data_start = pos
        while data[pos]:
            pos += 1 + data[pos]
        pos += 1
        if data[start] == 0x2C and seen == number:
            return start, data_start, pos
    raise ValueError("no image %d" % number)


def main():
    anim = generate_pillow_made()
    generate_assembled()
    generate_bad(anim)
    write_if_changed(os.path.join(HERE, "manifest.json"),
                     (json.dumps(MANIFEST, indent=1, sort_keys=True) + "\n").encode())
    print("gif: %d fixtures (Pillow %s)" % (len(MANIFEST), Image.__version__))


if __name__ == "__main__":
    sys.exit(main())
