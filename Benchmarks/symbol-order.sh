#!/usr/bin/env bash
# Regenerates Linker/symbol-order.txt, the order in which release builds of thermtop place
# functions (lld --symbol-ordering-file, Package.swift): the functions a run really executes
# first, together, so the pages a run touches are few and adjacent. The kernel maps an
# executable's code 64 KB around each page fault ("fault-around"), so hot code scattered over
# the 10 MB of .text made most of it resident (6.6 MB of the dashboard's 13 MB peak RSS).
#
#   Benchmarks/symbol-order.sh [--scratch DIR (/tmp/thermtop-order-build)]
#   KEEP_PROFILES=1 Benchmarks/symbol-order.sh ...   keeps the callgrind profiles and nm listing
#
# Builds a release thermtop the way README "Try it" does (scripts/release-build.sh), runs it
# under valgrind's callgrind on the fake laptop /sys (Benchmarks/fakesys.py, so root): the
# dashboard in tmux at full and minimal tier with the debug overlay toggled, then `--version`,
# `status --json` and `status`; then writes every executed function of the binary in three
# blocks: what the dashboard and the one-shots both run, what only the dashboard runs, what
# only the one-shots run. Each program's code is then one or two blocks, never interleaved
# with code it does not run (a status-first order interleaved status-only code with the
# dashboard's and left ~0.2 MB more of it resident; a dashboard-first one spread the code
# `status` shares with it through the dashboard's). glibc's CPU-specific variants
# (memmove, strlen, sin ...) bring their siblings: valgrind's CPU picks other variants than the
# machine does natively (0.3 MB of the dashboard's RSS when only valgrind's were ordered).
# Names defined more than once (local helpers: partial-apply forwarders, outlined copies) are
# kept when no toolchain or system archive defines them: lld moves every copy, each a small
# section of one of our modules (-0.25 MB against leaving them all out). Left out: the others
# (objectdestroyTm and the like also live in the toolchain's large sections; keeping every
# non-unique name cost +0.15 MB). Tried and dropped: leaving out functions that sit in a large,
# mostly cold input section (+0.15 MB).
#
# An order file that is out of date only costs locality (lld ignores names it does not find).
# After regenerating, relink: SwiftPM does not track the file (remove the built binary first).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=/tmp/thermtop-order-build
while [ $# -gt 0 ]; do
  case $1 in
    --scratch) SCRATCH=$2; shift 2 ;;
    *) echo "usage: $0 [--scratch DIR]" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "symbol-order.sh: needs root (a private mount namespace over /sys)" >&2; exit 69; }
