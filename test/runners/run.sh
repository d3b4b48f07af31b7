#!/usr/bin/env bash
# npm run test:runners (issue 38): the GitHub runners' conditions, replayed on
# this machine so that a workflow's first run is not the first time they meet
# the code. Run by .ci/run after npm test; each replay ends with its counts.
#
#   crlf        .ci/unit (the typecheck, the unit project) from a CRLF checkout (windows-latest's
#               actions/checkout converts LF to CRLF where .gitattributes does
#               not say otherwise);
#   macos-user  .ci/unit as a user who is not root, with TMPDIR
#               reached through a symlink and ending in a slash (macos-latest:
#               the runner user, /var -> /private/var, TMPDIR=/var/folders/../T/),
#               and as locked down as such a user can be (issue 50): a space in
#               TMPDIR (a Windows or macOS user name brings one), umask 077
#               (hardened corporate images) and LANG=C (many CI images);
#   lanes       .ci/lanes, the end-to-end lane (test/lanes), which the
#               windows-e2e and macos-e2e jobs run and npm test never collects.
#
# Every job of .github/workflows/ci.yml runs its tests on setup-node's Node,
# not the pinned one: the replays run on this machine's Node, which must be
# the major those jobs name (checked first). Tests that need the pinned Node
# take it from build/toolchain.mjs. The Windows lane (npm run test:windows)
# replays the CRLF tree and setup-node's Node under Wine.
#
#   bash test/runners/run.sh [crlf] [macos-user] [lanes]   # all three by default
#
# As root (the macos-user replay makes a user). Exits non-zero when a replay fails.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf 'runners: %s\n' "$*" >&2; }
results="$repo/test-results/runners"
rm -rf "$results"
mkdir -p "$results"

replays=("$@")
[ "${#replays[@]}" -gt 0 ] || replays=(crlf macos-user lanes)

# The Node major every ci.yml job asks setup-node for, and this machine's.
wanted=$(grep -E '^ +node-version: ' "$repo/.github/workflows/ci.yml" | awk '{print $2}' | sort -u)
have=$(node -p 'process.versions.node.split(".")[0]')
if [ "$wanted" != "$have" ]; then
  say "ci.yml's jobs run Node ${wanted//$'\n'/, }, this machine runs Node $have: the replays would not be the jobs' own; install Node $wanted or change ci.yml"
  exit 1
fi
say "the jobs' Node: $wanted (this machine: $(node --version))"

# A copy of the working tree as a checkout holds it (no .git, results, node_modules).
copy_tree() {
  mkdir -p "$1"
  tar -C "$repo" --exclude=./.git --exclude=./test-results --exclude=./node_modules -cf - . | tar -C "$1" -xf -
}

scratch=$(mktemp -d /tmp/gss-runners-XXXXXX)
user=gss-runner
trap 'rm -rf "$scratch"' EXIT

# The unit-and-build job's own script (.ci/unit) in folder $1, started by the
# command after the label (env, runuser), its report into $results/$2.json.
failed=0
unit_project() {
  local dir=$1 label=$2
  shift 2
  local status=0
  (cd "$dir" && "$@" GSS_UNIT_REPORT="$dir/report.json" bash .ci/unit) >"$results/$label.log" 2>&1 </dev/null || status=$?
  cp "$dir/report.json" "$results/$label.json" 2>/dev/null || true
  cp "$dir/skips.jsonl" "$results/$label.skips.jsonl" 2>/dev/null || true
  node "$repo/test/runners/summary.mjs" "runners: $label" "$results/$label.json" "$results/$label.skips.jsonl" || status=1
  if [ "$status" -ne 0 ]; then
    failed=1
    say "$label failed; its output: $results/$label.log"
    sed 's/\x1b\[[0-9;]*m//g' "$results/$label.log" | grep -E 'FAIL|Error' | head -n 20 >&2 || true
  fi
}

for replay in "${replays[@]}"; do
  case $replay in
  crlf)
    dir="$scratch/crlf"
    copy_tree "$dir"
    ln -s "$(readlink -f "$repo/node_modules")" "$dir/node_modules"
    say "crlf: $(node "$repo/test/runners/crlf.mjs" "$dir") text files now end their lines with CRLF"
    unit_project "$dir" crlf env GSS_SKIP_LOG="$dir/skips.jsonl"
    ;;
  macos-user)
    [ "$(id -u)" = 0 ] || { say "macos-user: making a user needs root"; exit 1; }
    id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
    home=$(getent passwd "$user" | cut -d: -f6)
    # /private/var/folders/a b/T is real; var -> private/var, as macOS has /var -> /private/var.
    tmp="$scratch/var/folders/a b/T/"
    mkdir -p "$scratch/private/var/folders/a b/T"
    ln -s private/var "$scratch/var"
    # The checkout lives in the user's own folder, as the runner's work folder does.
    dir="$home/work-$$"
    rm -rf "$dir"
    copy_tree "$dir"
    cp -a "$(readlink -f "$repo/node_modules")" "$dir/node_modules"
    chown -R "$user:" "$dir" "$scratch/private"
    chmod 755 "$scratch"
    # The umask is set in the user's own shell, so .ci/unit and everything it starts inherit it.
    unit_project "$dir" macos-user runuser -u "$user" -- env -i PATH="$PATH" HOME="$home" USER="$user" LANG=C CI=true \
      TMPDIR="$tmp" GSS_SKIP_LOG="$dir/skips.jsonl" sh -c 'umask 077 && exec "$@"' sh env
    rm -rf "$dir"
    ;;
  lanes)
    status=0
    GSS_LANES_REPORT="$results/lanes.json" bash "$repo/.ci/lanes" >"$results/lanes.log" 2>&1 </dev/null || status=$?
    node "$repo/test/runners/summary.mjs" "runners: lanes" "$results/lanes.json" || status=1
    if [ "$status" -ne 0 ]; then
      failed=1
      say "lanes failed; the end of its output:"
      sed 's/\x1b\[[0-9;]*m//g' "$results/lanes.log" | tail -n 40 >&2 || true
    fi
    ;;
  *)
    say "no replay named $replay (crlf, macos-user, lanes)"
    exit 2
    ;;
  esac
done
exit "$failed"
