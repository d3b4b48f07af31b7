import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterAll, describe, expect, it } from "vitest";
import { distributionAsset, DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { ENGINE_ASSET, keyId, readSignedRelease, RELEASE_MANIFEST, RELEASE_SIGNATURE } from "../../src/core/release-manifest";
import { checkSignedFolder, releaseAssetNames, signRelease } from "../../src/release/sign";
import { productionPins } from "../../src/pins/production";
import type { Pins } from "../../src/pins/types";
import { has } from "../support/capabilities";
import { REPO_ROOT } from "../support/paths";
import { FIXTURE_RELEASE_KEY, strangerKey } from "../support/release-key";

const root = mkdtempSync(join(tmpdir(), "gss-sign-"));
afterAll(() => fs.rm(root, { recursive: true, force: true }));
const pins: Pins = { ...productionPins, kind: "fixture", release: { keys: [FIXTURE_RELEASE_KEY.key], source: "test", pi: null } };
const lock = "lockfileVersion: '9.0'\n";

let n = 0;
async function releaseFolder(extra: Record<string, string> = {}): Promise<{ dir: string; key: string }> {
  const dir = join(root, `release-${++n}`);
  await fs.mkdir(dir);
  await fs.writeFile(join(dir, DISTRIBUTION_LOCK), lock);
  await fs.writeFile(join(dir, DISTRIBUTION_JSON), distributionAsset({ shell: "4.1.0", pi: "1.6.0" }, lock, { node: "24.21.0", pnpm: "11.1.1" }));
  await fs.writeFile(join(dir, ENGINE_ASSET), "// engine\n");
  await fs.writeFile(join(dir, "gentle-shell-setup-linux-x64"), "binary\n");
  await fs.writeFile(join(dir, "install.sh"), "#!/bin/sh\n");
  await fs.writeFile(join(dir, "install.ps1"), "param()\n");
  await fs.writeFile(join(dir, "SHA256SUMS"), "not listed\n");
  for (const [name, text] of Object.entries(extra)) await fs.writeFile(join(dir, name), text);
  const key = join(root, `key-${n}.pem`);
  await fs.writeFile(key, FIXTURE_RELEASE_KEY.privateKeyPem, { mode: 0o600 });
  return { dir, key };
}

describe("release sign", () => {
  it("signs every asset in the folder, and the result verifies under the compiled-in keys", async () => {
    const { dir, key } = await releaseFolder();
    const old = process.umask(0o077);
    try {
      const signed = await signRelease({ assets: dir, keyFile: key, pins, shell: "4.1.0" });
      expect(signed).toEqual({
        shell: "4.1.0",
        pi: "1.6.0",
        key: keyId(FIXTURE_RELEASE_KEY.key.publicKey),
        assets: [DISTRIBUTION_LOCK, DISTRIBUTION_JSON, ENGINE_ASSET, "gentle-shell-setup-linux-x64", "install.ps1", "install.sh"],
      });
    } finally {
      process.umask(old);
    }
    if (has("posix-modes")) expect((await fs.stat(join(dir, RELEASE_MANIFEST))).mode & 0o777).toBe(0o644);
    const release = readSignedRelease(await fs.readFile(join(dir, RELEASE_MANIFEST)), await fs.readFile(join(dir, RELEASE_SIGNATURE)), pins.release.keys, "x");
    expect(Object.keys(release.assets)).not.toContain("SHA256SUMS");
    // Its published time, for the update policy's minimumReleaseAge (issue 41): when it was signed, to the second.
    expect(Date.now() - Date.parse(release.published!)).toBeLessThan(60_000);
    expect((await checkSignedFolder(dir, pins)).assets).toHaveLength(6);
  });

  it("refuses a key this build does not compile in, and a build with none; nothing is written", async () => {
    const { dir } = await releaseFolder();
    const stranger = join(root, "stranger.pem");
    await fs.writeFile(stranger, strangerKey().privateKeyPem);
    await expect(signRelease({ assets: dir, keyFile: stranger, pins })).rejects.toThrow(
      /public half \(key [0-9a-f]{16}\) is not compiled into this gentle-shell-setup/,
    );
    await expect(signRelease({ assets: dir, keyFile: stranger, pins: productionPins })).rejects.toThrow("pins.release.keys is null");
    await expect(fs.lstat(join(dir, RELEASE_MANIFEST))).rejects.toThrow();
  });

  it("refuses a folder with a file no release publishes, one already signed, one without its engine, or other versions", async () => {
    const stray = await releaseFolder({ "notes.txt": "x" });
    await expect(signRelease({ assets: stray.dir, keyFile: stray.key, pins })).rejects.toThrow("holds notes.txt, which no release publishes");
    const twice = await releaseFolder();
    await signRelease({ assets: twice.dir, keyFile: twice.key, pins });
    await expect(signRelease({ assets: twice.dir, keyFile: twice.key, pins })).rejects.toThrow("already holds gentle-shell-release.json");
    const noEngine = await releaseFolder();
    await fs.rm(join(noEngine.dir, ENGINE_ASSET));
    await expect(signRelease({ assets: noEngine.dir, keyFile: noEngine.key, pins })).rejects.toThrow(`has no ${ENGINE_ASSET}`);
    const other = await releaseFolder();
    await expect(signRelease({ assets: other.dir, keyFile: other.key, pins, shell: "4.2.0" })).rejects.toThrow("for Gentle Shell 4.1.0, not 4.2.0");
  });

  it("release check names a substituted asset after signing", async () => {
    const { dir, key } = await releaseFolder();
    await signRelease({ assets: dir, keyFile: key, pins });
    await fs.writeFile(join(dir, "gentle-shell-setup-linux-x64"), "another binary\n");
    await expect(checkSignedFolder(dir, pins)).rejects.toThrow("gentle-shell-setup-linux-x64 in");
  });

  it("every bootstrap script in installers/ rides along in the release workflow, unconditionally, and is signed", async () => {
    // The bootstrap scripts are the files there; installers/action/ is the GitHub Action, which is not a release asset.
    const entries = await fs.readdir(join(REPO_ROOT, "installers"), { withFileTypes: true });
    const scripts = entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    expect(entries.filter((e) => !e.isFile()).map((e) => e.name)).toEqual(["action"]);
    expect(scripts).toEqual(["install.ps1", "install.sh"]);
    const workflow = await fs.readFile(join(REPO_ROOT, ".github", "workflows", "release.yml"), "utf8");
    const copies = workflow.split("\n").map((line) => line.trim());
    for (const name of scripts) {
      expect(releaseAssetNames()).toContain(name);
      // A plain copy line: not one that a missing file would skip.
      expect(copies).toContain(`cp installers/${name} dist/${name}`);
    }
  });
});
