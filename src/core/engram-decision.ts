/**
 * Engram startup safety, the decisions (spec: "Engram startup safety",
 * "Isolation from the user's Gentle AI"). Pure: the evidence goes in, the
 * memory decision and the environment Pi gets come out. The I/O that gathers
 * the evidence (the database header, the two loopback probes, the bundled
 * core on disk, starting `engram serve`) is in src/engine/engram.ts.
 *
 * Why the rules are what they are, in short:
 *
 *  - A bundled Shell shares the global Engram server with other agents. It
 *    only talks to a server that proves itself through GET /compatibility
 *    (the exact ready contract below); a version number never proves it.
 *  - When nothing listens it may start its own verified core, unless the
 *    store's header says a newer Engram migrated it (the tripwire).
 *  - Whenever memory may not be used, Pi still starts, with ENGRAM_BIN on
 *    Shell's guard, so no provider can open, create or migrate a store.
 *  - What the user selected explicitly (ENGRAM_BIN, ENGRAM_URL, ...) is never
 *    replaced, never probed and never started: memory is marked disabled
 *    through the startup policy and the rest is the user's business.
 */
import type { Env } from "./environment";
import type { Platform } from "./layout";

/** The default endpoint of the shared server (Engram's own default port). */
export const ENGRAM_HOST = "127.0.0.1";
export const ENGRAM_PORT = 7437;
export const ENGRAM_DEFAULT_URL = `http://${ENGRAM_HOST}:${ENGRAM_PORT}`;

/** The variable gentle-engram 0.4.2+ reads; Shell sets it for Pi on every launch. */
export const POLICY_VARIABLE = "ENGRAM_STARTUP_POLICY";
export type StartupPolicy = "allowed" | "disabled";
const VALID_POLICIES: readonly string[] = ["allowed", "disabled"];

/** Settings that select an Engram on their own (the table's "Explicit ..." row). */
export const EXPLICIT_VARIABLES = [
  "ENGRAM_BIN",
  "ENGRAM_URL",
  "ENGRAM_PORT",
  "ENGRAM_SOCKET",
  "ENGRAM_DATA_DIR",
  "ENGRAM_DATABASE_URL",
  "ENGRAM_SERVER_MODE",
] as const;

/** The first version whose server publishes GET /compatibility (Engram PR #1792). */
export const COMPATIBILITY_SINCE: readonly [number, number, number] = [3, 4, 0];

// --- reading the environment --------------------------------------------------

/** A variable's key in `env`: exact on POSIX, case-insensitive on Windows. */
export function envKey(env: Env, name: string, platform: Platform): string | undefined {
  if (platform !== "win32") return env[name] !== undefined ? name : undefined;
  const upper = name.toUpperCase();
  return Object.keys(env).find((k) => k.toUpperCase() === upper && env[k] !== undefined);
}

/** A variable's value; the empty string counts as not set. */
export function envValue(env: Env, name: string, platform: Platform): string | undefined {
  const key = envKey(env, name, platform);
  const value = key === undefined ? undefined : env[key];
  return value === undefined || value === "" ? undefined : value;
}

export interface EngramSelection {
  /** The explicit variables the user set (names only: values may hold secrets). */
  explicit: string[];
  /** The user's ENGRAM_BIN and ENGRAM_URL, kept as they are. */
  bin?: string;
  url?: string;
  /** The user's ENGRAM_STARTUP_POLICY: unset, a valid value, or invalid. */
  policy: StartupPolicy | "unset" | "invalid";
  /** ENGRAM_* values that an outer Shell set for its Pi (its guard, its URL), to be decided again. */
  inherited: string[];
}

/**
 * What the user selected. An ENGRAM_BIN that is exactly this Shell's guard (and
 * then an ENGRAM_URL that is exactly the default URL) was set by an outer
 * gentle-shell, for example when the agent's shell runs gentle-shell again: it
 * is not a selection, and this launch decides afresh.
 */
