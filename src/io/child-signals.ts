/**
 * Signals while a child runs with our terminal (Pi started by the engine where
 * there is no execve, Pi's update --extensions).
 *   - POSIX: SIGINT, SIGTERM and SIGHUP that reach us are passed on to it.
 *   - Windows: Ctrl+C and Ctrl+Break reach every process on the console, the
 *     child included, and it decides. Passing them on would be
 *     TerminateProcess (what child.kill does there), so Pi would die instead
 *     of handling its own Ctrl+C: we only ignore them until it exits.
 */
import type { ChildProcess } from "node:child_process";

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
