/**
 * Proxies the way curl users expect: each entry turns Node's proxy support
 * on at its start (src/io/env-proxy.ts, http.setGlobalProxyFromEnv), so the
 * global agents of node:http and node:https, which every download of ours
 * goes through (src/io/http-get.ts), honour HTTP_PROXY, HTTPS_PROXY and
 * NO_PROXY. These tests prove our download path really goes through them:
 * verifiedDownload, bundled like the release build (esbuild, CommonJS), runs
 * on our Node 24.21.0, with no Node option, after the entries' useEnvProxy,
 * against a small local proxy (absolute-form requests for http, CONNECT
 * tunnels for https); and the fixture binary itself sends its downloads
 * through HTTP_PROXY.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { scratchDir } from "../support/scratch";
import { homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { runCommand } from "../support/proc";
import { bundleChild } from "../support/child-bundle";
import { startProxy, stopProxy } from "../support/proxy";
import { piEnv } from "../support/pi-home";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { startHttpsFront } from "../support/https-front";
import { makeTestCa, onlyTrust } from "../support/test-ca";

const f = fixtures();
const PNPM_PATH = f.pins.pnpm.file.path;

const CHILD = `
import { httpClient } from "../../src/io/http-client";
import { useEnvProxy } from "../../src/io/env-proxy";
const refused = useEnvProxy();
if (refused) throw new Error(refused);
const args = JSON.parse(process.argv[2]);
const http = httpClient({ role: "installer", target: "linux-x64", env: process.env, redirectHosts: () => args.redirectHosts ?? [] });
http.download(args.url, args.dest, args.expected, { attempts: 1, timeoutMs: 30000, stallMs: 10000 }).then(
  () => { console.log("verified"); },
  (error) => { console.error(error.message); process.exitCode = 1; },
);
`;

let work: string;
let bundle: string;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let https: Server;
let httpsUrl: string;
let body: Buffer;
let expected: { name: string; sha256: string; size: number; maxBytes: number };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "gss-proxy-"));
  bundle = join(work, "child.cjs");
  await bundleChild(CHILD, bundle, "proxy-child.ts");
  body = await fs.readFile(join(f.mirrorRoot, PNPM_PATH));
  expected = { name: "pnpm 11.1.1", sha256: createHash("sha256").update(body).digest("hex"), size: body.length, maxBytes: 64 * 1024 * 1024 };
  proxy = await startProxy();
  // An HTTPS origin with a throwaway certificate, trusted by the child through NODE_EXTRA_CA_CERTS.
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      join(work, "key.pem"),
      "-out",
      join(work, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  https = createHttpsServer({ key: readFileSync(join(work, "key.pem")), cert: readFileSync(join(work, "cert.pem")) }, (req, res) => {
    // /redirect/<path> sends the client on to https://localhost:<this port>/<path>: another host name.
    if (req.url!.startsWith("/redirect/")) {
      res.writeHead(302, {
        location: `https://localhost:${(https.address() as { port: number }).port}/${req.url!.slice("/redirect/".length)}`,
        "content-length": 0,
      });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((r) => https.listen(0, "127.0.0.1", () => r()));
  httpsUrl = `https://127.0.0.1:${(https.address() as { port: number }).port}`;
});
afterAll(async () => {
  proxy?.server.closeAllConnections();
  await new Promise((r) => proxy?.server.close(r));
  https?.closeAllConnections();
  await new Promise((r) => https?.close(r));
  await fs.rm(work, { recursive: true, force: true });
});

/** The proxy carried a request for `url`: absolute-form for plain HTTP, or a tunnel. */
function carried(url: string): string[] {
  const u = new URL(url);
  return proxy.log.lines.filter((line) => line === `GET ${url}` || line === `CONNECT ${u.host}`);
}

