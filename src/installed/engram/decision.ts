/**
 * Engram startup safety, the decision table (spec: "Engram startup safety",
 * Decision; "The guard"; "Recovery and setup"). Pure: the evidence goes in,
 * the memory decision and the variables Pi gets come out. The I/O that
 * gathers the evidence (the database header, the two loopback probes, the
 * bundled core on disk, starting `engram serve`) is in probe.ts, server.ts
 * and launch.ts. Whenever memory may not be used, Pi still starts, with
 * ENGRAM_BIN on Shell's guard, so no provider can open, create or migrate a
 * store.
 */
import type { Env } from "../../core/environment";
import type { Platform } from "../../core/layout";
import type { CompatibilityProbe, HeaderSignal } from "./contract";
import { envKey } from "../../core/environment";
import { POLICY_VARIABLE, engramSelection, type EngramSelection, type StartupPolicy } from "./selection";

export type Memory = "allowed" | "disabled" | "start";

export interface EngramDecision {
  memory: Memory;
  ENGRAM_BIN: string;
  ENGRAM_URL?: string;
  policy: StartupPolicy;
  /** One line for stderr, when the user should know; never holds a variable's value. */
  notice?: string;
  /** Which row of the table decided (for tests and diagnostics). */
  row:
    | "skipped"
    | "explicit"
    | "policy-disabled"
    | "migration-marker"
    | "reuse"
    | "start"
    | "started"
    | "start-failed"
    | "start-not-allowed"
    | "newer-store"
    | "core-missing"
    | "unknown-listener";
}

export interface EngramEvidence {
  platform: Platform;
  /** The user's environment (what the engine got). */
  env: Env;
  paths: {
    guard: string;
    /** The bundled core, runtime/engram-<v>/engram. */
    core: string;
    /** The shared server's URL (the default endpoint). */
    url: string;
  };
  /** See PiLaunch.kind (src/core/pi-launch.ts); "classify" is also setup's. */
  kind: "skip" | "classify" | "final";
  /** <prefix>/config/engram-migration.json exists. */
  migrationMarker: boolean;
  /** The bundled core is published and verified. */
  coreVerified: boolean;
  /** Absent when not probed (the decision is then made before any probe). */
  compatibility?: CompatibilityProbe;
  /** The version /health named for the notice (olderServerVersion), when probed. */
  olderVersion?: string | null;
  /** The tripwire, when read. */
  header?: HeaderSignal;
}

const PREFIX = "gentle-shell:";
const WITHOUT = "Gentle Shell keeps working without memory and checks again on the next launch.";

export const NOTICES = {
  explicit: (names: string[]) =>
    `${PREFIX} Engram memory is marked disabled because you set ${names.join(", ")}: Gentle Shell neither checks nor starts an Engram server when Engram is selected explicitly, and keeps your ENGRAM_BIN/ENGRAM_URL as they are.`,
  invalidPolicy: () => `${PREFIX} Engram memory is disabled because ENGRAM_STARTUP_POLICY is neither "allowed" nor "disabled". ${WITHOUT}`,
  migration: (marker: string) =>
    `${PREFIX} Engram memory is disabled: an interrupted memory migration is recorded in ${marker}. Keep Engram clients stopped, run gentle-shell memory migrate to see what it records and how to roll back, and do not just remove the marker.`,
  newerStore: (userVersion: number) =>
    `${PREFIX} Engram memory is disabled: ~/.engram/engram.db was migrated by a newer Engram (schema ${userVersion}), so Gentle Shell does not start its older bundled Engram on it. Start that newer Engram's server yourself (engram serve); Gentle Shell then reuses it. ${WITHOUT}`,
  coreMissing: () =>
    `${PREFIX} Engram memory is disabled: no Engram server is running and Gentle Shell's verified Engram core is not installed. Run gentle-shell setup to install it. ${WITHOUT}`,
  olderServer: (version: string) =>
    `${PREFIX} Engram memory is disabled: the Engram server on 127.0.0.1:7437 reports version ${version}, which cannot prove safe reuse (GET /compatibility needs Engram 3.4.0 or later). Back up your Engram data (~/.engram), update that server to 3.4.0 or later with its own installation method, and restart it. Do not delete the store or bypass this check. ${WITHOUT}`,
  unverified: () =>
    `${PREFIX} Engram memory is disabled: something answers on 127.0.0.1:7437, but Gentle Shell could not verify safe reuse of that Engram server (GET /compatibility gave no ready answer; a token-protected server cannot answer Shell's unauthenticated check). It was left running as it is. Back up your Engram data before any manual change; do not delete the store or bypass this check. ${WITHOUT}`,
  startFailed: (why: string) => `${PREFIX} Engram memory is disabled for this session: the bundled Engram server Gentle Shell started ${why}. ${WITHOUT}`,
};

function guardOrKept(e: EngramEvidence, selection: EngramSelection): string {
  if (selection.bin !== undefined) return selection.bin;
  // With only ENGRAM_URL: the verified core, never an engram from PATH.
  if (selection.url !== undefined && e.coreVerified) return e.paths.core;
  return e.paths.guard;
}

