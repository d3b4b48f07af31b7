/**
 * Every environment our children run in, and the one environment lookup
 * (spec: "pnpm environment", "Setup environment", "Launcher in a bundled
 * install", "Isolation from the user's Gentle AI", "Engram startup safety").
 * Pure functions of the layout and the inherited environment.
 */
import { dirname, join } from "./native-path";
import type { Layout, Platform } from "./layout";
import { PI_CHECKED_VARIABLE, SYSTEM_CA_MARKER } from "./engine-flags";

export type Env = Record<string, string | undefined>;

/**
 * The one environment lookup. Windows keeps variable names case-insensitively
 * (Path, PATH); POSIX does not. `anyCase` finds a name in any case on every
 * platform (npm reads npm_config_* that way). A key whose value is undefined
 * counts as absent.
 */
export function envKey(env: Readonly<Env>, name: string, platform: Platform | "any-case"): string | undefined {
  if (platform !== "win32" && platform !== "any-case") return env[name] !== undefined ? name : undefined;
  if (env[name] !== undefined) return name;
  const upper = name.toUpperCase();
  return Object.keys(env).find((k) => k.toUpperCase() === upper && env[k] !== undefined);
}

/** A variable's value by envKey; the empty string counts as set unless `emptyIsUnset`. */
export function envValue(env: Readonly<Env>, name: string, platform: Platform | "any-case", options: { emptyIsUnset?: boolean } = {}): string | undefined {
  const key = envKey(env, name, platform);
  const value = key === undefined ? undefined : env[key];
  return options.emptyIsUnset && value === "" ? undefined : value;
}

const DROPPED_PNPM = [/^npm_/i, /^pnpm_/i, /^COREPACK_/i];
const DROPPED_EXACT = new Set(["PNPM_HOME", "NODE_OPTIONS", "NODE_PATH"]);
/**
 * The XDG folder variables (the XDG Base Directory specification's): pnpm
 * 11.1.1 reads the config, cache, state and data homes. An XDG variable that
 * names no folder (XDG_SESSION_TYPE, XDG_CURRENT_DESKTOP...) is kept.
 */
const XDG_FOLDERS = new Set(["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS"]);

function delimiter(platform: Platform): string {
  return platform === "win32" ? ";" : ":";
}

/** The key under which PATH lives (Windows keeps `Path`, case-insensitively). */
export function pathKey(env: Env, platform: Platform): string {
  if (platform !== "win32") return "PATH";
  return envKey(env, "PATH", platform) ?? "Path";
}

function copyDefined(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * pnpm trusts the system's certificate store too (Node 24's
 * NODE_USE_SYSTEM_CA), where a network that inspects TLS has its root: it
 * meets the same proxy our own downloads do. The variable goes to pnpm and
 * the lifecycle scripts it runs while it installs a version, never to a shell
 * of the user's (Pi gets the trust without it: systemStoreOptions). A value
 * the user set, 0 included, is theirs and stays. Only more roots, never fewer
 * checks.
 */
function trustSystemStore(out: Env, env: Env, platform: Platform): void {
  if (envKey(env, "NODE_USE_SYSTEM_CA", platform) === undefined) out.NODE_USE_SYSTEM_CA = "1";
}

/**
 * The Node option that has a Node Gentle Shell starts for Pi (a fresh Node,
 * a subagent) trust the system's certificate store without a variable its
 * children would inherit: --use-system-ca, unless NODE_USE_SYSTEM_CA is set
 * in `env` (the user's value, 0 included, decides then; Node would take the
 * option over a 0).
 */
export function systemStoreOptions(env: Env, platform: Platform): string[] {
  return envKey(env, "NODE_USE_SYSTEM_CA", platform) === undefined ? ["--use-system-ca"] : [];
}

export function nodeBinDir(layout: Layout): string {
  return dirname(layout.node);
}

export interface PnpmEnvironmentOptions {
  env: Env;
  /** Text of the prefix npmrc (pnpm/config/npmrc): `${NAME}` it names stay. */
  npmrc?: string;
  /** Put our Go's bin on PATH after Node's (Windows builds). */
  go?: boolean;
}

