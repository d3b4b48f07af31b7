/**
 * Every command of ours the user docs show runs here (issue 42, part 4), so
 * the docs cannot rot: each line of README.md's and docs/*.md's fenced
 * blocks that runs gentle-shell-setup (or a bundle's
 * gentle-shell-setup-<target>) or gentle-shell (support/doc-commands.ts
 * reads them), in a form that changes nothing a user has:
 *
 * - gentle-shell-setup status (with --json, --memory), install --dry-run and
 *   completions: run as written (they only read or print), status on the
 *   fixture install, install --dry-run in a scratch HOME that it leaves
 *   byte for byte as it was (issue 47, item 5); a --json document fits its
 *   schema;
 * - any other gentle-shell-setup <command> ...: the fixture binary's
 *   `<command> --help` exits 0 and names every option the line uses (the
 *   command exists, and each option parses); the lines that change
 *   something are also run as written, each in a scratch HOME, by
 *   docs-changing.test.ts;
 * - gentle-shell <upgrade|self-uninstall|doctor|memory migrate> ...: the
 *   installed launcher's strict `--help` names every option the line uses
 *   (and docs-changing.test.ts runs the changing ones in a scratch HOME);
 * - gentle-shell status ...: run as written on a fixture install (it only
 *   reads), healthy;
 * - gentle-shell update ...: run as written with GENTLE_SHELL_UPDATES=off, so
 *   the launcher takes it as its own form and refuses it before anything runs
 *   (Pi's forms would go to Pi instead);
 * - gentle-shell doctor and doctor --json (without --fix): run as written on
 *   the fixture install; exit 0 (healthy, warnings too) and, for --json, one
 *   document that fits doctor.schema.json;
 * - gentle-shell setup, completions, --version, --help: run as written;
 * - a line of Pi's (any other words after gentle-shell) must be listed below
 *   with the reason.
 * Lines that are not ours are unit/docs-links.test.ts's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { findCommand } from "../../src/cli/index";
import { shellCommandOf } from "../../src/core/shell-commands";
import { fixtures } from "../support/context";
import { type DocCommand, docCommands, docInlineCommands, helpNames, optionsUsed } from "../support/doc-commands";
import { gentleShellSetup, installed, type Installed } from "../support/installed";
import { runLauncher } from "../support/launch";
import { scratchHome } from "../support/home";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { scratchDir } from "../support/scratch";
import { treeSnapshot } from "../support/tree";

const f = fixtures();

/** Lines of gentle-shell that no test here runs, each with the reason. Keep this short. */
const NOT_RUN: Record<string, string> = {
  "gentle-shell":
    "starts Pi's interactive session, which needs a terminal and a model; e2e/pi-screens.test.ts and e2e/first-use-setup.test.ts start it in tmux",
};

const commands = docCommands();
const where = (c: DocCommand) => `${c.file}:${c.line}: ${c.text}`;

let i: Installed;
let setupHome: string;
beforeAll(async () => {
  i = await installed(f);
  setupHome = await scratchHome({ scratch: "gss-docs-", registry: f.registryUrl });
});

/** The installed launcher with `args`; the machine-wide policy file is looked up in an empty folder, never /etc. */
function launch(args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runLauncher(i.gs, args, { env: { ...i.env, GSS_TEST_POLICY_ROOT: scratchDir("gss-docs-policy-"), ...extra }, cwd: i.home });
}

