/**
 * Reading an offline bundle (format: ./format.ts): its manifest, its signed
 * release (before anything else of it is read) and the package tarballs a
 * machine's install needs.
 */
import { promises as fs } from "node:fs";
import { join } from "../../core/native-path";
import { sha256Hex } from "../../core/release-project";
import type { Pins, Target } from "../../pins/types";
import { fetchRelease, type FetchedRelease } from "../release-fetch";
import type { HttpClient } from "../../io/http-client";
import { lockedPackages, packagesForTargets, tarballPath } from "../../core/lockfile";
import { lstatOrNull } from "../../io/files";
import { verifyFile } from "../../io/download";
import { readSourceFile } from "../../io/own-dir";
import {
  BUNDLE_MANIFEST,
  BUNDLE_PACKAGES,
  BUNDLE_SUMS,
  MANIFEST_MAX,
  PACKAGE_MAX,
  parseSums,
  readBundleManifest,
  SUMS_MAX,
  type BundleManifest,
} from "./format";

export interface OfflineBundle {
  root: string;
  manifest: BundleManifest;
  sums: Map<string, string>;
}

/** A small file of the bundle, opened without following a link (none between the bundle's root and it). */
function readSmallFile(root: string, path: string, name: string, maxBytes: number): Promise<Buffer> {
  return readSourceFile(root, path, name, maxBytes);
}

/** The bundle at `root`, or null when `root` is a plain folder source (no manifest). `target` null: for any machine (verify). */
export async function openBundle(root: string, target: Target | null): Promise<OfflineBundle | null> {
  const manifestPath = join(root, BUNDLE_MANIFEST);
  if (!(await lstatOrNull(manifestPath))) return null;
  const manifestBytes = await readSmallFile(root, manifestPath, BUNDLE_MANIFEST, MANIFEST_MAX);
  const sums = parseSums((await readSmallFile(root, join(root, BUNDLE_SUMS), BUNDLE_SUMS, SUMS_MAX)).toString("utf8"));
  if (sums.get(BUNDLE_MANIFEST) !== sha256Hex(manifestBytes)) {
    throw new Error(`${BUNDLE_MANIFEST} in ${root} does not match its line in ${BUNDLE_SUMS}: the bundle is damaged; copy it again`);
  }
  const manifest = readBundleManifest(manifestBytes.toString("utf8"), root);
  if (target && !manifest.targets.includes(target)) {
    throw new Error(`this offline bundle was made for ${manifest.targets.join(", ")}, not for this machine (${target}); make one with --target ${target}`);
  }
  return { root, manifest, sums };
}

/**
 * The bundle's release, trusted through its signed manifest as from any
 * source (checked before the packages or anything else of the bundle is read);
 * it must be the release the bundle's own manifest names.
 */
export async function readBundleRelease(bundle: OfflineBundle, pins: Pins, ownEngine: () => string | null, http: HttpClient): Promise<FetchedRelease> {
  const release = await fetchRelease(http, { kind: "folder", root: bundle.root }, bundle.manifest.shell, pins, ownEngine).catch((error: Error) => {
    throw new Error(`${error.message.replace(/; nothing was (changed|installed from it)$/, "")}; nothing was installed from the offline bundle`);
  });
  if (release.distribution.manifest.id !== bundle.manifest.id) {
    throw new Error(`the bundle's signed release is ${release.distribution.manifest.id}, its ${BUNDLE_MANIFEST} names ${bundle.manifest.id}`);
  }
  return release;
}

/**
 * The tarballs this machine's install needs, as the loopback registry
 * serves them (registry path → file in the bundle): every package of the
 * signed lockfile that fits `target`. Each must be a regular file of the
 * bundle whose bytes match the lockfile's integrity, checked here before
 * anything is installed (pnpm checks each again as it unpacks it).
 */
export async function bundlePackageFiles(bundle: OfflineBundle, release: FetchedRelease, target: Target): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const pkg of packagesForTargets(lockedPackages(release.distribution.lockfile), [target])) {
    const path = tarballPath(pkg);
    const file = join(bundle.root, BUNDLE_PACKAGES, path);
    const stat = await fs.lstat(file).catch(() => null);
    if (!stat?.isFile()) {
      throw new Error(
        `the offline bundle lacks ${pkg.name}@${pkg.version} (${BUNDLE_PACKAGES}/${path}), which this machine needs: the bundle is incomplete; make it again`,
      );
    }
    try {
      await verifyFile(file, { name: `${pkg.name}@${pkg.version}`, integrity: pkg.integrity, maxBytes: PACKAGE_MAX });
    } catch {
      throw new Error(
        `${BUNDLE_PACKAGES}/${path} in the offline bundle is not ${pkg.name}@${pkg.version} as the signed lockfile records it: the bundle is damaged or altered; nothing was installed from it`,
      );
    }
    files.set(path, file);
  }
  return files;
}
