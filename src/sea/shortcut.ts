/**
 * The single executable's fast answers: `--version` and the top-level help
 * are printed from texts the build compiled in (build/build.mjs renders them
 * with the full installer's own code), so they never parse the full bundle.
 * Everything else returns null and runs the full installer. Pure: the caller
 * passes the arguments, the environment and whether standard output is a
 * terminal.
 */

/** What the build rendered: the version line, and the top-level help with and without citty's colours. */
export interface ShortcutTexts {
  version: string;
  help: string;
  helpColor: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The exact text the full installer prints for `args`, or null when only the full installer can answer. */
export function shortcutAnswer(args: readonly string[], env: Record<string, string | undefined>, isTTY: boolean, texts: ShortcutTexts): string | null {
  // The same tests as runInstallerCli (src/cli/index.ts), in the same order.
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) return `${texts.version}\n`;
  if (args.length === 0 || args[0] === "--help" || args[0] === "-h" || args[0] === "help") {
    // citty leaves colours out when NO_COLOR=1, TERM=dumb, TEST or CI (read when it loads)...
    const cittyColors = !(env.NO_COLOR === "1" || env.TERM === "dumb" || env.TEST || env.CI);
    const text = cittyColors ? texts.helpColor : texts.help;
    // ...and the installer strips them unless output may be fancy (fancyOutput in src/io/progress.ts, which
    // this tiny script cannot import: a terminal, TERM not dumb, no NO_COLOR, CI unset, "false" or "0").
    const ci = Boolean(env.CI) && env.CI !== "false" && env.CI !== "0";
    const fancy = isTTY && env.TERM !== "dumb" && !env.NO_COLOR && !ci;
    return fancy ? text : text.replace(ANSI, "");
  }
  return null;
}
