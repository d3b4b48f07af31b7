/**
 * How the engine starts Pi once it has decided the launch (issue 29): in its
 * own Node, or in a fresh one. Pure: the decision is made from the
 * environment this Node started with, the environment Pi gets, and the Node
 * options this process runs with.
 *
 * In its own Node: Pi's CLI is loaded into the engine's process, with
 * process.argv and process.env as Pi would have had them. That saves a
 * second Node start and is taken whenever this Node is already the one a
 * fresh `node cli.js` would be:
 *   - Pi's NODE_OPTIONS is unset or empty. A user's NODE_OPTIONS (a preload,
 *     a heap size) only works when Node starts, so it gets a fresh Node, as
 *     before this change.
 *   - Every variable Node reads only when it starts (STARTUP_READ) has the
 *     same value for this Node as for Pi.
 *   - This Node trusts the system's certificate store exactly when Pi is to
 *     (piTrustsSystemStore). The launcher sets NODE_USE_SYSTEM_CA=1 for the
 *     engine when the user did not set it, with its marker, and
 *     privateChildEnv takes that value away from Pi's environment: Pi keeps
 *     the trust in this Node, and its children never see the variable. A
 *     launcher written before issue 28 sets none and gets a fresh Node, which
 *     trusts the store by --use-system-ca (systemStoreOptions).
 *   - This Node runs with no Node option. The launcher starts the engine
 *     with none (the proxy support --use-env-proxy gave is turned on at the
 *     engine's start instead, ../io/env-proxy.ts, and undone at the
 *     hand-over); a launcher of an older version that still passes it gets a
 *     fresh Node.
 * A fresh Node replaces this process with execve where Node has it (POSIX),
 * or runs as a child sharing the terminal (Windows).
 */
import type { Env } from "./environment";
import { envValue, systemStoreOptions } from "./environment";
import type { Platform } from "./layout";

/**
 * Variables Node reads once, when it starts (Node's CLI docs, "Environment
 * variables"), so a value that differs between this Node and Pi's would be
 * lost in-process. The rest (NODE_TLS_REJECT_UNAUTHORIZED, NODE_DEBUG's
 * later modules, NO_COLOR...) are read from process.env when used.
 * NODE_OPTIONS is not compared: the launcher always starts the engine
 * without it, and Pi's own must be empty to stay in this Node. Nor is
 * NODE_USE_SYSTEM_CA, whose meaning is compared instead (piTrustsSystemStore).
 */
export const STARTUP_READ = [
  "NODE_EXTRA_CA_CERTS",
  "NODE_USE_ENV_PROXY",
  "NODE_COMPILE_CACHE",
  "NODE_DISABLE_COMPILE_CACHE",
  "NODE_ICU_DATA",
  "NODE_PRESERVE_SYMLINKS",
  "NODE_PENDING_DEPRECATION",
  "NODE_REDIRECT_WARNINGS",
  "NODE_V8_COVERAGE",
  "NODE_SKIP_PLATFORM_CHECK",
  "OPENSSL_CONF",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "UV_THREADPOOL_SIZE",
] as const;

export type PiStart = { how: "in-process" } | { how: "execve" | "child"; because: string };

export interface PiStartInput {
  platform: Platform;
  /** The environment this Node started with (the engine's, from the launcher). */
  startEnv: Env;
  /** The environment Pi gets (privateChildEnv plus the Engram decision). */
  piEnv: Env;
  /** This Node's own options (process.execArgv). */
  execArgv: readonly string[];
  /** process.execve exists (Node 23.11 and later, not on Windows). */
  canExecve: boolean;
}

/** Node trusts the system's certificate store when it starts with NODE_USE_SYSTEM_CA=1 (that value only) or --use-system-ca. */
function startedTrustingSystemStore(env: Env, platform: Platform): boolean {
  return envValue(env, "NODE_USE_SYSTEM_CA", platform) === "1";
}

/**
 * Whether Pi trusts the system's certificate store: as NODE_USE_SYSTEM_CA in
 * its environment says when the user set it, else yes, given without the
 * variable (the engine's Node, or --use-system-ca on a fresh one).
 */
export function piTrustsSystemStore(piEnv: Env, platform: Platform): boolean {
  return systemStoreOptions(piEnv, platform).length > 0 || startedTrustingSystemStore(piEnv, platform);
}

/** Why this Node is not the one a fresh `node cli.js` would be, or null when it is. */
export function freshNodeNeeded(input: Omit<PiStartInput, "canExecve">): string | null {
  const { platform, startEnv, piEnv } = input;
  if ((envValue(piEnv, "NODE_OPTIONS", platform) ?? "").trim() !== "") return "NODE_OPTIONS takes effect only when Node starts";
  if (startedTrustingSystemStore(startEnv, platform) !== piTrustsSystemStore(piEnv, platform)) {
    return "this Node's trust in the system's certificate store (NODE_USE_SYSTEM_CA) is not Pi's, and Node reads it only when it starts";
  }
  for (const name of STARTUP_READ) {
    if (envValue(startEnv, name, platform) !== envValue(piEnv, name, platform))
      return `${name} differs from this Node's, and Node reads it only when it starts`;
  }
  const [other] = input.execArgv;
  if (other !== undefined) return `this Node runs with ${other}`;
  return null;
}

export function piStartPlan(input: PiStartInput): PiStart {
  const because = freshNodeNeeded(input);
  if (because === null) return { how: "in-process" };
  return { how: input.canExecve && input.platform !== "win32" ? "execve" : "child", because };
}
