/**
 * Signals while a child runs with our terminal (Pi started by the engine where
 * there is no execve, the new launcher after Update now, Pi's update
 * --extensions).
 *   - POSIX: SIGINT, SIGTERM and SIGHUP that reach us are passed on to it.
 *   - Windows: Ctrl+C and Ctrl+Break reach every process on the console, the
 *     child included, and it decides. Passing them on would be
 *     TerminateProcess (what child.kill does there), so Pi would die instead
 *     of handling its own Ctrl+C: we only ignore them until it exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

export interface SignalPlan {
  forward: NodeJS.Signals[];
  ignore: NodeJS.Signals[];
}

export function childSignalPlan(platform: NodeJS.Platform): SignalPlan {
  if (platform === "win32") return { forward: [], ignore: ["SIGINT", "SIGBREAK"] };
  return { forward: ["SIGINT", "SIGTERM", "SIGHUP"], ignore: [] };
}

/** Apply the plan for `child` until it exits or fails to start; returns the undo, for a caller that ends sooner. */
export function shareSignals(child: ChildProcess, platform: NodeJS.Platform = process.platform): () => void {
  const plan = childSignalPlan(platform);
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  const ignore = () => undefined;
  for (const s of plan.forward) process.on(s, forward);
  for (const s of plan.ignore) process.on(s, ignore);
  const undo = () => {
    for (const s of plan.forward) process.off(s, forward);
    for (const s of plan.ignore) process.off(s, ignore);
  };
  child.once("exit", undo);
  child.once("error", undo);
  return undo;
}

/**
 * The one way a child with our terminal is started (Pi where there is no
 * execve, the new launcher after Update now, Pi's update --extensions):
 * stdio inherited, the console shown, signals shared as planned above.
 */
export function startInTerminal(file: string, args: string[], options: { env: Record<string, string | undefined>; verbatim?: boolean }): ChildProcess {
  const child = spawn(file, args, {
    stdio: "inherit",
    env: options.env as NodeJS.ProcessEnv,
    windowsVerbatimArguments: options.verbatim ?? false,
    windowsHide: false,
  });
  shareSignals(child);
  return child;
}

/** What a child in our terminal came to: its exit code, or why it never started. */
export type ChildOutcome = { code: number } | { failed: string };

export interface ExitingChild {
  once(event: "error", listener: (error: Error) => void): unknown;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
}

export function childOutcome(child: ExitingChild): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    child.once("error", (error) => resolve({ failed: error.message }));
    child.once("exit", (code, signal) => resolve({ code: exitCode(code, signal) }));
  });
}

/** The one exit-code rule, a shell's: a child killed by a signal is 128 + its number. */
export function exitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}
