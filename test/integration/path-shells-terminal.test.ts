// The PATH entry in the shell a terminal window starts (spec: "PATH"): each
// shell started by tmux as a terminal starts it, before the install, after
// it, and after the receipt took the entry away, with every startup file
// byte-identical at the end. nu's REPL is the verified nushell release build/test-shells.mjs unpacks.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { pathEntryStep } from "../../src/path/step";
import { readPathReceipt } from "../../src/path/receipt-file";
import { removePathEntry } from "../../src/path/apply";
import { requires, shellProgram } from "../support/capabilities";
import { expectSame, makeHome, snapshot, VERSION } from "../support/path-homes";

const NU = shellProgram("nu");
let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "gs-shells-")));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
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
    const layout = makeHome(root, "home", platform);
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
    const out = await pathEntryStep(layout, env, { platform });
    expect(out.status, out.detail).toBe("applied");
    expect(await inTmux([...argv], layout.home, extra, nu)).toContain(VERSION);
    const read = readPathReceipt(layout, env, { platform });
    expect(read.status).toBe("valid");
    if (read.status === "valid") await removePathEntry(read.receipt);
    expectSame(before, snapshot(layout.home, env));
    expect(await inTmux([...argv], layout.home, extra, nu)).not.toContain(VERSION);
  });
});
