/**
 * The step plan of a new install (spec: "Migration from a global install",
 * runBundledInstall): claim, npm settings, runtime, version, activate,
 * launcher, verify-launcher, then the PATH entry, so a launcher that fails its
 * check is never put on PATH. A new install then runs `gentle-shell setup`
 * (the setup step; a migration's plan has none). Each step reports an
 * outcome; the first failure stops the plan and is named with its detail
 * (home shown as ~).
 */
import { tildifyText } from "../core/layout";
import { redactText } from "../core/secrets";
import { stepMark } from "../io/step-times";

export type StepId = "claim" | "npm-settings" | "runtime" | "version" | "activate" | "launcher" | "verify-launcher" | "path" | "setup";

export interface Step {
  id: StepId;
  title: string;
  run(): Promise<string>;
}

export interface StepOutcome {
  id: StepId;
  title: string;
  /** skipped: asked not to run (--no-setup). */
  status: "done" | "failed" | "not-run" | "skipped";
  detail: string;
}

export const STEP_ORDER: StepId[] = ["claim", "npm-settings", "runtime", "version", "activate", "launcher", "verify-launcher", "path", "setup"];

export async function runPlan(steps: Step[], home: string, report: (o: StepOutcome) => void): Promise<StepOutcome[]> {
  const outcomes: StepOutcome[] = [];
  let failed = false;
  for (const step of steps) {
    if (failed) {
      const o: StepOutcome = { id: step.id, title: step.title, status: "not-run", detail: "" };
      outcomes.push(o);
      continue;
    }
    try {
      stepMark(`${step.id}:start`);
      const detail = await step.run();
      stepMark(`${step.id}:end`);
      const o: StepOutcome = { id: step.id, title: step.title, status: "done", detail: redactText(tildifyText(detail, home)) };
      outcomes.push(o);
      report(o);
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      const o: StepOutcome = { id: step.id, title: step.title, status: "failed", detail: redactText(tildifyText(message, home)) };
      outcomes.push(o);
      report(o);
    }
  }
  return outcomes;
}
