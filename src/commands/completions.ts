/**
 * `gentle-shell completions <shell>` (issue 42): prints the
 * completion script of Shell's own words (./completion-tree.ts) to stdout.
 * Full engine only (build/bundle.mjs FULL_ENGINE_ONLY).
 */
import { COMPLETION_SHELLS, completionScript, completionsUsage, type CompletionShell } from "../core/completion/index";
import { EXIT, type Output } from "../core/errors";
import { shellCompletionTree } from "./completion-tree";

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
