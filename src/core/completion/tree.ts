/**
 * Shell completions (issue 42): the neutral shape every generator reads.
 * The cli layer builds one from citty's table (src/cli/completion-tree.ts),
 * the engine from Shell's own table (src/commands/completion-tree.ts), so the
 * scripts are made from the same tables that parse the words and cannot
 * drift from them. Pure.
 *
 * Every script walks the words before the cursor the same way:
 * - a command's sub-command name moves to it (its id: the names so far,
 *   space-separated, "" for the program itself);
 * - an option that takes a value takes the next word with it;
 * - `--` ends what is ours, and so does, where `closed` says so, a word that is
 *   none of the node's commands (gentle-shell hands such words to Pi);
 * then offers, for the word at the cursor: an option's values after an
 * option that takes one (files when it names none); the options when the word
 * starts with `-`; else the node's commands and values, or its options when it
 * has neither.
 */

export interface CompletionOption {
  /** "--yes" */
  long: string;
  /** "-y" */
  short?: string;
  /** Whether it takes the next word as its value. */
  takesValue: boolean;
  /** The values it takes, when they are a fixed few. */
  values?: readonly string[];
  description: string;
}

export interface CompletionCommand {
  name: string;
  description: string;
  options: CompletionOption[];
  commands: CompletionCommand[];
  /** The fixed values its argument takes (`completions <shell>`). */
  values?: readonly string[];
  /** A word that is none of its commands ends completion (gentle-shell: Pi's words). */
  closed?: boolean;
}

export interface CompletionTree {
  /** The command the script completes: "gentle-shell-setup". */
  program: string;
  /** More names for it (Windows: "gentle-shell-setup.exe"). */
  aliases?: readonly string[];
  root: CompletionCommand;
}

export interface CompletionNode {
  /** "" for the program, "release sign" two deep. */
  id: string;
  command: CompletionCommand;
}

/** Every node of the tree, the program first, each before its commands. */
export function completionNodes(tree: CompletionTree): CompletionNode[] {
  const out: CompletionNode[] = [];
  const visit = (command: CompletionCommand, id: string) => {
    out.push({ id, command });
    for (const sub of command.commands) visit(sub, id ? `${id} ${sub.name}` : sub.name);
  };
  visit(tree.root, "");
  return out;
}

/** Every word an option is written as: "--yes", "-y". */
export function optionWords(option: CompletionOption): string[] {
  return option.short ? [option.long, option.short] : [option.long];
}

/** A name for the script's functions: "_gentle_shell_setup". */
export function functionName(program: string): string {
  return `_${program.replace(/[^A-Za-z0-9]/g, "_")}`;
}
