import { promises as fs } from "node:fs";
import { join } from "pathe";
import type { Layout } from "../../core/layout";
import { sha256Hex } from "../../core/distribution";
import type { Pins, Target } from "../../pins/types";
import { fetchRelease, type FetchedRelease } from "../release";
import { extractTarGz, type MemberPolicy } from "../../io/archive";
import { verifyFile, type Expected } from "../../io/download";
import { lstatOrNull } from "../../io/files";
import { publishByRename, stagingPath, sweepAbandoned } from "../../io/staging";
import {
  BUNDLE_MANIFEST,
  BUNDLE_STORE,
  BUNDLE_SUMS,
  MANIFEST_MAX,
  parseSums,
  readBundleManifest,
  STORE_ARCHIVE_MAX,
  STORE_EXPANDED_MAX,
  STORE_MEMBERS_MAX,
  SUMS_MAX,
  type BundleManifest,
} from "./format";

export interface OfflineBundle {
  root: string;
  manifest: BundleManifest;
  sums: Map<string, string>;
}

async function readSmallFile(path: string, name: string, maxBytes: number): Promise<Buffer> {
  const stat = await fs.lstat(path).catch(() => null);
  if (!stat?.isFile()) throw new Error(`${name} is not a regular file in the bundle`);
  if (stat.size > maxBytes) throw new Error(`${name} in the bundle is larger than ${maxBytes} bytes`);
  return fs.readFile(path);
}

/** The bundle at `root`, or null when `root` is a plain folder source (no manifest). */
export async function openBundle(root: string, target: Target): Promise<OfflineBundle | null> {
  const manifestPath = join(root, BUNDLE_MANIFEST);
  if (!(await lstatOrNull(manifestPath))) return null;
  const manifestBytes = await readSmallFile(manifestPath, BUNDLE_MANIFEST, MANIFEST_MAX);
  const sums = parseSums((await readSmallFile(join(root, BUNDLE_SUMS), BUNDLE_SUMS, SUMS_MAX)).toString("utf8"));
  if (sums.get(BUNDLE_MANIFEST) !== sha256Hex(manifestBytes)) {
    throw new Error(`${BUNDLE_MANIFEST} in ${root} does not match its line in ${BUNDLE_SUMS}: the bundle is damaged; copy it again`);
  }
  const manifest = readBundleManifest(manifestBytes.toString("utf8"));
  if (!manifest.targets.includes(target)) {
    throw new Error(`this offline bundle was made for ${manifest.targets.join(", ")}, not for this machine (${target}); make one with --target ${target}`);
  }
  return { root, manifest, sums };
}

function bundleExpected(bundle: OfflineBundle, path: string, maxBytes: number): Expected {
  const sha256 = bundle.sums.get(path);
  if (!sha256) throw new Error(`${path} has no line in the bundle's ${BUNDLE_SUMS}: the bundle is incomplete; make it again`);
  return { name: `the bundle's ${path}`, sha256, maxBytes };
}

function damaged(path: string, error: unknown): Error {
  return new Error(
    `${path} in the offline bundle does not match its ${BUNDLE_SUMS} line (${(error as Error).message}): the bundle is damaged; copy it again. Nothing was installed from it.`,
  );
}

/**
 * The bundle's release, trusted through its signed manifest as from any
 * source (checked before the store or anything else of the bundle is read);
 * it must be the release the bundle's own manifest names.
 */
export async function readBundleRelease(bundle: OfflineBundle, pins: Pins, ownEngine: () => string | null): Promise<FetchedRelease> {
  const release = await fetchRelease({ kind: "folder", root: bundle.root }, bundle.manifest.shell, pins, ownEngine).catch((error: Error) => {
    throw new Error(`${error.message.replace(/; nothing was (changed|installed from it)$/, "")}; nothing was installed from the offline bundle`);
  });
  if (release.distribution.manifest.id !== bundle.manifest.id) {
    throw new Error(`the bundle's signed release is ${release.distribution.manifest.id}, its ${BUNDLE_MANIFEST} names ${bundle.manifest.id}`);
  }
  return release;
}

/** Copy the store archive off the bundle into `dir` (ours) and verify the copy; returns its path. */
export async function stageBundleStore(bundle: OfflineBundle, dir: string): Promise<string> {
  const rel = bundle.manifest.store;
  const expected = bundleExpected(bundle, rel, STORE_ARCHIVE_MAX);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const dest = stagingPath(dir, "offline-store", { ext: ".tar.gz" });
  try {
    const stat = await fs.lstat(join(bundle.root, rel)).catch(() => null);
    if (!stat?.isFile()) throw new Error(`${rel} is not a regular file in the offline bundle ${bundle.root}`);
    if (stat.size > expected.maxBytes) throw new Error(`${rel} in the offline bundle is larger than ${expected.maxBytes} bytes`);
    await fs.copyFile(join(bundle.root, rel), dest);
    await fs.chmod(dest, 0o600);
    try {
      await verifyFile(dest, expected);
    } catch (error) {
      throw damaged(rel, error);
    }
    return dest;
  } catch (error) {
    await fs.rm(dest, { force: true });
    throw error;
  }
}

function storePolicy(): MemberPolicy {
  return {
    name: `the offline bundle's ${BUNDLE_STORE}`,
    links: "reject",
    maxMembers: STORE_MEMBERS_MAX,
    maxBytes: STORE_EXPANDED_MAX,
    select: (path) => (path === "" || path === "." ? null : path),
    // pnpm keeps executables as `-exec` files; the store must stay writable by its user (pnpm writes its index).
    fileMode: (mode) => (mode & 0o100 ? 0o755 : 0o644),
  };
}

export interface ExtractedStore {
  /** The store pnpm runs against. */
  dir: string;
  /** The prefix's own store (kept) or a folder of ours beside it (removed by `cleanup`). */
  kind: "prefix" | "temporary";
  cleanup(): Promise<void>;
}

/**
 * Extract a verified store archive for pnpm. Into the prefix's pnpm store
 * when there is none yet (staged beside it, then one rename), so later
 * online upgrades start warm; otherwise into a folder of ours beside it,
 * because pnpm's index cannot be merged into an existing store.
 */
export async function extractBundleStore(layout: Layout, archive: string): Promise<ExtractedStore> {
  const parent = layout.pnpm.home;
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  await sweepAbandoned(parent, ["offline-store"]);
  const staging = stagingPath(parent, "offline-store");
  await fs.mkdir(staging, { mode: 0o755 });
  const remove = () => fs.rm(staging, { recursive: true, force: true }).then(() => undefined);
  try {
    await extractTarGz(archive, staging, storePolicy());
  } catch (error) {
    await remove();
    throw new Error(`the offline bundle's pnpm store could not be extracted: ${(error as Error).message}`);
  }
  if (!(await lstatOrNull(layout.pnpm.store))) {
    try {
      await publishByRename(staging, layout.pnpm.store);
      return { dir: layout.pnpm.store, kind: "prefix", cleanup: async () => undefined };
    } catch {
      // Another installer made the store meanwhile: ours stays temporary.
    }
  }
  return { dir: staging, kind: "temporary", cleanup: remove };
}
