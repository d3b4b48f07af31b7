/**
 * The one HTTP GET every download and fetch of ours goes through, on
 * node:http and node:https rather than Node's built-in fetch.
 *
 * Why not fetch: Node 24.21.0's fetch (its bundled undici 7) dies with an
 * uncatchable AssertionError when a server advertises the full
 * Content-Length, sends part of the body and closes while the reader holds
 * back (nodejs/undici#5360). The fix (nodejs/undici#5474) is only in undici
 * 8.6 and later, which needs Node 22.19 or later to load, and the tests and
 * CI run this code in-process on Node 20. node:http has no such state: a body
 * cut short is an ordinary stream error ("aborted", ECONNRESET), and reading
 * slowly just pauses the socket.
 *
 * Proxies: each entry turns Node 24's proxy support on at its start when a
 * proxy variable is set (./env-proxy.ts, http.setGlobalProxyFromEnv), which
 * gives http.request's and https.request's global agents HTTP_PROXY,
 * HTTPS_PROXY and NO_PROXY, as it does fetch's dispatcher. We therefore use
 * the global agents (read when each request is made) and pass no agent of
 * our own.
 *
 * This module holds no state: the User-Agent, the npm authorities and whether
 * the system's store was added are the HTTP client's (./http-client.ts), which
 * loads this module at its first request.
 */
import { errnoCode } from "../core/errno";
import { globalAgent as httpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { globalAgent as httpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import * as tls from "node:tls";
import { redactUrl, splitUrlCredentials, urlHasCredentials } from "../core/secrets";
import { proxyFor } from "../core/proxy";
import type { Env } from "../core/environment";

/** The global agents' idle keep-alive connections end (before Pi takes this process over, src/engine/pi-handover.ts). */
export function closeGlobalAgents(): void {
  httpAgent.destroy();
  httpsAgent.destroy();
}

export interface HttpResponse {
  status: number;
  /** A response header's value, or null; a repeated header's values joined with ", ". */
  header(name: string): string | null;
  /** The body as it arrives; reading it slowly pauses the socket. */
  body: Readable;
  /** Drop the body unread and close the connection. */
  discard(): void;
}

/** The request was never sent (a malformed URL or header, an unknown scheme): no retry mends it. */
export class RequestNotMade extends Error {}

/** Whether the system's certificate store is among Node's roots: not asked yet, added, or none to add (one client's, ./http-client.ts). */
export interface SystemStoreTrust {
  systemStore: "unasked" | "added" | "none";
}

/** How one request is made: who asks, and which roots it trusts. */
export interface GetTrust {
  userAgent: string;
  /** The authorities the user's npm settings name for the registry, in place of Node's roots (the registry's URLs only). */
  ca?: readonly string[];
  /** The client's system-store decision, made at most once for it. */
  store: SystemStoreTrust;
}

/**
 * One GET for the exact bytes: identity encoding asked for, no redirect
 * followed (the caller decides which hosts they may go to), no retries.
 * Resolves at the response's headers; a failure on the way rejects with the
 * socket's, DNS's or TLS's own error (with its code).
 */
export async function identityGet(url: string, headers: Record<string, string> | undefined, signal: AbortSignal, trust: GetTrust): Promise<HttpResponse> {
  const madeWith = trust.store.systemStore;
  try {
    return await getOnce(url, headers, signal, trust.userAgent, trust.ca);
  } catch (error) {
    // The authorities the user's npm settings name replace Node's roots for this request, as npm uses them: no store is added.
    if (trust.ca) throw error;
    // A certificate Node's own roots do not vouch for: once per client, the system's store is added and
    // the request made again (a network that inspects TLS has its root there). Only more roots, never fewer checks.
    // A request made before the store was added asks again too, also when another request beside it added the store.
    if (!isCertificateError(error) || madeWith !== "unasked" || !trustSystemStore(trust.store)) throw error;
    return getOnce(url, headers, signal, trust.userAgent);
  }
}

function getOnce(
  url: string,
  headers: Record<string, string> | undefined,
  signal: AbortSignal,
  userAgent: string,
  ca?: readonly string[],
): Promise<HttpResponse> {
  // Credentials written into the URL (npm accepts `http://user:password@host/`) go in a Basic
  // header, as npm sends them, and never in the request line.
  const split = splitUrlCredentials(url);
  const sent: Record<string, string> = { "accept-encoding": "identity", "user-agent": userAgent, ...(headers ?? {}) };
  if (split.authorization && !Object.keys(sent).some((k) => k.toLowerCase() === "authorization")) sent.authorization = split.authorization;
  return new Promise((resolve, reject) => {
    let target: URL;
    let request: ReturnType<typeof httpRequest>;
    try {
      target = new URL(split.url);
      const send = target.protocol === "https:" ? httpsRequest : target.protocol === "http:" ? httpRequest : null;
      if (!send) throw new Error(`${target.protocol} is neither http: nor https:`);
      request = send(target, { method: "GET", headers: sent, signal, ...(ca && target.protocol === "https:" ? { ca: [...ca] } : {}) });
    } catch (error) {
      reject(new RequestNotMade((error as Error).message, { cause: error }));
      return;
    }
    request.on("error", reject);
    request.on("response", (response: IncomingMessage) => {
      // An abort after the headers (our timeouts) ends the body's reads too, with the same error.
      const abort = () => response.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal.addEventListener("abort", abort, { once: true });
      response.once("close", () => signal.removeEventListener("abort", abort));
      resolve({
        status: response.statusCode ?? 0,
        header: (name) => {
          const value = response.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
        },
        body: response,
        discard: () => {
          response.destroy();
          request.destroy();
        },
      });
    });
    request.end();
  });
}

/**
 * Did the request fail on the way (a socket, DNS or TLS error, worth another
 * try), rather than never being made (a malformed URL or header, which no
 * retry mends)?
 */
export function failedInTransit(error: unknown): boolean {
  return !(error instanceof RequestNotMade);
}

/** A request's deadline: `signal` aborts after `ms`; `expired` says whether that is why it ended. */
export interface Deadline {
  signal: AbortSignal;
  readonly expired: boolean;
  clear(): void;
}

export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear: () => clearTimeout(timer),
  };
}

