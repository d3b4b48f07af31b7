/** Running our own runtimes: never through a shell, output captured and bounded. */
import { spawn } from "node:child_process";
import { launcherCall } from "../core/cmd-call";
import type { Env } from "../core/environment";
import type { Layout } from "../core/layout";
import { redactText } from "../core/secrets";
import { isAlive } from "./alive";

export { isAlive };

/** Where a child's output is echoed: lines joined by newlines, without the last one. */
export type Echo = (lines: string) => void;

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The output line that matched `stopOn`, when the child was ended for it. */
  stopped?: string;
}

export interface RunOptions {
  cwd?: string;
  env: Env;
  timeoutMs?: number;
  /** Bytes kept per stream (the tail). */
  maxOutput?: number;
  /** Forward output as it arrives, whole lines at a time (verbose installs: the Host's stderr, `host.err`). */
  echo?: Echo;
  /** Windows: hand the arguments to cmd.exe exactly as given (they are already quoted for it). */
  verbatim?: boolean;
  /**
   * POSIX: bits the child's umask adds to ours (0o022: no group- or
   * other-writable files, whatever the user's umask). Only the child gets it.
   */
  umask?: number;
  /**
   * Output that ends the child at once (SIGKILL): a line matching it is kept
   * in the result's `stopped`. pnpm meets a full disk with ENOSPC and would
   * otherwise retry each download after a 10-second wait.
   */
  stopOn?: RegExp;
}

/**
 * Start `spawnIt` with our umask plus `extra` in effect, and put ours back at
 * once: a child inherits the umask it was forked with. Reading the umask means
 * setting one, so 0o077 stands in for the instant between, stricter than
 * either, for any file another task creates meanwhile.
 */
function withUmask<T>(extra: number | undefined, spawnIt: () => T): T {
  if (extra === undefined || process.platform === "win32") return spawnIt();
  const ours = process.umask(0o077);
  process.umask(ours | extra);
  try {
    return spawnIt();
  } finally {
    process.umask(ours);
  }
}

export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const max = options.maxOutput ?? 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = withUmask(options.umask, () =>
      spawn(command, args, {
        cwd: options.cwd,
        env: options.env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
        windowsVerbatimArguments: options.verbatim ?? false,
      }),
    );
    let stdout = "";
    let stderr = "";
    const keep = (acc: string, chunk: Buffer) => {
      const next = acc + chunk.toString("utf8");
      return next.length > max ? next.slice(next.length - max) : next;
    };
    // Echoed whole lines at a time, so a URL's credentials are masked even across chunks.
    const echo = (pending: { text: string }, c: Buffer | null) => {
      if (!options.echo) return;
      pending.text += c ? c.toString("utf8") : "";
      const end = c ? pending.text.lastIndexOf("\n") + 1 : pending.text.length;
      if (end === 0) return;
      const lines = pending.text.slice(0, end);
      options.echo(lines.endsWith("\n") ? lines.slice(0, -1) : lines);
      pending.text = pending.text.slice(end);
    };
    const pendingOut = { text: "" };
    const pendingErr = { text: "" };
    let stopped: string | undefined;
    // The last partial line of each stream, so a match split across chunks is still seen.
    const tails = { out: "", err: "" };
    const watch = (which: "out" | "err", c: Buffer) => {
      if (!options.stopOn || stopped !== undefined) return;
      const text = tails[which] + c.toString("utf8");
      const lines = text.split(/\r?\n/);
      tails[which] = (lines.pop() ?? "").slice(-4096);
      const hit = [...lines, tails[which]].find((line) => options.stopOn!.test(line));
      if (hit === undefined) return;
      stopped = redactText(hit.trim().slice(0, 300));
      child.kill("SIGKILL");
    };
    child.stdout.on("data", (c: Buffer) => {
      stdout = keep(stdout, c);
      echo(pendingOut, c);
      watch("out", c);
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr = keep(stderr, c);
      echo(pendingErr, c);
      watch("err", c);
    });
    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs) {
      timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    }
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      echo(pendingOut, null);
      echo(pendingErr, null);
      resolve({ code, signal, stdout, stderr, ...(stopped !== undefined ? { stopped } : {}) });
    });
  });
}

/**
 * Run our launcher as a user's terminal would (core/cmd-call.ts: cmd.exe on
 * Windows, which Node needs for a .cmd), with its output captured.
 */
export function runLauncher(layout: Pick<Layout, "platform" | "launcher">, args: string[], options: RunOptions): Promise<RunResult> {
  const call = launcherCall(layout.platform, layout.launcher, args, options.env);
  if ("refused" in call) return Promise.reject(new Error(call.refused));
  return run(call.command, call.args, { ...options, env: call.env, verbatim: call.verbatim });
}

/** The last lines of a failed command's output, for an error message. */
export function outputTail(result: RunResult, lines = 15): string {
  const text = `${result.stdout}\n${result.stderr}`.trim().split("\n");
  return redactText(text.slice(-lines).join("\n"));
}

/** How a child on our terminal ended: it could not be started (`error`, one phrase), or its code or signal. */
export type Ended = { error: string } | { code: number | null; signal: NodeJS.Signals | null };

export interface AttachedOptions {
  env: Env;
  cwd: string;
  /** Its stdout: ours, or stderr's (2) while ours holds a --json document (the Host's stdoutForChild). */
  stdout: "inherit" | 2;
}

/**
 * Run a program of ours on the user's terminal (gentle-ai's setup, the setup
 * step, the engine of an uninstall): stdin and stderr are ours, never through
 * a shell, a console window where Windows would give one. Resolves how it
 * ended; never rejects.
 */
export function runAttached(command: string, args: string[], options: AttachedOptions): Promise<Ended> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        stdio: ["inherit", options.stdout, "inherit"],
        env: options.env as NodeJS.ProcessEnv,
        cwd: options.cwd,
        shell: false,
        windowsHide: false,
      });
    } catch (error) {
      // Node throws at once for some arguments (a NUL byte in one): the same outcome as a start that failed.
      resolve({ error: (error as Error).message });
      return;
    }
    child.on("error", (error) => resolve({ error: error.message }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
}
