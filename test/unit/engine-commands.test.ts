/**
 * The launcher's command table (src/engine/commands.ts): one lookup, and the
 * strict commands' --help and refusal answered by the one loop before the
 * command's module is loaded.
 */
import { describe, expect, it } from "vitest";
import type { BundledInstall } from "../../src/engine/bundled";
import { ENGINE_COMMANDS, findEngineCommand, runEngineCommand } from "../../src/engine/commands";
import { testHost } from "../support/host";

const noInstall = {} as BundledInstall;

describe("the launcher's command table", () => {
  it("registers each own command once, by the words that name it", () => {
    const names = ENGINE_COMMANDS.map((c) => c.words.join(" "));
    expect(names).toEqual(["upgrade", "update", "status", "setup", "memory migrate", "self-uninstall"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("finds a command by its words, and leaves everything else to Pi", () => {
    expect(findEngineCommand(["memory", "migrate", "--confirm-quiescent"])).toMatchObject({ rest: ["--confirm-quiescent"] });
    expect(findEngineCommand(["memory", "migrate"])?.command.words).toEqual(["memory", "migrate"]);
    expect(findEngineCommand(["self-uninstall", "-y"])?.rest).toEqual(["-y"]);
    for (const args of [[], ["memory"], ["-p", "upgrade"], ["list"], ["--help"], ["upgrades"]])
      expect(findEngineCommand(args), JSON.stringify(args)).toBeNull();
  });

  it("answers a strict command's --help from its spec, with exit 0 and nothing run", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(["upgrade", "--help"])!, { install: noInstall, host });
    expect(code).toBe(0);
    expect(lines.out[0]).toBe("usage: gentle-shell upgrade [--rollback] [--source <mirror or folder>]");
    expect(lines.err).toEqual([]);
  });

  it("refuses what a strict command does not define in one line, exit 2, before it runs", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(["self-uninstall", "--everything"])!, { install: noInstall, host });
    expect(code).toBe(2);
    expect(lines.err).toEqual([
      "gentle-shell: unknown option --everything for gentle-shell self-uninstall; usage: gentle-shell self-uninstall [--dry-run] [--yes] [--include-shared]",
    ]);
  });

  it("refuses upgrade's options the spec reads but upgrade does not allow", async () => {
    const host = testHost();
    const { lines } = host;
    const code = await runEngineCommand(findEngineCommand(["upgrade", "--channel", "main"])!, { install: noInstall, host });
    expect(code).toBe(2);
    expect(lines.err).toEqual(["gentle-shell: the main channel is not supported by a bundled install yet; it follows releases"]);
  });
});
