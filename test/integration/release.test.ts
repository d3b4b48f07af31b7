/**
 * The release's distribution assets (spec: "Release distribution assets",
 * "Release workflow"): `gentle-shell-setup release build` and `release
 * verify` on the fixture binary against verdaccio and the mirror, each in a
 * gsd-* temporary prefix that is gone afterwards, success or not; and the
 * "just published" retry of buildDistribution against a registry that hides
 * the new gentle-pi for its first requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { promises as fs } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "pathe";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, distributionAsset } from "../../src/core/release-project";
import { prefixLayout } from "../../src/core/layout";
import { buildDistribution } from "../../src/release/distribution-build";
import { ENGINE_ASSET, keyId } from "../../src/core/release-manifest";
import { FIXTURE_RELEASE_KEY } from "../support/release-key";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

/** A home whose .npmrc names the registry, and a TMPDIR of its own so the gsd-* prefix can be watched. */
async function releaseHome(): Promise<{ home: string; tmp: string; env: NodeJS.ProcessEnv }> {
  const root = scratchDir("gss-release-");
  const home = join(root, "home");
  const tmp = join(root, "tmp");
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(tmp);
  await writeNpmrc(home, [registryLine(f.registryUrl)]);
  return { home, tmp, env: homeEnv(home, { TMPDIR: tmp }) };
}

function release(h: { home: string; env: NodeJS.ProcessEnv }, args: string[]) {
  return runCommand(f.binary!, ["release", ...args, "--source", f.mirrorUrl], { env: h.env, cwd: h.home });
}

