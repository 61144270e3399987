#!/usr/bin/env bash
# Build and run thermtop's libFuzzer targets (Fuzz/Targets/*.swift) with ASan.
#
#   scripts/fuzz.sh [--seconds N] [--quick] [--jobs J] [TARGET...]   (default: every target, 60 s each)
#   scripts/fuzz.sh --list
#
# Built with swiftc directly, outside SwiftPM, so `swift build` / `swift test` never see the
# fuzz code: each library module (ThermtopCore, ThermtopLinux, ThermtopUI, ThermtopTerminal)
# is compiled once with -sanitize=fuzzer,address into .build/fuzz/<opt>/, then each target
# links the modules it imports. --quick builds with -Onone (CI smoke: faster to build,
# slower to run). Working corpora live in .build/fuzz/corpus/<target> (seeded from
# Fuzz/Corpus/<target>); crashes go to .build/fuzz/crashes/. Prints one line per target:
#   FUZZ target=values runs=1234567 seconds=60 crashed=no
# and the total; exits 1 if any target crashed (the input is kept: turn it into a test).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
opt=-O
list=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --quick) opt=-Onone; shift ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=$(ls Fuzz/Targets/*.swift | xargs -n1 basename | sed 's/\.swift$//' | grep -v '^FuzzSupport$')
if [ "$list" = 1 ]; then echo "$all"; exit 0; fi
[ ${#targets[@]} -gt 0 ] || targets=($all)
for t in "${targets[@]}"; do
  [ -f "Fuzz/Targets/$t.swift" ] || { echo "fuzz.sh: no target $t (have: $(echo $all))" >&2; exit 64; }
done

out=.build/fuzz/${opt#-}
mkdir -p "$out" .build/fuzz/crashes
flags=(-parse-as-library -package-name thermtop "$opt" -sanitize=fuzzer,address -enable-testing -swift-version 6 -I "$out" -L "$out"
       -Xcc -D_XOPEN_SOURCE_EXTENDED=1 -I Sources/CLinux)

# module NAME [swiftc extra args...]: (re)build a library module when a source is newer.
module() {
  local name=$1; shift
  local srcs; srcs=$(find "Sources/$name" -name '*.swift' | sort)
  local lib="$out/lib$name.a"
  if [ -f "$lib" ] && [ -z "$(find "Sources/$name" -name '*.swift' -newer "$lib")" ]; then return; fi
  echo "fuzz: building module $name ($opt)" >&2
  # shellcheck disable=SC2086
  swiftc "${flags[@]}" "$@" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
    -emit-library -static -o "$lib" $srcs 2>&1 | grep -v "warning: Cannot export local symbol" >&2 || true
  [ -f "$lib" ] || { echo "fuzz: module $name failed to build" >&2; exit 1; }
}

needs() { grep -oE '^(@testable )?import (ThermtopCore|ThermtopLinux|ThermtopUI|ThermtopTerminal|ThermtopConfig)' "Fuzz/Targets/$1.swift" | awk '{print $NF}'; }

# TOMLKit (Swift) and toml++ (its C++ core, CTOML) for the config target, from SwiftPM's
# checkout (run `swift build` or `swift package resolve` once), instrumented like our code.
toml=.build/checkouts/TOMLKit/Sources
tomlkit() {
  [ -d "$toml/TOMLKit" ] || { echo "fuzz: no TOMLKit checkout in $toml (run swift package resolve)" >&2; exit 1; }
  if [ ! -f "$out/libCTOML.a" ]; then
    echo "fuzz: building CTOML (toml++)" >&2
    mkdir -p "$out/ctoml"
    for f in "$toml"/CTOML/Sources/*.cpp; do
      clang++ -std=c++17 -DTOML_EXCEPTIONS=1 -w "$([ "$opt" = -O ] && echo -O1 || echo -O0)" -fsanitize=fuzzer-no-link,address -I "$toml/CTOML/include" \
        -c "$f" -o "$out/ctoml/$(basename "$f" .cpp | tr -c 'A-Za-z0-9\n' _).o"
    done
    ar rcs "$out/libCTOML.a" "$out"/ctoml/*.o
  fi
  if [ ! -f "$out/libTOMLKit.a" ]; then
    echo "fuzz: building module TOMLKit ($opt)" >&2
    find "$toml/TOMLKit" -name '*.swift' -print0 | xargs -0 swiftc -parse-as-library "$opt" -swift-version 5 \
      -sanitize=fuzzer,address -I "$toml/CTOML/include/CTOML" -module-name TOMLKit -emit-module \
      -emit-module-path "$out/TOMLKit.swiftmodule" -emit-library -static -o "$out/libTOMLKit.a" 2>&1 | grep -E "error" >&2 || true
    [ -f "$out/libTOMLKit.a" ] || { echo "fuzz: module TOMLKit failed to build" >&2; exit 1; }
  fi
}

module ThermtopCore
for t in "${targets[@]}"; do
  for m in $(needs "$t"); do
    case $m in
      ThermtopLinux) module ThermtopLinux -I Sources/CSystemd -I Sources/CZlib -I Sources/CNVML ;;
      ThermtopUI) module ThermtopUI ;;
      ThermtopTerminal) module ThermtopUI; module ThermtopTerminal -I Sources/CNcursesw ;;
      ThermtopConfig) tomlkit; module ThermtopConfig -I "$toml/CTOML/include/CTOML" ;;
    esac
  done
done

total=0
crashed=()
for t in "${targets[@]}"; do
  exe="$out/fuzz-$t"
  if [ ! -x "$exe" ] || [ -n "$(find Fuzz/Targets "$out" -name '*.swift' -newer "$exe" -o -name '*.a' -newer "$exe")" ]; then
    echo "fuzz: linking $t" >&2
    libs=()
    # Link order: dependents before their dependencies.
    for m in ThermtopConfig ThermtopTerminal ThermtopUI ThermtopLinux ThermtopCore; do
      if needs "$t" | grep -qx "$m" || [ "$m" = ThermtopCore ] || { [ "$m" = ThermtopUI ] && needs "$t" | grep -qx ThermtopTerminal; }; then
        libs+=("-l$m")
      fi
    done
    extra=()
    needs "$t" | grep -qx ThermtopTerminal && extra+=(-I Sources/CNcursesw -lncursesw -ltinfo)
    needs "$t" | grep -qx ThermtopLinux && extra+=(-I Sources/CSystemd -I Sources/CZlib -I Sources/CNVML -lz)
    # Static archives after the modules that use them.
    post=()
    needs "$t" | grep -qx ThermtopConfig && { extra+=(-I "$toml/CTOML/include/CTOML"); post+=(-lTOMLKit -lCTOML -lstdc++ -lFoundation); }
    swiftc "${flags[@]}" "${extra[@]}" -module-name "Fuzz_$t" Fuzz/Targets/FuzzSupport.swift "Fuzz/Targets/$t.swift" \
      "${libs[@]}" ${post[@]+"${post[@]}"} -o "$exe" 2>&1 | grep -v "warning: Cannot export local symbol" >&2 || true
    [ -x "$exe" ] || { echo "fuzz: target $t failed to link" >&2; exit 1; }
  fi
  corpus=.build/fuzz/corpus/$t
  mkdir -p "$corpus"
  [ -d "Fuzz/Corpus/$t" ] && cp -n Fuzz/Corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  log=.build/fuzz/$t.log
  set +e
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix=".build/fuzz/crashes/$t-" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  # No stats line (a target that died before libFuzzer could print them): 0 runs, and the
  # exit status says crashed; never end the script here (pipefail + set -e).
  runs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1 || true)
  [ -n "$runs" ] || runs=$(grep -oE 'Done [0-9]+ runs' "$log" | awk '{print $2}' | tail -1 || true)
  runs=${runs:-0}
  total=$((total + runs))
  if [ $rc -ne 0 ]; then
    crashed+=("$t")
    echo "FUZZ target=$t runs=$runs seconds=$seconds crashed=yes log=$log"
    { grep -E "fuzz invariant|ERROR: |Fatal error|SUMMARY|Test unit written" "$log" || tail -5 "$log"; } | head -8 | sed 's/^/  /'
  else
    echo "FUZZ target=$t runs=$runs seconds=$seconds crashed=no"
  fi
done
echo "FUZZ total runs=$total targets=${#targets[@]} crashed=${#crashed[@]} date=$(date -u +%Y-%m-%dT%H:%MZ)"
[ ${#crashed[@]} -eq 0 ]
