/**
 * A stand-in for child_process.spawn in the Windows process tests: it records
 * each call and hands the fake child to a script (exitWith: write output,
 * then exit). Works on any host.
 */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { SpawnLike } from "../../src/io/windows-process/check";

export interface FakeChild extends EventEmitter {
  stdout: PassThrough;
  stderr: PassThrough;
  pid: number | undefined;
  kills: string[];
  kill: (signal?: string) => boolean;
}

export function fakeSpawn(onSpawn?: (child: FakeChild) => void) {
  const calls: { command: string; args: readonly string[]; options: SpawnOptions; child: FakeChild }[] = [];
  const spawn: SpawnLike = (command, args, options) => {
    const child = new EventEmitter() as FakeChild;
    child.stdout = new PassThrough();
    child.stderr = new PassThrough();
    child.pid = 4242;
    child.kills = [];
    child.kill = (signal?: string) => {
      child.kills.push(String(signal));
      setTimeout(() => {
        child.emit("exit", null, signal);
        child.emit("close", null, signal);
      }, 0);
      return true;
    };
    calls.push({ command, args, options, child });
    onSpawn?.(child);
    return child as unknown as ChildProcess;
  };
  return { spawn, calls };
}

export const exitWith =
  (code: number, stdout = "", stderr = "") =>
  (child: FakeChild) => {
    setTimeout(() => {
      if (stdout) child.stdout.write(stdout);
      if (stderr) child.stderr.write(stderr);
      child.emit("exit", code, null);
      child.emit("close", code, null);
    }, 0);
  };
