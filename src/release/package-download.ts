/**
 * The packages of an offline bundle: every registry tarball of the signed
 * lockfile that one of the bundle's targets installs, downloaded from the
 * registry npm's configuration names (a scope's own registry for its
 * packages) and verified against the lockfile's integrity as it arrives,
 * into packages/<name>/-/<base>-<version>.tgz. Nothing unverified stays.
 */
import { promises as fs } from "node:fs";
import { dirname, join } from "../core/native-path";
import { lockedPackages, packagesForTargets, tarballPath, type LockedPackage } from "../core/lockfile";
import { npmrcAuthHeader, npmrcEntries } from "../core/npmrc";
import { trustRegistries } from "../install/npm-settings";
import type { Env } from "../core/environment";
import type { Target } from "../pins/types";
import type { HttpClient } from "../io/http-client";
import { BUNDLE_PACKAGES, PACKAGE_MAX } from "../install/offline/format";

export interface PackageDownloadOptions {
  lockfile: string;
  targets: readonly Target[];
  /** The default registry, with a trailing slash. */
  registry: string;
  npmrc: string;
  env: Env;
  /** The Host's HTTP client: each tarball through it, the registries trusted with the npm settings' authorities. */
  http: HttpClient;
  /** The bundle's staging folder. */
  into: string;
  /** How many downloads run at once. */
  parallel?: number;
  onDone?: (done: number, total: number) => void;
}

/** The registry a package comes from: its scope's `@scope:registry`, else the default. */
export function registryFor(pkg: Pick<LockedPackage, "name">, npmrc: string, fallback: string): string {
  if (!pkg.name.startsWith("@")) return fallback;
  const scope = pkg.name.slice(0, pkg.name.indexOf("/"));
  let found: string | null = null;
  for (const [key, value] of npmrcEntries(npmrc)) if (key === `${scope}:registry`) found = value;
  return found ? (found.endsWith("/") ? found : `${found}/`) : fallback;
}

/** Downloads the tarballs `targets` need; returns their bundle paths (relative to `into`). */
export async function downloadPackages(options: PackageDownloadOptions): Promise<string[]> {
  const packages = packagesForTargets(lockedPackages(options.lockfile), options.targets);
  const paths: string[] = [];
  let next = 0;
  let done = 0;
  // Each registry a tarball comes from (a scope's own too) with the authorities the npm settings name, as npm sends them.
  const registries = new Set(packages.map((pkg) => registryFor(pkg, options.npmrc, options.registry)));
  await trustRegistries(options.http, [...registries], options.npmrc, options.env);
  const worker = async () => {
    while (next < packages.length) {
      const pkg = packages[next++]!;
      const rel = `${BUNDLE_PACKAGES}/${tarballPath(pkg)}`;
      const url = registryFor(pkg, options.npmrc, options.registry) + tarballPath(pkg);
      const dest = join(options.into, rel);
      await fs.mkdir(dirname(dest), { recursive: true, mode: 0o755 });
      const auth = npmrcAuthHeader(options.npmrc, url, options.env);
      await options.http.download(
        url,
        dest,
        { name: `${pkg.name}@${pkg.version}`, integrity: pkg.integrity, maxBytes: PACKAGE_MAX },
        auth ? { headers: { authorization: auth } } : {},
      );
      await fs.chmod(dest, 0o644);
      paths.push(rel);
      options.onDone?.(++done, packages.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.parallel ?? 8, packages.length) }, worker));
  return paths.sort();
}
