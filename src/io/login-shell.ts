/**
 * Starting a user's shell the way a new terminal does, to ask it one
 * question (doctor's login-shell check, issue 41). The shell reads the
 * user's startup files, which can print, prompt, hang or start children, so:
 *
 * - stdin is /dev/null and stderr is dropped; only stdout is read, and only
 *   what lies between two markers the command prints around its answer (what
 *   the startup files print before or after is never looked at, nor shown);
 * - the shell gets a session of its own (setsid), so an interactive shell
 *   finds no controlling terminal to take over from ours;
 * - after `timeoutMs` its whole process group is killed (SIGKILL), children of
 *   the startup files too, and the answer is "timeout": doctor never hangs.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import type { Env } from "../core/environment";

export type ShellAnswer =
  /** The shell ran the command: what it printed between the markers, trimmed (empty when it printed nothing). */
  | { kind: "answered"; text: string }
  /** Killed after the timeout. */
  | { kind: "timeout" }
  /** It could not start, or ended without printing the markers (a startup file that exits, a crash). */
  | { kind: "failed"; reason: string };

export interface ShellQuestion {
  /** The shell's binary. */
  binary: string;
  /** Its flags before `-c` (login, interactive). */
  flags: string[];
  /** The command, in the shell's own syntax, that prints the begin marker, the answer and the end marker (plain words). */
  command: (begin: string, end: string) => string;
  env: Env;
  cwd: string;
  timeoutMs: number;
}

const MAX_OUTPUT = 256 * 1024;

/** Ask a shell one question; never rejects. */
export function askShell(q: ShellQuestion): Promise<ShellAnswer> {
  const nonce = randomBytes(6).toString("hex");
  const begin = `__gentle_shell_begin_${nonce}__`;
  const end = `__gentle_shell_end_${nonce}__`;
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(q.binary, [...q.flags, "-c", q.command(begin, end)], {
        cwd: q.cwd,
        env: q.env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "ignore"],
        detached: true,
        shell: false,
      });
    } catch (error) {
      resolve({ kind: "failed", reason: (error as Error).message });
      return;
    }
    let out = "";
    let settled = false;
    const done = (answer: ShellAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* the group is gone already */
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      done({ kind: "timeout" });
    }, q.timeoutMs);
    child.stdout!.on("data", (c: Buffer) => {
      out = (out + c.toString("utf8")).slice(-MAX_OUTPUT);
    });
    child.on("error", (error) => done({ kind: "failed", reason: error.message }));
    // What the startup files left running (a background job holding stdout) goes with the shell.
    child.on("exit", killGroup);
    child.on("close", (code, signal) => {
      // A shell that ends its lines with CRLF (PowerShell, where it does) answers the same.
      out = out.replace(/\r\n/g, "\n");
      const start = out.indexOf(`${begin}\n`);
      const body = start < 0 ? "" : out.slice(start + begin.length + 1);
      const stop = body.startsWith(`${end}\n`) ? 0 : body.indexOf(`\n${end}\n`) + 1;
      if (start >= 0 && stop >= 0 && (stop > 0 || body.startsWith(end))) done({ kind: "answered", text: body.slice(0, stop).trim() });
      else done({ kind: "failed", reason: signal ? `it was ended by ${signal}` : `it exited with code ${code} before answering` });
    });
  });
}

/** The real file a path names (links followed), or null when it cannot be resolved. */
export async function realFile(path: string): Promise<string | null> {
  return fs.realpath(path).catch(() => null);
}
