#!/usr/bin/env python3
"""Does the crop keep the cat's face? The benchmark of issue 21 on the hand-marked photos.

For every photo of Tests/Fixtures/cats with a marked face, and for square, 4:5 and 9:16
crops (each the largest window of that shape in the photo), it asks where each method puts
the window and whether the window keeps the face: at least 90 % of the largest marked face's
box inside it. A photo counts only where a window of that shape can hold its face at all.

Methods:
  centre            the centred window (catctl's crop/cover default, as every tool's)
  marks             the window centred on the marked faces: the upper bound
  vips-attention    libvips' smartcrop, interesting=attention (pyvips)
  vips-entropy      libvips' smartcrop, interesting=entropy
  cascade-*         OpenCV's cat-face cascades from Debian's opencv-data (detectMultiScale
                    with scaleFactor 1.1, minNeighbors 3), centred on the largest box found,
                    else the centre: haar, haar-ext, lbp, and all three together
  catctl-GRAVITY    `catctl edit --json --filter crop:WxH:GRAVITY`, the window read from the
                    saved event, for every gravity the binary given with --catctl accepts

It also reports each cascade's recall and precision against the marks (a detection counts
when its IoU with an unmatched mark is at least 0.3), and with --catctl, those of
`catctl detect`.

  python3 Benchmarks/catcrop.py [--catctl PATH] [--json OUT]

The cascades run in Debian's python3-opencv (4.6, /usr/bin/python3): OpenCV 5 on PyPI no
longer has CascadeClassifier. Installs opencv-data and python3-opencv (apt) and pyvips and
numpy (pip) when missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATS = os.path.join(ROOT, "Tests", "Fixtures", "cats")
SHAPES = {"1:1": (1, 1), "4:5": (4, 5), "9:16": (9, 16)}
CASCADES = {
    "haar": "/usr/share/opencv4/haarcascades/haarcascade_frontalcatface.xml",
    "haar-ext": "/usr/share/opencv4/haarcascades/haarcascade_frontalcatface_extended.xml",
    "lbp": "/usr/share/opencv4/lbpcascades/lbpcascade_frontalcatface.xml",
}
KEEP = 0.9


DETECTOR = r"""
import json, sys, cv2
cascades = {name: cv2.CascadeClassifier(path) for name, path in json.loads(sys.argv[1]).items()}
out = {}
for path in sys.argv[2:]:
    gray = cv2.equalizeHist(cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2GRAY))
    out[path] = {name: [[int(v) for v in box] for box in
                        c.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24))]
                 for name, c in cascades.items()}
