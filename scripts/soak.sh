#!/usr/bin/env bash
# Soak: the dashboard at --delay 0.2 on a copy of a fixture whose values change every 0.2 s
# and whose devices come and go (a zone appears and vanishes, an hwmon chip is removed and
# restored, the battery swaps energy_* for charge_*, the power-profiles state file switches
# profile), for any length of time. `r` asks for a rediscovery every 2 s, as the uevents of
# devices coming and going do on a live /sys.
#
#   scripts/soak.sh [--seconds N (600)] [--warmup W (N/10, at least 30)] [--delay D (0.2)] [--binary PATH]
#                   [--log FILE (keep the samples: seconds rss_kb fds threads)]
#
# Samples thermtop's RSS, open descriptors and threads from /proc every 2 s. Passes when the
# process is alive and answering keys at the end, RSS grew < 1024 kB after warm-up (mean of
# the last three samples against the first sample after warm-up), and neither threads nor
# descriptors grow. Both move between phases: devices come and go and new ones are only opened
# at the next rediscovery, and a reader thread comes for the identity files of new busy
# processes (the fixture's writer starts a few every 0.2 s) and leaves after 2 s idle. So the
# maximum over the last third after warm-up may not exceed the maximum over everything before
# it, warm-up included. Prints one line:
#   SOAK seconds=600 delay=0.2 samples=… rss_warm_kb=… rss_end_kb=… growth_kb=… … result=pass
# with the thread count's range and every change of it (`thread_changes=t:n,…`, seconds since
# start, warm-up included) and the reader threads left in reads that hung past their
# deadline (`hung_readers=`, from the debug overlay at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600; warmup=""; delay=0.2; binary=.build/debug/thermtop; keep_log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --log) keep_log=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
# Warm-up: the per-sensor history (120 samples) fills in 24 s at 0.2 s; allow for that.
[ -n "$warmup" ] || warmup=$(( seconds / 10 > 30 ? seconds / 10 : 30 ))
[ -x "$binary" ] || { echo "soak.sh: no thermtop at $binary (swift build first, or --binary)" >&2; exit 66; }
command -v tmux >/dev/null || { echo "soak.sh: tmux is required" >&2; exit 69; }
binary=$(readlink -f "$binary")

work=$(mktemp -d /tmp/thermtop-soak.XXXXXX)
sock="thermtop-soak-$$"
root="$work/sys"
cp -a Tests/Fixtures/intel-laptop "$root"
writer_pid=""
cleanup() {
  [ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null || true
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

z1=devices/virtual/thermal/thermal_zone1
bat=$(cd "$root" && readlink -f class/power_supply/BAT0 | sed "s|^$root/||")
chip=$(cd "$root" && readlink -f class/hwmon/hwmon1 | sed "s|^$root/||")
cp -a "$root/$chip" "$work/chip-saved"
printf '[State]\nProfile=balanced\n' > "$work/state.ini"

# Writer: every 0.2 s new temperatures (replaced by rename: sysfs never shows a half value);
# every 3 s one device change, cycling through the hot-plug cases.
(
  cd "$root"
  i=0
  while :; do
    i=$((i + 1))
    t=$(( 45000 + (i * 7919 % 50000) ))
    printf '%s\n' "$t" > "$z1/.w" && mv "$z1/.w" "$z1/temp"
    { printf '%s\n' "$(( t - 3000 ))" > "$chip/.w" && mv "$chip/.w" "$chip/temp1_input"; } 2>/dev/null || true
    if [ $((i % 15)) = 0 ]; then
      case $(( i / 15 % 4 )) in
        0) mkdir -p devices/virtual/thermal/thermal_zone9 && printf 'soakzone\n' > devices/virtual/thermal/thermal_zone9/type \
             && printf '50000\n' > devices/virtual/thermal/thermal_zone9/temp \
             && ln -sfn ../../devices/virtual/thermal/thermal_zone9 class/thermal/thermal_zone9 ;;
        1) rm -rf class/thermal/thermal_zone9 devices/virtual/thermal/thermal_zone9 ;;
        2) rm -rf "$chip" ;;
        3) rm -rf "$chip" && cp -a "$work/chip-saved" "$chip" ;;
      esac
      # Battery: energy_* and charge_* in turn; the profile between balanced and power-saver.
      if [ $(( i / 15 % 2 )) = 0 ]; then
        printf '[State]\nProfile=power-saver\n' > "$work/.state" && mv "$work/.state" "$work/state.ini"
        rm -f "$bat"/charge_now "$bat"/charge_full; printf '30000000\n' > "$bat/energy_now"
      else
        printf '[State]\nProfile=balanced\n' > "$work/.state" && mv "$work/.state" "$work/state.ini"
        rm -f "$bat"/energy_now; printf '3000000\n' > "$bat/charge_now"; printf '4000000\n' > "$bat/charge_full"
      fi
    fi
    sleep 0.2
  done
) &
writer_pid=$!

