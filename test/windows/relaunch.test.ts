/**
 * Reopening the new Shell on Windows after the startup offer's Update now
 * (Windows CI job only: `npx vitest run --config test/windows/vitest.config.ts`;
 * fails off Windows instead of skipping). Windows has no execve, so the real
 * adapter runs cmd.exe on a real .cmd launcher, in a folder whose name holds
 * the characters cmd.exe would otherwise read as syntax, with stdin and
 * stdout inherited, and passes the launcher's exit code on.
 */
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildRelaunchDriver } from "../support/relaunch-driver";

function requireWindows(): void {
  if (process.platform !== "win32") throw new Error(`test/windows needs Windows (cmd.exe); this is ${process.platform}`);
}

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

async function scratch(): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "gss-win-relaunch-")));
  made.push(dir);
  return dir;
}

// The launcher checks that the hand-over variable names it, reads a line from its stdin, and exits 7.
const LAUNCHER = [
  "@ECHO OFF",
  "SETLOCAL DisableDelayedExpansion",
  'IF /I NOT "%GENTLE_SHELL_STARTUP_HANDOFF%"=="%~f0" EXIT /B 97',
  "SET /P LINE=",
  "ECHO got %LINE% args %*",
  "ECHO to stderr 1>&2",
  "EXIT /B 7",
  "",
].join("\r\n");

describe("the relaunch on Windows", () => {
  it("runs the new .cmd launcher through cmd.exe with inherited stdio and the original arguments, and exits with its code", async () => {
    requireWindows();
    const dir = await scratch();
    const driver = buildRelaunchDriver(dir);
    const bin = join(dir, "Ana María & 100% (x) !bang^", "bin");
    await fs.mkdir(bin, { recursive: true });
    const launcher = join(bin, "gentle-shell.cmd");
    await fs.writeFile(launcher, LAUNCHER);
    const r = spawnSync(process.execPath, [driver, "win32", launcher, "--continue"], { input: "typed\r\n", encoding: "utf8" });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 7, stdout: "got typed args --continue\r\n", stderr: "to stderr \r\n" });
  });

  it("a launcher that is gone: cmd.exe says so and its failure code is passed on", async () => {
    requireWindows();
    const dir = await scratch();
    const driver = buildRelaunchDriver(dir);
    const r = spawnSync(process.execPath, [driver, "win32", join(dir, "gone", "gentle-shell.cmd")], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.status).not.toBe(99);
    expect(r.stderr.trim()).not.toBe("");
  });
});
