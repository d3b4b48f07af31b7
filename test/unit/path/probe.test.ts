// Gathering the PATH entry's facts on a real file system in a temp home
// (spec: "PATH", "Manual").
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { execFileSync } from "node:child_process";
import { join, resolve } from "pathe";
import { has, requires } from "../../support/capabilities";
import { probeFile } from "../../../src/path/probe";
import { home, root } from "./temp-home";

describe("probeFile", () => {
  it("a regular file: its content and whether this user may write it", () => {
    fs.writeFileSync(join(home, ".bashrc"), "x\n");
    expect(probeFile(join(home, ".bashrc"), home)).toEqual({ path: join(home, ".bashrc"), node: "file", linkedFolder: null, writable: true, content: "x\n" });
  });
  it("a 0444 file is not writable, for root too", () => {
    fs.writeFileSync(join(home, ".zshrc"), "x\n", { mode: 0o444 });
    expect(probeFile(join(home, ".zshrc"), home).writable).toBe(false);
  });
  it("a symlink: its target, and its content read through it", (ctx) => {
    requires(ctx, "symlinks");
    fs.writeFileSync(join(root, "real"), "y\n");
    fs.symlinkSync(join(root, "real"), join(home, ".bashrc"));
    const facts = probeFile(join(home, ".bashrc"), home);
    expect(facts).toMatchObject({ node: "link", linkTarget: fs.readlinkSync(join(home, ".bashrc")), content: "y\n" });
    // readlink gives Windows' backslashes there; the target is the file we linked.
    expect(resolve(facts.linkTarget ?? "")).toBe(join(root, "real"));
  });
  it("a file below a linked folder", (ctx) => {
    requires(ctx, "symlinks");
    fs.mkdirSync(join(root, "dots"));
    fs.writeFileSync(join(root, "dots", ".zshrc"), "z\n");
    fs.symlinkSync(join(root, "dots"), join(home, "zdot"));
    expect(probeFile(join(home, "zdot", ".zshrc"), home)).toMatchObject({ node: "file", linkedFolder: join(home, "zdot"), writable: false, content: "z\n" });
  });
  it("an absent file under missing folders: writable when the deepest existing folder is", () => {
    expect(probeFile(join(home, ".config/fish/conf.d/gentle-shell.fish"), home)).toMatchObject({ node: "absent", linkedFolder: null, writable: true });
    // A folder's mode bits are only kept where POSIX modes are (Windows ignores them on folders).
    if (has("posix-modes")) {
      fs.chmodSync(home, 0o555);
      try {
        expect(probeFile(join(home, ".config/fish/conf.d/gentle-shell.fish"), home).writable).toBe(false);
      } finally {
        fs.chmodSync(home, 0o755);
      }
    }
  });
  it("a link to a FIFO or to /dev/zero is not read (no hang, no flood)", (ctx) => {
    requires(ctx, "symlinks", "fifos");
    execFileSync("mkfifo", [join(root, "fifo")]);
    fs.symlinkSync(join(root, "fifo"), join(home, ".bashrc"));
    expect(probeFile(join(home, ".bashrc"), home)).toMatchObject({ node: "link", content: null });
    fs.symlinkSync("/dev/zero", join(home, ".zshrc"));
    expect(probeFile(join(home, ".zshrc"), home)).toMatchObject({ node: "link", content: null });
  });
  it("a folder in place of the file", () => {
    fs.mkdirSync(join(home, ".profile"));
    expect(probeFile(join(home, ".profile"), home).node).toBe("other");
  });
});
