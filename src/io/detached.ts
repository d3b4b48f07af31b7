/**
 * A server that outlives us (the shared `engram serve`): detached in its own
 * process group, stdio ignored, unreferenced, no window, never through a
 * shell. Its own small file: the launch part loads it only when a server is
 * to be started.
 */
import { spawn } from "node:child_process";
import type { Env } from "../core/environment";
import { errnoCode } from "../core/errno";

/** Start `command` so; resolves with why it ended, in a few words (it is never stopped by us). */
export function startDetached(command: string, args: string[], options: { env: Env; cwd: string }): Promise<string> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        detached: true,
        stdio: "ignore",
        windowsHide: true,
        cwd: options.cwd,
        env: options.env as NodeJS.ProcessEnv,
        shell: false,
      });
    } catch (error) {
      resolve(`could not be run (${errnoCode(error) ?? "error"})`);
      return;
    }
    child.once("error", (error: NodeJS.ErrnoException) => resolve(`could not be run (${error.code ?? "error"})`));
    child.once("exit", (code, signal) => resolve(signal ? `stopped (${signal})` : `exited (code ${code})`));
    child.unref();
  });
}
