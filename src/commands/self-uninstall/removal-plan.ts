/**
 * The self-uninstall plan (spec: "Self-uninstall"): the PATH entry the
 * receipt records, then each entry the install wrote, each checked with
 * lstat, in the order they go; what the launcher needs to run goes last. The
 * agent home and the launcher's config.json are shared, kept unless asked;
 * only the fd and rg the launcher placed in its bin/ (still with the bytes
 * their markers record) go with the install.
 * Anything that is not ours, or a link where ours would be, is kept and
 * named, and no protected folder (home, ~/.pi, the user's Pi home,
 * ~/.gentle-ai, ~/.engram) is touched, by name or by real path.
 * On Windows the running node.exe, the .cmd launcher and the marker are left
 * to the delayed removal (./windows-removal.ts): runtime/ goes entry by entry
 * around node.exe, and the plan's `windows` names what that removal gets.
 */
import { promises as fs, realpathSync, type Stats } from "node:fs";
import { basename, dirname, join } from "../../core/native-path";
import { isWithin, tildify, type Layout } from "../../core/layout";
import type { Env } from "../../core/environment";
import type { PathReceipt } from "../../path/receipt";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { readPathReceipt } from "../../path/receipt-file";
import { CMD_MARKER, GUARD_MARKER, LAUNCHER_MARKER } from "../../install/launcher";
import { PI_TOOLS, toolFileName, toolMarkerName } from "../../core/pi-tool-rules";
import { toolPresence } from "../../install/runtime/pi-tool-runtime";
import { parseShellCommand, SELF_UNINSTALL, usageLine } from "../specs";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT } from "../../install/windows-private/rule";
import type { WindowsRemovalFacts } from "./windows-removal";
import { migrationMarkerPath } from "../../installed/engram/launch";
import { provenancePath } from "../memory/migrate";

export interface UninstallOptions {
  dryRun: boolean;
  yes: boolean;
  includeShared: boolean;
  /** How long to wait for another installer holding the lock (default five minutes). */
  lockWaitMs?: number;
}

export function parseUninstallArgs(args: string[]): UninstallOptions | string {
  const parsed = parseShellCommand(SELF_UNINSTALL, args);
  // --help is answered by the engine before this (./index.ts).
  if (parsed.kind !== "ok") return parsed.kind === "refuse" ? parsed.message : usageLine(SELF_UNINSTALL);
  return uninstallOptions(parsed.given);
}

/** What the spec read, as self-uninstall's options. */
export function uninstallOptions(given: ReadonlyMap<string, string | true>): UninstallOptions {
  return { dryRun: given.has("--dry-run"), yes: given.has("--yes"), includeShared: given.has("--include-shared") };
}

/**
 * What the install writes in the prefix, in the order they are removed. The
 * last group is what the launcher needs to run (its engine, its Node and
 * itself), so a removal that fails earlier stops before it and
 * `gentle-shell self-uninstall` can always be run again.
 */
export const OWNED_ENTRIES = [
  "tmp",
  "pnpm",
  "npm",
  "gentle-ai",
  "config",
  "versions.history",
  "path-entry.json",
  "completions",
  "completions.json",
  "versions",
  "current",
  "runtime",
  "bin",
] as const;
const LAUNCH_GROUP = new Set<string>(["versions", "current", "runtime", "bin"]);
const FILES = new Set<string>(["versions.history", "path-entry.json", "completions.json"]);

/** Why an interrupted memory migration's records stay (spec: "Recovering an interrupted migration"). */
export const MIGRATION_KEPT =
  "it records an interrupted Engram memory migration and the provenance to restore: roll that migration back first, as gentle-shell memory migrate explains, and remove it only after";

/** The launcher's own settings, shared like the agent home. */
export const LAUNCHER_CONFIG = join("config", "config.json");

/** One thing to remove, as lstat saw it when the plan was made. */
export interface Removal {
  path: string;
  kind: "folder" | "file" | "link";
  dev: number;
  ino: number;
  /** Part of what the launcher needs to run; removed last. */
  last: boolean;
  /** A folder removed only when nothing is left in it (bin/, which may hold the user's own tools). */
  emptyOnly?: boolean;
}

