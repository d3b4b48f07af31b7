/**
 * A registry written with its credentials (`registry=http://user:password@
 * host/`, which npm accepts): is the kept line copied verbatim, as "User npm
 * settings" says, or rewritten by registryCredentialsToAuth into the bare URL
 * and the host's `_auth`? Asked of the pinned pnpm 11.1.1 on our Node,
 * in pnpmEnvironment, against the fixture registry behind a front that
 * requires those credentials: the verbatim line stops pnpm before it sends
 * anything (Node's fetch refuses a URL with credentials), the rewritten one
 * installs with the credentials on every request.
 */
import { existsSync, promises as fs } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "pathe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pnpmEnvironment } from "../../src/core/environment";
import { prefixLayout } from "../../src/core/layout";
import { filterNpmrc, registryCredentialsToAuth } from "../../src/core/npmrc";
import { fixtures } from "../support/context";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const PASSWORD = "pw-9f3c1e";
const BASIC = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString("base64")}`;
let server: Server;
let front = "";
const seen: { url: string; authorized: boolean }[] = [];

beforeAll(async () => {
  // The fixture registry behind Basic auth, as a private repository manager would be; the Host header goes on, so
  // verdaccio's tarball URLs name the front too.
  const upstream = new URL(f.registryUrl);
  server = createServer((req, res) => {
    const authorized = req.headers.authorization === BASIC;
    seen.push({ url: req.url ?? "", authorized });
    if (!authorized) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  front = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

/** Our pnpm adding gentle-engram@0.5.0 to a new project, with `npmrc` as the prefix npmrc. */
async function pnpmAdd(npmrc: string) {
  const root = scratchDir("gss-npmrc-cred-");
  const home = join(root, "home");
  const layout = prefixLayout({ home, platform: "linux", pins: f.pins });
  await fs.mkdir(join(layout.pnpm.config), { recursive: true });
  await fs.writeFile(layout.pnpm.npmrc, npmrc, { mode: 0o600 });
  const project = join(root, "project");
  await fs.mkdir(project, { recursive: true });
  await fs.writeFile(join(project, "package.json"), '{ "name": "p", "version": "1.0.0", "private": true }\n');
  const env = {
    ...pnpmEnvironment(layout, { env: { HOME: home, PATH: "/usr/bin:/bin" }, npmrc }),
    // One try: the verbatim line would otherwise be retried for over a minute before the same failure.
    pnpm_config_fetch_retries: "0",
  };
  seen.length = 0;
  const r = await runCommand(f.node, [f.pnpmEntry, "add", "gentle-engram@0.5.0"], { env, cwd: project });
  return { ...r, installed: existsSync(join(project, "node_modules", "gentle-engram", "package.json")), requests: [...seen] };
}

describe("a registry URL with credentials in the user's npm settings, read by pnpm 11.1.1", () => {
  const verbatim = () => `registry=${front.replace("http://", `http://alice:${PASSWORD}@`)}\n`;

  it("copied verbatim, pnpm cannot build a request from it and sends nothing", async () => {
    const r = await pnpmAdd(verbatim());
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("Request cannot be constructed from a URL that includes credentials");
    expect(r.installed).toBe(false);
    expect(r.requests).toEqual([]);
  });

  it("as registryCredentialsToAuth writes it (the bare URL and the host's _auth), pnpm installs with the credentials on every request", async () => {
    const kept = registryCredentialsToAuth(filterNpmrc(verbatim()));
    expect(kept).toBe(`registry=${front}\n${front.replace("http:", "")}:_auth=${Buffer.from(`alice:${PASSWORD}`).toString("base64")}\n`);
    const r = await pnpmAdd(kept);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.installed).toBe(true);
    expect(r.requests.length).toBeGreaterThan(0);
    expect(r.requests.filter((q) => !q.authorized)).toEqual([]);
    expect(r.requests.some((q) => q.url.endsWith(".tgz"))).toBe(true);
  });
});
