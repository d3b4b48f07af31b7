/**
 * `gentle-shell-setup release sign --assets <dir> --key <file>`: the last
 * step of the release workflow. It writes the signed release manifest over
 * exactly the bytes in <dir> (the two distribution assets, the engine, the
 * setup binaries, install.sh and install.ps1) and checks the result the way
 * every installer will: under the keys compiled into this binary. A key
 * whose public half this build does not know is refused, so a release can
 * never be published that its own binaries would reject.
 */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { join } from "../core/native-path";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, readDistribution } from "../core/release-project";
import {
  ENGINE_ASSET,
  keyId,
  missingKeyMessage,
  publicKeyOf,
  publishedTime,
  RELEASE_MANIFEST,
  RELEASE_SIGNATURE,
  readSignedRelease,
  releaseManifestText,
  sha256Of,
  signManifest,
  type AssetEntry,
} from "../core/release-manifest";
import { TARGETS, type Pins } from "../pins/types";

/** The names a release manifest may list, beside the two distribution assets and the engine. */
export function releaseAssetNames(): string[] {
  const binaries = TARGETS.map((t) => `gentle-shell-setup-${t}${t.startsWith("win-") ? ".exe" : ""}`);
  return [DISTRIBUTION_JSON, DISTRIBUTION_LOCK, ENGINE_ASSET, ...binaries, "install.sh", "install.ps1"];
}

/** Files a release folder may hold that the manifest does not list. */
const UNLISTED = new Set(["SHA256SUMS"]);

export async function signRelease(options: {
  assets: string;
  keyFile: string;
  pins: Pins;
  shell?: string;
  /** The manifest's published time (the update policy's minimumReleaseAge reads it); default now. */
  now?: Date;
}): Promise<{ shell: string; pi: string; key: string; assets: string[] }> {
  const keys = options.pins.release.keys;
  if (!keys?.length) throw new Error(missingKeyMessage("what it would sign"));
  let pem: string;
  try {
    pem = await fs.readFile(options.keyFile, "utf8");
  } catch (error) {
    throw new Error(`cannot read the signing key ${options.keyFile} (${errnoCode(error) ?? (error as Error).message})`);
  }
  let publicKey: string;
  try {
    publicKey = publicKeyOf(pem);
  } catch {
    throw new Error(`${options.keyFile} is not an Ed25519 private key in PEM (PKCS#8)`);
  }
  if (!keys.some((k) => k.publicKey === publicKey)) {
    throw new Error(
      `the signing key's public half (key ${keyId(publicKey)}) is not compiled into this gentle-shell-setup; add it to release.keys in src/pins/production.ts and build again`,
    );
  }
  const names = (await fs.readdir(options.assets)).sort();
  for (const name of [RELEASE_MANIFEST, RELEASE_SIGNATURE]) {
    if (names.includes(name)) throw new Error(`${options.assets} already holds ${name}; a release is signed once, over a folder without it`);
  }
  const allowed = new Set(releaseAssetNames());
  const stray = names.filter((n) => !allowed.has(n) && !UNLISTED.has(n));
  if (stray.length) throw new Error(`${options.assets} holds ${stray.join(", ")}, which no release publishes; remove it before signing`);
  const read = async (name: string) => {
    const stat = await fs.lstat(join(options.assets, name));
    if (!stat.isFile()) throw new Error(`${name} in ${options.assets} is not a regular file`);
    return fs.readFile(join(options.assets, name));
  };
  const bytes = new Map<string, Buffer>();
  for (const name of names.filter((n) => allowed.has(n))) bytes.set(name, await read(name));
  for (const name of [DISTRIBUTION_JSON, DISTRIBUTION_LOCK, ENGINE_ASSET]) {
    if (!bytes.has(name)) throw new Error(`${options.assets} has no ${name}; a release needs it`);
  }
  const { shell, pi } = readDistribution(
    bytes.get(DISTRIBUTION_JSON)!.toString("utf8"),
    bytes.get(DISTRIBUTION_LOCK)!.toString("utf8"),
    options.assets,
  ).manifest;
  if (options.shell && options.shell !== shell) throw new Error(`the assets are for Gentle Shell ${shell}, not ${options.shell}`);
  const assets: Record<string, AssetEntry> = {};
  for (const [name, data] of bytes) assets[name] = { sha256: sha256Of(data), size: data.byteLength };
  const manifest = releaseManifestText({ shell, pi, published: publishedTime(options.now ?? new Date()), assets });
  const signature = signManifest(manifest, pem);
  // What every installer will do: verify under the compiled-in keys.
  const signed = readSignedRelease(Buffer.from(manifest), Buffer.from(signature), keys, "the new release");
  for (const [name, text] of [
    [RELEASE_MANIFEST, manifest],
    [RELEASE_SIGNATURE, signature],
  ] as const) {
    await fs.writeFile(join(options.assets, name), text, { mode: 0o644, flag: "wx" });
    await fs.chmod(join(options.assets, name), 0o644);
  }
  return { shell, pi, key: signed.key, assets: Object.keys(assets).sort() };
}

/** A signed release folder checked as an installer checks it: the signature, then every listed asset present and exact. */
export async function checkSignedFolder(dir: string, pins: Pins): Promise<{ shell: string; pi: string; key: string; assets: string[] }> {
  const manifest = await fs.readFile(join(dir, RELEASE_MANIFEST));
  const signature = await fs.readFile(join(dir, RELEASE_SIGNATURE));
  const signed = readSignedRelease(manifest, signature, pins.release.keys, dir);
  for (const [name, entry] of Object.entries(signed.assets)) {
    const data = await fs.readFile(join(dir, name)).catch(() => null);
    if (!data) throw new Error(`${name}, which the signed manifest lists, is not in ${dir}`);
    if (data.byteLength !== entry.size || sha256Of(data) !== entry.sha256) throw new Error(`${name} in ${dir} is not the file the signed manifest lists`);
  }
  return { shell: signed.shell, pi: signed.pi, key: signed.key, assets: Object.keys(signed.assets) };
}
