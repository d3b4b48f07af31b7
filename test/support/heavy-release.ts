/**
 * The bench's heavy fixture release (bench/scale.mjs): gentle-pi 4.2.0, the
 * fixture gentle-pi with HEAVY_DEPENDENCIES added, so its release lockfile
 * holds about ten times the packages of the normal fixture release (4.1.0
 * with Pi 1.6.0). Only the bench makes it: it is published into the fixture
 * registry under the tag `bench-heavy` (`latest` stays the newest of
 * GENTLE_PI_VERSIONS, which the tests see unchanged), and its signed release
 * lives in a source folder of the bench's own, never in the shared mirror.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { prefixLayout } from "../../src/core/layout";
import { ENGINE_ASSET } from "../../src/core/release-manifest";
import { buildDistribution } from "../../src/release/distribution-build";
import type { Fixtures } from "./fixtures";
import { packGentlePi } from "./gentle-pi";
import { linkTree, publishSignedRelease } from "./release-publish";

export const HEAVY_SHELL = "4.2.0";
export const HEAVY_TAG = "bench-heavy";

/**
 * Well-known pure-JS packages at exact versions, none with an install script
 * (checked: a full install of these lists no preinstall, install or
 * postinstall and no binding.gyp). Together with Pi they make a lockfile of
 * about 1,200 packages.
 */
export const HEAVY_DEPENDENCIES: Record<string, string> = {
  "@babel/core": "7.28.5",
  "@babel/preset-env": "7.28.5",
  "@babel/preset-react": "7.27.1",
  browserify: "17.0.1",
  eslint: "9.39.1",
  "eslint-plugin-import": "2.32.0",
  express: "5.1.0",
  gulp: "5.0.1",
  jest: "29.7.0",
  jsdom: "26.1.0",
  karma: "6.4.4",
  less: "4.3.0",
  mocha: "11.7.5",
  nyc: "17.1.0",
  webpack: "5.113.0",
  "webpack-cli": "6.0.1",
  "webpack-dev-server": "5.2.2",
};

/** How many packages a pnpm lockfile pins: the keys of its `packages:` section. */
export function lockfilePackageCount(lockfile: string): number {
  let inPackages = false;
  let count = 0;
  for (const line of lockfile.split("\n")) {
    if (/^\S/.test(line)) inPackages = line === "packages:";
    else if (inPackages && /^ {2}\S.*:$/.test(line)) count++;
  }
  return count;
}

export interface ScaleSource {
  /** A source folder laid out like the mirror: its runtimes, the normal release as the mirror has it, the heavy release. */
  root: string;
  normal: { shell: string; pi: string; packages: number };
  heavy: { shell: string; pi: string; packages: number };
}

/**
 * Publish the heavy gentle-pi (once per registry) and lay out `scratch/source`
 * with the mirror's runtimes (hard links), the mirror's release `normal`
 * as it is, and the heavy release pinning the same Pi, resolved as the
 * release workflow does and signed with the fixture key, with the normal
 * release's engine (so both releases install through the same engine).
 */
export async function heavyReleaseSource(
  f: Pick<Fixtures, "mirrorRoot" | "pins" | "registryUrl" | "node" | "pnpmEntry"> & { registry: Pick<Fixtures["registry"], "publish"> },
  options: { normal: { shell: string; pi: string }; scratch: string },
): Promise<ScaleSource> {
  const { normal, scratch } = options;
  if (!(await gentlePiDocument(f.registryUrl)).versions?.[HEAVY_SHELL]) {
    const packed = await packGentlePi(HEAVY_SHELL, join(scratch, "packed"), { dependencies: HEAVY_DEPENDENCIES });
    await f.registry.publish(packed.file, HEAVY_TAG);
    const tags = (await gentlePiDocument(f.registryUrl))["dist-tags"];
    if (tags?.[HEAVY_TAG] !== HEAVY_SHELL || tags.latest === HEAVY_SHELL) {
      throw new Error(`the heavy gentle-pi ${HEAVY_SHELL} must be tagged ${HEAVY_TAG} only; the registry's tags are ${JSON.stringify(tags)}`);
    }
  }
  const root = join(scratch, "source");
  for (const entry of await readdir(f.mirrorRoot, { withFileTypes: true })) {
    if (entry.name === "releases") continue;
    if (entry.isDirectory()) await linkTree(join(f.mirrorRoot, entry.name), join(root, entry.name));
  }
  const normalDir = join(f.mirrorRoot, "releases", `v${normal.shell}`);
  await linkTree(normalDir, join(root, "releases", `v${normal.shell}`));

  const layout = prefixLayout({ home: join(scratch, "distribution-home"), platform: "linux", pins: f.pins });
  await mkdir(layout.pnpm.config, { recursive: true });
  await writeFile(layout.pnpm.npmrc, `registry=${f.registryUrl}\n`);
  const built = await buildDistribution({ shell: HEAVY_SHELL, pi: normal.pi, node: f.node, pnpmEntry: f.pnpmEntry, layout, pins: f.pins, env: process.env });
  const dir = join(root, "releases", `v${HEAVY_SHELL}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, DISTRIBUTION_JSON), built.json);
  await writeFile(join(dir, DISTRIBUTION_LOCK), built.lockfile);
  await publishSignedRelease(dir, { shell: HEAVY_SHELL, pi: normal.pi, engine: await readFile(join(normalDir, ENGINE_ASSET)) });
  return {
    root,
    normal: { ...normal, packages: lockfilePackageCount(await readFile(join(normalDir, DISTRIBUTION_LOCK), "utf8")) },
    heavy: { shell: HEAVY_SHELL, pi: normal.pi, packages: lockfilePackageCount(built.lockfile) },
  };
}

/** The registry's document of gentle-pi (its versions and tags). */
async function gentlePiDocument(registryUrl: string): Promise<{ versions?: Record<string, unknown>; "dist-tags"?: Record<string, string> }> {
  const response = await fetch(new URL("gentle-pi", registryUrl));
  if (!response.ok) throw new Error(`the fixture registry has no gentle-pi: HTTP ${response.status}`);
  return (await response.json()) as { versions?: Record<string, unknown>; "dist-tags"?: Record<string, string> };
}
