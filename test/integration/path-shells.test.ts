// The PATH entry proven in the shells themselves (spec: "PATH"). For each
// shell and platform rule: the installer's step adds the entry; a new shell,
// started the way a terminal starts it, finds and runs a fake launcher; the
// receipt read back from path-entry.json takes the entry away, leaving every
// profile file byte-identical. Needs bash, dash (/bin/sh), zsh and fish
// (.ci/run installs them), and nu (the nushell devDependency's binary).
// PowerShell's cases need a pwsh, which this machine cannot get: they skip
// here, saying so, and ci.yml's linux job, whose ubuntu-latest has one runs them where one is.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { buildPins } from "../../src/pins";
import { PATH_MARKER, profileFiles } from "../../src/path/shells";
import { bundledPathStep } from "../../src/path/step";
import { readPathReceipt } from "../../src/path/receipt-file";
import { removePathEntry } from "../../src/path/apply";
import { type Capability, requires, shellProgram } from "../support/capabilities";

const VERSION = "gentle-shell 4.1.0";
let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "gs-shells-")));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A temp home with a fake launcher at <prefix>/bin/gentle-shell. */
function makeHome(name: string, platform: Platform = "linux"): Layout {
  const home = join(root, name);
  fs.mkdirSync(home, { recursive: true });
  const layout = prefixLayout({ home, platform, pins: buildPins() });
  fs.mkdirSync(layout.bin, { recursive: true });
  fs.writeFileSync(layout.launcher, `#!/bin/sh\necho "${VERSION}"\n`, { mode: 0o755 });
  return layout;
}

