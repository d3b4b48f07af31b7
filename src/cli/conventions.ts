/**
 * What every `--help` of gentle-shell-setup ends with (issue 14, CLI
 * conventions): the exit codes (src/core/errors.ts EXIT) and the
 * environment knobs (./knobs.ts). Pure text.
 */
import { EXIT } from "../core/errors";
import { knobLines } from "./knobs";

export const EXIT_CODE_LINES: readonly string[] = [
  "Exit codes:",
  `  ${EXIT.ok}   done`,
  `  ${EXIT.failure}   failed; one sentence says why`,
  `  ${EXIT.usage}   usage: an unknown option or argument, or a bad value (refused before anything runs)`,
  `  ${EXIT.setupFailed}   installed, but the last step, gentle-shell setup, failed (the install works)`,
  `  ${EXIT.unchanged}   nothing was changed: a dry run, a declined question, or blocked (no terminal to ask, nothing to do)`,
  `  ${EXIT.bug}  a bug (printed with its stack; please report it)`,
  `  ${EXIT.interrupted} stopped by Ctrl+C`,
];

export const KNOB_LINES: readonly string[] = [
  "Environment (a flag given on the command line wins):",
  ...knobLines(),
  "  NO_COLOR, CI, or output that is no terminal: plain lines, no colours or progress bars",
];

/** The block after a command's usage; `knobs` false for a command that reads none (uninstall). */
export function helpEpilogue(knobs = true): string {
  return `${[...(knobs ? [...KNOB_LINES, ""] : []), ...EXIT_CODE_LINES].join("\n")}\n`;
}
