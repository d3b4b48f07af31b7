/**
 * The one HTTP client of a Host (src/io/host.ts `host.http`), as uv's
 * BaseClient is: built once per process, it carries
 *
 * - who asks: the User-Agent of the installer (gentle-shell-setup) or of the
 *   launcher's engine (gentle-shell), as the Host's entry decided, with our
 *   version, Node's and the target;
 * - the trust decision: Node's roots; once a server's certificate is one they
 *   do not vouch for, the system's store added (at most once for this client);
 *   and, for the registry's URLs, the authorities the user's npm settings name
 *   (ca, cafile) in place of Node's roots, as npm uses them;
 * - the redirect policy: the hosts a request may be sent on to (by default
 *   GitHub's asset hosts for the official release assets, ../core/source.ts
 *   releaseRedirectHosts), only over https;
 * - offline: a client that makes no request (each is refused before a socket
 *   opens, as a request never made);
 * - the idle keep-alive connections of its requests, closed before Pi takes
 *   the process over (../engine/pi-handover.ts).
 *
 * The registry's URLs: those under a registry URL the run learned from the npm
 * settings (trustRegistry: the default registry, and a scope's own registry),
 * the same scheme, host and port, and a path at or below the registry's path.
 * npm sends its ca and cafile with every registry request; every URL we fetch
 * from a registry (package documents, tarballs, pnpm's own) is under it. A
 * registry becomes known while the run goes (read from the npm settings, or
 * asked of our npm), so the client learns it then and keeps it.
 *
 * Nothing is loaded for the client itself: node:http, node:https and the
 * transport load at its first request, so a launch that makes none loads none.
 */
import type { Env } from "../core/environment";
import { SETUP_VERSION } from "../core/installer-version";
import type { Target } from "../pins/types";
import { releaseRedirectHosts } from "../core/source";
import type { DownloadOptions, Expected } from "./download";
import type { TextFetchOptions } from "./bounded-fetch";
import type { SystemStoreTrust } from "./http-get";
import type { RequestFailure, Wire } from "./transport";

/** Which of our two programs asks: the single executable (the installer), or the launcher's engine. */
export type HttpRole = "installer" | "engine";

export interface HttpClientOptions {
  role: HttpRole;
  /** This machine's target (the Host's), named in the User-Agent. */
  target: Target;
  /** The environment whose proxy variables requests follow (Node's proxy support, ./env-proxy.ts): the Host's. */
  env: Env;
  /** The hosts a redirect from `url` may lead to; default: the official release assets' (releaseRedirectHosts). */
  redirectHosts?: (url: string) => readonly string[];
  /** No request is made: each is refused at once. */
  offline?: boolean;
}

export interface HttpClient extends Wire {
  readonly userAgent: string;
  readonly offline: boolean;
  /**
   * The registry at `registry` is trusted with `ca`, the authorities the user's npm settings name (undefined: none
   * named, Node's roots decide), for every URL under it from now on.
   */
  trustRegistry(registry: string, ca: readonly string[] | undefined): void;
  /** Whether `url` answers at all within `timeoutMs` (any HTTP response counts); no redirect, no retry. */
  answersAtAll(url: string, timeoutMs: number): Promise<{ answered: true } | RequestFailure | { failed: "timeout" }>;
  /** A small body's bytes, at most `maxBytes`, retried on transient failures (./bounded-fetch.ts). */
  fetchBytes(url: string, options: TextFetchOptions): Promise<Buffer>;
  fetchText(url: string, options: TextFetchOptions): Promise<string>;
  /** The body parsed as JSON; `notJson` is the sentence when it is not. */
  fetchJson(url: string, options: TextFetchOptions & { notJson: string }): Promise<unknown>;
  /** `url` into `dest`, verified against `expected` as it arrives (./download.ts). */
  download(url: string, dest: string, expected: Expected, options?: DownloadOptions): Promise<void>;
  /** Ends the idle keep-alive connections of this client's requests; nothing when it made none. */
  closeIdleConnections(): void;
}

/** Who is asking, on every request (as rustup and uv name themselves). Proxies and repository managers log it; GitHub's API requires one. */
export function userAgentFor(role: HttpRole, target: Target): string {
  return `${role === "engine" ? "gentle-shell" : "gentle-shell-setup"}/${SETUP_VERSION} node/${process.versions.node} ${target}`;
}

/** Whether `url` is under `registry`: the same scheme, host and port, and a path at or below the registry's. */
export function underRegistry(url: string, registry: string): boolean {
  try {
    const at = new URL(url);
    const base = new URL(registry);
    const path = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
    return at.protocol === base.protocol && at.host === base.host && (`${at.pathname}/` === path || at.pathname.startsWith(path));
  } catch {
    return false;
  }
}

export function httpClient(options: HttpClientOptions): HttpClient {
  const userAgent = userAgentFor(options.role, options.target);
  const offline = options.offline ?? false;
  const redirects = options.redirectHosts ?? releaseRedirectHosts;
  // This client's trust: its system-store decision and the registries it learned, with their authorities.
  const store: SystemStoreTrust = { systemStore: "unasked" };
  const registries = new Map<string, readonly string[]>();
  // ./http-get.ts once a request loaded it: its agents' idle connections are closed through it.
  let wire: typeof import("./http-get") | null = null;
  const client: HttpClient = {
    env: options.env,
    userAgent,
    offline,
    trustRegistry: (registry, ca) => {
      if (ca?.length) registries.set(registry, ca);
      else registries.delete(registry);
    },
    authoritiesFor: (url) => {
      for (const [registry, ca] of registries) if (underRegistry(url, registry)) return ca;
      return undefined;
    },
    redirectHostsFor: (url) => redirects(url),
    get: async (url, headers, signal) => {
      const http = await import("./http-get");
      if (offline) throw new http.RequestNotMade("offline: no request is made");
      wire = http;
      return http.identityGet(url, headers, signal, { userAgent, ca: client.authoritiesFor(url), store });
    },
    answersAtAll: async (url, timeoutMs) => (await import("./transport")).answersAtAll(client, url, timeoutMs),
    fetchBytes: async (url, fetch) => (await import("./bounded-fetch")).fetchBoundedBytes(client, url, fetch),
    fetchText: async (url, fetch) => (await import("./bounded-fetch")).fetchBoundedText(client, url, fetch),
    fetchJson: async (url, { notJson, ...fetch }) => {
      const text = await client.fetchText(url, fetch);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(notJson);
      }
    },
    download: async (url, dest, expected, download) => (await import("./download")).verifiedDownload(client, url, dest, expected, download),
    closeIdleConnections: () => wire?.closeGlobalAgents(),
  };
  return client;
}
