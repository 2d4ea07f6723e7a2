#!/usr/bin/env python3
"""catctl's filter core against OpenCV's SIMD kernels, measured in the same run.

Rounds alternate catctl (`catctl bench --json`, 12 MP RGBA, one thread unless said)
and OpenCV (cv2.setNumThreads(1)) on the same image size; each side reports the
median of several repetitions per round, and the ratios below are medians over the
rounds. Targets (issue 4):
  colour filters  >= 1.3x cv2.transform (3x3 matrix)  and  >= 75% of catctl's copy baseline
  blur:3          >= 1.5x cv2.GaussianBlur(img, (0,0), 3);  2 threads >= 1.6x its own 1 thread
  every filter    fast path >= 3x its scalar reference

OpenCV's fastest transform is a 3x3 matrix on a 3-channel image; it is timed both on
3-channel BGR (the bar) and on 4-channel BGRA with a 4x4 matrix (the same pixels catctl
sees), and GaussianBlur on both too.

The figure that counts for each target is the median over the interleaved rounds (each
round: catctl, then OpenCV, on the same machine state); min and max beside it are the
spread. For blur:3 that is catctl over cv2.GaussianBlur on the same RGBA pixels, one
thread each (the RGB figure is shown, not counted). --isa avx2 or avx512 runs both sides
on that instruction set: catctl's --kernels, and OpenCV's dispatch limited through
OPENCV_CPU_DISABLE. Usage:

    python3 Benchmarks/compare-opencv.py [--rounds 5] [--size 4032x3024] [--isa avx2|avx512] [--before OLD]

--before times an older build of catctl in the same rounds (before/after a change).

Installs opencv-python-headless with pip when missing, builds catctl in release mode.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ensure_opencv():
    try:
        import cv2  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "opencv-python-headless"])


KERNELS = None  # --isa: catctl's kernel build


def catctl_bench(binary, specs, size, threads, reps, scalar=False):
    args = [binary, "bench", "--json", "--size", size, "--threads", str(threads), "--repetitions", str(reps)]
    if KERNELS:
        args += ["--kernels", KERNELS]
    if not scalar:
        args.append("--no-scalar")
    for s in specs:
        args += ["--filter", s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def w3c_saturate(s):
    return [[0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s],
            [0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s],
            [0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s]]


SEPIA = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]


def opencv_round(w, h, reps):
    import cv2
    import numpy as np
    cv2.setNumThreads(1)
    rng = np.random.default_rng(1)
    rgba = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    rgb = np.ascontiguousarray(rgba[:, :, :3])
    mp = w * h / 1e6

    def median_mpix(fn):
        fn()
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return mp / statistics.median(times)

    out3 = np.empty_like(rgb)
    out4 = np.empty_like(rgba)
    res = {}
    for name, m in (("sepia", SEPIA), ("saturate:1.4", w3c_saturate(1.4))):
        m3 = np.array(m, dtype=np.float32)
        m4 = np.eye(4, dtype=np.float32)
        m4[:3, :3] = m3
        res[name + " rgb"] = median_mpix(lambda: cv2.transform(rgb, m3, dst=out3))
        res[name + " rgba"] = median_mpix(lambda: cv2.transform(rgba, m4, dst=out4))
    res["blur:3 rgb"] = median_mpix(lambda: cv2.GaussianBlur(rgb, (0, 0), 3, dst=out3))
    res["blur:3 rgba"] = median_mpix(lambda: cv2.GaussianBlur(rgba, (0, 0), 3, dst=out4))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", default="4032x3024")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/catctl"))
    ap.add_argument("--before", help="an older catctl binary, timed in the same rounds")
    ap.add_argument("--isa", choices=["avx2", "avx512"], help="both sides on this instruction set")
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.lower().split("x"))
    global KERNELS
    if a.isa:
        KERNELS = a.isa
        if a.isa == "avx2":  # before cv2 is imported: its dispatch reads this once
            os.environ["OPENCV_CPU_DISABLE"] = "AVX512-SKX"  # the name cv2.getCPUFeaturesLine() gives

    ensure_opencv()
    if not os.environ.get("CATCTL_NO_BUILD"):
        subprocess.check_call(["swift", "build", "-c", "release", "--product", "catctl"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    import cv2
    print(f"catctl vs OpenCV {cv2.__version__}, {w}x{h}, {a.rounds} rounds, median of {a.reps} per round, "
          f"isa {a.isa or 'best'}", file=sys.stderr)

    specs = ["sepia", "saturate:1.4", "blur:3", "sharpen", "vignette"]
    rows = {}
    def add(key, v):
        rows.setdefault(key, []).append(v)

    kernels = "?"
    for r in range(a.rounds):
        one = catctl_bench(a.binary, specs, a.size, 1, a.reps)
        cv = opencv_round(w, h, a.reps)
        two = catctl_bench(a.binary, ["blur:3"], a.size, 2, a.reps)
        kernels = one.get("kernels", "?")
        copy = one["baseline_copy_mpix_s"]
        fast = {x["filter"]: x["mpix_s"] for x in one["results"]}
        for s in ("sepia", "saturate:1.4"):
            add(f"{s}: catctl MPix/s", fast[s])
            add(f"{s}: OpenCV 3x3 RGB MPix/s", cv[s + " rgb"])
            add(f"{s}: OpenCV 4x4 RGBA MPix/s", cv[s + " rgba"])
            add(f"{s}: vs OpenCV 3x3 RGB", fast[s] / cv[s + " rgb"])
            add(f"{s}: vs copy", fast[s] / copy)
        add("blur:3: catctl MPix/s", fast["blur:3"])
        add("blur:3: OpenCV RGB MPix/s", cv["blur:3 rgb"])
        add("blur:3: OpenCV RGBA MPix/s", cv["blur:3 rgba"])
        add("blur:3: vs OpenCV RGBA", fast["blur:3"] / cv["blur:3 rgba"])
        add("blur:3: vs OpenCV RGB", fast["blur:3"] / cv["blur:3 rgb"])
        add("blur:3: 2 threads vs 1", two["results"][0]["mpix_s"] / fast["blur:3"])
        add("copy baseline MPix/s", copy)
        if a.before:
            old = catctl_bench(a.before, specs, a.size, 1, a.reps)
            old_fast = {x["filter"]: x["mpix_s"] for x in old["results"]}
            for s in specs:
                add(f"{s}: after/before (speed)", fast[s] / old_fast[s])
        print(f"  round {r + 1}: copy {copy:.0f}, sepia {fast['sepia']:.0f} (OpenCV {cv['sepia rgb']:.0f}), "
              f"blur {fast['blur:3']:.0f} (OpenCV {cv['blur:3 rgba']:.0f})", file=sys.stderr)

    # Fast path vs scalar reference, every filter (one run: the scalar side is slow).
    everything = catctl_bench(a.binary, [], a.size, 1, 3, scalar=True)

    targets = {
        "sepia: vs OpenCV 3x3 RGB": 1.3, "saturate:1.4: vs OpenCV 3x3 RGB": 1.3,
        "sepia: vs copy": 0.75, "saturate:1.4: vs copy": 0.75,
        "blur:3: vs OpenCV RGBA": 1.5, "blur:3: 2 threads vs 1": 1.6,
    }
    print(f"\nkernels: {kernels}")
    print(f"{'measure':42} {'median':>9} {'min':>9} {'max':>9}  target")
    for key, vals in rows.items():
        t = targets.get(key)
        verdict = "" if t is None else (f">= {t}  " + ("ok" if statistics.median(vals) >= t else "MISSED"))
        print(f"{key:42} {statistics.median(vals):9.2f} {min(vals):9.2f} {max(vals):9.2f}  {verdict}")
    print(f"\n{'filter':16} {'fast MPix/s':>12} {'scalar MPix/s':>14} {'ratio':>7}  target >= 3")
    for x in everything["results"]:
        ratio = x["mpix_s"] / x["scalar_mpix_s"]
        print(f"{x['filter']:16} {x['mpix_s']:12.1f} {x['scalar_mpix_s']:14.1f} {ratio:7.1f}  "
              + ("ok" if ratio >= 3 else "MISSED"))


if __name__ == "__main__":
    main()
