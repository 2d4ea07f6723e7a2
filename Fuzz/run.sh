#!/usr/bin/env bash
# Builds and runs every libFuzzer target for SECONDS each (default 60), seeded from the
# test fixtures; new inputs go to .build-fuzz/corpus-<target>/, crashes to
# Fuzz/crashes/<target>/ (commit them as fixtures with a regression test).
#   Fuzz/run.sh [SECONDS] [TARGET...]      TARGET: jpeg png gif webp jxl heif tiff metadata json filter-spec
#                                          neutraliser
# Exits non-zero when a target found a crash, a leak or a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jpeg png gif webp jxl heif tiff metadata json filter-spec neutraliser)
Fuzz/build.sh >/dev/null

out=$PWD/.build-fuzz
seed() {  # target -> seed folder
  local dir="$out/seeds-$1"
  rm -rf "$dir"; mkdir -p "$dir"
  case $1 in
    jpeg) cp Tests/Fixtures/jpeg/*.jpg "$dir/" ;;
    png) cp Tests/Fixtures/pngsuite/*.png "$dir/" ;;
    gif) cp Tests/Fixtures/gif/*.gif "$dir/" ;;
    webp) cp Tests/Fixtures/webp/*.webp "$dir/" ;;
    jxl) cp Tests/Fixtures/jxl/*.jxl "$dir/" ;;
    heif) cp Tests/Fixtures/heif/*.heic Tests/Fixtures/heif/*.avif "$dir/" ;;
    tiff) cp Tests/Fixtures/tiff/*.tif* "$dir/" ;;
    metadata) cp Tests/Fixtures/metadata/*.icc "$dir/"; head -c 4096 Tests/Fixtures/metadata/meta.jpg > "$dir/meta-head" ;;
    json) cp Fuzz/seeds/json/* "$dir/" ;;
    filter-spec) cp Fuzz/seeds/filter-spec/* "$dir/" ;;
    neutraliser) cp Fuzz/seeds/neutraliser/* "$dir/" ;;
  esac
  echo "$dir"
}
status=0
for t in "${targets[@]}"; do
  corpus="$out/corpus-$t"
  crashes="$PWD/Fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  seeds=$(seed "$t")
  echo "fuzzing $t for ${seconds}s" >&2
  if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 "$out/fuzz-$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "$seeds" \
      > "$out/fuzz-$t.log" 2>&1; then
    echo "fuzz-$t FAILED: see $out/fuzz-$t.log and $crashes/" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$out/fuzz-$t.log" | tail -3 >&2 || true
done
exit $status