export function engramSelection(env: Env, platform: Platform, paths: { guard: string; url: string }): EngramSelection {
  const explicit: string[] = [];
  const inherited: string[] = [];
  const bin = envValue(env, "ENGRAM_BIN", platform);
  const url = envValue(env, "ENGRAM_URL", platform);
  const binIsOurs = bin !== undefined && bin === paths.guard;
  const urlIsOurs = binIsOurs && url !== undefined && url === paths.url;
  for (const name of EXPLICIT_VARIABLES) {
    if (envValue(env, name, platform) === undefined) continue;
    if ((name === "ENGRAM_BIN" && binIsOurs) || (name === "ENGRAM_URL" && urlIsOurs)) inherited.push(name);
    else explicit.push(name);
  }
  const raw = envValue(env, POLICY_VARIABLE, platform);
  const policy = raw === undefined ? "unset" : VALID_POLICIES.includes(raw) ? (raw as StartupPolicy) : "invalid";
  return {
    explicit,
    ...(bin !== undefined && !binIsOurs ? { bin } : {}),
    ...(url !== undefined && !urlIsOurs ? { url } : {}),
    policy,
    inherited,
  };
}

// --- the ready contract and /health ---------------------------------------------

const HEX32 = /^[0-9a-f]{32}$/;

/**
 * The exact ready answer of GET /compatibility: status "ready",
 * active_reuse_authorized true, capability "startup-verified-store-v1",
 * revision 1, source "active", 32-hex instance_id and runtime_id, and no
 * offline_automatic_opening_authorized: true. Other fields are ignored.
 */
export function isReadyCompatibility(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.status === "ready" &&
    v.active_reuse_authorized === true &&
    v.capability === "startup-verified-store-v1" &&
    v.revision === 1 &&
    v.source === "active" &&
    typeof v.instance_id === "string" &&
    HEX32.test(v.instance_id) &&
    typeof v.runtime_id === "string" &&
    HEX32.test(v.runtime_id) &&
    v.offline_automatic_opening_authorized !== true
  );
}

