#!/usr/bin/env bash
# Regenerates Screenshots/*.png from real runs of the built `thermtop` binary.
#
# Each picture is the dashboard running in a real terminal: tmux, on a private server
# (its socket in a scratch folder, removed at the end), with TERM=tmux-256color and a UTF-8 locale. Keys are
# sent with `send-keys`, the screen is read back with `capture-pane -e` (text plus colours
# and attributes, exactly what the terminal holds) and drawn to PNG, cell by cell, by
# scripts/ansi2png.py (Pillow + DejaVu Sans Mono). Nothing is mocked: the fixtures under
# Tests/Fixtures are real sysfs trees read by the real binary.
#
# Usage: scripts/screenshots.sh [--no-build] [--scale N] [--palette tango|xterm] [NAME...]
#   NAME: only these pictures (e.g. `full help`); default: all of them.
# Environment: THERMTOP_BINARY (default .build/debug/thermtop), PYTHON (default: a python3
#   with Pillow, preferring /usr/bin/python3), OUT (default Screenshots/).
# Needs: tmux, python3 with Pillow (Debian/Ubuntu: apt-get install -y tmux python3-pil
#   fonts-dejavu-core).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/Screenshots}
BIN=${THERMTOP_BINARY:-$ROOT/.build/debug/thermtop}
SCALE=1
PALETTE=tango
BUILD=1
ONLY=()

while [ $# -gt 0 ]; do
    case $1 in
        --no-build) BUILD=0 ;;
        --scale) SCALE=$2; shift ;;
        --palette) PALETTE=$2; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# start NAME COLS ROWS ARGS...: a fresh session running thermtop ARGS from the repo root
# (so the header shows a short relative fixture path), waiting until it has drawn.
start() {
    local cols=$2 rows=$3
    shift 3
    local cmd="exec env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@")"
    tm -f "$CONF" new-session -d -s shot -x "$cols" -y "$rows" -c "$ROOT" "$cmd"
    wait_for 'thermtop|terminal too small'
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
echo "thermtop screenshots from $BIN"
F=Tests/Fixtures

if wanted full; then
    # Tier full: the intel-laptop fixture is nominal, low power off.
    start full 100 30 --sysfs-root $F/intel-laptop
    sleep 2; wait_for_beat
    snap full 100 30 "thermtop --sysfs-root $F/intel-laptop  —  nominal, tier full"
fi

if wanted reduced; then
    # Tier reduced by thermal state: fair (forced, as key 2 does); the pulse beats at half speed.
    start reduced 100 30 --sysfs-root $F/intel-laptop --simulate-state fair
    sleep 2; wait_for_beat
    snap reduced 100 30 "thermtop --sysfs-root $F/intel-laptop --simulate-state fair  —  tier reduced"
fi

if wanted minimal; then
    # Tier minimal, live: the intel-laptop-hot fixture is serious (x86_pkg_temp past its passive
    # trip) with low power on from platform_profile. The pulse is static.
    start minimal 100 30 --sysfs-root $F/intel-laptop-hot
    sleep 2
    snap minimal 100 30 "thermtop --sysfs-root $F/intel-laptop-hot  —  serious, tier minimal"
fi

if wanted low-power; then
    # Low power on (as key l does) on a nominal machine: tier full drops to reduced, and the
    # policy lists what low power changes.
    start low-power 100 30 --sysfs-root $F/intel-laptop --low-power on
    sleep 2; wait_for_beat
    snap low-power 100 30 "thermtop --sysfs-root $F/intel-laptop --low-power on  —  tier reduced by low power"
fi

if wanted debug; then
    start debug 100 30 --sysfs-root $F/intel-laptop
    sleep 2
    tm send-keys -t shot d
    wait_for 'Rule trail'
    sleep 0.3
    snap debug 100 30 "thermtop --sysfs-root $F/intel-laptop  —  debug overlay (d)"
fi

if wanted help; then
    start help 100 30 --sysfs-root $F/intel-laptop
    sleep 1
    tm send-keys -t shot '?'
    wait_for 'simulate serious'
    sleep 0.3
    snap help 100 30 "thermtop --sysfs-root $F/intel-laptop  —  help (?)"
fi

if wanted detail; then
    # Sensor detail: select the second sensor (j) and press Enter.
    start detail 100 30 --sysfs-root $F/intel-laptop
    sleep 1
    tm send-keys -t shot j Enter
    wait_for 'sensor detail'
    sleep 0.3
    snap detail 100 30 "thermtop --sysfs-root $F/intel-laptop  —  sensor detail (j, Enter)"
fi

if wanted small-40x10; then
    # A 40x10 window: the compact layout keeps the state, tier and pulse.
    start small-40x10 40 10 --sysfs-root $F/intel-laptop
    sleep 2
    snap small-40x10 40 10 "thermtop  —  40×10"
fi

if wanted too-small; then
    start too-small 30 8 --sysfs-root $F/intel-laptop
    wait_for 'terminal too small'
    snap too-small 30 8 "thermtop  —  30×8"
fi

if wanted simulated; then
    # The simulated laptop under load: + raises the load to 100 %, samples every 0.25 s so the
    # history fills quickly; captured once the rising package temperature has turned it fair.
    start simulated 100 30 --simulate --delay 0.25
    tm send-keys -t shot + + + + + + + +
    wait_for ' FAIR ' 20
    sleep 1
    snap simulated 100 30 "thermtop --simulate  —  simulated laptop, load raised with +"
fi

if wanted monochrome; then
    # The fallbacks: no colour (as with NO_COLOR) and ASCII bars, boxes and pulse.
    start monochrome 100 30 --sysfs-root $F/intel-laptop-hot --no-color --ascii
    sleep 2
    snap monochrome 100 30 "thermtop --sysfs-root $F/intel-laptop-hot --no-color --ascii"
fi

echo "done"
