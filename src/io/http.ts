/**
 * Small bounded text fetches: release assets and registry metadata. Not
 * pinned (their content is checked by their readers), but held to the same
 * transport rules as verifiedDownload: identity encoding only, a size cap
 * (Content-Length first, then while reading), a timeout per request,
 * redirects only to the listed hosts over https, and bounded retries with
 * backoff for connect errors, 5xx and truncation; none for 4xx.
 */
import { ofetch } from "ofetch";

/**
 * One GET for the exact bytes: identity encoding asked for, redirects handed
 * back to the caller (who decides which hosts they may go to), no retries of
 * ofetch's own, the body left as a stream.
 */
export function identityGet(url: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<Response> {
  return ofetch.raw(url, {
    method: "GET",
    headers: { "accept-encoding": "identity", ...(headers ?? {}) },
    redirect: "manual",
    retry: false,
    ignoreResponseError: true,
    responseType: "stream",
    signal,
  }) as Promise<Response>;
}
import { causeText } from "./download";

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

export async function fetchBoundedText(url: string, options: TextFetchOptions, redirects = 0): Promise<string> {
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

async function fetchOnce(url: string, options: TextFetchOptions, redirects: number): Promise<string> {
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
      throw new Retry(
        timedOut
          ? `${url} took longer than ${Math.round(timeoutMs / 1000)} s for ${options.name}`
          : `could not reach ${url} for ${options.name} (${causeText(error)})`,
      );
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      const next = location ? new URL(location, url) : null;
      if (!next || next.protocol !== "https:" || !(options.redirectHosts ?? []).includes(next.host) || redirects >= 5) {
        throw new Error(`${url} redirected ${options.name} to ${next?.host ?? "nowhere"}, which is not allowed`);
      }
      clearTimeout(timer);
      return fetchBoundedText(next.toString(), options, redirects + 1);
    }
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      throw Object.assign(new Error(`${options.name} was not found at ${url} (HTTP 404)`), { status: 404 });
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      const message = `${url} answered HTTP ${response.status} for ${options.name}`;
      if (response.status >= 500 || response.status === 429) throw new Retry(message);
      throw Object.assign(new Error(message), { status: response.status });
    }
    const encoding = (response.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`${url} sent ${options.name} ${encoding}-encoded; only identity is accepted`);
    }
    const header = response.headers.get("content-length");
    const length = header === null ? null : Number(header);
    if (length !== null && (!Number.isFinite(length) || length > options.maxBytes)) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`${options.name} at ${url} is larger than ${options.maxBytes} bytes`);
    }
    if (!response.body) throw new Retry(`${url} sent no body for ${options.name}`);
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = response.body.getReader();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new Retry(
          timedOut
            ? `${url} took longer than ${Math.round(timeoutMs / 1000)} s for ${options.name}`
            : `${url} broke off ${options.name} after ${size} bytes (${causeText(error)})`,
        );
      }
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`${options.name} at ${url} is larger than ${options.maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk.value));
    }
    if (length !== null && size !== length) throw new Retry(`${url} ended ${options.name} after ${size} of ${length} bytes`);
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    clearTimeout(timer);
  }
}
