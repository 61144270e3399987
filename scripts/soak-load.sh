#!/usr/bin/env bash
# Heavy load to run a soak beside: a debug build of thermtop (tests included) looping in a
# scratch copy of the repository, every module recompiled each round, plus busy loops, all at
# nice 0, until stopped (Ctrl-C in a terminal, or SIGTERM: it then stops its build and busy
# loops and removes its copy). What the README's loaded soak figures were measured beside:
#
#   scripts/soak-load.sh --burners 2 & sleep 30; scripts/soak.sh --seconds 600 --binary B; kill $!
#
# Needs a prior `swift build` here (its resolved packages are copied: nothing is fetched).
set -euo pipefail
cd "$(dirname "$0")/.."
burners=2
while [ $# -gt 0 ]; do
  case "$1" in
    --burners) burners=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak-load.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ -d .build/checkouts ] || { echo "soak-load.sh: run swift build here first" >&2; exit 66; }
work=$(mktemp -d /tmp/thermtop-load.XXXXXX)
pids=(); build=""
cleanup() {
  # swift-build cancels its compiler jobs on SIGINT (they run in process groups of their own).
  [ -n "$build" ] && { kill -INT "$build" 2>/dev/null; wait "$build" 2>/dev/null; } || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
git archive HEAD | tar -x -C "$work"
mkdir -p "$work/scratch"
# The resolved dependencies only: compiled modules and their module cache name this tree's paths.
cp -a .build/checkouts .build/repositories .build/workspace-state.json "$work/scratch/" 2>/dev/null || true
[ -f Package.resolved ] && cp Package.resolved "$work/"
for _ in $(seq "$burners"); do ( while :; do :; done ) & pids+=($!); done
rounds=0
while :; do
  find "$work/Sources" "$work/Tests" -name '*.swift' -exec touch {} +
  swift build --build-tests --package-path "$work" --scratch-path "$work/scratch" >"$work/build.log" 2>&1 &
  build=$!
  wait "$build" || { echo "soak-load.sh: build failed (see below); busy loops only from now" >&2
                     tail -5 "$work/build.log" >&2; build=""; wait; }
  build=""
  rounds=$((rounds + 1)); echo "soak-load.sh: round $rounds done $(date -u +%T)" >&2
done
