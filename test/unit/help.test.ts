import { describe, expect, it } from "vitest";
import { HELP_ROWS, PI_HELP_FOLLOWS, shellHelpLines } from "../../src/engine/help";
import { classifyLaunch } from "../../src/core/pi-launch";

describe("gentle-shell --help: Gentle Shell's commands first", () => {
  it("names every command of Shell's own, each on one line with what it does, in a fixed order", () => {
    const lines = shellHelpLines();
    expect(lines[0]).toBe("Gentle Shell commands:");
    const rows = lines.slice(1, 1 + HELP_ROWS.length);
    expect(rows.map((l) => /^ {2}gentle-shell (\S+(?: \S+)?) {2,}\S/.exec(l)?.[1])).toEqual([
      "setup",
      "status",
      "doctor",
      "upgrade",
      "upgrade --to",
      "upgrade --rollback",
      "update",
      "self-uninstall",
      "memory migrate",
      "completions",
    ]);
    // One column for the descriptions, and no line wider than a classic terminal.
    const column = new Set(rows.map((l, i) => l.indexOf(HELP_ROWS[i]![1])));
    expect(column.size).toBe(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines.slice(-2)).toEqual([PI_HELP_FOLLOWS, ""]);
  });

  it("is shown exactly where Pi prints its main help", () => {
    for (const args of [["--help"], ["-h"], ["--continue", "-h"], ["--model", "x", "--help"], ["--unknown-flag", "-h"]]) {
      expect(classifyLaunch(args, {}).printsMainHelp, JSON.stringify(args)).toBe(true);
    }
    for (const args of [
      [],
      ["-p", "what does -h do?"],
      ["--", "--help"],
      ["--name", "-h"],
      ["-e", "--help"],
      // Pi prints its version first and exits: no help follows.
      ["--help", "--version"],
      ["-v", "-h"],
      // A Pi subcommand's own help.
      ["install", "--help"],
      ["update", "-h"],
    ]) {
      expect(classifyLaunch(args, {}).printsMainHelp, JSON.stringify(args)).toBe(false);
    }
    expect(classifyLaunch(["--help"], {}).printsMainHelp).toBe(true);
  });
});
