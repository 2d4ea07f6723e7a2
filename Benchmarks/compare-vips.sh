#!/usr/bin/env bash
# catctl against libvips on the same photos, in the same run: decode -> sepia -> encode.
# Installs what it needs (libvips-tools, plasma-workspace-wallpapers, pngcheck; Pillow and
# numpy from PyPI to make the 12 MP test cat), builds catctl in release mode, makes the
# inputs, runs catctl and vips alternately, and prints medians, ratios and peak memory.
#   Benchmarks/compare-vips.sh [runs]        (default 5 runs per case)
#   CATCTL_BEFORE=/path/to/old/catctl Benchmarks/compare-vips.sh
#       also times an older build in the same rounds (before/after a change) and prints
#       after/before ratios, plus a spatial chain (sharpen, vignette) that vips does not run.
# Targets (issue 5): JPEG->JPEG <= 0.7x vips; JPEG->PNG <= 0.5x and size <= 1.05x;
# progressive 14.7 MP JPEG->JPEG <= 0.85x; batch of 8 with 2 jobs <= 0.7x xargs -P2 vips;
# peak memory of one 12 MP JPEG->JPEG <= 1.5x vips's. (Issue 11) a 12 MP JPEG -> 800 px
# thumbnail <= 0.5x vipsthumbnail's time, peak memory <= its; 16 of them, 2 jobs, <= 0.5x
# xargs -P2 vipsthumbnail; mean absolute difference to Pillow's LANCZOS <= vipsthumbnail's + 0.3.
# (Issue 10) 12 MP JPEG -> WebP q80 with sepia <= 0.8x vips; a 50-frame animated GIF with
# sepia -> GIF <= 0.5x vips. (Issue 20) 12 MP HEIC -> JPEG <= 0.8x vips; JPEG XL -> JPEG <= 0.8x;
# JPEG -> AVIF at the same quality and effort <= 0.9x; tiled 12 MP TIFF -> JPEG <= 0.8x with peak
# memory no higher than vips's.
#   CATCTL_BENCH=formats Benchmarks/compare-vips.sh [runs]     only issue 20's rows
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
only=${CATCTL_BENCH:-all}

