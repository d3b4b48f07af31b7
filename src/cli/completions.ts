/**
 * `gentle-shell-setup completions <shell>` (issue 42):
 * prints the completion script, made from citty's table (./completion-tree.ts),
 * to stdout, for a user to load or save where their shell reads it.
 */
import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import { COMPLETION_SHELL_WORDS, completionScript, completionsUsage, type CompletionShell } from "../core/completion/index";
import { EXIT, UserError } from "../core/errors";
import { hostOf } from "./command-host";
import { installerCompletionTree } from "./completion-tree";

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
