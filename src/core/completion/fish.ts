/**
 * The fish script (issue 42): one function walks the tokens before the cursor
 * (./tree.ts says how) and names the node; each word is one `complete` line
 * conditioned on that node. fish itself offers an option's values (-x with
 * its values, -r with files) and the options only for a word that starts
 * with `-`. Pure.
 */
import { type CompletionTree, completionNodes, functionName, optionWords } from "./tree";

/** A word inside fish's single quotes: only `\` and `'` need a backslash. */
function fq(text: string): string {
  return `'${text.replace(/[\\']/g, "\\$&")}'`;
}

export function fishScript(tree: CompletionTree): string {
  const fn = functionName(tree.program);
  const nodes = completionNodes(tree);
  const arms: string[] = [];
  for (const { id, command } of nodes) {
    for (const sub of command.commands)
      arms.push(`            case ${fq(`${id}|${sub.name}`)}`, `                set node ${fq(id ? `${id} ${sub.name}` : sub.name)}`);
    const valued = command.options.filter((o) => o.takesValue).flatMap(optionWords);
    if (valued.length) arms.push(`            case ${valued.map((w) => fq(`${id}|${w}`)).join(" ")}`, "                set skip 1");
    if (command.closed)
      arms.push(`            case ${fq(`${id}|-*`)}`, `            case ${fq(`${id}|*`)}`, "                echo -", "                return");
  }
  const lines: string[] = [];
  for (const name of [tree.program, ...(tree.aliases ?? [])]) {
    // The node's id is plain words (command names), so double quotes inside the condition's single quotes hold it.
    const at = (id: string) => `complete -c ${fq(name)} -n ${fq(`${fn}_at "${id}"`)}`;
    lines.push(`complete -c ${fq(name)} -f`, `${at("-")} -F`);
    for (const { id, command } of nodes) {
      for (const sub of command.commands) lines.push(`${at(id)} -a ${fq(sub.name)} -d ${fq(sub.description)}`);
      if (command.values?.length) lines.push(`${at(id)} -a ${fq(command.values.join(" "))}`);
      for (const o of command.options) {
        const forms = [o.long.startsWith("--") ? `-l ${fq(o.long.slice(2))}` : `-o ${fq(o.long.slice(1))}`];
        if (o.short) forms.push(`-s ${fq(o.short.slice(1))}`);
        const value = !o.takesValue ? "" : o.values?.length ? ` -x -a ${fq(o.values.join(" "))}` : " -r -F";
        lines.push(`${at(id)} ${forms.join(" ")}${value} -d ${fq(o.description)}`);
      }
    }
  }
  return [
    `# fish completion for ${tree.program}, made from its own command table (${tree.program} completions fish).`,
    `function ${fn}_node`,
    "    set -l node ''",
    "    set -l skip 0",
    "    set -l tokens (commandline -opc)",
    "    for w in $tokens[2..-1]",
    "        if test $skip = 1",
    "            set skip 0",
    "            continue",
    "        end",
    '        if test "$w" = --',
    "            echo -",
    "            return",
    "        end",
    '        switch "$node|$w"',
    ...arms,
    "        end",
    "    end",
    '    echo "$node"',
    "end",
    `function ${fn}_at`,
    `    set -l node (${fn}_node)`,
    '    test "$node" = "$argv[1]"',
    "end",
    ...lines,
    "",
  ].join("\n");
}
