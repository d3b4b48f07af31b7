/**
 * A child spoken to in lines: requests on its stdin, its answers as lines on
 * its stdout (a version's module session, ../installed/module-session.ts).
 * Never through a shell; stderr kept (the tail) for an error message.
 */
import { spawn } from "node:child_process";
import type { Env } from "../core/environment";
import type { RunResult } from "./process";

export interface LineChild {
  /** The next line it printed, in order; null once its stdout has ended. */
  next(): Promise<string | null>;
  /** One line to its stdin (nothing when it has already gone). */
  send(line: string): void;
  /** Its stdin ended: it finishes what it was asked, then exits. */
  end(): void;
  /** Its exit, with what it printed on stderr (stdout is read through next). */
  readonly exited: Promise<RunResult>;
}

export function startLineChild(command: string, args: string[], options: { env: Env; timeoutMs: number; maxOutput?: number }): LineChild {
  const max = options.maxOutput ?? 64 * 1024;
  const child = spawn(command, args, { env: options.env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"], shell: false, windowsHide: true });
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let partial = "";
  let ended = false;
  let stderr = "";
  const deliver = (line: string | null) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else if (line !== null) lines.push(line);
  };
  child.stdout.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = (parts.pop() ?? "").slice(-max);
    for (const line of parts) deliver(line.replace(/\r$/, ""));
  });
  child.stdout.on("end", () => {
    if (partial) deliver(partial);
    partial = "";
    ended = true;
    while (waiting.length) deliver(null);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-max);
  });
  // A child that exited before reading what we sent: its exit says what happened, not the write.
  child.stdin.on("error", () => undefined);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  const exited = new Promise<RunResult>((resolve) => {
    child.on("error", (error) => {
      clearTimeout(timer);
      ended = true;
      while (waiting.length) deliver(null);
      resolve({ code: null, signal: null, stdout: "", stderr: error.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: "", stderr });
    });
  });
  return {
    next: () => {
      if (lines.length) return Promise.resolve(lines.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    send: (line) => {
      if (child.stdin.writable) child.stdin.write(`${line}\n`);
    },
    end: () => {
      if (!child.stdin.destroyed) child.stdin.end();
    },
    exited,
  };
}
