/**
 * Files held for a moment (issue 38, Survive antivirus locks on Windows):
 * io/locked-retry.ts tries a rename, unlink, rmdir or rm again while a
 * refusal may be another program's hold (EPERM, EACCES, EBUSY on win32), with
 * growing waits of about 10 s in all, then fails with one sentence naming the
 * file. On POSIX it fails at once, as the call itself would. The Windows rule
 * runs here on any machine: a file system that refuses the first N calls,
 * and a clock that records the waits instead of waiting.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "pathe";
import { describe, expect, it } from "vitest";
import { HELD_WAIT_MS, heldSentence, heldWaits, mayBeHeld } from "../../src/core/held-file";
import { HeldError, type LockFs, type LockFsSync, type LockRules, rename, renameSync, rm, rmdir, unlink, unlinkSync } from "../../src/io/locked-retry";
import { REPO_ROOT } from "../support/paths";
import { sourceFiles } from "../support/source-files";

/** An error as node:fs throws it. */
function refusal(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: operation refused, '${path}'`), { code, path });
}

/** A file system whose every call is refused `times` times with `code` (Infinity: for good), then done; it counts the calls. */
function refusing(code: string, times: number, path?: string) {
  const calls: string[] = [];
  const answer = (name: string, target: string) => {
    calls.push(name);
    if (calls.length <= times) throw refusal(code, path ?? target);
  };
  const fs: LockFs & LockFsSync = {
    rename: async (from) => answer("rename", String(from)),
    unlink: async (p) => answer("unlink", String(p)),
    rmdir: async (p) => answer("rmdir", String(p)),
    rm: async (p) => answer("rm", String(p)),
    renameSync: (from) => answer("renameSync", from),
    unlinkSync: (p) => answer("unlinkSync", p),
  };
  return { fs, calls };
}

/** Rules for `platform` over `fs`, with a clock that only records the waits asked for. */
function rulesFor(platform: string, fs: LockFs) {
  const waits: number[] = [];
  const rules: LockRules = {
    platform,
    fs,
    sleep: async (ms) => void waits.push(ms),
    sleepSync: (ms) => void waits.push(ms),
  };
  return { rules, waits };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const file = join(REPO_ROOT, "prefix", "versions", "4.0.0-1.6.0", ".gentle-shell-version");
const dest = join(REPO_ROOT, "prefix", "current");

describe("the held-file rule", () => {
  it("tries again only on win32 and only for EPERM, EACCES and EBUSY", () => {
    for (const code of ["EPERM", "EACCES", "EBUSY"]) {
      expect(mayBeHeld("win32", code)).toBe(true);
      expect(mayBeHeld("linux", code)).toBe(false);
      expect(mayBeHeld("darwin", code)).toBe(false);
    }
    for (const code of ["ENOENT", "EEXIST", "ENOTEMPTY", "EXDEV", "EISDIR", undefined]) expect(mayBeHeld("win32", code)).toBe(false);
  });

  it("waits a little at first, longer each time up to 1 s, about 10 s in all", () => {
    const waits = heldWaits();
    expect(sum(waits)).toBe(HELD_WAIT_MS);
    expect(HELD_WAIT_MS).toBe(10_000);
    expect(waits[0]).toBeLessThanOrEqual(50);
    expect(Math.max(...waits)).toBe(1_000);
    for (let i = 1; i < waits.length - 1; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(waits.length).toBeLessThan(20);
  });

  it("says in one sentence which file, that another program holds it, and what to do", () => {
    const removal = heldSentence({ remove: file });
    expect(removal).toBe(
      `${file} could not be removed for 10 s: another program holds it (an antivirus scanner, for example); close that program, or wait a moment and run this again`,
    );
    expect(heldSentence({ rename: file, to: dest })).toContain(`${file} could not be renamed to ${dest} for 10 s: another program holds one of them`);
    expect(removal.split(/[.!?]\s/)).toHaveLength(1);
  });
});

describe("on win32 rules", () => {
  for (const code of ["EPERM", "EACCES", "EBUSY"]) {
    it(`a rename refused ${code} three times succeeds on the fourth try, after three growing waits`, async () => {
      const { fs, calls } = refusing(code, 3);
      const { rules, waits } = rulesFor("win32", fs);
      await expect(rename(file, dest, rules)).resolves.toBeUndefined();
      expect(calls).toEqual(["rename", "rename", "rename", "rename"]);
      expect(waits).toEqual(heldWaits().slice(0, 3));
    });
  }

  it("unlink, rmdir and rm are tried again the same way", async () => {
    for (const op of [
      (rules: LockRules) => unlink(file, rules),
      (rules: LockRules) => rmdir(file, rules),
      (rules: LockRules) => rm(file, { recursive: true, force: true }, rules),
    ]) {
      const { fs, calls } = refusing("EBUSY", 2);
      const { rules, waits } = rulesFor("win32", fs);
      await op(rules);
      expect(calls).toHaveLength(3);
      expect(waits).toHaveLength(2);
    }
  });

  it("a file held for good fails after the bounded wait with the one sentence naming it, keeping the refusal's code", async () => {
    const { fs, calls } = refusing("EPERM", Number.POSITIVE_INFINITY);
    const { rules, waits } = rulesFor("win32", fs);
    const error = await rename(file, dest, rules).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HeldError);
    expect((error as HeldError).message).toBe(heldSentence({ rename: file, to: dest }));
    expect((error as HeldError).code).toBe("EPERM");
    expect((error as HeldError).path).toBe(file);
    expect(sum(waits)).toBe(HELD_WAIT_MS);
    expect(calls).toHaveLength(heldWaits().length + 1);
  });

  it("a tree held for good names the entry inside it that would not go", async () => {
    const inner = join(file, "node_modules", "held.node");
    const { fs } = refusing("EBUSY", Number.POSITIVE_INFINITY, inner);
    const { rules } = rulesFor("win32", fs);
    await expect(rm(file, { recursive: true, force: true }, rules)).rejects.toThrow(heldSentence({ remove: inner }));
  });

  it("other refusals are not tried again: ENOENT, EEXIST, ENOTEMPTY fail at once, as they are", async () => {
    for (const code of ["ENOENT", "EEXIST", "ENOTEMPTY"]) {
      const { fs, calls } = refusing(code, Number.POSITIVE_INFINITY);
      const { rules, waits } = rulesFor("win32", fs);
      const error = await rename(file, dest, rules).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(HeldError);
      expect(error).toMatchObject({ code, path: file });
      expect(calls).toHaveLength(1);
      expect(waits).toEqual([]);
    }
  });

  it("the sync calls (the PATH receipt's) wait and try again too, through the caller's own file system", () => {
    const { fs, calls } = refusing("EACCES", 2);
    const { rules, waits } = rulesFor("win32", fs);
    renameSync(fs, file, dest, rules);
    expect(calls).toEqual(["renameSync", "renameSync", "renameSync"]);
    expect(waits).toEqual(heldWaits().slice(0, 2));
    const held = refusing("EBUSY", Number.POSITIVE_INFINITY);
    expect(() => unlinkSync(held.fs, file, rules)).toThrow(heldSentence({ remove: file }));
  });
});

describe("on POSIX rules", () => {
  for (const platform of ["linux", "darwin"]) {
    it(`${platform}: EPERM is a real refusal, failed at once with no wait and no other try`, async () => {
      for (const code of ["EPERM", "EACCES", "EBUSY"]) {
        const { fs, calls } = refusing(code, 1);
        const { rules, waits } = rulesFor(platform, fs);
        const error = await rename(file, dest, rules).catch((e: unknown) => e);
        expect(error).not.toBeInstanceOf(HeldError);
        expect(error).toMatchObject({ code, path: file });
        expect(calls).toEqual(["rename"]);
        expect(waits).toEqual([]);
        expect(() => unlinkSync(refusing(code, 1).fs, file, rules)).toThrow(expect.objectContaining({ code }));
        expect(waits).toEqual([]);
      }
    });
  }
});

/**
 * The helper itself, and removeTree's walk (io/remove-tree.ts), which removes
 * names relative to its working folder, so has no path to hand the helper,
 * and applies the same rule (core/held-file.ts) itself.
 */
const ALLOWED = new Set(["src/io/locked-retry.ts", "src/io/remove-tree.ts"]);
/** The calls the helper wraps, made directly: on a node:fs object, or imported by name from node:fs. */
const DIRECT = /\.(rename|unlink|rmdir|rm)(Sync)?\s*\(/;
const IMPORTED = /import\s*\{[^}]*\b(rename|unlink|rmdir|rm)(Sync)?\b[^}]*\}\s*from\s*"node:fs/;

describe("one way to rename and remove", () => {
  it("nothing in src/ renames, unlinks or removes but through io/locked-retry.ts (a script for another process, in a template string, is read past)", () => {
    const found: string[] = [];
    for (const path of sourceFiles(join(REPO_ROOT, "src"))) {
      const rel = relative(REPO_ROOT, path);
      if (ALLOWED.has(rel)) continue;
      const text = readFileSync(path, "utf8").replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``");
      if (IMPORTED.test(text)) found.push(`${rel}: imports one from node:fs`);
      text.split("\n").forEach((line, i) => {
        if (DIRECT.test(line) && !/^\s*(\*|\/\/)/.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it("the check sees a direct call where one is", () => {
    expect(DIRECT.test("await fs.rename(tmp, path);")).toBe(true);
    expect(DIRECT.test("fs.unlinkSync(receipt.path);")).toBe(true);
    expect(DIRECT.test("await fs.rm(dir, { recursive: true, force: true })")).toBe(true);
    expect(DIRECT.test("await rename(tmp, path);")).toBe(false);
    expect(IMPORTED.test('import { rm, readFile } from "node:fs/promises";')).toBe(true);
    expect(IMPORTED.test('import { lstatSync, promises as fs } from "node:fs";')).toBe(false);
  });
});
