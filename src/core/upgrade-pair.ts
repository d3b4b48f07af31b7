/**
 * Which pair an upgrade installs (spec: "gentle-shell upgrade in a bundled
 * install", step 3). Pure. The release's verified pair, with its lockfile,
 * unless the active Pi is newer than the release's: then Shell keeps that Pi
 * and the release's gentle-pi is installed with it, without a lockfile
 * (pnpm resolves). The release lockfile is used only for its exact pair.
 */
import type { Distribution, ReleaseManifest, VersionProject } from "./release-project";
import { versionId } from "./layout";
import { assertExactVersion, compareVersions } from "./versions";
import { unlockedProject } from "./pi-update";

export interface UpgradePair {
  shell: string;
  pi: string;
  id: string;
  /** "release": the release's own lockfile (its exact pair); "none": pnpm resolves, no lockfile is written first. */
  lockfile: "release" | "none";
  /** The Pi the release pins (differs from `pi` only when the active Pi is kept). */
  releasePi: string;
}

export function upgradePair(activePi: string, release: ReleaseManifest): UpgradePair {
  const active = assertExactVersion("the active Pi version", activePi);
  const { shell, pi: releasePi } = release;
  if (compareVersions(active, releasePi) > 0) return { shell, pi: active, id: versionId(shell, active), lockfile: "none", releasePi };
  return { shell, pi: releasePi, id: versionId(shell, releasePi), lockfile: "release", releasePi };
}

/** What installVersion installs for `pair`: the release's distribution as verified, or its files for the kept Pi, with no lockfile. */
export function pairProject(pair: UpgradePair, distribution: Distribution): VersionProject {
  const { shell, pi } = distribution.manifest;
  if (pair.shell !== shell || pair.releasePi !== pi) throw new Error(`the pair ${pair.id} was not chosen for the release ${distribution.manifest.id}`);
  if (pair.lockfile === "release") return distribution;
  return unlockedProject(shell, pair.pi);
}

/** The one warning line an upgrade that keeps the active Pi prints. */
export function keptPiWarning(pair: UpgradePair): string {
  return `Warning: Shell keeps Pi ${pair.pi} (newer than the release's Pi ${pair.releasePi}) and installs gentle-pi ${pair.shell} without the release's lockfile; pnpm resolves that pair.`;
}

/**
 * An offline bundle carries only its release's exact pair, so it cannot
 * bring gentle-pi with a newer kept Pi: null when it can install `pair`,
 * else the sentence the upgrade stops with.
 */
export function offlineRefusal(pair: UpgradePair): string | null {
  if (pair.lockfile === "release") return null;
  return (
    `the offline bundle has Gentle Shell ${pair.shell} with Pi ${pair.releasePi} only, and Shell keeps the newer active Pi ${pair.pi}, ` +
    `which pnpm must resolve from a registry; upgrade from one instead (for example gentle-shell upgrade --source official); nothing was changed`
  );
}
