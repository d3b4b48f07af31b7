/**
 * `doctor --fix` (issue 41): the repairs of ours, each by the install's own
 * rule and each said in one line, under the installers' lock (one installer,
 * upgrade or doctor at a time; a lock whose process is gone is taken over
 * as the next installer would). What is not ours is never touched: the
 * launcher and the guard are written only over a file with our marker
 * (ensureLauncher refuses any other), a profile only gets our exact line
 * back through the install's own append, a leftover is removed only while
 * its process is still gone.
 *
 * A runtime of ours that is missing or incomplete is acquired again by the
 * install's own recipe (./runtimes.ts), from --source or the install's source.
 *
 * A kill at any moment leaves something the next run converges from: a
 * version folder is first renamed to a staging name of this process (one
 * rename), then removed, so a half-removed folder is never one without a
 * marker (which doctor would call foreign); a launcher is written with one
 * rename; the PATH receipt is rewritten after its line is back.
 */
import * as nodeFs from "node:fs";
import { promises as fs } from "node:fs";
import { dirname } from "../../core/native-path";
import { tildify, tildifyText, type Layout } from "../../core/layout";
import type { Env } from "../../core/environment";
import { errnoCode } from "../../core/errno";
import { isAlive } from "../../io/alive";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { rename, rm } from "../../io/locked-retry";
import { stagingPath } from "../../io/staging";
import { stepMark } from "../../io/step-times";
import { ensureLauncher } from "../../install/launcher";
import { acquireInstallLock, type Lock } from "../../install/lock";
import { appendLine } from "../../path/profile-file";
import { readPathReceipt, writePathReceipt } from "../../path/receipt-file";
import { profileFiles } from "../../path/shells";
import { ensurePiNpmCommand } from "../../installed/pi-settings";
import { recordSetup } from "../../installed/setup-marker";
import type { Check, FixAction } from "./plan";
import { repairRuntime, repairSource } from "./runtimes";
import type { RuntimeHost } from "../../install/runtime/host-context";

/** How long --fix waits for another installer before it says so. */
export const FIX_LOCK_WAIT_MS = 10_000;

export class FixRefused extends Error {}

async function removeLeftover(layout: Layout, path: string, pid: number | null): Promise<string | null> {
  const show = tildify(path, layout.home);
  if (pid !== null && isAlive(pid)) return null;
  const stat = await lstatOrNull(path);
  if (!stat) return null;
  if (stat.isDirectory()) {
    // One rename first: a kill during the removal leaves a staging name of ours, never a version without its marker.
    const aside = stagingPath(dirname(path), "removing");
    await rename(path, aside);
    await rm(aside, { recursive: true, force: true });
  } else await rm(path, { force: true });
  return `removed ${show}, left by an interrupted run`;
}

async function restoreLine(layout: Layout, env: Env, action: Extract<FixAction, { do: "profile-line" }>): Promise<string | null> {
  const file = profileFiles(layout.home, env, layout.platform).find((f) => f.path === action.file);
  if (!file) return null;
  const old = readPathReceipt(layout, env);
  if (old.status !== "valid" || old.receipt.kind !== "profile" || old.receipt.line !== action.line) return null;
  const made = appendLine({ kind: "line", shell: file.shell, file: action.file, line: action.line, create: action.create }, layout.home, nodeFs);
  if (!made.applied || made.kind !== "profile") return null;
  // The receipt follows what was appended now (its separator), and still says whether the file is ours to delete.
  writePathReceipt(layout, { ...made, create: old.receipt.create });
  return `put our PATH line back in ${tildify(action.file, layout.home)}`;
}

async function relink(layout: Layout, action: Extract<FixAction, { do: "link" }>): Promise<string | null> {
  try {
    await fs.symlink(action.target, action.path);
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return null;
    throw error;
  }
  return `made the link ${tildify(action.path, layout.home)} to our launcher again`;
}

async function repair(layout: Layout, host: RuntimeHost, action: FixAction, source: string | undefined): Promise<string | null> {
  const { env } = host;
  switch (action.do) {
    case "runtime":
      return repairRuntime(layout, host, action, await repairSource(layout, source));
    case "launcher":
    case "guard": {
      // ensureLauncher writes both, each only over our own file and only when it differs.
      const files = layout.platform === "win32" ? [layout.launcher] : [layout.launcher, layout.guard];
      const before = await Promise.all(files.map((f) => readTextOrNull(f).catch(() => null)));
      await ensureLauncher(layout);
      const after = await Promise.all(files.map((f) => readTextOrNull(f).catch(() => null)));
      const changed = files.filter((_, i) => before[i] !== after[i]).map((f) => `wrote ${tildify(f, layout.home)} again`);
      return changed.length ? changed.join("; ") : null;
    }
    case "profile-line":
      return restoreLine(layout, env, action);
    case "link":
      return relink(layout, action);
    case "remove":
      return removeLeftover(layout, action.path, action.pid);
    case "lock":
      return "took over the installers' lock its gone process left";
    case "setup-marker":
      await recordSetup(layout, { status: "done", by: "doctor", version: action.version });
      return "wrote setup's record config/setup.json back";
    case "npm-command": {
      const r = await ensurePiNpmCommand(layout);
      if (r === "written") return "set Pi's npmCommand to our Node and npm";
      if (r === "unchanged") return null;
      throw new FixRefused(`Pi's npmCommand was left as it is: ${r.warning}`);
    }
  }
}

/**
 * Does every check's fix, in the plan's order, under the lock; returns one
 * line for each thing changed (a second run returns none). A repair that
 * cannot be done is said in its line, and the others still run.
 */
export async function runFixes(layout: Layout, host: RuntimeHost, checks: readonly Check[], source: string | undefined): Promise<string[]> {
  const { env } = host;
  const actions = checks.filter((c) => c.status !== "ok" && c.action).map((c) => c.action!);
  if (!actions.length) return [];
  let lock: Lock;
  try {
    lock = await acquireInstallLock(layout, FIX_LOCK_WAIT_MS);
  } catch (error) {
    throw new FixRefused(`nothing was repaired: ${(error as Error).message}`);
  }
  const done: string[] = [];
  let wroteLauncher = false;
  try {
    for (const action of actions) {
      if ((action.do === "launcher" || action.do === "guard") && wroteLauncher) continue;
      wroteLauncher ||= action.do === "launcher" || action.do === "guard";
      try {
        const mark = `fix:${action.do}${action.do === "runtime" ? `:${action.name}` : ""}`;
        stepMark(`${mark}:start`, env);
        const line = await repair(layout, host, action, source);
        stepMark(`${mark}:end`, env);
        if (line) done.push(line);
      } catch (error) {
        done.push(`could not repair: ${tildifyText((error as Error).message, layout.home)}`);
      }
    }
  } finally {
    await lock.release();
  }
  return done;
}
