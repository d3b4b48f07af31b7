/**
 * `install --json`'s fields (issue 14), from the same data the lines are
 * printed from: the plan's entries, each step's outcome (runPlan's, already
 * with the home as ~ and secrets masked), the final state as `status` reads
 * it (without the launcher's second run: verify-launcher just ran it, and
 * without probing memory), and the one action left for the user.
 */
import { tildifyText, type Layout } from "../core/layout";
import { redactText, redactUrl } from "../core/secrets";
import type { StepOutcome } from "../install/step-plan";
import { gatherStatus } from "../commands/status/gather";
import { hostStatusProbes } from "../commands/status/probes";
import type { Host } from "../io/host";

export interface PlanEntry {
  id: string;
  /** run: the step is in this plan; skip: asked not to run; none: not in this plan. */
  action: "run" | "skip" | "none";
  text: string;
}

export interface JsonStep {
  id: string;
  title: string;
  status: StepOutcome["status"];
  detail: string;
}

/** The plan, as printed before any question. */
export function recordPlan(host: Host, fields: { prefix: string; source: string; dryRun: boolean; plan: PlanEntry[] }): void {
  const doc = host.document?.fields;
  if (doc) Object.assign(doc, { ...fields, source: redactUrl(tildifyText(fields.source, host.home)), steps: [], state: null, next: null });
}

/** A failed removal of the old global gentle-pi (spec: "The web installer"): the command the user runs by hand. */
export interface RemoveGlobal {
  status: "failed";
  command: string;
}

/** removeGlobal for a removal's outcome: only a failed one that named its command. */
export function failedRemoval(removal: { failed: boolean; command: string | null }): RemoveGlobal | null {
  return removal.failed && removal.command ? { status: "failed", command: removal.command } : null;
}

/** The steps' outcomes, the state the install left, what the user does next, and a failed removal's command. */
export async function recordEnd(
  host: Pick<Host, "document" | "pins" | "env">,
  layout: Layout,
  steps: JsonStep[],
  next: string | null,
  removeGlobal: RemoveGlobal | null = null,
): Promise<void> {
  const doc = host.document?.fields;
  if (!doc) return;
  const { pins, env } = host;
  const state = await gatherStatus({ layout, pins, env, probes: hostStatusProbes(layout, env), memory: false, launcherCheck: false }).catch(() => null);
  const home = layout.home;
  Object.assign(doc, {
    steps: steps.map((s) => ({ id: s.id, title: s.title, status: s.status, detail: redactText(tildifyText(s.detail, home)) })),
    state,
    next: next === null ? null : redactText(tildifyText(next, home)),
  });
  if (removeGlobal) doc.removeGlobal = { status: removeGlobal.status, command: removeGlobal.command };
}
