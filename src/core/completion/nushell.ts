/**
 * The nu script (issue 48): one `extern` per node of the tree (./tree.ts),
 * named by the words that reach it ("gentle-shell-setup release sign"), as
 * nu's own completions for external programs are written. nu finds the node
 * itself from the words typed, offers a node's commands and long options, and
 * an option's or an argument's values through a small completer function.
 *
 * An extern also decides what nu hands the program, so each is written never
 * to change or refuse what the user typed:
 * - every extern ends in `...rest: string`, so words and options it does not
 *   name (Pi's, for gentle-shell) pass through as they are;
 * - no short forms: nu rewrites a declared `-y` into `--yes` before starting
 *   the program, which is harmless for our own aliases but is still not what
 *   was typed;
 * - values are `string`, never `path`, which nu would expand.
 * Pure.
 */
import { type CompletionCommand, type CompletionTree, completionNodes } from "./tree";

/** A word in nu's double quotes: `\` and `"` need a backslash. */
function nq(text: string): string {
  return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

/** A description as one comment line. */
function comment(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** nu names a flag with letters, digits, `-` and `_` after its `--`. */
function flagName(long: string): string | null {
  return /^--[A-Za-z][A-Za-z0-9_-]*$/.test(long) ? long.slice(2) : null;
}

function externLines(name: string, command: CompletionCommand, completer: (what: string) => string, described: boolean): string[] {
  const params: string[] = [];
  for (const o of command.options) {
    const flag = flagName(o.long);
    if (!flag) continue;
    const type = !o.takesValue ? "" : o.values?.length ? `: string@${nq(completer(o.long))}` : ": string";
    params.push(`  --${flag}${type}  # ${comment(o.description)}`);
  }
  if (command.values?.length) params.push(`  value?: string@${nq(completer("value"))}`);
  params.push("  ...rest: string");
  const head = described ? [`# ${comment(command.description)}`] : [];
  return [...head, `extern ${nq(name)} [`, ...params, "]"];
}

export function nushellScript(tree: CompletionTree): string {
  const lines: string[] = [`# nu completion for ${tree.program}, made from its own command table (${tree.program} completions nu).`];
  const nodes = completionNodes(tree);
  const completer = (id: string) => (what: string) => `nu-complete ${[tree.program, id, what].filter(Boolean).join(" ")}`;
  for (const { id, command } of nodes) {
    const of = completer(id);
    for (const o of command.options)
      if (o.takesValue && o.values?.length && flagName(o.long)) lines.push(`def ${nq(of(o.long))} [] { [${o.values.map(nq).join(" ")}] }`);
    if (command.values?.length) lines.push(`def ${nq(of("value"))} [] { [${command.values.map(nq).join(" ")}] }`);
  }
  for (const name of [tree.program, ...(tree.aliases ?? [])])
    for (const { id, command } of nodes) lines.push(...externLines(id ? `${name} ${id}` : name, command, completer(id), id !== ""));
  return `${lines.join("\n")}\n`;
}
