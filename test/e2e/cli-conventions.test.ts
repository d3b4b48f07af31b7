/**
 * The command-line conventions on the fixture binary and a real install
 * (issue 14): an install made through the environment knobs and --quiet;
 * the launcher's own commands strict; `gentle-shell-setup uninstall`
 * handing over to the launcher's self-uninstall; a --source that cannot be
 * read named before anything is done.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { gentleShellSetup, runInstall } from "../support/installed";
import { scratchHome } from "../support/home";
import { gs, launcherIn } from "../support/launch";

const f = fixtures();

describe("before anything is done", () => {
  it("a --source folder that does not exist, or a knob with a bad value, is one sentence and changes nothing", async () => {
    const home = await scratchHome({ scratch: "gss-cli-", registry: f.registryUrl });
    const missing = join(home, "no-such-bundle");
    for (const [args, env, code, message] of [
      [["install", "--dry-run", "--source", missing], {}, 2, `the --source folder ${missing} does not exist; nothing was changed`],
      [
        ["bundle", "--out", join(home, "b")],
        { GENTLE_SHELL_SOURCE: missing },
        2,
        `the GENTLE_SHELL_SOURCE folder ${missing} does not exist; nothing was changed`,
      ],
      [
        ["install", "--dry-run"],
        { GENTLE_SHELL_RELEASE: "banana" },
        2,
        'GENTLE_SHELL_RELEASE takes an exact Gentle Shell version such as 4.1.0, or latest; not "banana"',
      ],
      [["uninstall", "--frobnicate"], {}, 2, "unknown option --frobnicate for gentle-shell-setup uninstall; see gentle-shell-setup uninstall --help"],
    ] as const) {
      const r = await gentleShellSetup(f, home, [...args], env);
      expect(r.code, JSON.stringify(args)).toBe(code);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe(`gentle-shell-setup: ${message}`);
    }
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
    // The help documents the exit codes and the knobs, in plain text off a terminal.
    for (const args of [["--help"], ["install", "--help"]]) {
      const help = await gentleShellSetup(f, home, args);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("  4   nothing was changed: a dry run, a declined question, or blocked");
      expect(help.stdout).toContain("  GENTLE_SHELL_QUIET=1                  as --quiet");
      expect(help.stdout).not.toContain("\u001b[");
    }
    const none = await gentleShellSetup(f, home, ["uninstall", "--yes"]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.trim()).toBe("Gentle Shell is not installed (no launcher at ~/.gentle-shell/bin/gentle-shell); nothing to uninstall.");
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });
});

describe("an install through the knobs, then the launcher's strict commands and uninstall", () => {
  it("installs quietly from GENTLE_SHELL_SOURCE, refuses stray words to its own commands, and uninstalls through the launcher", async () => {
    const home = await scratchHome({ scratch: "gss-cli-", registry: f.registryUrl });
    const r = await runInstall(f, home, ["--no-setup"], { source: null, env: { GENTLE_SHELL_SOURCE: f.mirrorUrl, GENTLE_SHELL_QUIET: "1" } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Quiet: no plan, no step lines and no download lines; the result and what to do next.
    expect(r.stdout).not.toContain("Gentle Shell will be installed into");
    expect(r.stdout).not.toMatch(/✔ |downloading /);
    expect(r.stdout).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
    // The knob's source was used and remembered for upgrades, as --source is.
    expect((await fs.readFile(join(home, ".gentle-shell", "config", "install-source"), "utf8")).trim()).toBe(f.mirrorUrl);

    const stray = await gs(home, ["upgrade", "--frobnicate"]);
    expect(stray.code).toBe(2);
    expect(stray.stdout).toBe("");
    expect(stray.stderr.trim()).toBe(
      "gentle-shell: unknown option --frobnicate for gentle-shell upgrade; usage: gentle-shell upgrade [--to <version> [--yes]] [--rollback] [--source <mirror or folder>]",
    );
    const word = await gs(home, ["self-uninstall", "everything"]);
    expect(word.code).toBe(2);
    expect(word.stderr.trim()).toMatch(/^gentle-shell: unexpected argument "everything" for gentle-shell self-uninstall; usage: /);
    const help = await gs(home, ["self-uninstall", "--help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout.split("\n")[0]).toBe("usage: gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]");
    expect(existsSync(launcherIn(home))).toBe(true);

    const dry = await gentleShellSetup(f, home, ["uninstall", "--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(4);
    expect(dry.stdout).toContain("This removes Gentle Shell from ~/.gentle-shell:");
    expect(dry.stdout).toContain("Dry run: nothing was removed.");
    expect(existsSync(join(home, ".gentle-shell", "runtime"))).toBe(true);

    const gone = await gentleShellSetup(f, home, ["uninstall", "--yes", "--include-shared"]);
    expect(gone.code, gone.stdout + gone.stderr).toBe(0);
    expect(gone.stdout).toContain("Gentle Shell is uninstalled.");
    expect(existsSync(join(home, ".gentle-shell"))).toBe(false);
    expect(await fs.readFile(join(home, ".bashrc"), "utf8").catch(() => "")).not.toContain("gentle-shell");
  });
});
