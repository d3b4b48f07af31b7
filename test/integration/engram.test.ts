/**
 * Engram startup safety through engramLaunchEnvironment (spec: "Engram
 * startup safety"): real loopback servers for every row of the decision
 * table, a real database header on disk, and the fixture `engram` started
 * detached as the bundled core. The endpoint is a free port, never 7437:
 * the fixture core is wrapped so that its `serve` listens there (Shell itself
 * strips every ENGRAM_* setting from the server's environment).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { engramLaunchEnvironment, migrationMarkerPath } from "../../src/engine/engram/launch";
import { loopbackGet, readEngramHeader, type Endpoint } from "../../src/engine/engram/probe";
import { engramProgramIn, startEngramServer, type EngramServer, type EngramVariant } from "../support/engram";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { freePort, runCommand } from "../support/proc";
import { bundleChild } from "../support/child-bundle";

let work: string;
let fixtureEngram: string;
/** Servers and processes this file started, stopped after each test. */
const servers: EngramServer[] = [];
const pids = new Set<number>();
/** Each machine's log of the pids its wrapped core ran as (exec keeps the pid). */
const pidLogs: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "gss-engram-"));
  fixtureEngram = await engramProgramIn(join(work, "fixture-engram"));
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const file of pidLogs.splice(0)) {
    for (const line of (await fs.readFile(file, "utf8").catch(() => "")).split("\n")) if (line) pids.add(Number(line));
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  pids.clear();
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

interface Machine {
  home: string;
  layout: Layout;
  endpoint: Endpoint;
  env: Record<string, string | undefined>;
  /** Lines the wrapped core wrote each time it was run. */
  starts(): Promise<string[]>;
}

/** A HOME with a bundled install's layout; `core` publishes the wrapped fixture core. */
async function machine(options: { core?: "verified" | "no-marker" | "missing" | "fails"; port?: number } = {}): Promise<Machine> {
  const home = await fs.mkdtemp(join(work, "home-"));
  const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  const port = options.port ?? (await freePort());
  const log = join(home, "core-starts.log");
  const pidLog = join(home, "core-pids.log");
  pidLogs.push(pidLog);
  const core = options.core ?? "verified";
  if (core !== "missing") {
    await fs.mkdir(layout.engramDir, { recursive: true });
    if (core !== "no-marker") await fs.writeFile(join(layout.engramDir, RUNTIME_MARKER), "engram 3.5.2 sha256 fixture\n");
    const body =
      core === "fails"
        ? `echo "$* cwd=$PWD" >> '${log}'\nexit 1\n`
        : `echo "$$" >> '${pidLog}'\necho "$* cwd=$PWD" >> '${log}'\nENGRAM_PORT=${port} exec '${fixtureEngram}' "$@"\n`;
    await fs.writeFile(layout.engram, `#!/bin/sh\n${body}`, { mode: 0o755 });
  }
  return {
    home,
    layout,
    endpoint: { host: "127.0.0.1", port },
    env: homeEnv(home),
    starts: async () => ((await fs.readFile(log, "utf8").catch(() => "")) || "").split("\n").filter(Boolean),
  };
}

async function serve(variant: EngramVariant, extra: Parameters<typeof startEngramServer>[0] = {}): Promise<EngramServer> {
  const s = await startEngramServer({ variant, ...extra });
  servers.push(s);
  return s;
}

/** An SQLite header with this user_version, written as ~/.engram/engram.db (or at `file`). */
async function writeStore(home: string, userVersion: number, file = join(home, ".engram", "engram.db")): Promise<void> {
  const b = Buffer.alloc(4096);
  b.write("SQLite format 3\0", 0, "latin1");
  b.writeUInt16BE(4096, 16);
  b[18] = 1;
  b[19] = 1;
  b.writeInt32BE(userVersion, 60);
  await fs.mkdir(join(file, ".."), { recursive: true });
  await fs.writeFile(file, b);
}

/** What the fixture server Shell started reports about itself (and remember its pid to stop it). */
async function fixtureReport(endpoint: Endpoint): Promise<{ pid: number; argv: string[]; cwd: string; env: Record<string, string> }> {
  const answer = await loopbackGet(endpoint, "/__fixture", 5000);
  if (answer.kind !== "answer") throw new Error(`no fixture server on ${endpoint.port}: ${JSON.stringify(answer)}`);
  const report = JSON.parse(answer.body);
  pids.add(report.pid);
  return report;
}

const GENERIC = /could not verify safe reuse/;

describe("a server already listening", () => {
  it("a ready server is reused unchanged: guard + its URL, policy allowed, no start, no credentials sent", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(
      m.layout,
      { ...m.env, ENGRAM_HTTP_TOKEN: "tok-123", GH_TOKEN: "gh" },
      { phase: "pre-pi", args: [], endpoint: m.endpoint },
    );
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_URL: `http://127.0.0.1:${s.port}`, ENGRAM_STARTUP_POLICY: "allowed" });
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
      const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: ["-p", "hi"], endpoint: m.endpoint });
      expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
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
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.memory).toBe("disabled");
    expect(r.notice).toMatch(/reports version 3\.3\.2/);
    expect(r.notice).toMatch(/Back up/);
    expect(r.notice).toMatch(/3\.4\.0 or later with its own installation method, and restart it/);
    expect(s.requests.map((q) => q.path)).toEqual(["/compatibility", "/health"]);
  });

  it("a non-canonical /health version is never shown", async () => {
    const s = await serve("old", { version: "3.3.02-evil" });
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
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
      const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
      expect(r.decision.memory).toBe("disabled");
      expect(target.requests).toEqual([]);
    } finally {
      redirect.closeAllConnections();
      await new Promise((r) => redirect.close(r));
    }
  });
});

