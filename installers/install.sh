#!/bin/sh
# gentle-shell-setup bootstrap for macOS and Linux:
#
#   curl -fsSL <release>/install.sh | sh            # asks once, on your terminal
#   curl -fsSL <release>/install.sh | sh -s -- --yes
#
# It downloads the gentle-shell-setup binary for this machine and the
# release's SHA256SUMS, checks the binary against it, and runs
# `gentle-shell-setup install` with your arguments. The binary then verifies
# every runtime it downloads against the pins compiled into it.
#
# GENTLE_SHELL_SETUP_DOWNLOAD names another folder with the same files (a
# mirror); it must be https, or http on the loopback address for tests. Its
# credentials, if it has any, are never printed.
#
# On Windows, run install.ps1 from the same release in PowerShell instead:
#   irm <release>/install.ps1 | iex
#
# The whole script is one `{ ... }` block, closed on its last line: piped into
# sh, a download cut short anywhere leaves the block open, which sh refuses
# as a syntax error before running any of it. (A bare last line `main "$@"`
# cut to `main` would run the installer without your arguments.)
{
set -eu

download_base=${GENTLE_SHELL_SETUP_DOWNLOAD:-https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download}

say() { printf 'gentle-shell-setup: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

# A URL as we print it: `user:password@` becomes `***@`, and so does the
# value of a query parameter whose name reads like a credential. The URL is
# read as curl and browsers read it, not by what a password usually holds:
# the host part runs to the first `/`, `?` or `#` and its user information to
# its LAST `@`, whatever it holds (quotes, spaces, `@`); a query value runs to
# the next `&` or `#`. A password with `/`, `?`, `#` or `\` in it makes a URL
# whose host part is no host: then the mask runs to the last `@` of all.
# Every character is marked masked or not on the URL as given, and each run
# of masked ones is printed as `***`, so the two rules cannot uncover each
# other's secret.
mask_url() {
  printf '%s' "$1" | tr '\n\r' '  ' | awk '{
    s = $0; n = length(s)
    for (i = 1; i <= n; i++) m[i] = 0
    if (match(s, /^[A-Za-z][A-Za-z0-9+.-]*:\/\//)) {
      start = RLENGTH + 1; end = start
      while (end <= n && index("/?#\\", substr(s, end, 1)) == 0) end++
      at = 0
      for (i = start; i < end; i++) if (substr(s, i, 1) == "@") at = i
      from = at ? at + 1 : start
      host = substr(s, from, end - from)
      if ((end <= n && substr(s, end, 1) != "/") || host !~ /^([A-Za-z0-9._~%-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]*)?$/)
        for (i = end; i <= n; i++) if (substr(s, i, 1) == "@") at = i
      for (i = start; i < at; i++) m[i] = 1
    }
    q = index(s, "?")
    if (q) {
      h = index(substr(s, q + 1), "#"); stop = h ? q + h : n + 1
      for (i = q + 1; i < stop; i = j + 1) {
        j = i
        while (j < stop && substr(s, j, 1) != "&") j++
        p = substr(s, i, j - i); e = index(p, "=")
        if (e && e < length(p) && tolower(substr(p, 1, e - 1)) ~ /token|auth|secret|pass|sig|key|credential/)
          for (k = i + e; k < j; k++) m[k] = 1
      }
    }
    out = ""
    for (i = 1; i <= n; ) {
      if (m[i]) { out = out "***"; while (i <= n && m[i]) i++ }
      else { out = out substr(s, i, 1); i++ }
    }
    print out
  }'
}
shown_base=$(mask_url "$download_base")

case $download_base in
  https://*) ;;
  http://*@*) fail "GENTLE_SHELL_SETUP_DOWNLOAD must be an https URL (got $shown_base)" ;;
  http://127.0.0.1:*|http://127.0.0.1/*|http://localhost:*|http://localhost/*) ;;
  *) fail "GENTLE_SHELL_SETUP_DOWNLOAD must be an https URL (got $shown_base)" ;;
esac

detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case $os in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW*|MSYS*|CYGWIN*) fail "this installer is for macOS and Linux; on Windows, run this in PowerShell instead: irm $shown_base/install.ps1 | iex" ;;
    *) fail "this installer is for macOS and Linux, not $os" ;;
  esac
  case $arch in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) fail "no gentle-shell-setup for the $arch processor" ;;
  esac
  if [ "$os" = darwin ] && [ "$arch" = x64 ]; then
    # A shell under Rosetta reports x86_64 on Apple silicon: take the native build.
    if [ "$(sysctl -n hw.optional.arm64 2>/dev/null || echo 0)" = 1 ]; then arch=arm64; fi
  fi
  if [ "$os" = linux ]; then
    # Node's Linux builds need glibc; musl systems (Alpine) cannot run them.
    if [ -e /lib/ld-musl-x86_64.so.1 ] || [ -e /lib/ld-musl-aarch64.so.1 ]; then
      if ! ls /lib*/ld-linux* >/dev/null 2>&1 && ! ls /lib64/ld-linux* >/dev/null 2>&1; then
        fail "this Linux uses musl (Alpine?); Gentle Shell's Node needs glibc"
      fi
    fi
  fi
  echo "$os-$arch"
}

