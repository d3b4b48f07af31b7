/**
 * `gentle-shell-setup install --completions` on a real install (issue 42):
 * the PATH step set up bash (SHELL=/bin/bash), so both commands' scripts are
 * in bash-completion's per-user folder, byte for byte what `completions bash`
 * prints, and complete in a real bash; self-uninstall lists them, removes
 * exactly them and the folders the install made, and keeps one the user
 * edited. Without --completions nothing is written there (the home's other
 * tests: home-untouched, self-uninstall).
 */
import { spawnSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed } from "../support/installed";
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

  it("self-uninstall --include-shared leaves the home as it was before the install", async () => {
    const i = await installed(f, { extra: ["--completions"] });
    const r = await runCommand(i.gs, ["self-uninstall", "--yes", "--include-shared"], { env: i.env, cwd: i.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await fs.readdir(i.home)).sort()).toEqual([".npmrc"]);
  });
});
