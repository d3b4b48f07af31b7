// The PATH entry proven in the shells themselves (spec: "PATH"). For each
// shell and platform rule: the installer's step adds the entry; a new shell,
// started the way a terminal starts it, finds and runs a fake launcher; the
// receipt read back from path-entry.json takes the entry away, leaving every
// profile file byte-identical. Needs bash, dash (/bin/sh), zsh and fish
// (.ci/run installs them), and nu (nushell's verified release, build/test-shells.mjs).
// PowerShell's cases need a pwsh, which this machine cannot get: they skip
// here, saying so, and ci.yml's linux job runs them on ubuntu-latest, which
// has one. The same rules in a real terminal (tmux): path-shells-terminal.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import type { Platform } from "../../src/core/layout";
import { PATH_MARKER } from "../../src/path/shells";
import { pathEntryStep } from "../../src/path/step";
import { readPathReceipt } from "../../src/path/receipt-file";
import { removePathEntry } from "../../src/path/apply";
import { type Capability, requires, shellProgram } from "../support/capabilities";
import { expectSame, makeHome, snapshot, terminal, VERSION } from "../support/path-homes";

let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "gs-shells-")));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** nu and pwsh by their full paths: the new shell's PATH (/usr/bin:/bin) need not hold them. */
const NU = shellProgram("nu");
const PWSH = shellProgram("pwsh");

interface Case {
  name: string;
  /** A shell this machine may lack. */
  needs?: Capability;
  /** Started once before the install, as by a user who has used it: it writes startup files of its own at its first start (nu). */
  warm?: boolean;
  platform?: Platform;
  shell: string;
  argv: string[];
  /** Files present before the install (relative to home). */
  files?: Record<string, string>;
  folders?: string[];
  /** Extra environment, relative values resolved against home. */
  env?: Record<string, string>;
  /** The file the line must land in (relative to home), and whether we create it. */
  expectFile: string;
  expectCreate: boolean;
}

const CASES: Case[] = [
  {
    name: "bash -i on Linux: ~/.bashrc without a trailing newline",
    shell: "/bin/bash",
    argv: ["bash", "-i", "-c"],
    files: { ".bashrc": "alias ll='ls -l'", ".profile": "# profile\n" },
    expectFile: ".bashrc",
    expectCreate: false,
  },
  {
    name: "bash -i on Linux: ~/.bashrc created when absent",
    shell: "/bin/bash",
    argv: ["bash", "-i", "-c"],
    expectFile: ".bashrc",
    expectCreate: true,
  },
  {
    name: "bash -l with the macOS rule: ~/.bash_profile created when no login file exists",
    platform: "darwin",
    shell: "/bin/bash",
    argv: ["bash", "-l", "-c"],
    files: { ".bashrc": "# not read by login bash\n" },
    expectFile: ".bash_profile",
    expectCreate: true,
  },
  {
    name: "bash -l with the macOS rule: the existing ~/.profile, no ~/.bash_profile created",
    platform: "darwin",
    shell: "/bin/bash",
    argv: ["bash", "-l", "-c"],
    files: { ".profile": "export FOO=1" },
    expectFile: ".profile",
    expectCreate: false,
  },
  {
    name: "bash -l with the macOS rule: ~/.bash_login before ~/.profile",
    platform: "darwin",
    shell: "/bin/bash",
    argv: ["bash", "-l", "-c"],
    files: { ".bash_login": "# login\n", ".profile": "# profile\n" },
    expectFile: ".bash_login",
    expectCreate: false,
  },
  {
    name: "zsh -i without ZDOTDIR: ~/.zshrc",
    shell: "/usr/bin/zsh",
    argv: ["zsh", "-i", "-c"],
    files: { ".zshrc": "setopt no_beep\n" },
    expectFile: ".zshrc",
    expectCreate: false,
  },
  {
    name: "zsh -i with ZDOTDIR: $ZDOTDIR/.zshrc, created",
    shell: "/usr/bin/zsh",
    argv: ["zsh", "-i", "-c"],
    folders: [".config/zsh"],
    files: { ".zshrc": "# not read when ZDOTDIR is set\n" },
    env: { ZDOTDIR: ".config/zsh" },
    expectFile: ".config/zsh/.zshrc",
    expectCreate: true,
  },
  {
    name: "fish -i: conf.d/gentle-shell.fish under ~/.config, folders created",
    shell: "/usr/bin/fish",
    argv: ["fish", "-i", "-c"],
    expectFile: ".config/fish/conf.d/gentle-shell.fish",
    expectCreate: true,
  },
  {
    name: "fish -i: conf.d under XDG_CONFIG_HOME, beside the user's config.fish",
    shell: "/usr/bin/fish",
    argv: ["fish", "-i", "-c"],
    files: { "xdg/fish/config.fish": "set -g fish_greeting\n" },
    env: { XDG_CONFIG_HOME: "xdg" },
    expectFile: "xdg/fish/conf.d/gentle-shell.fish",
    expectCreate: true,
  },
  {
    name: "nu -l: the env.nu under ~/.config/nushell that nu wrote at its first start",
    needs: "nu",
    warm: true,
    shell: NU,
    argv: [NU, "-l", "-c"],
    expectFile: ".config/nushell/env.nu",
    expectCreate: false,
  },
  {
    name: "nu -l: the user's env.nu under XDG_CONFIG_HOME, without a trailing newline, beside their config.nu",
    needs: "nu",
    shell: NU,
    argv: [NU, "-l", "-c"],
    files: { "xdg/nushell/env.nu": "$env.EDITOR = 'vi'", "xdg/nushell/config.nu": "$env.config.show_banner = false\n" },
    env: { XDG_CONFIG_HOME: "xdg" },
    expectFile: "xdg/nushell/env.nu",
    expectCreate: false,
  },
  {
    name: "pwsh -Login: profile.ps1 under ~/.config/powershell, folders created",
    needs: "pwsh",
    shell: PWSH,
    argv: [PWSH, "-Login", "-NoLogo", "-NonInteractive", "-Command"],
    expectFile: ".config/powershell/profile.ps1",
    expectCreate: true,
  },
  {
    name: "pwsh -Login: the user's profile.ps1 under XDG_CONFIG_HOME",
    needs: "pwsh",
    shell: PWSH,
    argv: [PWSH, "-Login", "-NoLogo", "-NonInteractive", "-Command"],
    files: { "xdg/powershell/profile.ps1": "$env:EDITOR = 'vi'\r\n" },
    env: { XDG_CONFIG_HOME: "xdg" },
    expectFile: "xdg/powershell/profile.ps1",
    expectCreate: false,
  },
  {
    name: "sh -l (dash): ~/.profile",
    shell: "/bin/sh",
    argv: ["sh", "-l", "-c"],
    files: { ".profile": "umask 022\n" },
    expectFile: ".profile",
    expectCreate: false,
  },
];

