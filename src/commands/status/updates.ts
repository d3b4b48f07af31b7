/**
 * The update policy as `status` shows it (issue 41): the effective `updates`
 * value and the source it came from (the machine-wide policy file,
 * GENTLE_SHELL_UPDATES, the launcher's config.json, or the default), and
 * minimumReleaseAge when a source sets it. Read by src/installed/update-gate.ts's
 * updatePolicyOf, the same reading every update path asks. Pure.
 */
import { ageSetting, ageText } from "../../core/release-age";
import { originText, type PolicyOrigin, type UpdatePolicy, type UpdatesValue } from "../../core/update-policy";

export type PolicySourceKind = PolicyOrigin["kind"];

export interface UpdatesInfo {
  value: UpdatesValue;
  /** machine: the machine-wide policy file; env: GENTLE_SHELL_UPDATES; config: config.json; default: nothing set it. */
  from: PolicySourceKind;
  /** The file (home as ~) for machine and config; null otherwise. */
  where: string | null;
  /** Only when a source sets it: minutes, and as a policy file writes it ("7d"). */
  minimumReleaseAge: { minutes: number; setting: string; from: PolicySourceKind; where: string | null } | null;
  /** The machine-wide file's tier: locked (its values win), or defaults a user may change; null without a file. */
  machine: { where: string; tier: "locked" | "defaults" } | null;
  /** Why `updates` counts as off (a source unreadable or invalid); null otherwise. */
  problem: string | null;
}

const whereOf = (origin: PolicyOrigin): string | null => ("path" in origin ? origin.path : null);

export function updatesInfo(policy: UpdatePolicy): UpdatesInfo {
  return {
    value: policy.updates,
    from: policy.from.kind,
    where: whereOf(policy.from),
    minimumReleaseAge:
      policy.ageFrom.kind === "default"
        ? null
        : { minutes: policy.minimumAgeMinutes, setting: ageSetting(policy.minimumAgeMinutes), from: policy.ageFrom.kind, where: whereOf(policy.ageFrom) },
    problem: policy.problem,
    machine: policy.machine ? { where: policy.machine.path, tier: policy.machine.locked ? "locked" : "defaults" } : null,
  };
}

function origin(info: UpdatesInfo, from: PolicySourceKind, where: string | null): PolicyOrigin {
  if (from === "machine") return { kind: from, path: where ?? "", locked: info.machine?.tier !== "defaults" };
  if (from === "config") return { kind: from, path: where ?? "" };
  return { kind: from };
}

/**
 * status's `updates` row: "off, set by the machine-wide policy /etc/gentle-shell/policy.json; minimumReleaseAge 7 days,
 * set by ~/.gentle-shell/config/config.json"; with the machine-wide defaults named when a user's value beats them.
 */
export function updatesRow(info: UpdatesInfo): string {
  const value = info.problem
    ? `off: ${info.problem}, so updates count as off`
    : info.from === "default"
      ? `${info.value} (the default)`
      : `${info.value}, set by ${originText(origin(info, info.from, info.where))}`;
  const age = info.minimumReleaseAge;
  const aged = age ? `${value}; minimumReleaseAge ${ageText(age.minutes)}, set by ${originText(origin(info, age.from, age.where))}` : value;
  const defaults = info.machine?.tier === "defaults" && info.from !== "machine" && age?.from !== "machine";
  return defaults ? `${aged} (over the machine-wide defaults ${info.machine!.where})` : aged;
}
