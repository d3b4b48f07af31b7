/**
 * The installer's PATH step (spec: "PATH", and bundled-path in the step
 * list of "Migration from a global install"):
 *
 *   pathEntryStep(layout, env, { platform?, fs?, registry?, user? }, noModifyPath?)
 *     -> Promise<PathStepOutcome>
 *
 * gathers the facts, plans, applies, persists the receipt (taking the entry
 * back when that fails) and returns `{ status, plan, receipt?, file?, line?,
 * detail?, nextStep }`. `status` is "applied", "already", "manual" (a file we
 * must not write; `line` is what to add), "skipped" (noModifyPath, which the
 * CLI sets from --no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1) or
 * "failed" (`detail` holds the error with the home as ~). `nextStep` is one
 * sentence: what the user does to get `gentle-shell` in the current terminal.
 */
import * as nodeFs from "node:fs";
import { dirname } from "../core/native-path";
import { envValue, type Env } from "../core/environment";
import type { Layout, Platform } from "../core/layout";
import { tildify, tildifyText } from "../core/layout";
import { applyPathEntry, removePathEntry } from "./apply";
import type { PathFs, PathIoOptions } from "./fs";
import { pathEntries, pathEntryPlan, profileTarget, samePathEntry, type PathEntryPlan, type PathFacts } from "./entry-plan";
import { collectPathFacts } from "./probe";
import type { PathReceipt } from "./receipt";
import { readPathReceipt, writePathReceipt } from "./receipt-file";
import { addLineSentence, reloadCommand } from "./sentences";
import { USER_PATH_KEY, USER_PATH_NAME } from "./shells";
import { userPathEntry } from "./user-path";
import { shadowingCommand } from "./shadow";

/** The step's seams (fs, registry, user) and its platform; the environment it reads and the user's choice travel beside them. */
export interface PathStepOptions extends PathIoOptions {
  platform?: Platform;
}

export interface PathStepOutcome {
  status: "applied" | "already" | "manual" | "skipped" | "failed";
  plan?: PathEntryPlan;
  receipt?: PathReceipt;
  /** The file (or the link, or the Path value) concerned. */
  file?: string;
  /** The exact line (manual, skipped, failed). */
  line?: string;
  detail?: string;
  /** One sentence: what to do to get `gentle-shell` in the current terminal. */
  nextStep: string;
}

const MANUAL_WHY: Record<string, string> = {
  link: "is a symlink",
  "read-only": "is read-only",
  "not-a-file": "is not a regular file",
  "linked-folder": "is reached through a linked folder",
  "folder-not-writable": "does not exist and its folder is not writable",
  unreadable: "cannot be read",
};

/**
 * spec "Migration" step list, bundled-path: plan, apply, persist the receipt
 * (taking the entry back when it cannot be written). Never throws.
 * `noModifyPath` is the user's --no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1:
 * change nothing, print the line.
 */
