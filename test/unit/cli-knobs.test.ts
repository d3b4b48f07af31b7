/**
 * The installer's conventions (issue 14): environment knobs, where a flag
 * wins and a bad value names its variable (src/cli/knobs.ts); plain output
 * under NO_COLOR, CI and non-terminals, none under --quiet (src/io/progress.ts);
 * the exit codes the help documents (src/cli/conventions.ts).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { gives, KNOBS, knobSwitch, settle, withKnob } from "../../src/cli/knobs";
import { installerTable } from "../../src/cli/index";
import { EXIT_CODE_LINES, helpEpilogue } from "../../src/cli/conventions";
import { EXIT } from "../../src/core/errors";
import { fancyOutput } from "../../src/core/terminal-style";
import { progressFor, silentProgress } from "../../src/io/progress";

/** What citty hands install: --modify-path has its default. */
const defaults = { "modify-path": true };

function refusal(run: () => unknown): { message: string; code: number } {
  try {
    run();
  } catch (error) {
    return { message: (error as Error).message, code: (error as { exitCode: number }).exitCode };
  }
  throw new Error("not refused");
}

describe("settle: each flag, else its environment knob", () => {
  it("reads every knob when no flag is given", () => {
    const env = { GENTLE_SHELL_SOURCE: "/media/bundle", GENTLE_SHELL_RELEASE: "4.1.0", GENTLE_SHELL_NO_MODIFY_PATH: "1", GENTLE_SHELL_QUIET: "true" };
    expect(settle(defaults, [], env)).toEqual({
      source: "/media/bundle",
      sourceFrom: "GENTLE_SHELL_SOURCE",
      release: "4.1.0",
      quiet: true,
      noModifyPath: true,
    });
    expect(settle(defaults, [], {})).toEqual({ source: undefined, sourceFrom: "GENTLE_SHELL_SOURCE", release: undefined, quiet: false, noModifyPath: false });
    expect(settle(defaults, [], { GENTLE_SHELL_RELEASE: "latest", GENTLE_SHELL_QUIET: "0", GENTLE_SHELL_SOURCE: "" }).release).toBeUndefined();
  });

  it("a flag on the command line beats its knob, in every form", () => {
    const env = { GENTLE_SHELL_SOURCE: "/media/bundle", GENTLE_SHELL_RELEASE: "4.1.0", GENTLE_SHELL_NO_MODIFY_PATH: "1", GENTLE_SHELL_QUIET: "1" };
    const flags = { source: "https://m.test/gs", release: "4.0.0", quiet: false, "modify-path": true };
    expect(settle(flags, ["--source", "https://m.test/gs", "--release=4.0.0", "--no-quiet", "--modify-path"], env)).toEqual({
      source: "https://m.test/gs",
      sourceFrom: "--source",
      release: "4.0.0",
      quiet: false,
      noModifyPath: false,
    });
    expect(settle({ ...defaults, quiet: true }, ["-q"], {}).quiet).toBe(true);
    expect(settle({ "modify-path": false }, ["--no-modify-path"], {}).noModifyPath).toBe(true);
    // A knob whose flag is given is not read, so its value is not checked either.
    expect(settle({ ...defaults, release: "4.0.0" }, ["--release", "4.0.0"], { GENTLE_SHELL_RELEASE: "banana" }).release).toBe("4.0.0");
  });

  it("checks a knob's value as its flag's, in one sentence naming the variable (exit 2)", () => {
    expect(refusal(() => settle(defaults, [], { GENTLE_SHELL_RELEASE: "banana" }))).toEqual({
      message: 'GENTLE_SHELL_RELEASE takes an exact Gentle Shell version such as 4.1.0, or latest; not "banana"',
      code: EXIT.usage,
    });
    expect(refusal(() => settle(defaults, [], { GENTLE_SHELL_SOURCE: "https://me:pw@m.test/gs" }))).toEqual({
      message: "a GENTLE_SHELL_SOURCE URL must not carry credentials; nothing was changed",
      code: EXIT.usage,
    });
    expect(refusal(() => settle(defaults, [], { GENTLE_SHELL_QUIET: "yes please" }))).toEqual({
      message: 'GENTLE_SHELL_QUIET takes 1 (or true) or 0 (or false), not "yes please"; nothing was changed',
      code: EXIT.usage,
    });
    expect(refusal(() => settle(defaults, [], { GENTLE_SHELL_NO_MODIFY_PATH: "2" })).message).toMatch(/^GENTLE_SHELL_NO_MODIFY_PATH takes 1/);
    // The flag's own refusals still name the flag.
    expect(refusal(() => settle({ ...defaults, release: "^4" }, ["--release", "^4"], {})).message).toMatch(/^--release takes an exact/);
    expect(refusal(() => settle({ ...defaults, source: "https://me:pw@m.test" }, ["--source=https://me:pw@m.test"], {})).message).toBe(
      "a --source URL must not carry credentials; nothing was changed",
    );
    // Secrets are never repeated.
    expect(refusal(() => settle(defaults, [], { GENTLE_SHELL_SOURCE: "https://me:pw@m.test/gs" })).message).not.toContain("pw");
  });

  it("a command without --modify-path (bundle) does not read GENTLE_SHELL_NO_MODIFY_PATH", () => {
    expect(settle({}, [], { GENTLE_SHELL_NO_MODIFY_PATH: "junk" }).noModifyPath).toBe(false);
  });

  it("gives: a flag counts in its --no- and = forms and by alias, never after --", () => {
    expect(gives(["--quiet"], "quiet")).toBe(true);
    expect(gives(["--no-quiet"], "quiet")).toBe(true);
    expect(gives(["--quiet=false"], "quiet")).toBe(true);
    expect(gives(["-q"], "quiet", "q")).toBe(true);
    expect(gives(["--quietly"], "quiet")).toBe(false);
    expect(gives(["--", "--quiet"], "quiet")).toBe(false);
    expect(knobSwitch({ X: "TRUE" }, "X")).toBe(true);
    expect(knobSwitch({ X: "False" }, "X")).toBe(false);
    expect(knobSwitch({}, "X")).toBeUndefined();
  });
});

