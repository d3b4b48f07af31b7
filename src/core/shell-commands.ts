/**
 * Gentle Shell's own commands, each written once (issue 40): the words after
 * `gentle-shell` that name it, and its lines in the launcher's help. The
 * launch's classification finds a command here (./pi-launch.ts), the engine
 * runs it (src/commands/index.ts has exactly one entry for each name, which
 * the compiler checks), the help lists it (src/engine/help.ts), and first-use
 * setup never runs for one (src/engine/first-use.ts). Every other word is
 * Pi's. Pure.
 */

export interface ShellCommandEntry {
  /** The words after `gentle-shell`, space-separated: "upgrade", "memory migrate". */
  name: string;
  /** Its rows in the help, in order: a form (the name, or the name and an option) and one line of what it does. */
  help: ReadonlyArray<readonly [form: string, what: string]>;
}

/** In the help's order. */
export const SHELL_COMMANDS = [
  { name: "setup", help: [["setup", "Set up Gentle AI for Pi in this Shell, with the verified Engram"]] },
  { name: "status", help: [["status", "Show what is installed and whether it is healthy (--json)"]] },
  { name: "doctor", help: [["doctor", "Name each break in the install; --fix repairs what is ours"]] },
  {
    name: "upgrade",
    help: [
      ["upgrade", "Install the newest Gentle Shell release and make it current"],
      ["upgrade --to", "Install that exact release; an older one is confirmed first"],
      ["upgrade --rollback", "Go back to the version that was current before the last upgrade"],
    ],
  },
  { name: "update", help: [["update", "Move to Pi's newest release for this Shell, keeping the old one"]] },
  { name: "self-uninstall", help: [["self-uninstall", "Remove Gentle Shell from this machine (--dry-run shows what goes)"]] },
  { name: "memory migrate", help: [["memory migrate", "Migrate a Shell-provisioned Engram store (--confirm-quiescent)"]] },
  // issue 42: `completions` is none of Pi 1.6.0's own commands (install, remove, uninstall, update, list, config, auth,
  // mcp: ./pi-launch.ts PI_SUBCOMMANDS), so Shell takes the word as it took `doctor` (issue 41), and shadows no Pi
  // command; what it takes from Pi is only a first message that starts with it, and `gentle-shell -- completions` stays that.
  { name: "completions", help: [["completions", "Print the completion script for bash, zsh, fish or powershell"]] },
] as const satisfies readonly ShellCommandEntry[];

export type ShellCommandName = (typeof SHELL_COMMANDS)[number]["name"];

/** The command of Shell's that `args` (the words after gentle-shell) starts, and the words after its name; null for Pi's. */
export function shellCommandOf(args: readonly string[]): { name: ShellCommandName; rest: string[] } | null {
  for (const { name } of SHELL_COMMANDS) {
    const words = name.split(" ");
    if (words.every((word, i) => args[i] === word)) return { name, rest: args.slice(words.length) };
  }
  return null;
}
