/**
 * gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared] (spec:
 * "Self-uninstall"). Under the install lock, so no upgrade or setup works in
 * the prefix meanwhile: the PATH entry first, then the plan's entries, each
 * lstat-checked again right before it goes; an error is reported per entry,
 * and what the launcher needs goes only after everything else did, so a
 * failed removal can be retried with gentle-shell self-uninstall. On Windows
 * the running node.exe, the .cmd launcher and the marker are then handed to
 * the delayed removal (./windows-removal.ts), which runs after this process
 * has exited.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { EXIT, type Output } from "../../core/errors";
import { tildify, type Layout } from "../../core/layout";
import type { Env } from "../../core/environment";
import { lstatOrNull, RemoveError, removeTree } from "../../io/files";
import type { Host } from "../../io/host";
import { removePathEntry } from "../../path/apply";
import { recordedCompletionFiles, removeCompletions } from "../../install/completions";
import type { RegistryAdapter } from "../../path/windows-registry";
import { acquireInstallLock, type Lock } from "../../install/lock";
import { checkOwnership, uninstallPlan, type Removal, type UninstallOptions } from "./removal-plan";
import { windowsRemovalPlan, type ScheduleWindowsRemoval } from "./windows-removal";
import { rmdir, unlink } from "../../io/locked-retry";
import { stepMark } from "../../io/step-times";
import { confirm } from "../../io/confirm";

/**
 * The host's question, on stderr: yes or no, null for no terminal or end of input, "interrupted" for
 * Ctrl+C, which exits 130 once the install lock is released (an exit here would leave it in the prefix).
 */
export async function askYesNo(host: Pick<Host, "ask">, question: string): Promise<boolean | null | "interrupted"> {
  const reply = await confirm(host, question, "no", "stderr");
  return reply === "interrupted" ? "interrupted" : reply === "yes" ? true : reply === "no" ? false : null;
}

/** Why `r` is no longer what the plan saw (lstat again, right before removing it), or null. */
async function changedSincePlan(r: Removal): Promise<string | null> {
  const stat = await lstatOrNull(r.path);
  if (!stat) return "it is gone";
  const kind = stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "folder" : "file";
  if (kind === "link" && r.kind !== "link") return "it became a link after the plan was made, and a link is never followed";
  if (kind !== r.kind || stat.dev !== r.dev || stat.ino !== r.ino) return "it changed after the plan was made";
  return null;
}

/** Remove one planned entry without following any link; an error is returned, not thrown. */
async function removeOne(r: Removal): Promise<"removed" | "gone" | { kept: string } | { failed: string; path: string }> {
  const changed = await changedSincePlan(r);
  if (changed === "it is gone") return "gone";
  if (changed) return { kept: changed };
  try {
    if (r.emptyOnly) {
      const left = await fs.readdir(r.path);
      if (left.length) return { kept: `it still holds ${left.sort().join(", ")}` };
      await rmdir(r.path);
    } else if (r.kind === "folder") {
      // Never follows a link inside, even one swapped in meanwhile: a link is removed itself. Only the folder the plan saw goes.
      await removeTree(r.path, r);
    } else {
      await unlink(r.path);
    }
    return "removed";
  } catch (error) {
    if (error instanceof RemoveError) return { failed: error.code, path: error.path };
    return { failed: errnoCode(error) ?? (error as Error).message, path: r.path };
  }
}

