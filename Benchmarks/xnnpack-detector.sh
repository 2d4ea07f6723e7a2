#!/usr/bin/env bash
# The cat detector's network (Yolo-Fastest-1.1-xl, both passes) on catctl's own kernels
# against XNNPACK's (Debian's libxnnpack-dev), in one run, on 1 and 2 cores: which runtime the
# detector should use (issue: a runtime for three networks).
#
#   Benchmarks/xnnpack-detector.sh [CATCTL] [PHOTO] [IMAGES]
#
# CATCTL: a release catctl (default .build/release/catctl); PHOTO: a photo (default a
# 1200x1600 fixture); IMAGES: how many copies one process reads (default 40).
#
# catctl's time is read from `catctl detect` over IMAGES copies of PHOTO in one process, less
# the same with no network installed (the cascades and the decode), over IMAGES: the network's
# two passes per picture, as catctl runs them (on 2 cores, one pass a core). XNNPACK's is
# Benchmarks/xnnpack-detector.c on the same two input sizes (the same weights, batch
# normalisation folded the same way), its output first held to OpenCV's dnn on PHOTO.
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
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang -O2 -march=native -o "$work/xnnpack-detector" Benchmarks/xnnpack-detector.c -lXNNPACK -lpthreadpool -lm

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
subprocess.run([work + "/xnnpack-detector", model + ".cfg", model + ".weights", "1", "1", f"{w}x{h}",
                "--dump", work + "/blob.f32", work + "/out"], check=True, capture_output=True)
for k, o in enumerate(outputs):
    ours = np.fromfile(f"{work}/out-{k}.f32", dtype=np.float32)
    ref = o.reshape(o.shape[1:]).transpose(2, 0, 1).reshape(-1)  # OpenCV's NHWC head, as planes
    print(f"  head {k}: {ref.size} values, largest difference {np.abs(ours - ref).max():.4f} "
          f"(values up to {np.abs(ref).max():.1f})")
PY

# catctl with no network installed beside it: the same binary, alone in a folder.
mkdir -p "$work/bare"
cp "$catctl" "$work/bare/catctl"
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
echo
echo "both passes ($sizes) per picture, the median of the runs (XNNPACK) or the best of 3 (catctl):"
for cores in 1 2; do
  set=0; [ "$cores" = 1 ] || set=0,1
  with=$(per_picture "$set" "$catctl")
  without=$(per_picture "$set" "$work/bare/catctl")
  ours=$(/usr/bin/python3 -c "print(f'{($with - $without) / $images:.1f}')")
  xnn=$(taskset -c "$set" "$work/xnnpack-detector" "$model.cfg" "$model.weights" "$cores" 20 $sizes | awk '/all sizes/ { print $3 }')
  echo "  $cores core(s): catctl's kernels $ours ms, XNNPACK $xnn ms" \
    "(catctl's detect: $(/usr/bin/python3 -c "print(f'{$with / $images:.1f}')") ms a picture with the cascades and decode)"
done
