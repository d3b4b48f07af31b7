/**
 * Self-uninstall's delayed removal for real (spec: "Self-uninstall",
 * Windows; Windows CI job only: `npx vitest run --config
 * test/windows/vitest.config.ts`; fails off Windows instead of skipping).
 * scheduleWindowsRemoval's real adapter (cmd.exe's start, a hidden Windows
 * PowerShell, the fixed script with its paths as environment data) works on
 * a temporary prefix whose name holds the characters cmd.exe and PowerShell
 * read as syntax. The process it waits for is a copy of node.exe run from the
 * prefix itself, so its image cannot be deleted while it runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterAll, describe, expect, it } from "vitest";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { CMD_MARKER, ensureLauncher } from "../../src/install/launcher";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT } from "../../src/install/windows-private/rule";
import { startDetachedPowerShell } from "../../src/io/powershell";
import { type WaitFor, windowsRemovalPlan, windowsRemovalScheduler } from "../../src/commands/self-uninstall/windows-removal";
import { pinnedNode } from "../support/toolchain";

function requireWindows(): void {
  if (process.platform !== "win32") throw new Error(`test/windows needs Windows (cmd.exe, Windows PowerShell); this is ${process.platform}`);
}

const made: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill();
  for (const dir of made) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `done` holds, for at most 90 seconds (a bound, not a measurement). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 360; i++) {
    if (done()) return;
    await sleep(250);
  }
  throw new Error(`the delayed removal never got to: ${what}`);
}

/** A prefix as the install leaves it once self-uninstall removed the rest: node.exe (a real copy), the launcher, the marker. */
async function prefix(): Promise<{ layout: Layout; local: string }> {
  const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "gss-win-removal-")));
  made.push(base);
  const home = join(base, "Ana María & 100% (x) !bang^, $(x) 'q'");
  const local = join(home, "AppData", "Local");
  const layout = prefixLayout({ home, platform: "win32", pins: productionPins, windowsPrefix: join(local, "gentle-shell") });
  await fs.mkdir(layout.nodeDir, { recursive: true });
  await fs.copyFile(await pinnedNode(), layout.node);
  await ensureLauncher(layout);
  await fs.writeFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), WINDOWS_PREFIX_MARKER_TEXT);
  await fs.writeFile(join(local, "not-ours.txt"), "the user's\n");
  return { layout, local };
}

/** node.exe from the prefix, running until killed. */
function runFromPrefix(layout: Layout): { child: ChildProcess; waitFor: WaitFor } {
  const startedMs = Date.now();
  const child = spawn(layout.node, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", windowsHide: true });
  children.push(child);
  if (child.pid === undefined) throw new Error("node.exe from the prefix did not start");
  return { child, waitFor: { pid: child.pid, startedMs } };
}

const facts = (layout: Layout, prefixMayGo: boolean) => ({
  launcher: { holds: CMD_MARKER },
  marker: { path: join(layout.prefix, WINDOWS_PREFIX_MARKER), holds: WINDOWS_PREFIX_MARKER_TEXT.trimEnd() },
  prefixMayGo,
});

/** The real removal scheduled for a node.exe from the prefix that has already exited (so it starts at once). */
async function scheduleAfterExit(layout: Layout): Promise<void> {
  const { child, waitFor } = runFromPrefix(layout);
  child.kill();
  await new Promise((r) => child.once("exit", r));
  await windowsRemovalScheduler(
    (script, data) => startDetachedPowerShell(script, data, { env: process.env }),
    waitFor,
  )(windowsRemovalPlan(layout, facts(layout, true)));
}

describe("scheduleWindowsRemoval on Windows", () => {
  it("waits for the process, then removes node.exe, the launcher, the marker, the empty folders and the prefix, and nothing beside it", async () => {
    requireWindows();
    const { layout, local } = await prefix();
    const { child, waitFor } = runFromPrefix(layout);
    const schedule = windowsRemovalScheduler((script, data) => startDetachedPowerShell(script, data, { env: process.env }), waitFor);
    await schedule(windowsRemovalPlan(layout, facts(layout, true)));
    // While the process runs, nothing goes, not even the launcher (which could).
    await sleep(3000);
    expect(existsSync(layout.launcher)).toBe(true);
    expect(existsSync(join(layout.prefix, WINDOWS_PREFIX_MARKER))).toBe(true);
    child.kill();
    await until(() => !existsSync(layout.prefix), "the prefix");
    expect(await fs.readdir(local)).toEqual(["not-ours.txt"]);
  });

  it("keeps a folder that is not empty, and the prefix with it; the files still go", async () => {
    requireWindows();
    const { layout } = await prefix();
    await fs.writeFile(join(layout.bin, "my-tool.cmd"), "@ECHO mine\r\n");
    await scheduleAfterExit(layout);
    await until(() => !existsSync(layout.runtime), "runtime/");
    await until(() => !existsSync(join(layout.prefix, WINDOWS_PREFIX_MARKER)), "the marker");
    expect(existsSync(layout.launcher)).toBe(false);
    expect(await fs.readdir(layout.prefix)).toEqual(["bin"]);
    expect(await fs.readdir(layout.bin)).toEqual(["my-tool.cmd"]);
  });

  it("stops at a launcher that no longer holds our line: it, the marker and the folders stay, so self-uninstall can be retried", async () => {
    requireWindows();
    const { layout } = await prefix();
    await fs.writeFile(layout.launcher, "@ECHO OFF\r\nECHO the user's now\r\n");
    await scheduleAfterExit(layout);
    await until(() => !existsSync(layout.node), "node.exe");
    // Had it gone on, runtime/ would be gone in the same moment.
    await sleep(3000);
    expect(existsSync(layout.nodeDir)).toBe(true);
    expect(await fs.readFile(layout.launcher, "utf8")).toBe("@ECHO OFF\r\nECHO the user's now\r\n");
    expect(await fs.readFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
  });

  it("never removes a junction where a folder was planned, nor anything through it", async () => {
    requireWindows();
    const { layout, local } = await prefix();
    const target = join(local, "precious");
    await fs.mkdir(target);
    // Our very launcher, moved behind a junction: still never removed through it.
    await fs.rename(layout.launcher, join(target, "gentle-shell.cmd"));
    await fs.rm(layout.bin, { recursive: true });
    await fs.symlink(target, layout.bin, "junction");
    await scheduleAfterExit(layout);
    await until(() => !existsSync(layout.node), "node.exe");
    // The launcher's path lies below the junction: the removal stops there, as it does at a file it cannot remove.
    await sleep(3000);
    expect((await fs.lstat(layout.bin)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(join(target, "gentle-shell.cmd"), "utf8")).toContain(CMD_MARKER);
    expect(existsSync(layout.nodeDir)).toBe(true);
    expect(await fs.readFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
  });
});