fetch() {
  # fetch URL FILE
  if command -v curl >/dev/null 2>&1; then
    case $1 in
      https://*) curl --proto '=https' --tlsv1.2 -fsSL --retry 3 -o "$2" "$1" ;;
      *) curl -fsSL --retry 3 -o "$2" "$1" ;;
    esac
  elif command -v wget >/dev/null 2>&1; then
    case $1 in
      https://*) wget --https-only -q -O "$2" "$1" ;;
      *) wget -q -O "$2" "$1" ;;
    esac
  else
    fail "neither curl nor wget is installed; install one of them and run this again"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "no sha256sum or shasum to check the download with"
  fi
}

tmp=
made_parent=
cleanup() {
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
  if [ -n "$made_parent" ]; then rmdir "$made_parent" 2>/dev/null || true; fi
}

# A private folder we can run the binary from. The system's temporary folder
# comes first; where it is mounted noexec (the binary would fail with
# "Permission denied"), the user's cache folder. Each is proved by running a
# tiny script from it.
make_tmp() {
  system_tmp=${TMPDIR:-/tmp}
  for parent in "$system_tmp" "${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}"; do
    [ -n "$parent" ] || continue
    if [ ! -d "$parent" ]; then
      [ "$parent" != "$system_tmp" ] || continue
      mkdir -p "$parent" 2>/dev/null || continue
      made_parent=$parent
    fi
    tmp=$(mktemp -d "$parent/gentle-shell-setup.XXXXXX" 2>/dev/null) || { tmp=; continue; }
    chmod 700 "$tmp"
    printf '#!/bin/sh\nexit 0\n' >"$tmp/probe"
    chmod 700 "$tmp/probe"
    if "$tmp/probe" 2>/dev/null; then
      rm -f "$tmp/probe"
      if [ "$parent" != "$system_tmp" ]; then say "$system_tmp does not let programs run (mounted noexec?); downloading into $parent instead"; fi
      return 0
    fi
    rm -rf "$tmp"
    tmp=
  done
  fail "no temporary folder lets a downloaded program run here ($system_tmp is mounted noexec?); set TMPDIR to one that does and run this again"
}

main() {
  target=$(detect_target)
  name="gentle-shell-setup-$target"
  trap cleanup EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
  make_tmp

  say "downloading $name"
  fetch "$download_base/SHA256SUMS" "$tmp/SHA256SUMS" || fail "could not download SHA256SUMS from $shown_base"
  fetch "$download_base/$name" "$tmp/$name" || fail "could not download $name from $shown_base"

  expected=$(awk -v f="$name" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
  [ -n "$expected" ] || fail "SHA256SUMS does not list $name"
  actual=$(sha256_of "$tmp/$name")
  if [ "$actual" != "$expected" ]; then
    fail "$name does not match SHA256SUMS (expected $expected, got $actual); nothing was installed"
  fi
  chmod 700 "$tmp/$name"

  # Piped into sh, our standard input is this script: ask on the terminal instead.
  if [ -t 1 ] && (exec </dev/tty) 2>/dev/null; then
    "$tmp/$name" install "$@" </dev/tty
  else
    "$tmp/$name" install "$@"
  fi
}

main "$@"
}
