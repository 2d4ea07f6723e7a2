#!/usr/bin/env bash
# catctl's networks on catctl's own kernels against XNNPACK's (Debian's libxnnpack-dev), in
# one run, on 1 and 2 cores: which runtime each should use (issue: a runtime for three
# networks). The cat detector (Yolo-Fastest-1.1-xl, both passes), then the second look's
# classifier (EfficientNet-Lite0, one look at 224 x 224).
#
#   Benchmarks/xnnpack-networks.sh [CATCTL] [PHOTO] [IMAGES]
#
# CATCTL: a release catctl (default .build/release/catctl); PHOTO: a photo (default a
# 1200x1600 fixture); IMAGES: how many copies one process reads (default 40).
#
# catctl's time is read from `catctl detect` over IMAGES copies of PHOTO in one process with
# the detector alone installed, less the same with no network installed (the cascades and
# the decode), over IMAGES: the network's two passes per picture, as catctl runs them (on 2 cores, one pass a core). XNNPACK's is
# Benchmarks/xnnpack-network.c on the same two input sizes (the same weights, batch
# normalisation folded the same way), its output first held to OpenCV's dnn on PHOTO.
# The classifier's look the same way: `detect` over the copies (PHOTO has one cat box, so
# one look a picture) with the classifier installed, less without it; XNNPACK's is the same
# program on its cfg and weights at 224 x 224, first held to OpenCV's dnn (through the ONNX
# graph Tests/Fixtures/network/classifier-oracle.py makes) on PHOTO's box.
set -euo pipefail
cd "$(dirname "$0")/.."
catctl=$(realpath "${1:-.build/release/catctl}")
photo=$(realpath "${2:-Tests/Fixtures/cats/02-orange-white-lying.jpg}")
images=${3:-40}
model=Resources/models/yolo-fastest/yolo-fastest-1.1-xl

missing=()
[ -f /usr/include/xnnpack.h ] || missing+=(libxnnpack-dev)
[ -f /usr/include/pthreadpool.h ] || missing+=(libpthreadpool-dev)
/usr/bin/python3 -c 'import cv2' 2>/dev/null || missing+=(python3-opencv)
/usr/bin/python3 -c "import onnx" 2>/dev/null || missing+=(python3-onnx)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang -O2 -march=native -o "$work/xnnpack-network" Benchmarks/xnnpack-network.c -lXNNPACK -lpthreadpool -lm

# The two input sizes catctl uses for PHOTO (CatDetector.inputSize: 352 and 480 on the long
# side, the short side a multiple of 32 keeping the shape).
read -r width height < <(/usr/bin/python3 -c 'import cv2, sys; i = cv2.imread(sys.argv[1]); print(i.shape[1], i.shape[0])' "$photo")
sizes=$(/usr/bin/python3 - "$width" "$height" <<'PY'
import sys
w, h = int(sys.argv[1]), int(sys.argv[2])
def size(long):
    short = lambda a, b: max(32, min(long, round(long * a / max(1, b) / 32) * 32))
    return (long, short(h, w)) if w >= h else (short(w, h), long)
print(" ".join(f"{a}x{b}" for a, b in (size(352), size(480))))
PY
)
first=${sizes%% *}

echo "XNNPACK's output against OpenCV's dnn on $(basename "$photo") at $first:"
/usr/bin/python3 - "$model" "$photo" "${first%x*}" "${first#*x}" "$work" <<'PY'
import subprocess, sys
import cv2, numpy as np
model, photo, w, h, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
net = cv2.dnn.readNetFromDarknet(model + ".cfg", model + ".weights")
blob = cv2.dnn.blobFromImage(cv2.imread(photo), 1 / 255.0, (w, h), swapRB=True, crop=False)
blob.astype(np.float32).tofile(work + "/blob.f32")
names = net.getLayerNames()
heads = [names[i - 1] for i, n in enumerate(names) if n.startswith("yolo")]
net.setInput(blob)
outputs = net.forward(heads)
subprocess.run([work + "/xnnpack-network", model + ".cfg", model + ".weights", "1", "1", f"{w}x{h}",
                "--dump", work + "/blob.f32", work + "/out"], check=True, capture_output=True)