export async function pathEntryStep(layout: Layout, env: Env, options: PathStepOptions = {}, noModifyPath?: boolean): Promise<PathStepOutcome> {
  const platform = options.platform ?? layout.platform;
  const home = layout.home;
  const show = (p: string) => tildify(p, home);
  const winEntry = userPathEntry(layout.bin);
  const addEntrySentence = `Add ${winEntry} to your user Path (Settings, Environment Variables), then open a new terminal.`;
  const byHand = (facts: PathFacts | null): Pick<PathStepOutcome, "file" | "line" | "nextStep"> => {
    if (platform === "win32") return { file: `${USER_PATH_KEY}\\${USER_PATH_NAME}`, line: winEntry, nextStep: addEntrySentence };
    const t = facts ? profileTarget(facts) : null;
    if (!t) return { nextStep: `Add ${show(layout.bin)} to your PATH, then open a new terminal.` };
    return { file: t.file, line: t.line, nextStep: addLineSentence(t.file, t.line, home) };
  };

  let facts: PathFacts;
  try {
    facts = await collectPathFacts(layout, env, { ...options, platform });
  } catch (e) {
    return { status: "failed", detail: tildifyText((e as Error).message, home), ...byHand(null) };
  }
  const plan = pathEntryPlan(facts);

  if (plan.kind === "impossible") {
    return { status: "failed", plan, detail: plan.reason, nextStep: `Run ${show(layout.launcher)} by its full path: ${plan.reason}.` };
  }
  if (plan.kind === "none") {
    const e = plan.existing;
    const inTerminal = pathEntries(envValue(env, "PATH", platform), platform);
    const dir = e.kind === "link" ? dirname(e.path) : layout.bin;
    const here = inTerminal.some((p) => samePathEntry(p, dir, platform));
    const file = e.kind === "line" ? e.file : e.kind === "link" ? e.path : `${e.key}\\${e.name}`;
    const nextStep = here
      ? "Nothing to do: `gentle-shell` is already on this terminal's PATH."
      : e.kind === "line"
        ? `Run \`${reloadCommand(e.shell, e.file, home)}\` or open a new terminal to use \`gentle-shell\` (${show(e.file)} already adds it).`
        : "Open a new terminal to use `gentle-shell`; the PATH entry is already there.";
    return { status: "already", plan, file, nextStep };
  }
  if (noModifyPath) {
    return { status: "skipped", plan, detail: "the PATH was left unchanged (--no-modify-path)", ...byHand(facts) };
  }
  if (plan.kind === "manual") {
    return {
      status: "manual",
      plan,
      file: plan.file,
      line: plan.line,
      detail: `${show(plan.file)} ${MANUAL_WHY[plan.reason]}, so it was left untouched`,
      nextStep: addLineSentence(plan.file, plan.line, home),
    };
  }

  // The entry an earlier install recorded, moved below once the new one is in place (one entry, one receipt).
  let earlier: PathReceipt | null = null;
  try {
    const read = readPathReceipt(layout, env, { ...options, platform });
    if (read.status === "valid") earlier = read.receipt;
  } catch {
    // An unreadable receipt records nothing to move.
  }
  let receipt: PathReceipt;
  try {
    receipt = await applyPathEntry(plan, { ...options, home });
  } catch (e) {
    return { status: "failed", plan, detail: tildifyText((e as Error).message, home), ...byHand(facts) };
  }
  try {
    writePathReceipt(layout, receipt, options);
  } catch (e) {
    let undo = "the PATH entry was taken back";
    try {
      await removePathEntry(receipt, options);
    } catch (u) {
      undo = `taking the PATH entry back failed too: ${(u as Error).message}`;
    }
    return {
      status: "failed",
      plan,
      receipt,
      detail: tildifyText(`could not write ${layout.pathReceipt}: ${(e as Error).message}; ${undo}`, home),
      ...byHand(facts),
    };
  }

  const moved = receipt.applied && earlier ? await moveEarlier(earlier, receipt, options, show) : undefined;
  // The entry is in place: which file or key holds it, and what to do in this terminal.
  const inPlace = (where: { file: string; line?: string; nextStep: string }): PathStepOutcome => ({
    status: receipt.applied ? "applied" : "already",
    plan,
    receipt,
    ...(moved ? { detail: moved } : {}),
    ...where,
  });
  switch (plan.kind) {
    case "link":
      return inPlace({ file: plan.path, nextStep: "Nothing to do: run `gentle-shell` now, ~/.local/bin is already on this terminal's PATH." });
    case "line":
      return inPlace({
        file: plan.file,
        line: plan.line,
        nextStep:
          plan.shell === "sh"
            ? `Run \`${reloadCommand(plan.shell, plan.file, home)}\` in this terminal; new login shells read it too.`
            : `Run \`${reloadCommand(plan.shell, plan.file, home)}\` or open a new terminal to use \`gentle-shell\`.`,
      });
    case "registry":
      return inPlace({
        file: `${plan.key}\\${plan.name}`,
        line: plan.entry,
        nextStep: `Open a new terminal to use \`gentle-shell\`, or run \`$env:Path += ';${plan.entry.replace(/'/g, "''")}'\` in this PowerShell.`,
      });
  }
}

/**
 * An earlier install's entry somewhere else (a shell the table did not know
 * then wrote ~/.profile; the user changed shells): the receipt now names the
 * new entry only, so the old one is taken back through its own receipt, as
 * self-uninstall would, rather than left where nothing records it. A line the
 * user edited is kept (removePathEntry's rule). What happened, in one clause.
 */
async function moveEarlier(earlier: PathReceipt, now: PathReceipt, options: PathStepOptions, show: (p: string) => string): Promise<string | undefined> {
  const where = (r: PathReceipt) => (r.kind === "registry" ? `${r.key}\\${r.name}` : r.path);
  if (earlier.kind === now.kind && where(earlier) === where(now)) return undefined;
  try {
    const removed = await removePathEntry(earlier, options);
    if (removed.status === "removed") return `moved our PATH entry here from ${show(where(earlier))}`;
    if (removed.status === "kept") return `our earlier PATH entry in ${show(removed.path)} was kept: ${removed.reason}`;
    return undefined;
  } catch (e) {
    return `our earlier PATH entry in ${show(where(earlier))} could not be taken back (${(e as Error).message})`;
  }
}

/** For shadowingCommand's `isCommand`: a regular file (through links) that is executable (any file on Windows). */
export function isCommandFile(file: string, options: { fs?: PathFs; platform: Platform }): boolean {
  const fs = options.fs ?? nodeFs;
  try {
    const st = fs.statSync(file);
    return st.isFile() && (options.platform === "win32" || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/** What a new terminal runs once `plan` is applied: one warning when an old gentle-shell still wins, else null. */
export function shadowWarningFor(layout: Layout, env: Env, plan: PathEntryPlan): string | null {
  const shadow = shadowingCommand(plan, {
    path: envValue(env, "PATH", layout.platform),
    platform: layout.platform,
    home: layout.home,
    env,
    bin: layout.bin,
    isCommand: (file) => isCommandFile(file, { platform: layout.platform }),
  });
  return shadow.shadowedBy?.message ?? null;
}
