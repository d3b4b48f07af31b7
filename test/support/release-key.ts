/**
 * The fixture release signing key: a real Ed25519 pair whose 32-byte seed
 * is the sha256 of a fixed label, so every run (and the cached fixture
 * binary's pins) agrees on it without a private key in the repository. It
 * signs the fixture releases; a test build compiles in its public half.
 * Nothing in a production build knows it.
 */
import { createHash, createPrivateKey, generateKeyPairSync } from "node:crypto";
import { publicKeyOf } from "../../src/core/release-manifest";
import type { ReleaseKey } from "../../src/pins/types";

/** PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export function seededKey(label: string): { privateKeyPem: string; key: ReleaseKey } {
  const seed = createHash("sha256").update(label).digest();
  const privateKeyPem = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" })
    .export({ format: "pem", type: "pkcs8" })
    .toString();
  return { privateKeyPem, key: { publicKey: publicKeyOf(privateKeyPem), note: `fixture key (seed: sha256 of "${label}")` } };
}

export const FIXTURE_RELEASE_KEY = seededKey("gentle-shell-setup fixture release key 1");

/** A key no build knows: for "signed by an unknown key" tests. */
export function strangerKey(): { privateKeyPem: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString() };
}
