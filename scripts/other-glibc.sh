#!/usr/bin/env bash
# Runs the release binary on a second distribution: a Debian trixie chroot (glibc 2.41 against
# this machine's 2.36), made with debootstrap from the mirror apt already uses. There it runs
# `--version`, `status` and `status --json` on a fixture tree with a real dbus-daemon as the
# system bus, once through DBUS_SYSTEM_BUS_ADDRESS and once through /run/dbus/system_bus_socket
# (what nearly every desktop has), and checks that each exits as on this machine and prints the
# same report. A binary that links glibc statically and dlopens libsystemd dies there (SIGFPE).
#
#   sudo scripts/other-glibc.sh [--binary PATH] [--dir DIR] [--suite SUITE]
#
# Defaults: the release build (scripts/release-build.sh), .build-trixie/ (kept between runs),
# trixie. Needs root (chroot) and debootstrap. Prints one line at the end:
#   other-glibc: N passed, M failed
# Exit status 0 when every check passed, 1 when one failed, 69 when root or debootstrap is
# missing, 64 for a bad invocation.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
binary=""; dir="$ROOT/.build-trixie"; suite=trixie
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$(readlink -f "$2"); shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    *) echo "other-glibc.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "other-glibc.sh: needs root (chroot)" >&2; exit 69; }
command -v debootstrap >/dev/null || { echo "other-glibc.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 69; }
command -v dbus-daemon >/dev/null || { echo "other-glibc.sh: needs dbus-daemon" >&2; exit 69; }
if [ -z "$binary" ]; then
  "$ROOT/scripts/release-build.sh" --product thermtop >&2
  binary=$("$ROOT/scripts/release-build.sh" --show-bin-path)/thermtop
fi

# The mirror apt uses here (deb822 `URIs:` or a one-line `deb` entry), for Debian's main archive.
mirror=$( (grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list || true) \
  | grep -v security | sed -E 's/^URIs:[[:space:]]*//; s/^deb (\[[^]]*\] )?//' | awk '{print $1}' | head -1)
[ -n "$mirror" ] || { echo "other-glibc.sh: no Debian mirror in apt's sources" >&2; exit 69; }

chroot_dir="$dir/$suite"
if [ ! -f "$chroot_dir/.complete" ]; then
  rm -rf "$chroot_dir"
  mkdir -p "$dir"
  echo "other-glibc: debootstrap $suite from $mirror into $chroot_dir" >&2
  debootstrap --variant=minbase --include=libncursesw6,zlib1g,libstdc++6,libsystemd0 \
    "$suite" "$chroot_dir" "$mirror" >"$dir/debootstrap.log" 2>&1 \
    || { tail -20 "$dir/debootstrap.log" >&2; echo "other-glibc.sh: debootstrap failed" >&2; exit 1; }
  touch "$chroot_dir/.complete"
fi

passed=0; failed=0
check() { # check NAME CONDITION-EXIT-STATUS [detail]
  if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAILED: $1${3:+ ($3)}"; fi
}

their=$(chroot "$chroot_dir" /usr/bin/ldd --version 2>/dev/null | head -1 || true)
ours=$(ldd --version 2>/dev/null | head -1 || true)
echo "other-glibc: here: $ours; there: $their"
[ "$their" != "$ours" ]; check "the chroot's glibc differs from this machine's" $?

# The release binary must load glibc through the dynamic loader: a static glibc cannot dlopen
# libsystemd or NVML built against another one.
readelf -l "$binary" | grep -q 'Requesting program interpreter'; check "the binary links glibc dynamically" $?

install -D -m 755 "$binary" "$chroot_dir/opt/thermtop/thermtop"
rm -rf "$chroot_dir/opt/fixture" "$chroot_dir/opt/proc"
cp -a "$ROOT/Tests/Fixtures/intel-laptop" "$chroot_dir/opt/fixture"
# A still process table: the live one differs from one run to the next (heat sources).
cp -a "$ROOT/Tests/Fixtures/proc-table-1" "$chroot_dir/opt/proc"
mkdir -p "$chroot_dir/run/dbus" "$chroot_dir/tmp"

buses=()
cleanup() {
  for pid in "${buses[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -f "$chroot_dir/run/dbus/system_bus_socket" "$chroot_dir/tmp/bus"
  umount "$chroot_dir/proc" 2>/dev/null || true
  umount -R "$chroot_dir/sys" 2>/dev/null || true
}
trap cleanup EXIT
# As on any running system (the Swift runtime reads the command line from /proc/self/cmdline;
# the live report reads /sys).
mkdir -p "$chroot_dir/proc" "$chroot_dir/sys"
mountpoint -q "$chroot_dir/proc" || mount -t proc proc "$chroot_dir/proc"
mountpoint -q "$chroot_dir/sys" || mount --rbind /sys "$chroot_dir/sys"
start_bus() { # start_bus SOCKET-PATH-ON-THIS-SIDE
  rm -f "$1"
  dbus-daemon --session --nofork --address="unix:path=$1" & buses+=($!)
  for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.05; done
  echo "other-glibc.sh: dbus-daemon did not create $1" >&2; return 1
}
start_bus "$chroot_dir/tmp/bus"
start_bus "$chroot_dir/run/dbus/system_bus_socket"

run_there() { # run_there ENV... -- ARGS...
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 "${envs[@]}" /opt/thermtop/thermtop "$@"
}
# The reference: the same binary here, on the same tree (read from outside the chroot, its
# path put back as the chroot sees it).
reference() { "$binary" "$@" --sysfs-root "$chroot_dir/opt/fixture" --proc-root "$chroot_dir/opt/proc" --no-config \
  | sed "s#$chroot_dir/opt/fixture#/opt/fixture#g; s#$chroot_dir/opt/proc#/opt/proc#g"; }

set +e
out=$(run_there -- --version 2>&1); rc=$?
check "--version runs there" $rc "exit $rc: $out"

# The fixture tree: the same report, byte for byte, on both glibcs (an instant report: a
# window's measured length differs between two runs).
for args in "status --window 0" "status --json --window 0"; do
  # shellcheck disable=SC2086
  there=$(run_there -- $args --sysfs-root /opt/fixture --proc-root /opt/proc --no-config 2>&1); rc=$?
  check "$args on the fixture exits 0 there" $rc "exit $rc: $(head -c 300 <<<"$there")"
  # shellcheck disable=SC2086
  here=$(reference $args 2>&1)
  [ "$there" = "$here" ]; check "$args on the fixture prints there what it prints here" $? \
    "$(diff <(echo "$here") <(echo "$there") | head -10)"
done

# The live /sys, where the D-Bus power-profiles source runs: libsystemd is dlopen'ed and asked
# for the bus (a static glibc dies here), once through DBUS_SYSTEM_BUS_ADDRESS and once through
# the default socket path.
for how in env socket; do
  if [ $how = env ]; then envs=(DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/bus); else envs=(); fi
  there=$(run_there "${envs[@]}" -- status --no-config 2>&1); rc=$?
  here=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$chroot_dir/tmp/bus "$binary" status --no-config 2>&1); here_rc=$?
  [ $rc = $here_rc ] && [ $rc -lt 128 ]; check "status on the live /sys with a system bus ($how) exits there as here ($here_rc)" $? \
    "exit $rc: $(tail -c 300 <<<"$there")"
  grep -q 'power profiles (D-Bus): active' <<<"$there"; check "status with a system bus ($how) reached the bus through libsystemd there" $? \
    "$(grep -i 'd-bus' <<<"$there" | head -3)"
  there=$(run_there "${envs[@]}" -- status --json --no-config 2>/dev/null); rc=$?
  [ $rc -lt 128 ] && /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(e["name"].startswith("power profiles") and e["active"] for e in d["event_sources"])' <<<"$there"
  check "status --json with a system bus ($how) is a document with the D-Bus source active there" $? "exit $rc"
done
set -e
echo "other-glibc: $passed passed, $failed failed"
[ "$failed" = 0 ]
