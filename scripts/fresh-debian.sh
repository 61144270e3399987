#!/usr/bin/env bash
# Follows the README on a fresh machine: a Debian 12 (bookworm) minbase chroot made with
# debootstrap, with only Swift's own prerequisites for Debian 12 (swift.org's list, below) and
# the packages README.md's Install section names (its `sudo apt-get install` line, read from the
# README itself, so the two cannot drift apart). The working tree is copied to /root/thermtop
# (mode 700, as on Debian) and the README's first commands run there: `swift build` and
# `swift run thermtop status --simulate`; with --test also `swift test`.
#
#   sudo scripts/fresh-debian.sh [--test] [--dir DIR] [--swift DIR]
#
# Defaults: .build-bookworm/ (the chroot is kept between runs; its packages are installed anew
# each run, so a package dropped from the README fails here), the toolchain that `swift` on PATH
# belongs to. Needs root (chroot, mounts) and debootstrap. Prints one line at the end:
#   fresh-debian: N passed, M failed
# Exit status 0 when every check passed, 1 when one failed, 69 when root, debootstrap or the
# README's package line is missing, 64 for a bad invocation.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
dir="$ROOT/.build-bookworm"; run_tests=0
swift_dir=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
while [ $# -gt 0 ]; do
  case "$1" in
    --test) run_tests=1; shift ;;
    --dir) dir=$2; shift 2 ;;
    --swift) swift_dir=$(readlink -f "$2"); shift 2 ;;
    *) echo "fresh-debian.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-debian.sh: needs root (chroot)" >&2; exit 69; }
command -v debootstrap >/dev/null || { echo "fresh-debian.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 69; }
[ -x "$swift_dir/usr/bin/swift" ] || { echo "fresh-debian.sh: no Swift toolchain at $swift_dir (--swift DIR)" >&2; exit 69; }

# What swift.org lists for Debian 12 before installing its tarball: the README assumes these.
swift_prerequisites=(binutils-gold gcc git libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev
  libpython3-dev libsqlite3-dev libxml2-dev pkg-config tzdata uuid-dev)
# What the README adds: the words after `apt-get install -y` on its Install section's line.
readme_line=$(sed -n '/^## Install/,/^## /p' "$ROOT/README.md" | grep -m1 -E '^sudo apt-get install' || true)
[ -n "$readme_line" ] || { echo "fresh-debian.sh: README.md's Install section has no 'sudo apt-get install' line" >&2; exit 69; }
read -r -a readme_packages <<<"$(sed -E 's/^sudo apt-get install( -y)?//; s/#.*//' <<<"$readme_line")"
echo "fresh-debian: Swift's prerequisites: ${swift_prerequisites[*]}"
echo "fresh-debian: the README's packages: ${readme_packages[*]}"

mirror=$( (grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list || true) \
  | grep -v security | sed -E 's/^URIs:[[:space:]]*//; s/^deb (\[[^]]*\] )?//' | awk '{print $1}' | head -1)
[ -n "$mirror" ] || { echo "fresh-debian.sh: no Debian mirror in apt's sources" >&2; exit 69; }

chroot_dir="$dir/root"
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_into() { # mount_into SOURCE TARGET-IN-CHROOT [ro]
  mkdir -p "$chroot_dir$2"
  mount --bind "$1" "$chroot_dir$2"
  mounts+=("$chroot_dir$2")
  [ "${3:-}" = ro ] && mount -o remount,bind,ro "$chroot_dir$2"
  return 0
}

if [ ! -f "$chroot_dir/.complete" ]; then
  rm -rf "$chroot_dir"
  mkdir -p "$dir"
  echo "fresh-debian: debootstrap bookworm (minbase) from $mirror into $chroot_dir" >&2
  debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" >"$dir/debootstrap.log" 2>&1 \
    || { tail -20 "$dir/debootstrap.log" >&2; echo "fresh-debian.sh: debootstrap failed" >&2; exit 1; }
  touch "$chroot_dir/.complete"
fi
# Back to the bare minbase package set before each run, so what an earlier run installed
# cannot hide a package the README lost: everything not in debootstrap's own list goes.
if [ -f "$chroot_dir/.minbase-packages" ]; then
  chroot "$chroot_dir" dpkg-query -W -f '${Package}\n' | sort >"$dir/now.txt"
  extra=$(comm -23 "$dir/now.txt" "$chroot_dir/.minbase-packages" | tr '\n' ' ')
  [ -n "$extra" ] && chroot "$chroot_dir" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --allow-remove-essential $extra >/dev/null
else
  chroot "$chroot_dir" dpkg-query -W -f '${Package}\n' | sort >"$chroot_dir/.minbase-packages"
fi

mount_into /proc /proc
mount_into /sys /sys
mount_into /dev /dev
mount_into "$swift_dir" /opt/swift ro
# The machine's git redirects (GitHub URLs to local copies of the packages), as on this machine.
while read -r key value; do
  target=${key#url.}; target=${target%.insteadof}
  [ -d "$target" ] && mount_into "$target" "$target" ro
done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)
git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
  echo "[url \"${key#url.}\"]" | sed -E 's/\.insteadof"\]$/"]/'
  echo "	insteadOf = $value"
done >"$chroot_dir/etc/gitconfig"

passed=0; failed=0
check() { # check NAME EXIT-STATUS [detail]
  if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok: $1"
  else failed=$((failed + 1)); echo "FAILED: $1${3:+ ($3)}"; fi
}
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 TERM=xterm-256color ${CI:+CI=$CI} /bin/sh -c "$1"; }

cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
apt_log="$dir/apt.log"
s=0
{ in_chroot "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${swift_prerequisites[*]} ${readme_packages[*]}" ; } >"$apt_log" 2>&1 || s=$?
check "Swift's prerequisites and the README's packages install" $s "$(tail -3 "$apt_log" | tr '\n' ' ')"
[ "$s" = 0 ] || { echo "fresh-debian: $passed passed, $failed failed"; exit 1; }

# The working tree as a clone would hold it (tracked files and untracked ones git does not ignore).
rm -rf "$chroot_dir/root/thermtop"
mkdir -p "$chroot_dir/root/thermtop"
chmod 700 "$chroot_dir/root"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf -) | tar -C "$chroot_dir/root/thermtop" -xf -

build_log="$dir/build.log"
s=0; in_chroot "cd /root/thermtop && swift build" >"$build_log" 2>&1 || s=$?
check "swift build in /root/thermtop" $s "$(grep -m3 -E 'error:' "$build_log" | tr '\n' ' ')"
out=$(in_chroot "cd /root/thermtop && swift run thermtop status --simulate" 2>&1) && s=0 || s=$?
# The simulated laptop is always measured: 0 and its report, or a failure.
[ "$s" = 0 ] && ! grep -q "source: simulated laptop" <<<"$out" && s=1
check "swift run thermtop status --simulate" $s "$(tail -3 <<<"$out" | tr '\n' ' ')"
if [ "$run_tests" = 1 ]; then
  test_log="$dir/test.log"
  s=0; in_chroot "cd /root/thermtop && swift test --disable-xctest" >"$test_log" 2>&1 || s=$?
  check "swift test in /root/thermtop: $(grep -E 'Test run with' "$test_log" | tail -1)" $s
  echo "fresh-debian: skipped for a missing tool: $(grep -c 'skipped: "needs:' "$test_log" || true) (grep 'needs:' $test_log)"
fi
echo "fresh-debian: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
