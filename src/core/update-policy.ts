/**
 * The update policy (issues 41 and 47): `updates` (`on`, `notify` or `off`)
 * and `minimumReleaseAge` (an age with its unit, ./release-age.ts). Pure: the
 * sources are read by src/install/update-policy-file.ts and merged here.
 *
 * Precedence, written once. Each setting comes from the first source that
 * sets it, in this order:
 *
 *   locked (the machine-wide file without "enforce", or with "enforce": true):
 *     1. the machine-wide policy file an administrator writes;
 *     2. the environment, GENTLE_SHELL_UPDATES (`updates` only);
 *     3. the launcher's config.json (or GENTLE_SHELL_CONFIG);
 *   defaults (the machine-wide file with "enforce": false):
 *     1. the environment, GENTLE_SHELL_UPDATES (`updates` only);
 *     2. the launcher's config.json (or GENTLE_SHELL_CONFIG);
 *     3. the machine-wide file, as defaults a user may change;
 *   then `on` with no minimum age.
 *
 * An unreadable or invalid setting never means `on`: a source that cannot be
 * read, or says something this installer does not understand, counts as
 * `off` from that source, with the one sentence that says why (fail closed
 * toward the one who wrote it). A machine-wide file with such a problem is
 * always locked: a file that cannot be understood is not trusted to say that
 * its values are only defaults.
 *
 * Keys. The machine-wide file holds only MACHINE_KEYS: any other key makes it
 * count as `off`, naming the key (it is the administrator's, and a misspelt
 * "update" must not leave updates on). config.json holds the launcher's other
 * settings too, so only POLICY_KEYS are read there and the rest are not the
 * policy's; "enforce" and "allowExactVersions" there are not read (they are
 * the administrator's).
 *
 * `notify`: the startup offer prints one line on stderr and installs nothing;
 * `upgrade` and `update` still run when asked. `off`: the startup offer does
 * not check, and every path that changes the installed version refuses
 * (src/installed/update-gate.ts lists them); `upgrade --rollback` does not.
 * `minimumReleaseAge` binds the offer, a plain upgrade and `upgrade --to`,
 * unless the machine-wide file says "allowExactVersions": true, which frees
 * `--to` (an exact release someone chose) from it.
 */
import { ageText, parseReleaseAge } from "./release-age";

export const UPDATES_VALUES = ["on", "notify", "off"] as const;
export type UpdatesValue = (typeof UPDATES_VALUES)[number];

/** The environment knob. */
export const UPDATES_VARIABLE = "GENTLE_SHELL_UPDATES";
/** The policy's keys in config.json (which holds other keys too, not the policy's). */
export const POLICY_KEYS = ["updates", "minimumReleaseAge"] as const;
/** The keys the machine-wide file may hold: any other makes it count as off. */
export const MACHINE_KEYS = [...POLICY_KEYS, "enforce", "allowExactVersions"] as const;

/** Where a value came from, as a sentence names it; `locked` is the machine-wide file's tier. */
export type PolicyOrigin = { kind: "machine"; path: string; locked: boolean } | { kind: "env" } | { kind: "config"; path: string } | { kind: "default" };

/** One source as read: absent, its settings, or why it cannot be read. */
export type PolicySource = { kind: "absent" } | { kind: "read"; settings: Record<string, unknown> } | { kind: "unreadable"; reason: string };

export interface PolicyInputs {
  machine: { path: string; source: PolicySource };
  env: string | undefined;
  config: { path: string; source: PolicySource };
}

export interface UpdatePolicy {
  updates: UpdatesValue;
  from: PolicyOrigin;
  /** Minutes; 0 when no source sets it. */
  minimumAgeMinutes: number;
  ageFrom: PolicyOrigin;
  /** Why `updates` is off when a source could not be read or was invalid; null otherwise. */
  problem: string | null;
  /** The machine-wide file's "allowExactVersions": `upgrade --to` is then not bound by the minimum age. */
  allowExactVersions: boolean;
  /** The machine-wide file's tier: null when there is none. */
  machine: { path: string; locked: boolean } | null;
}

/** How a sentence names a source. */
export function originText(origin: PolicyOrigin): string {
  if (origin.kind === "machine") return `${origin.locked ? "the machine-wide policy" : "the machine-wide defaults"} ${origin.path}`;
  if (origin.kind === "env") return `the environment variable ${UPDATES_VARIABLE}`;
  if (origin.kind === "config") return origin.path;
  return "the default";
}

function updatesValue(value: unknown): UpdatesValue | null {
  return typeof value === "string" && (UPDATES_VALUES as readonly string[]).includes(value.trim().toLowerCase())
    ? (value.trim().toLowerCase() as UpdatesValue)
    : null;
}

/** What one source gives: each valid setting, or the sentence that makes the whole source count as `off`. */
interface Layer {
  updates?: UpdatesValue;
  age?: number;
  problem?: string;
  locked?: boolean;
  allowExact?: boolean;
}

