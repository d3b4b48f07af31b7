import { describe, expect, it } from "vitest";
import { classifyLaunch, PI_SUBCOMMANDS, piFlagsRead, piOptions } from "../../src/core/pi-launch";

const readsVersionOrHelp = (args: readonly string[]) => piFlagsRead(args).version || piFlagsRead(args).help;

describe("when probes are skipped", () => {
  it("reads Pi's version and help flags only where Pi reads them", () => {
    for (const args of [
      ["--version"],
      ["-v"],
      ["--help"],
      ["-h"],
      ["-c", "-v"],
      ["--model", "x", "-h"],
      ["--mode", "-v"],
      ["-p", "-v"],
      ["--unknown-flag", "-h"],
    ]) {
      expect(readsVersionOrHelp(args), JSON.stringify(args)).toBe(true);
    }
    for (const args of [
      ["--", "-v"],
      ["explain -v please"],
      ["--model", "-v"],
      ["--name", "-h"],
      ["-e", "--help"],
      ["--append-system-prompt", "--version"],
      ["-p", "---v"],
      ["--list-models", "x", "hello"],
      ["--models=-v"],
      ["-p", "hello", "--", "--help"],
    ]) {
      expect(readsVersionOrHelp(args), JSON.stringify(args)).toBe(false);
    }
  });

  it("classifies launches: version/help skip, subcommands classify, the rest is final", () => {
    expect(classifyLaunch([], {}).kind).toBe("final");
    expect(classifyLaunch(["-p", "hi"], {}).kind).toBe("final");
    expect(classifyLaunch(["-p", "what does -v do?"], {}).kind).toBe("final");
    expect(classifyLaunch(["-v"], {}).kind).toBe("skip");
    expect(classifyLaunch(["--continue", "--help"], {}).kind).toBe("skip");
    // Pi's own subcommands as Pi's docs/cli.md lists them (Pi 1.6 main.js): the package commands, config, auth and mcp.
    const piSubcommands = ["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"];
    expect(PI_SUBCOMMANDS).toEqual(new Set(piSubcommands));
    for (const sub of piSubcommands) {
      expect(classifyLaunch([sub, "npm:x"], {}).kind).toBe("classify");
    }
    expect(classifyLaunch(["install", "--help"], {}).kind).toBe("skip");
    expect(classifyLaunch(["hello", "list"], {}).kind).toBe("final");
  });
});

describe("classifyLaunch().startsInteractive: the launches that open Pi's interactive session", () => {
  it("is true for a plain start, session flags, a first prompt and options that only set things up", () => {
    for (const args of [
      [],
      ["--continue"],
      ["-r"],
      ["fix the failing test"],
      ["--model", "x", "hello"],
      ["--mode", "text"],
      ["--name", "-p"],
      ["-e", "--help"],
      ["--", "-p", "--help"],
      ["explain what -p does"],
    ]) {
      expect(classifyLaunch(args, {}).startsInteractive, JSON.stringify(args)).toBe(true);
    }
  });

  it("is false for print mode, rpc and json modes, version and help flags, --export, --list-models and Pi's subcommands", () => {
    for (const args of [
      ["-p", "hi"],
      ["--print"],
      ["--continue", "-p", "go on"],
      ["--mode", "rpc"],
      ["--mode", "json", "-p", "x"],
      ["--mode", "bogus"],
      ["--mode"],
      ["--version"],
      ["-h"],
      ["--export", "s.jsonl"],
      ["--list-models"],
      ...[...PI_SUBCOMMANDS].map((c) => [c]),
    ]) {
      expect(classifyLaunch(args, {}).startsInteractive, JSON.stringify(args)).toBe(false);
    }
  });

  it("reads options where Pi reads them: never another option's value, nothing after --", () => {
    expect(piOptions(["--model", "-p", "--offline", "--", "--print"])).toEqual([{ flag: "--model", value: "-p" }, { flag: "--offline" }]);
  });
});

