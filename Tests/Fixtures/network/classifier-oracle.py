#!/usr/bin/python3
"""OpenCV's dnn as the oracle of catctl's second look (CatFacesTests/CatClassifierTests).

Usage: classifier-oracle.py CFG WEIGHTS INPUT...  (Debian's /usr/bin/python3 with
python3-opencv 4.6 and python3-onnx). Each INPUT is `PHOTO:X:Y:W:H:FLOATS`: a photo, a box in
its pixels, and the classifier's input catctl made for that box (3 x 224 x 224 float32
planes, little-endian).

The network is read from catctl's own files, independently of catctl's reader: the cfg's
sections and the weights (darknet's header; each convolution's float32 biases, then its
weights as the cfg's `weights` says: float32, `half`, or `int8` after a float32 scale an
output) become an ONNX graph (opset 10: Conv with TensorFlow's uneven pads, Clip for ReLU6, Add for
[shortcut], GlobalAveragePool, Softmax), which OpenCV's dnn runs (readNetFromONNX).

Prints one JSON line an input: {"input", "probabilities": OpenCV's 1000 on catctl's input,
"pillow": OpenCV's 1000 on Pillow's input for the same box (crop 1.1 x the long side around
its centre, black beyond the photo, bilinear resize to 224, (x - 127) / 128), "largest":
the largest difference between the two inputs}.
"""
import json
import struct
import sys

import cv2
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

SIDE = 224


def sections(path):
    out = []
    for line in open(path):
        line = line.split("#")[0].strip()
        if not line:
            continue
        if line.startswith("["):
            out.append((line[1:-1], {}))
        else:
            key, value = line.split("=", 1)
            out[-1][1][key.strip()] = value.strip()
    return out


def graph(cfg, weights):
    net, *layers = sections(cfg)
    data = open(weights, "rb").read()
    major, minor, _ = struct.unpack_from("<iii", data)
    at = 12 + (8 if major * 10 + minor >= 2 else 4)
    nodes, inits, names, channels = [], [], [], [int(net[1]["channels"])]
    previous = "input"
    for i, (kind, v) in enumerate(layers):
        name = f"l{i}"
        if kind == "convolutional":
            o, k, c = int(v["filters"]), int(v.get("size", 1)), channels[-1]
            groups = int(v.get("groups", 1))
            count = o * (c // groups) * k * k
            bias = np.frombuffer(data, "<f4", o, at).astype(np.float32)
            at += 4 * o
            form = v.get("weights", "float")
            if form == "int8":
                scale = np.frombuffer(data, "<f4", o, at).astype(np.float32)
                at += 4 * o
                w = np.frombuffer(data, np.int8, count, at).astype(np.float32).reshape(o, -1) * scale[:, None]
                at += count
            elif form == "half":
                w = np.frombuffer(data, "<f2", count, at).astype(np.float32)
                at += 2 * count
            else:
                w = np.frombuffer(data, "<f4", count, at).astype(np.float32)
                at += 4 * count
            w = w.reshape(o, c // groups, k, k)
            before = int(v.get("padding", k // 2 if v.get("pad") == "1" else 0))
            after = int(v.get("padding_after", before))
            inits += [numpy_helper.from_array(w, name + "w"), numpy_helper.from_array(bias, name + "b")]
            nodes.append(helper.make_node("Conv", [previous, name + "w", name + "b"], [name + "c"], group=groups,
                                          kernel_shape=[k, k], strides=[int(v.get("stride", 1))] * 2,
                                          pads=[before, before, after, after]))
            if v.get("activation") == "relu6":
                nodes.append(helper.make_node("Clip", [name + "c"], [name], min=0.0, max=6.0))
            elif v.get("activation") == "linear":
                nodes.append(helper.make_node("Identity", [name + "c"], [name]))
            else:
                raise SystemExit(f"layer {i}: activation {v.get('activation')}")
            channels.append(o)
        elif kind == "shortcut":
            nodes.append(helper.make_node("Add", [previous, names[i + int(v["from"])]], [name]))
            channels.append(channels[-1])
        elif kind == "avgpool":
            nodes.append(helper.make_node("GlobalAveragePool", [previous], [name]))
            channels.append(channels[-1])
        elif kind == "softmax":
            nodes.append(helper.make_node("Flatten", [previous], [name + "f"], axis=1))
            nodes.append(helper.make_node("Softmax", [name + "f"], [name], axis=1))
            channels.append(channels[-1])
        else:
            raise SystemExit(f"layer {i}: [{kind}]")
        names.append(name)
        previous = name
    if at != len(data):
        raise SystemExit(f"the weights hold {len(data) - at} bytes more than the layers take")
    model = helper.make_model(
        helper.make_graph(nodes, "classifier",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, SIDE, SIDE])],
                          [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, channels[-1]])], inits),
        opset_imports=[helper.make_opsetid("", 10)])  # Clip's bounds as attributes, as OpenCV 4.6 reads them
    onnx.checker.check_model(model)
    return cv2.dnn.readNetFromONNX(model.SerializeToString())


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
