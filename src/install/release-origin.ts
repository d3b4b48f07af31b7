/**
 * Where a release comes from, decided once (issue 27; design: "Sources and
 * pins"), for the install and the upgrade alike:
 *
 *   const origin = await releaseOrigin(value, target);       // a bundle, or online (official or a mirror)
 *   const shell = await newestRelease(origin, registry);     // the bundle's, or the registry's latest gentle-pi
 *   const opened = await openRelease(origin, shell, ...);    // the signed manifest first, then the assets and the engine
 *   const version = await installRelease(opened, ...);       // its version, beside the others
 *
 * Nothing of a release is read before its signed manifest is verified under
 * the compiled-in keys; a bundle's packages are checked against the signed
 * lockfile before pnpm sees them.
 */
import type { Distribution, VersionProject } from "../core/release-project";
import type { Env } from "../core/environment";
import type { Layout } from "../core/layout";
import { parseSource, type Source } from "../core/source";
import type { Pins, Target } from "../pins/types";
import { installBundleVersion } from "./offline/install";
import { bundlePackageFiles, openBundle, readBundleRelease, type OfflineBundle } from "./offline/open";
import { type FetchedRelease, fetchRelease, latestRelease, type RegistryAccess } from "./release-fetch";
import type { HttpClient } from "../io/http-client";
import { installVersion, type Alongside, type InstallVersionOutcome } from "./version-install";
import type { Echo } from "../io/process";
import { ownScript } from "../io/self";

/** An offline bundle (a folder holding offline-bundle.json), or the network: the official downloads or a mirror (a plain folder too). */
export type ReleaseOrigin = { kind: "bundle"; bundle: OfflineBundle } | { kind: "online"; source: Source };

/** Decide once where releases come from: `value` is --source (or what an install remembered). */
export async function releaseOrigin(value: string | undefined, target: Target): Promise<ReleaseOrigin> {
  const source = parseSource(value, "");
  if (source.kind === "folder") {
    const bundle = await openBundle(source.root, target);
    if (bundle) return { kind: "bundle", bundle };
  }
  return { kind: "online", source };
}

export type { RegistryAccess };

/** The newest release the origin offers: a bundle's own, else the registry's latest gentle-pi. */
export async function newestRelease(origin: ReleaseOrigin, access: RegistryAccess | null): Promise<string> {
  if (origin.kind === "bundle") return origin.bundle.manifest.shell;
  if (!access) throw new Error("the registry to ask for the latest release is not known yet");
  return latestRelease(access);
}

/** Throws unless the bundle holds release `shell` (said before anything of it is read). */
export function bundleHolds(bundle: OfflineBundle, shell: string): void {
  const held = bundle.manifest.shell;
  if (shell !== held) throw new Error(`this offline bundle holds Gentle Shell ${held}, not ${shell}`);
}

export interface OpenedRelease {
  origin: ReleaseOrigin;
  release: FetchedRelease;
  /** A bundle's: the tarballs this target installs, each checked against the signed lockfile. */
  packages: ReadonlyMap<string, string> | null;
}

/**
 * Open release `shell`: its signed manifest checked first, then its two
 * distribution assets and its engine, each the exact bytes the manifest lists
 * (and, from a bundle, every package this target installs). `registry` names
 * the official source's registry; a mirror and a bundle do not need one.
 */
export async function openRelease(
  origin: ReleaseOrigin,
  shell: string,
  options: { pins: Pins; target: Target; ownEngine: () => string | null; registry?: string; http: HttpClient },
): Promise<OpenedRelease> {
  if (origin.kind === "bundle") {
    bundleHolds(origin.bundle, shell);
    const release = await readBundleRelease(origin.bundle, options.pins, options.ownEngine, options.http);
    return { origin, release, packages: await bundlePackageFiles(origin.bundle, release, options.target) };
  }
  const source: Source = origin.source.kind === "official" ? { kind: "official", registry: options.registry ?? "" } : origin.source;
  return { origin, release: await fetchRelease(options.http, source, shell, options.pins, options.ownEngine), packages: null };
}

/** Open release `shell` for this machine (its target, this engine as the fallback engine): an upgrade's or a migration's. */
export function openReleaseHere(origin: ReleaseOrigin, shell: string, pins: Pins, target: Target, registry: string, http: HttpClient): Promise<OpenedRelease> {
  return openRelease(origin, shell, { pins, target, ownEngine: ownScript, registry, http });
}

export interface InstalledRelease {
  id: string;
  status: InstallVersionOutcome["status"];
  repaired?: string;
  distribution: Distribution;
  /** What the install adds to its line: offline and the packages used, or that the release brought its own engine. */
  note: string;
}

/**
 * Install the opened release's version beside the others: from a bundle with
 * pnpm --offline against its verified store, else with our pnpm from the
 * registry. `project` replaces the release's own pair (an upgrade that keeps
 * a newer Pi); a bundle always installs its release as signed.
 */
export async function installRelease(
  opened: OpenedRelease,
  options: { layout: Layout; env: Env; go: boolean; project?: VersionProject; alongside?: Alongside },
  echo?: Echo,
): Promise<InstalledRelease> {
  const { layout, env, go, alongside } = options;
  const { origin, release, packages } = opened;
  if (origin.kind === "bundle" && packages) {
    const done = await installBundleVersion({ layout, bundle: origin.bundle, release, packages, env, go, alongside }, echo);
    const again = done.result.repaired ? { repaired: done.result.repaired } : {};
    return { id: done.result.id, status: done.result.status, ...again, distribution: done.distribution, note: ` offline${done.packagesNote}` };
  }
  const distribution = options.project ?? release.distribution;
  const result = await installVersion({ layout, distribution, env, engine: release.engine, go, alongside }, echo);
  return { id: result.id, status: result.status, ...(result.repaired ? { repaired: result.repaired } : {}), distribution: release.distribution, note: "" };
}
