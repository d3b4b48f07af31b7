import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { isWithin, prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { activateVersion, pruneVersions } from "../../src/install/activate";
import { acquireInstallLock } from "../../src/install/lock";
import { claimPrefix } from "../../src/install/claim";
import { has, requires, setImmutable } from "../support/capabilities";

// The layout this machine's installs have: current is a relative link on POSIX, a pointer file on Windows.
const machine: Platform = process.platform === "win32" ? "win32" : "linux";

let root: string;
let layout: Layout;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "gss-prefix-"));
  layout = prefixLayout({ home: root, platform: machine, pins: productionPins });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function version(id: string, marker: string | null = id) {
  const dir = join(layout.versions, id);
  await fs.mkdir(dir, { recursive: true });
  if (marker !== null) await fs.writeFile(join(dir, ".gentle-shell-version"), marker + "\n");
}

/** current as this layout's installs write it, naming `id`, with no activation recorded. */
async function setCurrent(id: string) {
  if (layout.platform === "win32") await fs.writeFile(layout.current, `${id}\n`);
  else await fs.symlink(`versions/${id}`, layout.current);
}

/** What current holds: the link's target on POSIX, the pointer file's text on Windows. */
async function currentText(): Promise<string> {
  return layout.platform === "win32" ? fs.readFile(layout.current, "utf8") : fs.readlink(layout.current);
}
const names = (id: string) => (layout.platform === "win32" ? `${id}\n` : `versions/${id}`);

describe("pruneVersions(layout, 2)", () => {
  it("keeps the active version and the most recently activated other one", async () => {
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0"]) {
      await version(id);
      await activateVersion(layout, id);
    }
    const r = await pruneVersions(layout, 2);
    expect(r.kept).toEqual(["4.2.0-1.6.0", "4.1.0-1.6.0"]);
    expect(r.deleted).toEqual(["4.0.0-1.6.0"]);
    expect((await fs.readdir(layout.versions)).sort()).toEqual(["4.1.0-1.6.0", "4.2.0-1.6.0"]);
    expect(await fs.readFile(layout.history, "utf8")).toBe("4.2.0-1.6.0\n4.1.0-1.6.0\n");
  });

  it("after a rollback keeps the version rolled back to and the one before", async () => {
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0", "4.1.0-1.6.0"]) {
      await version(id);
      await activateVersion(layout, id);
    }
    expect((await pruneVersions(layout, 2)).deleted).toEqual(["4.0.0-1.6.0"]);
  });

  it("deletes nothing unless current names an installed version", async () => {
    await version("4.0.0-1.6.0");
    await version("4.1.0-1.6.0");
    expect((await pruneVersions(layout, 2)).deleted).toEqual([]);
    await setCurrent("9.9.9-1.6.0");
    expect((await pruneVersions(layout, 2)).deleted).toEqual([]);
    await fs.rm(layout.current);
    await version("5.0.0-1.6.0", "installing 5.0.0-1.6.0 1");
    await setCurrent("5.0.0-1.6.0");
    expect((await pruneVersions(layout, 2)).deleted).toEqual([]);
    expect((await fs.readdir(layout.versions)).length).toBe(3);
  });

  it("never deletes an unfinished install or a folder without our marker", async () => {
    await version("3.0.0-1.6.0", null);
    await version("3.5.0-1.6.0", "installing 3.5.0-1.6.0 999999");
    await version("3.9.0-1.6.0", "something else");
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0"]) {
      await version(id);
      await activateVersion(layout, id);
    }
    expect((await pruneVersions(layout, 2)).deleted).toEqual(["4.0.0-1.6.0"]);
    expect((await fs.readdir(layout.versions)).sort()).toEqual(["3.0.0-1.6.0", "3.5.0-1.6.0", "3.9.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0"]);
  });

  it("never deletes a link in versions, nor what it leads to", async (ctx) => {
    requires(ctx, "symlinks");
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0"]) {
      await version(id);
      await activateVersion(layout, id);
    }
    const outside = join(root, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, ".gentle-shell-version"), "3.1.0-1.6.0\n");
    await fs.symlink(outside, join(layout.versions, "3.1.0-1.6.0"));
    expect((await pruneVersions(layout, 2)).deleted).toEqual(["4.0.0-1.6.0"]);
    expect((await fs.readdir(layout.versions)).sort()).toEqual(["3.1.0-1.6.0", "4.1.0-1.6.0", "4.2.0-1.6.0"]);
    expect(await fs.readFile(join(outside, ".gentle-shell-version"), "utf8")).toBe("3.1.0-1.6.0\n");
  });
});

