#!/usr/bin/env bash
# Builds and runs every libFuzzer target for SECONDS each (default 60), seeded from the
# test fixtures; new inputs go to .build-fuzz/corpus-<target>/, crashes to
# Fuzz/crashes/<target>/ (commit them as fixtures with a regression test).
#   Fuzz/run.sh [SECONDS] [TARGET...]      TARGET: a target of Fuzz/targets (default: all)
# CATCTL_FUZZ_JOBS targets fuzz at once in the first pass (default: the cores).
# Then the decoders' bomb mode, for BOMB_SECONDS each (CATCTL_FUZZ_BOMB_SECONDS, default
# SECONDS): the real default limits (CATCTL_FUZZ_LIMITS=default), -rss_limit_mb=1024 and
# -timeout of its line in Fuzz/targets for one decode of every frame, seeded with the hostile fixtures too, so that a file costing far more
# memory or time than its size is found (at the small limits of the first pass none can
# show). CATCTL_FUZZ_BOMB_SECONDS=0 skips it; Fuzz/run.sh 0 TARGET... runs only it.
# Exits non-zero when a target found a crash, a leak, a timeout or a memory bomb.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
# Fuzz/targets: target, driver, seeds, bomb-mode timeout (- : no decoder).
field() { grep -v '^#' Fuzz/targets | awk -v t="$1" -v f="$2" '$1 == t { print $f }'; }
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(grep -v '^#' Fuzz/targets | awk '{ print $1 }')
for t in "${targets[@]}"; do [ -n "$(field "$t" 1)" ] || { echo "no fuzz target $t (Fuzz/targets)" >&2; exit 64; }; done
Fuzz/build.sh >/dev/null

out=$PWD/.build-fuzz
seed() {  # target -> seed folder
  local dir="$out/seeds-$1"
  rm -rf "$dir"; mkdir -p "$dir"
  local glob
  for glob in $(field "$1" 3 | tr ',' ' '); do cp $glob "$dir/"; done
  [ "$1" != metadata ] || head -c 4096 Tests/Fixtures/metadata/meta.jpg > "$dir/meta-head"
  echo "$dir"
}
bomb_seconds=${CATCTL_FUZZ_BOMB_SECONDS:-$seconds}
[ "$seconds" != 0 ] || bomb_seconds=${CATCTL_FUZZ_BOMB_SECONDS:-60}
status=0
# The first pass runs CATCTL_FUZZ_JOBS targets at a time (default: one per core): each
# target is one process on one core, and its inputs are small, so two of them on two cores
# find as much each as one alone, in half the time. Bomb mode below stays one at a time:
# it measures each decode's memory and time against the real limits.
fuzz_one() {
  local t=$1 corpus="$out/corpus-$1" crashes="$PWD/Fuzz/crashes/$1" seeds
  mkdir -p "$corpus" "$crashes"
  seeds=$(seed "$t")
  echo "fuzzing $t for ${seconds}s" >&2
  local rc=0
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 "$out/fuzz-$t" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "$seeds" \
    > "$out/fuzz-$t.log" 2>&1 || rc=1
  [ $rc = 0 ] || echo "fuzz-$t FAILED: see $out/fuzz-$t.log and $crashes/" >&2
  { echo "$t:"; grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$out/fuzz-$t.log" | tail -3; } >&2 || true
  return $rc
}
jobs=${CATCTL_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for t in "${targets[@]}"; do
  [ "$seconds" != 0 ] || continue
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done

# Bomb mode: the decoders at the real limits, with the hostile fixtures among the seeds.
for t in "${targets[@]}"; do
  timeout=$(field "$t" 4)
  [ "$timeout" != - ] || continue
  [ "$bomb_seconds" != 0 ] || continue
  corpus="$out/corpus-$t"
  crashes="$PWD/Fuzz/crashes/$t-bombs"
  mkdir -p "$corpus" "$crashes"
  seeds=$(seed "$t")
  cp Tests/Fixtures/hostile/* "$seeds/" 2>/dev/null || true
  rm -f "$seeds"/*.py
  echo "fuzzing $t at the default limits (bomb mode) for ${bomb_seconds}s" >&2
  # No quarantine: AddressSanitizer would keep freed memory (256 MB by default) in the
  # resident set this mode measures; a 16 MP animated WebP's canvases then went past 1 GB.
  if ! CATCTL_FUZZ_LIMITS=default SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=0 "$out/fuzz-$t" \
      -max_total_time="$bomb_seconds" -timeout="$timeout" -rss_limit_mb=1024 -malloc_limit_mb=1024 -max_len=1048576 \
      -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "$seeds" > "$out/fuzz-$t-bombs.log" 2>&1; then
    echo "fuzz-$t (bomb mode) FAILED: see $out/fuzz-$t-bombs.log and $crashes/" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$out/fuzz-$t-bombs.log" | tail -3 >&2 || true
done
exit $status
