#!/usr/bin/env bash
# One-shot cost: `thermtop status --json` (and `--version`, the startup floor) against
# lm-sensors' `sensors` and `sensors -j`, with hyperfine -N, in one run (ratios, not absolutes:
# the machine is shared). Installs hyperfine and lm-sensors from Debian when missing (root).
#
#   Benchmarks/oneshot.sh [--runs N (100)] [--binary PATH (release build)]
#
# thermtop reads the repository's intel-laptop fixture (--sysfs-root). `sensors` only reads
# /sys: with PEER_BENCH (or ../shared/bench) present it runs inside peer-ns, which grafts
# that harness's fake laptop over /sys; without it, it reads this machine's /sys, which the
# table says.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=100; binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;; --binary) binary=$2; shift 2 ;;
    *) echo "oneshot.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v sensors >/dev/null || need+=(lm-sensors)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "oneshot.sh: needs ${need[*]} (run as root to install)" >&2; exit 69; }
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
if [ -z "$binary" ]; then
  swift build -c release --product thermtop >&2
  binary=$(swift build -c release --show-bin-path)/thermtop
fi
fixture=$(pwd)/Tests/Fixtures/intel-laptop
bench=${PEER_BENCH:-$(pwd)/../shared/bench}
wrap=""; where="this machine's /sys"
if [ -x "$bench/peer-ns" ] && [ "$(id -u)" = 0 ]; then wrap="$bench/peer-ns --"; where="peer-ns fake laptop"; fi
out=$(mktemp -d)
# The whole hyperfine run goes inside the namespace, so its setup is paid once, not per run.
$wrap hyperfine -N --warmup 5 --runs "$runs" --ignore-failure --export-json "$out/h.json" \
  -n "thermtop --version" "$binary --version" \
  -n "thermtop status --json" "$binary status --json --sysfs-root $fixture" \
  -n "sensors" "sensors" \
  -n "sensors -j" "sensors -j" >/dev/null 2>&1 || true
/usr/bin/python3 - "$out/h.json" "$where" "${wrap:+1}" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r.get("sensors")
print(f"one-shot wall time, hyperfine -N (sensors reads {sys.argv[2]})")
print(f"| command | mean ms | ± ms | × sensors |")
print(f"| --- | --- | --- | --- |")
for name, x in r.items():
    ratio = x["mean"] / base["mean"] if base else float("nan")
    print(f"| {name} | {x['mean']*1000:.2f} | {x['stddev']*1000:.2f} | {ratio:.2f} |")
PY
rm -rf "$out"