describe("plain lines: NO_COLOR, CI, TERM=dumb and non-terminals; nothing under --quiet", () => {
  const tty = { isTTY: true };
  it("bars and colours only on a terminal with none of them set", () => {
    expect(fancyOutput(tty, {})).toBe(true);
    expect(fancyOutput(tty, { CI: "false" })).toBe(true);
    expect(fancyOutput(tty, { NO_COLOR: "" })).toBe(true);
    for (const env of [{ NO_COLOR: "1" }, { CI: "true" }, { CI: "1" }, { TERM: "dumb" }]) expect(fancyOutput(tty, env), JSON.stringify(env)).toBe(false);
    expect(fancyOutput({ isTTY: false }, {})).toBe(false);
    expect(fancyOutput({}, {})).toBe(false);
  });

  it("progressFor gives plain lines on a terminal under NO_COLOR, and no line at all when quiet", () => {
    const lines: string[] = [];
    const stream = { isTTY: true } as unknown as NodeJS.WriteStream;
    const plain = progressFor(stream, (l) => lines.push(l), { NO_COLOR: "1" });
    plain.start("node.tar.xz").done();
    expect(lines[0]).toBe("downloading node.tar.xz");
    expect(lines[1]).toMatch(/^node\.tar\.xz: 0 B verified in /);
    const quiet = progressFor(stream, (l) => lines.push(`quiet: ${l}`), { NO_COLOR: "1" }, true);
    expect(quiet).toBe(silentProgress);
    const one = quiet.start("pnpm.tgz");
    one.update(10, 20);
    one.fail();
    quiet.stop();
    expect(lines).toHaveLength(2);
  });
});

describe("the exit codes the help documents", () => {
  it("are EXIT's, each once, with what each means", () => {
    const codes = EXIT_CODE_LINES.slice(1).map((l) => Number(/^ {2}(\d+) /.exec(l)?.[1]));
    expect(codes.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
    const text = helpEpilogue();
    expect(text).toContain(`  ${EXIT.unchanged}   nothing was changed: a dry run, a declined question, or blocked`);
    expect(text).toContain(`  ${EXIT.usage}   usage: an unknown option or argument`);
    for (const knob of ["GENTLE_SHELL_SOURCE", "GENTLE_SHELL_RELEASE", "GENTLE_SHELL_NO_MODIFY_PATH", "GENTLE_SHELL_QUIET", "NO_COLOR"])
      expect(text).toContain(knob);
  });
});

describe("the knob table (issue 48): one row per knob, everything else made from it", () => {
  it("the help lines, one per row, in the columns --help has always had", () => {
    const text = helpEpilogue();
    expect(text).toContain("  GENTLE_SHELL_SOURCE=<url or folder>   as --source\n");
    expect(text).toContain("  GENTLE_SHELL_RELEASE=<version>        as --release (an exact version, or latest)\n");
    expect(text).toContain("  GENTLE_SHELL_NO_MODIFY_PATH=1         as --no-modify-path\n");
    expect(text).toContain("  GENTLE_SHELL_QUIET=1                  as --quiet\n");
    for (const k of KNOBS) expect(text).toContain(`  ${k.sample} `);
  });

  it("every install, migrate and bundle flag that has a knob names it in its description, and only those", () => {
    const sub = installerTable().subCommands as Record<string, { args?: Record<string, { description?: string }> }>;
    for (const name of ["install", "migrate", "bundle"]) {
      const args = sub[name]!.args ?? {};
      for (const k of KNOBS) {
        if (!(k.flag in args)) continue;
        expect(args[k.flag]!.description, `${name} --${k.flag}`).toContain(k.variable);
      }
      for (const [flag, a] of Object.entries(args))
        if (!KNOBS.some((k) => k.flag === flag)) expect(a.description ?? "", `${name} --${flag}`).not.toMatch(/GENTLE_SHELL_[A-Z_]+/);
    }
    expect(withKnob("modify-path", "Add gentle-shell to PATH")).toBe("Add gentle-shell to PATH (--no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1 to skip)");
    expect(withKnob("release", "R")).toBe("R (or GENTLE_SHELL_RELEASE)");
  });

  it("docs/fleets-and-ci.md's knob table has exactly the rows, each with its flag", () => {
    const doc = readFileSync(new URL("../../docs/fleets-and-ci.md", import.meta.url), "utf8");
    const rows = doc
      .split("\n")
      .filter((l) => /^\| `GENTLE_SHELL_/.test(l))
      .map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.map((r) => r[1])).toEqual(KNOBS.map((k) => `\`${k.sample.replace(/=<.*>$/, "")}\``));
    for (const [i, k] of KNOBS.entries()) expect(rows[i]![2]!.startsWith(`\`--${k.on === false ? "no-" : ""}${k.flag}\``), k.variable).toBe(true);
  });
});
