/**
 * doctor's checks that issue 41's break set left without a break test
 * (issue 47, item 3): the Engram guard edited, missing and foreign; a
 * `.break` file of the installers' lock left by a gone process; the memory
 * migration's marker; a second gentle-shell on PATH that comes before ours.
 * Each break is named once with its repair; `--fix` repairs exactly what is
 * ours (the guard, the `.break` file) and leaves the rest as it is, named
 * with its command; a second `--fix` changes nothing.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
/** No process has this id (above Linux's pid_max). */
const GONE = 99_999_999;

function doctor(i: Installed, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return runCommand(f.binary!, ["doctor", ...args], { env: { ...i.env, ENGRAM_STARTUP_POLICY: "disabled", ...env }, cwd: i.home });
}
const repairs = (stdout: string) => stdout.split("\n").filter((l) => l.startsWith("repaired: "));

describe("the Engram guard", () => {
  it("edited or missing: broken, and --fix writes it again, byte for byte; a second --fix changes nothing", async () => {
    const i = await installed(f);
    const guard = join(i.prefix, "bin", "engram-guard");
    const original = await fs.readFile(guard);
    const healthy = await treeSnapshot(i.root);
    for (const [state, breakIt] of [
      ["edited", () => fs.appendFile(guard, "echo edited by hand\n")],
      ["missing", () => fs.rm(guard)],
    ] as const) {
      await breakIt();
      const told = await doctor(i);
      expect(told.code, told.stdout + told.stderr).toBe(1);
      expect(told.stdout).toContain(
        `  broken the Engram guard ~/.gentle-shell/bin/engram-guard is ${state}\n         fix: gentle-shell-setup doctor --fix writes it again`,
      );
      const fixed = await doctor(i, ["--fix"]);
      expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
      expect(repairs(fixed.stdout)).toHaveLength(1);
      expect(await fs.readFile(guard)).toEqual(original);
      expect(await treeSnapshot(i.root)).toEqual(healthy);
      const again = await doctor(i, ["--fix"]);
      expect(repairs(again.stdout)).toEqual([]);
    }
  });

  it("a file that is not ours there: named with the command to move it, never replaced", async () => {
    const i = await installed(f);
    const guard = join(i.prefix, "bin", "engram-guard");
    await fs.writeFile(guard, "#!/bin/sh\necho my own guard\n", { mode: 0o755 });
    const r = await doctor(i, ["--fix"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  broken ~/.gentle-shell/bin/engram-guard is not Gentle Shell's Engram guard; it is never replaced");
    expect(r.stdout).toContain(
      "move it away (mv ~/.gentle-shell/bin/engram-guard ~/.gentle-shell/bin/engram-guard.old), then run gentle-shell-setup doctor --fix",
    );
    expect(await fs.readFile(guard, "utf8")).toBe("#!/bin/sh\necho my own guard\n");
  });
});

describe("leftovers", () => {
  it("the lock's .break file left by a gone process: broken, --fix removes it and nothing else", async () => {
    const i = await installed(f);
    const healthy = await treeSnapshot(i.root);
    await fs.writeFile(join(i.prefix, ".gentle-shell-setup.lock.break"), `${GONE} 00112233aabbccdd\n`);
    const told = await doctor(i);
    expect(told.code).toBe(1);
    expect(told.stdout).toContain(`  broken ~/.gentle-shell/.gentle-shell-setup.lock.break was left by process ${GONE}, which is gone`);
    const fixed = await doctor(i, ["--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(repairs(fixed.stdout)).toHaveLength(1);
    expect(await treeSnapshot(i.root)).toEqual(healthy);
  });

  it("the lock's .break file of a live process is not touched", async () => {
    const i = await installed(f);
    const breaker = join(i.prefix, ".gentle-shell-setup.lock.break");
    await fs.writeFile(breaker, `${process.pid} 00112233aabbccdd\n`);
    const fixed = await doctor(i, ["--fix"]);
    expect(fixed.stdout).not.toContain("lock.break was left");
    expect(await fs.readFile(breaker, "utf8")).toBe(`${process.pid} 00112233aabbccdd\n`);
  });

  it("an interrupted memory migration's marker: broken, with memory migrate's guidance; --fix never removes it", async () => {
    const i = await installed(f);
    const marker = join(i.prefix, "config", "engram-migration.json");
    const text = `${JSON.stringify({ schema: 1, started: "2026-12-01T00:00:00Z" })}\n`;
    await fs.writeFile(marker, text);
    const r = await doctor(i, ["--fix"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  broken an interrupted memory migration is recorded in config/engram-migration.json (memory stays off until it is resolved)");
    expect(r.stdout).toContain("run gentle-shell memory migrate to see what it records and how to roll back; do not just remove the marker");
    expect(await fs.readFile(marker, "utf8")).toBe(text);
  });
});

describe("another gentle-shell on PATH", () => {
  it("one of unknown origin before ours: broken, named by its real path, with the PATH order to change; after ours: a warning", async () => {
    const i = await installed(f);
    const other = join(i.root, "other-bin");
    await fs.mkdir(other);
    await fs.writeFile(join(other, "gentle-shell"), "#!/bin/sh\necho another\n", { mode: 0o755 });
    const bin = join(i.prefix, "bin");
    const first = await doctor(i, [], { PATH: `${other}:${bin}:${process.env.PATH}` });
    expect(first.code).toBe(1);
    expect(first.stdout).toContain(`  broken gentle-shell on PATH: ${join(other, "gentle-shell")} (installed by something else), found before ours`);
    const after = await doctor(i, [], { PATH: `${bin}:${other}:${process.env.PATH}` });
    expect(after.stdout).toContain(`  warn   gentle-shell on PATH: ${join(other, "gentle-shell")} (installed by something else)\n`);
    expect(after.stdout).not.toContain("found before ours");
  });
});
