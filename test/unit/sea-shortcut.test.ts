/**
 * The single executable's fast answers (src/sea/shortcut.ts): exactly the
 * arguments the full installer answers with its version line or top help,
 * the same text, and citty's colours kept or left out as the full installer
 * would. build.test.ts checks the built binary against the script.
 */
import { describe, expect, it } from "vitest";
import { runInstallerCli, topHelpText, versionLine } from "../../src/cli/index";
import { buildPins } from "../../src/pins/index";
import { fancyOutput } from "../../src/core/terminal-style";
import { streamHost } from "../support/host";
import { shortcutAnswer, type ShortcutTexts } from "../../src/sea/shortcut";

const texts: ShortcutTexts = { version: "gss 1.2.3 (pins: fixture)", help: "USAGE plain\n", helpColor: "\u001b[1mUSAGE\u001b[22m color\n" };

/** What runInstallerCli writes to standard output for `args`: the process's Host, its stdout a terminal where ours is. */
async function printed(args: string[]): Promise<string> {
  const { host, stdout } = streamHost(undefined, Boolean(process.stdout.isTTY));
  await runInstallerCli(args, host);
  return stdout();
}

describe("shortcutAnswer", () => {
  it("answers the version line and the top help, and nothing else", () => {
    for (const args of [["--version"], ["-V"]]) expect(shortcutAnswer(args, {}, false, texts)).toBe("gss 1.2.3 (pins: fixture)\n");
    for (const args of [[], ["--help"], ["-h"], ["help"], ["--help", "install"]]) expect(shortcutAnswer(args, {}, false, texts)).toBe("USAGE color\n");
    for (const args of [["--version", "x"], ["install", "--help"], ["-v"], ["bogus"], ["install"], ["--gentle-shell-engine", "--version"], ["--yes"]]) {
      expect(shortcutAnswer(args, {}, false, texts), args.join(" ")).toBeNull();
    }
  });

  it("keeps citty's colours only on a terminal without NO_COLOR, and uses citty's plain text where citty leaves them out", () => {
    expect(shortcutAnswer(["--help"], {}, true, texts)).toBe(texts.helpColor);
    expect(shortcutAnswer(["--help"], { NO_COLOR: "yes" }, true, texts)).toBe("USAGE color\n");
    for (const env of [{ NO_COLOR: "1" }, { TERM: "dumb" }, { TEST: "true" }, { CI: "1" }]) {
      expect(shortcutAnswer(["--help"], env, true, texts), JSON.stringify(env)).toBe("USAGE plain\n");
    }
    expect(shortcutAnswer(["--help"], { CI: "" }, true, texts)).toBe(texts.helpColor);
  });

  it("strips colours exactly where the installer's fancyOutput says output is not fancy", () => {
    const envs = [{}, { NO_COLOR: "1" }, { NO_COLOR: "yes" }, { TERM: "dumb" }, { TERM: "xterm" }, { CI: "1" }, { CI: "false" }, { CI: "0" }, { CI: "" }];
    for (const env of envs as Record<string, string>[]) {
      for (const tty of [true, false]) {
        const answer = shortcutAnswer(["--help"], env, tty, texts)!;
        const cittyColors = answer !== texts.help;
        expect(answer.includes("\u001b["), `${JSON.stringify(env)} tty=${tty}`).toBe(cittyColors && fancyOutput({ isTTY: tty }, env));
      }
    }
  });

  it("gives what the full installer prints for the same arguments", async () => {
    const help = await topHelpText();
    const real: ShortcutTexts = { version: versionLine(buildPins()), help, helpColor: help };
    for (const args of [["--version"], ["-V"], [], ["--help"], ["-h"], ["help"], ["--help", "bundle"]]) {
      expect(shortcutAnswer(args, process.env, Boolean(process.stdout.isTTY), real), args.join(" ")).toBe(await printed(args));
    }
  });
});