// A plain home, and one whose path needs every kind of quoting: a space,
// both quotes, $, a backquote, a backslash and non-ASCII.
const HOMES = [
  ["plain", "home"],
  ["quoting", `h é'$"\`\\x`],
] as const;

describe.each(HOMES)("real shells, %s home", (_kind, homeName) => {
  it.for(CASES)("$name", async (c, ctx) => {
    if (c.needs) requires(ctx, c.needs);
    const layout = makeHome(root, homeName, c.platform);
    const home = layout.home;
    for (const d of c.folders ?? []) fs.mkdirSync(join(home, d), { recursive: true });
    for (const [f, text] of Object.entries(c.files ?? {})) {
      fs.mkdirSync(join(home, f, ".."), { recursive: true });
      fs.writeFileSync(join(home, f), text);
    }
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.env ?? {})) extra[k] = join(home, v);
    const env = { HOME: home, PATH: "/usr/bin:/bin", SHELL: c.shell, ...extra };
    const target = join(home, c.expectFile);
    // Before: a new terminal does not find it (so the check below can fail).
    if (c.warm) expect(terminal(c.argv, home, extra).stdout).not.toContain(VERSION);
    const before = snapshot(home, env, [target]);
    if (!c.warm) expect(terminal(c.argv, home, extra).stdout).not.toContain(VERSION);

    const out = await pathEntryStep(layout, env, { platform: c.platform ?? "linux" });
    expect(out.status, out.detail).toBe("applied");
    expect(out.file).toBe(target);
    expect(out.receipt).toMatchObject({ kind: "profile", applied: true, path: target, create: c.expectCreate });
    expect(fs.readFileSync(target, "utf8")).toContain(`${PATH_MARKER}\n`);
    if (c.platform === "darwin" && c.expectFile !== ".bash_profile") expect(fs.existsSync(join(home, ".bash_profile"))).toBe(false);

    const run = terminal(c.argv, home, extra);
    expect(run.stdout, run.stderr).toContain(VERSION);

    // Running the installer again adds nothing.
    const again = await pathEntryStep(layout, env, { platform: c.platform ?? "linux" });
    expect(again.status).toBe("already");
    expect(fs.readFileSync(target, "utf8").split(PATH_MARKER).length - 1).toBe(1);

    // Undo from the persisted receipt, as self-uninstall does.
    const read = readPathReceipt(layout, env, { platform: c.platform ?? "linux" });
    expect(read.status).toBe("valid");
    if (read.status !== "valid") return;
    const removed = await removePathEntry(read.receipt);
    expect(removed).toEqual(c.expectCreate ? { status: "removed", deleted: true } : { status: "removed" });
    expectSame(before, snapshot(home, env, [target]));
    expect(fs.existsSync(target)).toBe(!c.expectCreate);
    expect(terminal(c.argv, home, extra).stdout).not.toContain(VERSION);
  });
});

