/**
 * Offline bundles made and read, on the fixture single executable: `bundle`
 * from the fixture mirror and registry writes the source layout, the running
 * binary, the signed release and SHA256SUMS; one it cannot get verified is
 * never left half made; a bundle is opened by its manifest, and one for
 * another machine, with a damaged manifest or of another release is refused
 * by name. Installing and upgrading from a bundle with no network:
 * offline-install.test.ts; `verify` of a whole bundle: verify-bundle.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { homeEnv } from "../support/fixtures";
import { runCommand, runChecked } from "../support/proc";
import { listTree } from "../support/tarball";
import { nothingPublished, offlineBundle, sha256 } from "../support/offline-bundle";
import { BUNDLE_MANIFEST, BUNDLE_PACKAGES, BUNDLE_SUMS } from "../../src/install/offline/format";
import { tarballPath } from "../../src/core/lockfile";
import { ENGINE_ASSET, RELEASE_MANIFEST } from "../../src/core/release-manifest";
import { DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { openBundle } from "../../src/install/offline/open";
import { BUNDLE_INSTALL_CMD, BUNDLE_INSTALL_SH, bundleLauncher } from "../../src/install/offline/launchers";

const { f, release, root, bundle, nodePath, binaryName, releaseDir, newHome, offline, make, cleanUp } = offlineBundle();

let made: Awaited<ReturnType<typeof make>>["made"];
let packages: Awaited<ReturnType<typeof make>>["packages"];
let sumsBefore: string;

beforeAll(async () => {
  ({ made, packages, sumsBefore } = await make());
});

afterAll(cleanUp);

describe("gentle-shell-setup bundle", () => {
  it("writes the source layout, the running binary, the store archive, a manifest and SHA256SUMS over everything", async () => {
    expect(made.stdout).toContain(`Offline bundle for Gentle Shell ${release.shell} (Pi ${release.pi})`);
    const manifest = JSON.parse(await fs.readFile(join(bundle, BUNDLE_MANIFEST), "utf8"));
    expect(manifest).toMatchObject({ schema: 2, shell: release.shell, pi: release.pi, id: release.id, targets: ["linux-x64"], packages: packages.length });
    const expected = [
      "README.txt",
      BUNDLE_MANIFEST,
      // The launchers a person double-clicks.
      BUNDLE_INSTALL_CMD,
      BUNDLE_INSTALL_SH,
      ...packages.map((p) => `${BUNDLE_PACKAGES}/${tarballPath(p)}`),
      binaryName,
      nodePath,
      f.pins.pnpm.file.path,
      f.pins.engram.archives["linux-x64"]!.path,
      // Pi's own tools, pinned for linux-x64 in the fixture pins.
      f.pins.tools.fd.archives["linux-x64"]!.path,
      f.pins.tools.ripgrep.archives["linux-x64"]!.path,
      `releases/v${release.shell}/gentle-shell-distribution.json`,
      `releases/v${release.shell}/gentle-shell-distribution-lock.yaml`,
      // The signed release: its manifest, the signature and the release's engine.
      `releases/v${release.shell}/gentle-shell-release.json`,
      `releases/v${release.shell}/gentle-shell-release.json.sig`,
      `releases/v${release.shell}/gentle-shell-engine.cjs`,
    ].sort();
    expect(manifest.files).toEqual(expected);
    const files: string[] = [];
    for (const p of await listTree(bundle)) if ((await fs.lstat(join(bundle, p))).isFile()) files.push(p);
    expect(files.sort()).toEqual([...expected, BUNDLE_SUMS].sort());
    // sha256sum reads it as written.
    await runChecked("sha256sum", ["--strict", "-c", BUNDLE_SUMS], { cwd: bundle });
    expect(sumsBefore.trim().split("\n")).toHaveLength(expected.length);
    // The launchers: the same bytes in every bundle; install.sh executable, install.cmd with CRLF line ends.
    expect(await fs.readFile(join(bundle, BUNDLE_INSTALL_SH), "utf8")).toBe(bundleLauncher(BUNDLE_INSTALL_SH));
    expect((await fs.stat(join(bundle, BUNDLE_INSTALL_SH))).mode & 0o777).toBe(0o755);
    await runChecked("shellcheck", ["--shell=sh", "--severity=style", join(bundle, BUNDLE_INSTALL_SH)]);
    // cmd.exe reads a batch file in the console's code page: ASCII only.
    expect(await fs.readFile(join(bundle, BUNDLE_INSTALL_CMD), "utf8")).toMatch(/^@echo off\r\n(?:[\x20-\x7e]*\r\n)+$/);
    // The pinned artifacts are byte for byte what the pins name; the binary is the running one.
    expect(await sha256(join(bundle, nodePath))).toBe(f.pins.node.archives["linux-x64"]!.sha256);
    expect(await sha256(join(bundle, binaryName))).toBe(await sha256(f.binary!));
    // Each package is the registry's tarball: its sha512 is the integrity the signed lockfile records.
    for (const p of packages) {
      const bytes = await fs.readFile(join(bundle, BUNDLE_PACKAGES, tarballPath(p)));
      expect(`sha512-${createHash("sha512").update(bytes).digest("base64")}`).toBe(p.integrity);
    }
    // The release's files are the published bytes.
    for (const name of [RELEASE_MANIFEST, ENGINE_ASSET, DISTRIBUTION_LOCK]) {
      expect(await sha256(join(bundle, releaseDir, name))).toBe(await sha256(join(f.mirrorRoot, releaseDir, name)));
    }
  });

  it("refuses to write into a folder that is not empty", async () => {
    const r = await runCommand(f.binary!, ["bundle", "--out", bundle, "--source", f.mirrorUrl, "--release", release.shell], {
      env: homeEnv(root),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/already exists; a bundle is written only into a new or empty folder/);
  });
});

describe("a bundle that cannot be made", () => {
  it("stops at the first artifact it cannot get verified and leaves no folder, not even a partial one", async () => {
    // The fixture mirror has no linux-arm64 Node archive.
    const out = join(root, "failed-bundle");
    const r = await runCommand(f.binary!, ["bundle", "--out", out, "--source", f.mirrorUrl, "--release", release.shell, "--target", "linux-x64,linux-arm64"], {
      env: homeEnv(root),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/Node 24\.21\.0 \(linux-arm64\)/);
    expect((await fs.readdir(root)).filter((n) => n.includes("failed-bundle"))).toEqual([]);
  });
});

describe("reading a bundle and its parts", () => {
  it("a folder without offline-bundle.json is a plain folder source; a bundle for another machine or with a damaged manifest is refused by name", async () => {
    expect(await openBundle(f.mirrorRoot, "linux-x64")).toBeNull();
    const opened = await openBundle(bundle, "linux-x64");
    expect(opened?.manifest.id).toBe(release.id);
    await expect(openBundle(bundle, "darwin-arm64")).rejects.toThrow(
      "this offline bundle was made for linux-x64, not for this machine (darwin-arm64); make one with --target darwin-arm64",
    );
    const copy = join(root, "damaged-manifest");
    await fs.mkdir(copy);
    await fs.writeFile(join(copy, BUNDLE_SUMS), sumsBefore);
    await fs.writeFile(join(copy, BUNDLE_MANIFEST), (await fs.readFile(join(bundle, BUNDLE_MANIFEST), "utf8")).replace(release.shell, "9.9.9"));
    await expect(openBundle(copy, "linux-x64")).rejects.toThrow(/offline-bundle\.json in .* does not match its line in SHA256SUMS: the bundle is damaged/);
  });

  it("install --release names the bundle's release when it asks for another one", async () => {
    const home = await newHome("home-other-release");
    const r = await offline(bundle, home, `exec ./${binaryName} install --yes --source "$1" --release 4.0.0`);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`✖ runtime failed: this offline bundle holds Gentle Shell ${release.shell}, not 4.0.0`);
    await nothingPublished(home);
  });
});
