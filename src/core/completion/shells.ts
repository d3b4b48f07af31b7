/**
 * The shells a completion script is made for, by name (issue 42), apart from
 * the generators: the command table's help line (../shell-commands.ts) and
 * the shell table (src/path/shells.ts) name them, and both are read by the
 * launch part, which must not carry the script generators. Pure.
 */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish", "nu", "powershell"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** "bash, zsh, fish, nu or powershell": the shells named in a help line. */
export const COMPLETION_SHELL_WORDS = `${COMPLETION_SHELLS.slice(0, -1).join(", ")} or ${COMPLETION_SHELLS.at(-1)}`;

export function isCompletionShell(word: string): word is CompletionShell {
  return (COMPLETION_SHELLS as readonly string[]).includes(word);
}
