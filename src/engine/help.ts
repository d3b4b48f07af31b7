/**
 * `gentle-shell --help` (issue 11, Help): Gentle Shell's own commands first,
 * then Pi's help unchanged. Pure: the block's text, and when it is shown.
 * It is shown exactly when Pi prints its main help (classifyLaunch(args, env).printsMainHelp, src/core/pi-launch.ts), so a
 * help flag that Pi reads as another option's value, after `--`, beside a
 * version flag or after a Pi subcommand shows nothing extra. Printing it
 * probes nothing and starts nothing (Engram startup safety: help flags).
 */
import { SHELL_COMMANDS, type ShellCommandEntry } from "../core/shell-commands";

/** Gentle Shell's own commands (the one table, ../core/shell-commands.ts), each form with one line of what it does. */
export const HELP_ROWS: ShellCommandEntry["help"] = (SHELL_COMMANDS as readonly ShellCommandEntry[]).flatMap((command) => command.help);

/** The last line of the block, right before Pi's own help. */
export const PI_HELP_FOLLOWS = "Everything else goes to Pi, with gentle-pi loaded. Pi's own help:";

/** The block printed before Pi's help. */
export function shellHelpLines(): string[] {
  const width = Math.max(...HELP_ROWS.map(([command]) => `gentle-shell ${command}`.length)) + 2;
  return ["Gentle Shell commands:", ...HELP_ROWS.map(([command, what]) => `  ${`gentle-shell ${command}`.padEnd(width)}${what}`), "", PI_HELP_FOLLOWS, ""];
}
