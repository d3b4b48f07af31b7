/**
 * The PowerShell script (issue 42): Register-ArgumentCompleter -Native with
 * the command table as plain hashtables and one walk (./tree.ts says how).
 * Nothing returned lets PowerShell complete file names. Plain PowerShell 5.1,
 * checked by PSScriptAnalyzer in the Windows CI job. Pure.
 */
import { type CompletionTree, completionNodes, optionWords } from "./tree";

/** A PowerShell single-quoted string: `'` is doubled, and so are its typographic forms, which PowerShell reads as quotes too. */
function pq(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, "$&$&")}'`;
}

/** Written without any character outside ASCII, so the file needs no byte-order mark (PSUseBOMForUnicodeEncodedFile). */
function ascii(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => (c === "\u2014" || c === "\u2013" ? "-" : c === "\u2026" ? "..." : "?"));
}

/** PowerShell's hashtables ignore case, and a hash literal with one key twice does not parse: said here rather than there. */
function distinct(keys: readonly string[], where: string): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key.toLowerCase())) throw new Error(`internal: ${where} has ${key} twice, ignoring case, which PowerShell cannot hold`);
    seen.add(key.toLowerCase());
  }
}

export function powershellScript(tree: CompletionTree): string {
  const nodes = completionNodes(tree);
  for (const { id, command } of nodes) {
    distinct(
      command.commands.map((c) => c.name),
      `${tree.program} ${id}`,
    );
    distinct(command.options.flatMap(optionWords), `${tree.program} ${id}`);
  }
  const dict = (entries: Array<[string, string]>) => `[ordered]@{ ${entries.map(([k, v]) => `${pq(k)} = ${pq(ascii(v))}`).join("; ")} }`;
  const list = (words: readonly string[]) => `@(${words.map(pq).join(", ")})`;
  const table = (name: string, rows: string[]) => [`    $${name} = @{`, ...rows.map((r) => `        ${r}`), "    }"];
  const valueRows = nodes.flatMap(({ id, command }) => [
    ...(command.values?.length ? [`${pq(id)} = ${list(command.values)}`] : []),
    ...command.options.filter((o) => o.takesValue && o.values?.length).flatMap((o) => optionWords(o).map((w) => `${pq(`${id}|${w}`)} = ${list(o.values!)}`)),
  ]);
  return [
    `# PowerShell completion for ${tree.program}, made from its own command table (${tree.program} completions powershell).`,
    `Register-ArgumentCompleter -Native -CommandName ${list([tree.program, ...(tree.aliases ?? [])])} -ScriptBlock {`,
    "    param($wordToComplete, $commandAst, $cursorPosition)",
    ...table(
      "commands",
      nodes.map(({ id, command }) => `${pq(id)} = ${dict(command.commands.map((c) => [c.name, c.description]))}`),
    ),
    ...table(
      "options",
      nodes.map(({ id, command }) => `${pq(id)} = ${dict(command.options.flatMap((o) => optionWords(o).map((w): [string, string] => [w, o.description])))}`),
    ),
    ...table(
      "valueOptions",
      nodes.map(({ id, command }) => `${pq(id)} = ${list(command.options.filter((o) => o.takesValue).flatMap(optionWords))}`),
    ),
    ...table("values", valueRows),
    `    $closed = ${list(nodes.filter((n) => n.command.closed).map((n) => n.id))}`,
    "    $words = @($commandAst.CommandElements | Where-Object { $_.Extent.StartOffset -lt $cursorPosition } | ForEach-Object { $_.Extent.Text })",
    "    if ($wordToComplete -ne '') { $words = @($words | Select-Object -SkipLast 1) }",
    "    $node = ''",
    "    $valueOf = $null",
    "    for ($i = 1; $i -lt $words.Count; $i++) {",
    "        $word = $words[$i]",
    "        if ($word -eq '--') { return }",
    "        if ($commands[$node].Contains($word)) {",
    "            if ($node -eq '') { $node = $word } else { $node = \"$node $word\" }",
    "            continue",
    "        }",
    "        if ($valueOptions[$node] -contains $word) {",
    "            if ($i -eq $words.Count - 1) { $valueOf = $word } else { $i++ }",
    "            continue",
    "        }",
    "        if (($closed -contains $node) -and -not $word.StartsWith('-')) { return }",
    "    }",
    "    $candidates = [ordered]@{}",
    "    if ($null -ne $valueOf) {",
    '        $key = "$node|$valueOf"',
    "        if (-not $values.Contains($key)) { return }",
    "        foreach ($value in $values[$key]) { $candidates[$value] = $value }",
    "    } else {",
    "        if (-not $wordToComplete.StartsWith('-')) {",
    "            foreach ($name in $commands[$node].Keys) { $candidates[$name] = $commands[$node][$name] }",
    "            if ($values.Contains($node)) { foreach ($value in $values[$node]) { $candidates[$value] = $value } }",
    "        }",
    "        if ($candidates.Count -eq 0) { foreach ($name in $options[$node].Keys) { $candidates[$name] = $options[$node][$name] } }",
    "    }",
    "    foreach ($name in $candidates.Keys) {",
    "        if ($name.StartsWith($wordToComplete, [System.StringComparison]::OrdinalIgnoreCase)) {",
    "            [System.Management.Automation.CompletionResult]::new($name, $name, 'ParameterValue', $candidates[$name])",
    "        }",
    "    }",
    "}",
    "",
  ].join("\n");
}
