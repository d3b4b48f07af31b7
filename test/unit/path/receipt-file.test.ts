// path-entry.json on a real file system (spec: "PATH", "Persisted receipt",
// "Reading it back").
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { join } from "pathe";
import { has, requires } from "../../support/capabilities";
import type { PathReceipt } from "../../../src/path/receipt";
import { readPathReceipt, writePathReceipt } from "../../../src/path/receipt-file";
import { fishLine } from "../../../src/path/shells";
import { env, home, layout, LINE, read, root } from "./temp-home";

describe("path-entry.json", () => {
  const receiptFor = (): Extract<PathReceipt, { kind: "profile" }> => ({
    schema: 1,
    kind: "profile",
    applied: true,
    path: join(home, ".bashrc"),
    line: LINE(),
    create: false,
    separator: "\n",
  });

  it("round trip: written 0600 (whatever the umask) with the kind's fields, read back valid", () => {
    const old = process.umask(0);
    try {
      expect(writePathReceipt(layout, receiptFor())).toBe(true);
    } finally {
      process.umask(old);
    }
    if (has("posix-modes")) expect(fs.statSync(layout.pathReceipt).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(layout.pathReceipt, "utf8"))).toEqual({
      schema: 1,
      kind: "profile",
      path: join(home, ".bashrc"),
      line: LINE(),
      create: false,
      separator: "\n",
    });
    expect(readPathReceipt(layout, env("/bin/bash"))).toEqual({ status: "valid", receipt: receiptFor() });
    expect(fs.readdirSync(layout.prefix).filter((n) => n.includes("tmp"))).toEqual([]);
  });

  it("replaced with one rename: a hard link to the old file keeps the old bytes", () => {
    writePathReceipt(layout, receiptFor());
    fs.linkSync(layout.pathReceipt, join(root, "old"));
    const oldBytes = read(join(root, "old"));
    writePathReceipt(layout, { ...receiptFor(), separator: "" });
    expect(read(join(root, "old")).equals(oldBytes)).toBe(true);
    expect(JSON.parse(fs.readFileSync(layout.pathReceipt, "utf8")).separator).toBe("");
  });

  it("only when something was applied: an applied: false receipt leaves an earlier receipt as it is", () => {
    writePathReceipt(layout, receiptFor());
    const before = read(layout.pathReceipt);
    expect(writePathReceipt(layout, { ...receiptFor(), applied: false })).toBe(false);
    expect(read(layout.pathReceipt).equals(before)).toBe(true);
  });

  it("missing, malformed", () => {
    expect(readPathReceipt(layout, {})).toEqual({ status: "missing" });
    fs.writeFileSync(layout.pathReceipt, "{ not json");
    expect(readPathReceipt(layout, {}).status).toBe("invalid");
  });

  it("a link to a receipt is invalid, and once it is gone the receipt is missing", (ctx) => {
    requires(ctx, "symlinks");
    fs.writeFileSync(
      join(root, "elsewhere.json"),
      JSON.stringify({ schema: 1, kind: "profile", path: join(home, ".bashrc"), line: LINE(), create: false, separator: "" }),
    );
    fs.symlinkSync(join(root, "elsewhere.json"), layout.pathReceipt);
    expect(readPathReceipt(layout, {})).toMatchObject({ status: "invalid", manual: null });
    fs.unlinkSync(layout.pathReceipt);
    expect(readPathReceipt(layout, {})).toEqual({ status: "missing" });
  });

  it("a receipt naming another file is refused even when that file holds our exact line, and the file is named", async () => {
    const other = join(home, ".zshenv");
    fs.writeFileSync(other, `${LINE()}\n`);
    fs.writeFileSync(layout.pathReceipt, JSON.stringify({ schema: 1, kind: "profile", path: other, line: LINE(), create: false, separator: "" }));
    const r = readPathReceipt(layout, {});
    expect(r).toMatchObject({ status: "invalid" });
    expect(r.status === "invalid" && r.manual).toContain("~/.zshenv");
    expect(fs.readFileSync(other, "utf8")).toBe(`${LINE()}\n`);
  });

  it("the fish line outside the fish file is refused", () => {
    fs.writeFileSync(
      layout.pathReceipt,
      JSON.stringify({ schema: 1, kind: "profile", path: join(home, ".bashrc"), line: fishLine(layout.bin), create: false, separator: "" }),
    );
    expect(readPathReceipt(layout, {}).status).toBe("invalid");
  });
});
