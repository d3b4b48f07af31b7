/** The engine's own commands are strict (src/commands/specs.ts); every other word is Pi's, untouched. */
import { describe, expect, it } from "vitest";
import { MEMORY_MIGRATE, parseShellCommand, SELF_UNINSTALL, UPGRADE } from "../../src/commands/specs";
import { classifyLaunch } from "../../src/core/pi-launch";
import { findEngineCommand } from "../../src/commands/index";
import { parseUpgradeArgs } from "../../src/commands/upgrade";
import { parseUninstallArgs } from "../../src/commands/self-uninstall/removal-plan";
import { HELP_ROWS } from "../../src/engine/help";

const UPGRADE_USAGE = "usage: gentle-shell upgrade [--to <version> [--yes]] [--rollback] [--source <mirror or folder>]";
const UNINSTALL_USAGE = "usage: gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]";

/** The strict command the launcher's command table finds for `args`, with the words after its name; null for any other. */
function strictCommand(args: readonly string[]) {
  const found = findEngineCommand(classifyLaunch(args, {}));
  return found?.spec ? { spec: found.spec, rest: found.rest } : null;
}

describe("which words are Shell's own strict commands", () => {
  it("upgrade, self-uninstall and memory migrate; Pi's words, update, setup and a prompt are not", () => {
    expect(strictCommand(["upgrade", "--rollback"])?.spec).toBe(UPGRADE);
    expect(strictCommand(["upgrade"])?.rest).toEqual([]);
    expect(strictCommand(["self-uninstall", "-y"])?.rest).toEqual(["-y"]);
    expect(strictCommand(["memory", "migrate", "--confirm-quiescent"])).toEqual({ spec: MEMORY_MIGRATE, rest: ["--confirm-quiescent"] });
    for (const args of [
      [],
      ["--frobnicate"],
      ["update", "--frobnicate"],
      ["setup", "--anything"],
      ["memory"],
      ["memory", "of", "the", "day"],
      ["install", "npm:x"],
      ["-p", "upgrade the code"],
      ["--model", "upgrade"],
      ["please", "upgrade"],
    ]) {
      expect(strictCommand(args), JSON.stringify(args)).toBeNull();
    }
  });

  it("each strict command is one the launcher's help lists", () => {
    const listed = HELP_ROWS.map(([command]) => command);
    for (const spec of [UPGRADE, SELF_UNINSTALL, MEMORY_MIGRATE]) expect(listed).toContain(spec.name);
  });
});

describe("parseShellCommand", () => {
  it("accepts every defined form: flags, aliases, a value after a space or =", () => {
    expect(parseShellCommand(UPGRADE, [])).toEqual({ kind: "ok", given: new Map() });
    expect(parseShellCommand(UPGRADE, ["--source", "/x"])).toEqual({ kind: "ok", given: new Map([["--source", "/x"]]) });
    expect(parseShellCommand(UPGRADE, ["--source=https://m.test/a=b"])).toEqual({ kind: "ok", given: new Map([["--source", "https://m.test/a=b"]]) });
    expect(parseShellCommand(SELF_UNINSTALL, ["-y", "--dry-run"])).toEqual({
      kind: "ok",
      given: new Map<string, true>([
        ["--yes", true],
        ["--dry-run", true],
      ]),
    });
  });

  it("refuses an unknown option, a stray argument, a missing value, a value on a flag and a repeat, in one line with the usage", () => {
    const cases: Array<[readonly string[], string]> = [
      [["--frobnicate"], "unknown option --frobnicate"],
      [["--frobnicate=1"], "unknown option --frobnicate"],
      [["-x"], "unknown option -x"],
      [["now"], 'unexpected argument "now"'],
      [["--rollback", "-"], 'unexpected argument "-"'],
      [["--source"], "--source needs a value"],
      [["--source", "--rollback"], "--source needs a value"],
      [["--source="], "--source needs a value"],
      [["--rollback=yes"], "--rollback takes no value"],
      [["--rollback", "--rollback"], "--rollback is given twice"],
    ];
    for (const [args, what] of cases) {
      expect(parseShellCommand(UPGRADE, args), JSON.stringify(args)).toEqual({ kind: "refuse", message: `${what} for gentle-shell upgrade; ${UPGRADE_USAGE}` });
    }
    const refused = parseShellCommand(SELF_UNINSTALL, ["--force"]);
    expect(refused).toEqual({ kind: "refuse", message: `unknown option --force for gentle-shell self-uninstall; ${UNINSTALL_USAGE}` });
  });

  it("answers --help or -h, anywhere among the words, with the usage, what it does and its exit codes", () => {
    for (const args of [["--help"], ["-h"], ["--frobnicate", "--help"]]) {
      const parsed = parseShellCommand(SELF_UNINSTALL, args);
      expect(parsed.kind).toBe("help");
      if (parsed.kind !== "help") continue;
      expect(parsed.lines[0]).toBe(UNINSTALL_USAGE);
      expect(parsed.lines.join("\n")).toContain("Remove Gentle Shell from this machine");
      expect(parsed.lines.at(-1)).toMatch(/^Exit codes: 0 removed; 1 failed; 2 usage .*; 4 nothing was removed \(a dry run, a declined question/);
    }
  });
});

describe("the commands' own readers", () => {
  it("upgrade: --rollback, --source, the release channel; refusals are one line", () => {
    expect(parseUpgradeArgs([])).toEqual({ rollback: false });
    expect(parseUpgradeArgs(["--rollback"])).toEqual({ rollback: true });
    expect(parseUpgradeArgs(["--source", "/b"])).toEqual({ rollback: false, source: "/b" });
    expect(parseUpgradeArgs(["--channel", "release"])).toEqual({ rollback: false });
    expect(parseUpgradeArgs(["--channel=main"])).toBe("the main channel is not supported by a bundled install yet; it follows releases");
    expect(parseUpgradeArgs(["--rollback", "--source", "/b"])).toBe(
      `--rollback switches to a version that is already installed and takes no --source; ${UPGRADE_USAGE}`,
    );
    expect(parseUpgradeArgs(["latest"])).toBe(`unexpected argument "latest" for gentle-shell upgrade; ${UPGRADE_USAGE}`);
    for (const message of [parseUpgradeArgs(["--frobnicate"]), parseUpgradeArgs(["--source"])]) {
      expect(typeof message === "string" && !message.includes("\n")).toBe(true);
    }
  });

  it("self-uninstall: --dry-run, --yes or -y, --include-shared", () => {
    expect(parseUninstallArgs([])).toEqual({ dryRun: false, yes: false, includeShared: false });
    expect(parseUninstallArgs(["-y", "--include-shared", "--dry-run"])).toEqual({ dryRun: true, yes: true, includeShared: true });
    expect(parseUninstallArgs(["everything"])).toBe(`unexpected argument "everything" for gentle-shell self-uninstall; ${UNINSTALL_USAGE}`);
  });
});
