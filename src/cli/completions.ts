/**
 * The installer's completions (issue 42): `gentle-shell-setup completions
 * <shell>` prints the script, made from the installer's completion tree, to
 * stdout, for a user to load or save where their shell reads it. The tree is
 * read from citty's own table (./index.ts `main` and each command's `args`),
 * the table that parses the words, so the scripts cannot drift from it; and
 * completionFiles gives the install both commands' scripts for one shell.
 */
import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import {
  COMPLETION_SHELL_WORDS,
  completionScript,
  completionsUsage,
  type CompletionShell,
  COMPLETION_SHELLS,
  type CompletionCommand,
  type CompletionOption,
  type CompletionTree,
} from "../core/completion/index";
import { EXIT, UserError } from "../core/errors";
import { hostOf } from "./command-host";
import type { CompletionScripts } from "../install/completions";
import { shellCompletionTree } from "../commands/completions";

/** `table`: the root command (./index.ts passes its `main`, which holds this command). */
export function completionsCommand(table: () => CommandDef<ArgsDef>) {
  return defineCommand({
    meta: { name: "completions", description: `Print the completion script for ${COMPLETION_SHELL_WORDS} to stdout` },
    args: { shell: { type: "positional", required: false, description: COMPLETION_SHELL_WORDS } },
    run({ rawArgs, data }) {
      const host = hostOf(data);
      const words = rawArgs.filter((a) => a !== "--");
      const refused = completionsUsage("gentle-shell-setup", words);
      if (refused) throw new UserError(refused, EXIT.usage);
      host.out(completionScript(installerCompletionTree(table()), words[0] as CompletionShell).trimEnd());
      return EXIT.ok;
    },
  });
}

type Command = CommandDef<ArgsDef>;

interface Arg {
  type?: string;
  alias?: string | string[];
  default?: unknown;
  description?: string;
  options?: readonly string[];
}

/** The fixed values a command's argument takes, by the command's words (citty's positionals name none). */
const ARGUMENT_VALUES: Record<string, readonly string[]> = { completions: COMPLETION_SHELLS };

/** citty accepts a command's parts as promises or functions; ours are plain objects, and a change to that is said here. */
function plain<T>(value: unknown, what: string): T | undefined {
  if (typeof value === "function" || value instanceof Promise) throw new Error(`internal: ${what} is not a plain object, so completions cannot read it`);
  return value as T | undefined;
}

function options(args: Record<string, Arg>): CompletionOption[] {
  const out: CompletionOption[] = [];
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") continue;
    const takesValue = arg.type === "string" || arg.type === "enum";
    const description = arg.description ?? name;
    const aliases = arg.alias === undefined ? [] : Array.isArray(arg.alias) ? arg.alias : [arg.alias];
    const short = aliases.find((a) => a.length === 1);
    out.push({ long: `--${name}`, ...(short ? { short: `-${short}` } : {}), takesValue, ...(arg.options ? { values: arg.options } : {}), description });
    for (const a of aliases.filter((x) => x.length > 1)) out.push({ long: `--${a}`, takesValue, description });
    // A boolean that is on by default is turned off with --no-<name> (citty's negation).
    if (arg.type === "boolean" && arg.default === true) out.push({ long: `--no-${name}`, takesValue: false, description });
  }
  out.push({ long: "--help", short: "-h", takesValue: false, description: "Show this command's help" });
  return out;
}

function command(def: Command, name: string, path: string): CompletionCommand {
  const meta = plain<{ description?: string }>(def.meta, `${path}'s meta`);
  const subs = plain<Record<string, Command>>(def.subCommands, `${path}'s commands`) ?? {};
  const args = plain<Record<string, Arg>>(def.args, `${path}'s args`) ?? {};
  const words = path.split(" ").slice(1).join(" ");
  return {
    name,
    description: meta?.description ?? name,
    options: options(args),
    commands: Object.entries(subs).map(([sub, subDef]) => command(subDef, sub, `${path} ${sub}`)),
    ...(ARGUMENT_VALUES[words] ? { values: ARGUMENT_VALUES[words] } : {}),
  };
}

/** The tree of `main` (citty's root command of gentle-shell-setup), with its --version. */
export function installerCompletionTree(main: Command): CompletionTree {
  const root = command(main, "gentle-shell-setup", "gentle-shell-setup");
  root.options.push({ long: "--version", short: "-V", takesValue: false, description: "Print the version and the pins' kind" });
  return { program: "gentle-shell-setup", aliases: ["gentle-shell-setup.exe"], root };
}

/** Both commands' scripts for one shell, as the install writes them (src/install/completions.ts). */
export function completionFiles(main: Command): CompletionScripts {
  return (shell) => [
    { command: "gentle-shell", text: completionScript(shellCompletionTree(), shell) },
    { command: "gentle-shell-setup", text: completionScript(installerCompletionTree(main), shell) },
  ];
}
