/**
 * The environments our children run in (spec: "pnpm environment", "Setup
 * environment", "Launcher in a bundled install"). Pure functions of the
 * layout and the inherited environment.
 */
import { dirname, join } from "pathe";
import type { Layout, Platform } from "./layout";

export type Env = Record<string, string | undefined>;

const DROPPED_PNPM = [/^npm_/i, /^pnpm_/i, /^COREPACK_/i, /^XDG_/i];
const DROPPED_EXACT = new Set(["PNPM_HOME", "NODE_OPTIONS", "NODE_PATH"]);

function delimiter(platform: Platform): string {
  return platform === "win32" ? ";" : ":";
}

/** The key under which PATH lives (Windows keeps `Path`, case-insensitively). */
export function pathKey(env: Env, platform: Platform): string {
  if (platform !== "win32") return "PATH";
  return Object.keys(env).find((k) => k.toUpperCase() === "PATH") ?? "Path";
}

function copyDefined(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
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
    if (DROPPED_EXACT.has(k.toUpperCase()) || DROPPED_PNPM.some((re) => re.test(k))) continue;
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
  if (layout.platform === "win32") {
    out.TEMP = layout.tmp;
    out.TMP = layout.tmp;
  }
  return out;
}

function npmrcNames(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

function pathValue(env: Env, platform: Platform): string | undefined {
  if (platform !== "win32") return env.PATH;
  const key = Object.keys(env).find((k) => k.toUpperCase() === "PATH");
  return key ? env[key] : undefined;
}

const SETUP_DROPPED = [/^npm_/i, /^pnpm_/i, /^GENTLE_BOOTSTRAP_/, /^GENTLE_INSTALL_/];

/** The environment `gentle-shell setup` runs in from the web installer. */
export function setupEnvironment(layout: Layout, options: { env: Env; id: string }): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(copyDefined(options.env))) {
    if (DROPPED_EXACT.has(k.toUpperCase()) && k.toUpperCase() !== "PNPM_HOME") continue;
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
