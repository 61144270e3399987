#!/usr/bin/env bash
# What thermtop costs next to htop (and btop if installed) watching the same fake laptop /sys,
# measured by the shared peer-cost harness (../shared/bench) in one interleaved run, so the
# figures are comparable as ratios on a shared, noisy machine. Needs root (mount namespaces).
#
#   Benchmarks/peer-cost.sh [--seconds N] [--repeat R]      (defaults: 30 s, 3 rounds)
#
# Prints the harness table, then thermtop/htop ratios for CPU, steady CPU, peak RSS, bytes
# written to the terminal and wakeups. Builds thermtop in release mode first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${PEER_BENCH:-$ROOT/../shared/bench}
SECONDS_EACH=30; REPEAT=3
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--repeat R]" >&2; exit 2 ;;
  esac
done
[ -x "$BENCH/peer-cost" ] || { echo "peer-cost harness not found at $BENCH" >&2; exit 1; }
command -v htop >/dev/null || { echo "htop is not installed (apt-get install -y htop)" >&2; exit 1; }

(cd "$ROOT" && swift build -c release --static-swift-stdlib --product thermtop --scratch-path .build-release >&2)
BIN=$(cd "$ROOT" && swift build -c release --scratch-path .build-release --show-bin-path)/thermtop
OUT=/tmp/thermtop-bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
# Generate the fake laptop afresh: a copied fixture-laptop/ may have lost its class/ symlinks
# (then every monitor sees no sensors and thermtop falls back to its simulated laptop).
/usr/bin/python3 "$BENCH/make-fixture-laptop" "$OUT/fixture" >/dev/null

progs=(thermtop "$BIN" htop htop)
command -v btop >/dev/null && progs+=(btop btop)
"$BENCH/peer-cost" --fixture "$OUT/fixture" --seconds "$SECONDS_EACH" --repeat "$REPEAT" --out "$OUT" --panes "$OUT/panes" -- "${progs[@]}" | tee "$OUT/stdout.txt"

# Ratios of the per-program means (RESULT_MEAN lines; RESULT lines when --repeat 1).
awk '
  /^RESULT(_MEAN)? / {
    name = $2
    for (i = 3; i <= NF; i++) { split($i, kv, "="); v[name, kv[1]] = kv[2] }
    seen[name] = 1
  }
  END {
    split("cpu_pct steady_pct rss_kb tty_Bps ctxsw_per_s", keys, " ")
    printf "\nthermtop / htop (same run; < 1 means thermtop costs less)\n"
    for (k = 1; k <= 5; k++) {
      a = v["thermtop", keys[k]]; b = v["htop", keys[k]]
      if (a != "" && b != "" && b + 0 > 0) printf "  %-12s thermtop %-10s htop %-10s ratio %.2f\n", keys[k], a, b, a / b
      else printf "  %-12s thermtop %-10s htop %-10s ratio n/a\n", keys[k], a, b
    }
  }' "$OUT/stdout.txt" | tee "$OUT/ratios.txt"
echo "raw results: $OUT"
