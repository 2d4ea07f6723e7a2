#!/usr/bin/env bash
# libvips' own "Speed and memory use" benchmark (libvips/vips-bench), every peer in one run:
# load a 10000x10000 Q75 JPEG, crop 100 pixels off every edge, shrink by 10 %, sharpen with
# the 3x3 convolution [-1 -1 -1; -1 16 -1; -1 -1 -1] / 8, save as JPEG. For each tool: the
# best of RUNS wall times and the peak RSS of that run (GNU time). Installs what it needs:
# libvips-tools, imagemagick and graphicsmagick from Debian; pyvips, Pillow, OpenCV and numpy
# from PyPI. Builds catctl in release mode.
#   Benchmarks/vips-bench.sh [runs]        (default 3)
# Each tool runs the pipeline the way vips-bench writes it for that tool (vips.py, vips.sh,
# im.sh with a policy that lifts Debian's 256 MiB cap, gm.sh, pil.py, opencv.py).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}

need=()
command -v vips >/dev/null || need+=(libvips-tools)
command -v convert-im6.q16 >/dev/null || need+=(imagemagick)
command -v gm >/dev/null || need+=(graphicsmagick)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null
fi
python3 -c "import pyvips, PIL, cv2, numpy" 2>/dev/null || python3 -m pip install -q pyvips pillow opencv-python-headless numpy
scripts/install-deps
# The binary as scripts/install builds it (the Swift runtime linked in), so memory is what users see.
swift build -c release --product catctl --static-swift-stdlib --scratch-path .build-install >/dev/null
catctl=$PWD/.build-install/release/catctl

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The input: Chelsea (CC0) upscaled to 10000x10000 with grain, so it compresses like a photo.
python3 - "$work/x.jpg" <<'PY'
import sys
import numpy as np
from PIL import Image
im = Image.open("Tests/Fixtures/photos/chelsea.png").convert("RGB").resize((10000, 10000), Image.BILINEAR)
a = np.asarray(im).astype(np.int16) + np.random.default_rng(3).normal(0, 6, (10000, 10000, 3)).round().astype(np.int16)
Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(sys.argv[1], quality=75)
PY
printf '3 3 8\n-1 -1 -1\n-1 16 -1\n-1 -1 -1\n' > "$work/mask.mat"
mkdir -p "$work/im6"
cat > "$work/im6/policy.xml" <<'XML'
<policymap>
  <policy domain="resource" name="memory" value="8GiB"/>
  <policy domain="resource" name="map" value="16GiB"/>
  <policy domain="resource" name="area" value="4GP"/>
  <policy domain="resource" name="disk" value="16GiB"/>
</policymap>
XML
cat > "$work/run_pyvips.py" <<'PY'
import sys
import pyvips
im = pyvips.Image.new_from_file(sys.argv[1], access="sequential")
im = im.crop(100, 100, im.width - 200, im.height - 200)
im = im.resize(0.9)
mask = pyvips.Image.new_from_array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], scale=8)
im = im.conv(mask, precision="integer")
im.write_to_file(sys.argv[2])
PY
cat > "$work/run_pillow.py" <<'PY'
import sys
from PIL import Image, ImageFilter
im = Image.open(sys.argv[1])
w, h = im.size
im = im.crop((100, 100, w - 100, h - 100))
w, h = im.size
im = im.resize((int(w * 0.9), int(h * 0.9)), Image.BILINEAR)
im = im.filter(ImageFilter.Kernel((3, 3), (-1, -1, -1, -1, 16, -1, -1, -1, -1), scale=8))
im.save(sys.argv[2], quality=75)
PY
cat > "$work/run_opencv.py" <<'PY'
import sys
import cv2
import numpy as np
im = cv2.imread(sys.argv[1])
im = im[100:-100, 100:-100]
im = cv2.resize(im, None, fx=0.9, fy=0.9, interpolation=cv2.INTER_LINEAR)
kernel = np.array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], dtype=np.float32) / 8
im = cv2.filter2D(im, -1, kernel)
cv2.imwrite(sys.argv[2], im, [cv2.IMWRITE_JPEG_QUALITY, 75])
PY

