#!/usr/bin/env bash
# Regenerates Screenshots/*.png from real runs of the built `thermtop` binary.
#
# Each picture is the dashboard running in a real terminal: tmux, on a private server
# (its socket in a scratch folder, removed at the end), with TERM=tmux-256color and a UTF-8 locale. Keys are
# sent with `send-keys`, the screen is read back with `capture-pane -e` (text plus colours
# and attributes, exactly what the terminal holds) and drawn to PNG, cell by cell, by
# scripts/ansi2png.py (Pillow + DejaVu Sans Mono). Nothing is mocked: the sensors are real
# machines' sysfs captures (../shared/real-sysfs, each folder's SOURCE.md says which machine),
# read by the real binary. A manual step, not part of the tests.
#
# Usage: scripts/screenshots.sh [--no-build] [--scale N] [--palette tango|xterm]
#                               [--captures DIR] [NAME...]
#   NAME: only these pictures (e.g. `size-80x24 help`); default: all of them.
#   --captures DIR: the folder of real captures (default ../shared/real-sysfs next to the
#     repository; else Tests/Fixtures, which holds copies of the same captures).
# Environment: THERMTOP_BINARY (default .build/debug/thermtop), PYTHON (default: a python3
#   with Pillow, preferring /usr/bin/python3), OUT (default Screenshots/).
# Needs: tmux, python3 with Pillow (Debian/Ubuntu: apt-get install -y tmux python3-pil
#   fonts-dejavu-core).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/Screenshots}
BIN=${THERMTOP_BINARY:-$ROOT/.build/debug/thermtop}
# The Heating it panel shows this machine's own processes, as a user sees it; PROC=DIR reads a
# captured process table instead (a still table shows no CPU: rates need two different walks).
PROC=${PROC:-}
SCALE=1
PALETTE=tango
BUILD=1
ONLY=()
CAPTURES=

while [ $# -gt 0 ]; do
    case $1 in
        --no-build) BUILD=0 ;;
        --scale) SCALE=$2; shift ;;
        --palette) PALETTE=$2; shift ;;
        --captures) CAPTURES=$2; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "screenshots.sh: unknown option $1" >&2; exit 2 ;;
        *) ONLY+=("$1") ;;
    esac
    shift
done

die() { echo "screenshots.sh: $*" >&2; exit 1; }

command -v tmux >/dev/null || die "tmux is not installed (apt-get install -y tmux)"
if [ -z "${PYTHON:-}" ]; then
    for p in /usr/bin/python3 python3; do
        if command -v "$p" >/dev/null && "$p" -c 'import PIL' 2>/dev/null; then PYTHON=$p; break; fi
    done
fi
[ -n "${PYTHON:-}" ] || die "no python3 with Pillow found (apt-get install -y python3-pil fonts-dejavu-core)"

if [ "$BUILD" = 1 ] && [ -z "${THERMTOP_BINARY:-}" ]; then
    if ! (cd "$ROOT" && swift build --product thermtop >"${TMPDIR:-/tmp}/thermtop-shots-build.$$.log" 2>&1); then
        cat "${TMPDIR:-/tmp}/thermtop-shots-build.$$.log" >&2
        rm -f "${TMPDIR:-/tmp}/thermtop-shots-build.$$.log"
        die "swift build failed"
    fi
    rm -f "${TMPDIR:-/tmp}/thermtop-shots-build.$$.log"
fi
[ -x "$BIN" ] || die "thermtop binary not found at $BIN (run swift build)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/thermtop-shots.XXXXXX")
SOCKET=$WORK/tmux.sock
CONF=$WORK/tmux.conf
cat >"$CONF" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
set -g escape-time 0
set -g remain-on-exit on
EOF

tm() { tmux -S "$SOCKET" "$@"; }

