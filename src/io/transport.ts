/**
 * The one transport every byte from the network comes through: one gated GET
 * and one retry policy. The bounded text fetch (./http) and the hashing file
 * download (./download) differ only in where the body goes and in how they
 * word a failure (their Phrases).
 *
 * The gate, for every hop:
 * - identity encoding only (a hash is of the bytes as sent);
 * - redirects only over https, to the hosts the caller lists, at most 5;
 * - status 200; 5xx and 429 are worth another try, other statuses are not;
 * - a Content-Length over the cap, or other than an exact size, is refused
 *   before reading; the body is cut at the cap, and one shorter than its
 *   Content-Length is a truncation worth another try;
 * - a deadline per request, and, where asked, a stall limit between chunks.
 *
 * Who asks, what is trusted and where a redirect may go are the HTTP client's
 * (./http-client.ts): every GET goes through its `Wire`.
 */
import { errnoCode } from "../core/errno";
import type { Readable } from "node:stream";
import type { Env } from "../core/environment";
import { redactText, redactUrl } from "../core/secrets";
import {
  deadline,
  failedInTransit,
  type HttpResponse,
  isCertificateError,
  isProxyAuthError,
  proxyAuthRequired,
  untrustedByNpmSettings,
  untrustedCertificate,
} from "./http-get";

/** What the transport asks of the HTTP client (./http-client.ts) for each GET. */
export interface Wire {
  /** The environment whose proxy variables the requests follow (a 407's sentence names the proxy). */
  readonly env: Env;
  /** One identity GET with the client's User-Agent and trust (./http-get.ts identityGet). */
  get(url: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<HttpResponse>;
  /** The npm settings' authorities trusted for `url` in place of Node's roots (a registry's URL), or undefined. */
  authoritiesFor(url: string): readonly string[] | undefined;
  /** The hosts a redirect from `url` may lead to (over https); empty: redirects refused. */
  redirectHostsFor(url: string): readonly string[];
}

/** A transfer that failed: `retryable` says whether the retry policy may try again. */
export class TransferError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** A body cut short after some bytes arrived: the next try may ask for the rest (a Range request). */
    readonly resumable = false,
  ) {
    super(message);
  }
}

/** How one reader words each failure; `shown` is the URL with its secrets redacted. */
export interface Phrases {
  /** The request was never sent (a malformed URL or header). */
  notMade(shown: string, cause: string): string;
  unreachable(shown: string, cause: string): string;
  /** `why`: "took longer than 30 s", "no data for 30 s", "was not needed any more". */
  stopped(shown: string, why: string): string;
  redirected(shown: string, host: string): string;
  status(shown: string, status: number): string;
  encoded(shown: string, encoding: string): string;
  announcedTooLarge(shown: string, header: string): string;
  announcedOtherSize(shown: string, length: number, size: number): string;
  brokeOff(shown: string, received: number, cause: string): string;
  tooLarge(shown: string): string;
  endedEarly(shown: string, received: number, length: number): string;
}

/**
 * The one table of those sentences. A download's leave the name to the prefix verifiedDownload puts before them
 * ("<name>: ..."), so they say it only where it is the point (a host it may not go to, a size it must have); a
 * fetch's say it in each (`fetch`: true), and name a 404 as not found.
 */
export function transferPhrases(name: string, maxBytes: number, fetch: boolean): Phrases {
  const forName = fetch ? ` for ${name}` : "";
  const it = fetch ? ` ${name}` : "";
  const tooLarge = (shown: string) => `${name} at ${shown} is larger than ${maxBytes} bytes`;
  return {
    notMade: (shown, cause) => `the request${forName} to ${shown} could not be made (${cause})`,
    unreachable: (shown, cause) => `could not reach ${shown}${forName} (${cause})`,
    stopped: (shown, why) => `${shown} ${why}${forName}`,
    redirected: (shown, host) =>
      fetch ? `${shown} redirected ${name} to ${host}, which is not allowed` : `${shown} redirected to ${host}, which is not an allowed host for ${name}`,
    status: (shown, status) => (fetch && status === 404 ? `${name} was not found at ${shown} (HTTP 404)` : `${shown} answered HTTP ${status}${forName}`),
    encoded: (shown, encoding) =>
      fetch
        ? `${shown} sent ${name} ${encoding}-encoded; only identity is accepted`
        : `${shown} sent a ${encoding}-encoded body; only the exact bytes can be verified`,
    announcedTooLarge: (shown, header) => (fetch ? tooLarge(shown) : `${shown} announces ${header} bytes, more than the ${maxBytes} allowed for ${name}`),
    announcedOtherSize: (shown, length, size) =>
      fetch ? `${shown} announces ${length} bytes for ${name}, not ${size}` : `${shown} announces ${length} bytes; ${name} is exactly ${size}`,
    brokeOff: (shown, received, cause) => `${shown} broke off${it} after ${received} bytes (${cause})`,
    tooLarge: (shown) => (fetch ? tooLarge(shown) : `${shown} sent more than the ${maxBytes} bytes allowed for ${name}`),
    endedEarly: (shown, received, length) => `${shown} ended${it} after ${received} of ${length} bytes`,
  };
}

