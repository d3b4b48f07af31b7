import { describe, expect, it } from "vitest";
import { PI_SUBCOMMANDS, launchKind, piOptions, piReadsVersionOrHelp, piStartsInteractive } from "../../src/engine/pi";

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
      expect(piReadsVersionOrHelp(args), JSON.stringify(args)).toBe(true);
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
      expect(piReadsVersionOrHelp(args), JSON.stringify(args)).toBe(false);
    }
  });

  it("classifies launches: version/help skip, subcommands classify, the rest is final", () => {
    expect(launchKind([])).toBe("final");
    expect(launchKind(["-p", "hi"])).toBe("final");
    expect(launchKind(["-p", "what does -v do?"])).toBe("final");
    expect(launchKind(["-v"])).toBe("skip");
    expect(launchKind(["--continue", "--help"])).toBe("skip");
    // Pi's own subcommands as Pi's docs/cli.md lists them (Pi 1.6 main.js): the package commands, config, auth and mcp.
    const piSubcommands = ["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"];
    expect(PI_SUBCOMMANDS).toEqual(new Set(piSubcommands));
    for (const sub of piSubcommands) {
      expect(launchKind([sub, "npm:x"])).toBe("classify");
    }
    expect(launchKind(["install", "--help"])).toBe("skip");
    expect(launchKind(["hello", "list"])).toBe("final");
  });
});

describe("piStartsInteractive: the launches that open Pi's interactive session", () => {
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
      expect(piStartsInteractive(args), JSON.stringify(args)).toBe(true);
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
      expect(piStartsInteractive(args), JSON.stringify(args)).toBe(false);
    }
  });

  it("reads options where Pi reads them: never another option's value, nothing after --", () => {
    expect(piOptions(["--model", "-p", "--offline", "--", "--print"])).toEqual([{ flag: "--model", value: "-p" }, { flag: "--offline" }]);
  });
});
