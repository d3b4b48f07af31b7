/**
 * The launcher's command table (src/commands/index.ts): one lookup, and the
 * strict commands' --help and refusal answered by the one loop before the
 * command's module is loaded.
 */
import { describe, expect, it } from "vitest";
import type { PrivateInstall } from "../../src/installed/private-install";
import { classifyLaunch } from "../../src/core/pi-launch";
import { SHELL_COMMANDS } from "../../src/core/shell-commands";
import { ENGINE_COMMANDS, findEngineCommand, runEngineCommand } from "../../src/commands/index";
import { testHost } from "../support/host";

const noInstall = {} as PrivateInstall;

describe("the launcher's command table", () => {
  it("runs each command of the one table, under its name, and no other", () => {
    const names = SHELL_COMMANDS.map((c) => c.name);
    expect(names).toEqual(["setup", "status", "doctor", "upgrade", "update", "self-uninstall", "memory migrate", "completions"]);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(ENGINE_COMMANDS).sort()).toEqual([...names].sort());
    // A strict command's spec comes from its own row of the table, under its name; the others read their own words.
    for (const name of names) {
      const found = findEngineCommand(classifyLaunch(name.split(" "), {}))!;
      const row = SHELL_COMMANDS.find((c) => c.name === name)!;
      expect(found.spec, name).toEqual("strict" in row ? { name, ...row.strict } : null);
    }
    expect(names.filter((name) => findEngineCommand(classifyLaunch(name.split(" "), {}))!.spec)).toEqual([
      "doctor",
      "upgrade",
      "self-uninstall",
      "memory migrate",
    ]);
  });

  it("finds a command by its words, and leaves everything else to Pi", () => {
    expect(findEngineCommand(classifyLaunch(["memory", "migrate", "--confirm-quiescent"], {}))).toMatchObject({ rest: ["--confirm-quiescent"] });
    expect(findEngineCommand(classifyLaunch(["memory", "migrate"], {}))?.name).toBe("memory migrate");
    expect(findEngineCommand(classifyLaunch(["status", "--json"], {}))).toMatchObject({ name: "status", command: ENGINE_COMMANDS.status, rest: ["--json"] });
    expect(findEngineCommand(classifyLaunch(["self-uninstall", "-y"], {}))?.rest).toEqual(["-y"]);
    // issue 41: `doctor` is Shell's; after `--` the word is Pi's, as it was before doctor existed.
    expect(findEngineCommand(classifyLaunch(["doctor", "--fix"], {}))).toMatchObject({ name: "doctor", rest: ["--fix"] });
    for (const args of [[], ["memory"], ["-p", "upgrade"], ["list"], ["--help"], ["upgrades"], ["--", "doctor"]])
      expect(findEngineCommand(classifyLaunch(args, {})), JSON.stringify(args)).toBeNull();
  });

  it("answers a strict command's --help from its spec, with exit 0 and nothing run", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(classifyLaunch(["upgrade", "--help"], {}))!, { install: noInstall, host });
    expect(code).toBe(0);
    expect(lines.out[0]).toBe("usage: gentle-shell upgrade [--to <version> [--yes]] [--rollback] [--source <mirror or folder>]");
    expect(lines.err).toEqual([]);
  });

  it("refuses what a strict command does not define in one line, exit 2, before it runs", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(classifyLaunch(["self-uninstall", "--everything"], {}))!, { install: noInstall, host });
    expect(code).toBe(2);
    expect(lines.err).toEqual([
      "gentle-shell: unknown option --everything for gentle-shell self-uninstall; usage: gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]",
    ]);
  });

  it("refuses upgrade's options the spec reads but upgrade does not allow", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(classifyLaunch(["upgrade", "--channel", "main"], {}))!, { install: noInstall, host });
    expect(code).toBe(2);
    expect(lines.err).toEqual(["gentle-shell: the main channel is not supported by a bundled install yet; it follows releases"]);
  });
});
