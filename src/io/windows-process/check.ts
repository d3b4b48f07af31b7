/**
 * Windows prerequisite processes (spec: "Windows prerequisite failure
 * diagnostics"). The private-folder adapter
 * (src/install/windows-private/adapter.ts) runs whoami.exe through this one
 * function, and every Windows PowerShell run goes through it by way of
 * src/io/powershell.ts.
 *
 * API
 *
 *   windowsProcessCheck({ command, args, env }, deps?) → Promise<{ stdout, stderr }>
 *
 *   - command: an absolute path to an executable (for example
 *     `C:\Windows\System32\whoami.exe`). A .cmd or .bat file (also with
 *     trailing dots or spaces, any case) and a bare or relative name are
 *     refused before anything starts: batch files run through cmd.exe, and a
 *     bare name is resolved through the current folder and PATH.
 *   - args: passed as an argument vector, never through a shell (shell=false).
 *   - env: extra variables laid over the inherited environment (deps.baseEnv,
 *     default process.env); this is how paths and other data reach a script,
 *     never as script text.
 *   - The child starts in a neutral folder (%SystemRoot%\System32, else the
 *     root of the executable's drive; `/` off Windows), with stdin ignored and
 *     no window. It is killed with SIGKILL after 15 seconds. Each stream is
 *     captured up to 1 MiB; more output kills it too.
 *   - detached: the child gets no pipes at all (stdin, stdout and stderr
 *     ignored) and its own process group outside this process's job, so
 *     what it starts outlives us (self-uninstall's delayed removal: cmd.exe
 *     running `start`). Its own exit is still awaited, with the same
 *     timeout, and nothing is captured.
 *   - Success is exit status 0 without a signal. Anything else throws the
 *     WindowsPrerequisiteError of ./failure.ts ("Windows prerequisite process
 *     failed", classification "process-failed"), its cause sanitized as
 *     ./sanitize.ts describes.
 *
 * Nothing is printed: the caller decides what to show. timedOut is true only
 * when our own 15-second timer killed the child; elapsed time alone never
 * sets it.
 */
import { spawn as nodeSpawn } from "node:child_process";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { envValue } from "../../core/environment";
import { windowsProcessFailure } from "./failure";
import { WINDOWS_PROCESS_MAX_CAPTURE, WINDOWS_PROCESS_TIMEOUT_MS } from "./sanitize";

/** Our own refusals, before anything runs. */
export const BATCH_REJECTED = "ERR_WINDOWS_BATCH_REJECTED";
export const COMMAND_NOT_ABSOLUTE = "ERR_WINDOWS_COMMAND_NOT_ABSOLUTE";
export const OUTPUT_LIMIT = "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";

export interface WindowsProcessRequest {
  command: string;
  args?: readonly string[];
  /** Extra variables (data for the script), laid over the inherited environment. */
  env?: Readonly<Record<string, string>>;
  /** No pipes and its own process group: what it starts may outlive this process. */
  detached?: boolean;
}

export interface WindowsProcessOutput {
  stdout: string;
  stderr: string;
}

export type SpawnLike = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface WindowsProcessDeps {
  spawn?: SpawnLike;
  platform?: NodeJS.Platform;
  /** The environment the child starts from (the Host's, or runPowerShell's minimal one). */
  baseEnv: Readonly<Record<string, string | undefined>>;
}

const DRIVE_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** `.cmd`/`.bat`, as Windows reads the name (trailing dots and spaces dropped, any case). */
export function isBatchFile(command: string): boolean {
  const base = command.split(/[\\/]/).pop() ?? "";
  return /\.(?:cmd|bat)$/i.test(base.replace(/[. ]+$/, ""));
}

export function isAbsoluteCommand(command: string, platform: NodeJS.Platform): boolean {
  return platform === "win32" ? DRIVE_ABSOLUTE.test(command) : command.startsWith("/");
}

/** %SystemRoot%\System32 when SystemRoot is a drive path, else the executable's drive root; `/` off Windows. */
export function neutralCwd(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, command: string): string {
  if (platform !== "win32") return "/";
  const root = envValue(env, "SystemRoot", "win32");
  if (root && DRIVE_ABSOLUTE.test(root) && !root.includes("\0")) return root.replace(/[\\/]+$/, "") + "\\System32";
  return command.slice(0, 2) + "\\";
}

export async function windowsProcessCheck(request: WindowsProcessRequest, deps: WindowsProcessDeps): Promise<WindowsProcessOutput> {
  const platform = deps.platform ?? process.platform;
  const spawn = deps.spawn ?? (nodeSpawn as SpawnLike);
  const { baseEnv } = deps;
  const { command } = request;
  const args = [...(request.args ?? [])];
  if (isBatchFile(command)) throw windowsProcessFailure({ error: { name: "Error", code: BATCH_REJECTED } });
  if (!isAbsoluteCommand(command, platform)) throw windowsProcessFailure({ error: { name: "Error", code: COMMAND_NOT_ABSOLUTE } });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (typeof v === "string") env[k] = v;
  for (const [k, v] of Object.entries(request.env ?? {})) {
    const existing = Object.keys(env).find((e) => e.toUpperCase() === k.toUpperCase());
    if (existing !== undefined && platform === "win32") delete env[existing];
    env[k] = v;
  }
  const options: SpawnOptions = {
    cwd: neutralCwd(platform, baseEnv, command),
    env,
    shell: false,
    stdio: request.detached ? "ignore" : ["ignore", "pipe", "pipe"],
    detached: request.detached === true,
    windowsHide: true,
    windowsVerbatimArguments: false,
  };

  return new Promise<WindowsProcessOutput>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, options);
    } catch (error) {
      reject(windowsProcessFailure({ error }));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const size = { out: 0, err: 0 };
    let timedOut = false;
    let outputLimitExceeded = false;
    let spawnError: unknown;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;

    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, WINDOWS_PROCESS_TIMEOUT_MS);

    const collect = (which: "out" | "err", chunks: Buffer[]) => (chunk: Buffer) => {
      if (outputLimitExceeded) return;
      size[which] += chunk.length;
      if (size[which] > WINDOWS_PROCESS_MAX_CAPTURE) {
        outputLimitExceeded = true;
        kill();
        return;
      }
      chunks.push(chunk);
    };
    child.stdout?.on("data", collect("out", out));
    child.stderr?.on("data", collect("err", err));

    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      const status = exit?.code ?? null;
      const signal = exit?.signal ?? null;
      if (spawnError === undefined && !timedOut && !outputLimitExceeded && signal === null && status === 0) {
        resolve({ stdout, stderr });
        return;
      }
      const error = spawnError ?? (outputLimitExceeded ? { name: "RangeError", code: OUTPUT_LIMIT } : undefined);
      reject(windowsProcessFailure({ status, signal, timedOut, outputLimitExceeded, error, stdout, stderr }));
    };

    child.on("error", (error) => {
      if (spawnError === undefined) spawnError = error;
      // A child that never started has no exit and may never close.
      if (child.pid === undefined) settle();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // After our kill, a grandchild may hold the pipes open: do not wait for them.
      if (timedOut || outputLimitExceeded) settle();
    });
    child.on("close", (code, signal) => {
      if (!exit) exit = { code, signal };
      settle();
    });
  });
}