describe("the docs' commands of gentle-shell-setup", () => {
  const ours = commands.filter((c) => c.program === "gentle-shell-setup");

  it("are there", () => {
    expect(ours.length).toBeGreaterThan(10);
  });

  it.each(ours.map((c) => [where(c), c] as const))("%s: run as written when it only reads, else its --help names each option it uses", async (_, c) => {
    const found = findCommand(c.args);
    const command = found?.path.join(" ");
    if (command === "status" || command === "completions") {
      // Read-only: run as written against the fixture install.
      const r = await gentleShellSetup(f, i.home, c.args, { GSS_TEST_POLICY_ROOT: scratchDir("gss-docs-policy-") });
      expect(r.code, `${where(c)}\n${r.stdout}${r.stderr}`).toBe(0);
      if (c.args.includes("--json")) {
        const doc = onlyDocument(r.stdout);
        expect(schemaErrors(doc), where(c)).toEqual([]);
        expect(doc.ok, where(c)).toBe(true);
        // With --memory the decision is probed (--json alone does not probe it).
        if (c.args.includes("--memory")) expect((doc.status as { memory: { probed: boolean } }).memory.probed, where(c)).toBe(true);
      } else if (command === "status") {
        expect(r.stdout, where(c)).toMatch(/gentle-shell/i);
      } else {
        expect(r.stdout, where(c)).toContain("gentle-shell");
      }
      return;
    }
    if (command === "install" && found!.rest.length === 1 && found!.rest[0] === "--dry-run") {
      // The plan, nothing changed: in a scratch HOME that stays as it was.
      const home = await scratchHome({ scratch: "gss-docs-dry-", registry: f.registryUrl });
      const before = await treeSnapshot(home);
      const r = await gentleShellSetup(f, home, c.args);
      // 4: nothing was changed, as the exit codes' table says of a dry run.
      expect(r.code, `${where(c)}\n${r.stdout}${r.stderr}`).toBe(4);
      expect(r.stdout, where(c)).toMatch(/^Gentle Shell will be installed into ~\/\.gentle-shell:\n/);
      expect(r.stdout, where(c)).toContain("Dry run: nothing was changed.");
      expect(await treeSnapshot(home), where(c)).toEqual(before);
      return;
    }
    if (!found) {
      // The top level takes only --help and --version.
      expect(
        c.args.every((a) => a === "--help" || a === "--version"),
        where(c),
      ).toBe(true);
      const r = await gentleShellSetup(f, setupHome, c.args);
      expect(r.code, r.stderr).toBe(0);
      return;
    }
    const r = await gentleShellSetup(f, setupHome, [...found.path, "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`gentle-shell-setup ${found.path.join(" ")}`);
    for (const option of optionsUsed(found.rest)) expect(helpNames(r.stdout, option), `${where(c)}: ${option} is not in its --help`).toBe(true);
  });
});

describe("the docs' commands of gentle-shell", () => {
  const ours = commands.filter((c) => c.program === "gentle-shell");

  it("are there, and each one not run is still shown", () => {
    expect(ours.length).toBeGreaterThan(10);
    for (const text of Object.keys(NOT_RUN)) expect(ours.map((c) => c.text)).toContain(text);
  });

  it.each(ours.map((c) => [where(c), c] as const))("%s", async (_, c) => {
    if (c.text in NOT_RUN) return;
    const own = shellCommandOf(c.args);
    if (!own) {
      // Pi's words: only the two the launcher answers before Pi's session are shown without a listed reason.
      expect(c.args.length === 1 && ["--version", "--help"].includes(c.args[0]!), `${where(c)}: Pi's; run it here or list it in NOT_RUN`).toBe(true);
      const r = await launch(c.args, { PI_OFFLINE: "1" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(c.args[0] === "--version" ? /^gentle-shell \S+\npi \S+\n/ : /^Gentle Shell commands:\n/);
      return;
    }
    const words = own.name.split(" ");
    if (own.name === "doctor" && !own.rest.includes("--fix")) {
      // Read-only without --fix: run as written.
      const r = await launch(c.args);
      expect(r.code, `${where(c)}\n${r.stdout}${r.stderr}`).toBe(0);
      if (own.rest.includes("--json")) {
        const doc = onlyDocument(r.stdout);
        expect(schemaErrors(doc), where(c)).toEqual([]);
        expect(doc.command, where(c)).toBe("doctor");
      }
      return;
    }
    switch (own.name) {
      case "status": {
        const r = await launch(c.args);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        if (own.rest.includes("--json")) expect(JSON.parse(r.stdout).ok).toBe(true);
        return;
      }
      case "update": {
        const r = await launch(c.args, { GENTLE_SHELL_UPDATES: "off" });
        expect(r.code, r.stdout + r.stderr).toBe(4);
        expect(r.stderr).toContain("gentle-shell update was not run: updates are off by");
        return;
      }
      case "completions": {
        // It only prints a script.
        const r = await launch(c.args);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain("gentle-shell");
        return;
      }
      case "setup": {
        expect(own.rest, where(c)).toEqual([]);
        const r = await launch(c.args);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        return;
      }
      default: {
        const r = await launch([...words, "--help"]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.split("\n")[0]).toMatch(new RegExp(`^usage: gentle-shell ${own.name} `));
        for (const option of optionsUsed(own.rest)) expect(helpNames(r.stdout, option), `${where(c)}: ${option} is not in its usage`).toBe(true);
      }
    }
  });
});

/** Pi's own words shown in a sentence after gentle-shell (the launcher hands them to Pi), each with where Pi's side is tested. */
const PI_INLINE: Record<string, string> = {
  "install npm:gentle-engram": "Pi's package install, handed on; e2e/update-policy.test.ts holds it to the update policy",
  "update --extensions": "Pi's extension update, handed on; e2e/update-policy.test.ts holds it to the update policy",
  "install <source>": "Pi's package install, handed on; unit/install-gate.test.ts holds it to the update policy",
};

describe("the docs' inline command spans", () => {
  const spans = docInlineCommands();

  it("are there", () => {
    expect(spans.length).toBeGreaterThan(30);
  });

  // Each distinct span once: the same words in two sentences make one check.
  const distinct = [...new Map(spans.map((c) => [c.text, c] as const)).values()];
  it.each(distinct.map((c) => [where(c), c] as const))("%s: names a command of ours, and each option its --help names", async (_, c) => {
    if (c.args.length === 0 || c.args[0] === "--") return; // the program alone, or words handed to Pi after --
    if (c.program === "gentle-shell-setup") {
      const found = findCommand(c.args);
      if (!found) {
        expect(
          c.args.every((a) => a === "--help" || a === "--version"),
          where(c),
        ).toBe(true);
        return;
      }
      const r = await gentleShellSetup(f, setupHome, [...found.path, "--help"]);
      expect(r.code, r.stderr).toBe(0);
      for (const option of optionsUsed(found.rest)) expect(helpNames(r.stdout, option), `${where(c)}: ${option} is not in its --help`).toBe(true);
      return;
    }
    const own = shellCommandOf(c.args);
    if (!own || c.args.join(" ") in PI_INLINE) {
      expect(
        (c.args.length === 1 && ["--version", "--help"].includes(c.args[0]!)) || c.args.join(" ") in PI_INLINE,
        `${where(c)}: Pi's; list it in PI_INLINE`,
      ).toBe(true);
      return;
    }
    // shellCommandOf found the command; its usage is asked only when the span uses options.
    if (optionsUsed(own.rest).length === 0) return;
    const r = await launch([...own.name.split(" "), "--help"]);
    expect(r.code, r.stderr).toBe(0);
    for (const option of optionsUsed(own.rest)) expect(helpNames(r.stdout, option), `${where(c)}: ${option} is not in its usage`).toBe(true);
  });
});

describe("a command line the docs show that is wrong", () => {
  it("fails here: an option its command does not have is not named by its --help", async () => {
    const r = await gentleShellSetup(f, setupHome, ["install", "--help"]);
    expect(helpNames(r.stdout, "--no-modify-path")).toBe(true);
    expect(helpNames(r.stdout, "--modify")).toBe(false);
    expect(helpNames(r.stdout, "--include-shared")).toBe(false);
  });
});
