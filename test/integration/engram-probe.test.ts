/**
 * Engram startup safety, the probe (spec: "Engram startup safety"), through
 * engramLaunchEnvironment: what a server already listening gets (reuse, or
 * memory disabled with the listener left running), the launches that never
 * probe, and the probe on our Node 24.21.0 going straight to the loopback
 * socket with the environment's proxy switched on. Real loopback servers for
 * every row of the decision table; machines from support/engram-machine.ts.
 * Starting the core when nothing listens: engram-start.test.ts.
 */
import { classifyLaunch } from "../../src/core/pi-launch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { join } from "pathe";
import { migrationMarkerPath, engramLaunchEnvironment } from "../../src/installed/engram/launch";
import { loopbackGet } from "../../src/installed/engram/probe";
import { fixtures } from "../support/context";
import { machine, serve, work } from "../support/engram-machine";
import { homeEnv } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { bundleChild } from "../support/child-bundle";

const GENERIC = /could not verify safe reuse/;

describe("a server already listening", () => {
  it("a ready server is reused unchanged: guard + its URL, policy allowed, no start, no credentials sent", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_HTTP_TOKEN: "tok-123", GH_TOKEN: "gh" }, "final", { endpoint: m.endpoint });
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_URL: `http://127.0.0.1:${s.port}`,
      ENGRAM_STARTUP_POLICY: "allowed",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(r.unset).toEqual([]);
    expect(r.notice).toBeUndefined();
    expect(r.decision.row).toBe("reuse");
    expect(s.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /compatibility"]);
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
    expect(s.requests[0]!.headers.cookie).toBeUndefined();
    expect(await m.starts()).toEqual([]);
  });

  for (const variant of ["unauthorized", "not-found", "malformed", "not-ready", "slow"] as const) {
    it(`${variant}: memory disabled behind the guard, the listener left running, no start`, async () => {
      const s = await serve(variant);
      const m = await machine({ port: s.port });
      const r = await engramLaunchEnvironment(m.layout, m.env, classifyLaunch(["-p", "hi"], {}).kind, { endpoint: m.endpoint });
      expect(r.set).toEqual({
        ENGRAM_BIN: m.layout.guard,
        ENGRAM_STARTUP_POLICY: "disabled",
        ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
      });
      expect(r.decision.memory).toBe("disabled");
      expect(r.notice).toMatch(GENERIC);
      expect(await m.starts()).toEqual([]);
      expect(s.requests.every((q) => q.method === "GET" && q.headers.authorization === undefined)).toBe(true);
      if (variant === "slow") expect(s.requests.map((q) => q.path)).toEqual(["/compatibility"]);
      // Still listening: never stopped or replaced.
      const again = await loopbackGet(m.endpoint, "/health", 5000);
      expect(again.kind).toBe("answer");
    });
  }

  it("an older Engram (3.3.2, no /compatibility) is named, with the way to update it", async () => {
    const s = await serve("old");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.decision.memory).toBe("disabled");
    expect(r.notice).toMatch(/reports version 3\.3\.2/);
    expect(r.notice).toMatch(/Back up/);
    expect(r.notice).toMatch(/3\.4\.0 or later with its own installation method, and restart it/);
    expect(s.requests.map((q) => q.path)).toEqual(["/compatibility", "/health"]);
  });

  it("a non-canonical /health version is never shown", async () => {
    const s = await serve("old", { version: "3.3.02-evil" });
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.notice).toMatch(GENERIC);
    expect(r.notice).not.toContain("3.3.02");
  });

  it("a redirect to a ready server is not followed", async () => {
    const target = await serve("ready");
    const redirect = createHttpServer((_req, res) => {
      res.writeHead(307, { location: `${target.url}/compatibility`, "content-length": 0 });
      res.end();
    });
    await new Promise<void>((r) => redirect.listen(0, "127.0.0.1", () => r()));
    try {
      const m = await machine({ port: (redirect.address() as { port: number }).port });
      const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
      expect(r.decision.memory).toBe("disabled");
      expect(target.requests).toEqual([]);
    } finally {
      redirect.closeAllConnections();
      await new Promise((r) => redirect.close(r));
    }
  });
});

