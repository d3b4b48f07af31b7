/**
 * The Host's one HTTP client (src/io/http-client.ts, issue 40): built once per
 * Host, its User-Agent by role, its redirect policy, the npm authorities for
 * the registry's URLs only, and its idle connections closed on demand.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readFileSync } from "node:fs";
import * as http from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { httpClient, underRegistry } from "../../src/io/http-client";
import { processHost } from "../../src/io/host";
import { RELEASE_REDIRECT_HOSTS, SHELL_RELEASES } from "../../src/core/source";
import { streamHost, testHost } from "../support/host";
import { makeTestCa } from "../support/test-ca";
import { requires } from "../support/capabilities";

/** A loopback HTTP server: what each request's User-Agent was, the sockets it holds, and a redirect at /away. */
const agents: string[] = [];
const open = new Set<Socket>();
const server = http.createServer((req, res) => {
  agents.push(req.headers["user-agent"] ?? "");
  if (req.url === "/away") return void res.writeHead(302, { location: "https://elsewhere.test/x" }).end();
  res.writeHead(200, { "content-length": 2 }).end("ok");
});
server.on("connection", (socket) => {
  open.add(socket);
  socket.on("close", () => open.delete(socket));
});
let base: string;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const small = { name: "the answer", maxBytes: 1024, attempts: 1 };

describe("the Host's HTTP client", () => {
  it("is built once: the same client on every read and in every mode of a Host", () => {
    const { host } = streamHost();
    expect(host.http).toBe(host.http);
    expect(host.withMode({ quiet: true }).http).toBe(host.http);
    expect(host.withMode({ json: true }).http).toBe(host.http);
    const test = testHost();
    expect(test.withMode({ quiet: true }).http).toBe(test.http);
    // Another Host is another process: a client of its own.
    expect(streamHost().host.http).not.toBe(host.http);
  });

  it("names the installer or the launcher's engine, as the Host's entry decided, on every request", async () => {
    const installer = processHost(undefined, undefined, "installer").http;
    const engine = processHost(undefined, undefined, "engine").http;
    expect(installer.userAgent).toMatch(/^gentle-shell-setup\/\S+ node\/\d+\.\d+\.\d+ (linux|darwin|win)-(x64|arm64)$/);
    expect(engine.userAgent).toMatch(/^gentle-shell\/\S+ node\/\d+\.\d+\.\d+ (linux|darwin|win)-(x64|arm64)$/);
    agents.length = 0;
    expect(await installer.fetchText(`${base}/a`, small)).toBe("ok");
    expect(await engine.fetchText(`${base}/b`, small)).toBe("ok");
    expect(agents).toEqual([installer.userAgent, engine.userAgent]);
  });

  it("follows a redirect only to a host its policy allows: the official release assets to GitHub's asset hosts, nothing else", async () => {
    const client = httpClient({ role: "installer", target: "linux-x64", env: {} });
    expect(client.redirectHostsFor(`${SHELL_RELEASES}/v1.0.0/gentle-shell-release.json`)).toEqual(RELEASE_REDIRECT_HOSTS);
    expect(client.redirectHostsFor(`${base}/away`)).toEqual([]);
    await expect(client.fetchText(`${base}/away`, small)).rejects.toThrow(/redirected the answer to elsewhere\.test, which is not allowed/);
    // Its policy is the client's: one that lists another host refuses this one all the same.
    const listing = httpClient({ role: "installer", target: "linux-x64", env: {}, redirectHosts: () => ["objects.githubusercontent.com"] });
    await expect(listing.fetchText(`${base}/away`, small)).rejects.toThrow(/redirected the answer to elsewhere\.test, which is not allowed/);
  });

  it("refuses every request when offline, before any socket opens", async () => {
    const client = httpClient({ role: "engine", target: "linux-x64", env: {}, offline: true });
    const before = agents.length;
    await expect(client.fetchText(`${base}/a`, small)).rejects.toThrow(/could not be made \(offline: no request is made\)/);
    expect(agents).toHaveLength(before);
  });

  it("closes the idle keep-alive connections of its requests, and touches nothing when it made none", async () => {
    const destroy = vi.spyOn(http.globalAgent, "destroy");
    try {
      httpClient({ role: "installer", target: "linux-x64", env: {} }).closeIdleConnections();
      expect(destroy).not.toHaveBeenCalled();
      const client = httpClient({ role: "installer", target: "linux-x64", env: {} });
      expect(await client.fetchText(`${base}/idle`, small)).toBe("ok");
      // The body was read to its end: the socket waits in the agent for the next request.
      await vi.waitFor(() => expect(open.size).toBeGreaterThan(0));
      client.closeIdleConnections();
      expect(destroy).toHaveBeenCalled();
      await vi.waitFor(() => expect(open.size).toBe(0));
    } finally {
      destroy.mockRestore();
    }
  });
});

describe("the npm authorities, for the registry's URLs only", () => {
  it("counts as the registry's what is under its URL: the same scheme, host and port, at or below its path", () => {
    const registry = "https://repo.corp.test:8443/api/npm/";
    expect(underRegistry("https://repo.corp.test:8443/api/npm/pnpm/-/pnpm-11.1.1.tgz", registry)).toBe(true);
    expect(underRegistry("https://user:pw@repo.corp.test:8443/api/npm/@scope%2fname", registry)).toBe(true);
    expect(underRegistry("https://repo.corp.test:8443/api/npm", registry)).toBe(true);
    expect(underRegistry("https://repo.corp.test:8443/api/npmother/x", registry)).toBe(false);
    expect(underRegistry("https://repo.corp.test:8443/api/", registry)).toBe(false);
    expect(underRegistry("http://repo.corp.test:8443/api/npm/x", registry)).toBe(false);
    expect(underRegistry("https://repo.corp.test/api/npm/x", registry)).toBe(false);
    expect(underRegistry("https://github.com/x", "")).toBe(false);
  });

  it("trusts the registry's authority for its URLs, and Node's roots alone elsewhere on the same server", async (ctx) => {
    requires(ctx, "openssl");
    const ca = makeTestCa();
    const tls = createHttpsServer({ key: ca.key, cert: ca.cert }, (_req, res) => res.writeHead(200, { "content-length": 2 }).end("ok"));
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", () => r()));
    const origin = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    try {
      const client = httpClient({ role: "installer", target: "linux-x64", env: {} });
      const pem = [readFileSync(ca.caFile, "utf8")];
      client.trustRegistry(`${origin}/npm/`, pem);
      expect(client.authoritiesFor(`${origin}/npm/gentle-pi`)).toEqual(pem);
      expect(client.authoritiesFor(`${origin}/other`)).toBeUndefined();
      expect(await client.fetchText(`${origin}/npm/gentle-pi`, small)).toBe("ok");
      await expect(client.fetchText(`${origin}/other`, small)).rejects.toThrow(/is signed by an authority this machine's Node does not trust/);
      // A client that never learned the registry trusts Node's roots alone there too.
      await expect(httpClient({ role: "installer", target: "linux-x64", env: {} }).fetchText(`${origin}/npm/gentle-pi`, small)).rejects.toThrow(
        /is signed by an authority this machine's Node does not trust/,
      );
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
    }
  });
});
