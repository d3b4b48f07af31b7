/**
 * Engram startup safety, what the user selected (spec: "Engram startup
 * safety", Decision: the "Explicit ..." row; "The guard": explicit selections
 * bypass the guard). Pure: reads ENGRAM_* from the environment, exactly on
 * POSIX and case-insensitively on Windows. What the user selected explicitly
 * (ENGRAM_BIN, ENGRAM_URL, ...) is never replaced, never probed and never
 * started: memory is marked disabled through the startup policy and the rest
 * is the user's business.
 */
import { envValue, type Env } from "../../core/environment";
import type { Platform } from "../../core/layout";

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

/** A variable's value for Engram's rules: the empty string counts as not set. */
function setValue(env: Env, name: string, platform: Platform): string | undefined {
  return envValue(env, name, platform, { emptyIsUnset: true });
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
  const bin = setValue(env, "ENGRAM_BIN", platform);
  const url = setValue(env, "ENGRAM_URL", platform);
  const binIsOurs = bin !== undefined && bin === paths.guard;
  const urlIsOurs = binIsOurs && url !== undefined && url === paths.url;
  for (const name of EXPLICIT_VARIABLES) {
    if (setValue(env, name, platform) === undefined) continue;
    if ((name === "ENGRAM_BIN" && binIsOurs) || (name === "ENGRAM_URL" && urlIsOurs)) inherited.push(name);
    else explicit.push(name);
  }
  const raw = setValue(env, POLICY_VARIABLE, platform);
  const policy = raw === undefined ? "unset" : VALID_POLICIES.includes(raw) ? (raw as StartupPolicy) : "invalid";
  return {
    explicit,
    ...(bin !== undefined && !binIsOurs ? { bin } : {}),
    ...(url !== undefined && !urlIsOurs ? { url } : {}),
    policy,
    inherited,
  };
}
