import { describe, expect, it } from "vitest";
import { PI_SUBCOMMANDS, launchKind, piReadsVersionOrHelp } from "../../src/engine/pi";

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
