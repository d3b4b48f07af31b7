/**
 * Every rename, unlink, rmdir and rm of our own files goes through here, so
 * one rule (core/held-file.ts) decides what a refusal means: on Windows an
 * EPERM, EACCES or EBUSY may be a scanner holding the file for a moment, so
 * the call is tried again with growing waits, about 10 s in all, and then
 * fails with one sentence naming the file (a HeldError, keeping the code).
 * Elsewhere it fails at once, as the call itself would.
 *
 * A recursive rm is retried whole, not with Node's maxRetries: those retry
 * EPERM on every platform and never EACCES, a second rule beside this one.
 * Trying the whole rm again goes on with what is left.
 *
 * The platform, the file-system calls and the sleeps are LockRules, so tests
 * run the Windows rule on any machine with a file system that refuses and a
 * clock that does not wait.
 */
import { errnoCode } from "../core/errno";
import { promises as nodeFs, type RmOptions } from "node:fs";
import { type HeldAction, heldSentence, heldWaits, mayBeHeld } from "../core/held-file";

export type LockFs = Pick<typeof nodeFs, "rename" | "unlink" | "rmdir" | "rm">;

/** The sync calls a sync caller brings with its own seam (path/fs.ts's PathFs has them). */
export interface LockFsSync {
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
}

export interface LockRules {
  platform: string;
  fs: LockFs;
  sleep(ms: number): Promise<void>;
  sleepSync(ms: number): void;
}

/** This machine's: its platform, node:fs, real waits. */
export const machineRules: LockRules = {
  platform: process.platform,
  fs: nodeFs,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  // A sync caller (the PATH receipt) has no event loop to give back; the thread just waits.
  sleepSync: (ms) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
};

/** A file another program still held after every wait; `code` is the last refusal's. */
export class HeldError extends Error {
  readonly code: string;
  readonly path: string;
  constructor(action: HeldAction, cause: unknown) {
    super(heldSentence(action), { cause });
    this.name = "HeldError";
    this.code = errnoCode(cause) ?? "EPERM";
    this.path = "rename" in action ? action.rename : action.remove;
  }
}

async function retried(action: HeldAction, op: () => Promise<void>, rules: LockRules): Promise<void> {
  const waits = heldWaits();
  for (let i = 0; ; i++) {
    try {
      await op();
      return;
    } catch (error) {
      if (!mayBeHeld(rules.platform, errnoCode(error))) throw error;
      if (i >= waits.length) throw new HeldError(held(action, error), error);
      await rules.sleep(waits[i]!);
    }
  }
}

function retriedSync(action: HeldAction, op: () => void, rules: LockRules): void {
  const waits = heldWaits();
  for (let i = 0; ; i++) {
    try {
      op();
      return;
    } catch (error) {
      if (!mayBeHeld(rules.platform, errnoCode(error))) throw error;
      if (i >= waits.length) throw new HeldError(held(action, error), error);
      rules.sleepSync(waits[i]!);
    }
  }
}

/** A removal names what would not go: for a tree, the entry inside it the refusal names. */
function held(action: HeldAction, error: unknown): HeldAction {
  const path = (error as NodeJS.ErrnoException).path;
  return "remove" in action && typeof path === "string" ? { remove: path } : action;
}

export function rename(from: string, to: string, rules: LockRules = machineRules): Promise<void> {
  return retried({ rename: from, to }, () => rules.fs.rename(from, to), rules);
}

export function unlink(path: string, rules: LockRules = machineRules): Promise<void> {
  return retried({ remove: path }, () => rules.fs.unlink(path), rules);
}

export function rmdir(path: string, rules: LockRules = machineRules): Promise<void> {
  return retried({ remove: path }, () => rules.fs.rmdir(path), rules);
}

export function rm(path: string, options?: RmOptions, rules: LockRules = machineRules): Promise<void> {
  return retried({ remove: path }, () => rules.fs.rm(path, options), rules);
}

export function renameSync(fs: LockFsSync, from: string, to: string, rules: LockRules = machineRules): void {
  retriedSync({ rename: from, to }, () => fs.renameSync(from, to), rules);
}

export function unlinkSync(fs: LockFsSync, path: string, rules: LockRules = machineRules): void {
  retriedSync({ remove: path }, () => fs.unlinkSync(path), rules);
}

/** An empty folder removed by a sync caller (the completions' folders at self-uninstall). */
export function rmdirSync(fs: { rmdirSync(path: string): void }, path: string, rules: LockRules = machineRules): void {
  retriedSync({ remove: path }, () => fs.rmdirSync(path), rules);
}
