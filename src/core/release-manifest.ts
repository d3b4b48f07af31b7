/**
 * The signed release manifest (design: "Sources", "Each release carries its
 * own engine"). No pin can know a release's assets in advance, so each
 * release publishes one manifest listing the sha256 and size of every asset
 * (the two distribution files, the engine script, each setup binary,
 * install.sh and install.ps1) and a detached Ed25519 signature over the
 * manifest's exact bytes. The public keys are compiled in with the pins (a
 * list, so a key can be rotated); a build without one trusts no release.
 *
 *   gentle-shell-release.json       { schema: 1, shell, pi, published?, assets: { <name>: { sha256, size } } }
 *   gentle-shell-release.json.sig   `ed25519 <key id> <base64 signature>` and a newline
 *
 * The key id is the first 16 hex digits of the sha256 of the raw 32-byte
 * public key. `published` is the time the release was signed (UTC, to the
 * second: 2026-12-04T21:30:00Z); the update policy's minimumReleaseAge reads
 * it. A manifest signed before the field existed has none (null): such a
 * release is never old enough for a minimum age (src/core/update-policy.ts).
 *
 * The reading rule for future fields: a schema 1 reader ignores keys it does
 * not know, at the top and in an asset's entry (they are signed all the same,
 * and the form of the keys it knows is still checked), so a release may add
 * a field that only informs, as `published` was added. A field whose absence
 * would loosen a check (one a reader must honour, or it accepts what it
 * should refuse) needs schema 2, which every schema 1 reader refuses.
 * Pure: node:crypto only, no file system or network.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import type { ReleaseKey } from "../pins/types";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "./release-project";
import { assertExactVersion } from "./versions";

export const RELEASE_MANIFEST = "gentle-shell-release.json";
export const RELEASE_SIGNATURE = "gentle-shell-release.json.sig";
export const ENGINE_ASSET = "gentle-shell-engine.cjs";
export const MANIFEST_MAX_BYTES = 256 * 1024;
export const SIGNATURE_MAX_BYTES = 4 * 1024;
/** What every release must list: an install needs all three. */
export const REQUIRED_ASSETS = [DISTRIBUTION_JSON, DISTRIBUTION_LOCK, ENGINE_ASSET] as const;

export interface AssetEntry {
  sha256: string;
  size: number;
}

export interface SignedRelease {
  shell: string;
  pi: string;
  /** When the release was signed, as the manifest says; null in a manifest from before the field. */
  published: string | null;
  assets: Record<string, AssetEntry>;
  /** The id of the compiled-in key the signature verified under. */
  key: string;
}

/** Asset names are plain file names: no folder, no dot file, no control character. */
export function assetNameIsPlain(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(name) && name.length <= 128;
}

export function sha256Of(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A manifest's published time: UTC, to the second. */
const PUBLISHED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `date` as a manifest's published time. */
export function publishedTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The manifest's text: fixed key order, assets sorted by name, newline-terminated; `published` only when given. */
export function releaseManifestText(release: { shell: string; pi: string; published?: string | null; assets: Record<string, AssetEntry> }): string {
  const shell = assertExactVersion("the release's gentle-pi version", release.shell);
  const pi = assertExactVersion("the release's Pi version", release.pi);
  const { published } = release;
  if (published != null && (!PUBLISHED.test(published) || !Number.isFinite(Date.parse(published)))) {
    throw new Error(`the release's published time must read like 2026-12-04T21:30:00Z; got ${JSON.stringify(published)}`);
  }
  const assets: Record<string, AssetEntry> = {};
  for (const name of Object.keys(release.assets).sort()) {
    const entry = release.assets[name]!;
    if (!assetNameIsPlain(name)) throw new Error(`${JSON.stringify(name)} is not a plain asset file name`);
    if (!/^[0-9a-f]{64}$/.test(entry.sha256) || !Number.isSafeInteger(entry.size) || entry.size < 0) {
      throw new Error(`the manifest entry for ${name} needs a sha256 and a size`);
    }
    assets[name] = { sha256: entry.sha256, size: entry.size };
  }
  for (const name of REQUIRED_ASSETS) if (!assets[name]) throw new Error(`a release manifest must list ${name}`);
  return JSON.stringify({ schema: 1, shell, pi, ...(published != null ? { published } : {}), assets }, null, 2) + "\n";
}

function publicKeyObject(key: ReleaseKey): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.publicKey }, format: "jwk" });
}

export function keyId(publicKey: string): string {
  return sha256Of(Buffer.from(publicKey, "base64url")).slice(0, 16);
}

/** The public half of an Ed25519 private key (PEM, PKCS#8), as the pins record it. */
export function publicKeyOf(privateKeyPem: string): string {
  const jwk = createPublicKey(createPrivateKey(privateKeyPem)).export({ format: "jwk" }) as { x?: string; crv?: string };
  if (jwk.crv !== "Ed25519" || !jwk.x) throw new Error("the signing key is not an Ed25519 key");
  return jwk.x;
}

