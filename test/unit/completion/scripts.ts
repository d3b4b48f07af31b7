/** The completion scripts as the two commands print them (src/cli/completions.ts, src/commands/completions.ts), for the completion tests. */
import { runInstallerCli } from "../../../src/cli/index";
import type { CompletionShell } from "../../../src/core/completion/index";
import { runCompletions } from "../../../src/commands/completions";
import { testHost } from "../../support/host";

export async function installerScript(shell: CompletionShell): Promise<string> {
  const host = testHost();
  const code = await runInstallerCli(["completions", shell], host);
  if (code !== 0) throw new Error(`gentle-shell-setup completions ${shell} exited ${code}: ${host.lines.err.join("\n")}`);
  return `${host.lines.out.join("\n")}\n`;
}

export function shellScript(shell: CompletionShell): string {
  const host = testHost();
  const code = runCompletions([shell], host);
  if (code !== 0) throw new Error(`gentle-shell completions ${shell} exited ${code}: ${host.lines.err.join("\n")}`);
  return `${host.lines.out.join("\n")}\n`;
}