/** The environment for our pnpm and the lifecycle scripts it runs. */
export function pnpmEnvironment(layout: Layout, options: PnpmEnvironmentOptions): Env {
  const keep = new Set(npmrcNames(options.npmrc ?? ""));
  const out: Env = {};
  for (const [k, v] of Object.entries(copyDefined(options.env))) {
    if (keep.has(k)) {
      out[k] = v;
      continue;
    }
    if (DROPPED_EXACT.has(k.toUpperCase()) || XDG_FOLDERS.has(k.toUpperCase()) || DROPPED_PNPM.some((re) => re.test(k))) continue;
    out[k] = v;
  }
  const key = pathKey(options.env, layout.platform);
  for (const k of Object.keys(out)) if (k.toUpperCase() === "PATH") delete out[k];
  const inherited = pathValue(options.env, layout.platform);
  const front = [nodeBinDir(layout)];
  if (options.go) front.push(join(layout.goDir, "bin"));
  out[key] = [...front, ...(inherited ? [inherited] : [])].join(delimiter(layout.platform));
  out.PNPM_HOME = layout.pnpm.home;
  out.pnpm_config_store_dir = layout.pnpm.store;
  out.pnpm_config_cache_dir = layout.pnpm.cache;
  out.pnpm_config_state_dir = layout.pnpm.state;
  out.XDG_CONFIG_HOME = layout.pnpm.config;
  out.XDG_CACHE_HOME = layout.pnpm.cache;
  out.XDG_STATE_HOME = layout.pnpm.state;
  out.pnpm_config_npmrc_auth_file = layout.pnpm.npmrc;
  out.pnpm_config_pm_on_fail = "ignore";
  out.pnpm_config_runtime_on_fail = "ignore";
  out.pnpm_config_update_notifier = "false";
  trustSystemStore(out, options.env, layout.platform);
  if (layout.platform === "win32") {
    out.TEMP = layout.tmp;
    out.TMP = layout.tmp;
  }
  return out;
}

/**
 * pnpm for an offline bundle's install: the only registry it knows is the
 * loopback one serving the bundle's tarballs (`registry`, named by the npmrc
 * file `rc` alone), and no proxy: a laptop offline keeps its office's proxy
 * variables, and a loopback request sent there would fail.
 */
export function offlinePnpmEnvironment(env: Env, rc: string, registry: string): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (!/^(https?_proxy|all_proxy|no_proxy|npm_config_.*proxy|pnpm_config_.*proxy)$/i.test(k)) out[k] = v;
  out.pnpm_config_npmrc_auth_file = rc;
  out.pnpm_config_registry = registry;
  return out;
}

function npmrcNames(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

function pathValue(env: Env, platform: Platform): string | undefined {
  return envValue(env, "PATH", platform);
}

const SETUP_DROPPED = [/^npm_/i, /^pnpm_/i, /^GENTLE_BOOTSTRAP_/, /^GENTLE_INSTALL_/];

/**
 * The environment `gentle-shell setup` runs in from the installer (its setup
 * step) and from the launcher's first-use setup. The launcher keeps the
 * user's NODE_OPTIONS as GENTLE_SHELL_USER_NODE_OPTIONS for Pi; that is the
 * inherited NODE_OPTIONS too, so it is dropped with it.
 */
export function setupEnvironment(layout: Layout, options: { env: Env; id: string }): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(copyDefined(options.env))) {
    if (DROPPED_EXACT.has(k.toUpperCase()) && k.toUpperCase() !== "PNPM_HOME") continue;
    if (k === "GENTLE_SHELL_USER_NODE_OPTIONS") continue;
    if (SETUP_DROPPED.some((re) => re.test(k))) continue;
    out[k] = v;
  }
  const key = pathKey(options.env, layout.platform);
  for (const k of Object.keys(out)) if (k.toUpperCase() === "PATH") delete out[k];
  const inherited = pathValue(options.env, layout.platform);
  const parts = [nodeBinDir(layout), join(layout.versions, options.id, "node_modules", ".bin")];
  if (inherited) parts.push(inherited);
  out[key] = parts.join(delimiter(layout.platform));
  out.npm_config_userconfig = layout.pnpm.npmrc;
  out.npm_config_globalconfig = layout.npm.globalconfig;
  out.npm_config_prefix = layout.npm.prefix;
  out.npm_config_cache = layout.npm.cache;
  out.npm_config_update_notifier = "false";
  return out;
}

// ---- Checks: the environments our own programs are checked in.

/** Checking our Go (`go version`): no GO* setting of the user's, no toolchain switch, no telemetry. */
export function goCheckEnvironment(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !/^GO/i.test(k) && k !== "CGO_ENABLED") out[k] = v;
  out.GOTOOLCHAIN = "local";
  out.GOENV = "off";
  out.GOTELEMETRY = "off";
  return out;
}

/** Checking our Engram (`engram version`): no ENGRAM_* setting and no GitHub token of the user's, no update check. */
export function engramCheckEnvironment(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || /^ENGRAM_/i.test(k) || /^(GH_TOKEN|GITHUB_TOKEN)$/i.test(k)) continue;
    out[k] = v;
  }
  out.ENGRAM_NO_UPDATE_CHECK = "1";
  return out;
}