# measure NAME CMD...: appends "seconds peak_kib" of one run to $work/NAME.
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { echo "$name failed: $(tail -3 "$work/err")" >&2; return 0; }
  cat "$work/t" >> "$work/$name"
}
x=$work/x.jpg
tools=(catctl pyvips vips-cli imagemagick graphicsmagick pillow opencv)
for r in $(seq "$runs"); do
  measure catctl "$catctl" edit --filter crop:9800x9800+100+100 --filter resize:90% \
    --filter convolve:-1,-1,-1,-1,16,-1,-1,-1,-1:8 --quality 75 --force "$x" "$work/catctl.jpg"
  measure pyvips python3 "$work/run_pyvips.py" "$x" "$work/pyvips.jpg[Q=75]"
  measure vips-cli sh -c "vips crop '$x' '$work/t1.v' 100 100 9800 9800 && vips resize '$work/t1.v' '$work/t2.v' 0.9 \
    && vips conv '$work/t2.v' '$work/vips.jpg[Q=75]' '$work/mask.mat' --precision integer; rm -f '$work'/t?.v"
  measure imagemagick env MAGICK_CONFIGURE_PATH="$work/im6" convert-im6.q16 "$x" -crop 9800x9800+100+100 \
    -resize 90% -morphology Convolve '3x3: -0.125,-0.125,-0.125 -0.125,2,-0.125 -0.125,-0.125,-0.125' \
    -quality 75 "$work/im.jpg"
  measure graphicsmagick gm convert "$x" -crop 9800x9800+100+100 -resize 90% \
    -convolve "-1,-1,-1,-1,16,-1,-1,-1,-1" -quality 75 "$work/gm.jpg"
  measure pillow python3 "$work/run_pillow.py" "$x" "$work/pillow.jpg"
  measure opencv python3 "$work/run_opencv.py" "$x" "$work/opencv.jpg"
done

echo "machine: $(nproc) cores, $(vips --version), $(convert-im6.q16 -version | head -1 | cut -d' ' -f2-3)," \
  "$(gm version | head -1 | cut -d' ' -f1-2), Pillow $(python3 -c 'import PIL; print(PIL.__version__)')," \
  "OpenCV $(python3 -c 'import cv2; print(cv2.__version__)'); best of $runs"
printf '| %-15s | %8s | %12s |\n' tool time "peak memory"
printf '| %-15s | %8s | %12s |\n' --- --- ---
for tool in "${tools[@]}"; do
  [ -s "$work/$tool" ] || { printf '| %-15s | %8s | %12s |\n' "$tool" failed -; continue; }
  best=$(sort -n "$work/$tool" | head -1)
  printf '| %-15s | %6.2f s | %8.0f MiB |\n' "$tool" "${best% *}" "$(awk -v k="${best#* }" 'BEGIN {print k / 1024}')"
done
# Every output is the same picture: its size, and its mean difference to pyvips's.
python3 - "$work" "${tools[@]}" <<'PY'
import os, sys
import numpy as np
from PIL import Image
work, tools = sys.argv[1], sys.argv[2:]
names = {"vips-cli": "vips", "imagemagick": "im", "graphicsmagick": "gm"}
ref = np.asarray(Image.open(os.path.join(work, "pyvips.jpg")).convert("RGB"), dtype=np.float64)
for tool in tools:
    path = os.path.join(work, names.get(tool, tool) + ".jpg")
    if not os.path.exists(path):
        continue
    im = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    same = im.shape == ref.shape
    diff = np.abs(im - ref).mean() if same else float("nan")
    print(f"{tool:15} {im.shape[1]}x{im.shape[0]}  mean difference to pyvips {diff:.2f}")
PY