async function download(url: string, env: NodeJS.ProcessEnv, redirectHosts: string[] = []) {
  const dest = join(work, `dest-${Math.random().toString(16).slice(2)}`);
  const r = await runCommand(f.node, [bundle, JSON.stringify({ url, dest, expected, redirectHosts })], {
    env: { ...homeEnv(work), NODE_EXTRA_CA_CERTS: join(work, "cert.pem"), ...env },
  });
  return { ...r, bytes: await fs.readFile(dest).catch(() => null) };
}

describe("downloads through proxies (node:http and node:https, Node's proxy support turned on by useEnvProxy)", () => {
  it("HTTP_PROXY: a plain-http source is fetched through the proxy, and verified", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    proxy.log.lines.length = 0;
    const r = await download(`${scope.url}/${PNPM_PATH}`, { HTTP_PROXY: proxy.url });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("verified");
    expect(r.bytes?.equals(body)).toBe(true);
    expect(proxy.log.lines).toHaveLength(1);
    expect(carried(`${scope.url}/${PNPM_PATH}`)).toHaveLength(1);
  });

  it("HTTPS_PROXY: an https source goes through a CONNECT tunnel, and verified", async () => {
    proxy.log.lines.length = 0;
    const r = await download(`${httpsUrl}/${PNPM_PATH}`, { HTTPS_PROXY: proxy.url });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("verified");
    expect(proxy.log.lines).toEqual([`CONNECT ${new URL(httpsUrl).host}`]);
  });

  it("NO_PROXY: a listed host is fetched directly", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    proxy.log.lines.length = 0;
    const r = await download(`${scope.url}/${PNPM_PATH}`, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: "127.0.0.1" });
    expect(r.stdout.trim()).toBe("verified");
    const r2 = await download(`${httpsUrl}/${PNPM_PATH}`, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: "127.0.0.1" });
    expect(r2.stdout.trim()).toBe("verified");
    expect(proxy.log.lines).toEqual([]);
  });

  it("a release asset follows an https redirect to a listed host, and only to a listed host", async () => {
    const port = new URL(httpsUrl).port;
    const ok = await download(`${httpsUrl}/redirect/${PNPM_PATH}`, {}, [`localhost:${port}`]);
    expect(ok.stderr).toBe("");
    expect(ok.stdout.trim()).toBe("verified");
    expect(ok.bytes?.equals(body)).toBe(true);
    const refused = await download(`${httpsUrl}/redirect/${PNPM_PATH}`, {}, [`localhost:${Number(port) + 1}`]);
    expect(refused.stderr.trim()).toBe(`${httpsUrl}/redirect/${PNPM_PATH} redirected to localhost:${port}, which is not an allowed host for pnpm 11.1.1`);
    expect(refused.bytes).toBeNull();
  });

  it("the fixture binary sends its runtime downloads through HTTP_PROXY", async () => {
    expect(f.binary, "the fixture binary is built by the global setup").toBeTruthy();
    const home = join(work, "home");
    await fs.mkdir(home, { recursive: true });
    await writeNpmrc(home, [registryLine(f.registryUrl)]);
    const scope = await mirrorClient(f.mirrorUrl).scope();
    // The proxied Node archive fails for good (404), so the install stops at the runtime step.
    await scope.setFault(f.pins.node.archives["linux-x64"]!.path, { kind: "status", status: 404 });
    proxy.log.lines.length = 0;
    const r = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", "--source", scope.url], {
      env: homeEnv(home, { HTTP_PROXY: proxy.url, NO_PROXY: "" }),
      cwd: home,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ runtime failed: Node 24\.21\.0 \(linux-x64\): .* answered HTTP 404/);
    expect(carried(`${scope.url}/${f.pins.node.archives["linux-x64"]!.path}`).length).toBeGreaterThan(0);
    const requests = (await scope.requests()).map((r) => r.path);
    expect(requests).toContain(f.pins.node.archives["linux-x64"]!.path);
    expect(await fs.readdir(join(home, ".gentle-shell", "runtime"))).toEqual([]);
  });
});

