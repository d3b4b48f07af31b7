/**
 * The update policy where the engine's update paths meet it (issue 41): the
 * startup offer (../engine/startup-offer.ts), `upgrade` (../commands/upgrade.ts; never
 * `--rollback`) and `update` (../commands/update.ts) ask `updatePolicyOf` first; `off`
 * stops each before it asks any network. The sources and their precedence are
 * src/install/update-policy-file.ts and src/core/update-policy.ts.
 *
 * Which releases are old enough for `minimumReleaseAge` is decided on the
 * release's own published time, from its signed manifest, verified under the
 * compiled-in keys before it is believed (`releaseChoice`).
 */
import type { HttpClient } from "../io/http-client";
import type { RegistryAccess } from "../install/release-fetch";
import type { Env } from "../core/environment";
import type { Layout } from "../core/layout";
import type { Source } from "../core/source";
import { oldEnough, type UpdatePolicy } from "../core/update-policy";
import { compareVersions, isExactVersion } from "../core/versions";
import { SHELL_PACKAGE } from "../core/release-project";
import { readUpdatePolicy } from "../install/update-policy-file";
import type { LauncherConfigFile } from "../install/launcher-config-file";
import type { Pins } from "../pins/types";

/**
 * A test build (fixture pins) reads the machine-wide file under this folder,
 * so a test never writes /etc; a release build has no such variable, so
 * nothing a user sets moves the administrator's file.
 */
export const TEST_POLICY_ROOT = "GSS_TEST_POLICY_ROOT";

export function policyRoot(env: Env, pins: Pick<Pins, "kind">): string | undefined {
  return pins.kind === "fixture" ? env[TEST_POLICY_ROOT] || undefined : undefined;
}

/** The policy in force; `configFile` is the launcher's config.json when the caller has read it already (the startup offer). */
export function updatePolicyOf(layout: Layout, env: Env, configFile?: LauncherConfigFile): Promise<UpdatePolicy> {
  return readUpdatePolicy(layout, env, { root: policyRoot(env, layout.pins), configFile });
}

/** A release's verified published time (null: its manifest has none), or a rejection when it has no signed manifest there. */
export async function publishedOf(source: Source, shell: string, http: HttpClient, pins: Pins): Promise<string | null> {
  const { fetchSignedManifest } = await import("../install/release-fetch");
  return (await fetchSignedManifest(http, source, shell, pins)).signed.published;
}

/** At most this many releases are looked at, newest first, for one old enough. */
const CANDIDATES = 8;

/** The stable releases of the registry's package document newer than `active` and not newer than `latest`, newest first. */
export function newerReleases(document: unknown, active: string, latest: string): string[] {
  const versions = Object.keys(((document as { versions?: unknown } | null)?.versions ?? {}) as Record<string, unknown>);
  return versions
    .filter((v) => isExactVersion(v) && !v.includes("-") && compareVersions(v, active) > 0 && compareVersions(v, latest) <= 0)
    .sort((a, b) => compareVersions(b, a))
    .slice(0, CANDIDATES);
}

export type ReleaseChoice =
  | { kind: "take"; shell: string; skipped: { shell: string; published: string | null } | null }
  | { kind: "none"; published: string | null };

/**
 * For a plain upgrade under a minimum age: the newest release that is old
 * enough among `latest` and the registry's releases between the active one and
 * it (each judged by its own signed manifest; one without a published manifest
 * at the source is passed over). `latest` itself when no age is set.
 */
export async function releaseChoice(options: {
  policy: UpdatePolicy;
  latest: string;
  active: string;
  /** A release's verified published time (publishedOf at the install's source); rejects when it has no signed manifest there. */
  published: (shell: string) => Promise<string | null>;
  /** The registry's gentle-pi document, for the releases between; null for a source with one release (a bundle). */
  document: () => Promise<unknown>;
  now?: number;
}): Promise<ReleaseChoice> {
  const { policy, latest } = options;
  const minutes = policy.minimumAgeMinutes;
  if (minutes <= 0) return { kind: "take", shell: latest, skipped: null };
  const now = options.now ?? Date.now();
  const newest = await options.published(latest);
  if (oldEnough(newest, now, minutes)) return { kind: "take", shell: latest, skipped: null };
  const others = newerReleases(await options.document().catch(() => null), options.active, latest).filter((v) => v !== latest);
  for (const shell of others) {
    const published = await options.published(shell).catch(() => undefined);
    if (published !== undefined && oldEnough(published, now, minutes)) return { kind: "take", shell, skipped: { shell: latest, published: newest } };
  }
  return { kind: "none", published: newest };
}

/** The registry's gentle-pi package document (its versions), for releaseChoice. */
export async function shellDocument(access: RegistryAccess): Promise<unknown> {
  const { packageDocument } = await import("../install/release-fetch");
  return packageDocument(access, SHELL_PACKAGE);
}
