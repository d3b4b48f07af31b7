/**
 * The engine's own commands are strict (issue 14, CLI conventions), as
 * gentle-shell-setup's are: `gentle-shell upgrade`, `self-uninstall` and
 * `memory migrate` refuse an option they do not define, or an argument they
 * do not take, in one line with exit 2, before anything runs; `--help` (or
 * `-h`) prints the command's usage and exits 0. Everything Pi reads (every
 * other word, and `update`'s forms that are Pi's) and what `setup` hands to
 * Gentle AI pass through untouched. Pure.
 */
import type { ShellCommandName } from "../core/shell-commands";

export interface ShellCommandSpec<N extends ShellCommandName = ShellCommandName> {
  /** The words after `gentle-shell`: "upgrade", "memory migrate" (its name in ../core/shell-commands.ts). */
  name: N;
  /** Each option, with whether it takes a value. */
  options: Record<string, "flag" | "value">;
  /** Short forms: "-y" → "--yes". */
  aliases?: Record<string, string>;
  /** The usage line's arguments, and one line of what it does. */
  synopsis: string;
  what: string;
  /** Its exit codes, as one clause. */
  exits: string;
}

export type Parsed = { kind: "help"; lines: string[] } | { kind: "refuse"; message: string } | { kind: "ok"; given: Map<string, string | true> };

export const UPGRADE: ShellCommandSpec<"upgrade"> = {
  name: "upgrade",
  options: { "--rollback": "flag", "--source": "value", "--channel": "value", "--to": "value", "--yes": "flag" },
  aliases: { "-y": "--yes" },
  synopsis: "[--to <version> [--yes]] [--rollback] [--source <mirror or folder>]",
  what: "Install the newest Gentle Shell release (or --to that exact one) beside the active one, check it, then make it current; an older --to is a downgrade, confirmed first (--yes without a terminal); --rollback goes back to the version that was current before.",
  exits:
    "0 done (also when it is already current); 1 failed, with current unchanged; 2 usage (an unknown option or argument); 4 nothing was changed: updates are off by the update policy, or a downgrade was not confirmed",
};

export const SELF_UNINSTALL: ShellCommandSpec<"self-uninstall"> = {
  name: "self-uninstall",
  options: { "--dry-run": "flag", "--yes": "flag", "--include-shared": "flag" },
  aliases: { "-y": "--yes" },
  synopsis: "[--dry-run] [--yes] [--include-shared]",
  what: "Remove Gentle Shell from this machine; --dry-run shows what goes, --include-shared also removes the Gentle Shell home.",
  exits: "0 removed; 1 failed; 2 usage (an unknown option or argument); 4 nothing was removed (a dry run, a declined question, or no terminal to ask)",
};

export const DOCTOR: ShellCommandSpec<"doctor"> = {
  name: "doctor",
  options: { "--fix": "flag", "--json": "flag", "--source": "value" },
  synopsis: "[--fix [--source <mirror or folder>]] [--json]",
  what: "Check the install (its versions, runtimes, launcher, Pi's npm and tools, setup, leftovers of an interrupted run, PATH and free space), one line each; --fix repairs what is Gentle Shell's own and names the command for the rest; without --fix nothing is changed.",
  exits: "0 healthy (warnings too); 1 something is broken; 2 usage (an unknown option or argument)",
};

export const MEMORY_MIGRATE: ShellCommandSpec<"memory migrate"> = {
  name: "memory migrate",
  options: { "--confirm-quiescent": "flag" },
  synopsis: "--confirm-quiescent",
  what: "Migrate the Engram store in ~/.engram with the bundled core, once every program using it has stopped.",
  exits: "0 migrated; 1 failed or refused, with the store unchanged; 2 usage (an unknown option, or no --confirm-quiescent)",
};

/** `gentle-shell status`'s options (it reads its own words: ./status/command.ts parseStatusArgs, which a test holds to these). */
export const STATUS_OPTIONS = ["--json", "--memory", "--no-memory"] as const;

export function usageLine(spec: ShellCommandSpec): string {
  return `usage: gentle-shell ${spec.name} ${spec.synopsis}`;
}

/** The help of one of Shell's own commands, with the exit codes. */
export function commandHelp(spec: ShellCommandSpec): string[] {
  return [usageLine(spec), "", spec.what, "", `Exit codes: ${spec.exits}.`];
}

/** `args`: the words after the command's name. */
export function parseShellCommand(spec: ShellCommandSpec, args: readonly string[]): Parsed {
  const refuse = (what: string): Parsed => ({ kind: "refuse", message: `${what} for gentle-shell ${spec.name}; ${usageLine(spec)}` });
  if (args.some((a) => a === "--help" || a === "-h")) return { kind: "help", lines: commandHelp(spec) };
  const given = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const written = eq > 0 ? arg.slice(0, eq) : arg;
    const name = spec.aliases?.[written] ?? written;
    const kind = spec.options[name];
    if (!arg.startsWith("-") || arg === "-") return refuse(`unexpected argument ${JSON.stringify(arg)}`);
    if (!kind) return refuse(`unknown option ${written}`);
    if (given.has(name)) return refuse(`${name} is given twice`);
    if (kind === "flag") {
      if (eq > 0) return refuse(`${name} takes no value`);
      given.set(name, true);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("-"))) return refuse(`${name} needs a value`);
    if (eq < 0) i++;
    given.set(name, value);
  }
  return { kind: "ok", given };
}