/** A canonical numeric x.y.z (optional v, no leading zeros, at most four digits per part), else null. */
export function parseEngramVersion(text: unknown): [number, number, number] | null {
  if (typeof text !== "string") return null;
  const m = /^v?(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function older(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  return false;
}

/**
 * The version a /health answer may name in the notice: only from a JSON object
 * with a 32-hex instance_id and a canonical version older than 3.4.0. Any other
 * answer gives null, and its version string is never shown.
 */
export function olderServerVersion(health: unknown): string | null {
  if (typeof health !== "object" || health === null || Array.isArray(health)) return null;
  const h = health as Record<string, unknown>;
  if (typeof h.instance_id !== "string" || !HEX32.test(h.instance_id)) return null;
  const parsed = parseEngramVersion(h.version);
  if (!parsed || !older(parsed, COMPATIBILITY_SINCE)) return null;
  return parsed.join(".");
}

// --- the header tripwire --------------------------------------------------------

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

export type HeaderSignal =
  /** A valid header whose user_version is greater than the pinned schema (or any valid header when the schema is unknown). */
  | { kind: "newer"; userVersion: number }
  /** A valid header, equal or lower: no signal either way. */
  | { kind: "not-newer"; userVersion: number }
  /** Absent, short, linked, not a regular file or not an SQLite header: no signal. */
  | { kind: "none" };

/**
 * The first 100 bytes of engram.db against the bundled core's schema: the
 * SQLite magic, a page size (a power of two from 512 to 32768, or 1 for
 * 65536), the file format bytes 18 and 19 each 1 or 2, and user_version at
 * bytes 60-63 (big-endian). A pin without a verified schema (null) counts any
 * readable header as newer.
 */
export function headerSignal(header: Buffer | null, schema: number | null): HeaderSignal {
  if (!header || header.length < 100) return { kind: "none" };
  if (!header.subarray(0, 16).equals(SQLITE_MAGIC)) return { kind: "none" };
  const pageSize = header.readUInt16BE(16);
  const validPage = pageSize === 1 || (pageSize >= 512 && pageSize <= 32768 && (pageSize & (pageSize - 1)) === 0);
  if (!validPage) return { kind: "none" };
  if (![1, 2].includes(header[18]!) || ![1, 2].includes(header[19]!)) return { kind: "none" };
  const userVersion = header.readInt32BE(60);
  if (schema === null || userVersion > schema) return { kind: "newer", userVersion };
  return { kind: "not-newer", userVersion };
}

// --- the decision table ---------------------------------------------------------

/** GET /compatibility, classified. */
export type CompatibilityProbe =
  | { kind: "ready" }
  /** Connection refused: nothing listens on the endpoint. */
  | { kind: "refused" }
  /** Anything else: a different service, a timeout, 401/404, an older server, malformed answers, not ready. */
  | { kind: "other"; reason: string };

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
  /** See launchKind; "classify" is also setup's. */
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
    `${PREFIX} Engram memory is disabled: an interrupted memory migration is recorded in ${marker}. Keep Engram clients stopped and follow "Recovering an interrupted migration" in the Gentle Shell documentation; do not just remove the marker.`,
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
  return { set, unset };
}

// --- the environment of `engram serve` ------------------------------------------

const TEMP_NAMES = ["TMPDIR", "TMP", "TEMP"] as const;

/** A session scratch folder's name: gp or ga followed by exactly six alphanumerics. */
export function isScratchName(name: string, platform: Platform): boolean {
  return (platform === "win32" ? /^g[pa][A-Za-z0-9]{6}$/i : /^g[pa][A-Za-z0-9]{6}$/).test(name);
}

/** Windows: the root of an absolute path (C:\ or \\server\share), else null. */
function windowsRoot(path: string): string | null {
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return drive[0];
  const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.exec(path);
  return unc ? unc[0] : null;
}

/**
 * Windows: the original absolute ancestor outside the trailing run of scratch
 * components, as written (its own separators), or null for a path that is not
 * absolute.
 */
export function windowsStableAncestor(path: string): string | null {
  const root = windowsRoot(path);
  if (root === null) return null;
  let rest = path.slice(root.length);
  for (;;) {
    const trimmed = rest.replace(/[\\/]+$/, "");
    const cut = Math.max(trimmed.lastIndexOf("\\"), trimmed.lastIndexOf("/"));
    const last = trimmed.slice(cut + 1);
    if (trimmed === "" || !isScratchName(last, "win32")) {
      rest = trimmed;
      break;
    }
    rest = cut < 0 ? "" : trimmed.slice(0, cut);
  }
  return rest === "" ? root : root + rest;
}

/** The last path component; on Windows after \\, / or a drive's colon (C:gp123456). */
function finalComponent(path: string, platform: Platform): string {
  if (platform !== "win32") return path.slice(path.lastIndexOf("/") + 1);
  const drive = /^[A-Za-z]:/.test(path) ? 1 : -1;
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"), drive) + 1);
}

export type ServeEnvironment = { ok: true; env: Env } | { ok: false; reason: string };

/**
 * The environment of the `engram serve` Shell starts: the user's, minus every
 * ENGRAM_* setting and GH_TOKEN/GITHUB_TOKEN, plus ENGRAM_NO_UPDATE_CHECK=1.
 * TMPDIR/TMP/TEMP naming a session scratch folder are dropped on POSIX; on
 * Windows they are replaced by their stable absolute ancestor (and TEMP is
 * added when absent), and a relative scratch path refuses the start.
 */
export function engramServeEnvironment(env: Env, platform: Platform): ServeEnvironment {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (/^ENGRAM_/i.test(k) || /^(GH_TOKEN|GITHUB_TOKEN)$/i.test(k)) continue;
    out[k] = v;
  }
  let stable: string | null = null;
  let replaced = false;
  for (const name of platform === "win32" ? (["TMP", "TMPDIR", "TEMP"] as const) : TEMP_NAMES) {
    const keys = Object.keys(out).filter((k) => (platform === "win32" ? k.toUpperCase() === name : k === name));
    for (const key of keys) {
      const value = out[key]!;
      const trimmed = value.replace(platform === "win32" ? /[\\/]+$/ : /\/+$/, "");
      const last = finalComponent(trimmed, platform);
      if (!isScratchName(last, platform)) continue;
      if (platform !== "win32") {
        delete out[key];
        continue;
      }
      const ancestor = windowsStableAncestor(value);
      if (ancestor === null) {
        return { ok: false, reason: `${name} names a relative session scratch folder, so no stable temporary folder could be chosen` };
      }
      out[key] = ancestor;
      replaced = true;
      stable ??= ancestor;
    }
  }
  if (platform === "win32" && replaced && !Object.keys(out).some((k) => k.toUpperCase() === "TEMP")) out.TEMP = stable!;
  out.ENGRAM_NO_UPDATE_CHECK = "1";
  return { ok: true, env: out };
}