describe("a proxy that demands a user name and password (HTTP 407 without them)", () => {
  let guarded: Awaited<ReturnType<typeof startProxy>>;
  const SECRET = "s3cret-Proxy-Pw";
  beforeAll(async () => {
    guarded = await startProxy({ auth: `ana:${SECRET}` });
  });
  afterAll(() => stopProxy(guarded));

  /** The binary's install from the mirror with HTTP_PROXY (and HTTPS_PROXY) naming the guarded proxy with `credentials`. */
  async function install(credentials: string, source = f.mirrorUrl) {
    // A whole install (~350 MB): removed with the file's other scratch folders.
    const home = join(scratchDir("gss-proxy-auth-"), "home");
    await writeNpmrc(home, [registryLine(f.registryUrl)]);
    const proxyUrl = guarded.url.replace("://", `://${credentials}`);
    const r = await runCommand(f.binary!, ["install", "--yes", "--no-setup", "--no-modify-path", "--source", source], {
      env: homeEnv(home, { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: "", SHELL: "/bin/bash" }),
      cwd: home,
    });
    return { ...r, home };
  }

  it("with the right credentials in HTTP_PROXY, every download of ours goes through it, names itself, the install works, and so do Pi's model requests", async () => {
    guarded.log.lines.length = 0;
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const r = await install(`ana:${SECRET}@`, scope.url);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(guarded.log.lines.some((line) => line.startsWith(`GET ${scope.url}/`))).toBe(true);
    // A whole install's requests to the mirror (the source check, Node, the release's manifest and assets): each says who it is.
    const asked = await scope.requests();
    expect(asked.length).toBeGreaterThan(3);
    for (const q of asked) expect(q.userAgent, q.path).toMatch(/^gentle-shell(-setup)?\/\S+ node\/24\.21\.0 linux-x64$/);
    expect(guarded.log.lines.filter((line) => line.startsWith("407 "))).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    // Pi's own model requests (HTTPS, as a model API is) go through the same proxy, with the same credentials.
    const ca = makeTestCa("model API CA");
    const front = await startHttpsFront(ca, f.modelUrl);
    try {
      const model = await stubModelClient(f.modelUrl).scope("Answered through the guarded proxy.");
      await writeStubModelConfig(join(r.home, ".gentle-shell", "agent"), `${front.url}${new URL(model.baseUrl).pathname}`);
      const proxyUrl = guarded.url.replace("://", `://ana:${SECRET}@`);
      const env = piEnv(
        onlyTrust(homeEnv(r.home, { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: "", SHELL: "/bin/bash" }), { SSL_CERT_FILE: ca.caFile }),
      );
      const launch = await runCommand(join(r.home, ".gentle-shell", "bin", "gentle-shell"), ["-p", "hello"], { env, cwd: r.home });
      expect(launch.code, launch.stdout + launch.stderr).toBe(0);
      expect(launch.stdout.trim()).toBe("Answered through the guarded proxy.");
      expect(guarded.log.lines).toContain(`CONNECT ${new URL(front.url).host}`);
      expect(launch.stdout + launch.stderr).not.toContain(SECRET);
    } finally {
      await front.close();
    }
  });

  it("with a wrong password: one sentence naming the proxy, its password masked, exit 1, nothing installed", async () => {
    const r = await install("ana:wrong-Pw@");
    expect(r.code).toBe(1);
    const port = new URL(guarded.url).port;
    expect(r.stderr.trim()).toBe(
      `gentle-shell-setup: the --source mirror ${f.mirrorUrl} cannot be asked: the proxy http://***@127.0.0.1:${port} refused the user name and password in HTTP_PROXY (HTTP 407); correct them there; nothing was changed`,
    );
    expect(r.stdout + r.stderr).not.toContain("wrong-Pw");
    expect(existsSync(join(r.home, ".gentle-shell"))).toBe(false);
  });

  it("with none: the sentence says where they go", async () => {
    const r = await install("");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the proxy ${guarded.url} asks for a user name and password (HTTP 407); put them in HTTP_PROXY as user:password@ before the proxy's host`,
    );
  });
});
