/**
 * The offline bundle's two launchers at its root (docs/offline.md):
 * `install.sh` (macOS, Linux) and `install.cmd` (Windows), each running this
 * machine's gentle-shell-setup from the bundle with `--source` set to the
 * bundle's own folder, wherever the stick is mounted, and the arguments it
 * was given passed on. Pure: the texts only; make.ts writes them, verify.ts
 * checks a bundle's against them byte for byte, so a verified stick holds no
 * script its checks did not cover.
 *
 * The texts name no version and no target list: the same bytes for every
 * bundle, so a trusted gentle-shell-setup can check another one's bundle.
 * Changing them makes bundles made before unverifiable by the new binary:
 * keep the old text accepted then.
 *
 * install.sh (POSIX sh, dash included): the folder comes from `$0` without
 * command substitution of a path (a trailing newline would be lost); the
 * target from `uname -s`/`uname -m` as installers/install.sh decides it;
 * a binary that cannot be executed in place (a FAT stick mounted with
 * showexec, a noexec mount) is run from a private copy in a fresh temp
 * folder, removed afterwards.
 *
 * install.cmd: delayed expansion off, so `!` in the path stays literal;
 * `%~dp0` is taken once, first, and only ever used inside quotes and outside
 * parenthesised blocks (`&`, `^`, `(`, `)`, `,` and `%` in the path stay
 * literal); `--source "%~dp0."`, because `"...\"` would make the closing
 * quote part of the argument. The architecture is PROCESSOR_ARCHITEW6432
 * (a 32-bit cmd.exe on 64-bit Windows), else PROCESSOR_ARCHITECTURE. Started
 * with no arguments (a double-click), it waits for a key before its window
 * closes. CRLF line ends and ASCII only: cmd.exe reads a batch file in the
 * console's code page.
 */
export const BUNDLE_INSTALL_SH = "install.sh";
export const BUNDLE_INSTALL_CMD = "install.cmd";

const INSTALL_SH = `#!/bin/sh
# Gentle Shell offline bundle: installs from this folder, with no network.
#
#   sh install.sh            (or ./install.sh, or double-click where that runs it)
#   sh install.sh --yes      (arguments are passed on to gentle-shell-setup install)
#
# It runs this machine's gentle-shell-setup from this folder as
#   gentle-shell-setup-<os>-<arch> install --source <this folder> <arguments>
# Check a stick you did not make with a gentle-shell-setup you trust first:
#   gentle-shell-setup verify <this folder>
set -eu

say() { printf 'gentle-shell-setup: %s\\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

case $0 in
  */*) dir=\${0%/*} ;;
  *) dir=. ;;
esac
here=$(CDPATH='' cd -P -- "\${dir:-/}" && pwd -P && echo .) || fail "cannot enter the folder of $0"
here=\${here%?.}

os=$(uname -s)
arch=$(uname -m)
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "this launcher is for macOS and Linux; on Windows run install.cmd (found $os)" ;;
esac
case $arch in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) fail "no gentle-shell-setup for the $arch processor" ;;
esac
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || echo 0)" = 1 ]; then
  # A shell under Rosetta reports x86_64 on Apple silicon: take the native build.
  arch=arm64
fi
name="gentle-shell-setup-$os-$arch"
bin="$here/$name"

if [ ! -f "$bin" ]; then
  fail "this bundle has no $name for this machine ($os-$arch): make one with --target $os-$arch, or run a gentle-shell-setup you trust with: install --source \\"$here\\""
fi
if [ -x "$bin" ]; then
  exec "$bin" install --source "$here" "$@"
fi

# Not executable in place (a stick mounted noexec or without exec bits): a private copy.
tmp=$(mktemp -d 2>/dev/null || mktemp -d -t gentle-shell-setup) || fail "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
cp "$bin" "$tmp/$name" || fail "cannot copy $name out of the bundle"
chmod 700 "$tmp/$name"
status=0
"$tmp/$name" install --source "$here" "$@" || status=$?
exit "$status"
`;

const INSTALL_CMD_LINES = [
  "@echo off",
  "rem Gentle Shell offline bundle: installs from this folder, with no network.",
  "rem Double-click it, or run: install.cmd --yes (arguments go to gentle-shell-setup install).",
  "rem It runs gentle-shell-setup-win-<arch>.exe install --source <this folder> from this folder.",
  "rem Check a stick you did not make with a gentle-shell-setup you trust first:",
  "rem   gentle-shell-setup verify <this folder>",
  "setlocal EnableExtensions DisableDelayedExpansion",
  'set "GSS_HERE=%~dp0"',
  'set "GSS_PAUSE="',
  'if "%~1"=="" set "GSS_PAUSE=1"',
  'set "GSS_ARCH=%PROCESSOR_ARCHITECTURE%"',
  'if defined PROCESSOR_ARCHITEW6432 set "GSS_ARCH=%PROCESSOR_ARCHITEW6432%"',
  'set "GSS_TARGET="',
  'if /i "%GSS_ARCH%"=="AMD64" set "GSS_TARGET=win-x64"',
  'if /i "%GSS_ARCH%"=="ARM64" set "GSS_TARGET=win-arm64"',
  "if not defined GSS_TARGET goto :no_arch",
  'if not exist "%GSS_HERE%gentle-shell-setup-%GSS_TARGET%.exe" goto :no_binary',
  '"%GSS_HERE%gentle-shell-setup-%GSS_TARGET%.exe" install --source "%GSS_HERE%." %*',
  'set "GSS_CODE=%ERRORLEVEL%"',
  "goto :done",
  ":no_arch",
  ">&2 echo gentle-shell-setup: no gentle-shell-setup for the %GSS_ARCH% processor",
  'set "GSS_CODE=1"',
  "goto :done",
  ":no_binary",
  ">&2 echo gentle-shell-setup: this bundle has no gentle-shell-setup-%GSS_TARGET%.exe for this machine: make one with --target %GSS_TARGET%, or run a gentle-shell-setup you trust with install --source and this folder",
  'set "GSS_CODE=1"',
  ":done",
  "if defined GSS_PAUSE pause",
  "exit /b %GSS_CODE%",
];
const INSTALL_CMD = INSTALL_CMD_LINES.map((line) => `${line}\r\n`).join("");

/** The launchers a bundle's root holds, by file name, and the mode each is written with. */
export const BUNDLE_LAUNCHERS: ReadonlyArray<{ name: string; text: string; mode: number }> = [
  { name: BUNDLE_INSTALL_SH, text: INSTALL_SH, mode: 0o755 },
  { name: BUNDLE_INSTALL_CMD, text: INSTALL_CMD, mode: 0o644 },
];

export function bundleLauncher(name: string): string | null {
  return BUNDLE_LAUNCHERS.find((l) => l.name === name)?.text ?? null;
}