describe("activateVersion", () => {
  it("refuses a versions.history that is not a file before current switches", async () => {
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0"]) await version(id);
    await activateVersion(layout, "4.0.0-1.6.0");
    await fs.rm(layout.history);
    await fs.mkdir(layout.history);
    await expect(activateVersion(layout, "4.1.0-1.6.0")).rejects.toThrow(
      /versions\.history is not a file made by gentle-shell-setup; current was not switched/,
    );
    expect(await currentText()).toBe(names("4.0.0-1.6.0"));
  });

  it("switches current back when the history cannot be written after the switch", async (ctx) => {
    requires(ctx, "immutable-files");
    for (const id of ["4.0.0-1.6.0", "4.1.0-1.6.0"]) await version(id);
    await activateVersion(layout, "4.0.0-1.6.0");
    // A history file nothing may replace: the switch itself works, the write after it cannot replace the file.
    expect(setImmutable(layout.history, true)).toBe(true);
    try {
      await expect(activateVersion(layout, "4.1.0-1.6.0")).rejects.toThrow(/versions\.history could not be written \(EPERM\); current was left as it was/);
      expect(await currentText()).toBe(names("4.0.0-1.6.0"));
      expect(await fs.readFile(layout.history, "utf8")).toBe("4.0.0-1.6.0\n");
      expect((await fs.readdir(layout.prefix)).filter((n) => n.includes(".tmp-"))).toEqual([]);
    } finally {
      setImmutable(layout.history, false);
    }
  });
});

describe("one installer at a time", () => {
  beforeEach(async () => {
    await fs.mkdir(layout.prefix, { recursive: true });
  });

  it("a second installer waits, then stops with a clear message", async () => {
    const first = await acquireInstallLock(layout, 1000);
    let waitedFor = 0;
    await expect(acquireInstallLock(layout, 300, (pid) => (waitedFor = pid))).rejects.toThrow(
      new RegExp(`another gentle-shell-setup \\(process ${process.pid}\\) is working in this Gentle Shell folder`),
    );
    expect(waitedFor).toBe(process.pid);
    await first.release();
    const second = await acquireInstallLock(layout, 300);
    await second.release();
    await expect(fs.stat(layout.lock)).rejects.toThrow();
  });

  it("takes over the stale lock of a dead process", async () => {
    const dead = spawn(process.execPath, ["-e", "0"]);
    const pid = await new Promise<number>((resolve) => dead.on("exit", () => resolve(dead.pid!)));
    await fs.writeFile(layout.lock, `${pid}\n`);
    const lock = await acquireInstallLock(layout, 300);
    expect((await fs.readFile(layout.lock, "utf8")).split(" ")[0]).toBe(String(process.pid));
    await lock.release();
  });

  it("of many installers racing for a stale lock, exactly one holds it", async () => {
    await fs.writeFile(layout.lock, "999999999\n");
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => acquireInstallLock(layout, 200)));
    // All in one process share a pid, so the first to create the file wins and the rest wait and give up.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("claiming the prefix", () => {
  it("creates ~/.gentle-shell and the agent home 0700 whatever the umask", async () => {
    const old = process.umask(0o000);
    try {
      await claimPrefix(layout);
    } finally {
      process.umask(old);
    }
    expect((await fs.lstat(layout.prefix)).isDirectory()).toBe(true);
    expect((await fs.lstat(layout.agent)).isDirectory()).toBe(true);
    if (has("posix-modes")) {
      expect((await fs.stat(layout.prefix)).mode & 0o777).toBe(0o700);
      expect((await fs.stat(layout.agent)).mode & 0o777).toBe(0o700);
    }
  });

  it("sets an existing group-writable prefix to 0700, the mode the plan prints (test/unit/claim.test.ts: what lies inside)", async (ctx) => {
    requires(ctx, "posix-modes");
    await fs.mkdir(layout.prefix);
    await fs.chmod(layout.prefix, 0o775);
    expect(await claimPrefix(layout)).toBe("already there; mode 0700 set");
    expect((await fs.stat(layout.prefix)).mode & 0o777).toBe(0o700);
  });

  it("refuses a link and changes nothing", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(join(root, "real"));
    await fs.symlink(join(root, "real"), layout.prefix);
    await expect(claimPrefix(layout)).rejects.toThrow(/is a link; it must be a real folder/);
    expect((await fs.lstat(layout.prefix)).isSymbolicLink()).toBe(true);
    expect(await fs.readdir(join(root, "real"))).toEqual([]);
  });

  it("refuses a non-folder and changes nothing", async () => {
    await fs.writeFile(layout.prefix, "x");
    await expect(claimPrefix(layout)).rejects.toThrow(/is not a folder/);
    expect(await fs.readFile(layout.prefix, "utf8")).toBe("x");
  });

  it("refuses another owner's folder", async (ctx) => {
    requires(ctx, "owners");
    await fs.mkdir(layout.prefix);
    await fs.chown(layout.prefix, 12345, 12345);
    await expect(claimPrefix(layout)).rejects.toThrow(/belongs to another user \(uid 12345\)/);
  });
});

describe("isWithin", () => {
  it("is true for the folder itself and what lies inside it, with either separator", () => {
    expect(isWithin("/h/.gentle-shell", "/h/.gentle-shell")).toBe(true);
    expect(isWithin("/h/.gentle-shell", "/h/.gentle-shell/bin/gentle-shell")).toBe(true);
    expect(isWithin("C:\\Users\\a\\gs", "C:\\Users\\a\\gs\\bin")).toBe(true);
  });
  it("is false for a sibling that shares a prefix, a parent, and another drive", () => {
    expect(isWithin("/h/.gentle-shell", "/h/.gentle-shell-old/bin")).toBe(false);
    expect(isWithin("/h/.gentle-shell", "/h")).toBe(false);
    expect(isWithin("C:/Users/a", "D:/Users/a/x")).toBe(false);
  });
});
