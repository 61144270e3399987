#!/usr/bin/env bash
# The release build of thermtop, the one README "Try it" installs, CI tests and Benchmarks/
# measures: its flags live here only. Arguments go on to `swift build` (`--product thermtop`,
# `--scratch-path DIR`, `--show-bin-path`); it runs in the package's folder.
#
#   scripts/release-build.sh [swift build arguments…]
#
# - `--static-swift-stdlib` (and `-static-executable` in Package.swift): no dynamic loader, no
#   shared Swift runtime to map at start.
# - `-function-sections` for every module: each function a section, so the linker can place the
#   code the dashboard runs together (Linker/symbol-order.txt): ~0.15 MB less resident code.
# - `-disable-concrete-type-metadata-mangled-name-accessors` for every module: a generic type
#   such as `[ZoneLayout]` or `[String: SensorAssessment]` gets its metadata from a direct call
#   at first use, not by demangling its name, which for a type with requirements (a Hashable
#   key) scans every protocol-conformance record of the static binary (~4000). `status` made ~90
#   such lookups and ~29 scans: ~0.4 ms of its ~7 ms (README "Performance").
# Library targets cannot carry these as unsafe flags in Package.swift (a package depending on
# thermtop by version could not build it then), so they are given on the command line. SwiftPM
# does not recompile when only such flags change: build in a clean scratch path.
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release --static-swift-stdlib \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
  "$@"