/** TLS failures that mean the chain ends at a root this Node does not trust (not an expired or misnamed certificate). */
const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
]);

export function isCertificateError(error: unknown): boolean {
  return UNTRUSTED.has(errnoCode(error) ?? "");
}

/** The host a certificate sentence names: the URL's host and port, or the text as given when it is no URL. */
function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The one sentence for an untrusted certificate: the host, and the three ways to trust its authority. */
export function untrustedCertificate(url: string): string {
  return `the certificate of ${urlHost(url)} is signed by an authority this machine's Node does not trust; if your network inspects TLS, add its root certificate to the system store, or set NODE_EXTRA_CA_CERTS to it, or cafile= in your .npmrc for the registry`;
}

/**
 * The one sentence for a proxy that wants a user name and password (HTTP 407,
 * or a CONNECT tunnel it refused with 407): which proxy (its credentials
 * masked), and where they go. Never retried: asking again changes nothing.
 */
export function proxyAuthRequired(url: string, env: Env): string {
  const proxy = proxyFor(url, env);
  const variable = url.startsWith("https:") ? "HTTPS_PROXY" : "HTTP_PROXY";
  if (!proxy) return `a proxy on the way to ${redactUrl(url)} asks for a user name and password (HTTP 407); name it with its credentials in ${variable}`;
  const shown = redactUrl(proxy);
  return urlHasCredentials(proxy)
    ? `the proxy ${shown} refused the user name and password in ${variable} (HTTP 407); correct them there`
    : `the proxy ${shown} asks for a user name and password (HTTP 407); put them in ${variable} as user:password@ before the proxy's host`;
}

/** A CONNECT tunnel the proxy refused with 407 (Node's proxy support reports it as ERR_PROXY_TUNNEL). */
export function isProxyAuthError(error: unknown): boolean {
  return errnoCode(error) === "ERR_PROXY_TUNNEL" && /\b407\b/.test((error as Error).message ?? "");
}

/** The one sentence for a registry certificate that the authorities of the user's npm settings (ca, cafile) do not vouch for. */
export function untrustedByNpmSettings(url: string): string {
  return `the certificate of ${urlHost(url)} is not signed by the authority that ca= or cafile= in your npm settings names, which is the only one trusted for the registry (as npm does); put your network's root certificate in that file, or remove the setting`;
}

/**
 * Adds the system's certificate store to Node's roots, once for `trust`'s client; true when it is among them now
 * (added by this call or an earlier one). Node's roots are the process's: a second client adding them again adds
 * nothing new.
 */
function trustSystemStore(trust: SystemStoreTrust): boolean {
  if (trust.systemStore !== "unasked") return trust.systemStore === "added";
  trust.systemStore = "none";
  const t = tls as typeof tls & { getCACertificates?: (kind: string) => string[]; setDefaultCACertificates?: (certs: string[]) => void };
  if (!t.getCACertificates || !t.setDefaultCACertificates) return false;
  try {
    const system = t.getCACertificates("system");
    if (system.length === 0) return false;
    t.setDefaultCACertificates([...t.getCACertificates("default"), ...system]);
    trust.systemStore = "added";
    return true;
  } catch {
    return false;
  }
}
