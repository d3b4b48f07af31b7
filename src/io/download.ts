/**
 * verifiedDownload: the one way bytes enter the installer (spec: "Ownership
 * rules", Runtimes). The body is streamed to a file in a folder of ours while
 * it is hashed; the caller gets the file only after the hash matches the pin.
 *
 * - identity encoding only: an encoded body is refused (its hash would be of
 *   other bytes than the ones pinned);
 * - Content-Length over the cap is refused before reading, and the stream is
 *   cut at the cap; an exact size, where pinned, must match;
 * - a timeout per request and a stall timeout between chunks;
 * - bounded retries with backoff for connect errors, 5xx and truncation; none
 *   for 4xx or a hash mismatch;
 * - redirects refused unless the caller lists the hosts they may go to.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import { redactText } from "../core/secrets";
import { bodyChunks, causeText } from "./http";
import { failedInTransit, type HttpResponse, identityGet } from "./http-get";
import type { DownloadProgress } from "./progress";

export interface Expected {
  /** What the user is told this is, e.g. "Node 24.21.0 (linux-x64)". */
  name: string;
  sha256?: string | null;
  /** Subresource integrity, e.g. sha512-<base64>. */
  integrity?: string | null;
  size?: number | null;
  maxBytes: number;
}

export interface DownloadOptions {
  /** Hosts a redirect may lead to (release assets); empty: redirects refused. */
  redirectHosts?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  stallMs?: number;
  attempts?: number;
  backoffMs?: number;
  /** This download's bar or lines (see ./progress). */
  progress?: DownloadProgress;
  /** Aborting it ends the download at once, without retrying (its file is not wanted any more). */
  cancel?: AbortSignal;
}

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function hasPin(expected: Expected): boolean {
  return Boolean(expected.sha256 || expected.integrity);
}

/** Download `url` to `dest`, verified against `expected`. */
export async function verifiedDownload(url: string, dest: string, expected: Expected, options: DownloadOptions = {}): Promise<void> {
  if (!hasPin(expected)) {
    throw new DownloadError(`${expected.name} has no known checksum in this build, so it is not downloaded`, false);
  }
  const attempts = options.attempts ?? 4;
  let lastError: unknown;
  let tried = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    tried = attempt;
    try {
      await downloadOnce(url, dest, expected, options, 0);
      options.progress?.done();
      return;
    } catch (error) {
      await fs.rm(dest, { force: true });
      lastError = error;
      // Only our own classification retries: a disk error or a bug is not transient.
      const retryable = error instanceof DownloadError ? error.retryable : false;
      if (!retryable || attempt === attempts || options.cancel?.aborted) break;
      await new Promise((r) => setTimeout(r, (options.backoffMs ?? 500) * 2 ** (attempt - 1)));
    }
  }
  options.progress?.fail();
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  const prefix = message.includes(expected.name) ? "" : `${expected.name}: `;
  const suffix = tried > 1 ? ` (gave up after ${tried} attempts)` : "";
  throw new DownloadError(`${prefix}${message}${suffix}`, false);
}

