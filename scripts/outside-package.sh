#!/usr/bin/env bash
# A package outside the repository, depending on it by path as a user's would, builds the
# seeds' code (Apple's ProcessInfo API: Tests/ThermtopAppleAPITests/SeedCode.swift) with
# `import Thermtop` and runs it on the hot fixture through THERMTOP_SYSFS_ROOT: serious, low
# power, InferenceBudget .reduced, tier .minimal. `package` declarations are invisible there,
# so this is what an app sees. Prints `outside-package: ok (N s)`; exit 1 when it fails.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
# A path dependency's identity is its folder's name, lowercased.
id="$(basename "$repo" | tr '[:upper:]' '[:lower:]')"
mkdir -p "$work/Sources/SeedApp"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "SeedApp",
    dependencies: [.package(path: "$repo")],
    targets: [.executableTarget(name: "SeedApp", dependencies: [.product(name: "Thermtop", package: "$id")])]
)
SWIFT
cp "$repo/Tests/ThermtopAppleAPITests/SeedCode.swift" "$work/Sources/SeedApp/SeedCode.swift"
cat > "$work/Sources/SeedApp/main.swift" <<'SWIFT'
import Foundation
import Thermtop

let info = ProcessInfo.processInfo
let monitor = DeviceConditionMonitor()
let budget = InferenceBudget.current()
print("thermalState \(info.thermalState) lowPower \(info.isLowPowerModeEnabled) budget \(budget) tier \(monitor.tier)")
let ok = info.thermalState == .serious && info.isLowPowerModeEnabled && budget == .reduced && monitor.tier == .minimal
exit(ok ? 0 : 1)
SWIFT
if ! out=$(swift build --package-path "$work" --scratch-path "$work/.build" 2>&1); then
  echo "$out" | tail -40
  echo "outside-package: FAILED to build"
  exit 1
fi
if ! THERMTOP_SYSFS_ROOT="$repo/Tests/Fixtures/intel-laptop-hot" "$work/.build/debug/SeedApp"; then
  echo "outside-package: FAILED (expected serious, low power, budget reduced, tier minimal)"
  exit 1
fi
echo "outside-package: ok ($(( $(date +%s) - start )) s)"