describe("no probe at all", () => {
  for (const [name, args] of [
    ["--version", ["--version"]],
    ["-v", ["-v"]],
    ["--help", ["--help"]],
    ["-h after an option", ["--continue", "-h"]],
  ] as const) {
    it(`a Pi ${name} launch neither probes, starts nor prints`, async () => {
      const s = await serve("ready");
      const m = await machine({ port: s.port });
      const r = await engramLaunchEnvironment(m.layout, m.env, classifyLaunch([...args], {}).kind, { endpoint: m.endpoint });
      expect(s.requests).toEqual([]);
      expect(r.notice).toBeUndefined();
      expect(r.set).toEqual({
        ENGRAM_BIN: m.layout.guard,
        ENGRAM_STARTUP_POLICY: "disabled",
        ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
      });
    });
  }

  it("phase none (gentle-shell --version) neither probes nor starts", async () => {
    const m = await machine();
    const r = await engramLaunchEnvironment(m.layout, m.env, "skip", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("skipped");
    expect(await m.starts()).toEqual([]);
  });

  it("-v inside a prompt or as an option's value is not a version flag: the launch probes", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, classifyLaunch(["--model", "-v", "what does -v do"], {}).kind, { endpoint: m.endpoint });
    expect(s.requests.length).toBe(1);
    expect(r.decision.memory).toBe("allowed");
  });

  it("explicit selections are never probed or started; ENGRAM_BIN/ENGRAM_URL are kept", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const port = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_PORT: String(s.port) }, "final", { endpoint: m.endpoint });
    expect(port.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: port.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(port.notice).toMatch(/ENGRAM_PORT/);
    const urlOnly = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_URL: s.url }, "final", { endpoint: m.endpoint });
    expect(urlOnly.set).toEqual({
      ENGRAM_BIN: m.layout.engram,
      ENGRAM_URL: s.url,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: urlOnly.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    const both = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_BIN: "/opt/engram", ENGRAM_URL: "http://10.1.2.3:1" }, "final", {
      endpoint: m.endpoint,
    });
    expect(both.set).toEqual({
      ENGRAM_BIN: "/opt/engram",
      ENGRAM_URL: "http://10.1.2.3:1",
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: both.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    const policy = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_STARTUP_POLICY: "on" }, "final", { endpoint: m.endpoint });
    expect(policy.set.ENGRAM_STARTUP_POLICY).toBe("disabled");
    expect(s.requests).toEqual([]);
    expect(await m.starts()).toEqual([]);
  });

  it("an interrupted migration's marker blocks memory before any probe", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    await fs.mkdir(m.layout.config, { recursive: true });
    await fs.writeFile(migrationMarkerPath(m.layout), "{}");
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("migration-marker");
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(s.requests).toEqual([]);
  });

  it("the guard and URL an outer Shell gave its Pi are decided again (and the URL removed when memory is off)", async () => {
    const s = await serve("unauthorized");
    const m = await machine({ port: s.port });
    const env = { ...m.env, ENGRAM_BIN: m.layout.guard, ENGRAM_URL: s.url, ENGRAM_STARTUP_POLICY: "allowed" };
    const r = await engramLaunchEnvironment(m.layout, env, "final", { endpoint: m.endpoint });
    expect(s.requests.length).toBeGreaterThan(0);
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(r.unset).toEqual(["ENGRAM_URL"]);
  });
});

describe("the probe on our Node 24.21.0 with the environment's proxy switched on", () => {
  const f = fixtures();
  let proxy: Server;
  let proxied: string[];
  let bundle: string;

  beforeAll(async () => {
    proxied = [];
    proxy = createHttpServer((req, res) => {
      proxied.push(`${req.method} ${req.url}`);
      const target = new URL(req.url!);
      const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: req.method }, (u) => {
        res.writeHead(u.statusCode ?? 502, u.headers);
        u.pipe(res);
      });
      up.on("error", () => res.destroy());
      up.end();
    });
    proxy.on("connect", (req, socket, head) => {
      proxied.push(`CONNECT ${req.url}`);
      const [host, port] = req.url!.split(":");
      const up = connect(Number(port), host!, () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        up.write(head);
        up.pipe(socket);
        socket.pipe(up);
      });
      up.on("error", () => socket.destroy());
      socket.on("error", () => up.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
    bundle = join(work, "probe-child.cjs");
    await bundleChild(
      `import { probeCompatibility } from "../../src/installed/engram/probe";
const port = Number(process.argv[2]);
probeCompatibility({ host: "127.0.0.1", port }).then((r) => console.log(JSON.stringify(r)));
fetch("http://127.0.0.1:" + port + "/compatibility").then((r) => console.log("fetch " + r.status), () => console.log("fetch failed"));`,
      bundle,
      "probe-child.ts",
    );
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
  });

  it("goes straight to the loopback socket while fetch goes through HTTP_PROXY", async () => {
    const s = await serve("ready");
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const r = await runCommand(f.node, [bundle, String(s.port)], {
      env: { ...homeEnv(work), NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: "", no_proxy: "" },
    });
    expect(r.stdout).toContain(JSON.stringify({ kind: "ready" }));
    // The control: the same request through fetch is carried by the proxy, so the proxy setting is live.
    expect(r.stdout).toContain("fetch 200");
    expect(proxied.length).toBe(1);
    expect([`GET http://127.0.0.1:${s.port}/compatibility`, `CONNECT 127.0.0.1:${s.port}`]).toContain(proxied[0]);
    expect(s.requests.length).toBe(2);
  });
});
