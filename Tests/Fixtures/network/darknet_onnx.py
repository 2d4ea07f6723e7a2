"""catctl's darknet files (a cfg and its weights) as an ONNX graph that OpenCV's dnn runs:
the tests' oracle for catctl's networks (classifier-oracle.py, mask-oracle.py). Read
independently of catctl's reader: the cfg's sections and the weights (darknet's header; each
convolution's float32 biases, then its weights as the cfg's `weights` says: float32, `half`,
or `int8` after a float32 scale an output).

Layers: [convolutional] (groups, dilation, padding/padding_after, relu6 as Clip, relu,
linear), [shortcut] (Add), [route] (Concat, or the layer itself), [maxpool] size=2 stride=2
(ceil mode), [resize] like=N (Resize, linear, pytorch_half_pixel, to layer N's size),
[avgpool] (GlobalAveragePool), [softmax] and [logistic] (Sigmoid). Opset 10 (Clip's bounds
as attributes, as OpenCV 4.6 reads them), 11 when the network resizes.
"""
import struct

import cv2
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


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
    """OpenCV's dnn net for the files, and its output's name."""
    net, *layers = sections(cfg)
    height, width = int(net[1]["height"]), int(net[1]["width"])
    sizes = []  # each layer's (height, width)
    resizes = any(kind == "resize" for kind, _ in layers)
    data = open(weights, "rb").read()
    major, minor, _ = struct.unpack_from("<iii", data)
    at = 12 + (8 if major * 10 + minor >= 2 else 4)
    nodes, inits, names, channels = [], [], [], [int(net[1]["channels"])]
    previous = "input"
    for i, (kind, v) in enumerate(layers):
        name = f"l{i}"
        if kind == "convolutional":
            o, k, c = int(v["filters"]), int(v.get("size", 1)), channels[-1]
            groups, dilation = int(v.get("groups", 1)), int(v.get("dilation", 1))
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
            extent = dilation * (k - 1) + 1
            before = int(v.get("padding", extent // 2 if v.get("pad") == "1" else 0))
            after = int(v.get("padding_after", before))
            inits += [numpy_helper.from_array(w, name + "w"), numpy_helper.from_array(bias, name + "b")]
            nodes.append(helper.make_node("Conv", [previous, name + "w", name + "b"], [name + "c"], group=groups,
                                          kernel_shape=[k, k], strides=[int(v.get("stride", 1))] * 2,
                                          dilations=[dilation, dilation], pads=[before, before, after, after]))
            step = int(v.get("stride", 1))
            height, width = (height + before + after - extent) // step + 1, (width + before + after - extent) // step + 1
            if v.get("activation") == "relu6":
                nodes.append(helper.make_node("Clip", [name + "c"], [name], min=0.0, max=6.0))
            elif v.get("activation") == "relu":
                nodes.append(helper.make_node("Relu", [name + "c"], [name]))
            elif v.get("activation") == "linear":
                nodes.append(helper.make_node("Identity", [name + "c"], [name]))
            else:
                raise SystemExit(f"layer {i}: activation {v.get('activation')}")
            channels.append(o)
        elif kind == "shortcut":
            source = int(v["from"]) if int(v["from"]) >= 0 else i + int(v["from"])
            nodes.append(helper.make_node("Add", [previous, names[source]], [name]))
            channels.append(channels[-1])
        elif kind == "avgpool":
            nodes.append(helper.make_node("GlobalAveragePool", [previous], [name]))
            channels.append(channels[-1])
            height, width = 1, 1
        elif kind == "maxpool" and v.get("size") == "2" and v.get("stride") == "2":
            nodes.append(helper.make_node("MaxPool", [previous], [name], kernel_shape=[2, 2], strides=[2, 2],
                                          ceil_mode=1))
            channels.append(channels[-1])
            height, width = (height + 1) // 2, (width + 1) // 2
        elif kind == "route":
            sources = [int(j) if int(j) >= 0 else i + int(j) for j in v["layers"].split(",")]
            if len(sources) == 1:
                nodes.append(helper.make_node("Identity", [names[sources[0]]], [name]))
            else:
                nodes.append(helper.make_node("Concat", [names[j] for j in sources], [name], axis=1))
            channels.append(sum(channels[j + 1] for j in sources))
            height, width = sizes[sources[0]]
        elif kind == "resize":
            like = int(v["like"]) if int(v["like"]) >= 0 else i + int(v["like"])
            height, width = sizes[like]
            inits += [numpy_helper.from_array(np.zeros(0, np.float32), name + "r"),
                      numpy_helper.from_array(np.zeros(0, np.float32), name + "s"),
                      numpy_helper.from_array(np.array([1, channels[-1], height, width], np.int64), name + "z")]
            nodes.append(helper.make_node("Resize", [previous, name + "r", name + "s", name + "z"], [name],
                                          mode="linear", coordinate_transformation_mode="pytorch_half_pixel"))
            channels.append(channels[-1])
        elif kind == "logistic":
            nodes.append(helper.make_node("Sigmoid", [previous], [name]))
            channels.append(channels[-1])
        elif kind == "softmax":
            nodes.append(helper.make_node("Flatten", [previous], [name + "f"], axis=1))
            nodes.append(helper.make_node("Softmax", [name + "f"], [name], axis=1))
            channels.append(channels[-1])
        else:
            raise SystemExit(f"layer {i}: [{kind}]")
        sizes.append((height, width))
        names.append(name)
        previous = name
    if at != len(data):
        raise SystemExit(f"the weights hold {len(data) - at} bytes more than the layers take")
    shape = [1, channels[-1]] if layers[-1][0] == "softmax" else [1, channels[-1], height, width]
    inputs = [1, int(net[1]["channels"]), int(net[1]["height"]), int(net[1]["width"])]
    model = helper.make_model(
        helper.make_graph(nodes, "network", [helper.make_tensor_value_info("input", TensorProto.FLOAT, inputs)],
                          [helper.make_tensor_value_info(previous, TensorProto.FLOAT, shape)], inits),
        opset_imports=[helper.make_opsetid("", 11 if resizes else 10)])
    onnx.checker.check_model(model)
    return cv2.dnn.readNetFromONNX(model.SerializeToString())


