#!/usr/bin/env python3
"""The reference decodes the HEIF tests compare against, made by each format's reference
decoder (not by catctl): pillow-heif (PyPI; its own libheif) for HEIC, and avifdec
(Debian's libavif-bin, libavif 0.11) with nearest chroma upsampling for AVIF, which is what
libheif 1.15 does (libavif's default, bilinear, differs by up to 19 on 4:2:0 edges).
Writes NAME.expected.png next to each file; re-run after make_fixtures.py.
    pip install pillow pillow-heif && python3 make_expected.py
"""
import os
import subprocess

from PIL import Image
import pillow_heif

pillow_heif.register_heif_opener()
here = os.path.dirname(os.path.abspath(__file__))
heic = ["photo", "photo-10bit", "grid", "alpha", "icc", "msf1-still"]
avif = ["photo", "photo-10bit", "photo-12bit", "grid", "alpha", "icc", "p3-nclx", "exif-xmp"]
for name in heic:
    im = Image.open(os.path.join(here, name + ".heic"))
    im.convert("RGBA").save(os.path.join(here, name + ".heic.expected.png"))
for name in avif:
    out = os.path.join(here, name + ".avif.expected.png")
    subprocess.run(["avifdec", "-u", "nearest", "-d", "8", os.path.join(here, name + ".avif"), out],
                   check=True, stdout=subprocess.DEVNULL)
    Image.open(out).convert("RGBA").save(out)
# The sequence's frames as libavif decodes them (avifdec uses libavif, as catctl does for sequences).
for i in range(3):
    out = os.path.join(here, "seq.frame%d.expected.png" % i)
    subprocess.run(["avifdec", "--index", str(i), "-d", "8", os.path.join(here, "seq.avif"), out],
                   check=True, stdout=subprocess.DEVNULL)
    Image.open(out).convert("RGBA").save(out)
with open(os.path.join(here, "EXPECTED-VERSIONS.txt"), "w") as f:
    f.write("pillow-heif %s (libheif %s)\n" % (pillow_heif.__version__, pillow_heif.libheif_version()))
    f.write(subprocess.run(["avifdec", "--version"], capture_output=True, text=True).stdout.splitlines()[0] + "\n")
