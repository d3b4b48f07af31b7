/**
 * Migration from a global install, the probes (spec: "Migration from a
 * global install"): an old gentle-shell on PATH (files only, nothing runs),
 * then ownerManager: the user's own npm (`npm root -g`) and pnpm
 * (`pnpm ls -g --json`), each found on the user's PATH and started without a
 * shell; and removeGlobalShell, which removes the package with the manager
 * that still owns it. The decisions are core/migration-rules.ts's.
 */
import { promises as fs } from "node:fs";
import { join } from "../core/native-path";
import { envValue, type Env } from "../core/environment";
import { isWithin, type Layout } from "../core/layout";
import {
  installOwner,
  managerInvocation,
  PACKAGE_NAME,
  removalArgs,
  removalCommand,
  type Manager,
  type ManagerReport,
  type Owner,
} from "../core/migration-rules";
import { outputTail, run } from "../io/process";
import { pathEntries } from "../path/entry-plan";
import { COMMAND_NAME, commandFileNames } from "../path/shells";
import { isCommandFile } from "../path/step";

const PROBE_TIMEOUT_MS = 60_000;

async function realOrNull(path: string): Promise<string | null> {
  return fs.realpath(path).catch(() => null);
}

/** The first `name` on the user's PATH outside our prefix, or null. Nothing is run. */
export async function findOnPath(name: string, layout: Layout, env: Env): Promise<string | null> {
  const ourPrefix = (await realOrNull(layout.prefix)) ?? layout.prefix;
  for (const dir of pathEntries(envValue(env, "PATH", layout.platform), layout.platform)) {
    for (const file of commandFileNames(name, layout.platform, env)) {
      const full = join(dir, file);
      if (!isCommandFile(full, { platform: layout.platform })) continue;
      const real = (await realOrNull(full)) ?? full;
      if (isWithin(ourPrefix, real) || isWithin(layout.prefix, full)) continue;
      return full;
    }
  }
  return null;
}

/** An old gentle-shell on PATH that is not ours: the only reason to ask npm and pnpm anything. */
export function foreignShellOnPath(layout: Layout, env: Env): Promise<string | null> {
  return findOnPath(COMMAND_NAME, layout, env);
}

async function runManager(layout: Layout, env: Env, executable: string, args: string[]) {
  const how = managerInvocation(layout.platform, executable, args, envValue(env, "ComSpec", "win32"));
  if ("refused" in how) throw new Error(how.refused);
  // The user's own manager with the user's own settings, in the home folder so no project's .npmrc chooses.
  return run(how.command, how.args, { env, cwd: layout.home, timeoutMs: PROBE_TIMEOUT_MS, verbatim: how.verbatim });
}

async function packageVersion(dir: string): Promise<string | null> {
  try {
    const manifest = JSON.parse(await fs.readFile(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
    return manifest.name === PACKAGE_NAME && typeof manifest.version === "string" ? manifest.version : null;
  } catch {
    return null;
  }
}

async function npmReport(layout: Layout, env: Env): Promise<ManagerReport> {
  const report: ManagerReport = { manager: "npm", executable: await findOnPath("npm", layout, env), packageDir: null, linked: false, version: null };
  if (!report.executable) return report;
  // A question only: npm writes no log file and checks for no update of itself for it.
  const result = await runManager(layout, env, report.executable, ["root", "-g", "--logs-max=0", "--no-update-notifier"]).catch(() => null);
  const root = result?.code === 0 ? result.stdout.trim() : "";
  if (!root) return report;
  const dir = join(root, PACKAGE_NAME);
  const st = await fs.lstat(dir).catch(() => null);
  if (!st || !(st.isDirectory() || st.isSymbolicLink())) return report;
  // npm link leaves a link here; an installed package is a real folder.
  report.linked = st.isSymbolicLink();
  report.packageDir = report.linked ? ((await realOrNull(dir)) ?? dir) : dir;
  report.version = await packageVersion(dir);
  if (report.version === null && !report.linked) report.packageDir = null;
  return report;
}

/** What the global project holding `packageDir` (<project>/node_modules/gentle-pi) asked for. */
async function pnpmWanted(packageDir: string): Promise<"registry" | "folder" | "unknown"> {
  try {
    const project = JSON.parse(await fs.readFile(join(packageDir, "..", "..", "package.json"), "utf8")) as { dependencies?: Record<string, unknown> };
    const wanted = project.dependencies?.[PACKAGE_NAME];
    if (typeof wanted !== "string") return "unknown";
    return /^(link|file|workspace):|^[./~]|^[A-Za-z]:[\\/]/.test(wanted) ? "folder" : "registry";
  } catch {
    return "unknown";
  }
}

async function pnpmReport(layout: Layout, env: Env): Promise<ManagerReport> {
  const report: ManagerReport = { manager: "pnpm", executable: await findOnPath("pnpm", layout, env), packageDir: null, linked: false, version: null };
  if (!report.executable) return report;
  const result = await runManager(layout, env, report.executable, ["ls", "-g", "--json", "--depth=0"]).catch(() => null);
  if (result?.code !== 0) return report;
  let listed: unknown;
  try {
    listed = JSON.parse(result.stdout);
  } catch {
    return report;
  }
  for (const project of Array.isArray(listed) ? listed : []) {
    const entry = (project as { dependencies?: Record<string, { version?: unknown; path?: unknown }> })?.dependencies?.[PACKAGE_NAME];
    const root = (project as { path?: unknown })?.path;
    if (!entry || typeof entry.path !== "string" || typeof root !== "string") continue;
    const real = await realOrNull(entry.path);
    if (!real) continue;
    // A global from a folder (pnpm link, pnpm add -g <dir>) is a link: its global project asks for
    // `link:`/`file:` (the version pnpm lists is the folder's). pnpm 11 keeps installed files in its
    // global virtual store, outside the global folder, so where the files lie says nothing.
    report.linked = typeof entry.version !== "string" || /^(link|file):/.test(entry.version) || (await pnpmWanted(entry.path)) !== "registry";
    report.packageDir = report.linked ? real : entry.path;
    report.version = await packageVersion(entry.path);
    return report;
  }
  return report;
}

/** ownerManager: ask the user's npm and pnpm which of them has a global gentle-pi. */
export async function ownerManager(layout: Layout, env: Env): Promise<Owner> {
  return installOwner(await Promise.all([npmReport(layout, env), pnpmReport(layout, env)]));
}

/**
 * removeGlobalShell: finds the installed Gentle Shell again and removes it
 * with `manager`, only while that same manager still owns the same package.
 * Throws one sentence naming the command to run by hand.
 */
export async function removeGlobalShell(layout: Layout, env: Env, expected: { manager: Manager; packageDir: string }): Promise<string> {
  const command = removalCommand(expected.manager);
  const now = await ownerManager(layout, env);
  if (now.kind !== "manager" || now.manager !== expected.manager || now.packageDir !== expected.packageDir) {
    throw new Error(
      `the global gentle-pi is no longer the one ${expected.manager} installed, so it was not removed; check it and run ${command} yourself if you want it gone`,
    );
  }
  const result = await runManager(layout, env, now.executable, removalArgs(now.manager)).catch((error: Error) => ({
    code: null,
    signal: null,
    stdout: "",
    stderr: error.message,
  }));
  const after = await ownerManager(layout, env);
  if (result.code !== 0 || after.kind === "manager") {
    const tail = outputTail(result, 3).replace(/\s+/g, " ").trim();
    throw new Error(`${command} did not remove the global gentle-pi${tail ? ` (${tail})` : ""}; run ${command} yourself`);
  }
  return `removed with ${command}`;
}