/** A new shell as a terminal starts it: a clean environment, a UTF-8 locale, no input. */
function terminal(argv: string[], home: string, extra: Record<string, string> = {}) {
  const r = spawnSync(argv[0]!, [...argv.slice(1), "gentle-shell --version"], {
    cwd: home,
    env: { HOME: home, PATH: "/usr/bin:/bin", TERM: "dumb", LANG: "C.UTF-8", ...extra },
    input: "",
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The bytes of every startup file either platform's rules could touch, plus extra paths. */
function snapshot(home: string, env: Record<string, string>, extra: string[] = []): Map<string, Buffer | null> {
  const paths = new Set<string>(extra);
  for (const p of ["linux", "darwin"] as const) for (const f of profileFiles(home, env, p)) paths.add(f.path);
  const out = new Map<string, Buffer | null>();
  for (const p of paths) {
    try {
      out.set(p, fs.readFileSync(p));
    } catch {
      out.set(p, null);
    }
  }
  return out;
}

function expectSame(before: Map<string, Buffer | null>, after: Map<string, Buffer | null>) {
  for (const [p, bytes] of before) {
    const now = after.get(p);
    expect(now === null || now === undefined ? null : now.toString("latin1"), p).toBe(bytes === null ? null : bytes.toString("latin1"));
  }
}

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
    const layout = makeHome(homeName, c.platform);
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

    const out = await bundledPathStep(layout, { env, platform: c.platform ?? "linux" });
    expect(out.status, out.detail).toBe("applied");
    expect(out.file).toBe(target);
    expect(out.receipt).toMatchObject({ kind: "profile", applied: true, path: target, create: c.expectCreate });
    expect(fs.readFileSync(target, "utf8")).toContain(`${PATH_MARKER}\n`);
    if (c.platform === "darwin" && c.expectFile !== ".bash_profile") expect(fs.existsSync(join(home, ".bash_profile"))).toBe(false);

    const run = terminal(c.argv, home, extra);
    expect(run.stdout, run.stderr).toContain(VERSION);

    // Running the installer again adds nothing.
    const again = await bundledPathStep(layout, { env, platform: c.platform ?? "linux" });
    expect(again.status).toBe("already");
    expect(fs.readFileSync(target, "utf8").split(PATH_MARKER).length - 1).toBe(1);

    // Undo from the persisted receipt, as self-uninstall does.
    const read = readPathReceipt(layout, { env, platform: c.platform ?? "linux" });
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
    const layout = makeHome("home");
    const dots = join(root, "dotfiles");
    fs.mkdirSync(dots);
    fs.writeFileSync(join(dots, "bashrc"), "alias g=git\n");
    fs.symlinkSync(join(dots, "bashrc"), join(layout.home, ".bashrc"));
    const before = [state(join(layout.home, ".bashrc")), state(join(dots, "bashrc"))];
    const out = await bundledPathStep(layout, { env: { PATH: "/usr/bin:/bin", SHELL: "/bin/bash" } });
    expect(out).toMatchObject({ status: "manual", file: join(layout.home, ".bashrc"), detail: "~/.bashrc is a symlink, so it was left untouched" });
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${out.line}`);
    expect([state(join(layout.home, ".bashrc")), state(join(dots, "bashrc"))]).toEqual(before);
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
    // The line it names works when the user adds it by hand.
    fs.appendFileSync(join(dots, "bashrc"), `${out.line}\n`);
    expect(terminal(["bash", "-i", "-c"], layout.home).stdout).toContain(VERSION);
    // And then there is no plan: the line is there, through the link.
    expect((await bundledPathStep(layout, { env: { PATH: "/usr/bin:/bin", SHELL: "/bin/bash" } })).status).toBe("already");
  });

  it("a read-only ~/.zshrc (0444; judged by mode bits, so also when the installer runs as root)", async () => {
    const layout = makeHome("home");
    const rc = join(layout.home, ".zshrc");
    fs.writeFileSync(rc, "bindkey -e\n", { mode: 0o444 });
    fs.chmodSync(rc, 0o444);
    const before = state(rc);
    const out = await bundledPathStep(layout, { env: { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/zsh" } });
    expect(out).toMatchObject({ status: "manual", detail: "~/.zshrc is read-only, so it was left untouched" });
    expect(state(rc)).toEqual(before);
    expect(terminal(["zsh", "-i", "-c"], layout.home).stdout).not.toContain(VERSION);
  });

  // ~/.bashrc sits directly in home, and home itself is the user's (a linked
  // home, like /home -> /var/home, is edited as usual), so a profile reached
  // through a linked folder is one below home: $ZDOTDIR or ~/.config.
  it("a $ZDOTDIR/.zshrc reached through a linked folder", async () => {
    const layout = makeHome("home");
    const real = join(root, "dotfiles", "zsh");
    fs.mkdirSync(real, { recursive: true });
    fs.writeFileSync(join(real, ".zshrc"), "PROMPT='> '\n");
    fs.symlinkSync(join(root, "dotfiles"), join(layout.home, "dots"));
    const zdotdir = join(layout.home, "dots", "zsh");
    const before = state(join(real, ".zshrc"));
    const out = await bundledPathStep(layout, { env: { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/zsh", ZDOTDIR: zdotdir } });
    expect(out).toMatchObject({
      status: "manual",
      file: join(zdotdir, ".zshrc"),
      detail: "~/dots/zsh/.zshrc is reached through a linked folder, so it was left untouched",
    });
    expect(state(join(real, ".zshrc"))).toEqual(before);
    expect(terminal(["zsh", "-i", "-c"], layout.home, { ZDOTDIR: zdotdir }).stdout).not.toContain(VERSION);
  });

  it("the fish conf.d file under a linked ~/.config: not created", async () => {
    const layout = makeHome("home");
    fs.mkdirSync(join(root, "config", "fish"), { recursive: true });
    fs.symlinkSync(join(root, "config"), join(layout.home, ".config"));
    const out = await bundledPathStep(layout, { env: { PATH: "/usr/bin:/bin", SHELL: "/usr/bin/fish" } });
    expect(out).toMatchObject({
      status: "manual",
      detail: "~/.config/fish/conf.d/gentle-shell.fish is reached through a linked folder, so it was left untouched",
    });
    expect(fs.readdirSync(join(root, "config", "fish"))).toEqual([]);
  });
});

describe("the ~/.local/bin link in a real shell", () => {
  it("~/.local/bin on PATH: a link, found by a new bash, removed exactly", async () => {
    const layout = makeHome("home");
    const localBin = join(layout.home, ".local", "bin");
    fs.mkdirSync(localBin, { recursive: true });
    fs.writeFileSync(join(layout.home, ".bashrc"), "# untouched\n");
    const env = { PATH: `${localBin}:/usr/bin:/bin`, SHELL: "/bin/bash" };
    const before = snapshot(layout.home, env);
    const out = await bundledPathStep(layout, { env });
    expect(out).toMatchObject({ status: "applied", file: join(localBin, "gentle-shell") });
    const r = spawnSync("bash", ["-c", "gentle-shell --version"], { env: { HOME: layout.home, PATH: env.PATH }, encoding: "utf8" });
    expect(r.stdout).toContain(VERSION);
    expectSame(before, snapshot(layout.home, env));
    const read = readPathReceipt(layout, { env });
    expect(read.status).toBe("valid");
    if (read.status === "valid") expect(await removePathEntry(read.receipt)).toEqual({ status: "removed" });
    expect(fs.readdirSync(localBin)).toEqual([]);
  });
});

describe("in a real terminal (tmux): the shell a terminal window starts", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let tmuxRuns = 0;

  /** Starts `argv` as a tmux window's shell, types the command, returns what it printed. */
  async function inTmux(argv: string[], home: string, extra: Record<string, string> = {}, nu = false): Promise<string> {
    const sock = join(root, `tmux-${++tmuxRuns}.sock`);
    const out = join(root, "tmux.out");
    fs.rmSync(out, { force: true });
    const env = { HOME: home, PATH: "/usr/bin:/bin", TERM: "xterm-256color", LANG: "C.UTF-8", ...extra };
    const tmux = (...args: string[]) => spawnSync("tmux", ["-S", sock, "-f", "/dev/null", ...args], { env, encoding: "utf8", timeout: 10_000 });
    const started = tmux("new-session", "-d", "-x", "120", "-y", "30", ...argv);
    expect(started.status, started.stderr).toBe(0);
    try {
      // Type only once the shell has drawn its prompt; type again if it was not ready after all.
      const command = nu
        ? `try { gentle-shell --version o+e> '${out}' }; "finished" | save --append '${out}'; exit`
        : `gentle-shell --version > '${out}' 2>&1; echo finished >> '${out}'; exit`;
      for (let i = 0; i < 100 && !(tmux("capture-pane", "-p").stdout ?? "").trim(); i++) await sleep(100);
      for (let attempt = 0; attempt < 3; attempt++) {
        tmux("send-keys", command, "Enter");
        for (let i = 0; i < 50; i++) {
          if (fs.existsSync(out) && fs.readFileSync(out, "utf8").includes("finished")) return fs.readFileSync(out, "utf8");
          await sleep(100);
        }
      }
      throw new Error(`the shell in tmux never ran the command; its screen:\n${tmux("capture-pane", "-p").stdout}`);
    } finally {
      // The shell exits by itself; wait for it (and its history write) before the home goes away.
      for (let i = 0; i < 50 && tmux("has-session").status === 0; i++) await sleep(100);
      tmux("kill-server");
    }
  }

  it.for([
    ["bash on Linux", "linux", "/bin/bash", ["bash"], {}],
    ["login bash with the macOS rule", "darwin", "/bin/bash", ["bash", "-l"], {}],
    ["zsh with ZDOTDIR", "linux", "/usr/bin/zsh", ["zsh"], { ZDOTDIR: "zdot" }],
    ["fish", "linux", "/usr/bin/fish", ["fish"], {}],
    ["a login sh (dash)", "linux", "/bin/sh", ["sh", "-l"], {}],
    ["nu's REPL", "linux", NU, [NU], {}],
  ] as const)("%s finds gentle-shell after the install, and not after the removal", async ([_n, platform, shell, argv, rel], ctx) => {
    const nu = shell === NU;
    if (nu) requires(ctx, "nu");
    const layout = makeHome("home", platform);
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(rel)) {
      extra[k] = join(layout.home, v);
      fs.mkdirSync(extra[k]!, { recursive: true });
    }
    // zsh offers its new-user menu when it finds no startup file at all.
    if (shell.endsWith("zsh")) fs.writeFileSync(join(extra.ZDOTDIR ?? layout.home, ".zshenv"), "# present\n");
    const env = { HOME: layout.home, PATH: "/usr/bin:/bin", SHELL: shell, ...extra };
    expect(await inTmux([...argv], layout.home, extra, nu)).not.toContain(VERSION);
    const before = snapshot(layout.home, env);
    const out = await bundledPathStep(layout, { env, platform });
    expect(out.status, out.detail).toBe("applied");
    expect(await inTmux([...argv], layout.home, extra, nu)).toContain(VERSION);
    const read = readPathReceipt(layout, { env, platform });
    expect(read.status).toBe("valid");
    if (read.status === "valid") await removePathEntry(read.receipt);
    expectSame(before, snapshot(layout.home, env));
    expect(await inTmux([...argv], layout.home, extra, nu)).not.toContain(VERSION);
  });
});
