/**
 * Which release to install: the one asked for, else the registry's
 * gentle-pi `latest`; and that release, trusted only through its signed
 * manifest. The manifest and its signature are read first and verified
 * under the compiled-in keys; then the two distribution assets and the
 * engine must be exactly the bytes it lists, before readDistribution reads
 * them. The engine needs no download when the running script is the one
 * the release lists.
 */
import type { Source } from "../core/source";
import { releasePath } from "../core/source";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, readDistribution, SHELL_PACKAGE, type Distribution } from "../core/release-project";
import {
  checkAsset,
  ENGINE_ASSET,
  MANIFEST_MAX_BYTES,
  missingKeyMessage,
  RELEASE_MANIFEST,
  RELEASE_SIGNATURE,
  readSignedRelease,
  SIGNATURE_MAX_BYTES,
  type SignedRelease,
} from "../core/release-manifest";
import { assertExactVersion } from "../core/versions";
import { npmrcAuthHeader } from "../core/npmrc";
import type { Env } from "../core/environment";
import type { Pins } from "../pins/types";
import type { HttpClient } from "../io/http-client";
import { fetchBytes } from "./artifact-fetch";
import { trustRegistries } from "./npm-settings";

/** Where the registry is asked from: its URL, the user's npm settings for it, the environment, and the Host's HTTP client. */
export interface RegistryAccess {
  registry: string;
  npmrc: string;
  env: Env;
  http: HttpClient;
}

export async function latestRelease(access: RegistryAccess): Promise<string> {
  return assertExactVersion(`the registry's latest ${SHELL_PACKAGE}`, await latestTag(access, SHELL_PACKAGE));
}

/** The registry's dist-tags.latest of `name`, as is (the caller checks it), asked with the npmrc's credentials for that URL. */
export async function latestTag(access: RegistryAccess, name: string): Promise<unknown> {
  const document = await packageDocument(access, name);
  return (document as { "dist-tags"?: { latest?: unknown } } | null)?.["dist-tags"]?.latest;
}

/** The registry's abbreviated package document of `name` (its versions and dist-tags), parsed, unchecked. */
export async function packageDocument(access: RegistryAccess, name: string): Promise<unknown> {
  const { registry, npmrc, env, http } = access;
  const url = `${registry.replace(/\/+$/, "")}/${name.replace("/", "%2f")}`;
  const auth = npmrcAuthHeader(npmrc, url, env);
  const headers: Record<string, string> = { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" };
  if (auth) headers.authorization = auth;
  // The registry's authorities from the npm settings (ca, cafile), for this request and every later one under it.
  await trustRegistries(http, [registry], npmrc, env);
  return http.fetchJson(url, {
    name: `the ${name} release list`,
    maxBytes: 32 * 1024 * 1024,
    headers,
    notJson: `the registry's answer for ${name} is not JSON`,
  });
}

/** How a source is named in a sentence about what it served. */
export function describeSource(source: Source): string {
  if (source.kind === "official") return "the official release";
  if (source.kind === "mirror") return `the mirror ${source.base}`;
  return source.root;
}

export interface FetchedRelease {
  signed: SignedRelease;
  /** The exact bytes served (an offline bundle keeps them). */
  manifest: Buffer;
  signature: Buffer;
  json: Buffer;
  lock: Buffer;
  distribution: Distribution;
  /** The release's engine script, and whether it had to be downloaded. */
  engine: string | Buffer;
  engineDownloaded: boolean;
}

const JSON_MAX = 1024 * 1024;
const LOCK_MAX = 16 * 1024 * 1024;
const ENGINE_MAX = 64 * 1024 * 1024;

/** The signed manifest of `shell` from `source`, verified before anything else of the release is read. */
export async function fetchSignedManifest(
  http: HttpClient,
  source: Source,
  shell: string,
  pins: Pins,
): Promise<{ signed: SignedRelease; manifest: Buffer; signature: Buffer }> {
  assertExactVersion("the release", shell);
  const where = describeSource(source);
  // A build without a key stops here, before any request.
  if (!pins.release.keys?.length) throw new Error(missingKeyMessage(where));
  let manifest: Buffer;
  let signature: Buffer;
  try {
    manifest = await fetchBytes(http, source, releasePath(shell, RELEASE_MANIFEST), RELEASE_MANIFEST, MANIFEST_MAX_BYTES);
    signature = await fetchBytes(http, source, releasePath(shell, RELEASE_SIGNATURE), RELEASE_SIGNATURE, SIGNATURE_MAX_BYTES);
  } catch (error) {
    if ((error as { status?: number }).status === 404) {
      // GitHub serves no asset of a draft: a release that is not published reads the same as none.
      throw new Error(
        `Gentle Shell ${shell} has no published release at ${where} (no signed manifest, ${RELEASE_MANIFEST}, is served there); nothing was changed`,
      );
    }
    throw error;
  }
  const signed = readSignedRelease(manifest, signature, pins.release.keys, where);
  if (signed.shell !== shell) throw new Error(`the signed manifest at ${where} is for Gentle Shell ${signed.shell}, not ${shell}; nothing was changed`);
  return { signed, manifest, signature };
}

/** The release from `source`, through `http` (a folder's read without it): signature first, then each asset checked against it. */
export async function fetchRelease(http: HttpClient, source: Source, shell: string, pins: Pins, ownEngine: () => string | null): Promise<FetchedRelease> {
  const { signed, manifest, signature } = await fetchSignedManifest(http, source, shell, pins);
  const where = describeSource(source);
  const asset = async (name: string, max: number): Promise<Buffer> => {
    let bytes: Buffer;
    try {
      bytes = await fetchBytes(http, source, releasePath(shell, name), name, Math.max(max, signed.assets[name]?.size ?? 0));
    } catch (error) {
      if ((error as { status?: number }).status === 404)
        throw new Error(`Gentle Shell ${shell} lists ${name}, but ${where} does not serve it; nothing was changed`);
      throw error;
    }
    checkAsset(signed, name, bytes, where);
    return bytes;
  };
  const json = await asset(DISTRIBUTION_JSON, JSON_MAX);
  const lock = await asset(DISTRIBUTION_LOCK, LOCK_MAX);
  const distribution = readDistribution(json.toString("utf8"), lock.toString("utf8"), where);
  if (distribution.manifest.shell !== signed.shell || distribution.manifest.pi !== signed.pi) {
    throw new Error(
      `the distribution of Gentle Shell ${shell} names ${distribution.manifest.id}, its signed manifest ${signed.shell}-${signed.pi}; nothing was changed`,
    );
  }
  let own: string | null = null;
  try {
    own = ownEngine();
  } catch {
    own = null;
  }
  if (own !== null) {
    try {
      checkAsset(signed, ENGINE_ASSET, own, "this gentle-shell-setup");
      return { signed, manifest, signature, json, lock, distribution, engine: own, engineDownloaded: false };
    } catch {
      // Another engine than ours: the release's own is downloaded.
    }
  }
  const engine = await asset(ENGINE_ASSET, ENGINE_MAX);
  return { signed, manifest, signature, json, lock, distribution, engine, engineDownloaded: true };
}
