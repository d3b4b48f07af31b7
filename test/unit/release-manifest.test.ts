import { describe, expect, it } from "vitest";
import {
  checkAsset,
  ENGINE_ASSET,
  keyId,
  readSignedRelease,
  releaseManifestText,
  RELEASE_SIGNATURE,
  sha256Of,
  signManifest,
} from "../../src/core/release-manifest";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { FIXTURE_RELEASE_KEY, seededKey, strangerKey } from "../support/release-key";

const entry = (text: string) => ({ sha256: sha256Of(text), size: Buffer.byteLength(text) });
const assets = {
  [ENGINE_ASSET]: entry("engine"),
  [DISTRIBUTION_LOCK]: entry("lock"),
  [DISTRIBUTION_JSON]: entry("json"),
  "install.sh": entry("#!/bin/sh\n"),
};
const manifest = releaseManifestText({ shell: "4.1.0", pi: "1.6.0", assets });
const keys = [FIXTURE_RELEASE_KEY.key];
const read = (m: string | Buffer, sig: string, k = keys) => readSignedRelease(Buffer.from(m), Buffer.from(sig), k, "the mirror");

describe("signed release manifest", () => {
  it("is plain data in a fixed order: the same inputs give the same bytes, assets sorted by name", () => {
    const again = releaseManifestText({ shell: "4.1.0", pi: "1.6.0", assets: Object.fromEntries(Object.entries(assets).reverse()) });
    expect(again).toBe(manifest);
    expect(Object.keys(JSON.parse(manifest).assets)).toEqual([DISTRIBUTION_LOCK, DISTRIBUTION_JSON, ENGINE_ASSET, "install.sh"]);
    expect(manifest.endsWith("}\n")).toBe(true);
  });

  it("must list the two distribution files and the engine, with plain names", () => {
    const { [ENGINE_ASSET]: _e, ...noEngine } = assets;
    expect(() => releaseManifestText({ shell: "4.1.0", pi: "1.6.0", assets: noEngine })).toThrow(`must list ${ENGINE_ASSET}`);
    expect(() => releaseManifestText({ shell: "4.1.0", pi: "1.6.0", assets: { ...assets, "../x": entry("x") } })).toThrow("plain asset file name");
    expect(() => releaseManifestText({ shell: "^4", pi: "1.6.0", assets })).toThrow();
  });

  it("verifies under a compiled-in key and names the key it verified under", () => {
    const release = read(manifest, signManifest(manifest, FIXTURE_RELEASE_KEY.privateKeyPem));
    expect(release).toMatchObject({ shell: "4.1.0", pi: "1.6.0", key: keyId(FIXTURE_RELEASE_KEY.key.publicKey) });
    expect(release.assets[ENGINE_ASSET]).toEqual(entry("engine"));
  });

  it("accepts any key of the list (rotation) and refuses a key not on it", () => {
    const next = seededKey("rotation test key");
    const sig = signManifest(manifest, next.privateKeyPem);
    expect(read(manifest, sig, [FIXTURE_RELEASE_KEY.key, next.key]).key).toBe(keyId(next.key.publicKey));
    expect(() => read(manifest, sig)).toThrow(`signed by key ${keyId(next.key.publicKey)}, which this gentle-shell-setup does not know`);
  });

  it("refuses a manifest signed by an unknown key that claims a known key's id", () => {
    const stranger = signManifest(manifest, strangerKey().privateKeyPem).split(" ");
    const forged = `ed25519 ${keyId(FIXTURE_RELEASE_KEY.key.publicKey)} ${stranger[2]}`;
    expect(() => read(manifest, forged)).toThrow("does not verify: the release was altered");
  });

  it("refuses one flipped byte of the manifest or of the signature", () => {
    const sig = signManifest(manifest, FIXTURE_RELEASE_KEY.privateKeyPem);
    const bytes = Buffer.from(manifest);
    bytes[bytes.length - 5]! ^= 1;
    expect(() => read(bytes, sig)).toThrow("does not verify");
    const raw = Buffer.from(sig.split(" ")[2]!, "base64");
    raw[10]! ^= 0x80;
    expect(() => read(manifest, `ed25519 ${sig.split(" ")[1]} ${raw.toString("base64")}\n`)).toThrow("does not verify");
    expect(() => read(manifest, "not a signature")).toThrow(`${RELEASE_SIGNATURE} of the mirror is not an Ed25519 signature line`);
  });

  it("a build with no key (null, as production until the pair exists) refuses with a sentence naming the missing key", () => {
    const sig = signManifest(manifest, FIXTURE_RELEASE_KEY.privateKeyPem);
    for (const none of [null, []]) {
      expect(() => readSignedRelease(Buffer.from(manifest), Buffer.from(sig), none, "the official release")).toThrow(
        "no release signing key compiled in (pins.release.keys is null), so it cannot verify the official release",
      );
    }
  });

  it("checkAsset accepts exactly the listed bytes and refuses a substituted, a flipped or an unlisted asset", () => {
    const release = read(manifest, signManifest(manifest, FIXTURE_RELEASE_KEY.privateKeyPem));
    expect(() => checkAsset(release, ENGINE_ASSET, "engine", "the mirror")).not.toThrow();
    expect(() => checkAsset(release, ENGINE_ASSET, "engind", "the mirror")).toThrow("is not the file the signed manifest of Gentle Shell 4.1.0 lists");
    expect(() => checkAsset(release, ENGINE_ASSET, "engine ", "the mirror")).toThrow("altered or substituted");
    expect(() => checkAsset(release, "gentle-shell-setup-linux-x64", "x", "the mirror")).toThrow("does not list gentle-shell-setup-linux-x64");
  });

  it("refuses a validly signed manifest that is not in the canonical form", () => {
    const loose = JSON.stringify(JSON.parse(manifest));
    expect(() => read(loose, signManifest(loose, FIXTURE_RELEASE_KEY.privateKeyPem))).toThrow("not in the form this installer reads");
  });

  // The reading rule for future fields (src/core/release-manifest.ts): a schema 1 reader ignores keys it does not know.
  it("a schema 1 manifest with keys this reader does not know still verifies and reads, those keys ignored", () => {
    const known = JSON.parse(releaseManifestText({ shell: "4.1.0", pi: "1.6.0", published: "2026-12-04T21:30:00Z", assets })) as Record<string, unknown>;
    const { assets: listed, ...head } = known as { assets: Record<string, object> };
    const later = {
      ...head,
      notes: "https://example.invalid/notes",
      assets: { ...listed, [ENGINE_ASSET]: { ...listed[ENGINE_ASSET], url: "https://example.invalid/engine" } },
      mirrors: ["https://example.invalid/"],
    };
    const text = `${JSON.stringify(later, null, 2)}\n`;
    const release = read(text, signManifest(text, FIXTURE_RELEASE_KEY.privateKeyPem));
    expect(release).toEqual({ shell: "4.1.0", pi: "1.6.0", published: "2026-12-04T21:30:00Z", assets, key: keyId(FIXTURE_RELEASE_KEY.key.publicKey) });
    expect(() => checkAsset(release, ENGINE_ASSET, "engine", "the mirror")).not.toThrow();
    // Still in the form it writes: the same keys laid out loosely, or the known keys out of their order, are refused.
    const loose = JSON.stringify(later);
    expect(() => read(loose, signManifest(loose, FIXTURE_RELEASE_KEY.privateKeyPem))).toThrow("not in the form this installer reads");
    const reordered = `${JSON.stringify({ notes: "x", pi: "1.6.0", schema: 1, shell: "4.1.0", assets: listed }, null, 2)}\n`;
    expect(() => read(reordered, signManifest(reordered, FIXTURE_RELEASE_KEY.privateKeyPem))).toThrow("not in the form this installer reads");
  });

  it("a field a reader must honour comes with schema 2, which a schema 1 reader refuses", () => {
    const next = manifest.replace('"schema": 1', '"schema": 2');
    expect(() => read(next, signManifest(next, FIXTURE_RELEASE_KEY.privateKeyPem))).toThrow("is not a schema 1 release manifest");
  });
});
