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
 * - redirects refused unless the HTTP client's policy lists the hosts they may
 *   go to (./http-client.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import type { DownloadProgress } from "./progress";
import { attemptsOf, causeText, gatedGet, TransferError, transferPhrases, withRetries, type Wire } from "./transport";
import { rm } from "./locked-retry";

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

/** The whole body arrived and is not the pinned bytes: the check failed, not the download. */
class PinMismatch extends TransferError {}

export function hasPin(expected: Expected): boolean {
  return Boolean(expected.sha256 || expected.integrity);
}

/** Download `url` to `dest` through `wire` (the HTTP client), verified against `expected`. */
export async function verifiedDownload(wire: Wire, url: string, dest: string, expected: Expected, options: DownloadOptions = {}): Promise<void> {
  if (!hasPin(expected)) {
    throw new TransferError(`${expected.name} has no known checksum in this build, so it is not downloaded`, false);
  }
  const rules = {
    wire,
    phrases: transferPhrases(expected.name, expected.maxBytes, false),
    maxBytes: expected.maxBytes,
    size: expected.size,
    headers: options.headers,
    timeoutMs: options.timeoutMs ?? 10 * 60_000,
    stallMs: options.stallMs ?? 30_000,
    cancel: options.cancel,
  };
  const policy = { attempts: options.attempts ?? 4, backoffMs: options.backoffMs ?? 500, cancel: options.cancel };
  // A body cut short after some bytes is kept, and the next try asks for the rest with a Range request (as rustup
  // resumes); a server that answers 200 sends it whole again. The whole file's hash decides either way.
  let keep = false;
  try {
    await withRetries(
      policy,
      async () => {
        const from = keep ? ((await fs.stat(dest).catch(() => null))?.size ?? 0) : 0;
        keep = false;
        const get = (rangeFrom: number) =>
          gatedGet(url, rangeFrom > 0 ? { ...rules, rangeFrom } : rules, async (chunks, length, shown, start) => ({
            ...(await writeHashed(chunks, dest, expected, options, length, start)),
            shown,
          }));
        try {
          // 416: what was kept is not a prefix the server knows (it announced more than it had); asked whole at once.
          const written = await get(from).catch((error: unknown) => {
            if (from > 0 && error instanceof TransferError && error.status === 416) return get(0);
            throw error;
          });
          checkWritten(written, written.shown, expected);
        } catch (error) {
          keep = error instanceof TransferError && error.resumable;
          throw error;
        }
      },
      async () => {
        if (!keep) await rm(dest, { force: true });
      },
    );
    options.progress?.done();
  } catch (error) {
    // Nothing of a download that failed for good is left behind.
    await rm(dest, { force: true });
    options.progress?.fail(error instanceof PinMismatch ? "check" : "download");
    const message = error instanceof Error ? error.message : String(error);
    const prefix = message.includes(expected.name) ? "" : `${expected.name}: `;
    const tries = attemptsOf(error);
    throw new TransferError(`${prefix}${message}${tries > 1 ? ` (gave up after ${tries} attempts)` : ""}`, false);
  }
}

interface Written {
  received: number;
  sha256: Buffer;
  sri: { algorithm: string; digest: Buffer } | null;
}

/**
 * The body into a new file of mode 0600, hashed as it goes; a write that fails stops the download.
 * From `start` > 0 (the rest of a body, after a Range request) the bytes already there are hashed first and the rest appended.
 */
async function writeHashed(
  chunks: AsyncIterable<Uint8Array>,
  dest: string,
  expected: Expected,
  options: DownloadOptions,
  length: number | null,
  start: number,
): Promise<Written> {
  const sha256 = createHash("sha256");
  const algorithm = expected.integrity ? expected.integrity.split("-")[0]! : null;
  const sri = algorithm ? createHash(algorithm) : null;
  if (start > 0) {
    for await (const chunk of createReadStream(dest, { end: start - 1 })) {
      sha256.update(chunk as Buffer);
      sri?.update(chunk as Buffer);
    }
  } else {
    // The whole body: a part kept from an earlier try goes first (the server did not honour the range).
    await rm(dest, { force: true });
  }
  const out = createWriteStream(dest, { flags: start > 0 ? "a" : "wx", mode: 0o600 });
  let outError: Error | null = null;
  out.on("error", (error) => (outError ??= error));
  const writeFailed = () => new TransferError(`could not write ${expected.name} to ${dest} (${causeText(outError)})`, false);
  let received = start;
  try {
    for await (const chunk of chunks) {
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
      options.progress?.update(received, length === null ? (expected.size ?? null) : start + length);
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (out.destroyed || outError) return resolve();
      out.once("error", () => resolve());
      out.end(() => resolve());
    });
  }
  if (outError) throw writeFailed();
  return { received, sha256: sha256.digest(), sri: algorithm && sri ? { algorithm, digest: sri.digest() } : null };
}

/** The exact size and the pins, once the whole body (as long as announced) is written. */
function checkWritten(written: Written, shown: string, expected: Expected): void {
  if (expected.size != null && written.received !== expected.size) {
    throw new TransferError(`${shown} sent ${written.received} bytes; ${expected.name} is exactly ${expected.size}`, true);
  }
  if (expected.sha256 && !sameBytes(written.sha256, Buffer.from(expected.sha256, "hex"))) {
    throw new PinMismatch(`${expected.name} from ${shown} does not match its pinned sha256; it was not used`, false);
  }
  if (expected.integrity && written.sri) {
    const want = Buffer.from(expected.integrity.slice(written.sri.algorithm.length + 1), "base64");
    if (!sameBytes(written.sri.digest, want)) {
      throw new PinMismatch(`${expected.name} from ${shown} does not match its pinned ${written.sri.algorithm} integrity; it was not used`, false);
    }
  }
}

/** Constant-time comparison of two digests. */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hash a file we already hold (offline bundles, local sources), streaming it. */
export async function verifyFile(path: string, expected: Expected): Promise<void> {
  if (!hasPin(expected)) throw new TransferError(`${expected.name} has no known checksum in this build`, false);
  const stat = await fs.stat(path);
  if (stat.size > expected.maxBytes) throw new TransferError(`${path} is larger than allowed for ${expected.name}`, false);
  if (expected.size != null && stat.size !== expected.size) throw new TransferError(`${path} is not the size of ${expected.name}`, false);
  const sha256 = createHash("sha256");
  const algo = expected.integrity ? expected.integrity.split("-")[0]! : null;
  const sri = algo ? createHash(algo) : null;
  let read = 0;
  for await (const chunk of createReadStream(path)) {
    read += (chunk as Buffer).length;
    if (read > expected.maxBytes) throw new TransferError(`${path} is larger than allowed for ${expected.name}`, false);
    sha256.update(chunk as Buffer);
    sri?.update(chunk as Buffer);
  }
  if (expected.sha256 && !sameBytes(sha256.digest(), Buffer.from(expected.sha256, "hex"))) {
    throw new TransferError(`${path} does not match the pinned sha256 of ${expected.name}`, false);
  }
  if (expected.integrity && sri) {
    const want = Buffer.from(expected.integrity.slice(algo!.length + 1), "base64");
    if (!sameBytes(sri.digest(), want)) {
      throw new TransferError(`${path} does not match the pinned integrity of ${expected.name}`, false);
    }
  }
}
