/**
 * A version from an offline bundle (docs/offline.md): the bundle's
 * own signed release, installed by our pnpm from the bundle's package
 * tarballs, which a loopback registry serves for the length of the run and
 * pnpm checks against the signed lockfile's integrity; no other registry is
 * asked. Shared by a new install and by gentle-shell upgrade --source
 * <bundle>. A version already installed is reused without serving anything.
 */
import type { Distribution } from "../../core/release-project";
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { serveTarballs } from "../../io/loopback-registry";
import type { Echo } from "../../io/process";
import type { FetchedRelease } from "../release-fetch";
import { installVersion, versionDamage, versionState, type Alongside } from "../version-install";
import { join } from "../../core/native-path";
import type { OfflineBundle } from "./open";

export interface BundleVersionOptions {
  layout: Layout;
  bundle: OfflineBundle;
  /** The bundle's release, its signature verified (readBundleRelease), and its packages. */
  release: FetchedRelease;
  /** The tarballs this machine needs, already checked against the signed lockfile (bundlePackageFiles). */
  packages: ReadonlyMap<string, string>;
  env: Env;
  go: boolean;
  alongside?: Alongside;
}

/** `echo` gets pnpm's output as it arrives (a verbose install). */
export async function installBundleVersion(
  options: BundleVersionOptions,
  echo?: Echo,
): Promise<{ distribution: Distribution; result: Awaited<ReturnType<typeof installVersion>>; packagesNote: string }> {
  const { layout, release } = options;
  const { distribution } = release;
  const install = (offline?: { registry: string }) =>
    installVersion({ layout, distribution, env: options.env, engine: release.engine, go: options.go, offline, alongside: options.alongside }, echo);
  // A finished version is reused without serving the packages; a damaged one is installed again from them.
  const { id, shell, pi } = distribution.manifest;
  if ((await versionState(layout, id)).kind === "valid" && !(await versionDamage(join(layout.versions, id), shell, pi))) {
    return { distribution, result: await install(), packagesNote: "" };
  }
  const files = options.packages;
  const registry = await serveTarballs(files);
  try {
    const result = await install({ registry: registry.url });
    const fetched = registry.served();
    return {
      distribution,
      result,
      packagesNote: `; ${fetched} package(s) taken from the bundle (${files.size - fetched} already in the store), each checked against the signed lockfile`,
    };
  } finally {
    await registry.close();
  }
}
