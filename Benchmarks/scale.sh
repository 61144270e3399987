#!/usr/bin/env bash
# Scale: a generated sysfs with many thermal zones and hwmon chips (default 500 zones with
# two trips each, 50 chips with 8 channels each), laid out as the kernel does (class links
# into devices/, values in m°C with a newline). Measures one `thermtop status --json`
# (mean of --runs, with hyperfine when installed) and one dashboard sample (the debug
# overlay's "sample … ms" in a tmux pane), each also per file in the tree, and checks that
# keys are answered with that many sensors.
#
#   Benchmarks/scale.sh [--zones N] [--chips M] [--runs R] [--binary PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
zones=500; chips=50; runs=20; binary=.build/debug/thermtop
while [ $# -gt 0 ]; do
  case "$1" in
    --zones) zones=$2; shift 2 ;; --chips) chips=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;; --binary) binary=$2; shift 2 ;;
    *) echo "scale.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
binary=$(readlink -f "$binary")
root=$(mktemp -d /tmp/thermtop-scale.XXXXXX)
sock=thermtop-scale-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$root"' EXIT

mkdir -p "$root/class/thermal" "$root/class/hwmon" "$root/devices/virtual/thermal" "$root/devices/platform"
for i in $(seq 0 $((zones - 1))); do
  d="$root/devices/virtual/thermal/thermal_zone$i"
  mkdir -p "$d"
  printf 'zone%d\n' "$i" > "$d/type"
  printf '%d\n' $((30000 + i * 97 % 40000)) > "$d/temp"
  printf 'enabled\n' > "$d/mode"
  printf 'passive\n' > "$d/trip_point_0_type"; printf '90000\n' > "$d/trip_point_0_temp"; printf '2000\n' > "$d/trip_point_0_hyst"
  printf 'critical\n' > "$d/trip_point_1_type"; printf '105000\n' > "$d/trip_point_1_temp"; printf '0\n' > "$d/trip_point_1_hyst"
  ln -s "../../devices/virtual/thermal/thermal_zone$i" "$root/class/thermal/thermal_zone$i"
done
for c in $(seq 0 $((chips - 1))); do
  d="$root/devices/platform/chip.$c/hwmon/hwmon$c"
  mkdir -p "$d"
  printf 'chip%d\n' "$c" > "$d/name"
  for k in $(seq 1 8); do
    printf '%d\n' $((35000 + c * 311 % 30000 + k * 500)) > "$d/temp${k}_input"
    printf 'Sensor %d\n' "$k" > "$d/temp${k}_label"
    printf '95000\n' > "$d/temp${k}_max"; printf '105000\n' > "$d/temp${k}_crit"
  done
  ln -s "../../devices/platform/chip.$c/hwmon/hwmon$c" "$root/class/hwmon/hwmon$c"
done
files=$(find "$root" -type f | wc -l)

# One status --json.
if command -v hyperfine >/dev/null; then
  ms=$(hyperfine -N --warmup 2 --runs "$runs" --export-json "$root/h.json" "$binary status --json --sysfs-root $root" >/dev/null 2>&1;
       /usr/bin/python3 -c "import json;print('%.2f' % (json.load(open('$root/h.json'))['results'][0]['mean']*1000))")
else
  t0=$(date +%s%N)
  for _ in $(seq "$runs"); do "$binary" status --json --sysfs-root "$root" >/dev/null || true; done
  ms=$(( ($(date +%s%N) - t0) / runs / 1000 ))
  ms=$(awk -v us="$ms" 'BEGIN { printf "%.2f", us / 1000 }')
fi
sensors=$("$binary" status --json --sysfs-root "$root" | grep -c '"serious_rule"' || true)

# One dashboard sample, from the debug overlay; and keys answered.
tmux -L "$sock" -f /dev/null new-session -d -s s -x 160 -y 50 \
  "env LANG=C.UTF-8 TERM=tmux-256color '$binary' --sysfs-root '$root'; sleep 60"
sleep 4
t0=$(date +%s%N)
tmux -L "$sock" send-keys -t s d
keyms=""
for _ in $(seq 100); do
  if tmux -L "$sock" capture-pane -p -t s | grep -q "debug (d closes)"; then keyms=$(( ($(date +%s%N) - t0) / 1000000 )); break; fi
  sleep 0.05
done
sleep 2
sample=$(tmux -L "$sock" capture-pane -p -t s | grep -oE 'sample [0-9.]+ ms' | head -1 | awk '{print $2}')
awk -v z="$zones" -v c="$chips" -v f="$files" -v s="$sensors" -v ms="$ms" -v sm="${sample:-NA}" -v k="${keyms:-NA}" 'BEGIN {
  printf "SCALE zones=%d chips=%d files=%d sensors=%d status_json_ms=%s status_us_per_file=%.2f dashboard_sample_ms=%s sample_us_per_file=%s key_to_overlay_ms=%s\n",
    z, c, f, s, ms, ms * 1000 / f, sm, (sm == "NA" ? "NA" : sprintf("%.2f", sm * 1000 / f)), k }'