/**
 * The decision table. Rows that need no probe (a version or help launch,
 * explicit selections, the policy, the migration marker) come first; for the
 * others the caller probes first (needsProbe tells which), and a missing
 * `compatibility` then throws.
 */
export function decideEngram(e: EngramEvidence): EngramDecision {
  const selection = engramSelection(e.env, e.platform, e.paths);
  const disabled = (row: EngramDecision["row"], notice?: string): EngramDecision => ({
    memory: "disabled",
    ENGRAM_BIN: guardOrKept(e, selection),
    ...(selection.url !== undefined ? { ENGRAM_URL: selection.url } : {}),
    policy: "disabled",
    ...(notice ? { notice } : {}),
    row,
  });
  if (e.kind === "skip") return disabled("skipped");
  if (selection.explicit.length > 0) return disabled("explicit", NOTICES.explicit(selection.explicit));
  if (selection.policy === "invalid") return disabled("explicit", NOTICES.invalidPolicy());
  if (selection.policy === "disabled") return disabled("policy-disabled");
  if (e.migrationMarker) return disabled("migration-marker", NOTICES.migration("config/engram-migration.json"));
  const probe = e.compatibility;
  if (!probe) throw new Error("decideEngram: the endpoint must be probed for this launch (see needsProbe)");
  if (probe.kind === "ready") return { memory: "allowed", ENGRAM_BIN: e.paths.guard, ENGRAM_URL: e.paths.url, policy: "allowed", row: "reuse" };
  if (probe.kind === "other") {
    return disabled("unknown-listener", e.olderVersion ? NOTICES.olderServer(e.olderVersion) : NOTICES.unverified());
  }
  // Nothing listens.
  if (e.header?.kind === "newer") return disabled("newer-store", NOTICES.newerStore(e.header.userVersion));
  if (!e.coreVerified) return disabled("core-missing", NOTICES.coreMissing());
  // Subcommands and setup never start a server; the following launch will.
  if (e.kind !== "final") return disabled("start-not-allowed");
  return { memory: "start", ENGRAM_BIN: e.paths.guard, ENGRAM_URL: e.paths.url, policy: "allowed", row: "start" };
}

/** True when decideEngram needs the probes for this evidence (nothing before them decides). */
export function needsProbe(e: EngramEvidence): boolean {
  if (e.kind === "skip" || e.migrationMarker) return false;
  const selection = engramSelection(e.env, e.platform, e.paths);
  return selection.explicit.length === 0 && selection.policy !== "invalid" && selection.policy !== "disabled";
}

/** After a "start": allowed through the reuse URL once the server answered ready, otherwise disabled for this launch. */
export function afterStart(start: EngramDecision, outcome: { ready: true } | { ready: false; why: string }): EngramDecision {
  if (start.memory !== "start") return start;
  if (outcome.ready) return { memory: "allowed", ENGRAM_BIN: start.ENGRAM_BIN, ENGRAM_URL: start.ENGRAM_URL!, policy: "allowed", row: "started" };
  return { memory: "disabled", ENGRAM_BIN: start.ENGRAM_BIN, policy: "disabled", notice: NOTICES.startFailed(outcome.why), row: "start-failed" };
}

// --- what Pi gets ---------------------------------------------------------------

/** The variable the guard prints (bin/engram-guard; spec: "The guard"). */
export const NOTICE_VARIABLE = "ENGRAM_STARTUP_NOTICE";

/** The guard's words on a launch that said nothing: memory, when allowed, is the shared server, never a local engram. */
function guardNotice(decision: EngramDecision, url: string): string {
  return decision.memory === "allowed"
    ? `${PREFIX} this session reaches Engram memory only through the shared server at ${decision.ENGRAM_URL ?? url} (ENGRAM_URL); Gentle Shell's guard stands in for a local engram and never opens the store itself.`
    : `${PREFIX} Engram memory is disabled for this session. ${WITHOUT}`;
}

/**
 * The variables to set for Pi and the ones to remove (an outer Shell's ENGRAM_URL
 * when this launch allows no memory). The user's own ENGRAM_BIN/ENGRAM_URL
 * come back unchanged, under the key they were set with.
 */
export function piEngramVariables(
  decision: EngramDecision,
  env: Env,
  platform: Platform,
  paths: { guard: string; url: string },
): {
  set: Record<string, string>;
  unset: string[];
} {
  const selection = engramSelection(env, platform, paths);
  const set: Record<string, string> = {};
  const unset: string[] = [];
  const put = (name: string, value: string) => {
    const key = envKey(env, name, platform) ?? name;
    for (const k of Object.keys(env)) if (k !== key && platform === "win32" && k.toUpperCase() === name) unset.push(k);
    set[key] = value;
  };
  put("ENGRAM_BIN", decision.ENGRAM_BIN);
  if (decision.ENGRAM_URL !== undefined) put("ENGRAM_URL", decision.ENGRAM_URL);
  else if (selection.url === undefined) {
    const key = envKey(env, "ENGRAM_URL", platform);
    if (key !== undefined) unset.push(key);
  }
  put(POLICY_VARIABLE, decision.policy);
  // What the guard says when a provider runs it: this launch's reason, as data.
  put(NOTICE_VARIABLE, decision.notice ?? guardNotice(decision, paths.url));
  return { set, unset };
}
