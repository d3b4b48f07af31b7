/**
 * A runtime's file record (issue 41): the pure text and comparison
 * (src/core/file-record.ts), then a folder recorded and checked again
 * (src/io/file-tree.ts, src/install/runtime/file-record.ts): a byte changed,
 * a file gone or resized, a link retargeted are named; files the record does
 * not hold are not; a folder without a record, or with a record of a later
 * version, is checked for presence only; a damaged record is unreadable.
 * Modes (issue 47, item 3): recorded where the file system keeps them, and a
 * file whose permissions changed (chmod -x on node) is named; a record
 * deleted from a folder whose marker says one was written is told apart.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { compareFileRecord, differencesPhrase, parseFileRecord, serializeFileRecord, type Observed, type RecordedEntry } from "../../src/core/file-record";
import { checkFileRecord, RECORDED_LINE, writeFileRecord } from "../../src/install/runtime/file-record";
import { RUNTIME_FILES, RUNTIME_MARKER } from "../../src/install/runtime/marker";
import { requires } from "../support/capabilities";
import { scratchDir } from "../support/scratch";
import { withMode } from "../support/modes";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const file = (path: string, text: string): RecordedEntry => ({ path, size: Buffer.byteLength(text), sha256: sha(text) });
const seen = (text: string, mode = 0o644): Observed => ({ kind: "file", size: Buffer.byteLength(text), sha256: sha(text), mode });

describe("the record's text", () => {
  it("is the same bytes whatever the order it was given in, and reads back to the same entries", () => {
    const entries = [file("lib/b.js", "b"), { path: "bin/npm", link: "../lib/npm-cli.js" }, file("bin/node", "node")];
    const text = serializeFileRecord(entries);
    expect(serializeFileRecord([...entries].reverse())).toBe(text);
    expect(text.split("\n")[0]).toBe('{"record":"gentle-shell-files","version":1,"entries":[');
    const parsed = parseFileRecord(text);
    expect(parsed).toEqual({ kind: "record", entries: [entries[2], entries[1], entries[0]] });
  });

  it("a later version is newer; anything else but a whole record is unreadable", () => {
    expect(parseFileRecord('{"record":"gentle-shell-files","version":2,"whatever":true}')).toEqual({ kind: "newer", version: 2 });
    const entry = (e: unknown) => JSON.stringify({ record: "gentle-shell-files", version: 1, entries: [e] });
    for (const text of [
      "",
      "{",
      "[]",
      '{"record":"something-else","version":1,"entries":[]}',
      '{"record":"gentle-shell-files","version":0,"entries":[]}',
      '{"record":"gentle-shell-files","version":1}',
      entry({ path: "../outside", size: 1, sha256: sha("x") }),
      entry({ path: "/etc/passwd", size: 1, sha256: sha("x") }),
      entry({ path: "a//b", size: 1, sha256: sha("x") }),
      entry({ path: "a\\b", size: 1, sha256: sha("x") }),
      entry({ path: "bin/node", size: -1, sha256: sha("x") }),
      entry({ path: "bin/node", size: 1, sha256: "not-a-hash" }),
      entry({ path: "bin/node" }),
      entry({ path: "bin/node", size: 1, sha256: sha("x"), mode: 755 }),
      entry({ path: "bin/node", size: 1, sha256: sha("x"), mode: "rwx" }),
      entry({ path: "bin/node", size: 1, sha256: sha("x"), mode: "1755" }),
      JSON.stringify({ record: "gentle-shell-files", version: 1, entries: [file("a", "1"), file("a", "1")] }),
    ])
      expect(parseFileRecord(text), text).toEqual({ kind: "unreadable" });
  });
});

describe("comparing a record with what the folder holds now", () => {
  const entries: RecordedEntry[] = [file("bin/node", "node"), file("lib/a.js", "a"), file("lib/b.js", "bb"), { path: "bin/npm", link: "../lib/a.js" }];

  it("nothing differs when every recorded path holds what was recorded; paths it does not record are not looked at", () => {
    const now = new Map<string, Observed>([
      ["bin/node", seen("node")],
      ["lib/a.js", seen("a")],
      ["lib/b.js", seen("bb")],
      ["bin/npm", { kind: "link", target: "../lib/a.js" }],
      ["lib/added-by-user.js", seen("mine")],
    ]);
    expect(compareFileRecord(entries, now)).toEqual([]);
  });

  it("names other bytes of the same size, another size, a file gone, a link retargeted and a file turned into something else", () => {
    const now = new Map<string, Observed>([
      ["bin/node", seen("nodf")],
      ["lib/a.js", { kind: "other" }],
      ["lib/b.js", { kind: "file", size: 3, sha256: null, mode: 0o644 }],
      ["bin/npm", { kind: "link", target: "elsewhere" }],
    ]);
    const differences = compareFileRecord(entries, now);
    expect(differences).toEqual([
      { path: "bin/node", what: "bytes" },
      { path: "lib/a.js", what: "type" },
      { path: "lib/b.js", what: "size" },
      { path: "bin/npm", what: "link" },
    ]);
    expect(compareFileRecord(entries, new Map()).map((d) => d.what)).toEqual(["missing", "missing", "missing", "missing"]);
    expect(differencesPhrase(differences.slice(0, 1))).toBe("bin/node has other bytes");
    expect(differencesPhrase(differences)).toBe("bin/node has other bytes, lib/a.js is no longer what was extracted, lib/b.js changed size and 1 more");
  });
});

describe("a runtime folder recorded, then checked", () => {
  async function runtimeFolder(): Promise<string> {
    const dir = join(scratchDir("gss-file-record-"), "node-1.0.0");
    await fs.mkdir(join(dir, "bin"), { recursive: true });
    await fs.mkdir(join(dir, "lib", "npm"), { recursive: true });
    withMode(join(dir, "bin", "node"), Buffer.alloc(3 * 1024 * 1024 + 17, 7), 0o755);
    await fs.writeFile(join(dir, "lib", "npm", "cli.js"), "console.log(1)\n");
    await fs.writeFile(join(dir, "lib", "npm", "empty"), "");
    await fs.symlink("../lib/npm/cli.js", join(dir, "bin", "npm"));
    await fs.writeFile(join(dir, RUNTIME_MARKER), "node 1.0.0\n");
    await writeFileRecord(dir);
    return dir;
  }

  it("records every file and link but the marker and itself, and finds them as recorded", async (ctx) => {
    requires(ctx, "symlinks");
    const dir = await runtimeFolder();
    const parsed = parseFileRecord(await fs.readFile(join(dir, RUNTIME_FILES), "utf8"));
    expect(parsed.kind === "record" && parsed.entries.map((e) => e.path)).toEqual(["bin/node", "bin/npm", "lib/npm/cli.js", "lib/npm/empty"]);
    expect(await checkFileRecord(dir)).toEqual({ kind: "checked", files: 4, differences: [] });
    // Files added after publishing (npm's entry, a cache) are not breakage.
    await fs.mkdir(join(dir, "gentle-shell"));
    await fs.writeFile(join(dir, "gentle-shell", "npm"), "entry\n");
    expect(await checkFileRecord(dir)).toEqual({ kind: "checked", files: 4, differences: [] });
  });

  it("one byte of the executable changed, a file gone, another resized, a link retargeted: each named", async (ctx) => {
    requires(ctx, "symlinks");
    const dir = await runtimeFolder();
    const handle = await fs.open(join(dir, "bin", "node"), "r+");
    await handle.write(Buffer.from([8]), 0, 1, 2 * 1024 * 1024 + 5);
    await handle.close();
    expect(await checkFileRecord(dir)).toEqual({ kind: "checked", files: 4, differences: [{ path: "bin/node", what: "bytes" }] });
    await fs.rm(join(dir, "lib", "npm", "cli.js"));
    await fs.writeFile(join(dir, "lib", "npm", "empty"), "x");
    await fs.rm(join(dir, "bin", "npm"));
    await fs.symlink("elsewhere", join(dir, "bin", "npm"));
    expect(await checkFileRecord(dir)).toMatchObject({
      differences: [
        { path: "bin/node", what: "bytes" },
        { path: "bin/npm", what: "link" },
        { path: "lib/npm/cli.js", what: "missing" },
        { path: "lib/npm/empty", what: "size" },
      ],
    });
  });

  it("a mode is written in octal and read back; a record without modes compares none, one with them names a changed one", () => {
    const withMode: RecordedEntry = { ...file("bin/node", "node"), mode: 0o755 };
    const text = serializeFileRecord([withMode, file("lib/a.js", "a")]);
    expect(text).toContain('{"path":"bin/node","size":4,"sha256":"' + sha("node") + '","mode":"755"}');
    expect(parseFileRecord(text)).toEqual({ kind: "record", entries: [withMode, file("lib/a.js", "a")] });
    const now = new Map<string, Observed>([
      ["bin/node", seen("node", 0o644)],
      ["lib/a.js", seen("a", 0o600)],
    ]);
    expect(compareFileRecord([withMode, file("lib/a.js", "a")], now)).toEqual([{ path: "bin/node", what: "mode" }]);
    expect(differencesPhrase([{ path: "bin/node", what: "mode" }])).toBe("bin/node has other permissions");
    // Sizes only (bytes not read): a file of the recorded size passes on its size, type and mode.
    expect(compareFileRecord([file("lib/a.js", "a")], new Map<string, Observed>([["lib/a.js", { kind: "file", size: 1, sha256: null, mode: 0o644 }]]))).toEqual(
      [],
    );
  });

  it("records modes when asked, names chmod -x on the executable, and compares sizes without reading bytes when asked", async (ctx) => {
    requires(ctx, "posix-modes");
    const dir = await runtimeFolder();
    await writeFileRecord(dir, { modes: true });
    const parsed = parseFileRecord(await fs.readFile(join(dir, RUNTIME_FILES), "utf8"));
    expect(parsed.kind === "record" && parsed.entries.find((e) => e.path === "bin/node")).toMatchObject({ mode: 0o755 });
    await fs.chmod(join(dir, "bin", "node"), 0o644);
    expect(await checkFileRecord(dir)).toEqual({ kind: "checked", files: 4, differences: [{ path: "bin/node", what: "mode" }] });
    await fs.chmod(join(dir, "bin", "node"), 0o755);
    const handle = await fs.open(join(dir, "bin", "node"), "r+");
    await handle.write(Buffer.from([8]), 0, 1, 5);
    await handle.close();
    expect(await checkFileRecord(dir)).toEqual({ kind: "checked", files: 4, differences: [{ path: "bin/node", what: "bytes" }] });
    expect(await checkFileRecord(dir, { hash: false })).toEqual({ kind: "checked", files: 4, differences: [] });
  });

  it("a record deleted from a folder whose marker says one was written is deleted, not unrecorded", async () => {
    const dir = await runtimeFolder();
    await fs.writeFile(join(dir, RUNTIME_MARKER), `node 1.0.0\n${RECORDED_LINE}\n`);
    expect(await checkFileRecord(dir)).toMatchObject({ kind: "checked" });
    await fs.rm(join(dir, RUNTIME_FILES));
    expect(await checkFileRecord(dir)).toEqual({ kind: "deleted" });
  });

  it("no record: presence only; a later version's: presence only; a damaged one: unreadable", async () => {
    const dir = await runtimeFolder();
    const record = join(dir, RUNTIME_FILES);
    await fs.writeFile(record, '{"record":"gentle-shell-files","version":9,"entries":[]}\n');
    expect(await checkFileRecord(dir)).toEqual({ kind: "newer" });
    await fs.writeFile(record, '{"record":"gentle-shell-files","version":1,"entries":[\n');
    expect(await checkFileRecord(dir)).toEqual({ kind: "unreadable" });
    await fs.rm(record);
    expect(await checkFileRecord(dir)).toEqual({ kind: "unrecorded" });
  });
});
