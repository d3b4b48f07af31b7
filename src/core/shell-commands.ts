/**
 * Gentle Shell's own commands, each written once (issue 40): the words after
 * `gentle-shell` that name it, and its lines in the launcher's help. The
 * launch's classification finds a command here (./pi-launch.ts), the engine
 * runs it (src/commands/index.ts has exactly one entry for each name, which
 * the compiler checks), the help lists it (src/engine/help.ts), its strict
 * options are parsed from it (src/commands/specs.ts), its completion is made
 * from it (src/commands/completion-tree.ts), and first-use setup never runs
 * for one (src/engine/first-use.ts). Every other word is Pi's. Pure.
 */
import { COMPLETION_SHELL_WORDS } from "./completion/shells";

/**
 * A strict command's surface (issue 14, CLI conventions): what it refuses before it runs, and its --help. The
 * parse is src/commands/specs.ts's.
 */
export interface StrictSurface {
  /** Each option, with whether it takes a value. */
  options: Readonly<Record<string, "flag" | "value">>;
  /** Short forms: "-y" → "--yes". */
  aliases?: Readonly<Record<string, string>>;
  /** The usage line's arguments, and one line of what it does. */
  synopsis: string;
  what: string;
  /** Its exit codes, as one clause. */
  exits: string;
  /** It words its own refusal (memory migrate names the one store it migrates; doctor's may be a JSON document). */
  refusesItself?: boolean;
}

export interface ShellCommandEntry {
  /** The words after `gentle-shell`, space-separated: "upgrade", "memory migrate". */
  name: string;
  /** Its rows in the help, in order: a form (the name, or the name and an option) and one line of what it does. */
  help: ReadonlyArray<readonly [form: string, what: string]>;
  /** A strict command's options and usage; none for a command that reads its own words or hands them on. */
  strict?: StrictSurface;
  /** The options of a command that reads its own words (status): for its completion. */
  ownOptions?: readonly string[];
}

/** In the help's order. */
export const SHELL_COMMANDS = [
  { name: "setup", help: [["setup", "Set up Gentle AI for Pi in this Shell, with the verified Engram"]] },
  {
    name: "status",
    help: [["status", "Show what is installed and whether it is healthy (--json)"]],
    // It reads its own words (src/commands/status/command.ts parseStatusArgs, which a test holds to these).
    ownOptions: ["--json", "--memory", "--no-memory"],
  },
  {
    name: "doctor",
    help: [["doctor", "Name each break in the install; --fix repairs what is ours"]],
    strict: {
      options: { "--fix": "flag", "--json": "flag", "--source": "value" },
      synopsis: "[--fix [--source <mirror or folder>]] [--json]",
      what: "Check the install (its versions, runtimes, launcher, Pi's npm and tools, setup, leftovers of an interrupted run, PATH and free space), one line each; --fix repairs what is Gentle Shell's own and names the command for the rest; without --fix nothing is changed.",
      exits: "0 healthy (warnings too); 1 something is broken; 2 usage (an unknown option or argument)",
      refusesItself: true,
    },
  },
  {
    name: "upgrade",
    help: [
      ["upgrade", "Install the newest Gentle Shell release and make it current"],
      ["upgrade --to", "Install that exact release; an older one is confirmed first"],
      ["upgrade --rollback", "Go back to the version that was current before the last upgrade"],
    ],
    strict: {
      options: { "--rollback": "flag", "--source": "value", "--channel": "value", "--to": "value", "--yes": "flag" },
      aliases: { "-y": "--yes" },
      synopsis: "[--to <version> [--yes]] [--rollback] [--source <mirror or folder>]",
      what: "Install the newest Gentle Shell release (or --to that exact one) beside the active one, check it, then make it current; an older --to is a downgrade, confirmed first (--yes without a terminal); --rollback goes back to the version that was current before.",
      exits:
        "0 done (also when it is already current); 1 failed, with current unchanged; 2 usage (an unknown option or argument); 4 nothing was changed: updates are off by the update policy, or a downgrade was not confirmed",
    },
  },
  { name: "update", help: [["update", "Move to Pi's newest release for this Shell, keeping the old one"]] },
  {
    name: "self-uninstall",
    help: [["self-uninstall", "Remove Gentle Shell from this machine (--dry-run shows what goes)"]],
    strict: {
      options: { "--dry-run": "flag", "--yes": "flag", "--include-shared": "flag" },
      aliases: { "-y": "--yes" },
      synopsis: "[--dry-run] [--yes] [--include-shared]",
      what: "Remove Gentle Shell from this machine; --dry-run shows what goes, --include-shared also removes the Gentle Shell home.",
      exits: "0 removed; 1 failed; 2 usage (an unknown option or argument); 4 nothing was removed (a dry run, a declined question, or no terminal to ask)",
    },
  },
  {
    name: "memory migrate",
    help: [["memory migrate", "Migrate a Shell-provisioned Engram store (--confirm-quiescent)"]],
    strict: {
      options: { "--confirm-quiescent": "flag" },
      synopsis: "--confirm-quiescent",
      what: "Migrate the Engram store in ~/.engram with the bundled core, once every program using it has stopped.",
      exits: "0 migrated; 1 failed or refused, with the store unchanged; 2 usage (an unknown option, or no --confirm-quiescent)",
      refusesItself: true,
    },
  },
  // issue 42: `completions` is none of Pi 1.6.0's own commands (install, remove, uninstall, update, list, config, auth,
  // mcp: ./pi-launch.ts PI_SUBCOMMANDS), so Shell takes the word as it took `doctor` (issue 41), and shadows no Pi
  // command; what it takes from Pi is only a first message that starts with it, and `gentle-shell -- completions` stays that.
  { name: "completions", help: [["completions", `Print the completion script for ${COMPLETION_SHELL_WORDS}`]] },
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
