/**
 * Corporate networks (issue 28): an HTTPS mirror whose certificate a private
 * CA signed. The fixture binary runs with none of this machine's own CA
 * settings (its network sets NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and
 * SSL_CERT_DIR, which would prove nothing), then with the CA only in the
 * system store (OpenSSL's default file, pointed at the test's bundle) and
 * only in NODE_EXTRA_CA_CERTS. Every request says who it is.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { join } from "pathe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleChild } from "../support/child-bundle";
import { fetchArtifact } from "../../src/install/artifact-fetch";
import { httpClient } from "../../src/io/http-client";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { context } from "../support/runtime-context";
import { fixtures } from "../support/context";
import { startHttpsFront } from "../support/https-front";
import { homeEnv } from "../support/fixtures";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { makeTestCa, onlyTrust, type TestCa } from "../support/test-ca";

const f = fixtures();
let ca: TestCa;
let server: Server;
let mirror: string;
const agents: string[] = [];

beforeAll(async () => {
  ca = makeTestCa();
  server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    agents.push(req.headers["user-agent"] ?? "(none)");
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  mirror = `https://127.0.0.1:${(server.address() as { port: number }).port}/mirror`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A fresh HOME, and the binary's dry run against the HTTPS mirror with only `trust` of any CA setting. */
async function dryRun(trust: Parameters<typeof onlyTrust>[1]) {
  const home = join(scratchDir("gss-ca-"), "home");
  await writeNpmrc(home, [registryLine(f.registryUrl)]);
  const env = onlyTrust(homeEnv(home), trust);
  const r = await runCommand(f.binary!, ["install", "--dry-run", "--source", mirror], { env, cwd: home });
  return { ...r, home };
}

describe("a mirror whose certificate a private CA signed", () => {
  it("untrusted: one sentence naming the host and the three ways to trust it, exit 1, nothing made", async () => {
    const r = await dryRun({});
    expect(r.code).toBe(1);
    const host = new URL(mirror).host;
    expect(r.stderr.trim()).toBe(
      `gentle-shell-setup: the --source mirror ${mirror} answered, but the certificate of ${host} is signed by an authority this machine's Node does not trust; if your network inspects TLS, add its root certificate to the system store, or set NODE_EXTRA_CA_CERTS to it, or cafile= in your .npmrc for the registry; nothing was changed`,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe("");
    expect(existsSync(join(r.home, ".gentle-shell"))).toBe(false);
  });

  it("trusted through the system store alone (OpenSSL's default file): the source check passes and the plan follows", async () => {
    const r = await dryRun({ SSL_CERT_FILE: ca.caFile });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain(`Artifacts from: ${mirror}`);
    expect(r.stdout).toContain("Dry run: nothing was changed.");
  });

  it("trusted through NODE_EXTRA_CA_CERTS alone", async () => {
    const r = await dryRun({ NODE_EXTRA_CA_CERTS: ca.caFile });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain("Dry run: nothing was changed.");
  });

  it("trusted through NODE_EXTRA_CA_CERTS alone, a whole install from an HTTPS mirror works", async () => {
    const front = await startHttpsFront(ca, f.mirrorUrl);
    try {
      const home = join(scratchDir("gss-ca-extra-"), "home");
      await writeNpmrc(home, [registryLine(f.registryUrl)]);
      const env = onlyTrust(homeEnv(home, { SHELL: "/bin/bash" }), { NODE_EXTRA_CA_CERTS: ca.caFile });
      const r = await runCommand(f.binary!, ["install", "--yes", "--no-setup", "--no-modify-path", "--source", front.url], { env, cwd: home });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("Gentle Shell is installed");
    } finally {
      await front.close();
    }
  });

  it("trusted through the system store: requests already on their way when it is added ask again too", async () => {
    // Three requests at once, each failing on Node's own roots; whichever adds the system store, all three then succeed.
    const script = join(scratchDir("gss-ca-child-"), "concurrent.cjs");
    await bundleChild(
      `import { httpClient } from "../../src/io/http-client";
       const url = process.argv[2];
       const http = httpClient({ role: "installer", target: "linux-x64", env: process.env });
       Promise.all([0, 1, 2].map(() => http.get(url, undefined, new AbortController().signal)))
         .then((responses) => { for (const r of responses) r.discard(); console.log(responses.map((r) => r.status).join(" ")); })
         .catch((error) => { console.log("failed: " + (error.code ?? error.message)); process.exitCode = 1; });`,
      script,
      "concurrent.ts",
    );
    const env = { PATH: process.env.PATH, SSL_CERT_FILE: ca.caFile };
    const r = await runCommand(f.node, [script, `${mirror}/x`], { env });
    expect(r.stdout.trim(), r.stderr).toBe("404 404 404");
  });

  it("every request names the installer, its version, Node's and the target", () => {
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) expect(agent).toMatch(/^gentle-shell-setup\/\d+\.\d+\.\d+\S* node\/24\.21\.0 linux-x64$/);
  });
});

