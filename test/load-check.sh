#!/usr/bin/env bash
# The suite's load check (issue 23): npm test with two busy loops beside it,
# one per core of a 2-core machine, so every wait in the suite meets a
# machine that is busy with something else. Passes when npm test passes.
#
#   bash test/load-check.sh            # two loops
#   LOOPS=4 bash test/load-check.sh    # more
set -euo pipefail
cd "$(dirname "$0")/.."

loops=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_loops() {
  if [ "${#loops[@]}" -gt 0 ]; then kill "${loops[@]}" 2>/dev/null || true; fi
}
trap stop_loops EXIT

for _ in $(seq "${LOOPS:-2}"); do
  bash -c 'while :; do :; done' &
  loops+=("$!")
done
echo "load-check: ${#loops[@]} busy loops beside npm test (pids ${loops[*]})"

start=$(date +%s)
status=0
npm test </dev/null || status=$?
echo "load-check: npm test exited ${status} after $(($(date +%s) - start)) s beside ${#loops[@]} busy loops"
exit "$status"
