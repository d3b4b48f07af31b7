// The installer's PATH step in a temp home (spec: "PATH"), and
// shadowingCommand on a real PATH.
//
// The POSIX plans here put a bin folder inside the temp home on a POSIX
// PATH: they need a scratch folder such a PATH can name ("posix-path-scratch";
// a Windows temp folder holds ":", and the plan is then "impossible").
import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { join } from "pathe";
import { requires } from "../../support/capabilities";
import { readPathReceipt } from "../../../src/path/receipt-file";
import { shadowingCommand } from "../../../src/path/shadow";
import { pathEntryStep, isCommandFile } from "../../../src/path/step";
import { env, home, layout, LINE, makeLayout, plan, read, root } from "./temp-home";

describe("pathEntryStep", () => {
  it("applied: the line, the receipt, and one sentence to get gentle-shell in this terminal", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".bashrc"), "a\n");
    const out = await pathEntryStep(layout, env("/bin/bash"));
    expect(out).toMatchObject({ status: "applied", file: join(home, ".bashrc"), line: LINE() });
    expect(out.nextStep).toBe("Run `. ~/.bashrc` or open a new terminal to use `gentle-shell`.");
    expect(readPathReceipt(layout, env("/bin/bash"))).toEqual({ status: "valid", receipt: out.receipt });
  });

  it("a second run: already, one line, the first receipt kept", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".zshrc"), "a\n");
    await pathEntryStep(layout, env("/bin/zsh"));
    const receipt = read(layout.pathReceipt);
    const out = await pathEntryStep(layout, env("/bin/zsh"));
    expect(out.status).toBe("already");
    expect(out.nextStep).toBe("Run `. ~/.zshrc` or open a new terminal to use `gentle-shell` (~/.zshrc already adds it).");
    expect(fs.readFileSync(join(home, ".zshrc"), "utf8")).toBe(`a\n${LINE()}\n`);
    expect(read(layout.pathReceipt).equals(receipt)).toBe(true);
  });

  it("an earlier install's line elsewhere (nu's users got ~/.profile before nu had a row) is moved: one entry, one receipt", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".profile"), "umask 022");
    // What an earlier install did for SHELL=nu: the sh family's ~/.profile, as it still does for a shell the table does not know.
    const old = await pathEntryStep(layout, env("/bin/sh"));
    expect(old).toMatchObject({ status: "applied", file: join(home, ".profile") });
    expect(fs.readFileSync(join(home, ".profile"), "utf8")).toBe(`umask 022\n${LINE()}\n`);

    const out = await pathEntryStep(layout, env("/usr/bin/nu"));
    const envNu = join(home, ".config/nushell/env.nu");
    expect(out).toMatchObject({ status: "applied", file: envNu, detail: "moved our PATH entry here from ~/.profile" });
    expect(fs.readFileSync(join(home, ".profile"), "utf8")).toBe("umask 022");
    expect(readPathReceipt(layout, env("/usr/bin/nu"))).toEqual({ status: "valid", receipt: out.receipt });
    expect(out.receipt).toMatchObject({ kind: "profile", path: envNu, create: true });
  });

  it("an earlier line the user edited is kept and named, and the new entry still goes in", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    await pathEntryStep(layout, env("/bin/sh"));
    fs.writeFileSync(join(home, ".profile"), `${LINE()} # and mine\n`);
    const out = await pathEntryStep(layout, env("/bin/bash"));
    expect(out.status).toBe("applied");
    expect(out.file).toBe(join(home, ".bashrc"));
    expect(out.detail).toMatch(/^our earlier PATH entry in ~\/\.profile was kept: /);
    expect(fs.readFileSync(join(home, ".profile"), "utf8")).toBe(`${LINE()} # and mine\n`);
  });

  it("already, with our bin on this terminal's PATH: nothing to do", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".zshrc"), `${LINE()}\n`);
    const out = await pathEntryStep(layout, env("/bin/zsh", { PATH: `${layout.bin}:/usr/bin` }));
    expect(out).toMatchObject({ status: "already", nextStep: "Nothing to do: `gentle-shell` is already on this terminal's PATH." });
  });

  it("noModifyPath: nothing written, and the exact line to add", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    fs.writeFileSync(join(home, ".bashrc"), "a\n");
    const out = await pathEntryStep(layout, env("/bin/bash", { PATH: `${join(home, ".local/bin")}:/bin` }), {}, true);
    expect(out).toMatchObject({ status: "skipped", file: join(home, ".bashrc"), line: LINE() });
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(join(home, ".bashrc"), "utf8")).toBe("a\n");
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
  });

  it("manual: a symlinked profile is named and untouched, with the line to add", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    fs.writeFileSync(join(root, "zshrc"), "z\n");
    fs.symlinkSync(join(root, "zshrc"), join(home, ".zshrc"));
    const out = await pathEntryStep(layout, env("/usr/bin/zsh"));
    expect(out).toMatchObject({ status: "manual", detail: "~/.zshrc is a symlink, so it was left untouched", line: LINE() });
    expect(out.nextStep).toBe(`Add this line to ~/.zshrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(join(root, "zshrc"), "utf8")).toBe("z\n");
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
  });

  it("the link: nothing to do in this terminal", async (ctx) => {
    requires(ctx, "posix-path-scratch", "symlinks");
    fs.mkdirSync(join(home, ".local/bin"), { recursive: true });
    const out = await pathEntryStep(layout, env("/bin/bash", { PATH: `${join(home, ".local/bin")}:/bin` }));
    expect(out.status).toBe("applied");
    expect(out.nextStep).toMatch(/^Nothing to do: run `gentle-shell` now/);
  });

  it("fish: source the conf.d file", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const out = await pathEntryStep(layout, env("/usr/bin/fish"));
    expect(out.nextStep).toBe("Run `source ~/.config/fish/conf.d/gentle-shell.fish` or open a new terminal to use `gentle-shell`.");
  });

  it("a receipt that cannot be written: the entry is taken back and the step fails", async (ctx) => {
    requires(ctx, "posix-path-scratch");
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "keep");
    fs.mkdirSync(layout.pathReceipt);
    fs.writeFileSync(join(layout.pathReceipt, "x"), "");
    const out = await pathEntryStep(layout, env("/bin/bash"));
    expect(out.status).toBe("failed");
    expect(out.detail).toMatch(/^could not write ~\/\.gentle-shell\/path-entry\.json: .*; the PATH entry was taken back$/);
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(rc, "utf8")).toBe("keep");
  });

  it("an install folder that cannot be on PATH fails with the reason", async () => {
    // The home is not made: the plan fails before anything is written under it,
    // and Windows cannot name a folder "a:b".
    const odd = makeLayout(join(root, "a:b"));
    const out = await pathEntryStep(odd, env("/bin/bash"));
    expect(out).toMatchObject({ status: "failed", plan: { kind: "impossible" } });
    expect(out.detail).toContain('":"');
    expect(fs.existsSync(odd.home)).toBe(false);
  });
});

describe("shadowingCommand on a real PATH", () => {
  it("an old executable gentle-shell earlier on PATH shadows the ~/.local/bin link; a non-executable one does not", async (ctx) => {
    requires(ctx, "posix-path-scratch", "posix-modes");
    const old = join(root, "old-global", "bin");
    fs.mkdirSync(old, { recursive: true });
    fs.writeFileSync(join(old, "gentle-shell"), "#!/bin/sh\n", { mode: 0o755 });
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    const e = env("/bin/bash", { PATH: `${old}:${localBin}:/usr/bin` });
    const p = await plan(e);
    expect(p.kind).toBe("link");
    const input = {
      path: e.PATH,
      platform: "linux" as const,
      home,
      env: e,
      bin: layout.bin,
      isCommand: (f: string) => isCommandFile(f, { platform: "linux" }),
    };
    expect(shadowingCommand(p, input)).toMatchObject({ ours: false, runs: join(old, "gentle-shell") });
    fs.chmodSync(join(old, "gentle-shell"), 0o644);
    expect(shadowingCommand(p, input)).toMatchObject({ ours: true, runs: join(localBin, "gentle-shell") });
  });
});