need=()
command -v vips >/dev/null || need+=(libvips-tools)
command -v pngcheck >/dev/null || need+=(pngcheck)
ls /usr/share/wallpapers/Volna/contents/images/*.jpg >/dev/null 2>&1 || need+=(plasma-workspace-wallpapers)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
python3 -c "import PIL, numpy" 2>/dev/null || python3 -m pip install -q pillow numpy
scripts/install-deps
# The binary as scripts/install builds it (the Swift runtime linked in), so memory is what users see.
swift build -c release --product catctl --static-swift-stdlib --scratch-path .build-install >/dev/null
catctl=$PWD/.build-install/release/catctl
before=${CATCTL_BEFORE:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 Benchmarks/make-cat12.py "$work/cat12.jpg"  # the 12 MP cat (Chelsea, upscaled, grain)
# 50 frames of Chelsea turning (451x300, 40-49 ms each, looping), written by Pillow.
python3 - "$work/anim50.gif" <<'PY'
import sys
from PIL import Image
cat = Image.open("Tests/Fixtures/photos/chelsea.png").convert("RGB")
frames = [cat.rotate(i * 7.2, resample=Image.BILINEAR) for i in range(50)]
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=[40 + i % 10 for i in range(50)], loop=0)
PY
volna=$(ls -S /usr/share/wallpapers/Volna/contents/images/*.jpg | head -1)
printf '3 3\n0.393 0.769 0.189\n0.349 0.686 0.168\n0.272 0.534 0.131\n' > "$work/sepia.mat"
mkdir -p "$work/batch-in" "$work/thumbs-in"
for i in 1 2 3 4 5 6 7 8; do cp "$work/cat12.jpg" "$work/batch-in/cat$i.jpg"; done
for i in $(seq 1 16); do cp "$work/cat12.jpg" "$work/thumbs-in/cat$i.jpg"; done
# The same cat in the formats of issue 20, written by vips (libheif's x265, libjxl, libtiff).
vips copy "$work/cat12.jpg" "$work/cat12.heic[Q=50]"
vips copy "$work/cat12.jpg" "$work/cat12.jxl[Q=90]"
vips copy "$work/cat12.jpg" "$work/cat12t.tif[tile,tile-width=256,tile-height=256,compression=deflate]"

# measure NAME CMD...: appends "seconds peak_kib" of one run to $work/NAME.
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1
  cat "$work/t" >> "$work/$name"
}
median() { sort -n "$work/$1" | awk -v c="${2:-1}" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'; }
median_col() { awk -v c="$2" '{print $c}' "$work/$1" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

formats() {
  measure cat_heic "$catctl" edit --filter sepia --quality 90 --force "$work/cat12.heic" "$work/h.jpg"
  measure vips_heic vips recomb "$work/cat12.heic" "$work/vh.jpg[Q=90]" "$work/sepia.mat"
  measure cat_jxl "$catctl" edit --filter sepia --quality 90 --force "$work/cat12.jxl" "$work/x.jpg"
  measure vips_jxl vips recomb "$work/cat12.jxl" "$work/vx.jpg[Q=90]" "$work/sepia.mat"
  measure cat_avif "$catctl" edit --filter sepia --quality 50 --effort 4 --force "$work/cat12.jpg" "$work/a.avif"
  measure vips_avif vips recomb "$work/cat12.jpg" "$work/va.avif[Q=50,effort=4]" "$work/sepia.mat"
  measure cat_tiff "$catctl" edit --filter sepia --quality 90 --force "$work/cat12t.tif" "$work/t.jpg"
  measure vips_tiff vips recomb "$work/cat12t.tif" "$work/vt2.jpg[Q=90]" "$work/sepia.mat"
}

for r in $(seq "$runs"); do
  formats
  [ "$only" = formats ] && continue
  measure cat_jpg "$catctl" edit --filter sepia --quality 90 --force "$work/cat12.jpg" "$work/c.jpg"
  measure vips_jpg vips recomb "$work/cat12.jpg" "$work/v.jpg[Q=90]" "$work/sepia.mat"
  measure cat_png "$catctl" edit --filter sepia --force "$work/cat12.jpg" "$work/c.png"
  measure vips_png vips recomb "$work/cat12.jpg" "$work/v.png" "$work/sepia.mat"
  measure cat_prog "$catctl" edit --filter sepia --quality 90 --force "$volna" "$work/p.jpg"
  measure vips_prog vips recomb "$volna" "$work/vp.jpg[Q=90]" "$work/sepia.mat"
  rm -rf "$work/bc" "$work/bv"; mkdir -p "$work/bv"
  measure cat_batch "$catctl" batch --jobs 2 --filter sepia --quality 90 --output-dir "$work/bc" "$work/batch-in"
  measure vips_batch sh -c "cd '$work/batch-in' && ls | xargs -P2 -I{} vips recomb {} '$work/bv/{}[Q=90]' '$work/sepia.mat'"
  # Thumbnails (issue 11): 12 MP JPEG -> 800 px JPEG q90, one file and 16 files two at a time.
  measure cat_thumb "$catctl" edit --filter resize:800 --quality 90 --force "$work/cat12.jpg" "$work/ct.jpg"
  measure vips_thumb vipsthumbnail "$work/cat12.jpg" -s 800 -o "$work/vt.jpg[Q=90]"
  rm -rf "$work/tc" "$work/tv"; mkdir -p "$work/tv"
  measure cat_thumbs "$catctl" batch --jobs 2 --filter resize:800 --quality 90 --output-dir "$work/tc" "$work/thumbs-in"
  measure vips_thumbs sh -c "ls '$work/thumbs-in'/*.jpg | xargs -P2 -I{} vipsthumbnail {} -s 800 -o '$work/tv/%s.jpg[Q=90]'"
  # WebP and animated GIF (issue 10).
  measure cat_webp "$catctl" edit --filter sepia --quality 80 --force "$work/cat12.jpg" "$work/c.webp"
  measure vips_webp vips recomb "$work/cat12.jpg" "$work/v.webp[Q=80]" "$work/sepia.mat"
  measure cat_gif "$catctl" edit --filter sepia --force "$work/anim50.gif" "$work/c.gif"
  measure vips_gif vips recomb "$work/anim50.gif[n=-1]" "$work/v.gif" "$work/sepia.mat"
  if [ -n "$before" ]; then
    measure old_jpg "$before" edit --filter sepia --quality 90 --force "$work/cat12.jpg" "$work/o.jpg"
    measure old_png "$before" edit --filter sepia --force "$work/cat12.jpg" "$work/o.png"
    measure old_prog "$before" edit --filter sepia --quality 90 --force "$volna" "$work/op.jpg"
    rm -rf "$work/bo"
    measure old_batch "$before" batch --jobs 2 --filter sepia --quality 90 --output-dir "$work/bo" "$work/batch-in"
    measure cat_spatial "$catctl" edit --filter sharpen --filter vignette --force "$work/cat12.jpg" "$work/s.jpg"
    measure old_spatial "$before" edit --filter sharpen --filter vignette --force "$work/cat12.jpg" "$work/os.jpg"
    measure cat_blur "$catctl" edit --filter sepia --filter blur:3 --force "$work/cat12.jpg" "$work/b.png"
    measure old_blur "$before" edit --filter sepia --filter blur:3 --force "$work/cat12.jpg" "$work/ob.png"
  fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
row() {  # label catctl-file vips-file target
  local c v; c=$(median_col "$2" 1); v=$(median_col "$3" 1)
  printf '%-34s catctl %6.3f s  vips %6.3f s  ratio %s  (target <= %s)\n' "$1" "$c" "$v" "$(ratio "$c" "$v")" "$4"
}
echo "machine: $(nproc) cores, $(vips --version), $(basename "$volna") $(vipsheader "$volna" 2>/dev/null | sed 's/.*: //')"
row "12 MP HEIC->JPEG sepia q90" cat_heic vips_heic 0.8
row "12 MP JPEG XL->JPEG sepia q90" cat_jxl vips_jxl 0.8
row "12 MP JPEG->AVIF q50 effort 4" cat_avif vips_avif 0.9
printf '%-34s catctl %d  vips %d bytes\n' "AVIF size" "$(stat -c %s "$work/a.avif")" "$(stat -c %s "$work/va.avif")"
row "12 MP tiled TIFF->JPEG sepia q90" cat_tiff vips_tiff 0.8
cm=$(median_col cat_tiff 2); vm=$(median_col vips_tiff 2)
printf '%-34s catctl %d KiB  vips %d KiB  ratio %s  (target <= 1)\n' "peak RSS, tiled TIFF->JPEG" "$cm" "$vm" "$(ratio "$cm" "$vm")"
[ "$only" = formats ] && exit 0
pngcheck -q "$work/c.png" && echo "pngcheck: catctl's PNG is valid"
row "12 MP JPEG->JPEG sepia q90" cat_jpg vips_jpg 0.7
row "12 MP JPEG->PNG sepia" cat_png vips_png 0.5
row "14.7 MP progressive JPEG->JPEG" cat_prog vips_prog 0.85
row "batch of 8, 2 jobs" cat_batch vips_batch 0.7
cs=$(stat -c %s "$work/c.png"); vs=$(stat -c %s "$work/v.png")
printf '%-34s catctl %d  vips %d  ratio %s  (target <= 1.05)\n' "PNG size (bytes)" "$cs" "$vs" "$(ratio "$cs" "$vs")"
cm=$(median_col cat_jpg 2); vm=$(median_col vips_jpg 2)
printf '%-34s catctl %d KiB  vips %d KiB  ratio %s  (target <= 1.5)\n' "peak RSS, 12 MP JPEG->JPEG" "$cm" "$vm" "$(ratio "$cm" "$vm")"
row "12 MP JPEG->WebP q80 sepia" cat_webp vips_webp 0.8
row "50-frame GIF->GIF sepia" cat_gif vips_gif 0.5
echo "thumbnails against $(vipsthumbnail --version 2>/dev/null || echo vipsthumbnail):"
row "12 MP JPEG->800 px JPEG q90" cat_thumb vips_thumb 0.5
row "16 thumbnails, 2 jobs" cat_thumbs vips_thumbs 0.5
cm=$(median_col cat_thumb 2); vm=$(median_col vips_thumb 2)
printf '%-34s catctl %d KiB  vips %d KiB  ratio %s  (target <= 1)\n' "peak RSS, thumbnail" "$cm" "$vm" "$(ratio "$cm" "$vm")"
# Quality: mean absolute difference per channel to Pillow's LANCZOS on the fully decoded photo.
python3 - "$work/cat12.jpg" "$work/ct.jpg" "$work/vt.jpg" <<'PY'
import sys
import numpy as np
from PIL import Image
full = Image.open(sys.argv[1]).convert("RGB")
out = {}
for name, path in (("catctl", sys.argv[2]), ("vipsthumbnail", sys.argv[3])):
    thumb = Image.open(path).convert("RGB")
    ref = np.asarray(full.resize(thumb.size, Image.LANCZOS), dtype=np.float64)
    out[name] = np.abs(np.asarray(thumb, dtype=np.float64) - ref).mean()
print(f"{'thumbnail MAD to Pillow LANCZOS':34} catctl {out['catctl']:.3f}  vips {out['vipsthumbnail']:.3f}  "
      f"(target: catctl <= vips + 0.3)")
PY
if [ -n "$before" ]; then
  echo "after/before ($before):"
  for pair in "12 MP JPEG->JPEG sepia q90:jpg" "12 MP JPEG->PNG sepia:png" "14.7 MP progressive JPEG->JPEG:prog" \
               "batch of 8, 2 jobs:batch" "12 MP sharpen+vignette (2 spatial):spatial" "12 MP sepia+blur:3 ->PNG:blur"; do
    label=${pair%:*}; key=${pair##*:}
    c=$(median_col "cat_$key" 1); o=$(median_col "old_$key" 1)
    printf '%-34s after %6.3f s  before %6.3f s  ratio %s\n' "$label" "$c" "$o" "$(ratio "$c" "$o")"
  done
  cmp -s "$work/c.jpg" "$work/o.jpg" && cmp -s "$work/c.png" "$work/o.png" && cmp -s "$work/s.jpg" "$work/os.jpg" \
    && cmp -s "$work/b.png" "$work/ob.png" && echo "outputs: byte-identical before and after"
fi