describe("gentle-shell-setup release build and verify", () => {
  it("build writes the two assets as plain data of their inputs, and verify installs them and checks the launcher", async () => {
    const h = await releaseHome();
    const out = join(h.home, "assets");
    const built = await release(h, ["build", "--shell", latest.shell, "--pi", latest.pi, "--out", out]);
    expect(built.code, built.stdout + built.stderr).toBe(0);
    expect(built.stderr).toBe("");
    expect((await fs.readdir(out)).sort()).toEqual([DISTRIBUTION_LOCK, DISTRIBUTION_JSON].sort());
    expect(await fs.readdir(h.tmp)).toEqual([]);
    // The JSON is plain data of its inputs (the release, its lockfile, our pins), so the same inputs give the
    // same bytes. (Two resolutions are not compared: the registry's proxy cache may refresh a transitive
    // package in between, which is why a release's lockfile is built once and then only installed.)
    const lock = await fs.readFile(join(out, DISTRIBUTION_LOCK), "utf8");
    expect(await fs.readFile(join(out, DISTRIBUTION_JSON), "utf8")).toBe(
      distributionAsset({ shell: latest.shell, pi: latest.pi }, lock, { node: f.pins.node.version, pnpm: f.pins.pnpm.version }),
    );
    expect(lock).toContain(`gentle-pi@${latest.shell}`);

    const verified = await release(h, ["verify", "--assets", out]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`Verified: the installed launcher reports gentle-shell ${latest.shell} and pi ${latest.pi}`);
    expect(await fs.readdir(h.tmp)).toEqual([]);
    // Nothing of the user's prefix was touched.
    await expect(fs.lstat(join(h.home, ".gentle-shell"))).rejects.toThrow();
  });

  it("a missing Pi stops the build at once, with pnpm's reason, and the temporary prefix is gone", async () => {
    const h = await releaseHome();
    const r = await release(h, ["build", "--shell", latest.shell, "--pi", "0.0.1", "--out", join(h.home, "assets")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^gentle-shell-setup: pnpm could not resolve gentle-pi@4\.1\.0 with Pi 0\.0\.1:/);
    expect(r.stderr).not.toContain("after 10 attempts");
    expect(await fs.readdir(h.tmp)).toEqual([]);
  });

  it("refuses what is not an exact version before any temporary prefix exists", async () => {
    const h = await releaseHome();
    const r = await release(h, ["build", "--shell", "latest", "--pi", latest.pi, "--out", join(h.home, "assets")]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--shell");
    expect(await fs.readdir(h.tmp)).toEqual([]);
  });

  it("verify refuses assets whose lockfile does not match the recorded sha256, and installs nothing", async () => {
    const h = await releaseHome();
    const out = join(h.home, "tampered");
    await fs.mkdir(out);
    const published = join(f.mirrorRoot, "releases", `v${latest.shell}`);
    await fs.copyFile(join(published, DISTRIBUTION_JSON), join(out, DISTRIBUTION_JSON));
    await fs.writeFile(join(out, DISTRIBUTION_LOCK), (await fs.readFile(join(published, DISTRIBUTION_LOCK), "utf8")) + "\n# changed\n");
    const r = await release(h, ["verify", "--assets", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sha256/);
    expect(await fs.readdir(h.tmp)).toEqual([]);
  });
});

/**
 * A registry in front of verdaccio that, for its first `hide` requests of the
 * gentle-pi document, answers without `version` (as the registry does for a
 * few minutes after npm publish). Everything else is passed through.
 */
async function hidingRegistry(version: string, hide: number): Promise<{ url: string; documents: () => number; server: Server }> {
  const upstream = new URL(f.registryUrl);
  let documents = 0;
  const server = createServer((req, res) => {
    const isDocument = req.method === "GET" && /^\/gentle-pi\/?(\?.*)?$/.test(req.url ?? "");
    const headers = { ...req.headers, host: upstream.host, "accept-encoding": "identity" };
    delete headers["if-none-match"];
    delete headers["if-modified-since"];
    const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (up) => {
      if (!isDocument || documents++ >= hide) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on("data", (c: Buffer) => chunks.push(c));
      up.on("end", () => {
        const doc = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          versions: Record<string, unknown>;
          "dist-tags": Record<string, string>;
          time?: Record<string, string>;
        };
        delete doc.versions[version];
        if (doc.time) delete doc.time[version];
        doc["dist-tags"].latest = Object.keys(doc.versions).sort().pop()!;
        const body = Buffer.from(JSON.stringify(doc));
        res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
        res.end(body);
      });
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, documents: () => documents, server };
}

describe("gentle-shell-setup release sign and check", () => {
  it("signs a folder of assets with a key this build knows, and check verifies it; a flipped byte afterwards is named", async () => {
    const h = await releaseHome();
    const dir = join(h.home, "assets");
    await fs.mkdir(dir);
    const from = join(f.mirrorRoot, "releases", `v${latest.shell}`);
    for (const name of [DISTRIBUTION_JSON, DISTRIBUTION_LOCK, ENGINE_ASSET]) await fs.copyFile(join(from, name), join(dir, name));
    await fs.copyFile(f.binary!, join(dir, "gentle-shell-setup-linux-x64"));
    const key = join(h.home, "release-key.pem");
    await fs.writeFile(key, FIXTURE_RELEASE_KEY.privateKeyPem, { mode: 0o600 });
    const run = (args: string[]) => runCommand(f.binary!, ["release", ...args], { env: h.env, cwd: h.home });
    const signed = await run(["sign", "--assets", dir, "--key", key, "--shell", latest.shell]);
    expect(signed.code, signed.stdout + signed.stderr).toBe(0);
    expect(signed.stdout).toContain(`Signed Gentle Shell ${latest.shell} (Pi ${latest.pi}) with key ${keyId(FIXTURE_RELEASE_KEY.key.publicKey)}`);
    const checked = await run(["check", "--assets", dir]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain("4 assets exact");
    const lock = await fs.readFile(join(dir, DISTRIBUTION_LOCK));
    lock[10]! ^= 1;
    await fs.writeFile(join(dir, DISTRIBUTION_LOCK), lock);
    const broken = await run(["check", "--assets", dir]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${DISTRIBUTION_LOCK} in ${dir} is not the file the signed manifest lists`);
  });
});

describe("buildDistribution: just published", () => {
  let servers: Server[] = [];
  beforeAll(() => {
    servers = [];
  });
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  async function build(hide: number, attempts: number, pi = latest.pi) {
    const registry = await hidingRegistry(latest.shell, hide);
    servers.push(registry.server);
    const root = scratchDir("gss-just-published-");
    const layout = prefixLayout({ home: root, platform: "linux", pins: f.pins });
    await fs.mkdir(layout.pnpm.config, { recursive: true });
    await fs.writeFile(layout.pnpm.npmrc, `registry=${registry.url}\n`);
    const result = await buildDistribution({
      shell: latest.shell,
      pi,
      node: f.node,
      pnpmEntry: f.pnpmEntry,
      layout,
      pins: f.pins,
      env: homeEnv(root),
      attempts,
      retryDelayMs: 50,
    }).then(
      (built) => ({ built, error: null }),
      (error: Error) => ({ built: null, error }),
    );
    return { ...result, documents: registry.documents() };
  }

  it("retries in a fresh folder while the registry does not list the new gentle-pi yet, then resolves it", async () => {
    const r = await build(2, 5);
    expect(r.error).toBeNull();
    expect(r.built!.lockfile).toContain(`gentle-pi@${latest.shell}`);
    expect(r.documents).toBeGreaterThanOrEqual(3);
    // (The lockfile records where tarballs came from, so through this registry it is not the published one.)
    expect(JSON.parse(r.built!.json)).toMatchObject({ shell: latest.shell, pi: latest.pi, id: latest.id });
  });

  it("ends with the spec's sentence after its attempts", async () => {
    const r = await build(1000, 3);
    expect(r.error?.message).toBe(`gentle-pi@${latest.shell} is not on the registry after 3 attempts`);
    expect(r.documents).toBeGreaterThanOrEqual(3);
  });

  it("stops at once on any other failure, such as a missing Pi", async () => {
    const r = await build(0, 5, "0.0.1");
    expect(r.error?.message).toMatch(/^pnpm could not resolve gentle-pi@4\.1\.0 with Pi 0\.0\.1:/);
    expect(r.documents).toBeLessThanOrEqual(1);
  });
});
