/**
 * The engine's internal commands (src/installed/internal.ts), the module
 * interface an upgrade uses across a process boundary: one table, one lookup.
 * What each command answers is test/unit/module-session.test.ts's and the
 * e2e upgrade's; here, which words are commands and the refusal of any other.
 */
import { describe, expect, it } from "vitest";
import { INTERNAL_COMMANDS, runInternal } from "../../src/installed/internal";
import { testHost } from "../support/host";

describe("the engine's internal commands", () => {
  it("are the ones the header documents, each once", () => {
    expect([...INTERNAL_COMMANDS.keys()]).toEqual(["functions", "ensure-runtime", "serve", "launcher-script", "ensure-launcher"]);
  });

  it("refuse any other word with exit 2 and one line, before reading this engine's layout", async () => {
    for (const args of [["bogus"], [], ["constructor"], ["__proto__"], ["Serve"]]) {
      const host = testHost();
      expect(await runInternal(args, host), JSON.stringify(args)).toBe(2);
      expect(host.lines.err, JSON.stringify(args)).toEqual([`gentle-shell: unknown internal command ${JSON.stringify(args[0])}`]);
      expect(host.lines.out).toEqual([]);
    }
  });
});