need=()
for t in valgrind:valgrind tmux:tmux; do command -v "${t%%:*}" >/dev/null || need+=("${t#*:}"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
OUT=$(mktemp -d /tmp/thermtop-order.XXXXXX)
BIN_DIR=$("$ROOT/scripts/release-build.sh" --product thermtop --scratch-path "$SCRATCH" --show-bin-path)
("$ROOT/scripts/release-build.sh" --product thermtop --scratch-path "$SCRATCH" >&2)
cp "$BIN_DIR/thermtop" "$OUT/thermtop"

/usr/bin/python3 "$ROOT/Benchmarks/fakesys.py" run -- bash -c '
  set -e
  b=$1; out=$2
  vg="valgrind --tool=callgrind --demangle=no --dump-instr=no --collect-jumps=no"
  $vg --callgrind-out-file=$out/3-version.cg "$b" --version >/dev/null 2>>$out/valgrind.log
  $vg --callgrind-out-file=$out/4-status-json.cg "$b" status --json --no-config >/dev/null 2>>$out/valgrind.log
  $vg --callgrind-out-file=$out/5-status.cg "$b" status --no-config >/dev/null 2>>$out/valgrind.log
  sock=$out/tmux.sock
  for mode in full minimal; do
    n=1; extra=""; [ $mode = minimal ] && { n=2; extra="--simulate-state serious"; }
    tmux -S $sock -f /dev/null new-session -d -s d -x 120 -y 40 \
      "$vg --callgrind-out-file=$out/$n-dashboard-$mode.cg $b $extra --no-config 2>>$out/valgrind.log"
    sleep 25; tmux -S $sock send-keys -t d d; sleep 3; tmux -S $sock send-keys -t d d; sleep 2
    tmux -S $sock send-keys -t d q
    for _ in $(seq 30); do tmux -S $sock has-session -t d 2>/dev/null || break; sleep 1; done
    tmux -S $sock kill-server 2>/dev/null || true
  done
' symbol-order "$OUT/thermtop" "$OUT"

nm -S --defined-only "$OUT/thermtop" > "$OUT/nm.txt"
# Every name the toolchain's and the system's static archives define: a name defined more than
# once in the binary but in none of these is one of our modules' (or ArgumentParser's) local
# helpers, and each copy sits in a small section of its own (-function-sections).
swift_static=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift_static/linux
for a in "$swift_static"/*.a /usr/lib/x86_64-linux-gnu/{libc,libm-*,libncursesw,libtinfo,libz}.a \
         $(find /usr/lib/gcc -name 'libstdc++.a' 2>/dev/null); do
  [ -f "$a" ] && nm --defined-only "$a" 2>/dev/null
done | awk 'NF >= 3 { print $NF }' | sort -u > "$OUT/archive-names.txt"
/usr/bin/python3 - "$OUT" "$ROOT/Linker/symbol-order.txt" <<'PY'
import collections, glob, re, sys
out, dest = sys.argv[1], sys.argv[2]
# Text symbols of the binary: address, size, name; names defined more than once are ambiguous.
count = collections.Counter(); text = []
for line in open(f"{out}/nm.txt"):
    p = line.split()
    if len(p) >= 3:
        count[p[-1]] += 1
    if len(p) == 4 and p[2] in "tTwWi":
        text.append((int(p[0], 16), int(p[1], 16), p[3]))
archived = set(open(f"{out}/archive-names.txt").read().split())
unique = {n: (a, s) for a, s, n in text if count[n] == 1 or n not in archived}
# glibc picks its string and math functions by CPU (IFUNC): valgrind's CPU is not the one the
# binary runs on natively (no AVX-512, so __memmove_avx_unaligned_erms where the machine runs
# __memmove_evex_unaligned_erms). An executed variant brings all its siblings (a few KB each).
variant = re.compile(r"^(__[a-z0-9_]+?)_(sse2|ssse3|sse4_1|sse4_2|avx2|avx|evex512|evex|avx512|fma4|fma|erms)")
siblings = collections.defaultdict(list)
for a, s, n in sorted(text):
    m = variant.match(n)
    if m and n in unique:
        siblings[m.group(1)].append(n)
# Executed functions, each once, in three blocks: what both the dashboard (runs 1 and 2) and
# the one-shots (--version, status: runs 3 to 5) run; then what only the dashboard runs; then
# what only the one-shots run. Each program's code is then at most two blocks, neither
# interleaved with code it never runs (the dashboard's block first and the one-shots' extras
# after it made `status` touch the shared code spread through the dashboard's).
def executed(files):
    names, seen = [], set()
    for f in files:
        for line in open(f):
            m = re.match(r"^c?fn=\(\d+\) (.+)$", line)
            if m:
                name = re.sub(r"'\d+$", "", m.group(1).strip())
                if name in unique and name not in seen:
                    seen.add(name); names.append(name)
    return names
profiles = sorted(glob.glob(f"{out}/*.cg"))
dashboard = executed([f for f in profiles if re.match(r"[12]-", f.split("/")[-1])])
oneshot = executed([f for f in profiles if not re.match(r"[12]-", f.split("/")[-1])])
in_dashboard, in_oneshot = set(dashboard), set(oneshot)
blocks = [("shared", [n for n in dashboard if n in in_oneshot]),
          ("dashboard only", [n for n in dashboard if n not in in_oneshot]),
          ("one-shots only", [n for n in oneshot if n not in in_dashboard])]
order, seen = [], set()
for label, names in blocks:
    before = len(order)
    for name in names:
        if name in seen:
            continue
        seen.add(name); order.append(name)
        m = variant.match(name)
        for sibling in siblings[m.group(1)] if m else []:
            if sibling not in seen:
                seen.add(sibling); order.append(sibling)
    size = sum(unique[n][1] for n in order[before:])
    print(f"symbol-order: {label}: {len(order) - before} functions ({size // 1024} KB)")
keep = order
open(dest, "w").write("\n".join(keep) + "\n")
size = sum(unique[n][1] for n in keep)
print(f"symbol-order: {len(keep)} executed functions ({size // 1024} KB) -> {dest}")
PY
[ -n "${KEEP_PROFILES:-}" ] && echo "symbol-order: profiles kept in $OUT" || rm -rf "$OUT"