const off = (problem: string): Layer => ({ updates: "off", problem, locked: true });

function flag(what: string, settings: Record<string, unknown>, key: string): boolean | string | undefined {
  const value = settings[key];
  if (value === undefined || typeof value === "boolean") return value;
  return `${what} sets ${key} to ${JSON.stringify(value)}, not true or false`;
}

function fileLayer(what: string, source: PolicySource, machine: boolean): Layer {
  if (source.kind === "absent") return {};
  if (source.kind === "unreadable") return off(`${what} cannot be read (${source.reason})`);
  const { settings } = source;
  const layer: Layer = {};
  if (machine) {
    const unknown = Object.keys(settings).filter((k) => !(MACHINE_KEYS as readonly string[]).includes(k));
    if (unknown.length) {
      const named = unknown.map((k) => JSON.stringify(k)).join(", ");
      return off(`${what} names ${named}, which ${unknown.length === 1 ? "is not a policy setting" : "are not policy settings"}`);
    }
    const enforce = flag(what, settings, "enforce");
    const allowExact = flag(what, settings, "allowExactVersions");
    if (typeof enforce === "string") return off(enforce);
    if (typeof allowExact === "string") return off(allowExact);
    layer.locked = enforce !== false;
    layer.allowExact = allowExact === true;
  }
  if (settings.updates !== undefined) {
    const updates = updatesValue(settings.updates);
    if (!updates) return off(`${what} sets updates to ${JSON.stringify(settings.updates)}, not "on", "notify" or "off"`);
    layer.updates = updates;
  }
  if (settings.minimumReleaseAge !== undefined) {
    const age = parseReleaseAge(settings.minimumReleaseAge);
    if ("problem" in age) return off(`${what} ${age.problem}`);
    layer.age = age.minutes;
  }
  return layer;
}

function envLayer(value: string | undefined): Layer {
  if (value === undefined || value.trim() === "") return {};
  const updates = updatesValue(value);
  return updates ? { updates } : off(`${UPDATES_VARIABLE}=${JSON.stringify(value)} is not "on", "notify" or "off"`);
}

/** The policy: each setting from the first source that sets it, in the order the header gives. */
export function mergePolicy(inputs: PolicyInputs): UpdatePolicy {
  const machineLayer = fileLayer(`the machine-wide policy ${inputs.machine.path}`, inputs.machine.source, true);
  const locked = machineLayer.locked !== false;
  const machine: PolicyOrigin = { kind: "machine", path: inputs.machine.path, locked };
  const user: Array<[PolicyOrigin, Layer]> = [
    [{ kind: "env" }, envLayer(inputs.env)],
    [{ kind: "config", path: inputs.config.path }, fileLayer(inputs.config.path, inputs.config.source, false)],
  ];
  const layers: Array<[PolicyOrigin, Layer]> = locked ? [[machine, machineLayer], ...user] : [...user, [machine, machineLayer]];
  const set = layers.find(([, layer]) => layer.updates !== undefined);
  const aged = layers.find(([, layer]) => layer.age !== undefined);
  return {
    updates: set?.[1].updates ?? "on",
    from: set?.[0] ?? { kind: "default" },
    problem: set?.[1].problem ?? null,
    minimumAgeMinutes: aged?.[1].age ?? 0,
    ageFrom: aged?.[0] ?? { kind: "default" },
    allowExactVersions: machineLayer.allowExact === true,
    machine: inputs.machine.source.kind === "absent" ? null : { path: inputs.machine.path, locked },
  };
}

/** The sentence a command that `off` blocks stops with (its "gentle-shell: " prefix is the caller's); null when it may run. */
export function policyRefusal(policy: UpdatePolicy, command: string): string | null {
  if (policy.updates !== "off") return null;
  const why = policy.problem ? `${policy.problem}, so updates count as off` : `updates are off by ${originText(policy.from)}`;
  return `${command} was not run: ${why}; nothing was changed`;
}

const MINUTE_MS = 60 * 1000;

/**
 * Whether a release published at `published` (its signed manifest's time, or
 * null when an older manifest has none) may be installed now under a minimum
 * age of `minutes`. No minimum age: always. With one, an unknown time is not
 * old enough: nothing says the release is not brand-new.
 */
export function oldEnough(published: string | null, now: number, minutes: number): boolean {
  if (minutes <= 0) return true;
  if (published === null) return false;
  const at = Date.parse(published);
  return Number.isFinite(at) && now - at >= minutes * MINUTE_MS;
}

/** Why a release was left alone for its age: the clause after "Gentle Shell <shell> ". */
export function tooYoungClause(published: string | null, policy: UpdatePolicy): string {
  const when = published === null ? "has no published time in its signed manifest" : `was published ${published}`;
  return `${when}, and ${originText(policy.ageFrom)} asks for releases at least ${ageText(policy.minimumAgeMinutes)} old`;
}
