/**
 * nu's completions as a nu user gets them (issue 48): the install writes both
 * scripts into nu's autoload folder (the shell table's place), a real nu
 * REPL in a real terminal (tmux) loads them by itself at start, and Tab
 * completes each partial word to the table's one candidate; after Pi's words
 * nothing of ours is offered. Taking them back removes our files and the
 * folder we made, and leaves what nu wrote in its config folder. The home's
 * name holds a space. nu is the verified release build/test-shells.mjs unpacks.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { completionPath, installCompletions, removeCompletions } from "../../src/install/completions";
import { buildPins } from "../../src/pins";
import type { CompletionShell } from "../../src/core/completion/index";
import { requires, shellProgram } from "../support/capabilities";
import { scratchDir } from "../support/scratch";
import { Terminal } from "../support/tmux";
import { installerScript, shellScript } from "../unit/completion/scripts";

const NU = shellProgram("nu");
/** How long one line may take to show: a completion is instant, so this only bounds a failing test. */
const LINE_WAIT_MS = 15_000;

/** Each line typed, and the line Tab makes of it. */
const LINES: Array<[typed: string, completed: string]> = [
  ["gentle-shell-setup ins", "gentle-shell-setup install"],
  ["gentle-shell-setup install --dr", "gentle-shell-setup install --dry-run"],
  ["gentle-shell-setup release sign --k", "gentle-shell-setup release sign --key"],
  ["gentle-shell-setup completions f", "gentle-shell-setup completions fish"],
  ["gentle-shell self", "gentle-shell self-uninstall"],
  ["gentle-shell memory migrate --c", "gentle-shell memory migrate --confirm-quiescent"],
  ["gentle-shell doctor --f", "gentle-shell doctor --fix"],
  // Pi's words: after a word that is none of Shell's, nothing of Shell's (status) is offered.
  ["gentle-shell explain st", "gentle-shell explain st"],
];

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
});

/** What is typed on the last prompt line of `screen` (nu's indicator is `>`, or `|` while its menu is open), without the right prompt (the clock). */
function promptLine(screen: string): string {
  const lines = screen.split("\n").filter((l) => /[>|] /.test(l));
  return (lines.at(-1) ?? "")
    .replace(/^.*?[>|] /, "")
    .replace(/\s{2,}.*$/, "")
    .trimEnd();
}

describe("nu completes from the scripts the install wrote", () => {
  it("Tab in a real nu REPL, then the files taken back", async (ctx) => {
    requires(ctx, "nu");
    const root = scratchDir("completion nu-");
    const home = join(root, "a home");
    const cwd = join(root, "empty");
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd);
    const layout = prefixLayout({ home, platform: "linux", pins: buildPins() });
    mkdirSync(layout.prefix, { recursive: true });
    const texts: Record<string, string> = { "gentle-shell-setup": await installerScript("nu"), "gentle-shell": shellScript("nu") };
    const scripts = (format: CompletionShell) => {
      expect(format).toBe("nu");
      return [
        { command: "gentle-shell-setup" as const, text: texts["gentle-shell-setup"]! },
        { command: "gentle-shell" as const, text: texts["gentle-shell"]! },
      ];
    };
    const env = { HOME: home, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" };
    const written = installCompletions(layout, env, "nu", scripts);
    const autoload = join(home, ".config", "nushell", "autoload");
    expect(written.written.sort()).toEqual([join(autoload, "gentle-shell-completions.nu"), join(autoload, "gentle-shell-setup-completions.nu")]);
    expect(completionPath("nu", "gentle-shell", layout, env)).toBe(join(autoload, "gentle-shell-completions.nu"));

    terminal = await Terminal.open({ command: [NU], cwd, env, columns: 160 });
    const t = terminal;
    await t.waitFor((s) => /> /.test(s), "nu's prompt");
    for (const [typed, completed] of LINES) {
      await t.keys("-l", typed);
      await t.waitFor((s) => s.includes(typed), `${typed} echoed`, LINE_WAIT_MS);
      await t.keys("Tab");
      // A moment for a wrong completion to show, then until the line is the one expected (or the wait ends).
      await new Promise((r) => setTimeout(r, 400));
      const screen = await t.waitFor((s) => promptLine(s) === completed, `${completed} after Tab`, LINE_WAIT_MS).catch(() => t.screen());
      expect(promptLine(screen), `${typed}\n${screen}`).toBe(completed);
      // Escape closes a menu nu opened (for no candidate, it shows one saying so); Ctrl-C then clears the line.
      await t.keys("Escape");
      await t.keys("C-c");
      await t.waitFor((s) => promptLine(s) === "", "a fresh prompt", LINE_WAIT_MS);
    }
    await t.close();
    terminal = null;

    // nu wrote its own env.nu and config.nu at its first start; they stay. Ours go, and so does the autoload folder we made.
    const nuFolder = join(home, ".config", "nushell");
    const nuOwn = readdirSync(nuFolder).filter((n) => n !== "autoload");
    const removed = removeCompletions(layout, env);
    expect(removed.kept).toEqual([]);
    expect(removed.removed.sort()).toEqual(written.written.sort());
    expect(existsSync(autoload)).toBe(false);
    expect(readdirSync(nuFolder).sort()).toEqual(nuOwn.sort());
  });
});
