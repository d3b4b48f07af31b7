/**
 * The step plan of a new install (spec: "Migration from a global install",
 * runBundledInstall): claim, npm settings, runtime, version, activate,
 * launcher, verify-launcher, then the PATH entry, so a launcher that fails its
 * check is never put on PATH. A new install then runs `gentle-shell setup`
 * (the setup step; a migration's plan has none). Each step reports an
 * outcome; the first failure stops the plan and is named with its detail
 * (home shown as ~).
 */
import type { Env } from "../core/environment";
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

/** `where`: the home shown as ~ in each detail, and the environment whose GSS_STEP_TIMES marks each step (../io/step-times.ts). */
export async function runPlan(steps: Step[], where: { home: string; env: Env }, report: (o: StepOutcome) => void): Promise<StepOutcome[]> {
  const { home, env } = where;
  const outcomes: StepOutcome[] = [];
  let failed = false;
  for (const step of steps) {
    if (failed) {
      const o: StepOutcome = { id: step.id, title: step.title, status: "not-run", detail: "" };
      outcomes.push(o);
      continue;
    }
    try {
      stepMark(`${step.id}:start`, env);
      const detail = await step.run();
      stepMark(`${step.id}:end`, env);
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