cleanup() {
    tm kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# Polls the pane until its text matches the extended regex $1 (up to $2 seconds, default 5).
wait_for() {
    local pattern=$1 timeout=${2:-5} waited=0
    while ! tm capture-pane -p -t shot 2>/dev/null | grep -Eq -- "$pattern"; do
        sleep 0.1
        waited=$((waited + 1))
        if [ "$waited" -ge $((timeout * 10)) ]; then
            echo "screenshots.sh: timed out waiting for /$pattern/; the pane shows:" >&2
            tm capture-pane -p -t shot >&2 || true
            return 1
        fi
    done
}

wanted() {
    [ ${#ONLY[@]} -eq 0 ] && return 0
    local n
    for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
    return 1
}

# start NAME COLS ROWS ARGS...: a fresh session running thermtop ARGS in the captures folder
# (so the header shows the capture's name, not a local path), waiting until it has drawn.
start() {
    local cols=$2 rows=$3
    shift 3
    local cmd="exec env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@")"
    tm -f "$CONF" new-session -d -s shot -x "$cols" -y "$rows" -c "$CAPTURES" "$cmd"
    wait_for 'thermtop|terminal too small|NOMINAL|FAIR|SERIOUS|CRITICAL|REPLAY'
}

# snap NAME COLS ROWS TITLE: captures the pane and renders Screenshots/NAME.png.
snap() {
    local name=$1 cols=$2 rows=$3 title=$4
    tm capture-pane -e -p -N -t shot >"$WORK/$name.ans"
    tm kill-session -t shot
    "$PYTHON" "$ROOT/scripts/ansi2png.py" "$WORK/$name.ans" "$OUT/$name.png" \
        --cols "$cols" --rows "$rows" --scale "$SCALE" --palette "$PALETTE" --title "$title"
    echo "  $OUT/$name.png  ($title)"
}

# Waits until the full layout's pulse shows a mid-beat frame, so the heart is visibly animated.
wait_for_beat() { wait_for '♥─╮╱─|♥─╯╲' 4 || true; }

mkdir -p "$OUT"
if [ -z "$CAPTURES" ]; then
    if [ -d "$ROOT/../shared/real-sysfs" ]; then CAPTURES=$(cd "$ROOT/../shared/real-sysfs" && pwd)
    else CAPTURES=$ROOT/Tests/Fixtures; fi
fi
for m in amd-ryzen-2x-nvme-telegraf amdgpu-rx5500xt-lact legion-go-s-couchside; do
    [ -d "$CAPTURES/$m/class" ] || die "capture $CAPTURES/$m not found (--captures DIR)"
done
echo "thermtop screenshots from $BIN, captures in $CAPTURES"
# The captures, by what they show (their SOURCE.md names the machine):
# (relative to $CAPTURES, where thermtop runs)
DESKTOP=amd-ryzen-2x-nvme-telegraf    # Ryzen k10temp + two NVMe drives, no battery
GPU=amdgpu-rx5500xt-lact              # Radeon RX 5500 XT: edge/junction/mem, fan, PPT
HANDHELD=legion-go-s-couchside        # Lenovo Legion Go S: battery, adapters, profile
cap() { echo "$1"; }

# One picture per designed layout size, on the desktop capture (the GPU one at 100×30).
for size in 80x24 100x30 120x40 200x60 40x10; do
    name=size-$size
    wanted "$name" || continue
    cols=${size%x*} rows=${size#*x}
    src=$DESKTOP; [ "$size" = 100x30 ] && src=$GPU
    start "$name" "$cols" "$rows" --no-config --sysfs-root "$src" ${PROC:+--proc-root "$PROC"}
    sleep 4; wait_for_beat
    snap "$name" "$cols" "$rows" "thermtop --sysfs-root $(cap "$src")  —  ${cols}×${rows}"
done

if wanted help; then
    start help 100 30 --no-config --sysfs-root "$DESKTOP" ${PROC:+--proc-root "$PROC"}
    sleep 1
    tm send-keys -t shot '?'
    wait_for 'simulate nominal|more lines'
    sleep 0.3
    snap help 100 30 "thermtop --sysfs-root $(cap "$DESKTOP")  —  help (?)"
fi

if wanted detail; then
    # Sensor detail of the second NVMe drive's Composite sensor (its own max/crit limits).
    start detail 100 30 --no-config --sysfs-root "$DESKTOP" ${PROC:+--proc-root "$PROC"}
    sleep 2
    tm send-keys -t shot j Enter
    wait_for 'Thresholds|sensor detail|Trips'
    sleep 0.3
    snap detail 100 30 "thermtop --sysfs-root $(cap "$DESKTOP")  —  sensor detail (j, Enter)"
fi

if wanted debug; then
    start debug 100 30 --no-config --sysfs-root "$GPU" ${PROC:+--proc-root "$PROC"}
    sleep 2
    tm send-keys -t shot d
    wait_for 'Rule trail'
    sleep 0.3
    snap debug 100 30 "thermtop --sysfs-root $(cap "$GPU")  —  debug overlay (d)"
fi

if wanted minimal; then
    # Tier minimal: nothing in the captures is hot, so the state is forced (as key 3 does) and
    # marked SIMULATED on screen; the pulse is static, values redraw only on change.
    start minimal 100 30 --no-config --sysfs-root "$DESKTOP" ${PROC:+--proc-root "$PROC"} --simulate-state serious
    sleep 3
    snap minimal 100 30 "thermtop --sysfs-root $(cap "$DESKTOP") --simulate-state serious  —  tier minimal"
fi

if wanted battery; then
    # The handheld: battery discharging, two adapters offline, platform profile `custom`.
    start battery 100 30 --no-config --sysfs-root "$HANDHELD" ${PROC:+--proc-root "$PROC"}
    sleep 3; wait_for_beat
    snap battery 100 30 "thermtop --sysfs-root $(cap "$HANDHELD")  —  battery"
fi

if wanted monochrome; then
    # The fallbacks: no colour (as with NO_COLOR) and ASCII bars, boxes and pulse.
    start monochrome 100 30 --no-config --sysfs-root "$GPU" ${PROC:+--proc-root "$PROC"} --no-color --ascii
    sleep 3
    snap monochrome 100 30 "thermtop --sysfs-root $(cap "$GPU") --no-color --ascii"
fi

if wanted replay; then
    # A recording of the desktop capture (thermtop record, 6 samples), played back in the
    # dashboard at twice the speed: the REPLAY header and its keys.
    "$BIN" record "$WORK/desktop.rec" --seconds 5 --delay 1 --sysfs-root "$CAPTURES/$DESKTOP" ${PROC:+--proc-root "$PROC"} >/dev/null 2>&1 \
        || die "thermtop record failed"
    start replay 100 30 --no-config --replay "$WORK/desktop.rec" --speed 2
    wait_for 'REPLAY' 5
    sleep 2
    snap replay 100 30 "thermtop --replay (a recording of $(cap "$DESKTOP")) --speed 2"
fi

if wanted too-small; then
    start too-small 30 8 --no-config --sysfs-root "$DESKTOP" ${PROC:+--proc-root "$PROC"}
    wait_for 'terminal too small'
    snap too-small 30 8 "thermtop  —  30×8"
fi

if wanted simulated; then
    # The simulated laptop (not a capture; S or --simulate), load raised to 100 % with +,
    # sampled every 0.25 s; captured once the rising package temperature has turned it fair.
    start simulated 100 30 --no-config --simulate --delay 0.25
    tm send-keys -t shot + + + + + + + +
    wait_for ' FAIR ' 20
    sleep 1
    snap simulated 100 30 "thermtop --simulate  —  simulated laptop, load raised with +"
fi

echo "done"
