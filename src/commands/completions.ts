/**
 * gentle-shell's completions (issue 42). `gentle-shell completions <shell>`
 * prints the script of Shell's own words to stdout (full engine only:
 * build/bundle.mjs FULL_ENGINE_ONLY). The tree comes from the one table of
 * its commands (../core/shell-commands.ts) and the options from their strict
 * specs (./specs.ts), the same tables that find and parse them. Every other
 * word is Pi's: the tree is closed, so after one the scripts offer only file
 * names, and they complete nothing of Pi's own.
 */
import {
  COMPLETION_SHELLS,
  completionScript,
  completionsUsage,
  type CompletionShell,
  type CompletionCommand,
  type CompletionOption,
  type CompletionTree,
} from "../core/completion/index";
import { EXIT, type Output } from "../core/errors";
import { SHELL_COMMANDS, type ShellCommandEntry } from "../core/shell-commands";
import { type ShellCommandSpec, STATUS_OPTIONS, STRICT_SPECS } from "./specs";

export function runCompletions(rest: readonly string[], io: Output): number {
  if (rest.some((a) => a === "--help" || a === "-h")) {
    io.out(`usage: gentle-shell completions <${COMPLETION_SHELLS.join("|")}>`);
    io.out("");
    io.out("Print the completion script of Gentle Shell's own commands for that shell to stdout.");
    io.out("");
    io.out("Exit codes: 0 printed; 2 usage (no shell, or one it does not know).");
    return EXIT.ok;
  }
  const refused = completionsUsage("gentle-shell", rest);
  if (refused) {
    io.err(`gentle-shell: ${refused}`);
    return EXIT.usage;
  }
  io.out(completionScript(shellCompletionTree(), rest[0] as CompletionShell).trimEnd());
  return EXIT.ok;
}

const HELP: CompletionOption = { long: "--help", short: "-h", takesValue: false, description: "Show this command's help" };

function specOptions(spec: ShellCommandSpec, help: ShellCommandEntry["help"]): CompletionOption[] {
  const short = (long: string) => Object.entries(spec.aliases ?? {}).find(([, to]) => to === long)?.[0];
  return [
    ...Object.entries(spec.options).map(([long, kind]): CompletionOption => {
      const s = short(long);
      const description = help.find(([form]) => form === `${spec.name} ${long}`)?.[1] ?? `${spec.name} ${long}`;
      return { long, ...(s ? { short: s } : {}), takesValue: kind === "value", description };
    }),
    HELP,
  ];
}

function commandOptions(name: string, help: ShellCommandEntry["help"]): CompletionOption[] {
  const spec = STRICT_SPECS.find((s) => s.name === name);
  if (spec) return specOptions(spec, help);
  if (name === "status") return [...STATUS_OPTIONS.map((long) => ({ long, takesValue: false, description: `status ${long}` })), HELP];
  return [];
}

/** The tree, "memory migrate" as `memory` with its command `migrate`. */
export function shellCompletionTree(): CompletionTree {
  const root: CompletionCommand = {
    name: "gentle-shell",
    description: "Gentle Shell",
    closed: true,
    commands: [],
    options: [
      { long: "--help", short: "-h", takesValue: false, description: "Shell's commands, then Pi's help" },
      { long: "--version", short: "-v", takesValue: false, description: "Gentle Shell's and Pi's versions" },
    ],
  };
  for (const entry of SHELL_COMMANDS as readonly ShellCommandEntry[]) {
    const words = entry.name.split(" ");
    let node = root;
    for (const [i, word] of words.entries()) {
      let next = node.commands.find((c) => c.name === word);
      if (!next) {
        const last = i === words.length - 1;
        next = { name: word, description: last ? entry.help[0]![1] : word, options: last ? commandOptions(entry.name, entry.help) : [], commands: [] };
        if (last && entry.name === "completions") next.values = COMPLETION_SHELLS;
        node.commands.push(next);
      }
      node = next;
    }
  }
  return { program: "gentle-shell", aliases: ["gentle-shell.cmd"], root };
}