/** The signature file for `manifest` under `privateKeyPem`. */
export function signManifest(manifest: string, privateKeyPem: string): string {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== "ed25519") throw new Error("the signing key is not an Ed25519 key");
  const signature = sign(null, Buffer.from(manifest, "utf8"), key).toString("base64");
  return `ed25519 ${keyId(publicKeyOf(privateKeyPem))} ${signature}\n`;
}

/** The sentence a build without a release key says, wherever it would trust a release. */
export function missingKeyMessage(where: string): string {
  return `this gentle-shell-setup build has no release signing key compiled in (pins.release.keys is null), so it cannot verify ${where}; use a published gentle-shell-setup`;
}

/**
 * The manifest, only when its signature verifies under one of `keys` and
 * its content is well formed. Checked before any other asset is read.
 */
export function readSignedRelease(manifest: Buffer, signature: Buffer, keys: readonly ReleaseKey[] | null, where: string): SignedRelease {
  if (!keys || keys.length === 0) throw new Error(missingKeyMessage(where));
  const m = /^ed25519 ([0-9a-f]{16}) ([A-Za-z0-9+/]{86}==)\r?\n?$/.exec(signature.toString("latin1"));
  if (!m) throw new Error(`${RELEASE_SIGNATURE} of ${where} is not an Ed25519 signature line; the release cannot be trusted`);
  const key = keys.find((k) => keyId(k.publicKey) === m[1]);
  if (!key) throw new Error(`${where} is signed by key ${m[1]}, which this gentle-shell-setup does not know; nothing was installed from it`);
  if (!verify(null, manifest, publicKeyObject(key), Buffer.from(m[2]!, "base64"))) {
    throw new Error(`the signature of ${RELEASE_MANIFEST} from ${where} does not verify: the release was altered; nothing was installed from it`);
  }
  let data: unknown;
  try {
    data = JSON.parse(manifest.toString("utf8"));
  } catch {
    throw new Error(`${RELEASE_MANIFEST} from ${where} is not valid JSON`);
  }
  const d = data as { schema?: unknown; shell?: unknown; pi?: unknown; published?: unknown; assets?: unknown };
  if (typeof data !== "object" || data === null || d.schema !== 1) throw new Error(`${RELEASE_MANIFEST} from ${where} is not a schema 1 release manifest`);
  const release = {
    shell: assertExactVersion("the manifest's gentle-pi version", d.shell),
    pi: assertExactVersion("the manifest's Pi version", d.pi),
    published: typeof d.published === "string" ? d.published : d.published === undefined ? null : JSON.stringify(d.published),
    assets: (typeof d.assets === "object" && d.assets !== null ? knownKeys(d as Record<string, unknown>).assets : {}) as Record<string, AssetEntry>,
  };
  if (release.published !== null && !PUBLISHED.test(release.published)) {
    throw new Error(`${RELEASE_MANIFEST} from ${where} has a published time that is not like 2026-12-04T21:30:00Z`);
  }
  // Re-render: a signed manifest is laid out as releaseManifestText lays it out, and the keys this reader knows,
  // without the others (a later release's fields, ignored), are exactly what it writes.
  const text = manifest.toString("utf8");
  if (JSON.stringify(data, null, 2) + "\n" !== text || JSON.stringify(knownKeys(d), null, 2) + "\n" !== releaseManifestText(release)) {
    throw new Error(`${RELEASE_MANIFEST} from ${where} is not in the form this installer reads`);
  }
  return { ...release, key: m[1]! };
}

const KNOWN_KEYS = new Set(["schema", "shell", "pi", "published", "assets"]);
const KNOWN_ENTRY_KEYS = new Set(["sha256", "size"]);

/** A manifest's data with only the keys a schema 1 reader knows, in their order (the rule for future fields, above). */
function knownKeys(data: Record<string, unknown>): Record<string, unknown> {
  const only = (value: unknown, known: Set<string>) =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([k]) => known.has(k))) : value;
  const out = only(data, KNOWN_KEYS) as Record<string, unknown>;
  if (typeof out.assets === "object" && out.assets !== null && !Array.isArray(out.assets)) {
    out.assets = Object.fromEntries(Object.entries(out.assets).map(([name, entry]) => [name, only(entry, KNOWN_ENTRY_KEYS)]));
  }
  return out;
}

/** Whether `bytes` is exactly the asset the signed manifest lists; throws a sentence otherwise. */
export function checkAsset(release: SignedRelease, name: string, bytes: Buffer | string, where: string): void {
  const entry = release.assets[name];
  if (!entry) throw new Error(`the signed manifest of Gentle Shell ${release.shell} does not list ${name}; it is not used`);
  const size = typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength;
  if (size !== entry.size || sha256Of(bytes) !== entry.sha256) {
    throw new Error(
      `${name} from ${where} is not the file the signed manifest of Gentle Shell ${release.shell} lists (it was altered or substituted); nothing was installed from it`,
    );
  }
}
