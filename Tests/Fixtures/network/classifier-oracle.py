#!/usr/bin/python3
"""OpenCV's dnn as the oracle of catctl's second look (CatFacesTests/CatClassifierTests).

Usage: classifier-oracle.py CFG WEIGHTS INPUT...  (Debian's /usr/bin/python3 with
python3-opencv 4.6 and python3-onnx). Each INPUT is `PHOTO:X:Y:W:H:FLOATS`: a photo, a box in
its pixels, and the classifier's input catctl made for that box (3 x 224 x 224 float32
planes, little-endian).

The network is read from catctl's own files, independently of catctl's reader, as an ONNX
graph OpenCV's dnn runs (darknet_onnx.py here).

Prints one JSON line an input: {"input", "probabilities": OpenCV's 1000 on catctl's input,
"pillow": OpenCV's 1000 on Pillow's input for the same box (crop 1.1 x the long side around
its centre, black beyond the photo, bilinear resize to 224, (x - 127) / 128), "largest":
the largest difference between the two inputs}.
"""
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from darknet_onnx import graph  # noqa: E402

SIDE = 224


def pillow(photo, x, y, w, h):
    image = Image.open(photo).convert("RGB")
    side, cx, cy = max(w, h) * 1.1, x + w / 2, y + h / 2
    crop = image.crop((int(cx - side / 2), int(cy - side / 2), int(cx + side / 2), int(cy + side / 2)))
    a = np.asarray(crop.resize((SIDE, SIDE), resample=Image.BILINEAR), np.float32)
    return ((a - 127) / 128).transpose(2, 0, 1)[None].copy()


def main():
    net = graph(sys.argv[1], sys.argv[2])
    for spec in sys.argv[3:]:
        photo, x, y, w, h, floats = spec.rsplit(":", 5)
        ours = np.fromfile(floats, "<f4").reshape(1, 3, SIDE, SIDE)
        theirs = pillow(photo, float(x), float(y), float(w), float(h))
        result = {"input": spec, "largest": float(np.abs(ours - theirs).max())}
        for key, blob in (("probabilities", ours), ("pillow", theirs)):
            net.setInput(blob)
            result[key] = [float(p) for p in net.forward().reshape(-1)]
        print(json.dumps(result))


if __name__ == "__main__":
    main()