/** Asking our npm for the registry: no inherited npm_* setting and no NODE_OPTIONS. */
export function npmQueryEnvironment(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !/^npm_/i.test(k) && k !== "NODE_OPTIONS") out[k] = v;
  return out;
}

/**
 * Launcher verification (checkLauncher, and upgrade step 5): the environment
 * our pnpm ran in, with no GENTLE_* or PI_* variable, so no host NODE_OPTIONS,
 * npm or pnpm setting and no Pi override reaches the check.
 */
export function launcherCheckEnvironment(layout: Layout, options: PnpmEnvironmentOptions): Env {
  const out = pnpmEnvironment(layout, options);
  for (const k of Object.keys(out)) if (/^(GENTLE_|PI_)/.test(k)) delete out[k];
  return out;
}

// ---- Launcher in a bundled install: Pi's children, and setup.

/**
 * The user's environment plus Gentle Shell's own variables, for Pi and its
 * subagents. The NODE_USE_SYSTEM_CA the launcher set for the engine (its
 * marker says so) is taken away: Pi trusts the system's store without it, in
 * the engine's process or by --use-system-ca (systemStoreOptions), so the
 * agent's shell and every node the user runs there see their own setting.
 */
export function privateChildEnv(install: { layout: Layout; piCli: string }, env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  const { layout } = install;
  if (out[SYSTEM_CA_MARKER] !== undefined) {
    const key = envKey(out, "NODE_USE_SYSTEM_CA", layout.platform);
    if (key !== undefined) delete out[key];
  }
  delete out[SYSTEM_CA_MARKER];
  delete out.GENTLE_SHELL_PI;
  delete out.GENTLE_SHELL_VERIFY_VERSION;
  delete out[PI_CHECKED_VARIABLE];
  delete out.GENTLE_SHELL_STARTUP_HANDOFF;
  if ("GENTLE_SHELL_USER_NODE_OPTIONS" in out) {
    out.NODE_OPTIONS = out.GENTLE_SHELL_USER_NODE_OPTIONS;
    delete out.GENTLE_SHELL_USER_NODE_OPTIONS;
  }
  // Our node and the bundled cli.js; a subagent trusts the system's store as Pi does, by the option.
  const command = [layout.node, ...systemStoreOptions(out, layout.platform), install.piCli].join(" ");
  if (/\s/.test(layout.node) || /\s/.test(install.piCli)) delete out.GENTLE_PI_AGENTS_PI;
  else out.GENTLE_PI_AGENTS_PI = command;
  out.PI_SKIP_VERSION_CHECK = "1";
  out.GENTLE_SHELL_PREFIX = layout.prefix;
  out.PI_CODING_AGENT_DIR = layout.agent;
  out.GENTLE_PI_AGENT_HOME = layout.agent;
  return out;
}

/** The variables every Gentle AI process Gentle Shell starts gets (gentleAiIsolationEnv). */
export function gentleAiIsolationEnv(layout: Layout, engramPublished: boolean): Env {
  const env: Env = {
    GENTLE_AI_HOME: layout.gentleAi,
    GENTLE_AI_PI_CONFIG_DIR: layout.gentleAiConfig,
    GENTLE_AI_NO_SELF_UPDATE: "1",
    GENTLE_PI_CONFIG_HOME: layout.config,
  };
  if (engramPublished) env.GENTLE_AI_ENGRAM_BIN = layout.engram;
  return env;
}

/**
 * privateSetupEnv: Pi's environment, with our node and the version's .bin
 * ahead of the user's PATH, plus isolation. A PATH that already starts with
 * them (setupEnvironment's) gets them once.
 */
export function privateSetupEnv(install: { layout: Layout; piCli: string; versionDir: string }, env: Env, engramPublished: boolean): Env {
  const out = privateChildEnv(install, env);
  const { layout } = install;
  const key = pathKey(out, layout.platform);
  const sep = layout.platform === "win32" ? ";" : ":";
  const front = [nodeBinDir(layout), join(install.versionDir, "node_modules", ".bin")];
  const rest = out[key] ? out[key]!.split(sep) : [];
  if (rest[0] === front[0] && rest[1] === front[1]) rest.splice(0, 2);
  out[key] = [...front, ...rest].join(sep);
  return { ...out, ...gentleAiIsolationEnv(layout, engramPublished) };
}

// ---- Engram startup safety: the environment of the `engram serve` Shell starts
// (the user's environment minus ENGRAM_* and the GitHub tokens, and the session
// scratch rules for TMPDIR/TMP/TEMP on POSIX and Windows).

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
