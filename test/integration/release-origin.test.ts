/**
 * The release-origin module (src/install/release-origin.ts), in process,
 * against the fixture mirror, the fixture registry and an offline bundle
 * made here: where a release comes from is decided once, the newest release
 * is the registry's latest or the bundle's own, and a release is opened
 * through its signed manifest before any other asset of it is read.
 */
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { hostPlatform, hostTarget } from "../../src/core/machine";
import { RELEASE_MANIFEST } from "../../src/core/release-manifest";
import { makeBundle } from "../../src/release/offline-bundle";
import { newestRelease, openRelease, releaseOrigin, type ReleaseOrigin } from "../../src/install/release-origin";
import { fixtures } from "../support/context";
import { mirrorClient } from "../support/mirror";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { scratchDir } from "../support/scratch";
import { testHost } from "../support/host";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const target = hostTarget(process.platform, process.arch);
const { http } = testHost();
const access = { registry: f.registryUrl, npmrc: `${registryLine(f.registryUrl)}\n`, env: {}, http };
const open = (origin: ReleaseOrigin, shell: string) =>
  openRelease(origin, shell, { pins: f.pins, target, ownEngine: () => null, registry: f.registryUrl, http });
const assetPath = (name: string) => `releases/v${latest.shell}/${name}`;
let bundleDir: string;

beforeAll(async () => {
  // An offline bundle of the latest release for this machine, made in process from the mirror.
  const home = join(scratchDir("gss-release-source-"), "home");
  await writeNpmrc(home, [registryLine(f.registryUrl)]);
  bundleDir = join(home, "..", "bundle");
  await makeBundle({
    out: bundleDir,
    pins: f.pins,
    env: { HOME: home, PATH: process.env.PATH },
    http,
    home,
    platform: hostPlatform(process.platform),
    hostTarget: target,
    targets: [target],
    source: f.mirrorUrl,
    release: latest.shell,
    binaries: {},
    ownEngine: () => null,
    log: () => undefined,
  });
}, 600_000);

describe("where a release comes from", () => {
  it("is decided once: a mirror and a plain folder are online, a folder holding an offline bundle is that bundle", async () => {
    expect(await releaseOrigin(f.mirrorUrl, target)).toMatchObject({ kind: "online", source: { kind: "mirror" } });
    expect(await releaseOrigin(undefined, target)).toMatchObject({ kind: "online", source: { kind: "official" } });
    expect(await releaseOrigin(f.mirrorRoot, target)).toMatchObject({ kind: "online", source: { kind: "folder" } });
    expect(await releaseOrigin(bundleDir, target)).toMatchObject({ kind: "bundle", bundle: { manifest: { shell: latest.shell } } });
  });

  it("names the newest release: the registry's latest gentle-pi online, the bundle's own offline", async () => {
    expect(await newestRelease(await releaseOrigin(f.mirrorUrl, target), access)).toBe(latest.shell);
    // The bundle answers for itself: no registry is asked (none is given).
    expect(await newestRelease(await releaseOrigin(bundleDir, target), null)).toBe(latest.shell);
  });
});

describe("opening a release", () => {
  it("from a mirror: the signed manifest first, then the two distribution assets and the engine, each exact", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const opened = await open(await releaseOrigin(scope.url, target), latest.shell);
    expect(opened.release.signed).toMatchObject({ shell: latest.shell, pi: latest.pi });
    expect(opened.release.distribution.manifest.id).toBe(latest.id);
    expect(opened.release.engineDownloaded).toBe(true);
    expect(opened.packages).toBeNull();
    const asked = (await scope.requests()).map((r) => r.path);
    expect(asked[0]).toBe(assetPath(RELEASE_MANIFEST));
    expect(asked.indexOf(assetPath(DISTRIBUTION_JSON))).toBeGreaterThan(0);
    expect(asked.indexOf(assetPath(DISTRIBUTION_LOCK))).toBeGreaterThan(asked.indexOf(assetPath(DISTRIBUTION_JSON)));
  });

  it("from an offline bundle: its signed release and every package this machine installs", async () => {
    const opened = await open(await releaseOrigin(bundleDir, target), latest.shell);
    expect(opened.release.signed).toMatchObject({ shell: latest.shell, pi: latest.pi });
    expect(opened.packages?.size).toBeGreaterThan(0);
    await expect(open(await releaseOrigin(bundleDir, target), f.releases[0]!.shell)).rejects.toThrow(
      `this offline bundle holds Gentle Shell ${latest.shell}, not ${f.releases[0]!.shell}`,
    );
  });

  it("refuses a manifest with one byte flipped, and reads no asset of that release", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(assetPath(RELEASE_MANIFEST), { kind: "flip", offset: 40 });
    await expect(open(await releaseOrigin(scope.url, target), latest.shell)).rejects.toThrow("does not verify: the release was altered");
    const asked = (await scope.requests()).map((r) => r.path);
    expect(asked).not.toContain(assetPath(DISTRIBUTION_JSON));
    expect(asked).not.toContain(assetPath(DISTRIBUTION_LOCK));
  });

  it("names an asset the manifest lists that the source does not serve", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(assetPath(DISTRIBUTION_LOCK), { kind: "status", status: 404 });
    await expect(open(await releaseOrigin(scope.url, target), latest.shell)).rejects.toThrow(
      `Gentle Shell ${latest.shell} lists ${DISTRIBUTION_LOCK}, but the mirror ${scope.url} does not serve it; nothing was changed`,
    );
  });

  it("says a release whose manifest is not served (a draft's) has no published release, and fetches none of its assets", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(assetPath(RELEASE_MANIFEST), { kind: "status", status: 404 });
    await expect(open(await releaseOrigin(scope.url, target), latest.shell)).rejects.toThrow(
      `Gentle Shell ${latest.shell} has no published release at the mirror ${scope.url}`,
    );
    expect((await scope.requests()).map((r) => r.path)).toEqual([assetPath(RELEASE_MANIFEST)]);
  });
});
