/**
 * A fixture release as the release workflow publishes one: beside its two
 * distribution assets, the engine script and the signed release manifest
 * (sha256 and size of every asset: the distribution files, the engine, the
 * setup binaries at hand and the installers), signed with the fixture key.
 */
import { copyFile, link, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { ENGINE_ASSET, publishedTime, RELEASE_MANIFEST, RELEASE_SIGNATURE, releaseManifestText, sha256Of, signManifest } from "../../src/core/release-manifest";
import { prefixLayout } from "../../src/core/layout";
import { buildDistribution } from "../../src/release/distribution-build";
import type { FixtureInfo } from "./fixtures";
import { REPO_ROOT } from "./paths";
import { FIXTURE_RELEASE_KEY } from "./release-key";

export interface PublishOptions {
  shell: string;
  pi: string;
  /** The engine script this release publishes. */
  engine: string | Buffer;
  /** Further assets listed (not copied): name → file, e.g. the setup binaries. */
  listed?: Record<string, string>;
  privateKeyPem?: string;
  /** The manifest's published time; default now (a fixture release is published "today"). */
  published?: string | null;
}

/** Writes the engine, the manifest and its signature into `dir` (which holds the two distribution assets). */
export async function publishSignedRelease(dir: string, options: PublishOptions): Promise<{ manifest: string }> {
  await writeFile(join(dir, ENGINE_ASSET), options.engine);
  const files: Record<string, string> = {
    [DISTRIBUTION_JSON]: join(dir, DISTRIBUTION_JSON),
    [DISTRIBUTION_LOCK]: join(dir, DISTRIBUTION_LOCK),
    [ENGINE_ASSET]: join(dir, ENGINE_ASSET),
    "install.sh": join(REPO_ROOT, "installers", "install.sh"),
    "install.ps1": join(REPO_ROOT, "installers", "install.ps1"),
    ...options.listed,
  };
  const assets: Record<string, { sha256: string; size: number }> = {};
  for (const [name, file] of Object.entries(files)) {
    if (!(await stat(file).catch(() => null))) continue;
    const bytes = await readFile(file);
    assets[name] = { sha256: sha256Of(bytes), size: bytes.byteLength };
  }
  const published = options.published === undefined ? publishedTime(new Date()) : options.published;
  const manifest = releaseManifestText({ shell: options.shell, pi: options.pi, published, assets });
  await writeFile(join(dir, RELEASE_MANIFEST), manifest);
  await writeFile(join(dir, RELEASE_SIGNATURE), signManifest(manifest, options.privateKeyPem ?? FIXTURE_RELEASE_KEY.privateKeyPem));
  return { manifest };
}

/** Sign `dir`'s manifest again as it now reads (a test that rewrote it on purpose). */
export async function resign(dir: string, privateKeyPem = FIXTURE_RELEASE_KEY.privateKeyPem): Promise<void> {
  const manifest = await readFile(join(dir, RELEASE_MANIFEST), "utf8");
  await writeFile(join(dir, RELEASE_SIGNATURE), signManifest(manifest, privateKeyPem));
}

/**
 * A source folder laid out like the mirror: the fixture mirror's runtimes
 * (hard links) and a signed release `shell` pinning `pi`, resolved as the
 * release workflow does (our pnpm, a throwaway prefix whose npmrc names the
 * fixture registry) and published with the mirror's engine for that release.
 */
export async function signedReleaseSource(
  f: Pick<FixtureInfo, "mirrorRoot" | "pins" | "registryUrl" | "node" | "pnpmEntry">,
  /** `scratch`: a folder of the test's own (scratchDir), which this module cannot make: the fixtures' global setup imports it. */
  options: { shell: string; pi: string; scratch: string },
): Promise<{ root: string; lockfile: string }> {
  const { scratch } = options;
  const root = join(scratch, "source");
  for (const part of ["node", "pnpm", "engram"]) await linkTree(join(f.mirrorRoot, part), join(root, part));
  const layout = prefixLayout({ home: join(scratch, "distribution-home"), platform: "linux", pins: f.pins });
  await mkdir(layout.pnpm.config, { recursive: true });
  await writeFile(layout.pnpm.npmrc, `registry=${f.registryUrl}\n`);
  const built = await buildDistribution({ shell: options.shell, pi: options.pi, node: f.node, pnpmEntry: f.pnpmEntry, layout, pins: f.pins, env: process.env });
  const dir = join(root, "releases", `v${options.shell}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, DISTRIBUTION_JSON), built.json);
  await writeFile(join(dir, DISTRIBUTION_LOCK), built.lockfile);
  const engine = await readFile(join(f.mirrorRoot, "releases", `v${options.shell}`, ENGINE_ASSET));
  await publishSignedRelease(dir, { shell: options.shell, pi: options.pi, engine });
  return { root, lockfile: built.lockfile };
}

/** Hard links of a folder tree (the runtimes), copies where a link is not possible. */
export async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const [src, dest] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) await linkTree(src, dest);
    else await link(src, dest).catch(() => copyFile(src, dest));
  }
}
