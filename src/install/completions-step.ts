/**
 * The completions part of the install's PATH step (issue 42): once the PATH
 * entry is in place for a shell, that shell's completion scripts are written
 * where it reads them (./completions.ts). Only with --completions: the
 * install's promise is that HOME holds what it held plus the prefix and the
 * PATH entry (spec: "Self-uninstall"; test/e2e/home-untouched.test.ts), and
 * rustup, uv, deno and mise write no completions unasked either (bun does);
 * `gentle-shell completions <shell>` prints them for anyone who wants them
 * elsewhere. With --no-modify-path no shell is set up, so none are written.
 * A failure here never fails the install: the step's line says what was not
 * written.
 */
import type { Env } from "../core/environment";
import { type Layout, tildify } from "../core/layout";
import { dirname } from "../core/native-path";
import { type CompletionScripts, completionRules, completionShell, installCompletions } from "./completions";
import type { PathStepOutcome } from "../path/step";
import { SHELLS, type ShellName } from "../path/shells";

/** The shell the PATH step set up: its line's, or null for a link (the user's $SHELL then) or Windows' Path. */
function pathShell(outcome: PathStepOutcome): ShellName | null | "none" {
  const plan = outcome.plan;
  if (plan?.kind === "line") return plan.shell;
  if (plan?.kind === "link") return null;
  if (plan?.kind === "none") return plan.existing.kind === "line" ? plan.existing.shell : plan.existing.kind === "link" ? null : "none";
  return "none";
}

/** What the step's line adds: "; bash completions in <folder>", or why there are none. */
export function completionsStep(layout: Layout, env: Env, outcome: PathStepOutcome, scripts: CompletionScripts): string {
  if (outcome.status !== "applied" && outcome.status !== "already") return "";
  const from = pathShell(outcome);
  const shell = from === "none" ? null : completionShell(from, env);
  if (!shell) return "";
  const show = (p: string) => tildify(p, layout.home);
  try {
    const { written, foreign } = installCompletions(layout, env, shell, scripts);
    const parts: string[] = [];
    if (written.length) {
      const folder = show(dirname(written[0]!));
      parts.push(`${shell} completions in ${folder}`);
      const hint = completionRules(shell).hint;
      const files = SHELLS[shell].files({ home: layout.home, env, platform: layout.platform });
      const startup = show(outcome.file && files.includes(outcome.file) ? outcome.file : files[0]!);
      if (hint) parts.push(hint(folder, startup));
    }
    for (const path of foreign) parts.push(`${show(path)} is not ours, so it was left as it is`);
    return parts.length ? `; ${parts.join("; ")}` : "";
  } catch (error) {
    return `; ${shell} completions were not written (${(error as Error).message})`;
  }
}
