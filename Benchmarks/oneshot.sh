#!/usr/bin/env bash
# One-shot cost: `thermtop status --json` (and `--version`, the startup floor) against
# lm-sensors' `sensors` and `sensors -j`, all reading the same fake laptop /sys
# (Benchmarks/fakesys.py: the repository's laptop tree grafted over /sys in a private mount
# namespace), wall time with hyperfine -N and peak RSS with /usr/bin/time, in one run; then
# the CPU cost of one sample against a plain C program that preads the same files
# (Benchmarks/sample-cost.py, Benchmarks/sample-floor.c, compiled with cc at run time).
# Installs hyperfine, lm-sensors, strace and gcc from Debian when missing. Needs root.
#
#   Benchmarks/oneshot.sh [--runs N (200)] [--binary PATH (release build)] [--before PATH] [--no-sample]
#
# --before PATH adds another thermtop build (e.g. main before a change) to the same run, for
# before/after figures measured side by side.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
runs=200; binary=""; before=""; sample=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;; --binary) binary=$(readlink -f "$2"); shift 2 ;;
    --before) before=$(readlink -f "$2"); shift 2 ;;
    --no-sample) sample=0; shift ;;
    *) echo "oneshot.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "oneshot.sh: needs root (a private mount namespace over /sys)" >&2; exit 69; }
need=()
for t in hyperfine:hyperfine sensors:lm-sensors strace:strace cc:gcc /usr/bin/time:time; do
  command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
if [ -z "$binary" ]; then
  # The release build (scripts/release-build.sh, as Benchmarks/peer-cost.sh builds it).
  ("$ROOT/scripts/release-build.sh" --product thermtop >&2)
  binary=$("$ROOT/scripts/release-build.sh" --show-bin-path)/thermtop
fi
out=$(mktemp -d /tmp/thermtop-oneshot.XXXXXX)
# Drop the binaries' pages from the page cache first (Benchmarks/drop-cache.py says why), so each
# is read back the way a program is after a reboot and the two builds start alike.
/usr/bin/python3 "$ROOT/Benchmarks/drop-cache.py" "$binary" ${before:+"$before"}
# Inside the namespace: the whole hyperfine run, so the graft is paid once, not per run.
/usr/bin/python3 "$ROOT/Benchmarks/fakesys.py" run --no-writer -- bash -c '
  set -e
  b=$1; runs=$2; out=$3; before=$4
  cmds=(-n "thermtop --version" "$b --version" -n "thermtop status --json" "$b status --json --no-config")
  [ -n "$before" ] && cmds+=(-n "before: thermtop --version" "$before --version"
                             -n "before: thermtop status --json" "$before status --json --no-config")
  cmds+=(-n "sensors" "sensors" -n "sensors -j" "sensors -j")
  hyperfine -N --warmup 10 --runs "$runs" --export-json "$out/h.json" "${cmds[@]}" \
    >/dev/null 2>"$out/hyperfine.err" || { cat "$out/hyperfine.err" >&2; exit 1; }
  rss() { for i in 1 2 3 4 5 6 7; do /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 4p; }
  { echo "thermtop --version $(rss "$b" --version)"
    echo "thermtop status --json $(rss "$b" status --json --no-config)"
    if [ -n "$before" ]; then
      echo "before: thermtop --version $(rss "$before" --version)"
      echo "before: thermtop status --json $(rss "$before" status --json --no-config)"
    fi
    echo "sensors $(rss sensors)"
    echo "sensors -j $(rss sensors -j)"; } > "$out/rss.txt"
' oneshot "$binary" "$runs" "$out" "$before"
/usr/bin/python3 - "$out/h.json" "$out/rss.txt" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
rss = {}
for line in open(sys.argv[2]):
    name, kb = line.rsplit(" ", 1)
    rss[name] = int(kb)
base = r["sensors"]["mean"]
print("one-shot, same fake laptop /sys, hyperfine -N (wall time), median peak RSS of 7 runs")
print("| command | mean ms | ± ms | user ms | sys ms | × sensors | peak RSS MB |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name, x in r.items():
    peak = f"{rss[name] / 1024:.1f}" if name in rss else "–"
    print(f"| {name} | {x['mean']*1000:.2f} | {x['stddev']*1000:.2f} | {x['user']*1000:.2f} | {x['system']*1000:.2f} "
          f"| {x['mean'] / base:.2f} | {peak} |")
    print(f"RESULT oneshot name={name.replace(' ', '_').replace(':', '')} mean_ms={x['mean']*1000:.3f} ratio={x['mean'] / base:.3f} rss_kb={rss.get(name, 0)}", file=sys.stderr)
PY
rm -rf "$out"
if [ $sample = 1 ]; then
  echo
  /usr/bin/python3 "$ROOT/Benchmarks/sample-cost.py" "$binary"
fi
