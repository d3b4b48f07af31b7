/**
 * `gentle-shell --help` (issue 11, Help): Gentle Shell's own commands first,
 * then Pi's help unchanged. Pure: the block's text, and when it is shown.
 * It is shown exactly when Pi prints its main help (classifyLaunch(args).printsMainHelp, src/engine/pi.ts), so a
 * help flag that Pi reads as another option's value, after `--`, beside a
 * version flag or after a Pi subcommand shows nothing extra. Printing it
 * probes nothing and starts nothing (Engram startup safety: help flags).
 */

/** Gentle Shell's own commands, each with one line of what it does. */
export const SHELL_COMMANDS: ReadonlyArray<readonly [command: string, what: string]> = [
  ["setup", "Set up Gentle AI for Pi in this Shell, with the verified Engram"],
  ["status", "Show what is installed and whether it is healthy (--json)"],
  ["upgrade", "Install the newest Gentle Shell release and make it current"],
  ["upgrade --rollback", "Go back to the version that was current before the last upgrade"],
  ["update", "Move to Pi's newest release for this Shell, keeping the old one"],
  ["self-uninstall", "Remove Gentle Shell from this machine (--dry-run shows what goes)"],
  ["memory migrate", "Migrate a Shell-provisioned Engram store (--confirm-quiescent)"],
];

/** The last line of the block, right before Pi's own help. */
export const PI_HELP_FOLLOWS = "Everything else goes to Pi, with gentle-pi loaded. Pi's own help:";

/** The block printed before Pi's help. */
export function shellHelpLines(): string[] {
  const width = Math.max(...SHELL_COMMANDS.map(([command]) => `gentle-shell ${command}`.length)) + 2;
  return ["Gentle Shell commands:", ...SHELL_COMMANDS.map(([command, what]) => `  ${`gentle-shell ${command}`.padEnd(width)}${what}`), "", PI_HELP_FOLLOWS, ""];
}
