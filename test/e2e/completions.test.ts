/**
 * `gentle-shell-setup install --completions` on a real install (issue 42):
 * the PATH step set up bash (SHELL=/bin/bash), so both commands' scripts are
 * in bash-completion's per-user folder, byte for byte what `completions bash`
 * prints, and complete in a real bash; self-uninstall lists them, removes
 * exactly them and the folders the install made, and keeps one the user
 * edited. Without --completions nothing is written there (the home's other
 * tests: home-untouched, self-uninstall). For nu (the verified release
 * build/test-shells.mjs unpacks), the same whole road: install, a new nu,
 * self-uninstall.
 */
import { spawnSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { requires, shellProgram } from "../support/capabilities";
import { installed, runInstall } from "../support/installed";
import { runCommand } from "../support/proc";

const f = fixtures();
const DIR = ".local/share/bash-completion/completions";
const SHOWN = `~/${DIR}`;

/** What bash offers for `words` (the last one partial), from the script at `file`. */
function bashOffers(file: string, fn: string, words: string[]): string {
  const body = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); ${fn}; echo "\${COMPREPLY[*]}"`;
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", body, "bash", file, ...words], { encoding: "utf8", timeout: 20_000 });
  return r.stdout.trim();
}

describe.concurrent("install --completions", () => {
  it("writes both scripts for the PATH step's bash, as the commands print them, and they complete in bash", async () => {
    const i = await installed(f, { extra: ["--completions"] });
    expect(i.output).toContain(`bash completions in ${SHOWN}`);
    const dir = join(i.home, DIR);
    expect((await fs.readdir(dir)).sort()).toEqual(["gentle-shell", "gentle-shell-setup"]);
    const shell = await runCommand(i.gs, ["completions", "bash"], { env: i.env, cwd: i.home });
    expect(shell.code, shell.stderr).toBe(0);
    expect(await fs.readFile(join(dir, "gentle-shell"), "utf8")).toBe(shell.stdout);
    const setup = await runCommand(f.binary!, ["completions", "bash"], { env: i.env, cwd: i.home });
    expect(setup.code, setup.stderr).toBe(0);
    expect(await fs.readFile(join(dir, "gentle-shell-setup"), "utf8")).toBe(setup.stdout);
    expect(bashOffers(join(dir, "gentle-shell"), "_gentle_shell", ["gentle-shell", "self"])).toBe("self-uninstall");
    expect(bashOffers(join(dir, "gentle-shell-setup"), "_gentle_shell_setup", ["gentle-shell-setup", "install", "--comp"])).toBe("--completions");
  });

  it("self-uninstall lists them, removes exactly them and keeps one the user edited", async () => {
    const i = await installed(f, { extra: ["--completions"] });
    const dir = join(i.home, DIR);
    const dry = await runCommand(i.gs, ["self-uninstall", "--dry-run"], { env: i.env, cwd: i.home });
    expect(dry.stdout).toContain(`  - completions: ${SHOWN}/gentle-shell\n`);
    expect(dry.stdout).toContain(`  - completions: ${SHOWN}/gentle-shell-setup\n`);
    await fs.appendFile(join(dir, "gentle-shell-setup"), "# mine\n");
    const r = await runCommand(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: i.env, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`✔ completions: removed ${SHOWN}/gentle-shell\n`);
    expect(r.stdout).toContain(`Kept ${SHOWN}/gentle-shell-setup: it was changed after the install wrote it.`);
    expect(await fs.readdir(dir)).toEqual(["gentle-shell-setup"]);
    // The prefix still goes: the kept file is outside it.
    expect(existsSync(i.prefix)).toBe(false);
  });

  it("nu (issue 48): the PATH line in the user's env.nu, both scripts in nu's autoload folder; a new nu finds gentle-shell; self-uninstall leaves env.nu byte for byte", async (ctx) => {
    requires(ctx, "nu");
    const NU = shellProgram("nu");
    const envNu = "# the user's own env.nu, without a trailing newline\n$env.EDITOR = 'vi'";
    const i = await installed(f, { env: { SHELL: NU }, files: { ".config/nushell/env.nu": envNu }, extra: ["--completions"] });
    expect(i.output).toContain("nu completions in ~/.config/nushell/autoload");
    const autoload = join(i.home, ".config/nushell/autoload");
    expect((await fs.readdir(autoload)).sort()).toEqual(["gentle-shell-completions.nu", "gentle-shell-setup-completions.nu"]);
    const printed = await runCommand(i.gs, ["completions", "nu"], { env: i.env, cwd: i.home });
    expect(await fs.readFile(join(autoload, "gentle-shell-completions.nu"), "utf8")).toBe(printed.stdout);
    // A new nu, as a terminal starts it, in a clean environment.
    const newNu = () =>
      spawnSync(NU, ["-l", "-c", "gentle-shell --version"], {
        cwd: i.home,
        env: { HOME: i.home, PATH: "/usr/bin:/bin", TERM: "dumb" },
        encoding: "utf8",
        timeout: 20_000,
      });
    const found = newNu();
    expect(found.status, found.stderr).toBe(0);
    expect(found.stdout).toMatch(/^gentle-shell /);

    const r = await runCommand(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: i.env, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readFile(join(i.home, ".config/nushell/env.nu"), "utf8")).toBe(envNu);
    expect(existsSync(autoload)).toBe(false);
    expect(newNu().status).not.toBe(0);
  });

  it("nu over an earlier install that wrote ~/.profile (before nu had a row): the entry moves to env.nu, ~/.profile is as it was", async (ctx) => {
    requires(ctx, "nu");
    const profile = "umask 022\n";
    const i = await installed(f, { env: { SHELL: "/bin/sh" }, files: { ".profile": profile } });
    expect(await fs.readFile(join(i.home, ".profile"), "utf8")).not.toBe(profile);
    const again = await runInstall(f, i.home, [], { env: { SHELL: shellProgram("nu") } });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("path: added to ~/.config/nushell/env.nu; moved our PATH entry here from ~/.profile");
    expect(await fs.readFile(join(i.home, ".profile"), "utf8")).toBe(profile);
    const r = await runCommand(i.gs, ["self-uninstall", "--yes"], { env: i.env, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(i.home, ".config/nushell/env.nu"))).toBe(false);
    expect(await fs.readFile(join(i.home, ".profile"), "utf8")).toBe(profile);
  });

  it("self-uninstall --include-shared leaves the home as it was before the install", async () => {
    const i = await installed(f, { extra: ["--completions"] });
    const r = await runCommand(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: i.env, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await fs.readdir(i.home)).sort()).toEqual([".npmrc"]);
  });
});