export async function selfUninstall(layout: Layout, env: Env, options: UninstallOptions, io: UninstallIo): Promise<number> {
  const out = (line: string) => io.out(line);
  const err = (line: string) => io.err(`gentle-shell: ${line}`);
  const show = (p: string) => tildify(p, layout.home);
  const notOurs = await checkOwnership(layout);
  if (notOurs) {
    err(`self-uninstall removes only a bundled install in ~/.gentle-shell: ${notOurs}. Nothing was removed.`);
    return EXIT.failure;
  }
  // The install lock: an upgrade, an install or a setup working in the prefix finishes first.
  let lock: Lock;
  try {
    lock = await acquireInstallLock(layout, options.lockWaitMs ?? 300_000, (pid) =>
      out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`),
    );
  } catch (error) {
    err(`${(error as Error).message}. Nothing was removed.`);
    return EXIT.failure;
  }
  try {
    return await uninstallLocked(layout, env, options, io, out, err, show, lock);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

/** Its lines, and the yes/no question (null: no terminal or end of input; "interrupted": Ctrl+C). */
export interface UninstallIo extends Output {
  ask(question: string): Promise<boolean | null | "interrupted">;
  /** Windows: the HKCU user Path adapter the PATH entry is taken back through. */
  registry?: RegistryAdapter;
  /** Windows: starts the delayed removal of node.exe, the launcher and the marker (bound by the engine). */
  scheduleWindowsRemoval?: ScheduleWindowsRemoval;
}

async function uninstallLocked(
  layout: Layout,
  env: Env,
  options: UninstallOptions,
  io: UninstallIo,
  out: (l: string) => void,
  err: (l: string) => void,
  show: (p: string) => string,
  lock: Lock,
): Promise<number> {
  let plan = await uninstallPlan(layout, env, options.includeShared);
  out(`This removes Gentle Shell from ${show(layout.prefix)}:`);
  if (plan.path) out(`  - PATH: ${plan.path.description}`);
  // The completion scripts the install wrote outside the prefix (issue 42), each as its record names it.
  for (const file of recordedCompletionFiles(layout, env)) out(`  - completions: ${show(file)}`);
  for (const r of plan.remove) out(`  - ${show(r.path)}`);
  if (plan.windows) {
    for (const r of windowsRemovalPlan(layout, { ...plan.windows, prefixMayGo: false }).entries.filter((d) => d.kind === "file"))
      out(`  - ${show(r.path)} (once gentle-shell has exited)`);
  }
  for (const k of plan.keep) out(`  ! kept: ${show(k.path)} (${k.why})`);
  if (plan.shared.length) out(`Kept unless you agree below (or pass --include-shared): ${plan.shared.map((r) => show(r.path)).join(", ")}`);
  // Without a valid receipt the plan names the entry to remove by hand, once: nothing repeats it at the end.
  if (plan.pathManual) out(plan.pathManual);
  if (options.dryRun) {
    out("Dry run: nothing was removed.");
    return EXIT.unchanged;
  }
  if (!options.yes) {
    const go = await io.ask("Remove Gentle Shell? [y/N] ");
    // Ctrl+C aborts: nothing was removed, and the lock is released on the way out.
    if (go === "interrupted") return EXIT.interrupted;
    if (go !== true) {
      out(go === null ? "No answer: nothing was removed." : "Cancelled: nothing was removed.");
      return EXIT.unchanged;
    }
    if (plan.shared.length) {
      const shared = await io.ask(`Also remove the Gentle Shell home (${plan.shared.map((r) => show(r.path)).join(", ")})? [y/N] `);
      if (shared === "interrupted") return EXIT.interrupted;
      if (shared === true) plan = await uninstallPlan(layout, env, true);
    }
  }

  const messages: string[] = [];
  if (plan.path) {
    const result = await removePathEntry(plan.path.receipt, { registry: io.registry }).catch((error: Error) => ({
      status: "failed" as const,
      reason: error.message,
    }));
    if (result.status === "failed") {
      err(`the PATH entry could not be removed (${result.reason}); nothing else was removed.`);
      return EXIT.failure;
    }
    stepMark("uninstall:path", env);
    if (result.status === "kept") {
      messages.push(
        `${show(result.path)} still holds ${result.line ? `the line ${result.line}` : "a gentle-shell entry"} (${result.reason}); remove it by hand.`,
      );
    } else if (result.status === "removed") {
      out(`✔ PATH: removed ${plan.path.description}`);
    }
  }
  // Before the prefix's entries, whose completions.json names them: only a file still as the install wrote it goes.
  const completions = removeCompletions(layout, env);
  if (completions.removed.length) out(`✔ completions: removed ${completions.removed.map(show).join(", ")}`);
  for (const k of completions.kept) messages.push(`Kept ${show(k.path)}: ${k.why}.`);
  const failed: string[] = [];
  const kept = [...plan.keep.map((k) => k.path)];
  let removed = 0;
  let done = 0;
  for (const group of [plan.remove.filter((r) => !r.last), plan.remove.filter((r) => r.last)]) {
    // What the launcher needs goes only once everything else is gone, so a failure can be retried.
    if (failed.length) break;
    for (const r of group) {
      const result = await removeOne(r);
      stepMark(`uninstall:removed ${++done}`, env);
      if (result === "removed") removed++;
      else if (result === "gone") continue;
      else if ("kept" in result) {
        kept.push(r.path);
        messages.push(`Kept ${show(r.path)}: ${result.kept}.`);
      } else failed.push(`${show(result.path)} (${result.failed})`);
    }
  }
  out(`✔ removed ${removed} item(s) from ${show(layout.prefix)}`);
  if (failed.length) {
    for (const m of messages) out(m);
    const retry = plan.remove.some((r) => r.last && r.path === layout.launcher) && (await lstatOrNull(layout.launcher));
    err(
      `could not remove ${failed.join(", ")}. ${retry ? "Fix that, then run gentle-shell self-uninstall again." : `Remove ${failed.length === 1 ? "it" : "them"} by hand.`}`,
    );
    return EXIT.failure;
  }
  // The lock goes before the prefix, which may then be empty.
  await lock.release();
  if (plan.windows) return scheduleOnWindows(layout, plan.windows, kept.length === 0, messages, io, out, err, show);
  const left = await fs.readdir(layout.prefix).catch(() => null);
  if (left && left.length === 0 && kept.length === 0) {
    try {
      await rmdir(layout.prefix);
      out(`✔ removed ${show(layout.prefix)}`);
    } catch (error) {
      messages.push(`${show(layout.prefix)} could not be removed (${errnoCode(error) ?? (error as Error).message}).`);
    }
  } else if (left?.length) {
    messages.push(`${show(layout.prefix)} still holds ${left.sort().join(", ")}, so it was kept.`);
  }
  for (const m of messages) out(m);
  out("Gentle Shell is uninstalled. Open a new terminal so it no longer finds gentle-shell.");
  return EXIT.ok;
}

/**
 * Windows: everything else is gone; node.exe, the launcher, the marker, the folders above them and (when nothing was
 * kept) the prefix go once this process has exited. When the removal cannot be started, the marker stays, and the
 * sentence names what to remove by hand.
 */
async function scheduleOnWindows(
  layout: Layout,
  facts: NonNullable<Awaited<ReturnType<typeof uninstallPlan>>["windows"]>,
  prefixMayGo: boolean,
  messages: string[],
  io: UninstallIo,
  out: (l: string) => void,
  err: (l: string) => void,
  show: (p: string) => string,
): Promise<number> {
  const removal = windowsRemovalPlan(layout, { ...facts, prefixMayGo });
  const files = removal.entries.filter((e) => e.kind === "file").map((e) => show(e.path));
  try {
    if (!io.scheduleWindowsRemoval) throw new Error("no delayed removal is available");
    await io.scheduleWindowsRemoval(removal);
  } catch (error) {
    for (const m of messages) out(m);
    err(
      `the removal of ${files.join(", ")} could not be started (${(error as Error).message}); remove ${files.length === 1 ? "it" : "them"} by hand once gentle-shell has exited.`,
    );
    return EXIT.failure;
  }
  out(`✔ ${files.join(", ")} ${files.length === 1 ? "goes" : "go"} once gentle-shell has exited${prefixMayGo ? `, then ${show(layout.prefix)}` : ""}`);
  if (!prefixMayGo) messages.push(`${show(layout.prefix)} holds what the install did not write, so it is kept.`);
  for (const m of messages) out(m);
  out("Gentle Shell is uninstalled. Open a new terminal so it no longer finds gentle-shell.");
  return EXIT.ok;
}
