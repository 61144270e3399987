#!/bin/sh
# The dashboard's CPU with heat sources on, against htop at the same refresh on the same
# process table, in the same run (ratios, not absolute figures). Three tmux sessions side by
# side for SECONDS (default 60): the dashboard walking the live /proc, the same dashboard
# walking a still 11-process table (--proc-root: the walk's share), and `htop -d 10` (1 s).
# Pads the machine to about PROCS processes (default 300) with sleepers.
# Usage: Benchmarks/heat-sources-cost.sh [path/to/thermtop] [SECONDS] [PROCS]
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=${1:-$HERE/.build/release/thermtop}
SECONDS_=${2:-60}
PROCS=${3:-300}
FIX=$HERE/Tests/Fixtures
pids=""
have=$(ls /proc | grep -c '^[0-9]')
n=$((PROCS - have))
[ "$n" -gt 0 ] && for i in $(seq 1 "$n"); do sleep 3600 & pids="$pids $!"; done
echo "processes: $(ls /proc | grep -c '^[0-9]')"
S="tmux -L heatcost"
$S new-session -d -s live -x 160 -y 50 "$T --sysfs-root $FIX/intel-laptop --delay 1"
$S new-session -d -s still -x 160 -y 50 "$T --sysfs-root $FIX/intel-laptop --proc-root $FIX/proc-table-1 --delay 1"
$S new-session -d -s htop -x 160 -y 50 "htop -d 10"
sleep 3
pid() { $S list-panes -t "$1" -F '#{pane_pid}'; }
ticks() { awk '{s=substr($0, index($0,")")+2); split(s,f," "); print f[12]+f[13]}' "/proc/$1/stat"; }
L=$(pid live); P=$(pid still); H=$(pid htop)
l0=$(ticks "$L"); p0=$(ticks "$P"); h0=$(ticks "$H")
sleep "$SECONDS_"
l1=$(ticks "$L"); p1=$(ticks "$P"); h1=$(ticks "$H")
$S kill-server
[ -n "$pids" ] && kill $pids
echo "dashboard, heat sources on live /proc: $((l1 - l0)) ticks"
echo "dashboard, 11-process table:          $((p1 - p0)) ticks"
echo "htop -d 10:                           $((h1 - h0)) ticks"
awk -v l=$((l1 - l0)) -v h=$((h1 - h0)) 'BEGIN { if (h > 0) printf "ratio dashboard/htop: %.2f (budget: <= 1)\n", l / h }'
