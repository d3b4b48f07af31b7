/**
 * Small bounded text fetches: release assets and registry metadata. Not
 * pinned (their content is checked by their readers), but held to the same
 * transport rules as verifiedDownload: identity encoding only, a size cap
 * (Content-Length first, then while reading), a timeout per request,
 * redirects only to the listed hosts over https, and bounded retries with
 * backoff for connect errors, 5xx and truncation; none for 4xx.
 */
import { ofetch } from "ofetch";
import { redactText, splitUrlCredentials } from "../core/secrets";

/**
 * One GET for the exact bytes: identity encoding asked for, redirects handed
 * back to the caller (who decides which hosts they may go to), no retries of
 * ofetch's own, the body left as a stream.
 */
export function identityGet(url: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<Response> {
  // Credentials written into the URL (npm accepts `http://user:password@host/`) go in a Basic
  // header, as npm sends them: fetch refuses to build a request from such a URL.
  const split = splitUrlCredentials(url);
  const sent: Record<string, string> = { "accept-encoding": "identity", ...(headers ?? {}) };
  if (split.authorization && !Object.keys(sent).some((k) => k.toLowerCase() === "authorization")) sent.authorization = split.authorization;
  return ofetch.raw(split.url, {
    method: "GET",
    headers: sent,
    redirect: "manual",
    retry: false,
    ignoreResponseError: true,
    responseType: "stream",
    signal,
  }) as Promise<Response>;
}

/**
 * Did the request fail on the way (a socket, DNS or TLS error, worth another
 * try), rather than never being built (a malformed URL or header, which no
 * retry mends)? fetch reports the first as "fetch failed" with a coded cause.
 */
export function failedInTransit(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 6; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if ((typeof code === "string" && code !== "") || current.message === "fetch failed") return true;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return false;
}

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
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 30_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    let response: Response;
    try {
      response = await identityGet(url, options.headers, controller.signal);
    } catch (error) {
      if (timedOut) throw new Retry(`${shown} took longer than ${Math.round(timeoutMs / 1000)} s for ${options.name}`);
      const cause = redactText(causeText(error));
      if (!failedInTransit(error)) throw new Error(`the request for ${options.name} to ${shown} could not be made (${cause})`);
      throw new Retry(`could not reach ${shown} for ${options.name} (${cause})`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      const next = location ? new URL(location, url) : null;
      if (next?.protocol !== "https:" || !(options.redirectHosts ?? []).includes(next.host) || redirects >= 5) {
        throw new Error(`${shown} redirected ${options.name} to ${next?.host ?? "nowhere"}, which is not allowed`);
      }
      clearTimeout(timer);
      return fetchBoundedBytes(next.toString(), options, redirects + 1);
    }
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      throw Object.assign(new Error(`${options.name} was not found at ${shown} (HTTP 404)`), { status: 404 });
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      const message = `${shown} answered HTTP ${response.status} for ${options.name}`;
      if (response.status >= 500 || response.status === 429) throw new Retry(message);
      throw Object.assign(new Error(message), { status: response.status });
    }
    const encoding = (response.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`${shown} sent ${options.name} ${encoding}-encoded; only identity is accepted`);
    }
    const header = response.headers.get("content-length");
    const length = header === null ? null : Number(header);
    if (length !== null && (!Number.isFinite(length) || length > options.maxBytes)) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`${options.name} at ${shown} is larger than ${options.maxBytes} bytes`);
    }
    if (!response.body) throw new Retry(`${shown} sent no body for ${options.name}`);
    const chunks: Buffer[] = [];
    let size = 0;
    const failures = {
      broke: (error: unknown, received: number) =>
        new Retry(
          timedOut
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
    clearTimeout(timer);
  }
}

/**
 * A response body's chunks, with the byte cap both readers enforce: over
 * `maxBytes` the stream is cancelled and `tooLarge()` thrown; a read that
 * fails (reset, truncation, our own abort) throws `broke(error, received)`.
 */
export async function* bodyChunks(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  failures: { broke(error: unknown, received: number): Error; tooLarge(): Error },
): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
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
    if (!finished) await reader.cancel().catch(() => undefined);
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
