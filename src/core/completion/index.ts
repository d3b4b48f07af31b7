/**
 * Shell completions (issue 42): one script per shell from the neutral tree
 * (./tree.ts), printed by `gentle-shell-setup completions <shell>` and
 * `gentle-shell completions <shell>`. Pure.
 *
 * Generated here rather than by a completion library: the one that fits citty
 * (@bomb.sh/tab) is a 0.0.x release whose scripts call the program back on
 * every Tab (a `complete` word of its own, which for gentle-shell would be
 * one more word taken from Pi, and a Node start per keypress), and it reads
 * only citty's table, not Shell's. A static script from the same tables
 * costs nothing at Tab and cannot drift: the tests load it into real shells.
 */
import { bashScript, zshScript } from "./posix";
import { fishScript } from "./fish";
import { powershellScript } from "./powershell";
import { nushellScript } from "./nushell";
import type { CompletionTree } from "./tree";
import { COMPLETION_SHELLS, type CompletionShell, isCompletionShell } from "./shells";

export type { CompletionCommand, CompletionOption, CompletionTree } from "./tree";

export { COMPLETION_SHELL_WORDS, COMPLETION_SHELLS, type CompletionShell, isCompletionShell } from "./shells";

export function completionScript(tree: CompletionTree, shell: CompletionShell): string {
  switch (shell) {
    case "bash":
      return bashScript(tree);
    case "zsh":
      return zshScript(tree);
    case "fish":
      return fishScript(tree);
    case "nu":
      return nushellScript(tree);
    case "powershell":
      return powershellScript(tree);
  }
}

/** The one sentence for a `completions` command given no shell, or one it does not know; null when `words` is one shell. */
export function completionsUsage(program: string, words: readonly string[]): string | null {
  const usage = `usage: ${program} completions <${COMPLETION_SHELLS.join("|")}>`;
  if (words.length === 0) return `${program} completions needs a shell; ${usage}`;
  if (words.length > 1) return `unexpected argument ${JSON.stringify(words[1])} for ${program} completions; ${usage}`;
  if (!isCompletionShell(words[0]!)) return `unknown shell ${JSON.stringify(words[0])} for ${program} completions; ${usage}`;
  return null;
}