print(json.dumps(out))
"""


def ensure_tools():
    if not all(os.path.exists(p) for p in CASCADES.values()) or subprocess.run(
            ["/usr/bin/python3", "-c", "import cv2; cv2.CascadeClassifier"], capture_output=True).returncode:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "opencv-data", "python3-opencv"], check=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), stdout=subprocess.DEVNULL)
    try:
        import numpy, pyvips  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyvips", "numpy"], check=True)


def window(width, height, shape):
    """The largest window of `shape` (w:h) inside width x height."""
    sw, sh = SHAPES[shape]
    w, h = width, width * sh // sw
    if h > height:
        w, h = height * sw // sh, height
    return w, h


def place(centre_x, centre_y, w, h, width, height):
    """The w x h window centred on a point, moved inside the image."""
    x = min(max(0, round(centre_x - w / 2)), width - w)
    y = min(max(0, round(centre_y - h / 2)), height - h)
    return x, y


def kept(face, x, y, w, h):
    ix = max(0, min(face["x"] + face["width"], x + w) - max(face["x"], x))
    iy = max(0, min(face["y"] + face["height"], y + h) - max(face["y"], y))
    return ix * iy >= KEEP * face["width"] * face["height"]


def iou(a, b):
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def smartcrop_offset(path, w, h, interesting):
    """Where vips' smartcrop puts its window: found by matching the crop in the image."""
    import numpy as np
    import pyvips
    image = pyvips.Image.new_from_file(path, access="sequential").copy_memory()
    crop = image.smartcrop(w, h, interesting=interesting)
    a = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=[image.height, image.width, image.bands])
    c = np.ndarray(buffer=crop.write_to_memory(), dtype=np.uint8, shape=[h, w, crop.bands])
    # The window is as tall or as wide as the image, so one offset is free: compare the
    # crop's middle row (or column) with the image's at every offset, the best exactly.
    if w == image.width:
        line = c[:, w // 2].astype(np.int16)
        costs = [np.abs(a[y:y + h, w // 2].astype(np.int16) - line).sum() for y in range(image.height - h + 1)]
        return 0, int(np.argmin(costs))
    line = c[h // 2].astype(np.int16)
    costs = [np.abs(a[h // 2, x:x + w].astype(np.int16) - line).sum() for x in range(image.width - w + 1)]
    return int(np.argmin(costs)), 0


def catctl_offset(catctl, path, w, h, gravity):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out.png")
        run = subprocess.run([catctl, "edit", "--json", "--filter", f"crop:{w}x{h}:{gravity}", path, out],
                             capture_output=True, text=True)
        if run.returncode != 0:
            return None
        for line in run.stdout.splitlines():
            event = json.loads(line)
            if event.get("event") == "saved" and "crop" in event:
                return event["crop"]["x"], event["crop"]["y"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catctl", help="a catctl binary: its gravities join the table")
    parser.add_argument("--json", help="write every photo's windows here")
    args = parser.parse_args()
    ensure_tools()

    photos = json.load(open(os.path.join(CATS, "faces.json")))["photos"]
    cascades = CASCADES
    paths = [os.path.join(CATS, p["file"]) for p in photos]
    detected = json.loads(subprocess.run(["/usr/bin/python3", "-c", DETECTOR, json.dumps(CASCADES)] + paths,
                                         check=True, capture_output=True, text=True).stdout)
    gravities = []
    if args.catctl:
        lines = subprocess.run([args.catctl, "detect", "--json"] + paths, check=True, capture_output=True,
                               text=True).stdout.splitlines()
        for line in lines:
            event = json.loads(line)
            detected[event["input"]]["catctl-detect"] = [
                [f["x"], f["y"], f["width"], f["height"]] for f in event["faces"]]
        probe = photos[0]
        for gravity in ["cat", "attention", "entropy"]:
            if catctl_offset(args.catctl, os.path.join(CATS, probe["file"]), 16, 16, gravity) is not None:
                gravities.append(gravity)

    methods = ["centre", "marks", "vips-attention", "vips-entropy"] + [f"cascade-{n}" for n in cascades] + [
        "cascade-all"] + [f"catctl-{g}" for g in gravities]
    score = {m: {s: [0, 0] for s in SHAPES} for m in methods}  # kept, possible
    detectors = list(cascades) + ["all"] + (["catctl-detect"] if args.catctl else [])
    detection = {n: [0, 0, 0] for n in detectors}  # matched marks, marks, detections
    record = []
    for photo in photos:
        path = os.path.join(CATS, photo["file"])
        width, height, faces = photo["width"], photo["height"], photo["faces"]
        found = {n: [tuple(b) for b in boxes] for n, boxes in detected[path].items()}
        found["all"] = [b for n in cascades for b in found[n]]
        for name, boxes in found.items():
            marks = [(f["x"], f["y"], f["width"], f["height"]) for f in faces]
            matched = 0
            for box in boxes if name != "all" else []:
                hit = next((m for m in marks if iou(box, m) >= 0.3), None)
                if hit:
                    marks.remove(hit)
                    matched += 1
            if name == "all":  # the union: a mark counts once, however many cascades found it
                matched = sum(1 for f in faces if any(iou(b, (f["x"], f["y"], f["width"], f["height"])) >= 0.3
                                                      for b in boxes))
            detection[name][0] += matched
            detection[name][1] += len(faces)
            detection[name][2] += len(boxes) if name != "all" else 0
        if not faces:
            continue
        face = max(faces, key=lambda f: f["width"] * f["height"])
        entry = {"file": photo["file"], "windows": {}}
        for shape in SHAPES:
            w, h = window(width, height, shape)
            if face["width"] > w or face["height"] > h:
                continue
            fx = sum(f["x"] + f["width"] / 2 for f in faces) / len(faces)
            fy = sum(f["y"] + f["height"] / 2 for f in faces) / len(faces)
            where = {
                "centre": ((width - w) // 2, (height - h) // 2),
                "marks": place(fx, fy, w, h, width, height),
                "vips-attention": smartcrop_offset(path, w, h, "attention"),
                "vips-entropy": smartcrop_offset(path, w, h, "entropy"),
            }
            for name in list(cascades) + ["all"]:
                boxes = found[name]
                if boxes:
                    bx, by, bw, bh = max(boxes, key=lambda b: b[2] * b[3])
                    where[f"cascade-{name}"] = place(bx + bw / 2, by + bh / 2, w, h, width, height)
                else:
                    where[f"cascade-{name}"] = where["centre"]
            for gravity in gravities:
                where[f"catctl-{gravity}"] = catctl_offset(args.catctl, path, w, h, gravity) or (-w, -h)
            for method, (x, y) in where.items():
                score[method][shape][1] += 1
                score[method][shape][0] += kept(face, x, y, w, h)
            entry["windows"][shape] = {"size": [w, h], **{m: list(p) for m, p in where.items()}}
        record.append(entry)

    print(f"{len(photos)} photos, {sum(len(p['faces']) for p in photos)} marked faces; "
          f"a face is kept when {KEEP:.0%} of the largest one's box is inside the window")
    print(f"{'method':<18}" + "".join(f"{s:>16}" for s in SHAPES))
    for method in methods:
        cells = "".join(f"{f'{k}/{n} {k / n:.0%}' if n else '-':>16}" for k, n in score[method].values())
        print(f"{method:<18}{cells}")
    print("\ndetection against the marks (IoU >= 0.3)")
    for name, (matched, marks, boxes) in detection.items():
        precision = f"{matched / boxes:.2f}" if boxes else "-"
        print(f"  {name:<10} recall {matched}/{marks} {matched / marks:.2f}   precision {precision}"
              + (f" ({boxes} boxes)" if name != "all" else ""))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(record, out, indent=1)


if __name__ == "__main__":
    main()