async function downloadOnce(url: string, dest: string, expected: Expected, options: DownloadOptions, redirects: number): Promise<void> {
  const shown = redactText(url);
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const stallMs = options.stallMs ?? 30_000;
  let why: string | null = null;
  const abort = (reason: string) => {
    why = reason;
    controller.abort();
  };
  const cancelled = () => abort("was not needed any more");
  if (options.cancel?.aborted) throw new DownloadError(`${shown} was not needed any more`, false);
  options.cancel?.addEventListener("abort", cancelled, { once: true });
  const total = setTimeout(() => abort(`took longer than ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
  let stall = setTimeout(() => abort(`no data for ${Math.round(stallMs / 1000)} s`), stallMs);
  const resetStall = () => {
    clearTimeout(stall);
    stall = setTimeout(() => abort(`no data for ${Math.round(stallMs / 1000)} s`), stallMs);
  };
  try {
    let response: HttpResponse;
    try {
      response = await identityGet(url, options.headers, controller.signal);
    } catch (error) {
      if (why) throw new DownloadError(`${shown} ${why}`, true);
      const cause = redactText(causeText(error));
      if (!failedInTransit(error)) throw new DownloadError(`the request to ${shown} could not be made (${cause})`, false);
      throw new DownloadError(`could not reach ${shown} (${cause})`, true);
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.header("location");
      response.discard();
      const next = location ? new URL(location, url) : null;
      const allowed = options.redirectHosts ?? [];
      if (!next || !allowed.includes(next.host) || next.protocol !== "https:" || redirects >= 5) {
        throw new DownloadError(`${shown} redirected to ${next ? next.host : "nowhere"}, which is not an allowed host for ${expected.name}`, false);
      }
      clearTimeout(total);
      clearTimeout(stall);
      options.cancel?.removeEventListener("abort", cancelled);
      return downloadOnce(next.toString(), dest, expected, options, redirects + 1);
    }
    if (response.status !== 200) {
      response.discard();
      throw new DownloadError(`${shown} answered HTTP ${response.status}`, response.status >= 500 || response.status === 429);
    }
    const encoding = (response.header("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") {
      response.discard();
      throw new DownloadError(`${shown} sent a ${encoding}-encoded body; only the exact bytes can be verified`, false);
    }
    const lengthHeader = response.header("content-length");
    const length = lengthHeader === null ? null : Number(lengthHeader);
    if (length !== null && (!Number.isFinite(length) || length > expected.maxBytes)) {
      response.discard();
      throw new DownloadError(`${shown} announces ${lengthHeader} bytes, more than the ${expected.maxBytes} allowed for ${expected.name}`, false);
    }
    if (length !== null && expected.size != null && length !== expected.size) {
      response.discard();
      throw new DownloadError(`${shown} announces ${length} bytes; ${expected.name} is exactly ${expected.size}`, false);
    }

    const sha256 = createHash("sha256");
    const integrityAlgo = expected.integrity ? expected.integrity.split("-")[0]! : null;
    const sri = integrityAlgo ? createHash(integrityAlgo) : null;
    const out = createWriteStream(dest, { flags: "wx", mode: 0o600 });
    let outError: Error | null = null;
    out.on("error", (error) => (outError ??= error));
    const writeFailed = () => new DownloadError(`could not write ${expected.name} to ${dest} (${causeText(outError)})`, false);
    let received = 0;
    try {
      const failures = {
        broke: (error: unknown, at: number) =>
          new DownloadError(why ? `${shown} ${why}` : `${shown} broke off after ${at} bytes (${redactText(causeText(error))})`, true),
        tooLarge: () => new DownloadError(`${shown} sent more than the ${expected.maxBytes} bytes allowed for ${expected.name}`, false),
      };
      for await (const chunk of bodyChunks(response.body, expected.maxBytes, failures)) {
        resetStall();
        received += chunk.byteLength;
        sha256.update(chunk);
        sri?.update(chunk);
        if (outError) throw writeFailed();
        if (!out.write(chunk)) {
          // Wait for drain or an error, and take both listeners off again: a long
          // download waits many times, and listeners left behind would pile up.
          await new Promise<void>((r) => {
            const done = () => {
              out.off("drain", done);
              out.off("error", done);
              r();
            };
            out.once("drain", done);
            out.once("error", done);
          });
        }
        if (outError) throw writeFailed();
        options.progress?.update(received, length ?? expected.size ?? null);
      }
    } finally {
      await new Promise<void>((resolve) => {
        if (out.destroyed || outError) return resolve();
        out.once("error", () => resolve());
        out.end(() => resolve());
      });
    }
    if (outError) throw writeFailed();
    if (length !== null && received !== length) {
      throw new DownloadError(`${shown} ended after ${received} of ${length} bytes`, true);
    }
    if (expected.size != null && received !== expected.size) {
      throw new DownloadError(`${shown} sent ${received} bytes; ${expected.name} is exactly ${expected.size}`, true);
    }
    if (expected.sha256 && !sameBytes(sha256.digest(), Buffer.from(expected.sha256, "hex"))) {
      throw new DownloadError(`${expected.name} from ${shown} does not match its pinned sha256; it was not used`, false);
    }
    if (expected.integrity && sri) {
      const want = Buffer.from(expected.integrity.slice(integrityAlgo!.length + 1), "base64");
      if (!sameBytes(sri.digest(), want)) {
        throw new DownloadError(`${expected.name} from ${shown} does not match its pinned ${integrityAlgo} integrity; it was not used`, false);
      }
    }
  } finally {
    clearTimeout(total);
    clearTimeout(stall);
    options.cancel?.removeEventListener("abort", cancelled);
  }
}

/** Constant-time comparison of two digests. */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hash a file we already hold (offline bundles, local sources), streaming it. */
export async function verifyFile(path: string, expected: Expected): Promise<void> {
  if (!hasPin(expected)) throw new DownloadError(`${expected.name} has no known checksum in this build`, false);
  const stat = await fs.stat(path);
  if (stat.size > expected.maxBytes) throw new DownloadError(`${path} is larger than allowed for ${expected.name}`, false);
  if (expected.size != null && stat.size !== expected.size) throw new DownloadError(`${path} is not the size of ${expected.name}`, false);
  const sha256 = createHash("sha256");
  const algo = expected.integrity ? expected.integrity.split("-")[0]! : null;
  const sri = algo ? createHash(algo) : null;
  let read = 0;
  for await (const chunk of createReadStream(path)) {
    read += (chunk as Buffer).length;
    if (read > expected.maxBytes) throw new DownloadError(`${path} is larger than allowed for ${expected.name}`, false);
    sha256.update(chunk as Buffer);
    sri?.update(chunk as Buffer);
  }
  if (expected.sha256 && !sameBytes(sha256.digest(), Buffer.from(expected.sha256, "hex"))) {
    throw new DownloadError(`${path} does not match the pinned sha256 of ${expected.name}`, false);
  }
  if (expected.integrity && sri) {
    const want = Buffer.from(expected.integrity.slice(algo!.length + 1), "base64");
    if (!sameBytes(sri.digest(), want)) {
      throw new DownloadError(`${path} does not match the pinned integrity of ${expected.name}`, false);
    }
  }
}
