#!/usr/bin/env python3
"""Does the crop keep the cat's face, and does detect find the cats? On the hand-marked photos.

For every photo of Tests/Fixtures/cats with a marked face, and for square, 4:5 and 9:16
crops (each the largest window of that shape in the photo), it asks where each method puts
the window and whether the window keeps the face: at least 90 % of the largest marked face's
box inside it. A photo counts only where a window of that shape can hold its face at all.

Methods:
  centre            the centred window (catctl's crop/cover default, as every tool's)
  marks             the window centred on the marked faces: the upper bound
  vips-attention    libvips' smartcrop, interesting=attention (pyvips)
  vips-entropy      libvips' smartcrop, interesting=entropy
  opencv            catctl's placing rules on OpenCV's own detectors (Debian's python3-opencv
                    4.6): the cat-face cascades (LBP and Haar, scaleFactor 1.1, minNeighbors
                    3, on a copy 320 long), else Yolo-Fastest's cat boxes through cv2.dnn
                    (352 and 480 long, score 0.4, NMS 0.45) and each box's likely head, else
                    the centre
  catctl-GRAVITY    `catctl edit --json --filter crop:WxH:GRAVITY`, the window read from the
                    saved event, for every gravity the binary given with --catctl accepts

Detection (with --catctl, `catctl detect --json`; and the same for the opencv method):
  cats found        photos with a marked face where a returned cat box holds that face's centre
  wrong boxes       returned cat boxes that overlap no marked cat (IoU < 0.3 with every
                    `cats` box of faces.json)
  no-cat photos     photos tagged nocat on which no cat is reported
  faces             recall and precision of the faces against the marks (IoU >= 0.3)

Every table is printed for the tuning half, the held-out half (faces.json's `set`) and all
photos: a threshold is chosen on the tuning half, and reported on both.

  python3 Benchmarks/catcrop.py [--catctl PATH] [--json OUT]

Installs opencv-data and python3-opencv (apt) and pyvips and numpy (pip) when missing.
"""
import argparse
import functools
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
    "lbp": "/usr/share/opencv4/lbpcascades/lbpcascade_frontalcatface.xml",
}
KEEP = 0.9


YOLO = os.path.join(ROOT, "Resources", "models", "yolo-fastest", "yolo-fastest-1.1-xl")

# OpenCV's detectors on every photo: the two cascades catctl builds in, on an equalised grey
# copy 320 long, and Yolo-Fastest's cat boxes (COCO class 15) at catctl's two input sizes.
DETECTOR = r"""
import json, sys, cv2, numpy as np
cascades = [cv2.CascadeClassifier(p) for p in json.loads(sys.argv[1])]
net = cv2.dnn.readNetFromDarknet(sys.argv[2] + ".cfg", sys.argv[2] + ".weights")
out = {}
for path in sys.argv[3:]:
    image = cv2.imread(path)
    h, w = image.shape[:2]
    f = 320 / max(w, h)
    small = cv2.resize(image, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) if f < 1 else image
    gray = cv2.equalizeHist(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    s = w / small.shape[1]
    faces = [[int(v * s) for v in box] for c in cascades
             for box in c.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24))]
    boxes, scores = [], []
    for long in (352, 480):
        size = (long, max(32, round(long * h / w / 32) * 32)) if w >= h else (max(32, round(long * w / h / 32) * 32), long)
        net.setInput(cv2.dnn.blobFromImage(image, 1 / 255, size, swapRB=True))
        for o in net.forward(net.getUnconnectedOutLayersNames()):
            for r in o:
                if r[20] >= 0.4:
                    boxes.append([float((r[0] - r[2] / 2) * w), float((r[1] - r[3] / 2) * h), float(r[2] * w), float(r[3] * h)])
                    scores.append(float(r[20]))
    keep = cv2.dnn.NMSBoxes(boxes, scores, 0.4, 0.45) if boxes else []
    cats = [[round(v) for v in boxes[i]] for i in sorted(np.array(keep).flatten(), key=lambda i: -scores[i])]
    for cat in cats:  # a wide box's head side: the cascades' raw windows, as catctl
        x, y, bw, bh = max(0, cat[0]), max(0, cat[1]), cat[2], cat[3]
        crop = image[y:y + bh, x:x + bw]
        side = None
        if bw > bh * 1.3 and crop.size:
            crop = cv2.resize(crop, (max(1, round(crop.shape[1] * 160 / crop.shape[0])), 160), interpolation=cv2.INTER_AREA)
            g = cv2.equalizeHist(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))
            xs = [b[0] + b[2] / 2 for c in cascades for b in c.detectMultiScale(g, scaleFactor=1.1, minNeighbors=0, minSize=(20, 20))]
            left = sum(1 for v in xs if v < g.shape[1] / 2)
            side = None if 2 * left == len(xs) else "L" if 2 * left > len(xs) else "R"
        cat.append(side)
    out[path] = {"faces": faces, "cats": cats}
print(json.dumps(out))
"""