export interface UninstallPlan {
  /** Where the PATH entry is, from a valid receipt. */
  path: { receipt: PathReceipt; description: string } | null;
  /** What to remove by hand (no valid receipt), said once. */
  pathManual: string | null;
  remove: Removal[];
  shared: Removal[];
  /** Not ours, or a link where ours would be: kept and named. */
  keep: Array<{ path: string; why: string }>;
  /** Windows: what the delayed removal gets once this process has exited (the prefix is decided after the removal). */
  windows: Omit<WindowsRemovalFacts, "prefixMayGo"> | null;
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Folders no removal may be, contain or lie inside, each by its name and by
 * its real path: ~/.engram linked into the prefix is still ~/.engram.
 */
export function protectedFolders(layout: Layout, env: Env): { home: string[]; others: string[] } {
  const home = layout.home;
  const named = [join(home, ".pi"), join(home, ".gentle-ai"), join(home, ".engram")];
  const agentDir = env.PI_CODING_AGENT_DIR;
  if (agentDir && agentDir !== layout.agent && realOrNull(agentDir) !== realOrNull(layout.agent)) named.push(agentDir);
  const both = (paths: string[]) => [...new Set(paths.flatMap((p) => [p, realOrNull(p)]).filter((p): p is string => Boolean(p)))];
  return { home: both([home]), others: both(named) };
}

/**
 * A removal may not be or contain any protected folder, nor lie inside one
 * other than the home folder itself (the prefix is in the home folder). Both
 * the path and its real path are held against both forms of each folder.
 */
export function forbiddenRemoval(path: string, guarded: { home: string[]; others: string[] }): boolean {
  const forms = [...new Set([path, realOrNull(path) ?? path])];
  return forms.some((p) => guarded.home.some((g) => isWithin(p, g)) || guarded.others.some((g) => isWithin(p, g) || isWithin(g, p)));
}

/** The bundle marker's path in the prefix. */
export const markerPath = (layout: Layout) => join(layout.prefix, WINDOWS_PREFIX_MARKER);

/**
 * Is the marker a plain file (lstat: never a link) holding exactly our text? The file is opened only
 * after lstat, and read only when the opened file is the one lstat saw.
 */
export async function ourMarker(layout: Layout): Promise<Stats | null> {
  const path = markerPath(layout);
  const stat = await lstatOrNull(path).catch(() => null);
  if (!stat?.isFile() || stat.size > 4096) return null;
  const handle = await fs.open(path, "r").catch(() => null);
  if (!handle) return null;
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.dev !== stat.dev || opened.ino !== stat.ino) return null;
    return (await handle.readFile("utf8")) === WINDOWS_PREFIX_MARKER_TEXT ? stat : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** The prefix must be the real ~/.gentle-shell the engine runs from. */
export async function checkOwnership(layout: Layout): Promise<string | null> {
  if (layout.platform === "win32") {
    // Windows: the private folder must carry the .gentle-shell-bundle marker with its exact text, itself no link.
    return (await ourMarker(layout)) ? null : `${layout.prefix} does not carry the ${WINDOWS_PREFIX_MARKER} marker`;
  }
  const expected = join(layout.home, ".gentle-shell");
  const stat = await lstatOrNull(expected);
  if (!stat?.isDirectory()) return `${tildify(expected, layout.home)} is not a real folder (a link or missing)`;
  const real = realOrNull(expected);
  if (!real) return `${expected} cannot be resolved`;
  if (real !== realOrNull(layout.prefix)) return `this gentle-shell runs from ${layout.prefix}, not from ${expected}`;
  return null;
}

function removal(path: string, stat: Stats, last: boolean): Removal {
  const kind = stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "folder" : "file";
  return { path, kind, dev: stat.dev, ino: stat.ino, last };
}

/** Files in bin/ that carry our generated marker; anything else there is kept. */
async function ourBinFile(path: string): Promise<boolean> {
  const text = await readTextOrNull(path).catch(() => null);
  if (text === null) return false;
  const lines = text.split(/\r?\n/);
  return [LAUNCHER_MARKER, GUARD_MARKER, CMD_MARKER].some((m) => lines.includes(m));
}

export async function uninstallPlan(layout: Layout, env: Env, includeShared: boolean): Promise<UninstallPlan> {
  const win = layout.platform === "win32";
  const plan: UninstallPlan = { path: null, pathManual: null, remove: [], shared: [], keep: [], windows: null };
  const receipt = readPathReceipt(layout, env);
  if (receipt.status === "valid") {
    const r = receipt.receipt;
    plan.path = {
      receipt: r,
      description:
        r.kind === "link"
          ? `the link ${tildify(r.path, layout.home)}`
          : r.kind === "profile"
            ? `the marked line in ${tildify(r.path, layout.home)}`
            : `${r.entry} in the user Path`,
    };
  } else if (receipt.status === "invalid") {
    plan.pathManual = receipt.manual
      ? `Remove the gentle-shell PATH entry by hand: ${receipt.manual}`
      : `path-entry.json cannot be used (${receipt.reason}); remove any gentle-shell PATH line or link by hand`;
  }
  const guarded = protectedFolders(layout, env);
  /** lstat one entry; null when absent, or when it was kept and named. */
  const look = async (path: string, want: "folder" | "file" | "current"): Promise<Stats | null> => {
    const stat = await lstatOrNull(path);
    if (!stat) return null;
    if (forbiddenRemoval(path, guarded)) {
      plan.keep.push({ path, why: "it lies in a folder that is never removed" });
      return null;
    }
    if (want === "current") {
      if (stat.isSymbolicLink() || (layout.platform === "win32" && stat.isFile())) return stat;
      plan.keep.push({ path, why: "it is not the link the installer made" });
      return null;
    }
    if (stat.isSymbolicLink()) plan.keep.push({ path, why: "it is a link, which is never followed" });
    else if (want === "folder" ? stat.isDirectory() : stat.isFile()) return stat;
    else plan.keep.push({ path, why: want === "folder" ? "it is not a folder" : "it is not a file" });
    return null;
  };
  for (const rel of OWNED_ENTRIES) {
    const path = join(layout.prefix, rel);
    const last = LAUNCH_GROUP.has(rel);
    if (rel === "current") {
      const stat = await look(path, "current");
      if (stat) plan.remove.push(removal(path, stat, last));
      continue;
    }
    const stat = await look(path, FILES.has(rel) ? "file" : "folder");
    if (!stat) continue;
    if (rel === "config") {
      const configJson = await lstatOrNull(join(layout.prefix, LAUNCHER_CONFIG));
      // An interrupted memory migration's marker (anything at its path) and the provenance it restores are kept.
      const marker = migrationMarkerPath(layout);
      const migration = await lstatOrNull(marker);
      if (!migration && (!configJson || includeShared)) {
        plan.remove.push(removal(path, stat, last));
        continue;
      }
      // config/ holds the shared config.json or a migration's records: remove what else is in it, entry by entry.
      const names = await fs.readdir(path).catch(() => [] as string[]);
      const records = [marker, provenancePath(layout)];
      for (const name of names.sort()) {
        if (name === "config.json" && !includeShared) continue;
        const child = join(path, name);
        if (migration && records.includes(child)) {
          plan.keep.push({ path: child, why: MIGRATION_KEPT });
          continue;
        }
        const childStat = await lstatOrNull(child);
        if (!childStat) continue;
        if (childStat.isSymbolicLink()) plan.keep.push({ path: child, why: "it is a link, which is never followed" });
        else if (childStat.isDirectory() || childStat.isFile()) plan.remove.push(removal(child, childStat, false));
        else plan.keep.push({ path: child, why: "it is not a file or a folder" });
      }
      const kept = includeShared ? null : await look(join(path, "config.json"), "file");
      if (kept) plan.shared.push(removal(join(path, "config.json"), kept, false));
      continue;
    }
    if (rel === "bin") {
      // Only the files that carry our marker: a tool of the user's in bin/ is kept and named.
      let launcherOurs = false;
      for (const name of (await fs.readdir(path).catch(() => [] as string[])).sort()) {
        const child = join(path, name);
        const childStat = await lstatOrNull(child);
        if (!childStat) continue;
        const ours = childStat.isFile() && (await ourBinFile(child));
        // Windows: the running .cmd launcher is the delayed removal's.
        if (ours && win && child === layout.launcher) launcherOurs = true;
        else if (ours) plan.remove.push(removal(child, childStat, true));
        else plan.keep.push({ path: child, why: "it was not written by gentle-shell-setup" });
      }
      // Windows: bin/ goes with the delayed removal, when then empty.
      if (win) plan.windows = { launcher: launcherOurs ? { holds: CMD_MARKER } : null, marker: { path: markerPath(layout), holds: MARKER_LINE } };
      else plan.remove.push({ ...removal(path, stat, true), emptyOnly: true });
      continue;
    }
    if (rel === "runtime" && win) {
      const around = await aroundRunningNode(layout);
      if (around) {
        // Everything in runtime/ but the running node.exe goes now; it and the folders above it go with the delayed removal.
        plan.remove.push(...around);
        continue;
      }
    }
    plan.remove.push(removal(path, stat, last));
  }
  // Windows: node.exe, the .cmd launcher and the marker go after this process exits (./windows-removal.ts).
  if (win && !plan.windows) plan.windows = { launcher: null, marker: { path: markerPath(layout), holds: MARKER_LINE } };
  // Elsewhere a marker of ours (a plain file with the exact text) goes at once, last.
  const marker = win ? null : await ourMarker(layout);
  if (marker) plan.remove.push(removal(markerPath(layout), marker, true));
  // The agent home where it really is: inside the prefix on POSIX, %USERPROFILE%\.gentle-shell\agent on Windows.
  // Outside the prefix (Windows), the folder that holds it must be a real folder too: nothing is removed through a link.
  const agentParent = dirname(layout.agent);
  const parentStat = agentParent === layout.prefix ? null : await lstatOrNull(agentParent);
  const agent = parentStat?.isSymbolicLink() ? null : await look(layout.agent, "folder");
  if (parentStat?.isSymbolicLink()) plan.keep.push({ path: layout.agent, why: "it lies in a folder reached through a link" });
  if (agent) plan.shared.push(removal(layout.agent, agent, false));
  // Windows: %USERPROFILE%\.gentle-shell, which holds only the agent home, goes with it when then empty.
  if (agent && includeShared && parentStat) {
    const parent = await look(agentParent, "folder");
    if (parent) plan.shared.push({ ...removal(agentParent, parent, false), emptyOnly: true });
  }
  // The agent home is shared and kept, but the fd and rg the launcher placed in its bin/ are ours:
  // only while they still have the bytes our marker records (Pi's own tools); bin/ goes only if then empty.
  if (!includeShared && !parentStat?.isSymbolicLink()) plan.remove.push(...(await ownPiTools(layout, look)));
  if (includeShared) {
    // The shared entries go before the launch group.
    const firstLast = plan.remove.findIndex((r) => r.last);
    plan.remove.splice(firstLast < 0 ? plan.remove.length : firstLast, 0, ...plan.shared);
    plan.shared = [];
  }
  return plan;
}

/** The marker's one line, as the delayed removal checks it. */
const MARKER_LINE = WINDOWS_PREFIX_MARKER_TEXT.replace(/\r?\n$/, "");

/**
 * Windows: runtime/'s entries but the folders that lead to the running node.exe, and that folder's entries but
 * node.exe, each as lstat saw it; null when node.exe is not a plain file in real folders (then runtime/ goes whole).
 */
async function aroundRunningNode(layout: Layout): Promise<Removal[] | null> {
  const chain = [layout.runtime, layout.nodeDir];
  for (const dir of chain) if (!(await lstatOrNull(dir))?.isDirectory()) return null;
  if (!(await lstatOrNull(layout.node))?.isFile()) return null;
  const out: Removal[] = [];
  for (const [dir, skip] of [
    [layout.runtime, basename(layout.nodeDir)],
    [layout.nodeDir, basename(layout.node)],
  ]) {
    for (const name of (await fs.readdir(dir)).sort()) {
      if (name === skip) continue;
      const child = join(dir, name);
      const stat = await lstatOrNull(child);
      // A link is removed itself, never followed (removeOne unlinks it).
      if (stat) out.push(removal(child, stat, true));
    }
  }
  return out;
}

/** Our fd and rg in <agent home>/bin with their markers, and bin/ itself when nothing else is left in it. */
async function ownPiTools(layout: Layout, look: (path: string, want: "folder" | "file") => Promise<Stats | null>): Promise<Removal[]> {
  const agent = await lstatOrNull(layout.agent);
  const binStat = await lstatOrNull(layout.agentBin);
  // Only in the home as the install made it: never through a link to another folder.
  if (!agent?.isDirectory() || !binStat?.isDirectory()) return [];
  const out: Removal[] = [];
  for (const tool of PI_TOOLS) {
    const file = join(layout.agentBin, toolFileName(tool, layout.platform));
    const marker = join(layout.agentBin, toolMarkerName(tool));
    if ((await toolPresence(layout, tool)) === "ours") {
      const stat = await look(file, "file");
      if (stat) out.push(removal(file, stat, false));
    }
    const markerStat = (await lstatOrNull(marker))?.isFile() ? await look(marker, "file") : null;
    if (markerStat) out.push(removal(marker, markerStat, false));
  }
  if (out.length) out.push({ ...removal(layout.agentBin, binStat, false), emptyOnly: true });
  return out;
}