export interface GateRules {
  /** The client every hop is asked through: its User-Agent, its trust and its redirect policy. */
  wire: Wire;
  phrases: Phrases;
  maxBytes: number;
  /** The exact size, where it is pinned. */
  size?: number | null;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** The longest wait between two chunks; none when absent. */
  stallMs?: number;
  /** Aborting it ends the transfer at once, and the retry policy tries no more. */
  cancel?: AbortSignal;
  /** Ask for the body from this byte on (`Range: bytes=<n>-`); a server that answers 200 sends it whole. */
  rangeFrom?: number;
}

/**
 * Where the body goes: its chunks (capped, in order, read on demand), the announced length of what is sent, the URL it
 * came from (redacted), and the byte it starts at: 0 for the whole body, `rangeFrom` when the server sent the rest (206).
 */
export type BodySink<T> = (chunks: AsyncIterable<Uint8Array>, length: number | null, shown: string, start: number) => Promise<T>;

/** Why a request got no response: never sent, a certificate not trusted, or lost on the way (the cause redacted). */
export interface RequestFailure {
  failed: "not-made" | "certificate" | "proxy-auth" | "unreachable";
  cause: string;
}

/** The first response to one GET, or why there was none. */
async function request(wire: Wire, url: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<HttpResponse | RequestFailure> {
  try {
    return await wire.get(url, headers, signal);
  } catch (error) {
    const cause = redactText(causeText(error));
    if (isCertificateError(error)) return { failed: "certificate", cause };
    if (isProxyAuthError(error)) return { failed: "proxy-auth", cause };
    return { failed: failedInTransit(error) ? "unreachable" : "not-made", cause };
  }
}

/**
 * Whether `url` answers at all within `timeoutMs`: any HTTP response counts (a
 * mirror's base URL may well be a 404), and its body is not read. No redirect
 * is followed and nothing is retried: a question asked before any download.
 */
export async function answersAtAll(wire: Wire, url: string, timeoutMs: number): Promise<{ answered: true } | RequestFailure | { failed: "timeout" }> {
  const time = deadline(timeoutMs);
  try {
    const response = await request(wire, url, undefined, time.signal);
    if (time.expired) return { failed: "timeout" };
    if (!("status" in response)) return response;
    response.discard();
    // A 407 is the proxy's answer, not the mirror's.
    if (response.status === 407) return { failed: "proxy-auth", cause: "HTTP 407" };
    return { answered: true };
  } finally {
    time.clear();
  }
}

/** One gated GET, redirects followed within the rules, no retry; the body goes to `sink`. */
export async function gatedGet<T>(url: string, rules: GateRules, sink: BodySink<T>): Promise<T> {
  // The hosts the first URL may be sent on to, for every hop of its chain.
  const redirectHosts = rules.wire.redirectHostsFor(url);
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const hop = await oneHop(current, rules, redirectHosts, sink);
    if (!("next" in hop)) return hop.value;
    if (redirects >= 5) throw new TransferError(rules.phrases.redirected(redactUrl(current), hop.next.host), false);
    current = hop.next.toString();
  }
}

