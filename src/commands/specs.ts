/**
 * The engine's own commands are strict (issue 14, CLI conventions), as
 * gentle-shell-setup's are: `gentle-shell upgrade`, `self-uninstall` and
 * `memory migrate` refuse an option they do not define, or an argument they
 * do not take, in one line with exit 2, before anything runs; `--help` (or
 * `-h`) prints the command's usage and exits 0. Everything Pi reads (every
 * other word, and `update`'s forms that are Pi's) and what `setup` hands to
 * Gentle AI pass through untouched. Pure.
 */
import { SHELL_COMMANDS, type ShellCommandName, type StrictSurface } from "../core/shell-commands";

/** A strict command's surface (../core/shell-commands.ts, its one row there) under its name. */
export interface ShellCommandSpec<N extends ShellCommandName = ShellCommandName> extends StrictSurface {
  /** The words after `gentle-shell`: "upgrade", "memory migrate". */
  name: N;
}

export type Parsed = { kind: "help"; lines: string[] } | { kind: "refuse"; message: string } | { kind: "ok"; given: Map<string, string | true> };

/** The strict commands, in the table's order. */
type StrictName = Extract<(typeof SHELL_COMMANDS)[number], { strict: StrictSurface }>["name"];
export const STRICT_SPECS: ReadonlyArray<ShellCommandSpec<StrictName>> = SHELL_COMMANDS.flatMap((entry) =>
  "strict" in entry ? [{ name: entry.name, ...entry.strict } as ShellCommandSpec<StrictName>] : [],
);

/** The spec of a command the table makes strict, or null for one that reads its own words. */
export function strictSpec<N extends ShellCommandName>(name: N): ShellCommandSpec<N> | null {
  return (STRICT_SPECS.find((spec) => spec.name === name) as ShellCommandSpec<N> | undefined) ?? null;
}

function strict<N extends StrictName>(name: N): ShellCommandSpec<N> {
  return strictSpec(name)!;
}

export const UPGRADE = strict("upgrade");
export const SELF_UNINSTALL = strict("self-uninstall");
export const MEMORY_MIGRATE = strict("memory migrate");

/** `gentle-shell status`'s options (it reads its own words: ./status/command.ts parseStatusArgs, which a test holds to these). */
export const STATUS_OPTIONS = SHELL_COMMANDS.find((entry) => entry.name === "status")!.ownOptions;

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
