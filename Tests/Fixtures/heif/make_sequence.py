#!/usr/bin/env python3
"""Writes Tests/Fixtures/heif/seq.heic, a HEIF image sequence (brand msf1, an HEVC track with
a 'pict' handler), and its reference frames.

Made from seq.frame{0,1,2}.png (the frames of seq.avif) by Debian 12's ffmpeg 5.1 with x265
3.5 (4:2:0, no B-frames, timescale 1000); the script then sets the handler to 'pict' (an image
sequence, ISO/IEC 23008-12) and the three durations to 100, 200 and 300 ms in 'stts'.
Expected: ffmpeg's own decode of each frame to RGB (seq-heic.frame{0,1,2}.expected.png).
Hostile: seq-sps-larger.heic, the same frames at 160x120 in a track whose sample entry says
32x24 (an SPS larger than its container: refused before libde265 allocates for it).
Re-runnable; the versions are printed.
"""
import os
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def encode(listing, mp4, scale=None):
    filters = ["-vf", f"scale={scale}"] if scale else []
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0",
                    "-i", listing] + filters + ["-fps_mode", "vfr", "-c:v", "libx265", "-x265-params",
                    "log-level=error:bframes=0", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
                    "-video_track_timescale", "1000", "-brand", "msf1", "-frames:v", "3", mp4], check=True)


def as_sequence(data):
    """The handler set to 'pict' and the durations to 100, 200 and 300 ms."""
    at = data.find(b"hdlr")
    assert data[at + 12:at + 16] == b"vide"
    data[at + 12:at + 16] = b"pict"
    at = data.find(b"stts")
    assert struct.unpack(">I", data[at + 8:at + 12])[0] == 3
    for i, ms in enumerate([100, 200, 300]):
        data[at + 12 + 8 * i:at + 20 + 8 * i] = struct.pack(">II", 1, ms)
    return data


def main():
    print(subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.splitlines()[0])
    with tempfile.TemporaryDirectory() as work:
        listing = os.path.join(work, "list.txt")
        with open(listing, "w") as f:
            f.write("ffconcat version 1.0\n")
            for i, seconds in enumerate([0.1, 0.2, 0.3]):
                f.write(f"file {HERE}/seq.frame{i}.png\nduration {seconds}\n")
            f.write(f"file {HERE}/seq.frame2.png\n")
        mp4 = os.path.join(work, "seq.mp4")
        encode(listing, mp4)
        large = os.path.join(work, "large.mp4")
        encode(listing, large, "160:120")
        big = as_sequence(bytearray(open(large, "rb").read()))
        at = big.find(b"hvc1")  # the sample entry: width and height at 24 and 26 after its type
        assert struct.unpack(">HH", big[at + 28:at + 32]) == (160, 120)
        big[at + 28:at + 32] = struct.pack(">HH", 32, 24)
        open(os.path.join(HERE, "seq-sps-larger.heic"), "wb").write(big)
        for i in range(3):
            subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", mp4, "-vf",
                            f"select=eq(n\\,{i})", "-frames:v", "1", "-pix_fmt", "rgb24",
                            os.path.join(HERE, f"seq-heic.frame{i}.expected.png")], check=True)
        data = as_sequence(bytearray(open(mp4, "rb").read()))
    open(os.path.join(HERE, "seq.heic"), "wb").write(data)
    print("wrote seq.heic,", len(data), "bytes, seq-heic.frame{0,1,2}.expected.png and seq-sps-larger.heic")


if __name__ == "__main__":
    main()