describe("profiles we must not write get a manual plan and stay untouched", () => {
  function state(path: string) {
    const l = fs.lstatSync(path);
    return { mode: l.mode, link: l.isSymbolicLink() ? fs.readlinkSync(path) : null, bytes: fs.readFileSync(path).toString("latin1") };
  }

  it("a symlinked ~/.bashrc (stow, chezmoi, home-manager)", async () => {
    const layout = makeHome(root, "home");
    const dots = join(root, "dotfiles");
    fs.mkdirSync(dots);
    fs.writeFileSync(join(dots, "bashrc"), "alias g=git\n");
    fs.symlinkSync(join(dots, "bashrc"), join(layout.home, ".bashrc"));
    const before = [state(join(layout.home, ".bashrc")), state(join(dots, "bashrc"))];
    const out = await pathEntryStep(layout, { PATH: "/usr/bin:/bin", SHELL: "/bin/bash" });
    expect(out).toMatchObject({ status: "manual", file: join(layout.home, ".bashrc"), detail: "~/.bashrc is a symlink, so it was left untouched" });
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${out.line}`);
    expect([state(join(layout.home, ".bashrc")), state(join(dots, "bashrc"))]).toEqual(before);
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
    // The line it names works when the user adds it by hand.
    fs.appendFileSync(join(dots, "bashrc"), `${out.line}\n`);
    expect(terminal(["bash", "-i", "-c"], layout.home).stdout).toContain(VERSION);
    // And then there is no plan: the line is there, through the link.
    expect((await pathEntryStep(layout, { PATH: "/usr/bin:/bin", SHELL: "/bin/bash" })).status).toBe("already");
  });

  it("a read-only ~/.zshrc (0444; judged by mode bits, so also when the installer runs as root)", async () => {
    const layout = makeHome(root, "home");
    const rc = join(layout.home, ".zshrc");
    fs.writeFileSync(rc, "bindkey -e\n", { mode: 0o444 });
    fs.chmodSync(rc, 0o444);
    const before = state(rc);
    const out = await pathEntryStep(layout, { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/zsh" });
    expect(out).toMatchObject({ status: "manual", detail: "~/.zshrc is read-only, so it was left untouched" });
    expect(state(rc)).toEqual(before);
    expect(terminal(["zsh", "-i", "-c"], layout.home).stdout).not.toContain(VERSION);
  });

  // ~/.bashrc sits directly in home, and home itself is the user's (a linked
  // home, like /home -> /var/home, is edited as usual), so a profile reached
  // through a linked folder is one below home: $ZDOTDIR or ~/.config.
  it("a $ZDOTDIR/.zshrc reached through a linked folder", async () => {
    const layout = makeHome(root, "home");
    const real = join(root, "dotfiles", "zsh");
    fs.mkdirSync(real, { recursive: true });
    fs.writeFileSync(join(real, ".zshrc"), "PROMPT='> '\n");
    fs.symlinkSync(join(root, "dotfiles"), join(layout.home, "dots"));
    const zdotdir = join(layout.home, "dots", "zsh");
    const before = state(join(real, ".zshrc"));
    const out = await pathEntryStep(layout, { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/zsh", ZDOTDIR: zdotdir });
    expect(out).toMatchObject({
      status: "manual",
      file: join(zdotdir, ".zshrc"),
      detail: "~/dots/zsh/.zshrc is reached through a linked folder, so it was left untouched",
    });
    expect(state(join(real, ".zshrc"))).toEqual(before);
    expect(terminal(["zsh", "-i", "-c"], layout.home, { ZDOTDIR: zdotdir }).stdout).not.toContain(VERSION);
  });

  it("the fish conf.d file under a linked ~/.config: not created", async () => {
    const layout = makeHome(root, "home");
    fs.mkdirSync(join(root, "config", "fish"), { recursive: true });
    fs.symlinkSync(join(root, "config"), join(layout.home, ".config"));
    const out = await pathEntryStep(layout, { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/fish" });
    expect(out).toMatchObject({
      status: "manual",
      detail: "~/.config/fish/conf.d/gentle-shell.fish is reached through a linked folder, so it was left untouched",
    });
    expect(fs.readdirSync(join(root, "config", "fish"))).toEqual([]);
  });
});

describe("the ~/.local/bin link in a real shell", () => {
  it("~/.local/bin on PATH: a link, found by a new bash, removed exactly", async () => {
    const layout = makeHome(root, "home");
    const localBin = join(layout.home, ".local", "bin");
    fs.mkdirSync(localBin, { recursive: true });
    fs.writeFileSync(join(layout.home, ".bashrc"), "# untouched\n");
    const env = { PATH: `${localBin}:/usr/bin:/bin`, SHELL: "/bin/bash" };
    const before = snapshot(layout.home, env);
    const out = await pathEntryStep(layout, env);
    expect(out).toMatchObject({ status: "applied", file: join(localBin, "gentle-shell") });
    const r = spawnSync("bash", ["-c", "gentle-shell --version"], { env: { HOME: layout.home, PATH: env.PATH }, encoding: "utf8" });
    expect(r.stdout).toContain(VERSION);
    expectSame(before, snapshot(layout.home, env));
    const read = readPathReceipt(layout, env);
    expect(read.status).toBe("valid");
    if (read.status === "valid") expect(await removePathEntry(read.receipt)).toEqual({ status: "removed" });
    expect(fs.readdirSync(localBin)).toEqual([]);
  });
});
