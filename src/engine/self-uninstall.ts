/**
 * gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]
 * (spec: "Self-uninstall"). The PATH entry the receipt records goes first;
 * then each folder and file the install wrote, each checked with lstat, with
 * no link inside followed; the agent home and the launcher's config.json only
 * when the user says so. The prefix itself goes only when nothing else is
 * left in it. Anything that is not ours is kept and named.
 */
import { promises as fs, realpathSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, relative } from "pathe";
import { tildify, type Layout } from "../core/layout";
import type { Env } from "../core/environment";
import { lstatOrNull, readTextOrNull } from "../io/files";
import { readPathReceipt, removePathEntry } from "../io/path-apply";
import type { PathReceipt } from "../core/path-entry";

export interface UninstallOptions {
  dryRun: boolean;
  yes: boolean;
  includeShared: boolean;
}

export function parseUninstallArgs(args: string[]): UninstallOptions | string {
  const options: UninstallOptions = { dryRun: false, yes: false, includeShared: false };
  for (const arg of args) {
    if (arg === "--dry-run") options.dryRun = true;
    else if (arg === "--yes" || arg === "-y") options.yes = true;
    else if (arg === "--include-shared") options.includeShared = true;
    else return `unknown option ${arg}; usage: gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]`;
  }
  return options;
}

/** What the install writes in the prefix, in the order they are removed. */
export const OWNED_ENTRIES = [
  "bin",
  "current",
  "versions",
  "versions.history",
  "runtime",
  "pnpm",
  "npm",
  "gentle-ai",
  "config",
  "tmp",
  ".gentle-shell-setup.lock",
] as const;

/** The launcher's own settings, shared like the agent home. */
export const LAUNCHER_CONFIG = join("config", "config.json");

export interface UninstallPlan {
  /** Where the PATH entry is, from a valid receipt. */
  path: { receipt: PathReceipt; description: string } | null;
  /** What to remove by hand (no valid receipt), said once. */
  pathManual: string | null;
  remove: string[];
  shared: string[];
  /** Not ours, or a link where ours would be: kept and named. */
  keep: Array<{ path: string; why: string }>;
}

/** Folders no removal may be, contain or lie inside. */
export function protectedFolders(layout: Layout, env: Env): string[] {
  const home = layout.home;
  const list = [home, join(home, ".pi"), join(home, ".gentle-ai"), join(home, ".engram")];
  if (env.PI_CODING_AGENT_DIR && env.PI_CODING_AGENT_DIR !== layout.agent) list.push(env.PI_CODING_AGENT_DIR);
  return list;
}

/** Is `inner` the same as or inside `outer`? */
function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

/**
 * A removal may not be or contain any protected folder, nor lie inside one
 * other than the home folder itself (the prefix is in the home folder).
 */
export function forbiddenRemoval(path: string, guarded: string[], home: string): boolean {
  return guarded.some((g) => within(path, g) || (g !== home && within(g, path)));
}

/** The prefix must be the real ~/.gentle-shell the engine runs from. */
export async function checkOwnership(layout: Layout): Promise<string | null> {
  if (layout.platform === "win32") {
    // Windows: the private folder must carry the .gentle-shell-bundle marker with its exact text.
    const { WINDOWS_BUNDLE_MARKER, WINDOWS_BUNDLE_MARKER_TEXT } = await import("../install/windows-private");
    const marker = await readTextOrNull(join(layout.prefix, WINDOWS_BUNDLE_MARKER)).catch(() => null);
    return marker === WINDOWS_BUNDLE_MARKER_TEXT ? null : `${layout.prefix} does not carry the ${WINDOWS_BUNDLE_MARKER} marker`;
  }
  const expected = join(layout.home, ".gentle-shell");
  const stat = await lstatOrNull(expected);
  if (!stat || !stat.isDirectory()) return `${tildify(expected, layout.home)} is not a real folder (a link or missing)`;
  let real: string;
  try {
    real = realpathSync(expected);
  } catch {
    return `${expected} cannot be resolved`;
  }
  if (real !== realpathSync(layout.prefix)) return `this gentle-shell runs from ${layout.prefix}, not from ${expected}`;
  return null;
}

