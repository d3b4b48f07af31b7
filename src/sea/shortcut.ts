/**
 * The single executable's fast answers: `--version` and the top-level help
 * are printed from texts the build compiled in (build/build.mjs renders them
 * with the full installer's own code), so they never parse the full bundle.
 * Everything else returns null and runs the full installer. Pure: the caller
 * passes the arguments, the environment and whether standard output is a
 * terminal.
 */
import { fancyOutput } from "../core/terminal-style";

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
    // ...and the installer strips them unless output may be fancy (the one decision, core/terminal-style.ts).
    return fancyOutput({ isTTY }, env) ? text : text.replace(ANSI, "");
  }
  return null;
}