tmux -L "$sock" -f /dev/null new-session -d -s soak -x 120 -y 40 \
  "env LANG=C.UTF-8 TERM=tmux-256color '$binary' --delay '$delay' --sysfs-root '$root' --ppd-state '$work/state.ini'; sleep 600"
shell=$(tmux -L "$sock" display-message -p -t soak '#{pane_pid}')
pid=""
# The process name is the binary's file name, cut to 15 characters by the kernel (a build
# copied to /tmp/thermtop-5685e1d is "thermtop-5685e1").
comm=$(basename "$binary" | cut -c1-15)
for _ in $(seq 50); do pid=$(pgrep -P "$shell" -x "$comm" || true); [ -n "$pid" ] && break; sleep 0.1; done
[ -n "$pid" ] || { echo "soak.sh: thermtop did not start" >&2; tmux -L "$sock" capture-pane -p -t soak >&2; exit 1; }

sample() { # rss_kb fds threads
  local rss thr fds
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
  thr=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
  fds=$(ls "/proc/$pid/fd" | wc -l)
  echo "$rss $fds $thr"
}
start=$(date +%s)
n=0
log="$work/samples"
while :; do
  now=$(( $(date +%s) - start ))
  [ -d "/proc/$pid" ] || { echo "SOAK seconds=$now result=fail reason=thermtop-exited"; exit 1; }
  echo "$now $(sample)" >> "$log"; n=$((n + 1))
  [ "$now" -ge "$seconds" ] && break
  tmux -L "$sock" send-keys -t soak r
  sleep 2
done
# Keys still answered: d opens the debug overlay.
tmux -L "$sock" send-keys -t soak d; sleep 1
overlay=$(tmux -L "$sock" capture-pane -p -t soak)
keys=no; grep -q "debug (d closes)" <<<"$overlay" && keys=yes
# The overlay names reader threads left in hung reads only when there are some.
hung=0; [ "$keys" = yes ] || hung=unknown
r=$(grep -o 'hung readers [0-9]*' <<<"$overlay" | grep -o '[0-9]*$' || true); [ -n "$r" ] && hung=$r
tmux -L "$sock" send-keys -t soak q
[ -n "$keep_log" ] && cp "$log" "$keep_log"
thread_changes=$(awk '$4 != last { printf "%s%d:%d", sep, $1, $4; sep = ","; last = $4 }' "$log")
thread_range=$(awk 'NR == 1 || $4 < lo { lo = $4 } NR == 1 || $4 > hi { hi = $4 } END { print lo "-" hi }' "$log")
stats=$(awk -v w="$warmup" '
  { all++; fall[all] = $3; hall[all] = $4; if (all == 1) r0 = $2 }
  $1 >= w { n++; r[n] = $2; f[n] = $3; h[n] = $4 }
  END {
    third = int(n / 3); if (third < 1) third = 1
    for (i = 1; i <= all - third; i++) { if (fall[i] > fa) fa = fall[i]; if (hall[i] > ha) ha = hall[i] }
    for (i = n - third + 1; i <= n; i++) { if (f[i] > fb) fb = f[i]; if (h[i] > hb) hb = h[i] }
    for (i = 1; i <= n; i++) if (r[i] > m) m = r[i]
    k = n >= 3 ? 3 : n; for (i = n - k + 1; i <= n; i++) s += r[i]
    printf "%d %d %d %d %d %d %d %d %d %d %d", r[1], s / k, s / k - r[1], fa, fb, ha, hb, m, h[1], h[n], r0 }' "$log")
read -r rss_w rss_e growth fds_first fds_last threads_first threads_last max_rss thr_w thr_e rss_0 <<<"$stats"
result=pass
[ "$growth" -lt 1024 ] || result=fail
[ "$fds_last" -le "$fds_first" ] || result=fail
[ "$threads_last" -le "$threads_first" ] || result=fail
[ "$keys" = yes ] || result=fail
echo "SOAK seconds=$seconds warmup=$warmup delay=$delay samples=$n rss_start_kb=$rss_0 rss_warm_kb=$rss_w rss_end_kb=$rss_e rss_max_kb=$max_rss growth_kb=$growth fds_max_before=$fds_first fds_max_last_third=$fds_last threads_max_before=$threads_first threads_max_last_third=$threads_last threads=$thr_w→$thr_e threads_range=$thread_range thread_changes=$thread_changes hung_readers=$hung keys=$keys result=$result date=$(date -u +%Y-%m-%dT%H:%MZ)"
[ "$result" = pass ]
