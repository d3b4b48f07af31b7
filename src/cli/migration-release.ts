/**
 * The release a migration moves to, read before anything of the user's is
 * asked (spec: "gentle-shell upgrade (migrateGlobalShell)": the owner probe
 * runs only after the assets read as published). Its version is the one
 * asked for, else the registry's latest, and its signed manifest and assets
 * are fetched and checked as the install will check them. Null when that
 * cannot be known before the install: an offline bundle (read by the install
 * itself), or a registry that only our npm, not installed yet, could name.
 */
import type { Host } from "../io/host";
import { npmrcRegistry } from "../core/npmrc";
import { parseSource } from "../core/source";
import { userRegistrySettings } from "../install/npm-settings";
import { newestRelease, openReleaseHere, type ReleaseOrigin } from "../install/release-origin";

export async function readMigrationRelease(host: Host, source: string | undefined, release: string | undefined): Promise<{ shell: string; pi: string } | null> {
  const { env, home, pins } = host;
  const { npmrc } = await userRegistrySettings(env, home);
  const registry = npmrcRegistry(npmrc, env);
  const origin: ReleaseOrigin = { kind: "online", source: parseSource(source, "") };
  if (origin.source.kind === "folder") return null;
  const { http } = host;
  const shell = release ?? (registry ? await newestRelease(origin, { registry, npmrc, env, http }) : null);
  if (!shell) return null;
  const { release: fetched } = await openReleaseHere(origin, shell, pins, host.target, registry ?? "", http);
  return { shell: fetched.signed.shell, pi: fetched.signed.pi };
}
