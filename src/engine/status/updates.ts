/**
 * The update policy as `status` shows it (issue 41): the effective `updates`
 * value and the source it came from (the machine-wide policy file,
 * GENTLE_SHELL_UPDATES, the launcher's config.json, or the default), and
 * minimumReleaseAge when a source sets it. Read by src/engine/update-gate.ts's
 * updatePolicyOf, the same reading every update path asks. Pure.
 */
import { originText, type PolicyOrigin, type UpdatePolicy, type UpdatesValue } from "../../core/update-policy";

export type PolicySourceKind = PolicyOrigin["kind"];

export interface UpdatesInfo {
  value: UpdatesValue;
  /** machine: the machine-wide policy file; env: GENTLE_SHELL_UPDATES; config: config.json; default: nothing set it. */
  from: PolicySourceKind;
  /** The file (home as ~) for machine and config; null otherwise. */
  where: string | null;
  /** Only when a source sets it. */
  minimumReleaseAge: { days: number; from: PolicySourceKind; where: string | null } | null;
  /** Why `updates` counts as off (a source unreadable or invalid); null otherwise. */
  problem: string | null;
}

const whereOf = (origin: PolicyOrigin): string | null => ("path" in origin ? origin.path : null);

export function updatesInfo(policy: UpdatePolicy): UpdatesInfo {
  return {
    value: policy.updates,
    from: policy.from.kind,
    where: whereOf(policy.from),
    minimumReleaseAge: policy.ageFrom.kind === "default" ? null : { days: policy.minimumReleaseAge, from: policy.ageFrom.kind, where: whereOf(policy.ageFrom) },
    problem: policy.problem,
  };
}

function origin(from: PolicySourceKind, where: string | null): PolicyOrigin {
  if (from === "machine" || from === "config") return { kind: from, path: where ?? "" };
  return { kind: from };
}

/** status's `updates` row: "off, set by the machine-wide policy /etc/gentle-shell/policy.json; minimumReleaseAge 7 days, set by ~/.gentle-shell/config/config.json". */
export function updatesRow(info: UpdatesInfo): string {
  const value = info.problem
    ? `off: ${info.problem}, so updates count as off`
    : info.from === "default"
      ? `${info.value} (the default)`
      : `${info.value}, set by ${originText(origin(info.from, info.where))}`;
  const age = info.minimumReleaseAge;
  if (!age) return value;
  return `${value}; minimumReleaseAge ${age.days} day${age.days === 1 ? "" : "s"}, set by ${originText(origin(age.from, age.where))}`;
}
