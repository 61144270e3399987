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
# Then the data: the same runs under valgrind's lackey (every load and store) give the writable
# data each touches; the link map of the build says which input section each byte is in (lld
# moves sections: the runtime's and glibc's are per variable or small, our modules' and the
# Swift libraries' one .bss/.data per object plus one per COMDAT piece). The touched sections
# follow the code in the file, in the same three blocks, written ones first (a written page is
# a fault each; pages only read come 16 at a time), the large sparsely touched ones last.
# With .bss placed in .data (Linker/private-text.ld): `status --json` 224 -> 193 page faults.
# Profiles vary with timing under valgrind (whether the read watchdog had work): two runs' code
# orders differed by 16 functions and by 0.25 MB of the dashboard's peak RSS. After
# regenerating, measure (Benchmarks/peer-cost.sh) and keep the better order.
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
# The link map (which input section each data symbol sits in, and how large it is) is the only
# flag added: it changes nothing in the binary, and a new path each time makes SwiftPM relink.
("$ROOT/scripts/release-build.sh" --product thermtop --scratch-path "$SCRATCH" -Xlinker "-Map=$OUT/thermtop.map" >&2)
cp "$BIN_DIR/thermtop" "$OUT/thermtop"
# Data accesses come from valgrind's lackey (every load and store): this filter keeps, in
# first-touch order, each 8-byte granule of the binary's data the run reads (r) or writes (w).
cat > "$OUT/memfilter.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  unsigned long lo = strtoul(argv[1], 0, 16), hi = strtoul(argv[2], 0, 16), n = (hi - lo) >> 3, k = 0;
  unsigned char *flags = calloc(n, 1); unsigned *order = malloc(n * sizeof *order);
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    if (line[0] != ' ' || (line[1] != 'L' && line[1] != 'S' && line[1] != 'M')) continue;
    char *end; unsigned long a = strtoul(line + 3, &end, 16), size = *end == ',' ? strtoul(end + 1, 0, 10) : 1;
    unsigned char f = line[1] == 'L' ? 1 : line[1] == 'S' ? 2 : 3;
    for (unsigned long b = a; b < a + (size ? size : 1); b = (b | 7) + 1) {
      if (b < lo || b >= hi) continue;
      unsigned long g = (b - lo) >> 3;
      if (!flags[g]) order[k++] = g;
      flags[g] |= f;
    }
  }
  for (unsigned long i = 0; i < k; i++)
    printf("%lx %s\n", lo + ((unsigned long)order[i] << 3), flags[order[i]] & 2 ? "w" : "r");
  return 0;
}
C
cc -O2 -o "$OUT/memfilter" "$OUT/memfilter.c"
# The binary's writable data, .data.rel.ro to the end of .bss: the range the filter keeps.
range=$(readelf -SW "$OUT/thermtop" | /usr/bin/python3 -c '
import sys
spans = [(int(p[3], 16), int(p[5], 16)) for p in (l.replace("[ ", "[").split() for l in sys.stdin)
         if len(p) > 6 and p[0].startswith("[") and "W" in p[7] and "T" not in p[7] and int(p[3], 16)]
print("%x %x" % (min(a for a, s in spans), max(a + s for a, s in spans)))')

/usr/bin/python3 "$ROOT/Benchmarks/fakesys.py" run -- bash -c '
  set -e
  b=$1; out=$2; range=$3
  lk="valgrind --tool=lackey --trace-mem=yes --log-fd=3"
  $lk "$b" --version 3>&1 >/dev/null 2>>$out/valgrind.log | $out/memfilter $range > $out/3-version.mem
  $lk "$b" status --json --no-config 3>&1 >/dev/null 2>>$out/valgrind.log | $out/memfilter $range > $out/4-status-json.mem
  $lk "$b" status --no-config 3>&1 >/dev/null 2>>$out/valgrind.log | $out/memfilter $range > $out/5-status.mem
  vg="valgrind --tool=callgrind --demangle=no --dump-instr=no --collect-jumps=no"
  $vg --callgrind-out-file=$out/3-version.cg "$b" --version >/dev/null 2>>$out/valgrind.log
  $vg --callgrind-out-file=$out/4-status-json.cg "$b" status --json --no-config >/dev/null 2>>$out/valgrind.log
  $vg --callgrind-out-file=$out/5-status.cg "$b" status --no-config >/dev/null 2>>$out/valgrind.log
  # The dashboard in a 120x40 tmux pane running "$3" (socket $1): after $2 s the debug overlay
  # is toggled twice, then q. A server of its own for each run: a new session on the socket of
  # a server still shutting down fails ("server exited unexpectedly").
  dashboard() {
    tmux -S "$1" -f /dev/null new-session -d -s d -x 120 -y 40 "$3"
    sleep "$2"; tmux -S "$1" send-keys -t d d; sleep 3; tmux -S "$1" send-keys -t d d; sleep 2
    tmux -S "$1" send-keys -t d q
    for _ in $(seq 30); do tmux -S "$1" has-session -t d 2>/dev/null || break; sleep 1; done
    tmux -S "$1" kill-server 2>/dev/null || true
  }
  for mode in full minimal; do
    n=1; extra=""; [ $mode = minimal ] && { n=2; extra="--simulate-state serious"; }
    dashboard $out/tmux-$mode-cg.sock 25 \
      "$vg --callgrind-out-file=$out/$n-dashboard-$mode.cg $b $extra --no-config 2>>$out/valgrind.log"
    dashboard $out/tmux-$mode-lk.sock 20 \
      "$lk $b $extra --no-config 3>&1 >/dev/tty 2>>$out/valgrind.log | $out/memfilter $range > $out/$n-dashboard-$mode.mem"
  done
' symbol-order "$OUT/thermtop" "$OUT" "$range"

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
/usr/bin/python3 - "$OUT" "$ROOT/Linker/symbol-order.txt" <<'PY'
import bisect, collections, glob, re, subprocess, sys
out, dest = sys.argv[1], sys.argv[2]
# The data the runs touch, as whole input sections (lld moves sections, not symbols): glibc's
# objects are small and the Swift runtime's give each variable a section; the toolchain's Swift
# libraries and our modules have one .bss/.data per object plus one per COMDAT piece.
DATA = {".data", ".bss", ".data.rel.ro", ".rodata"}
entry = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(.*)$")
sections, output = [], None
for line in open(f"{out}/thermtop.map"):
    m = entry.match(line)
    if not m:
        continue
    if len(m[3]) == 1:
        output = m[4]
    elif len(m[3]) == 9 and output in DATA and int(m[2], 16):
        sections.append((int(m[1], 16), int(m[2], 16), output))
sections.sort(); starts = [a for a, _, _ in sections]
# A section is named by a symbol in it whose name is unique in the binary (the map demangles
# C++ names; the order file wants them as the objects spell them, so names come from nm).
symbols = sorted((int(p[0], 16), p[2]) for p in (l.split() for l in subprocess.run(
    ["nm", "--defined-only", f"{out}/thermtop"], capture_output=True, text=True).stdout.splitlines())
    if len(p) == 3)
count = collections.Counter(n for _, n in symbols); addresses = [a for a, _ in symbols]
def name(i):
    a, size, _ = sections[i]
    j = bisect.bisect_left(addresses, a)
    while j < len(symbols) and symbols[j][0] < a + size:
        if count[symbols[j][1]] == 1:
            return symbols[j][1]
        j += 1
# Touched sections in first-touch order: bytes touched (the most of any one run), written or not.
def touched(files):
    seen = collections.OrderedDict()
    for f in files:
        run = collections.Counter(); written = set()
        for line in open(f):
            a, flag = line.split(); a = int(a, 16)
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < sections[i][0] + sections[i][1]:
                run[i] += 8; seen.setdefault(i, [0, False])
                if flag == "w":
                    written.add(i)
        for i, n in run.items():
            seen[i][0] = max(seen[i][0], n); seen[i][1] |= i in written
    return seen
traces = sorted(glob.glob(f"{out}/*.mem"))
dashboard = touched([f for f in traces if re.match(r"[12]-", f.split("/")[-1])])
oneshot = touched([f for f in traces if not re.match(r"[12]-", f.split("/")[-1])])
every = {i: [max(dashboard.get(i, [0])[0], oneshot.get(i, [0])[0]),
             dashboard.get(i, [0, False])[1] or oneshot.get(i, [0, False])[1]]
         for i in [*dashboard, *oneshot]}
# Large sections the runs touch little of (libswiftCore's 86 KB .bss, glibc's 16 KB of pthread
# keys, the 64 KB pool the runtime allocates metadata from, front first) go after all the
# others, smallest first, so they do not spread the dense ones.
sparse = lambda i: sections[i][1] > 4096 and every[i][0] * 2 < sections[i][1]
# The same three blocks as the code; in each, what is written first: a page of .data is copied
# at its first write (a fault each), pages only read come 16 at a time (fault-around).
blocks = [("shared", [i for i in dashboard if i in oneshot]),
          ("dashboard only", [i for i in dashboard if i not in oneshot]),
          ("one-shots only", [i for i in oneshot if i not in dashboard])]
order = []
for label, ids in blocks:
    picked = [i for w in (True, False) for i in ids if every[i][1] == w and not sparse(i) and name(i)]
    print(f"symbol-order: data, {label}: {len(picked)} sections "
          f"({sum(sections[i][1] for i in picked) // 1024} KB)")
    order += picked
tail = sorted((i for i in every if sparse(i) and name(i)), key=lambda i: sections[i][1])
print(f"symbol-order: data touched little: {len(tail)} sections "
      f"({sum(sections[i][1] for i in tail) // 1024} KB)")
order += tail
with open(dest, "a") as f:
    f.write("".join(name(i) + "\n" for i in order))
print(f"symbol-order: {len(order)} data sections -> {dest}")
PY
[ -n "${KEEP_PROFILES:-}" ] && echo "symbol-order: profiles kept in $OUT" || rm -rf "$OUT"