export async function uninstallPlan(layout: Layout, env: Env, includeShared: boolean): Promise<UninstallPlan> {
  const plan: UninstallPlan = { path: null, pathManual: null, remove: [], shared: [], keep: [] };
  const receipt = readPathReceipt(layout, { env });
  if (receipt.status === "valid") {
    const r = receipt.receipt;
    plan.path = {
      receipt: r,
      description:
        r.kind === "link" ? `the link ${tildify(r.path, layout.home)}` : r.kind === "profile" ? `the marked line in ${tildify(r.path, layout.home)}` : `${r.entry} in the user Path`,
    };
  } else if (receipt.status === "invalid") {
    plan.pathManual = receipt.manual
      ? `Remove the gentle-shell PATH entry by hand: ${receipt.manual}`
      : `path-entry.json cannot be used (${receipt.reason}); remove any gentle-shell PATH line or link by hand`;
  }
  const guarded = protectedFolders(layout, env);
  const consider = async (rel: string, list: string[]) => {
    const path = join(layout.prefix, rel);
    const stat = await lstatOrNull(path);
    if (!stat) return;
    if (forbiddenRemoval(path, guarded, layout.home)) {
      plan.keep.push({ path, why: "it lies in a folder that is never removed" });
      return;
    }
    const wantDir = !["current", "versions.history", ".gentle-shell-setup.lock", LAUNCHER_CONFIG, "path-entry.json"].includes(rel);
    if (rel === "current") {
      if (stat.isSymbolicLink() || (layout.platform === "win32" && stat.isFile())) list.push(path);
      else plan.keep.push({ path, why: "it is not the link the installer made" });
      return;
    }
    if (stat.isSymbolicLink()) plan.keep.push({ path, why: "it is a link, which is never followed" });
    else if (wantDir ? stat.isDirectory() : stat.isFile()) list.push(path);
    else plan.keep.push({ path, why: wantDir ? "it is not a folder" : "it is not a file" });
  };
  const configJson = await lstatOrNull(join(layout.prefix, LAUNCHER_CONFIG));
  for (const rel of OWNED_ENTRIES) {
    if (rel === "config" && configJson) {
      // config/ holds the shared config.json: remove what else is in it, entry by entry.
      const names = await fs.readdir(join(layout.prefix, "config")).catch(() => [] as string[]);
      for (const name of names.sort()) if (name !== "config.json") await consider(join("config", name), plan.remove);
      continue;
    }
    await consider(rel, plan.remove);
  }
  await consider("path-entry.json", plan.remove);
  // Windows: the running node.exe, the .cmd launcher and the marker go after this process exits
  // (scheduleWindowsRemoval, not built yet); the marker stays until then.
  await consider("agent", plan.shared);
  if (configJson) await consider(LAUNCHER_CONFIG, plan.shared);
  if (includeShared) {
    plan.remove.push(...plan.shared);
    plan.shared = [];
  }
  return plan;
}

async function ask(question: string): Promise<boolean | null> {
  if (!process.stdin.isTTY) return null;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) => {
    let answered = false;
    rl.on("SIGINT", () => {
      process.stderr.write("\n");
      rl.close();
      process.exit(130);
    });
    rl.on("close", () => {
      if (!answered) resolve(null);
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}

export async function selfUninstall(layout: Layout, env: Env, options: UninstallOptions): Promise<number> {
  const out = (line: string) => process.stdout.write(line + "\n");
  const show = (p: string) => tildify(p, layout.home);
  const notOurs = await checkOwnership(layout);
  if (notOurs) {
    process.stderr.write(`gentle-shell: self-uninstall removes only a bundled install in ~/.gentle-shell: ${notOurs}. Nothing was removed.\n`);
    return 1;
  }
  let plan = await uninstallPlan(layout, env, options.includeShared);
  out(`This removes Gentle Shell from ${show(layout.prefix)}:`);
  if (plan.path) out(`  - PATH: ${plan.path.description}`);
  for (const p of plan.remove) out(`  - ${show(p)}`);
  for (const k of plan.keep) out(`  ! kept: ${show(k.path)} (${k.why})`);
  if (plan.shared.length) out(`Kept unless you agree below (or pass --include-shared): ${plan.shared.map(show).join(", ")}`);
  if (plan.pathManual) out(plan.pathManual);
  if (options.dryRun) {
    out("Dry run: nothing was removed.");
    return 0;
  }
  if (!options.yes) {
    const go = await ask("Remove Gentle Shell? [y/N] ");
    if (go !== true) {
      out(go === null ? "No answer: nothing was removed." : "Cancelled: nothing was removed.");
      return 1;
    }
    if (plan.shared.length) {
      const shared = await ask(`Also remove the Gentle Shell home (${plan.shared.map(show).join(", ")})? [y/N] `);
      if (shared === true) plan = await uninstallPlan(layout, env, true);
    }
  }

  const messages: string[] = [];
  if (plan.path) {
    const result = await removePathEntry(plan.path.receipt).catch((error: Error) => ({ status: "failed" as const, reason: error.message }));
    if (result.status === "failed") {
      process.stderr.write(`gentle-shell: the PATH entry could not be removed (${result.reason}); nothing else was removed.\n`);
      return 1;
    }
    if (result.status === "kept") {
      messages.push(`${show(result.path)} still holds ${result.line ? `the line ${result.line}` : "a gentle-shell entry"} (${result.reason}); remove it by hand.`);
    } else if (result.status === "removed") {
      out(`✔ PATH: removed ${plan.path.description}`);
    }
  }
  for (const path of plan.remove) {
    await fs.rm(path, { recursive: true, force: true });
  }
  out(`✔ removed ${plan.remove.length} item(s) from ${show(layout.prefix)}`);
  const left = await fs.readdir(layout.prefix).catch(() => null);
  if (left && left.length === 0 && plan.keep.length === 0) {
    await fs.rmdir(layout.prefix).catch(() => undefined);
    out(`✔ removed ${show(layout.prefix)}`);
  } else if (left && left.length) {
    messages.push(`${show(layout.prefix)} still holds ${left.sort().join(", ")}, so it was kept.`);
  }
  if (plan.pathManual) messages.push(plan.pathManual);
  for (const m of messages) out(m);
  out("Gentle Shell is uninstalled. Open a new terminal so it no longer finds gentle-shell.");
  return 0;
}