for k, o in enumerate(outputs):
    ours = np.fromfile(f"{work}/out-{k}.f32", dtype=np.float32)
    ref = o.reshape(o.shape[1:]).transpose(2, 0, 1).reshape(-1)  # OpenCV's NHWC head, as planes
    print(f"  head {k}: {ref.size} values, largest difference {np.abs(ours - ref).max():.4f} "
          f"(values up to {np.abs(ref).max():.1f})")
PY

# catctl with no network installed beside it: the same binary, alone in a folder; and with
# the detector alone (no classifier: no look at the boxes), for the detector's own time.
mkdir -p "$work/bare" "$work/nolook/Resources/models"
cp "$catctl" "$work/bare/catctl"
cp "$catctl" "$work/nolook/catctl"
for d in cats fonts; do ln -s "$PWD/Resources/$d" "$work/nolook/Resources/$d"; done
ln -s "$PWD/Resources/models/yolo-fastest" "$work/nolook/Resources/models/yolo-fastest"
copies=()
for _ in $(seq "$images"); do copies+=("$photo"); done
per_picture() {  # CORES BINARY: ms per picture of `detect` over the copies, the best of 3
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s%N)
    taskset -c "$1" "$2" detect --json "${copies[@]}" >/dev/null 2>&1
    end=$(date +%s%N)
    local ms=$(( (end - start) / 1000000 ))
    [ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
  done
  echo "$best"
}
# On 1 and 2 cores: catctl's time a picture (detect with WITH less WITHOUT installed) and
# XNNPACK's on MODEL at SIZES.  compare WITH WITHOUT MODEL "SIZES" WHAT
compare() {
  for cores in 1 2; do
    local set=0; [ "$cores" = 1 ] || set=0,1
    local with without ours xnn
    with=$(per_picture "$set" "$1")
    without=$(per_picture "$set" "$2")
    ours=$(/usr/bin/python3 -c "print(f'{($with - $without) / $images:.1f}')")
    # shellcheck disable=SC2086
    xnn=$(taskset -c "$set" "$work/xnnpack-network" "$3.cfg" "$3.weights" "$cores" 20 $4 | awk '/all sizes/ { print $3 }')
    echo "  $cores core(s): catctl's kernels $ours ms$5, XNNPACK $xnn ms" \
      "(catctl's detect: $(/usr/bin/python3 -c "print(f'{$with / $images:.1f}')") ms a picture in all)"
  done
}
echo
echo "both passes ($sizes) per picture, the median of the runs (XNNPACK) or the best of 3 (catctl):"
compare "$work/nolook/catctl" "$work/bare/catctl" "$model" "$sizes" ""

classifier=Resources/models/efficientnet-lite0/efficientnet-lite0
echo
echo "the classifier: XNNPACK's output against OpenCV's dnn on $(basename "$photo")'s cat box:"
box=$("$catctl" detect --json "$photo" | /usr/bin/python3 -c '
import json, sys
cats = json.loads(sys.stdin.readline())["cats"]
print(" ".join(str(cats[0][k]) for k in ("x", "y", "width", "height")) if cats else "")')
[ -n "$box" ] || { echo "  no cat in $photo: give a photo with one cat"; exit 1; }
/usr/bin/python3 - "$classifier" "$photo" "$box" "$work" <<'PY'
import runpy, subprocess, sys
import numpy as np
model, photo, box, work = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3].split()], sys.argv[4]
oracle = runpy.run_path("Tests/Fixtures/network/classifier-oracle.py")
net = oracle["graph"](model + ".cfg", model + ".weights")
blob = oracle["pillow"](photo, *box)
blob.astype(np.float32).tofile(work + "/crop.f32")
net.setInput(blob)
theirs = net.forward().reshape(-1)
subprocess.run([work + "/xnnpack-network", model + ".cfg", model + ".weights", "1", "1", "224x224",
                "--dump", work + "/crop.f32", work + "/look"], check=True, capture_output=True)
ours = np.fromfile(work + "/look-0.f32", dtype=np.float32)
print(f"  1000 probabilities, largest difference {np.abs(ours - theirs).max():.6f}; domestic cat "
      f"{ours[281:286].sum():.4f} against {theirs[281:286].sum():.4f}")
PY

echo
echo "one look (224x224) per picture, the median of the runs (XNNPACK) or the best of 3 (catctl):"
compare "$catctl" "$work/nolook/catctl" "$classifier" 224x224 " (the crop and its resize included)"
