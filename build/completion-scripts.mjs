// Writes the completion scripts (each shell's) of gentle-shell-setup and gentle-shell
// (issue 42) into a folder, from the sources compiled in memory: the Windows
// CI job runs PSScriptAnalyzer on the two PowerShell ones (.ci/install-ps1.ps1).
//   node build/completion-scripts.mjs <folder>
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { importSource } from "./toolchain.mjs";

const out = process.argv[2];
if (!out) {
  console.error("usage: node build/completion-scripts.mjs <folder>");
  process.exit(2);
}
const { completionScript, COMPLETION_SHELLS } = await importSource("core", "completion", "index.ts");
const { installerCompletionTree } = await importSource("cli", "completions.ts");
const { installerTable } = await importSource("cli", "index.ts");
const { shellCompletionTree } = await importSource("commands", "completions.ts");
const extension = { bash: "bash", zsh: "zsh", fish: "fish", nu: "nu", powershell: "ps1" };
mkdirSync(out, { recursive: true });
for (const shell of COMPLETION_SHELLS) {
  for (const [name, tree] of [
    ["gentle-shell-setup", installerCompletionTree(installerTable())],
    ["gentle-shell", shellCompletionTree()],
  ]) {
    const file = path.join(out, `${name}.${extension[shell]}`);
    writeFileSync(file, completionScript(tree, shell));
    console.log(file);
  }
}
