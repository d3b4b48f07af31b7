/**
 * Small bounded text fetches: release assets and registry metadata. Not
 * pinned (their content is checked by their readers), but held to the same
 * transport rules as verifiedDownload: identity encoding only, a size cap
 * (Content-Length first, then while reading), a timeout per request,
 * redirects only to the listed hosts over https, and bounded retries with
 * backoff for connect errors, 5xx and truncation; none for 4xx.
 */
import type { Readable } from "node:stream";
import { redactText } from "../core/secrets";
import { deadline, failedInTransit, type HttpResponse, identityGet } from "./http-get";

export interface TextFetchOptions {
  name: string;
  maxBytes: number;
  redirectHosts?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
}

class Retry extends Error {}

export async function fetchBoundedText(url: string, options: TextFetchOptions): Promise<string> {
  return (await fetchBoundedBytes(url, options)).toString("utf8");
}

/** The whole body, at most `maxBytes`, identity-encoded, retried on transient failures; for small assets checked by their caller. */
export async function fetchBoundedBytes(url: string, options: TextFetchOptions, redirects = 0): Promise<Buffer> {
  const attempts = options.attempts ?? 3;
  let last: Error | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, (options.backoffMs ?? 500) * 2 ** (attempt - 2)));
    try {
      return await fetchOnce(url, options, redirects);
    } catch (error) {
      if (!(error instanceof Retry)) throw error;
      last = new Error(attempt > 1 ? `${error.message} (gave up after ${attempt} attempts)` : error.message);
    }
  }
  throw last ?? new Error(`could not fetch ${options.name}`);
}

async function fetchOnce(requested: string, options: TextFetchOptions, redirects: number): Promise<Buffer> {
  const url = requested;
  const shown = redactText(requested);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const time = deadline(timeoutMs);
  try {
    let response: HttpResponse;
    try {
      response = await identityGet(url, options.headers, time.signal);
    } catch (error) {
      if (time.expired) throw new Retry(`${shown} took longer than ${Math.round(timeoutMs / 1000)} s for ${options.name}`);
      const cause = redactText(causeText(error));
      if (!failedInTransit(error)) throw new Error(`the request for ${options.name} to ${shown} could not be made (${cause})`);
      throw new Retry(`could not reach ${shown} for ${options.name} (${cause})`);
    }
    if (response.status >= 300 && response.status < 400) {
      response.discard();
      const location = response.header("location");
      const next = location ? new URL(location, url) : null;
      if (next?.protocol !== "https:" || !(options.redirectHosts ?? []).includes(next.host) || redirects >= 5) {
        throw new Error(`${shown} redirected ${options.name} to ${next?.host ?? "nowhere"}, which is not allowed`);
      }
      time.clear();
      return fetchBoundedBytes(next.toString(), options, redirects + 1);
    }
    if (response.status === 404) {
      response.discard();
      throw Object.assign(new Error(`${options.name} was not found at ${shown} (HTTP 404)`), { status: 404 });
    }
    if (response.status !== 200) {
      response.discard();
      const message = `${shown} answered HTTP ${response.status} for ${options.name}`;
      if (response.status >= 500 || response.status === 429) throw new Retry(message);
      throw Object.assign(new Error(message), { status: response.status });
    }
    const encoding = (response.header("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") {
      response.discard();
      throw new Error(`${shown} sent ${options.name} ${encoding}-encoded; only identity is accepted`);
    }
    const header = response.header("content-length");
    const length = header === null ? null : Number(header);
    if (length !== null && (!Number.isFinite(length) || length > options.maxBytes)) {
      response.discard();
      throw new Error(`${options.name} at ${shown} is larger than ${options.maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const failures = {
      broke: (error: unknown, received: number) =>
        new Retry(
          time.expired
            ? `${shown} took longer than ${Math.round(timeoutMs / 1000)} s for ${options.name}`
            : `${shown} broke off ${options.name} after ${received} bytes (${redactText(causeText(error))})`,
        ),
      tooLarge: () => new Error(`${options.name} at ${shown} is larger than ${options.maxBytes} bytes`),
    };
    for await (const chunk of bodyChunks(response.body, options.maxBytes, failures)) {
      size += chunk.byteLength;
      chunks.push(Buffer.from(chunk));
    }
    if (length !== null && size !== length) throw new Retry(`${shown} ended ${options.name} after ${size} of ${length} bytes`);
    return Buffer.concat(chunks);
  } finally {
    time.clear();
  }
}

/**
 * A response body's chunks, with the byte cap both readers enforce: over
 * `maxBytes` the body is dropped and `tooLarge()` thrown; a read that fails
 * (reset, truncation, our own abort) throws `broke(error, received)`. The
 * next chunk is read only when the caller asks for it, so a slow caller slows
 * the socket, never the other way round.
 */
export async function* bodyChunks(
  body: Readable,
  maxBytes: number,
  failures: { broke(error: unknown, received: number): Error; tooLarge(): Error },
): AsyncGenerator<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      let chunk: IteratorResult<Buffer>;
      try {
        chunk = await chunks.next();
      } catch (error) {
        finished = true;
        throw failures.broke(error, received);
      }
      if (chunk.done) {
        finished = true;
        return;
      }
      received += chunk.value.byteLength;
      if (received > maxBytes) throw failures.tooLarge();
      yield chunk.value;
    }
  } finally {
    // Over the cap, or the reader stopped early (a write failed): the rest is not wanted.
    if (!finished) body.destroy();
  }
}

/** The deepest cause's code or message: "ECONNRESET", "ENOTFOUND", "certificate has expired", ... */
export function causeText(error: unknown): string {
  let current: unknown = error;
  let text = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    text = code && !code.startsWith("UND_ERR") ? code : current.message || text;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return text;
}