describe("an HTTPS registry whose certificate a private CA signed", () => {
  let front: Awaited<ReturnType<typeof startHttpsFront>>;
  let registry: string;

  beforeAll(async () => {
    // A TLS front for the fixture registry, as a repository manager behind a private CA would be.
    front = await startHttpsFront(ca, f.registryUrl);
    registry = `${front.url}/`;
  });
  afterAll(() => front.close());

  /** An install from the mirror (runtimes) with the HTTPS registry, its CA named only by `cafile` (when given). */
  async function install(cafile: string | null) {
    const home = join(scratchDir("gss-cafile-"), "home");
    await writeNpmrc(home, [`registry=${registry}`, ...(cafile ? [`cafile=${cafile}`] : [])]);
    const env = onlyTrust(homeEnv(home, { SHELL: "/bin/bash" }));
    const r = await runCommand(f.binary!, ["install", "--yes", "--no-setup", "--no-modify-path", "--source", f.mirrorUrl], { env, cwd: home });
    return { ...r, home };
  }

  it("trusted through cafile= alone: our registry queries and pnpm both trust it, and the install works", async () => {
    const r = await install(ca.caFile);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Gentle Shell is installed");
  });

  it("a cafile of another authority: one sentence naming the setting, no retry, nothing installed", async () => {
    const other = makeTestCa("another authority");
    const r = await install(other.caFile);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("the certificate of 127.0.0.1:");
    expect(r.stdout).toContain("is not signed by the authority that ca= or cafile= in your npm settings names");
    expect(r.stdout).not.toContain("attempts");
    expect(existsSync(join(r.home, ".gentle-shell", "bin", "gentle-shell"))).toBe(false);
  });
});

describe("pnpm from the official source, when the registry's CA is named only by the npm settings", () => {
  it("is fetched with those authorities, and without them refused in one sentence", async () => {
    // A registry behind the test CA serving exactly pnpm's pinned tarball, at the path the official source asks.
    const tarball = readFileSync(join(f.mirrorRoot, f.pins.pnpm.file.path));
    const pnpmPath = f.pins.pnpm.file.path;
    const registry = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
      if (req.url !== `/pnpm/-/${pnpmPath.split("/").pop()}`) return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": tarball.length });
      res.end(tarball);
    });
    await new Promise<void>((r) => registry.listen(0, "127.0.0.1", () => r()));
    const url = `https://127.0.0.1:${(registry.address() as { port: number }).port}/`;
    const expected = { name: "pnpm 11.1.1", integrity: f.pins.pnpm.integrity, size: tarball.length, maxBytes: 64 * 1024 * 1024 };
    try {
      const dir = scratchDir("gss-pnpm-ca-");
      const registryCa = [readFileSync(ca.caFile, "utf8")];
      const trusting = httpClient({ role: "installer", target: "linux-x64", env: process.env });
      trusting.trustRegistry(url, registryCa);
      const file = await fetchArtifact(trusting, { kind: "official", registry: url }, pnpmPath, dir, expected, { download: { attempts: 1 } });
      expect(readFileSync(file).equals(tarball)).toBe(true);
      // Without them this process's own roots decide (this machine's CA settings do not name the test CA).
      const plain = httpClient({ role: "installer", target: "linux-x64", env: process.env });
      await expect(fetchArtifact(plain, { kind: "official", registry: url }, pnpmPath, dir, expected, { download: { attempts: 1 } })).rejects.toThrow(
        /the certificate of 127\.0\.0\.1:\d+ is signed by an authority this machine's Node does not trust/,
      );
    } finally {
      await new Promise<void>((r) => registry.close(() => r()));
    }
  });
});

describe("Pi's npm (our npm entry, runtime/node-<v>/gentle-shell/npm), with an HTTPS registry whose CA is only in the system store", () => {
  let front: Awaited<ReturnType<typeof startHttpsFront>>;
  let node: string;
  let entry: string;

  beforeAll(async () => {
    front = await startHttpsFront(ca, f.registryUrl);
    // Our runtime from the mirror, with the entry ensureRuntimes writes beside its npm.
    const ctx = await context();
    await ensureRuntimes(ctx);
    node = ctx.layout.node;
    entry = ctx.layout.npmEntry;
  });
  afterAll(() => front.close());

  /** `npm view gentle-engram version` through the entry, with no npm settings of the user's and only the system store. */
  function view(extra: NodeJS.ProcessEnv) {
    const home = scratchDir("gss-npm-entry-home-");
    const env = onlyTrust({ PATH: process.env.PATH, HOME: home, ...extra }, { SSL_CERT_FILE: ca.caFile });
    const args = [
      entry,
      "view",
      "gentle-engram",
      "version",
      `--registry=${front.url}/`,
      `--userconfig=${join(home, "npmrc")}`,
      `--cache=${join(home, "cache")}`,
    ];
    return runCommand(node, [...args, "--update-notifier=false", "--fetch-retries=0"], { env, cwd: home });
  }

  it("trusts it without NODE_USE_SYSTEM_CA, so the variable need not be in Pi's environment (nor its children's)", async () => {
    const r = await view({});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("0.5.0");
  });

  it("a NODE_USE_SYSTEM_CA=0 of the user's decides: the store is not trusted", async () => {
    const r = await view({ NODE_USE_SYSTEM_CA: "0" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify the first certificate|self.signed|local issuer/i);
  });
});
