/**
 * The update policy (issue 41, item 2): one setting, `updates` (`on`,
 * `notify` or `off`), and `minimumReleaseAge` in days. Pure: the sources are
 * read by src/install/update-policy-file.ts and merged here, strongest first:
 *
 *   1. the machine-wide policy file an administrator writes (a user cannot override it);
 *   2. the environment, GENTLE_SHELL_UPDATES (`updates` only);
 *   3. the launcher's config.json (or GENTLE_SHELL_CONFIG), where "Skip this version" lives too.
 *
 * Nothing given means `on` with no minimum age. An unreadable or invalid
 * setting never means `on`: a source that cannot be read, or says something
 * this installer does not understand, counts as `off` from that source, with
 * the one sentence that says why (fail closed toward the one who wrote it).
 * `notify`: the startup offer prints one line on stderr and installs nothing;
 * `upgrade` and `update` still run when asked. `off`: the startup offer does
 * not check, and `upgrade` (but `--rollback`) and `update` refuse.
 */

export const UPDATES_VALUES = ["on", "notify", "off"] as const;
export type UpdatesValue = (typeof UPDATES_VALUES)[number];

/** The environment knob. */
export const UPDATES_VARIABLE = "GENTLE_SHELL_UPDATES";
/** The keys a policy file may hold (config.json holds others too, which are not the policy's). */
export const POLICY_KEYS = ["updates", "minimumReleaseAge"] as const;

/** Where a value came from, as a sentence names it. */
export type PolicyOrigin = { kind: "machine"; path: string } | { kind: "env" } | { kind: "config"; path: string } | { kind: "default" };

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
  /** Days; 0 when no source sets it. */
  minimumReleaseAge: number;
  ageFrom: PolicyOrigin;
  /** Why `updates` is off when a source could not be read or was invalid; null otherwise. */
  problem: string | null;
}

/** How a sentence names a source. */
export function originText(origin: PolicyOrigin): string {
  if (origin.kind === "machine") return `the machine-wide policy ${origin.path}`;
  if (origin.kind === "env") return `the environment variable ${UPDATES_VARIABLE}`;
  if (origin.kind === "config") return origin.path;
  return "the default";
}

function updatesValue(value: unknown): UpdatesValue | null {
  return typeof value === "string" && (UPDATES_VALUES as readonly string[]).includes(value.trim().toLowerCase())
    ? (value.trim().toLowerCase() as UpdatesValue)
    : null;
}

function ageValue(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 3650 ? value : null;
}

/** What one file gives: each valid setting, or the sentence that makes the whole file count as `off`. */
interface Layer {
  updates?: UpdatesValue;
  age?: number;
  problem?: string;
}

function fileLayer(what: string, source: PolicySource, strict: boolean): Layer {
  if (source.kind === "absent") return {};
  if (source.kind === "unreadable") return { updates: "off", problem: `${what} cannot be read (${source.reason})` };
  const { settings } = source;
  if (strict) {
    const unknown = Object.keys(settings).filter((k) => !(POLICY_KEYS as readonly string[]).includes(k));
    if (unknown.length) return { updates: "off", problem: `${what} names ${unknown.map((k) => JSON.stringify(k)).join(", ")}, which is not a policy setting` };
  }
  const layer: Layer = {};
  if (settings.updates !== undefined) {
    const updates = updatesValue(settings.updates);
    if (!updates) return { updates: "off", problem: `${what} sets updates to ${JSON.stringify(settings.updates)}, not "on", "notify" or "off"` };
    layer.updates = updates;
  }
  if (settings.minimumReleaseAge !== undefined) {
    const age = ageValue(settings.minimumReleaseAge);
    if (age === null)
      return {
        updates: "off",
        problem: `${what} sets minimumReleaseAge to ${JSON.stringify(settings.minimumReleaseAge)}, not a number of days from 0 to 3650`,
      };
    layer.age = age;
  }
  return layer;
}

function envLayer(value: string | undefined): Layer {
  if (value === undefined || value.trim() === "") return {};
  const updates = updatesValue(value);
  return updates ? { updates } : { updates: "off", problem: `${UPDATES_VARIABLE}=${JSON.stringify(value)} is not "on", "notify" or "off"` };
}

/** The policy: `updates` from the strongest source that sets it, `minimumReleaseAge` likewise (the file, then config.json). */
export function mergePolicy(inputs: PolicyInputs): UpdatePolicy {
  const machine: PolicyOrigin = { kind: "machine", path: inputs.machine.path };
  const config: PolicyOrigin = { kind: "config", path: inputs.config.path };
  const layers: Array<[PolicyOrigin, Layer]> = [
    [machine, fileLayer(`the machine-wide policy ${inputs.machine.path}`, inputs.machine.source, true)],
    [{ kind: "env" }, envLayer(inputs.env)],
    [config, fileLayer(inputs.config.path, inputs.config.source, false)],
  ];
  const set = layers.find(([, layer]) => layer.updates !== undefined);
  const aged = layers.find(([, layer]) => layer.age !== undefined);
  return {
    updates: set?.[1].updates ?? "on",
    from: set?.[0] ?? { kind: "default" },
    problem: set?.[1].problem ?? null,
    minimumReleaseAge: aged?.[1].age ?? 0,
    ageFrom: aged?.[0] ?? { kind: "default" },
  };
}

/** The sentence a command that `off` blocks stops with (its "gentle-shell: " prefix is the caller's); null when it may run. */
export function policyRefusal(policy: UpdatePolicy, command: string): string | null {
  if (policy.updates !== "off") return null;
  const why = policy.problem ? `${policy.problem}, so updates count as off` : `updates are off by ${originText(policy.from)}`;
  return `${command} was not run: ${why}; nothing was changed`;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a release published at `published` (its signed manifest's time, or
 * null when an older manifest has none) may be installed by the offer or a
 * plain upgrade now. No minimum age: always. With one, an unknown time is not
 * old enough: nothing says the release is not brand-new.
 */
export function oldEnough(published: string | null, now: number, days: number): boolean {
  if (days <= 0) return true;
  if (published === null) return false;
  const at = Date.parse(published);
  return Number.isFinite(at) && now - at >= days * DAY_MS;
}

/** Why a plain upgrade left `shell` (the newest) alone: the clause after "Gentle Shell <shell> ". */
export function tooYoungClause(published: string | null, policy: UpdatePolicy): string {
  const days = policy.minimumReleaseAge;
  const when = published === null ? "has no published time in its signed manifest" : `was published ${published}`;
  return `${when}, and ${originText(policy.ageFrom)} asks for releases at least ${days} day${days === 1 ? "" : "s"} old`;
}
