/**
 * `doctor` with the official source (issue 41): the registry the install
 * asks (npm's configuration: the fixture registry the home's .npmrc names)
 * and the release home (GitHub's releases, here a fake GitHub behind the
 * user's proxy, its certificate from a CA only the system store holds) are
 * each asked once through the engine's HTTP client, and answer: ok lines.
 * The release home down, or the proxy refusing: a warning naming it, still
 * healthy (exit 0). Offline: neither is asked.
 */
import { promises as fs } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "pathe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE_MANIFEST } from "../../src/core/release-manifest";
import { RELEASE_HOME } from "../../src/core/source";
import { fixtures } from "../support/context";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { type ProxyLog, startProxy } from "../support/proxy";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { makeTestCa, onlyTrust, type TestCa } from "../support/test-ca";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const HOME_PAGE = `https://github.com/${RELEASE_HOME}/releases`;
const MANIFEST_PATH = `/${RELEASE_HOME}/releases/download/v${latest.shell}/${RELEASE_MANIFEST}`;

let ca: TestCa;
let github: FakeGitHub;
let proxy: { url: string; log: ProxyLog; server: Server };
/** Where the proxy carries github.com:443: the fake GitHub, or (set by a test) a port nobody listens on. */
let githubAt = "";
let nobody: number;

beforeAll(async () => {
  ca = makeTestCa("fake GitHub CA", ["DNS:github.com", "DNS:release-assets.githubusercontent.com"]);
  github = await startFakeGitHub({ home: RELEASE_HOME, key: ca.key, cert: ca.cert, listen: "127.0.0.1", port: 0, mirrorRoot: f.mirrorRoot });
  github.addRelease(`v${latest.shell}`, join(f.mirrorRoot, "releases", `v${latest.shell}`));
  github.publish(`v${latest.shell}`);
  githubAt = `127.0.0.1:${github.port}`;
  proxy = await startProxy({ route: (target) => (target === "github.com:443" ? githubAt : target) });
  nobody = await new Promise<number>((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
});
afterAll(async () => {
  await github?.close();
  await new Promise((done) => proxy?.server.close(done));
});

/** An install of the fixture release whose source is the official one: its remembered mirror forgotten. */
async function officialInstall(): Promise<Installed> {
  const i = await installed(f);
  await fs.rm(join(i.prefix, "config", "install-source"));
  return i;
}

/** The home's environment behind `proxyUrl` for https (the registry is plain HTTP on loopback: asked directly); the fake GitHub's CA only in the system store. */
function behindProxy(i: Installed, proxyUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = onlyTrust(
    { ...i.env, ENGRAM_STARTUP_POLICY: "disabled", HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, NO_PROXY: "", no_proxy: "", ...extra },
    { SSL_CERT_FILE: ca.caFile },
  );
  for (const name of ["HTTP_PROXY", "http_proxy"]) delete env[name];
  return env;
}

const doctor = (i: Installed, env: NodeJS.ProcessEnv, args: string[] = []) => runCommand(i.gs, ["doctor", ...args], { env, cwd: i.home });
const registryLine = new RegExp(`\\n  ok     the npm registry ${f.registryUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/? answers\\n`);

describe("doctor with the official source", () => {
  it("the registry and the release home answer, the release home through the user's proxy: ok lines, exit 0, nothing written", async () => {
    const i = await officialInstall();
    const before = await treeSnapshot(i.root);
    const [connects, asked] = [proxy.log.lines.length, github.requests.length];
    const r = await doctor(i, behindProxy(i, proxy.url));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(registryLine);
    expect(r.stdout).toContain(`\n  ok     the release home ${HOME_PAGE} answers through the proxy ${proxy.url}\n`);
    expect(r.stdout).toMatch(/\nGentle Shell in ~\/\.gentle-shell is healthy \(\d+ checks: 0 broken, \d+ warnings?\)\.\n?$/);
    // Asked once, through the proxy, for the active version's signed manifest (GitHub's answer, a redirect, is enough).
    expect(proxy.log.lines.slice(connects)).toEqual(["CONNECT github.com:443"]);
    expect(github.requests.slice(asked).map((q) => [q.host, q.path, q.status])).toEqual([["github.com", MANIFEST_PATH, 302]]);
    expect(github.requests.at(-1)!.userAgent).toMatch(/^gentle-shell\//);
    expect(await treeSnapshot(i.root)).toEqual(before);

    const json = await doctor(i, behindProxy(i, proxy.url), ["--json"]);
    const doc = onlyDocument(json.stdout);
    expect(schemaErrors(doc)).toEqual([]);
    const checks = (doc.doctor as { checks: Array<{ id: string; status: string }> }).checks;
    const reach = ["machine.registry", "machine.release-home", "machine.source"];
    expect(checks.filter((c) => reach.includes(c.id)).map((c) => [c.id, c.status])).toEqual([
      ["machine.registry", "ok"],
      ["machine.release-home", "ok"],
    ]);
    // The policy in force, as status shows it: nothing set here, so the default.
    expect(checks.find((c) => c.id === "machine.updates")).toMatchObject({ status: "ok", line: expect.stringMatching(/^updates: \S+ \(the default\)$/) });
  });

  it("the release home unreachable behind the proxy: a warning naming it with what to check, still healthy (exit 0)", async () => {
    const i = await officialInstall();
    githubAt = `127.0.0.1:${nobody}`;
    try {
      const r = await doctor(i, behindProxy(i, proxy.url));
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(registryLine);
      // The proxy found nothing at GitHub's address, and closed the tunnel it was asked for.
      expect(r.stdout).toContain(
        `\n  warn   the release home ${HOME_PAGE} cannot be reached: the proxy ${proxy.url} would not open a tunnel to github.com (ERR_PROXY_TUNNEL)\n`,
      );
      expect(r.stdout).toContain(
        "         run: an upgrade needs it: check the network or the proxy (HTTPS_PROXY), or name a mirror or an offline bundle with --source\n",
      );
      expect(r.stdout).toMatch(/\nGentle Shell in ~\/\.gentle-shell is healthy \(\d+ checks: 0 broken, \d+ warnings?\)\.\n?$/);
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      githubAt = `127.0.0.1:${github.port}`;
    }
  });

  it("a proxy that refuses connections is named as the reason, in one line", async () => {
    const i = await officialInstall();
    const closed = `http://127.0.0.1:${nobody}`;
    const r = await doctor(i, behindProxy(i, closed));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`\n  warn   the release home ${HOME_PAGE} cannot be reached: the proxy ${closed} refused the connection (ECONNREFUSED)\n`);
    expect(r.stdout).toMatch(registryLine);
  });

  it("offline (PI_OFFLINE): neither is asked, and each says so", async () => {
    const i = await officialInstall();
    const [connects, asked] = [proxy.log.lines.length, github.requests.length];
    const r = await doctor(i, behindProxy(i, proxy.url, { PI_OFFLINE: "1" }));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("\n  ok     the npm registry was not asked (offline)\n");
    expect(r.stdout).toContain(`\n  ok     the release home ${HOME_PAGE} was not asked (offline)\n`);
    expect(proxy.log.lines.length).toBe(connects);
    expect(github.requests.length).toBe(asked);
  });
});
