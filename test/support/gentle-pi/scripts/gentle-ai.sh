#!/bin/sh
# gentle-ai TEST FIXTURE (from the gentle-pi fixture __GENTLE_PI_VERSION__): records how it was
# started, so tests can check what the installer passes to Gentle AI. It runs nothing else.
record="${GENTLE_AI_FIXTURE_RECORD:-}"
if [ -z "$record" ]; then
  if [ -z "${GENTLE_AI_HOME:-}" ]; then
    echo "gentle-ai fixture: neither GENTLE_AI_FIXTURE_RECORD nor GENTLE_AI_HOME is set" >&2
    exit 64
  fi
  mkdir -p "$GENTLE_AI_HOME/fixture-runs" || exit 70
  record="$GENTLE_AI_HOME/fixture-runs/run-$(date +%s)-$$.rec"
fi
{
  printf '%s\0%s\0%s\0%s\0' gentle-ai-fixture-record-1 "__GENTLE_PI_VERSION__" "$(pwd)" "$#"
  for arg in "$@"; do printf '%s\0' "$arg"; done
  env -0
} > "$record.tmp.$$" && mv "$record.tmp.$$" "$record" || exit 70
# Like Gentle AI 4.0.0, it may rewrite the persona (tests ask for it): the user's and the config dir's.
if [ -n "${GENTLE_AI_FIXTURE_PERSONA:-}" ]; then
  mkdir -p "$HOME/.pi/gentle-ai" && printf '%s' "$GENTLE_AI_FIXTURE_PERSONA" > "$HOME/.pi/gentle-ai/persona.json"
  if [ -n "${GENTLE_AI_PI_CONFIG_DIR:-}" ]; then
    mkdir -p "$GENTLE_AI_PI_CONFIG_DIR" && printf '%s' "$GENTLE_AI_FIXTURE_PERSONA" > "$GENTLE_AI_PI_CONFIG_DIR/persona.json"
  fi
fi
echo "gentle-ai fixture __GENTLE_PI_VERSION__: recorded $# argument(s)"
exit "${GENTLE_AI_FIXTURE_EXIT:-0}"
