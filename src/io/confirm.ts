/**
 * A yes/no question of ours, asked on the Host's terminal and read one way
 * (issue 48, item 2: the confirm question): the reply's five outcomes, with
 * the answer read by core/answers.ts against the question's default. Each
 * caller decides what no terminal, no answer and Ctrl+C mean for it.
 */
import { answeredYes } from "../core/answers";
import type { Host } from "./host";

export type Confirmation = "yes" | "no" | "no answer" | "no terminal" | "interrupted";

/** Ask `question` (its [Y/n] or [y/N] matching `byDefault`) on stdout, or on stderr with `on`. */
export async function confirm(host: Pick<Host, "ask">, question: string, byDefault: "yes" | "no", on?: "stdout" | "stderr"): Promise<Confirmation> {
  const reply = await host.ask(question, on);
  if ("noTerminal" in reply) return "no terminal";
  if ("interrupt" in reply) return "interrupted";
  if ("end" in reply) return "no answer";
  return answeredYes(reply.answer, byDefault) ? "yes" : "no";
}