def ensure_tools():
    if not all(os.path.exists(p) for p in CASCADES.values()) or subprocess.run(
            ["/usr/bin/python3", "-c", "import cv2; cv2.dnn.readNetFromDarknet"], capture_output=True).returncode:
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


@functools.lru_cache(maxsize=None)  # each photo's window once, for every subset it is in
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


@functools.lru_cache(maxsize=None)  # each photo's window once, for every subset it is in
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


def head(box):
    """catctl's likely head of a cat box without a face (CatFinder.head): the middle of the
    upper half of a box not much wider than tall; else the end the cascades point at."""
    x, y, w, h, side = box
    if w <= h * 13 // 10:
        hw = max(1, w // 2)
        return (x + (w - hw) // 2, y, hw, max(1, h // 2))
    if side is None:
        return (x, y, w, h)
    return (x, y, h, h) if side == "L" else (x + w - h, y, h, h)


def around(subjects, width, height, w, h):
    """catctl's window around subjects (Interest.around): all when they fit, else the largest."""
    x0 = min(s[0] for s in subjects)
    y0 = min(s[1] for s in subjects)
    box = (x0, y0, max(s[0] + s[2] for s in subjects) - x0, max(s[1] + s[3] for s in subjects) - y0)
    if box[2] > w or box[3] > h:
        box = max(subjects, key=lambda s: s[2] * s[3])

    def place(start, length, window, limit, share):
        at = start + length // 2 - int(window * share)
        if length <= window:
            at = min(max(at, start + length - window), start)
        return min(max(0, at), limit - window)
    return place(box[0], box[2], w, width, 0.5), place(box[1], box[3], h, height, 0.4)


def report(photos, found, gravities, methods, catctl):
    """Prints the crop and detection tables for `photos`; returns each photo's windows."""
    score = {m: {s: [0, 0] for s in SHAPES} for m in methods}  # kept, possible
    # Per detector: faces matched, marks, face boxes; cat photos with the face in a cat
    # box, cat photos; cat boxes, wrong cat boxes; no-cat photos, no-cat photos left alone.
    detection = {n: dict.fromkeys(["matched", "marks", "boxes", "held", "catphotos", "cats", "wrong", "nocat",
                                   "clean"], 0) for n in found}
    record = []
    for photo in photos:
        path = os.path.join(CATS, photo["file"])
        width, height, faces = photo["width"], photo["height"], photo["faces"]
        marks = [(f["x"], f["y"], f["width"], f["height"]) for f in faces]
        marked_cats = [(c["x"], c["y"], c["width"], c["height"]) for c in photo.get("cats", [])]
        for name, seen in found.items():
            d, got = detection[name], seen[path]
            got = {"faces": got["faces"], "cats": [c[:4] for c in got["cats"]]}
            left = list(marks)
            for box in got["faces"]:
                hit = next((m for m in left if iou(box, m) >= 0.3), None)
                if hit:
                    left.remove(hit)
                    d["matched"] += 1
            d["marks"] += len(marks)
            d["boxes"] += len(got["faces"])
            d["cats"] += len(got["cats"])
            if "cats" in photo:
                d["wrong"] += sum(1 for c in got["cats"] if all(iou(c, m) < 0.3 for m in marked_cats))
            if "nocat" in photo["tags"]:
                d["nocat"] += 1
                d["clean"] += not got["cats"]
            elif faces:
                face = max(faces, key=lambda f: f["width"] * f["height"])
                cx, cy = face["x"] + face["width"] / 2, face["y"] + face["height"] / 2
                d["catphotos"] += 1
                d["held"] += any(c[0] <= cx <= c[0] + c[2] and c[1] <= cy <= c[1] + c[3] for c in got["cats"])
        if not faces:
            continue
        face = max(faces, key=lambda f: f["width"] * f["height"])
        entry = {"file": photo["file"], "windows": {}}
        cv = found["opencv"][path]
        subjects = [tuple(b) for b in cv["faces"]] or [head(tuple(c)) for c in cv["cats"]]
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
                "opencv": around(subjects, width, height, w, h) if subjects else ((width - w) // 2, (height - h) // 2),
            }
            for gravity in gravities:
                where[f"catctl-{gravity}"] = catctl_offset(catctl, path, w, h, gravity) or (-w, -h)
            for method, (x, y) in where.items():
                score[method][shape][1] += 1
                score[method][shape][0] += kept(face, x, y, w, h)
            entry["windows"][shape] = {"size": [w, h], **{m: list(p) for m, p in where.items()}}
        record.append(entry)

    nocat = sum(1 for p in photos if "nocat" in p["tags"])
    print(f"{len(photos)} photos ({nocat} with no cat), {sum(len(p['faces']) for p in photos)} marked faces; "
          f"a face is kept when {KEEP:.0%} of the largest one's box is inside the window")
    print(f"{'method':<18}" + "".join(f"{s:>16}" for s in SHAPES))
    for method in methods:
        cells = "".join(f"{f'{k}/{n} {k / n:.0%}' if n else '-':>16}" for k, n in score[method].values())
        print(f"{method:<18}{cells}")
    print("\ndetection")
    for name, d in detection.items():
        precision = f"{d['matched'] / d['boxes']:.2f}" if d["boxes"] else "-"
        print(f"  {name:<8} cats found {d['held']}/{d['catphotos']} ({d['held'] / max(1, d['catphotos']):.0%}), "
              f"wrong boxes {d['wrong']}/{d['cats']}, no-cat photos left alone {d['clean']}/{d['nocat']}; "
              f"faces: recall {d['matched']}/{d['marks']} {d['matched'] / max(1, d['marks']):.2f}, "
              f"precision {precision} ({d['boxes']} boxes)")
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catctl", help="a catctl binary: its gravities and detect join the tables")
    parser.add_argument("--json", help="write every photo's windows here")
    args = parser.parse_args()
    ensure_tools()

    photos = json.load(open(os.path.join(CATS, "faces.json")))["photos"]
    paths = [os.path.join(CATS, p["file"]) for p in photos]
    found = {"opencv": json.loads(subprocess.run(
        ["/usr/bin/python3", "-c", DETECTOR, json.dumps(list(CASCADES.values())), YOLO] + paths,
        check=True, capture_output=True, text=True).stdout)}
    gravities = []
    if args.catctl:
        lines = subprocess.run([args.catctl, "detect", "--json"] + paths, check=True, capture_output=True,
                               text=True).stdout.splitlines()
        found["catctl"] = {}
        for line in lines:
            event = json.loads(line)
            found["catctl"][event["input"]] = {
                "faces": [[f["x"], f["y"], f["width"], f["height"]] for f in event["faces"]],
                "cats": [[c["x"], c["y"], c["width"], c["height"]] for c in event["cats"]]}
        probe = photos[0]
        for gravity in ["cat", "attention", "entropy"]:
            if catctl_offset(args.catctl, os.path.join(CATS, probe["file"]), 16, 16, gravity) is not None:
                gravities.append(gravity)

    methods = ["centre", "marks", "vips-attention", "vips-entropy", "opencv"] + [f"catctl-{g}" for g in gravities]
    record = []
    # Every figure for the tuning half, the held-out half (faces.json's "set") and all photos:
    # a threshold is chosen on the tuning half only, and reported on both.
    for name, subset in [("tuning", [p for p in photos if p.get("set") == "tuning"]),
                         ("held-out", [p for p in photos if p.get("set") == "heldout"]),
                         ("all", photos)]:
        if subset:
            print(f"\n=== {name} photos ===")
            record += report(subset, found, gravities, methods, args.catctl)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(record, out, indent=1)


if __name__ == "__main__":
    main()