describe("nothing listening", () => {
  it("starts the verified core as plain `engram serve`, detached, in home, with the cleaned environment; memory allowed once ready", async () => {
    const m = await machine();
    await writeStore(m.home, 1);
    const env = {
      ...m.env,
      ENGRAM_HTTP_TOKEN: "tok-123",
      ENGRAM_LOG: "debug",
      GH_TOKEN: "gh-1",
      GITHUB_TOKEN: "gh-2",
      TMPDIR: join(work, "gpAb12Cd"),
      KEEP_ME: "yes",
    };
    const r = await engramLaunchEnvironment(m.layout, env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.row).toBe("started");
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_URL: `http://127.0.0.1:${m.endpoint.port}`, ENGRAM_STARTUP_POLICY: "allowed" });
    expect(r.notice).toBeUndefined();
    const report = await fixtureReport(m.endpoint);
    expect(report.argv).toEqual(["serve"]);
    expect(report.cwd).toBe(m.home);
    expect(await m.starts()).toEqual([`serve cwd=${m.home}`]);
    const engramKeys = Object.keys(report.env)
      .filter((k) => k.startsWith("ENGRAM_"))
      .sort();
    // ENGRAM_PORT comes from the test's wrapper, not from Shell.
    expect(engramKeys).toEqual(["ENGRAM_NO_UPDATE_CHECK", "ENGRAM_PORT"]);
    expect(report.env.ENGRAM_NO_UPDATE_CHECK).toBe("1");
    expect(report.env.GH_TOKEN).toBeUndefined();
    expect(report.env.GITHUB_TOKEN).toBeUndefined();
    expect(report.env.TMPDIR).toBeUndefined();
    expect(report.env.KEEP_ME).toBe("yes");
    expect(report.env.HOME).toBe(m.home);
    // Its own process group: it outlives the launch like a server other agents' hooks start.
    const pgid = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(report.pid)], { encoding: "utf8" }).trim());
    const ours = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).trim());
    expect(pgid).toBe(report.pid);
    expect(pgid).not.toBe(ours);
  });

  it("concurrent launches converge on one server", async () => {
    const m = await machine();
    const [a, b] = await Promise.all([
      engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint }),
      engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint }),
    ]);
    await fixtureReport(m.endpoint);
    expect(a.decision.memory).toBe("allowed");
    expect(b.decision.memory).toBe("allowed");
    expect(a.set.ENGRAM_URL).toBe(`http://127.0.0.1:${m.endpoint.port}`);
    expect(b.set.ENGRAM_URL).toBe(`http://127.0.0.1:${m.endpoint.port}`);
    expect((await m.starts()).length).toBeGreaterThanOrEqual(1);
  });

  it("a core that exits without answering: memory disabled for this launch with a notice", async () => {
    const m = await machine({ core: "fails" });
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.row).toBe("start-failed");
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
    expect(r.notice).toMatch(/exited \(code 1\) before answering ready/);
    expect(await m.starts()).toEqual([`serve cwd=${m.home}`]);
  });

  it("a store migrated by a newer Engram: disabled, nothing started", async () => {
    const m = await machine();
    await writeStore(m.home, 2);
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.row).toBe("newer-store");
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
    expect(r.notice).toMatch(/newer Engram/);
    expect(await m.starts()).toEqual([]);
  });

  it("a linked engram.db or a linked ~/.engram is never read: no signal, the server is started", async () => {
    const m = await machine();
    await writeStore(m.home, 7, join(m.home, "elsewhere", "engram.db"));
    await fs.mkdir(join(m.home, ".engram"));
    await fs.symlink(join(m.home, "elsewhere", "engram.db"), join(m.home, ".engram", "engram.db"));
    expect(await readEngramHeader(m.home)).toBeNull();
    const other = await machine();
    await fs.symlink(join(m.home, "elsewhere"), join(other.home, ".engram"));
    expect(await readEngramHeader(other.home)).toBeNull();
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    await fixtureReport(m.endpoint);
    expect(r.decision.row).toBe("started");
  });

  it("reads exactly the header of a regular engram.db", async () => {
    const m = await machine();
    await writeStore(m.home, 3);
    const header = await readEngramHeader(m.home);
    expect(header?.length).toBe(100);
    expect(header?.readInt32BE(60)).toBe(3);
  });

  for (const core of ["missing", "no-marker"] as const) {
    it(`the bundled core ${core}: disabled behind the guard, never an engram from PATH`, async () => {
      const m = await machine({ core });
      const bin = join(m.home, "path-bin");
      await fs.mkdir(bin);
      const used = join(m.home, "path-engram-used");
      await fs.writeFile(join(bin, "engram"), `#!/bin/sh\ntouch '${used}'\n`, { mode: 0o755 });
      const env = { ...m.env, PATH: `${bin}:${m.env.PATH}` };
      const r = await engramLaunchEnvironment(m.layout, env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
      expect(r.decision.row).toBe("core-missing");
      expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
      expect(r.notice).toMatch(/gentle-shell setup/);
      expect(existsSync(used)).toBe(false);
      expect(await m.starts()).toEqual([]);
    });
  }

  it("a linked core is not verified", async () => {
    const m = await machine({ core: "missing" });
    await fs.mkdir(m.layout.engramDir, { recursive: true });
    await fs.writeFile(join(m.layout.engramDir, RUNTIME_MARKER), "x");
    await fs.symlink(fixtureEngram, m.layout.engram);
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.row).toBe("core-missing");
  });

  it("setup and Pi subcommands classify but never start a server", async () => {
    const m = await machine();
    const setup = await engramLaunchEnvironment(m.layout, m.env, { phase: "setup", endpoint: m.endpoint });
    const list = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: ["list"], endpoint: m.endpoint });
    for (const r of [setup, list]) {
      expect(r.decision.row).toBe("start-not-allowed");
      expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
      expect(r.notice).toBeUndefined();
    }
    expect(await m.starts()).toEqual([]);
  });

  it("setup reuses a ready server for its children", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "setup", endpoint: m.endpoint });
    expect(r.set.ENGRAM_URL).toBe(s.url);
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
      const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [...args], endpoint: m.endpoint });
      expect(s.requests).toEqual([]);
      expect(r.notice).toBeUndefined();
      expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
    });
  }

  it("phase none (gentle-shell --version) neither probes nor starts", async () => {
    const m = await machine();
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "none", endpoint: m.endpoint });
    expect(r.decision.row).toBe("skipped");
    expect(await m.starts()).toEqual([]);
  });

  it("-v inside a prompt or as an option's value is not a version flag: the launch probes", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: ["--model", "-v", "what does -v do"], endpoint: m.endpoint });
    expect(s.requests.length).toBe(1);
    expect(r.decision.memory).toBe("allowed");
  });

  it("explicit selections are never probed or started; ENGRAM_BIN/ENGRAM_URL are kept", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const port = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_PORT: String(s.port) }, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(port.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
    expect(port.notice).toMatch(/ENGRAM_PORT/);
    const urlOnly = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_URL: s.url }, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(urlOnly.set).toEqual({ ENGRAM_BIN: m.layout.engram, ENGRAM_URL: s.url, ENGRAM_STARTUP_POLICY: "disabled" });
    const both = await engramLaunchEnvironment(
      m.layout,
      { ...m.env, ENGRAM_BIN: "/opt/engram", ENGRAM_URL: "http://10.1.2.3:1" },
      { phase: "pre-pi", args: [], endpoint: m.endpoint },
    );
    expect(both.set).toEqual({ ENGRAM_BIN: "/opt/engram", ENGRAM_URL: "http://10.1.2.3:1", ENGRAM_STARTUP_POLICY: "disabled" });
    const policy = await engramLaunchEnvironment(m.layout, { ...m.env, ENGRAM_STARTUP_POLICY: "on" }, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(policy.set.ENGRAM_STARTUP_POLICY).toBe("disabled");
    expect(s.requests).toEqual([]);
    expect(await m.starts()).toEqual([]);
  });

  it("an interrupted migration's marker blocks memory before any probe", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    await fs.mkdir(m.layout.config, { recursive: true });
    await fs.writeFile(migrationMarkerPath(m.layout), "{}");
    const r = await engramLaunchEnvironment(m.layout, m.env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(r.decision.row).toBe("migration-marker");
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
    expect(s.requests).toEqual([]);
  });

  it("the guard and URL an outer Shell gave its Pi are decided again (and the URL removed when memory is off)", async () => {
    const s = await serve("unauthorized");
    const m = await machine({ port: s.port });
    const env = { ...m.env, ENGRAM_BIN: m.layout.guard, ENGRAM_URL: s.url, ENGRAM_STARTUP_POLICY: "allowed" };
    const r = await engramLaunchEnvironment(m.layout, env, { phase: "pre-pi", args: [], endpoint: m.endpoint });
    expect(s.requests.length).toBeGreaterThan(0);
    expect(r.set).toEqual({ ENGRAM_BIN: m.layout.guard, ENGRAM_STARTUP_POLICY: "disabled" });
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
      `import { probeCompatibility } from "../../src/engine/engram/probe";
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
      timeoutMs: 30_000,
    });
    expect(r.stdout).toContain(JSON.stringify({ kind: "ready" }));
    // The control: the same request through fetch is carried by the proxy, so the proxy setting is live.
    expect(r.stdout).toContain("fetch 200");
    expect(proxied.length).toBe(1);
    expect([`GET http://127.0.0.1:${s.port}/compatibility`, `CONNECT 127.0.0.1:${s.port}`]).toContain(proxied[0]);
    expect(s.requests.length).toBe(2);
  });
});
