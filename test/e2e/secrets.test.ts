/**
 * No secret reaches what the installer prints or writes in the clear
 * (issue 14, Secrets): credentials in ~/.npmrc's registry (written out, and
 * as `${VAR}` references npm and we expand), in npm's own configuration
 * variables (npm_config_registry), in HTTP_PROXY and HTTPS_PROXY, and in
 * --source. The fixture binary runs real installs, one that succeeds through
 * a proxy and ones that fail where each credential is in play; every stream
 * (stdout, stderr) and every file we write under the prefix is searched for
 * each secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryLine } from "../support/npmrc";
import { promises as fs } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed, prepareInstall, runInstall } from "../support/installed";
import { freePort, runCommand } from "../support/proc";
import { carriedBy, startProxy, stopProxy } from "../support/proxy";
import { scratchHomePath } from "../support/home";

const f = fixtures();
const SECRETS = {
  npmrc: "S3CRET-npmrc-registry",
  token: "npm_S3CRETtoken0123456789",
  variable: "S3CRET-from-a-variable",
  npmConfig: "S3CRET-npm-config-registry",
  proxy: "S3CRET-proxy-password",
  source: "S3CRET-source-password",
};

let proxy: Awaited<ReturnType<typeof startProxy>>;
beforeAll(async () => {
  proxy = await startProxy();
});
afterAll(async () => {
  await stopProxy(proxy);
});

/** A user's proxy URL with credentials, for a proxy listening at `url`. */
function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  return `${u.protocol}//${user}:${password}@${u.host}`;
}

/**
 * The files we wrote under the prefix, without the runtimes, pnpm's store
 * and the installed packages (bytes of others, verified), and without the
 * fixture gentle-ai's fixture-runs/ (the test double records the whole
 * environment it was started with, which holds the user's proxy variables,
 * as the real gentle-ai's does).
 */
async function ourFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (["runtime", "store", "node_modules", "fixture-runs"].includes(entry.name)) continue;
      files.push(...(await ourFiles(path)));
    } else if (entry.isFile()) files.push(path);
  }
  return files;
}

/**
 * Every secret is absent from the output and from every file of ours under
 * the prefix. One exception, on purpose: the prefix npmrc is the user's npm
 * settings copied for pnpm (private, 0600), so it keeps a per-host
 * `_authToken` line as the user wrote it; a password written into a
 * registry URL is moved into `_auth` there, never kept in the clear.
 */
async function expectNoSecret(r: { stdout: string; stderr: string }, prefix: string) {
  for (const [where, secret] of Object.entries(SECRETS)) {
    expect(r.stdout, `stdout holds the ${where} secret`).not.toContain(secret);
    expect(r.stderr, `stderr holds the ${where} secret`).not.toContain(secret);
  }
  const files = await ourFiles(prefix);
  const npmrc = join(prefix, "pnpm", "config", "npmrc");
  for (const file of files) {
    const text = await fs.readFile(file, "latin1");
    for (const [where, secret] of Object.entries(SECRETS)) {
      if (file === npmrc && where === "token") continue;
      expect(text, `${file} holds the ${where} secret`).not.toContain(secret);
    }
  }
  if (files.includes(npmrc)) expect((await fs.stat(npmrc)).mode & 0o777).toBe(0o600);
  return files;
}

/** Every install here: each step told (--verbose), the profiles left alone, and npm's own registry variable carrying credentials. */
const ARGS = ["--no-modify-path", "--verbose"];
const NPM_CONFIG = { npm_config_registry: `http://dave:${SECRETS.npmConfig}@127.0.0.1:9/` };

