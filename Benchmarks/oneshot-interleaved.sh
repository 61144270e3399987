#!/usr/bin/env bash
# `thermtop status --json` against `sensors` and `sensors -j` on the fake laptop /sys
# (Benchmarks/fakesys.py), the commands interleaved run by run by a small C runner
# (Benchmarks/interleave.c: posix_spawn and waitpid, standard output on /dev/null): medians of
# the wall time from spawn to reap. This VM's speed shifts by up to a third within seconds, so
# hyperfine's runs of one command after another (Benchmarks/oneshot.sh) compare one moment with
# another; interleaved, every command meets the same moments, and each round starts one command
# further on, so each comes first, second, … equally often (a fixed order made a build's two
# copies differ by up to 5%, by position alone). Each build is also run as a copy
# of itself (two files of one build differ by up to 2%: Benchmarks/drop-cache.py says why), and
# every file's pages are dropped from the page cache first.
# Installs lm-sensors and gcc from Debian when missing. Needs root.
#
#   sudo Benchmarks/oneshot-interleaved.sh [--runs N (500)] [BINARY ...]   (default: the release build)
#
# Prints a table and one line per build:
#   RESULT interleaved binary=PATH median_us=… copy_median_us=… ratio_sensors=… ratio_sensors_j=…
# Exit status 0; 64 for a bad invocation; 69 without root; 1 when a command fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
runs=500; binaries=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "oneshot-interleaved.sh: --runs needs a positive number" >&2; exit 64; }
            runs=$2; shift 2 ;;
    -*) echo "oneshot-interleaved.sh: unknown option $1" >&2; exit 64 ;;
    *) binaries+=("$(readlink -f "$1")"); shift ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "oneshot-interleaved.sh: needs root (a private mount namespace over /sys)" >&2; exit 69; }
need=()
for t in sensors:lm-sensors cc:gcc; do command -v "${t%%:*}" >/dev/null || need+=("${t#*:}"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
if [ ${#binaries[@]} -eq 0 ]; then
  ("$ROOT/scripts/release-build.sh" --product thermtop >&2)
  binaries=("$("$ROOT/scripts/release-build.sh" --show-bin-path)/thermtop")
fi
out=$(mktemp -d /tmp/thermtop-interleaved.XXXXXX)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/interleave" "$ROOT/Benchmarks/interleave.c"
cmds=()
for i in "${!binaries[@]}"; do
  [ -x "${binaries[$i]}" ] || { echo "oneshot-interleaved.sh: ${binaries[$i]} is not an executable" >&2; exit 64; }
  cp "${binaries[$i]}" "$out/copy$i"
  cmds+=("${binaries[$i]} status --json --no-config" "$out/copy$i status --json --no-config")
done
/usr/bin/python3 "$ROOT/Benchmarks/drop-cache.py" "${binaries[@]}" "$out"/copy*
sensors=$(command -v sensors)
/usr/bin/python3 "$ROOT/Benchmarks/fakesys.py" run --no-writer -- \
  "$out/interleave" "$runs" "${cmds[@]}" "$sensors" "$sensors -j" > "$out/medians.tsv"
/usr/bin/python3 - "$out/medians.tsv" "${#binaries[@]}" "$runs" "${binaries[@]}" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t", 1) for line in open(sys.argv[1])]
n, runs, names = int(sys.argv[2]), sys.argv[3], sys.argv[4:]
med = [float(r[0]) for r in rows]
sensors, sensors_j = med[2 * n], med[2 * n + 1]
print(f"status --json against sensors, fake laptop /sys, {runs} interleaved rounds, median µs")
print("| build | median | its copy | × sensors | × sensors -j |")
print("| --- | --- | --- | --- | --- |")
for i, name in enumerate(names):
    a, b = med[2 * i], med[2 * i + 1]
    m = (a + b) / 2
    print(f"| `{name}` | {a:.0f} | {b:.0f} | {m / sensors:.2f} | {m / sensors_j:.2f} |")
print(f"| sensors | {sensors:.0f} | | 1.00 | |")
print(f"| sensors -j | {sensors_j:.0f} | | | 1.00 |")
for i, name in enumerate(names):
    a, b = med[2 * i], med[2 * i + 1]
    m = (a + b) / 2
    print(f"RESULT interleaved binary={name} median_us={a:.0f} copy_median_us={b:.0f} "
          f"ratio_sensors={m / sensors:.3f} ratio_sensors_j={m / sensors_j:.3f}")
PY