async function oneHop<T>(url: string, rules: GateRules, redirectHosts: readonly string[], sink: BodySink<T>): Promise<{ value: T } | { next: URL }> {
  const { phrases, wire } = rules;
  const shown = redactUrl(url);
  const controller = new AbortController();
  let why: string | null = null;
  const stop = (reason: string) => {
    why ??= reason;
    controller.abort();
  };
  const cancelled = () => stop("was not needed any more");
  if (rules.cancel?.aborted) throw new TransferError(phrases.stopped(shown, "was not needed any more"), false);
  rules.cancel?.addEventListener("abort", cancelled, { once: true });
  const total = setTimeout(() => stop(`took longer than ${Math.round(rules.timeoutMs / 1000)} s`), rules.timeoutMs);
  let stall: NodeJS.Timeout | undefined;
  const watchStall = () => {
    if (rules.stallMs === undefined) return;
    clearTimeout(stall);
    stall = setTimeout(() => stop(`no data for ${Math.round(rules.stallMs! / 1000)} s`), rules.stallMs);
  };
  watchStall();
  try {
    const asked = rules.rangeFrom ? { ...rules.headers, range: `bytes=${rules.rangeFrom}-` } : rules.headers;
    const got = await request(wire, url, asked, controller.signal);
    if (!("status" in got)) {
      const response = got;
      if (why) throw new TransferError(phrases.stopped(shown, why), true);
      // No retry mends a certificate nobody here trusts: say whose it is and how to trust it.
      if (response.failed === "certificate") throw new TransferError(wire.authoritiesFor(url) ? untrustedByNpmSettings(url) : untrustedCertificate(url), false);
      if (response.failed === "proxy-auth") throw new TransferError(proxyAuthRequired(url, wire.env), false);
      if (response.failed === "not-made") throw new TransferError(phrases.notMade(shown, response.cause), false);
      throw new TransferError(phrases.unreachable(shown, response.cause), true);
    }
    const response: HttpResponse = got;
    if (response.status >= 300 && response.status < 400) {
      const location = response.header("location");
      response.discard();
      const next = location ? new URL(location, url) : null;
      if (next?.protocol !== "https:" || !redirectHosts.includes(next.host)) {
        throw new TransferError(phrases.redirected(shown, next?.host ?? "nowhere"), false);
      }
      return { next };
    }
    if (response.status === 407) {
      response.discard();
      throw new TransferError(proxyAuthRequired(url, wire.env), false, 407);
    }
    // The rest of a body asked for by a Range request: exactly from the byte asked, or it is asked for whole again.
    const start = rules.rangeFrom && response.status === 206 ? rangeStart(response.header("content-range")) : 0;
    if (response.status === 206 && start !== rules.rangeFrom) {
      response.discard();
      throw new TransferError(phrases.status(shown, 206), true, 206);
    }
    if (response.status !== 200 && response.status !== 206) {
      response.discard();
      const status = response.status;
      throw new TransferError(phrases.status(shown, status), status >= 500 || status === 429, status);
    }
    const encoding = (response.header("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") {
      response.discard();
      throw new TransferError(phrases.encoded(shown, encoding), false);
    }
    const header = response.header("content-length");
    const length = header === null ? null : Number(header);
    if (length !== null && (!Number.isFinite(length) || start + length > rules.maxBytes)) {
      response.discard();
      throw new TransferError(phrases.announcedTooLarge(shown, header!), false);
    }
    if (length !== null && rules.size != null && start + length !== rules.size) {
      response.discard();
      throw new TransferError(phrases.announcedOtherSize(shown, start + length, rules.size), false);
    }
    let received = 0;
    const failures = {
      broke: (error: unknown, at: number) =>
        new TransferError(why ? phrases.stopped(shown, why) : phrases.brokeOff(shown, start + at, redactText(causeText(error))), true, undefined, at > 0),
      tooLarge: () => new TransferError(phrases.tooLarge(shown), false),
    };
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of bodyChunks(response.body, rules.maxBytes - start, failures)) {
        watchStall();
        received += chunk.byteLength;
        yield chunk;
      }
    }
    const value = await sink(counted(), length, shown, start);
    if (length !== null && received !== length)
      throw new TransferError(phrases.endedEarly(shown, start + received, start + length), true, undefined, received > 0);
    return { value };
  } finally {
    clearTimeout(total);
    clearTimeout(stall);
    rules.cancel?.removeEventListener("abort", cancelled);
  }
}

/** The first byte a 206's Content-Range says it sends (`bytes <first>-<last>/<total>`), or -1 when it says nothing readable. */
function rangeStart(header: string | null): number {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec((header ?? "").trim());
  return match ? Number(match[1]) : -1;
}

export interface RetryPolicy {
  attempts: number;
  /** The wait before the second try; it doubles for each try after that. */
  backoffMs: number;
  cancel?: AbortSignal;
}

/**
 * The one retry policy: only a TransferError that says so is tried again (a
 * disk error or a bug is not transient), never after a cancel. The error that
 * ends it is the last one, with how many tries were made.
 */
export async function withRetries<T>(policy: RetryPolicy, once: () => Promise<T>, afterFailure?: () => Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (error) {
      await afterFailure?.();
      const retryable = error instanceof TransferError && error.retryable;
      if (!retryable || attempt >= policy.attempts || policy.cancel?.aborted) throw Object.assign(error as Error, { attempts: attempt });
      await new Promise((r) => setTimeout(r, policy.backoffMs * 2 ** (attempt - 1)));
    }
  }
}

/** How many tries withRetries made before the error it threw (1 for any other error). */
export function attemptsOf(error: unknown): number {
  return (error as { attempts?: number }).attempts ?? 1;
}

/**
 * A response body's chunks, with the byte cap: over `maxBytes` the body is
 * dropped and `tooLarge()` thrown; a read that fails (reset, truncation, our
 * own abort) throws `broke(error, received)`. The next chunk is read only
 * when the caller asks for it, so a slow caller slows the socket, never the
 * other way round.
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
    // Only Node's string codes name a cause (errnoCode: a DOMException, an abort, has a numeric one).
    const code = errnoCode(current);
    text = code && !code.startsWith("UND_ERR") ? code : current.message || text;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return text;
}