describe("secrets in the user's settings", () => {
  it("an install through a proxy with credentials, from a registry with credentials, prints and writes none of them", async () => {
    const registry = new URL(f.registryUrl);
    const home = scratchHomePath();
    const npmrc = [registryLine(`http://alice:${SECRETS.npmrc}@${registry.host}${registry.pathname}`), `//127.0.0.1:9/:_authToken=${SECRETS.token}`];
    const proxyUrl = withCredentials(proxy.url, "bob", SECRETS.proxy);
    proxy.log.lines.length = 0;
    const r = await runInstall(f, home, ARGS, { npmrc, env: { ...NPM_CONFIG, HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: "" } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The proxy really carried our downloads, so its credentials were in play.
    expect(carriedBy(proxy.log, `${f.mirrorUrl}/${f.pins.node.archives["linux-x64"]!.path}`).length).toBeGreaterThan(0);
    const files = await expectNoSecret(r, join(home, ".gentle-shell"));
    expect(files.some((file) => file.endsWith(join("pnpm", "config", "npmrc")))).toBe(true);
  });

  it("a proxy with credentials that does not answer: the error names it, masked", async () => {
    const home = scratchHomePath();
    const closed = await freePort();
    const proxyUrl = `http://bob:${SECRETS.proxy}@127.0.0.1:${closed}`;
    const r = await runInstall(f, home, ARGS, { env: { ...NPM_CONFIG, HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: "" } });
    expect(r.code).toBe(1);
    // The first request (the check that the mirror answers, before any step) goes to the proxy, which refuses
    // it: the sentence names the mirror and the proxy, masked.
    expect(r.stderr).toMatch(/the --source mirror http:\/\/127\.0\.0\.1:\d+ does not answer through the proxy \S+ \(ECONNREFUSED\); nothing was changed/);
    await expectNoSecret(r, join(home, ".gentle-shell"));
  });

  it("a registry whose credentials come from variables and which does not answer: the error names it masked", async () => {
    const closed = await freePort();
    const home = scratchHomePath();
    const npmrc = [registryLine(`http://\${GSS_TEST_USER}:\${GSS_TEST_PASSWORD}@127.0.0.1:${closed}/`)];
    const r = await runInstall(f, home, ARGS, { npmrc, env: { ...NPM_CONFIG, GSS_TEST_USER: "carol", GSS_TEST_PASSWORD: SECRETS.variable } });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`http://***@127.0.0.1:${closed}/gentle-pi`);
    await expectNoSecret(r, join(home, ".gentle-shell"));
  });

  it("--source with credentials is refused before anything is printed, for install, its dry run and bundle", async () => {
    const home = scratchHomePath();
    const source = `http://erin:${SECRETS.source}@127.0.0.1:9/`;
    // The install's own command (it writes the home's .npmrc, naming the fixture registry), run as the others are.
    const install = await prepareInstall(f, home, [], { source });
    for (const args of [install.args, ["install", "--dry-run", "--source", source], ["bundle", "--out", join(home, "b"), "--source", source]]) {
      const r = await runCommand(f.binary!, args, { env: homeEnv(home), cwd: home });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      await expectNoSecret(r, join(home, ".gentle-shell"));
    }
  });
});

/**
 * Issue 39, defect 2, as it was found: a proxy on loopback that answers 407
 * to everything, and HTTP_PROXY naming it with a password that holds what a
 * pattern would stop at. The proxy receives the password (a working
 * credential); neither of its pieces is printed, in the sentence or in the
 * --json error. The install stops at the check that the mirror answers, so
 * nothing is installed.
 */
describe("a hostile password in HTTP_PROXY, for a proxy that answers 407", () => {
  const PIECES = ["Kq7wPw", "Vz3xPw"] as const;
  const received: string[] = [];
  let guard: Server;
  let port: number;
  beforeAll(async () => {
    const heard = (header: string | undefined) => {
      if (header?.startsWith("Basic ")) received.push(Buffer.from(header.slice(6), "base64").toString("utf8"));
    };
    guard = createServer((req, res) => {
      heard(req.headers["proxy-authorization"]);
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="corporate"' });
      res.end();
    });
    guard.on("connect", (req, socket) => {
      heard(req.headers["proxy-authorization"]);
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corporate"\r\n\r\n');
    });
    await new Promise<void>((r) => guard.listen(0, "127.0.0.1", () => r()));
    port = (guard.address() as { port: number }).port;
  });
  afterAll(() => stopProxy({ server: guard }));

  const noPiece = (text: string, label: string) => {
    for (const piece of PIECES) expect(text, label).not.toContain(piece);
  };

  // The last: #, /, ? and \ percent-encoded, as the sentence for a proxy URL Node cannot use says to write them.
  for (const c of ['"', "'", "<", ">", " ", "@", "%40", `@"' <>@`, "%23%2F%3F%5C"]) {
    it(`a password holding ${JSON.stringify(c)}: the proxy got it, the sentence and the --json error name the proxy masked`, async () => {
      const home = scratchHomePath();
      await fs.mkdir(home, { recursive: true });
      const password = `${PIECES[0]}${c}${PIECES[1]}`;
      const proxyUrl = `http://carol:${password}@127.0.0.1:${port}`;
      const env = homeEnv(home, { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: "" });
      const said = `the proxy http://***@127.0.0.1:${port} refused the user name and password in HTTP_PROXY (HTTP 407); correct them there`;
      received.length = 0;
      const r = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", "--source", f.mirrorUrl], { env, cwd: home });
      expect(r.code, r.stderr).toBe(1);
      expect(received).toContain(`carol:${decodeURIComponent(password)}`);
      expect(r.stderr).toContain(said);
      noPiece(r.stdout + r.stderr, "the sentence");
      const json = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", "--json", "--source", f.mirrorUrl], { env, cwd: home });
      expect(json.code).toBe(1);
      const doc = JSON.parse(json.stdout) as { ok: boolean; error: string };
      expect(doc.ok).toBe(false);
      expect(doc.error).toContain(said);
      noPiece(json.stdout + json.stderr, "the --json run");
    });
  }

  /**
   * A password with #, /, ? or \ makes a URL Node cannot use as a proxy: with --use-env-proxy Node died before any
   * code of ours, its stack printing the URL, password and all. Now each entry reads the variables first and refuses
   * in one sentence, masked, before any request: the proxy hears nothing. The last case reads as host carol and
   * port 1234, the rest of the password a path (a masking that read the host part alone printed it).
   */
  const unusable = (c: string) =>
    c === "1234/" ? `http://carol:1234/${PIECES[0]}${PIECES[1]}@127.0.0.1:${port}` : `http://carol:${PIECES[0]}${c}${PIECES[1]}@127.0.0.1:${port}`;
  const refusal = (speaker: string) =>
    new RegExp(
      `^${speaker}: HTTP_PROXY is not a proxy URL Node can use: http://\\*\\*\\*@127\\.0\\.0\\.1:${port} .*percent-encode each of its special characters \\(# as %23, / as %2F, \\? as %3F, \\\\ as %5C, @ as %40, % as %25\\) in HTTP_PROXY$`,
    );
  const hostileEnv = (home: string, c: string) => homeEnv(home, { HTTP_PROXY: unusable(c), HTTPS_PROXY: unusable(c), NO_PROXY: "" });
  const oneSentence = (r: { code: number | null; stdout: string; stderr: string }, speaker: string, label: string) => {
    expect(r.code, `${label}: ${r.stderr}`).toBe(2);
    expect(r.stderr.trimEnd().split("\n"), label).toHaveLength(1);
    expect(r.stderr.trimEnd(), label).toMatch(refusal(speaker));
    expect(r.stderr, label).not.toMatch(/ERR_PROXY|\n\s+at |node:internal/);
    noPiece(r.stdout + r.stderr, label);
  };

  for (const c of ["#", "/", "?", "\\", "1234/"]) {
    it(`a password holding ${JSON.stringify(c)} that Node cannot use: the binary says so in one sentence, masked, and asks the proxy nothing`, async () => {
      const home = scratchHomePath();
      await fs.mkdir(home, { recursive: true });
      const env = hostileEnv(home, c);
      received.length = 0;
      const r = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", "--source", f.mirrorUrl], { env, cwd: home });
      oneSentence(r, "gentle-shell-setup", "install");
      expect(r.stdout).toBe("");
      const json = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", "--json", "--source", f.mirrorUrl], { env, cwd: home });
      expect(json.code).toBe(2);
      const doc = JSON.parse(json.stdout) as { ok: boolean; error: string };
      expect(doc.ok).toBe(false);
      expect(`gentle-shell-setup: ${doc.error}`).toMatch(refusal("gentle-shell-setup"));
      noPiece(json.stdout + json.stderr, "the --json run");
      // Help needs no request and is still given; --version is the single executable's own answer.
      expect((await runCommand(f.binary!, ["--version"], { env, cwd: home })).code).toBe(0);
      expect((await runCommand(f.binary!, ["install", "--help"], { env, cwd: home })).code).toBe(0);
      expect(received).toEqual([]);
      expect(await fs.readdir(home)).toEqual([]);
    });
  }

  it("the installed launcher's engine refuses it the same way: its launch part, and the whole engine as Windows and an upgrade's check start it", async () => {
    const i = await installed(f);
    const id = (await fs.readlink(join(i.prefix, "current"))).split("/").pop()!;
    const node = join(i.prefix, "runtime", (await fs.readdir(join(i.prefix, "runtime"))).find((n) => n.startsWith("node-"))!, "bin", "node");
    const engine = join(i.prefix, "versions", id, ".gentle-shell", "engine.cjs");
    for (const c of ["#", "/", "?", "\\", "1234/"]) {
      const env = { ...i.env, HTTP_PROXY: unusable(c), HTTPS_PROXY: unusable(c), NO_PROXY: "" };
      for (const args of [["-p", "hi"], ["--version"], ["status"], ["update"]]) {
        received.length = 0;
        const r = await runCommand(i.gs, args, { env, cwd: i.home });
        oneSentence(r, "gentle-shell", `${JSON.stringify(c)}: gentle-shell ${args.join(" ")}`);
        expect(received).toEqual([]);
      }
      const whole = await runCommand(node, [engine, "--gentle-shell-engine", "status"], { env, cwd: i.home });
      oneSentence(whole, "gentle-shell", `${JSON.stringify(c)}: engine.cjs status`);
    }
    // The same launcher with the password percent-encoded starts its engine as before.
    const v = await runCommand(i.gs, ["status"], { env: { ...i.env, HTTP_PROXY: unusable("%23"), HTTPS_PROXY: unusable("%2F"), NO_PROXY: "" }, cwd: i.home });
    expect(v.stderr).not.toContain("is not a proxy URL");
    noPiece(v.stdout + v.stderr, "status with the password percent-encoded");
  });

  it("a --source whose query secret holds a quote: the sentence masks all of it", async () => {
    const home = scratchHomePath();
    await fs.mkdir(home, { recursive: true });
    const closed = await freePort();
    const source = `http://127.0.0.1:${closed}/?token=${PIECES[0]}"${PIECES[1]}`;
    for (const json of [[], ["--json"]]) {
      const r = await runCommand(f.binary!, ["install", "--yes", "--no-modify-path", ...json, "--source", source], { env: homeEnv(home), cwd: home });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the --source mirror http://127.0.0.1:${closed}/?token=*** does not answer (ECONNREFUSED)`);
      noPiece(r.stdout + r.stderr, json.join(" "));
    }
  });
});
