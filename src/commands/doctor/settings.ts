/**
 * doctor's two decisions that status also shows (issue 47, item 3): the
 * update policy in force with its source (status's `updates` row), and the
 * memory decision, read as setup reads it (nothing is started). A policy
 * source that cannot be read, or memory kept off by something the user can
 * change, is a warning with the command that changes it; neither is broken,
 * since Gentle Shell keeps working either way.
 */
import { tildifyText } from "../../core/layout";
import { NOTICES, type EngramDecision } from "../../installed/engram/decision";
import type { MemoryInfo } from "../status/gather";
import { updatesRow, type UpdatesInfo } from "../status/updates";
import type { Check } from "./plan";

export function updatesCheck(info: UpdatesInfo | null): Check {
  if (info === null) return { group: "machine", id: "machine.updates", status: "warn", line: "the update policy could not be read, so updates count as off" };
  const line = `updates: ${updatesRow(info)}`;
  if (!info.problem) return { group: "machine", id: "machine.updates", status: "ok", line };
  return {
    group: "machine",
    id: "machine.updates",
    status: "warn",
    line,
    repair: { kind: "command", sentence: "correct or remove that setting (docs/fleets-and-ci.md shows each key and its form)" },
  };
}

/** Why memory is off, and what changes it, for each row of the decision a user can act on. */
const MEMORY_OFF: Partial<Record<EngramDecision["row"], { why: string; run: string }>> = {
  "migration-marker": {
    why: "an interrupted memory migration is recorded in ~/.gentle-shell/config/engram-migration.json",
    run: "gentle-shell memory migrate, which says what it records and how to roll back (do not just remove the marker)",
  },
  "newer-store": {
    why: "~/.engram/engram.db was migrated by a newer Engram than the bundled one",
    run: "engram serve with that newer Engram; Gentle Shell then reuses it",
  },
  "core-missing": { why: "no Engram server runs and the bundled Engram core is not installed", run: "gentle-shell setup" },
  "unknown-listener": {
    why: "what answers on 127.0.0.1:7437 cannot be proven safe to reuse",
    run: "back up ~/.engram, then update that Engram server to 3.4.0 or later with its own installer",
  },
};

const MEMORY_ON: Partial<Record<EngramDecision["row"], string>> = {
  reuse: "memory: allowed (the Engram server running here is safe to reuse)",
  "start-not-allowed": "memory: allowed (the bundled Engram starts with the next session)",
  start: "memory: allowed (the bundled Engram starts with the next session)",
  "policy-disabled": "memory: off, as ENGRAM_STARTUP_POLICY=disabled says",
};

export function memoryCheck(memory: MemoryInfo, home: string): Check {
  const id = "machine.memory";
  if (!memory.probed) return { group: "machine", id, status: "ok", line: "memory: not checked" };
  const row = memory.reason as EngramDecision["row"];
  const on = MEMORY_ON[row];
  if (on) return { group: "machine", id, status: "ok", line: on };
  const off = MEMORY_OFF[row];
  if (off) return { group: "machine", id, status: "warn", line: `memory is off: ${off.why}`, repair: { kind: "command", sentence: off.run } };
  // ENGRAM_BIN or ENGRAM_URL set (the user's own Engram), or an ENGRAM_STARTUP_POLICY that is neither value: the notice says which.
  // Both are the row "explicit"; the decision's own notice tells them apart.
  const said = tildifyText(memory.notice ?? "", home);
  if (said !== NOTICES.invalidPolicy()) {
    const names = /because you set ([^:]+):/.exec(said)?.[1];
    if (row === "explicit" && names)
      return { group: "machine", id, status: "ok", line: `memory: yours (you set ${names}, so Gentle Shell neither checks nor starts an Engram server)` };
    return { group: "machine", id, status: "warn", line: `memory is off (${memory.reason})` };
  }
  return {
    group: "machine",
    id,
    status: "warn",
    line: "memory is off: ENGRAM_STARTUP_POLICY is neither allowed nor disabled",
    repair: { kind: "command", sentence: "set ENGRAM_STARTUP_POLICY to allowed or disabled, or unset it" },
  };
}
