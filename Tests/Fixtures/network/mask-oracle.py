#!/usr/bin/python3
"""OpenCV's dnn as the oracle of catctl's cat mask (CatFacesTests/CatSegmenterTests).

Usage: mask-oracle.py CFG WEIGHTS INPUT...  (Debian's /usr/bin/python3 with python3-opencv
4.6 and python3-onnx). Each INPUT is a file of the network's input catctl made (3 planes of
width x height float32, little-endian, the cfg's [net] size); OpenCV's output for it (one
plane, float32) is written to INPUT.oracle. The network is read from catctl's own files,
independently of catctl's reader, through ONNX (darknet_onnx.py here).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from darknet_onnx import graph, sections  # noqa: E402


def main():
    net = graph(sys.argv[1], sys.argv[2])
    shape = sections(sys.argv[1])[0][1]
    c, h, w = int(shape["channels"]), int(shape["height"]), int(shape["width"])
    for path in sys.argv[3:]:
        net.setInput(np.fromfile(path, "<f4").reshape(1, c, h, w))
        net.forward().astype("<f4").tofile(path + ".oracle")


if __name__ == "__main__":
    main()
