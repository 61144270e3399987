#!/usr/bin/env bash
# The release build of thermtop: what README "Install" runs, CI tests and Benchmarks/ measures.
# The Swift runtime is linked in (--static-swift-stdlib), so the binary needs only what every
# distribution has: glibc, libstdc++, ncursesw and zlib, linked dynamically. libsystemd and
# libnvidia-ml are dlopen'ed when present. Arguments go on to `swift build`
# (`--show-bin-path`, `--scratch-path DIR`).
#
#   scripts/release-build.sh [swift build arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release --static-swift-stdlib "$@"