describe("classifyLaunch(): the rest of a launch, read once", () => {
  it("is offline exactly as Pi 1.6.0's main() reads it: --offline anywhere among the words, or PI_OFFLINE 1/true/yes", () => {
    for (const args of [["--offline"], ["-p", "hi", "--offline"], ["--", "--offline"], ["--model", "--offline"], ["install", "npm:x", "--offline"]]) {
      expect(classifyLaunch(args, {}).offline, JSON.stringify(args)).toBe(true);
    }
    for (const args of [[], ["--offline=1"], ["-p", "work --offline"], ["--continue"]]) {
      expect(classifyLaunch(args, {}).offline, JSON.stringify(args)).toBe(false);
    }
    for (const value of ["1", "true", "YES"]) expect(classifyLaunch([], { PI_OFFLINE: value }).offline, value).toBe(true);
    for (const value of ["0", "", "no", "on", " 1"]) expect(classifyLaunch([], { PI_OFFLINE: value }).offline, value).toBe(false);
  });

  it("names the command of Shell's the words start, from the one table, and no other", () => {
    expect(classifyLaunch(["status", "--json"], {}).shellCommand).toEqual({ name: "status", rest: ["--json"] });
    expect(classifyLaunch(["memory", "migrate"], {}).shellCommand).toEqual({ name: "memory migrate", rest: [] });
    for (const args of [[], ["memory"], ["-p", "status"], ["list"], ["statuses"], ["--", "status"]]) {
      expect(classifyLaunch(args, {}).shellCommand, JSON.stringify(args)).toBeNull();
    }
  });

  it("reads Shell's own --version, the startup offer's plain sessions and a launch inside a Gentle Shell session", () => {
    expect(classifyLaunch(["--version"], {}).shellVersion).toBe(true);
    expect(classifyLaunch(["-v"], {}).shellVersion).toBe(true);
    expect(classifyLaunch(["--version", "-c"], {}).shellVersion).toBe(false);
    for (const args of [[], ["--continue"], ["-c"], ["--resume"], ["-r", "-c"]]) expect(classifyLaunch(args, {}).plainSession, JSON.stringify(args)).toBe(true);
    for (const args of [["list"], ["--model", "x"], ["-p", "hi"], ["--offline"]])
      expect(classifyLaunch(args, {}).plainSession, JSON.stringify(args)).toBe(false);
    expect(classifyLaunch([], { GENTLE_SHELL_PREFIX: "/h/.gentle-shell" }).insideSession).toBe(true);
    expect(classifyLaunch([], { GENTLE_SHELL_PREFIX: "" }).insideSession).toBe(false);
  });

  it("decides the offer and first-use setup once, with the terminal, and neither without one", () => {
    expect(classifyLaunch([], {}, true)).toMatchObject({ offer: true, firstUse: true });
    expect(classifyLaunch([], {})).toMatchObject({ offer: false, firstUse: false });
    expect(classifyLaunch(["--continue"], {}, true)).toMatchObject({ offer: true, firstUse: true });
    expect(classifyLaunch(["--model", "x"], {}, true)).toMatchObject({ offer: false, firstUse: true });
    expect(classifyLaunch(["-p", "hi"], {}, true)).toMatchObject({ offer: false, firstUse: false });
    expect(classifyLaunch(["status"], {}, true)).toMatchObject({ offer: false, firstUse: false });
    expect(classifyLaunch([], { CI: "true" }, true)).toMatchObject({ offer: false, firstUse: true });
    expect(classifyLaunch([], { GENTLE_SHELL_PREFIX: "/h/.gentle-shell" }, true)).toMatchObject({ offer: false, firstUse: false });
  });

  it("names a package command by its subcommand and --flags only, and nothing for its help or other words", () => {
    expect(classifyLaunch(["install", "git:https://token@example.invalid/x", "--local"], {}).packageCommand).toBe("gentle-shell install --local");
    expect(classifyLaunch(["update", "--extensions", "--x=secret"], {}).packageCommand).toBe("gentle-shell update --extensions");
    for (const args of [["update", "--help"], ["install", "-h"], ["list"], ["remove", "npm:x"], [], ["-p", "install"]])
      expect(classifyLaunch(args, {}).packageCommand, JSON.stringify(args)).toBeNull();
  });
});
