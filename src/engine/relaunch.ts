/**
 * Reopening the newly active Shell after the startup offer's "Update now"
 * (spec: "Startup update offer": the new Shell, with that release's Node and
 * Pi and the original startup arguments, without a second offer; a failed
 * relaunch is reported, never silently replaced by the old version).
 *
 * The launcher is run again, as the user would, so the new release's own
 * launcher picks its Node and engine. Where Node has execve (POSIX) it
 * replaces this process. Windows has no execve: the launcher is a .cmd, which
 * only cmd.exe runs, so cmd.exe is spawned with the terminal inherited and
 * its exit code (the launcher's, so Pi's) is passed on. The decision is pure
 * (relaunchPlan); running it goes through an adapter (relaunch).
 */
import { errnoCode } from "../core/errno";
import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { launcherCall } from "../core/cmd-call";
import type { Env } from "../core/environment";
import type { Platform } from "../core/layout";
import { type ChildOutcome, childOutcome, type ExitingChild, startInTerminal } from "../io/child-signals";

/** Set for the relaunched Shell so it does not offer again (every version reads it as "set"). */
export const HANDOFF = "GENTLE_SHELL_STARTUP_HANDOFF";

export type RelaunchPlan =
  | { how: "exec"; file: string; argv: string[]; env: Env }
  | { how: "spawn"; file: string; args: string[]; env: Env; verbatim: boolean }
  | { how: "none"; reason: string };

export interface RelaunchInput {
  platform: Platform;
  /** The launcher: bin/gentle-shell, or bin\gentle-shell.cmd on Windows. */
  launcher: string;
  /** The original startup arguments. */
  args: readonly string[];
  env: Readonly<Env>;
  /** Whether this Node has process.execve. */
  canExec: boolean;
}

export function relaunchPlan(input: RelaunchInput): RelaunchPlan {
  const { platform, launcher, args } = input;
  if (platform !== "win32") {
    const env = { ...input.env, [HANDOFF]: "1" };
    if (input.canExec) return { how: "exec", file: launcher, argv: [launcher, ...args], env };
    return { how: "spawn", file: launcher, args: [...args], env, verbatim: false };
  }
  // cmd.exe runs the .cmd (core/cmd-call.ts), named through the hand-over variable itself, which the new Shell reads as "set".
  // The offer only runs for plain startup, --continue and --resume, which cmd.exe takes unchanged.
  const call = launcherCall(platform, launcher, args, input.env, HANDOFF);
  if ("refused" in call) return { how: "none", reason: call.refused };
  return { how: "spawn", file: call.command, args: call.args, env: call.env, verbatim: call.verbatim };
}

/** The child a spawn adapter starts, with the terminal inherited. */
export type RelaunchChild = ExitingChild;

export interface RelaunchAdapter {
  execve?: (file: string, argv: string[], env: Env) => never;
  spawn(file: string, args: string[], options: { env: Env; verbatim: boolean }): RelaunchChild;
}

export type RelaunchResult = ChildOutcome;

/** Run the plan: an exec never comes back; a spawned Shell's exit code is passed on. */
export function relaunch(plan: RelaunchPlan, adapter: RelaunchAdapter): Promise<RelaunchResult> {
  if (plan.how === "none") return Promise.resolve({ failed: plan.reason });
  if (plan.how === "exec") {
    try {
      if (!adapter.execve) return Promise.resolve({ failed: "this Node cannot hand over to the new launcher" });
      adapter.execve(plan.file, plan.argv, plan.env);
    } catch (error) {
      return Promise.resolve({ failed: (error as Error).message });
    }
    return Promise.resolve({ failed: "the new launcher did not take over" });
  }
  let child: RelaunchChild;
  try {
    child = adapter.spawn(plan.file, plan.args, { env: plan.env, verbatim: plan.verbatim });
  } catch (error) {
    return Promise.resolve({ failed: (error as Error).message });
  }
  return childOutcome(child);
}

/**
 * What would make execve(2) refuse `file`, asked before it: Node (the pinned
 * 24 included; nodejs/node#62878 changed that later) aborts the process with a
 * native stack trace when execve fails, so relaunch could never say so. A
 * launcher that is missing, not a regular file or not executable by us (on a
 * noexec mount too), or a script whose interpreter is, throws here instead.
 */
export function execPreflight(file: string): void {
  const refuse = (what: string, error: unknown): never => {
    throw new Error(`${what} cannot be started (${errnoCode(error) ?? (error as Error).message})`);
  };
  let head = "";
  try {
    if (!statSync(file).isFile()) throw new Error("not a regular file");
    accessSync(file, constants.X_OK);
    const fd = openSync(file, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("latin1");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    refuse(file, error);
  }
  const interpreter = /^#![ \t]*(\S+)/.exec(head)?.[1];
  if (!interpreter) return;
  try {
    accessSync(interpreter, constants.X_OK);
  } catch (error) {
    refuse(`${file}'s interpreter ${interpreter}`, error);
  }
}

/** The real adapter: Node's execve where it has one, else a child with this terminal, waited for. */
export function processRelaunchAdapter(): RelaunchAdapter {
  const execve = (process as unknown as { execve?: (file: string, argv: string[], env: Env) => never }).execve;
  return {
    execve:
      typeof execve === "function"
        ? (file, argv, env) => {
            execPreflight(file);
            return execve.call(process, file, argv, env);
          }
        : undefined,
    // Ctrl+C in the shared terminal reaches the new Shell as well: it decides, and this process stays to pass its exit code on.
    spawn: (file, args, { env, verbatim }) => startInTerminal(file, args, { env, verbatim }),
  };
}
