/**
 * The bash and zsh scripts (issue 42): both walk the words before the cursor
 * with one `case` over "<node>|<word>" (./tree.ts says how), then offer the
 * node's words. Plain `case` and `compgen`, no associative arrays, so bash 3.2
 * (macOS's) runs it too. Pure.
 */
import { type CompletionCommand, type CompletionOption, type CompletionTree, completionNodes, functionName, optionWords } from "./tree";

/** A word as the shells read it inside double quotes: the names here are plain, so only `"`, `$`, backquote and `\` need care. */
function dq(text: string): string {
  return `"${text.replace(/(["$`\\])/g, "\\$1")}"`;
}

/** A word inside single quotes (zsh's display strings). */
function sq(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function childId(id: string, name: string): string {
  return id ? `${id} ${name}` : name;
}

/** The walk's arms, shared by bash and zsh (zsh accepts bash's `pattern)` form). */
function walkArms(tree: CompletionTree, indent: string): string[] {
  const arms: string[] = [];
  for (const { id, command } of completionNodes(tree)) {
    for (const sub of command.commands) arms.push(`${indent}${dq(`${id}|${sub.name}`)}) node=${dq(childId(id, sub.name))} ;;`);
    const valued = command.options.filter((o) => o.takesValue).flatMap(optionWords);
    if (valued.length) arms.push(`${indent}${valued.map((w) => dq(`${id}|${w}`)).join(" | ")}) valopt=$w; ((i++)) ;;`);
    if (command.closed) arms.push(`${indent}${dq(`${id}|`)}-*) ;;`, `${indent}${dq(`${id}|`)}*) node=-; break ;;`);
  }
  return arms;
}

/** The values an option takes, by "<node>|<option word>". */
function valueArms(tree: CompletionTree): Array<[key: string, values: readonly string[]]> {
  return completionNodes(tree).flatMap(({ id, command }) =>
    command.options
      .filter((o) => o.takesValue && o.values?.length)
      .flatMap((o) => optionWords(o).map((w): [string, readonly string[]] => [`${id}|${w}`, o.values!])),
  );
}

/** What the cursor's word is offered: the options when it starts with `-`; else the commands and values, or the options when there are none. */
export function offered(command: CompletionCommand, dash: boolean): Array<{ word: string; description: string }> {
  const options = command.options.flatMap((o: CompletionOption) => optionWords(o).map((word) => ({ word, description: o.description })));
  if (dash) return options;
  const words = [
    ...command.commands.map((c) => ({ word: c.name, description: c.description })),
    ...(command.values ?? []).map((word) => ({ word, description: word })),
  ];
  return words.length ? words : options;
}

export function bashScript(tree: CompletionTree): string {
  const fn = functionName(tree.program);
  const nodes = completionNodes(tree);
  const list = (command: CompletionCommand, dash: boolean) =>
    offered(command, dash)
      .map((o) => o.word)
      .join(" ");
  return [
    `# bash completion for ${tree.program}, made from its own command table (${tree.program} completions bash).`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" node="" valopt="" words="" w i',
    "  COMPREPLY=()",
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    '    w="${COMP_WORDS[i]}"',
    "    [[ $w == -- ]] && return 0",
    '    case "$node|$w" in',
    ...walkArms(tree, "      "),
    "    esac",
    "  done",
    "  [[ $node == - ]] && return 0",
    "  if ((i > COMP_CWORD)); then",
    '    case "$node|$valopt" in',
    ...valueArms(tree).map(([key, values]) => `      ${dq(key)}) words=${dq(values.join(" "))} ;;`),
    "      *) return 0 ;;",
    "    esac",
    "  elif [[ $cur == -* ]]; then",
    '    case "$node" in',
    ...nodes.map(({ id, command }) => `      ${dq(id)}) words=${dq(list(command, true))} ;;`),
    "    esac",
    "  else",
    '    case "$node" in',
    ...nodes.map(({ id, command }) => `      ${dq(id)}) words=${dq(list(command, false))} ;;`),
    "    esac",
    "  fi",
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    "}",
    `complete -o bashdefault -o default -F ${fn} ${[tree.program, ...(tree.aliases ?? [])].join(" ")}`,
    "",
  ].join("\n");
}

export function zshScript(tree: CompletionTree): string {
  const fn = functionName(tree.program);
  const nodes = completionNodes(tree);
  const arrays = (command: CompletionCommand, dash: boolean) => {
    const words = offered(command, dash);
    return `names=(${words.map((o) => sq(o.word)).join(" ")}); descs=(${words.map((o) => sq(`${o.word}  -- ${o.description}`)).join(" ")})`;
  };
  const names = [tree.program, ...(tree.aliases ?? [])];
  return [
    `#compdef ${names.join(" ")}`,
    `# zsh completion for ${tree.program}, made from its own command table (${tree.program} completions zsh).`,
    `${fn}() {`,
    '  local node="" valopt="" w i',
    "  local -a names descs",
    "  for ((i = 2; i < CURRENT; i++)); do",
    '    w="${words[i]}"',
    "    if [[ $w == -- ]]; then _files; return; fi",
    '    case "$node|$w" in',
    ...walkArms(tree, "      "),
    "    esac",
    "  done",
    "  if [[ $node == - ]]; then _files; return; fi",
    "  if ((i > CURRENT)); then",
    '    case "$node|$valopt" in',
    ...valueArms(tree).map(([key, values]) => `      ${dq(key)}) names=(${values.map(sq).join(" ")}) ;;`),
    "      *) _files; return ;;",
    "    esac",
    "    compadd -a names",
    "    return",
    "  fi",
    '  if [[ "${words[CURRENT]}" == -* ]]; then',
    '    case "$node" in',
    ...nodes.map(({ id, command }) => `      ${dq(id)}) ${arrays(command, true)} ;;`),
    "    esac",
    "  else",
    '    case "$node" in',
    ...nodes.map(({ id, command }) => `      ${dq(id)}) ${arrays(command, false)} ;;`),
    "    esac",
    "  fi",
    "  compadd -l -d descs -a names",
    "}",
    // Autoloaded from fpath, the file is the function's body: run it; sourced, register it.
    "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then",
    `  ${fn} "$@"`,
    "else",
    `  compdef ${fn} ${names.join(" ")}`,
    "fi",
    "",
  ].join("\n");
}
