/**
 * The update policy's merge inputs for the pure tests (src/core/update-policy.ts):
 * the machine-wide file and config.json at their shown paths, each absent or
 * read with its settings, and the environment's GENTLE_SHELL_UPDATES.
 */
import type { PolicyInputs, PolicySource } from "../../src/core/update-policy";

export const MACHINE = "/etc/gentle-shell/policy.json";
export const CONFIG = "~/.gentle-shell/config/config.json";
export const absent: PolicySource = { kind: "absent" };
export const read = (settings: Record<string, unknown>): PolicySource => ({ kind: "read", settings });
export const inputs = (machine: PolicySource, env: string | undefined, config: PolicySource): PolicyInputs => ({
  machine: { path: MACHINE, source: machine },
  env,
  config: { path: CONFIG, source: config },
});
