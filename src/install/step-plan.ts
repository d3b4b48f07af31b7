/**
 * The step plan of a new install (spec: "Migration from a global install",
 * runInstallSteps): claim, npm settings, runtime, version, activate,
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
import { SETUP_COMMAND } from "./setup-step";

/**
 * The steps of a new install, in their order: the one list of them. Each has
 * the title its outcome carries and the line the printed plan gives it; the
 * ids (StepId), the order (STEP_ORDER) and the step bodies
 * (src/install/install-steps.ts) are read from it.
 */
export const STEPS = {
  claim: { title: "Gentle Shell folder", plan: "claim the Gentle Shell folder (mode 0700) and the agent home" },
  "npm-settings": { title: "npm settings", plan: "copy registry, proxy and auth settings from your npm config (nothing else)" },
  runtime: { title: "runtimes", plan: "download and verify Node and pnpm against the pins built into this installer" },
  version: { title: "Gentle Shell version", plan: "install the release's gentle-pi and Pi from its lockfile with our pnpm" },
  activate: { title: "activate", plan: "make that version current" },
  launcher: { title: "launcher", plan: "write the gentle-shell launcher" },
  "verify-launcher": { title: "launcher check", plan: "check that the launcher reports the release's versions" },
  path: { title: "PATH", plan: "put gentle-shell on your PATH (one line or link, undone by self-uninstall)" },
  setup: { title: "setup", plan: `run ${SETUP_COMMAND}: Gentle AI for Pi, with its verified Engram, inside the Gentle Shell folder` },
} as const satisfies Record<string, { title: string; plan: string }>;

export type StepId = keyof typeof STEPS;

/** Every step's id, in the plan's order. */
export const STEP_ORDER = Object.keys(STEPS) as StepId[];

/** The steps runInstallSteps runs as one plan; the setup step runs after them, on its own. */
export type InstallStepId = Exclude<StepId, "setup">;

export interface Step {
  id: StepId;
  run(): Promise<string>;
}

export interface StepOutcome {
  id: StepId;
  title: string;
  /** skipped: asked not to run (--no-setup). */
  status: "done" | "failed" | "not-run" | "skipped";
  detail: string;
}

/** `where`: the home shown as ~ in each detail, and the environment whose GSS_STEP_TIMES marks each step (../io/step-times.ts). */
export async function runPlan(steps: Step[], where: { home: string; env: Env }, report: (o: StepOutcome) => void): Promise<StepOutcome[]> {
  const { home, env } = where;
  const outcomes: StepOutcome[] = [];
  let failed = false;
  for (const step of steps) {
    const { title } = STEPS[step.id];
    if (failed) {
      const o: StepOutcome = { id: step.id, title, status: "not-run", detail: "" };
      outcomes.push(o);
      continue;
    }
    try {
      stepMark(`${step.id}:start`, env);
      const detail = await step.run();
      stepMark(`${step.id}:end`, env);
      const o: StepOutcome = { id: step.id, title, status: "done", detail: redactText(tildifyText(detail, home)) };
      outcomes.push(o);
      report(o);
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      const o: StepOutcome = { id: step.id, title, status: "failed", detail: redactText(tildifyText(message, home)) };
      outcomes.push(o);
      report(o);
    }
  }
  return outcomes;
}
