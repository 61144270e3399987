#!/usr/bin/env bash
# The DocC archive of the library: one archive with a page per module (Thermtop and its
# articles, ThermtopCore, ThermtopLinux with the hub and the monitor, ThermtopMetrics), through
# swift-docc-plugin's combined documentation. Writes .build/docs (or the folder given).
# Fails on a DocC error; prints `docs: ok (N s)`.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
start=$(date +%s)
swift package --allow-writing-to-directory "$out" generate-documentation \
  --target Thermtop --target ThermtopCore --target ThermtopLinux --target ThermtopMetrics \
  --enable-experimental-combined-documentation --output-path "$out"
[ -d "$out/data/documentation" ] || { echo "docs: no archive in $out"; exit 1; }
echo "docs: ok ($(( $(date +%s) - start )) s)"
