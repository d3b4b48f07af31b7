/**
 * Staging names (spec: "Ownership rules": written aside, published with one
 * rename): they carry their owner's pid, so a later run sweeps only what an
 * installer that is gone left behind.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { publishByRename, stagingName, stagingOwner, stagingPath, sweepAbandoned, temporaryFolder } from "../../src/io/staging";
import { has, requires } from "../support/capabilities";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gss-staging-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A pid that was running a moment ago and is not any more. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

/** A process other than ours that runs until `stop` (pid 1 is no process on Windows). */
function livePid(): { pid: number; stop: () => Promise<void> } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.pid === undefined) throw new Error("could not start a live process");
  return {
    pid: child.pid,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

describe("staging names", () => {
  it("name their kind, an optional label, the owner's pid and a random part", () => {
    expect(stagingName("download")).toMatch(new RegExp(`^\\.download-${process.pid}-[0-9a-f]{8}$`));
    expect(stagingName("staging", { label: "node-24.21.0" })).toMatch(new RegExp(`^\\.staging-node-24\\.21\\.0-${process.pid}-[0-9a-f]{8}$`));
    expect(stagingName("offline-store", { ext: ".tar.gz" })).toMatch(/\.tar\.gz$/);
    expect(stagingName("download")).not.toBe(stagingName("download"));
  });

  it("give back their owner's pid, for their kinds only", () => {
    expect(stagingOwner(".staging-node-24.21.0-4242-0123abcd", ["staging"])).toBe(4242);
    expect(stagingOwner(".download-77-0123abcd", ["staging", "download"])).toBe(77);
    expect(stagingOwner(".offline-store-9-0123abcd.tar.gz", ["offline-store"])).toBe(9);
    expect(stagingOwner(".download-77-0123abcd", ["staging"])).toBeNull();
    expect(stagingOwner("node-24.21.0", ["staging", "download"])).toBeNull();
    expect(stagingOwner(".download-notapid-0123abcd", ["download"])).toBeNull();
  });
});

describe("sweepAbandoned", () => {
  it("removes only the stagings of processes that are gone, never ours or a live one's, never other names", async () => {
    const dead = deadPid();
    const live = livePid();
    try {
      const names = [
        `.staging-node-${dead}-0123abcd`,
        `.download-${dead}-89abcdef`,
        stagingName("download"),
        `.download-${live.pid}-0123abcd`,
        "node-24.21.0",
        `.other-${dead}-0123abcd`,
      ];
      for (const n of names) await fs.mkdir(join(dir, n));
      const removed = await sweepAbandoned(dir, ["staging", "download"]);
      expect(removed.sort()).toEqual([`.download-${dead}-89abcdef`, `.staging-node-${dead}-0123abcd`]);
      expect((await fs.readdir(dir)).sort()).toEqual(names.slice(2).sort());
    } finally {
      await live.stop();
    }
  });
});

describe("sweepAbandoned and links", () => {
  it("never follows a link: a dead staging that is a link loses only the link, and one holding a link keeps the link's target", async (ctx) => {
    requires(ctx, "symlinks");
    const dead = deadPid();
    const outside = join(dir, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, "keep"), "mine");
    const swept = join(dir, "swept");
    await fs.mkdir(swept);
    await fs.symlink(outside, join(swept, `.staging-node-${dead}-0123abcd`));
    await fs.mkdir(join(swept, `.download-${dead}-89abcdef`));
    await fs.symlink(outside, join(swept, `.download-${dead}-89abcdef`, "inner"));
    const removed = await sweepAbandoned(swept, ["staging", "download"]);
    expect(removed.sort()).toEqual([`.download-${dead}-89abcdef`, `.staging-node-${dead}-0123abcd`]);
    expect(await fs.readdir(swept)).toEqual([]);
    expect(await fs.readFile(join(outside, "keep"), "utf8")).toBe("mine");
  });

  it("does not sweep through a folder that is itself a link", async (ctx) => {
    requires(ctx, "symlinks");
    const dead = deadPid();
    const real = join(dir, "real");
    await fs.mkdir(join(real, `.download-${dead}-89abcdef`), { recursive: true });
    await fs.symlink(real, join(dir, "runtime"));
    expect(await sweepAbandoned(join(dir, "runtime"), ["download"])).toEqual([]);
    expect(await fs.readdir(real)).toEqual([`.download-${dead}-89abcdef`]);
  });
});

describe("temporaryFolder", () => {
  it("makes a private folder named with our pid in the system's temporary folder, after sweeping a dead run's", async () => {
    const kind = `gss-test-${process.pid}`;
    const dead = deadPid();
    const left = join(tmpdir(), `.${kind}-${dead}-0123abcd`);
    await fs.mkdir(join(left, "prefix"), { recursive: true });
    const made = await temporaryFolder(kind);
    try {
      expect(made).toMatch(new RegExp(`/\\.${kind}-${process.pid}-[0-9a-f]{8}$`));
      expect((await fs.stat(made)).isDirectory()).toBe(true);
      if (has("posix-modes")) expect((await fs.stat(made)).mode & 0o777).toBe(0o700);
      expect(existsSync(left)).toBe(false);
      // Our own folder survives the next sweep: it is ours and we are alive.
      await fs.rm(await temporaryFolder(kind), { recursive: true });
      expect(existsSync(made)).toBe(true);
    } finally {
      await fs.rm(made, { recursive: true, force: true });
      await fs.rm(left, { recursive: true, force: true });
    }
  });
});

describe("publishByRename", () => {
  it("moves a staged folder into place, and refuses when anything stands there", async () => {
    const staged = stagingPath(dir, "staging", { label: "x" });
    await fs.mkdir(staged);
    await fs.writeFile(join(staged, "f"), "1");
    await publishByRename(staged, join(dir, "x"));
    expect(await fs.readFile(join(dir, "x", "f"), "utf8")).toBe("1");
    const again = stagingPath(dir, "staging", { label: "x" });
    await fs.mkdir(again);
    await expect(publishByRename(again, join(dir, "x"))).rejects.toMatchObject({ code: "EEXIST" });
    expect(existsSync(again)).toBe(true);
  });

  it("refuses when a dangling link stands there", async (ctx) => {
    requires(ctx, "symlinks");
    const staged = stagingPath(dir, "staging", { label: "y" });
    await fs.mkdir(staged);
    await fs.symlink("/nonexistent", join(dir, "y"));
    await expect(publishByRename(staged, join(dir, "y"))).rejects.toMatchObject({ code: "EEXIST" });
    expect(existsSync(staged)).toBe(true);
  });
});
