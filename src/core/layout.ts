/**
 * Where everything lives (spec: "Layout"). Pure: the same inputs always give
 * the same paths. POSIX puts the prefix at ~/.gentle-shell; Windows uses the
 * private folder chosen by the private-folder adapter and passes it in.
 */
import { isAbsolute, join, relative } from "./native-path";
import type { Pins } from "../pins/types";

export type Platform = "linux" | "darwin" | "win32";

export interface Layout {
  platform: Platform;
  /** The pins the layout was made from (the Host's): the one route to them below the Host. */
  pins: Pins;
  home: string;
  prefix: string;
  /** The isolated agent home (PI_CODING_AGENT_DIR). Never written by the installer beyond creating it. */
  agent: string;
  bin: string;
  launcher: string;
  guard: string;
  current: string;
  versions: string;
  history: string;
  runtime: string;
  nodeDir: string;
  /** Our node executable. */
  node: string;
  npmEntry: string;
  pnpmDir: string;
  /** pnpm's entry, run as `node <pnpmEntry>`. */
  pnpmEntry: string;
  goDir: string;
  engramDir: string;
  engram: string;
  /** Pi's own tools, verified (runtime/fd-<v>, runtime/ripgrep-<v>), copied into agentBin when absent. */
  fdDir: string;
  ripgrepDir: string;
  /** <agent home>/bin: where Pi looks for fd and rg before PATH (getBinDir in Pi's config.js). */
  agentBin: string;
  /** registryRecord: the registry our npm reported by default, with what it was read from (install/npm-registry.ts). */
  npm: { prefix: string; cache: string; globalconfig: string; registryRecord: string };
  pnpm: { home: string; store: string; cache: string; state: string; config: string; npmrc: string };
  gentleAi: string;
  config: string;
  gentleAiConfig: string;
  tmp: string;
  pathReceipt: string;
  lock: string;
}

export interface LayoutOptions {
  home: string;
  platform: Platform;
  pins: Pins;
  /** Windows: the private folder already claimed (LOCALAPPDATA\gentle-shell or the fallback). */
  windowsPrefix?: string;
  /** POSIX: the prefix an engine found itself in (normally ~/.gentle-shell). */
  prefix?: string;
}

export function prefixLayout(options: LayoutOptions): Layout {
  const { home, platform, pins } = options;
  const win = platform === "win32";
  const prefix = win ? (options.windowsPrefix ?? join(home, ".gentle-shell")) : (options.prefix ?? join(home, ".gentle-shell"));
  // On Windows the agent home stays at %USERPROFILE%\.gentle-shell\agent; on POSIX it is inside the prefix.
  const agent = win ? join(home, ".gentle-shell", "agent") : join(prefix, "agent");
  const runtime = join(prefix, "runtime");
  const nodeDir = join(runtime, `node-${pins.node.version}`);
  const pnpmDir = join(runtime, `pnpm-${pins.pnpm.version}`);
  const engramDir = join(runtime, `engram-${pins.engram.version}`);
  const pnpmRoot = join(prefix, "pnpm");
  const bin = join(prefix, "bin");
  return {
    platform,
    pins,
    home,
    prefix,
    agent,
    bin,
    launcher: join(bin, win ? "gentle-shell.cmd" : "gentle-shell"),
    guard: join(bin, "engram-guard"),
    current: join(prefix, "current"),
    versions: join(prefix, "versions"),
    history: join(prefix, "versions.history"),
    runtime,
    nodeDir,
    node: win ? join(nodeDir, "node.exe") : join(nodeDir, "bin", "node"),
    npmEntry: join(nodeDir, "gentle-shell", "npm"),
    pnpmDir,
    pnpmEntry: join(pnpmDir, "package", "bin", "pnpm.mjs"),
    goDir: join(runtime, "go", pins.go.version, "go"),
    engramDir,
    engram: join(engramDir, win ? "engram.exe" : "engram"),
    fdDir: join(runtime, `fd-${pins.tools.fd.version}`),
    ripgrepDir: join(runtime, `ripgrep-${pins.tools.ripgrep.version}`),
    agentBin: join(agent, "bin"),
    npm: {
      prefix: join(prefix, "npm", "prefix"),
      cache: join(prefix, "npm", "cache"),
      globalconfig: join(prefix, "npm", "npmrc"),
      registryRecord: join(prefix, "npm", "registry.json"),
    },
    pnpm: {
      home: pnpmRoot,
      store: join(pnpmRoot, "store"),
      cache: join(pnpmRoot, "cache"),
      state: join(pnpmRoot, "state"),
      config: join(pnpmRoot, "config"),
      npmrc: join(pnpmRoot, "config", "npmrc"),
    },
    gentleAi: join(prefix, "gentle-ai"),
    config: join(prefix, "config"),
    gentleAiConfig: join(prefix, "config", "gentle-ai"),
    tmp: join(prefix, "tmp"),
    pathReceipt: join(prefix, "path-entry.json"),
    lock: join(prefix, ".gentle-shell-setup.lock"),
  };
}

/**
 * Why no install can live in the layout's prefix, or null (issue 39, defect 4).
 * On POSIX a backslash is an ordinary filename character, so the prefix of a
 * HOME like /home/DOMAIN\user is inside it (core/native-path.ts); but Node
 * refuses to load a package that has "exports" (npm, pnpm, Pi and their
 * dependencies) from a folder whose path holds one: its file URL would hold
 * an encoded "\" (ERR_INVALID_MODULE_SPECIFIER). The install is refused
 * before anything is written, rather than failing inside npm.
 */
export function unusablePrefix(layout: Layout): string | null {
  if (layout.platform === "win32" || !layout.prefix.includes("\\")) return null;
  return `the Gentle Shell folder ${layout.prefix} holds a backslash (\\) in its path, and Node cannot load packages from such a folder; run the installer with HOME set to a folder whose path has none`;
}

/** versions/<shell>-<pi> */
export function versionId(shell: string, pi: string): string {
  return `${shell}-${pi}`;
}

/** A Windows path (a drive or a UNC share): its two separators name the same folder. */
function windowsStyle(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}[^\\/]/.test(path);
}

/** Show a path with the home folder as `~` (error details, plans); on Windows either separator matches. */
export function tildify(path: string, home: string): string {
  if (!home) return path;
  const win = windowsStyle(home);
  const slash = (p: string) => (win ? p.replace(/\\/g, "/") : p);
  const h = slash(home).replace(/(.)\/+$/, "$1");
  const p = slash(path);
  if (p === h) return "~";
  return p.startsWith(h + "/") ? "~" + p.slice(h.length) : path;
}

/** Text (an error message, a plan) with every mention of the home folder shown as `~` (on Windows in either separator's spelling). */
export function tildifyText(text: string, home: string): string {
  if (!home || home === "/") return text;
  const spellings = windowsStyle(home) ? [...new Set([home, home.replace(/\\/g, "/"), home.replace(/\//g, "\\")])] : [home];
  let out = text;
  for (const h of spellings) {
    const sep = h.includes("\\") ? "\\" : "/";
    out = out
      .split(h + sep)
      .join("~" + sep)
      .split(h)
      .join("~");
  }
  return out;
}

/** Is `inner` the same folder as `outer` or inside it (either separator; another drive never is)? */
export function isWithin(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** npm's own entry inside our Node. */
export function npmCliOf(layout: Layout): string {
  return layout.platform === "win32"
    ? join(layout.nodeDir, "node_modules", "npm", "bin", "npm-cli.js")
    : join(layout.nodeDir, "lib", "node_modules", "npm", "bin", "npm-cli.js");
}
