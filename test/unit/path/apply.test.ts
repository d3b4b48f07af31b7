// Applying the PATH entry and taking it back, byte for byte, on a real file
// system in a temp home (spec: "PATH", "Safe appends").
//
// These are POSIX plans (a profile line, the ~/.local/bin link) for a bin
// folder inside the temp home: they need a scratch folder that a POSIX PATH
// can name ("posix-path-scratch"; a Windows temp folder holds ":", and the
// plan is then "impossible"), and links or FIFOs where those are the subject.
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "pathe";
import { has, requires } from "../../support/capabilities";
import { underUmask, withMode } from "../../support/modes";
import { applyPathEntry, removePathEntry } from "../../../src/path/apply";
import { fishLine } from "../../../src/path/shells";
import { env, home, layout, LINE, plan, read, root } from "./temp-home";

describe("applyPathEntry and removePathEntry: byte for byte", () => {
  it("a file without a trailing newline gets one before our line, recorded as the separator, and gets its bytes back", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "alias ll='ls -l'");
    const before = read(rc);
    const p = await plan(env("/bin/bash"));
    const receipt = await applyPathEntry(p, { home });
    expect(receipt).toEqual({ schema: 1, kind: "profile", applied: true, path: rc, line: LINE(), create: false, separator: "\n" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`alias ll='ls -l'\n${LINE()}\n`);
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(read(rc).equals(before)).toBe(true);
  });

  it("a file ending in a newline: no separator, and the same inode and mode after removal", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".zshrc");
    withMode(rc, "setopt x\n", 0o640);
    const ino = fs.statSync(rc).ino;
    const receipt = await underUmask(0o077, async () => applyPathEntry(await plan(env("/usr/bin/zsh")), { home }));
    expect(receipt).toMatchObject({ separator: "", create: false });
    await underUmask(0o077, () => removePathEntry(receipt));
    expect(fs.readFileSync(rc, "utf8")).toBe("setopt x\n");
    expect(fs.statSync(rc).ino).toBe(ino);
    if (has("posix-modes")) expect(fs.statSync(rc).mode & 0o777).toBe(0o640);
  });

  it("an empty file stays an empty file", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".profile");
    fs.writeFileSync(rc, "");
    const receipt = await applyPathEntry(await plan(env("/bin/sh")), { home });
    expect(receipt).toMatchObject({ separator: "", create: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.existsSync(rc)).toBe(true);
    expect(fs.readFileSync(rc, "utf8")).toBe("");
  });

  it("a file we created (with its folders) is deleted when nothing else is left", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const path = join(home, ".config/fish/conf.d/gentle-shell.fish");
    const receipt = await applyPathEntry(await plan(env("/usr/bin/fish")), { home });
    expect(receipt).toEqual({ schema: 1, kind: "profile", applied: true, path, line: fishLine(layout.bin), create: true, separator: "" });
    expect(fs.readFileSync(path, "utf8")).toBe(fishLine(layout.bin) + "\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "removed", deleted: true });
    expect(fs.existsSync(path)).toBe(false);
  });

  it("a file we created that the user added to is kept, with only our line gone", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const path = join(home, ".bashrc");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    expect(receipt).toMatchObject({ create: true });
    fs.appendFileSync(path, "export EDITOR=vi\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.readFileSync(path, "utf8")).toBe("export EDITOR=vi\n");
  });

  it("lines the user added after ours stay; only our line goes", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    fs.appendFileSync(rc, "b\n");
    await removePathEntry(receipt);
    expect(fs.readFileSync(rc, "utf8")).toBe("a\nb\n");
  });

  it("a line the user edited is kept and named", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    const edited = fs.readFileSync(rc, "utf8").replace(":$PATH", ":$PATH:/extra");
    fs.writeFileSync(rc, edited);
    const r = await removePathEntry(receipt);
    expect(r).toEqual({
      status: "kept",
      path: rc,
      line: `export PATH="${layout.bin}:$PATH:/extra" # gentle-shell bundled install`,
      reason: "the marked line was edited",
    });
    expect(fs.readFileSync(rc, "utf8")).toBe(edited);
  });

  it("a line the user already removed: nothing to do", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    fs.writeFileSync(rc, "a\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "absent" });
    expect(fs.readFileSync(rc, "utf8")).toBe("a\n");
  });

  it("applying twice adds one line; the second receipt is applied: false and never reverted", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const stale = await plan(env("/bin/bash"));
    const first = await applyPathEntry(stale, { home });
    const second = await applyPathEntry(stale, { home });
    expect(second.applied).toBe(false);
    expect(await plan(env("/bin/bash"))).toMatchObject({ kind: "none" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`a\n${LINE()}\n`);
    expect(await removePathEntry(second)).toEqual({ status: "not-applied" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`a\n${LINE()}\n`);
    await removePathEntry(first);
    expect(fs.readFileSync(rc, "utf8")).toBe("a\n");
  });

  it("a line already there before us (plan none) is never reverted", async () => {
    const rc = join(home, ".zshrc");
    fs.writeFileSync(rc, `${LINE()}\n`);
    const receipt = await applyPathEntry(await plan(env("/bin/zsh")), { home });
    expect(receipt).toMatchObject({ kind: "profile", applied: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "not-applied" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`${LINE()}\n`);
  });

  it("a profile that turned into a link after planning is refused (O_NOFOLLOW), and its target untouched", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const p = await plan(env("/bin/bash"));
    fs.rmSync(rc);
    fs.writeFileSync(join(root, "target"), "t\n");
    fs.symlinkSync(join(root, "target"), rc);
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/link/);
    expect(fs.readFileSync(join(root, "target"), "utf8")).toBe("t\n");
  });

  it("a profile that turned into a FIFO after planning is refused without blocking", async (ctx) => {
    requires(ctx, "posix-path-scratch", "fifos");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const p = await plan(env("/bin/bash"));
    fs.rmSync(rc);
    execFileSync("mkfifo", [rc]);
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/regular file/);
  });

  it("a folder above that turned into a link after planning is refused", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    fs.mkdirSync(join(home, "z"));
    const p = await plan(env("/bin/zsh", { ZDOTDIR: join(home, "z") }));
    fs.renameSync(join(home, "z"), join(root, "z-real"));
    fs.symlinkSync(join(root, "z-real"), join(home, "z"));
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/link/);
    expect(fs.readdirSync(join(root, "z-real"))).toEqual([]);
  });

  it("the ~/.local/bin link: made when ~/.local/bin is on PATH, removed only while it still points at our launcher", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    const p = await plan(env("/bin/bash", { PATH: `${localBin}:/usr/bin` }));
    expect(p).toEqual({ kind: "link", path: join(localBin, "gentle-shell"), target: layout.launcher });
    const receipt = await applyPathEntry(p, { home });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe(layout.launcher);
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.existsSync(join(localBin, "gentle-shell"))).toBe(false);

    const again = await applyPathEntry(p, { home });
    fs.unlinkSync(join(localBin, "gentle-shell"));
    fs.symlinkSync("/somewhere/else", join(localBin, "gentle-shell"));
    expect(await removePathEntry(again)).toMatchObject({ status: "kept", path: join(localBin, "gentle-shell") });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe("/somewhere/else");
  });

  it("our link already there: applied: false, never reverted", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    fs.symlinkSync(layout.launcher, join(localBin, "gentle-shell"));
    const p = await plan(env("/bin/bash", { PATH: localBin }));
    const receipt = await applyPathEntry(p, { home });
    expect(receipt).toMatchObject({ kind: "link", applied: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "not-applied" });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe(layout.launcher);
  });

  it("~/.local/bin on PATH but not there: the profile line instead", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    expect(await plan(env("/bin/bash", { PATH: join(home, ".local/bin") }))).toMatchObject({ kind: "line" });
  });

  it("manual plans: a read-only .zshrc", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".zshrc"), "z\n", { mode: 0o444 });
    expect(await plan(env("/bin/zsh"))).toMatchObject({ kind: "manual", reason: "read-only", line: LINE() });
    await expect(applyPathEntry(await plan(env("/bin/zsh")), { home })).rejects.toThrow(/by hand/);
    expect(fs.readFileSync(join(home, ".zshrc"), "utf8")).toBe("z\n");
  });

  it("manual plans: a symlinked .bashrc, a .zshrc through a linked folder", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    fs.writeFileSync(join(root, "bashrc"), "b\n");
    fs.symlinkSync(join(root, "bashrc"), join(home, ".bashrc"));
    expect(await plan(env("/bin/bash"))).toMatchObject({ kind: "manual", reason: "link", line: LINE() });
    fs.mkdirSync(join(root, "zd"));
    fs.symlinkSync(join(root, "zd"), join(home, "zd"));
    expect(await plan(env("/bin/zsh", { ZDOTDIR: join(home, "zd") }))).toMatchObject({ kind: "manual", reason: "linked-folder" });
    await expect(applyPathEntry(await plan(env("/bin/bash")), { home })).rejects.toThrow(/by hand/);
    expect(fs.readFileSync(join(root, "bashrc"), "utf8")).toBe("b\n");
  });
});
