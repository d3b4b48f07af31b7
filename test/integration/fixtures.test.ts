/**
 * The test fixtures themselves: each does what the other tests rely on.
 * Real parts throughout: verdaccio, npm, our pnpm from the fixture release,
 * real Pi 1.6.0 on our Node 24.21.0 talking to the stub model.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, constants, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { pnpmEnvironment } from "../../src/core/environment";
import { productionPins } from "../../src/pins/production";
import { fixtures } from "../support/context";
import { ENGRAM_ARCHIVE_PATH, ENGRAM_VERSION, engramProgramIn, startEngramServer, type EngramVariant } from "../support/engram";
import { FIXTURE_BINARY, homeEnv, makeHome } from "../support/fixtures";
import { GENTLE_AI_IN_PACKAGE, GENTLE_PI_MARKER, packGentlePi, readGentleAiRecord, readGentleAiRuns } from "../support/gentle-pi";
import { mirrorClient } from "../support/mirror";
import { buildNodeArchive, sha256File } from "../support/node-archive";
import { freePort, runChecked, runCommand, waitForHttp } from "../support/proc";
import { STUB_ANSWER, STUB_MODEL_ID, STUB_PROVIDER, stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { toolchain } from "../support/toolchain";

const f = fixtures();
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "gss-fixtures-test-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const PI_ENV = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
const piCli = (root: string) => join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

/** A GET with node:http, which (unlike fetch) shows exactly what the server sent. */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; error: string | null }>((resolve) => {
    const chunks: Buffer[] = [];
    const req = request(url, { headers }, (res) => {
      res.on("data", (c: Buffer) => chunks.push(c));
      const done = (error: string | null) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), error });
      res.on("end", () => done(null));
      res.on("error", (e) => done(e.message));
      res.on("aborted", () => done("aborted"));
    });
    req.on("error", (e) => resolve({ status: 0, headers: {}, body: Buffer.concat(chunks), error: e.message }));
    req.end();
  });
}

describe("registry", () => {
  it("serves the fixture gentle-pi 4.0.0 and 4.1.0 (latest), packed reproducibly", async () => {
    const packument = (await (await fetch(new URL("gentle-pi", f.registryUrl))).json()) as {
      "dist-tags": Record<string, string>;
      versions: Record<string, { dist: { integrity: string; tarball: string }; peerDependencies: Record<string, string> }>;
    };
    expect(packument["dist-tags"].latest).toBe("4.1.0");
    expect(Object.keys(packument.versions).sort()).toEqual(["4.0.0", "4.1.0"]);
    expect(packument.versions["4.1.0"]!.peerDependencies).toEqual({ "@earendil-works/pi-coding-agent": "*" });
    const again = await packGentlePi("4.1.0", join(work, "packed"));
    expect(packument.versions["4.1.0"]!.dist.integrity).toBe(again.integrity);
    const tarball = Buffer.from(await (await fetch(packument.versions["4.1.0"]!.dist.tarball)).arrayBuffer());
    expect("sha512-" + createHash("sha512").update(tarball).digest("base64")).toBe(again.integrity);
  });

  it("proxies Pi from the uplink npm names", async () => {
    const response = await fetch(new URL("@earendil-works%2fpi-coding-agent", f.registryUrl));
    expect(response.status).toBe(200);
    const packument = (await response.json()) as { versions: Record<string, { dist: { tarball: string } }> };
    expect(packument.versions["1.6.0"]!.dist.tarball.startsWith(f.registryUrl)).toBe(true);
  });
});

describe("real Pi with the stub model", () => {
  it("Pi 1.6.0 installed with npm from the registry answers -p with the stub's text", async () => {
    const tc = await toolchain();
    const node = await tc.ensureNodeBinary();
    const dir = join(work, "npm-pi");
    await mkdir(dir, { recursive: true });
    const userconfig = join(dir, "npmrc");
    await writeFile(userconfig, `registry=${f.registryUrl}\nfund=false\naudit=false\nupdate-notifier=false\n`);
    await runChecked("npm", ["install", "--userconfig", userconfig, "--ignore-scripts", "@earendil-works/pi-coding-agent@1.6.0"], {
      cwd: dir,
      env: homeEnv(dir),
      timeoutMs: 170_000,
    });
    const manifest = JSON.parse(await readFile(join(dir, "node_modules/@earendil-works/pi-coding-agent/package.json"), "utf8"));
    expect(manifest.bin.pi).toBe("dist/bundle/cli.js");

    const stub = await stubModelClient(f.modelUrl).scope("Hi! The stub model speaks.");
    const home = await makeHome(join(dir, "home"), f, { modelBaseUrl: stub.baseUrl });
    const result = await runCommand(node, [piCli(dir), "-p", "say hi"], {
      cwd: dir,
      env: { ...home.env, PI_CODING_AGENT_DIR: home.agentDir, ...PI_ENV },
      timeoutMs: 60_000,
    });
    expect(result.stdout.trim(), result.stderr).toBe("Hi! The stub model speaks.");
    expect(result.code).toBe(0);
    const requests = await stub.requests();
    expect(requests).toHaveLength(1);
    const body = requests[0]!.body as { model: string; stream: boolean; messages: { role: string; content: unknown }[] };
    expect(body.model).toBe(STUB_MODEL_ID);
    expect(body.stream).toBe(true);
    expect(JSON.stringify(body.messages.at(-1))).toContain("say hi");
    expect(requests[0]!.authorization).toMatch(/^Bearer \S+/);
  });
});

describe("fixture release installed with our pnpm from its lockfile", () => {
  let dir: string;
  let node: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    node = f.node;
    dir = join(work, "release-4.1.0");
    await mkdir(dir, { recursive: true });
    const release = f.releases.find((r) => r.shell === "4.1.0")!;
    const json = JSON.parse(await readFile(join(f.mirrorRoot, "releases", `v${release.shell}`, "gentle-shell-distribution.json"), "utf8"));
    const lockfile = await readFile(join(f.mirrorRoot, "releases", `v${release.shell}`, "gentle-shell-distribution-lock.yaml"), "utf8");
    expect(json).toMatchObject({ schema: 1, shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0" });
    expect(json.lockfile.sha256).toBe(createHash("sha256").update(lockfile).digest("hex"));
    for (const [name, text] of Object.entries(json.files as Record<string, string>)) await writeFile(join(dir, name), text);
    await writeFile(join(dir, "pnpm-lock.yaml"), lockfile);
    const home = join(work, "pnpm-home");
    const layout = prefixLayout({ home, platform: "linux", pins: f.pins });
    await mkdir(join(layout.pnpm.config), { recursive: true });
    await writeFile(layout.pnpm.npmrc, `registry=${f.registryUrl}\n`);
    env = pnpmEnvironment(layout, { env: homeEnv(home), npmrc: `registry=${f.registryUrl}\n` });
    env.PATH = `${join(node, "..")}:${env.PATH}`;
    await runChecked(node, [f.pnpmEntry, "install", "--frozen-lockfile"], { cwd: dir, env, timeoutMs: 170_000 });
  });

  it("gentle-pi's one build script left an executable gentle-ai that records argv and environment", async () => {
    const gentleAi = join(dir, "node_modules", "gentle-pi", GENTLE_AI_IN_PACKAGE);
    await access(gentleAi, constants.X_OK);
    const gentleAiHome = join(work, "gentle-ai-home");
    const first = await runCommand(gentleAi, ["install", "--agent", "pi"], {
      cwd: work,
      env: { ...homeEnv(work), GENTLE_AI_HOME: gentleAiHome, GENTLE_AI_NO_SELF_UPDATE: "1" },
    });
    expect(first.code).toBe(0);
    const runs = await readGentleAiRuns(gentleAiHome);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.version).toBe("4.1.0");
    expect(runs[0]!.argv).toEqual(["install", "--agent", "pi"]);
    expect(runs[0]!.cwd).toBe(work);
    expect(runs[0]!.env.GENTLE_AI_NO_SELF_UPDATE).toBe("1");
    expect(runs[0]!.env.GENTLE_AI_HOME).toBe(gentleAiHome);

    const record = join(work, "one.rec");
    const odd = ["a b", "line\nbreak", "quote'\"", ""];
    const second = await runCommand(gentleAi, odd, {
      cwd: work,
      env: { PATH: "/usr/bin:/bin", GENTLE_AI_FIXTURE_RECORD: record, GENTLE_AI_FIXTURE_EXIT: "3", X_VALUE: "1\n2" },
    });
    expect(second.code).toBe(3);
    const parsed = await readGentleAiRecord(record);
    expect(parsed.argv).toEqual(odd);
    expect(parsed.env.X_VALUE).toBe("1\n2");
    expect(parsed.env.GENTLE_AI_HOME).toBeUndefined();
  });

  it("Pi loads the gentle-pi package: the extension writes its marker, and -p reaches the stub", async () => {
    const stub = await stubModelClient(f.modelUrl).scope();
    const agentDir = join(work, "agent-release");
    await writeStubModelConfig(agentDir, stub.baseUrl);
    const result = await runCommand(node, [piCli(dir), "--extension", join(dir, "node_modules", "gentle-pi"), "-p", "say hi"], {
      cwd: dir,
      env: { ...homeEnv(work), PI_CODING_AGENT_DIR: agentDir, ...PI_ENV },
      timeoutMs: 60_000,
    });
    expect(result.stdout.trim(), result.stderr).toBe(STUB_ANSWER);
    expect(result.code).toBe(0);
    const marker = JSON.parse(await readFile(join(agentDir, GENTLE_PI_MARKER), "utf8"));
    expect(marker).toMatchObject({ name: "gentle-pi", fixture: true, version: "4.1.0" });
    const version = await runCommand(node, [piCli(dir), "--version"], { cwd: dir, env: { ...homeEnv(work), ...PI_ENV } });
    expect(version.stdout.trim()).toBe("1.6.0");
  });
});

describe("stub model", () => {
  it("streams chat.completion.chunk events, a stop chunk and [DONE]; answers without stream too; keeps scopes apart", async () => {
    const client = stubModelClient(f.modelUrl);
    const a = await client.scope("alpha beta");
    const b = await client.scope();
    const stream = await fetch(`${a.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const lines = (await stream.text()).split("\n").filter((l) => l.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)));
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("alpha beta");
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");

    await b.setAnswer("plain");
    const plain = (await (await fetch(`${b.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) })).json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(plain.choices[0]).toMatchObject({ message: { content: "plain" }, finish_reason: "stop" });
    expect((await a.requests()).map((r) => r.authorization)).toEqual(["Bearer k"]);
    expect(await b.requests()).toHaveLength(1);
  });

  it("makeHome writes .npmrc for the registry and the stub model into ~/.gentle-shell/agent", async () => {
    const home = await makeHome(join(work, "made-home"), f);
    expect(await readFile(home.npmrc, "utf8")).toBe(`registry=${f.registryUrl}\n`);
    expect(home.agentDir).toBe(join(home.home, ".gentle-shell", "agent"));
    const models = JSON.parse(await readFile(join(home.agentDir, "models.json"), "utf8"));
    expect(models.providers[STUB_PROVIDER]).toMatchObject({ baseUrl: `${f.modelUrl}/v1`, api: "openai-completions" });
    expect(models.providers[STUB_PROVIDER].apiKey).not.toBe("");
    const settings = JSON.parse(await readFile(join(home.agentDir, "settings.json"), "utf8"));
    expect(settings).toEqual({ defaultProvider: STUB_PROVIDER, defaultModel: STUB_MODEL_ID });
    expect(home.env.HOME).toBe(home.home);
  });
});

describe("artifact mirror", () => {
  const PNPM = "pnpm/pnpm-11.1.1.tgz";
  let original: Buffer;
  beforeAll(async () => {
    original = await readFile(join(f.mirrorRoot, PNPM));
  });

  it("holds the source layout", async () => {
    for (const rel of [
      "node/v24.21.0/node-v24.21.0-linux-x64.tar.gz",
      PNPM,
      ENGRAM_ARCHIVE_PATH,
      ...f.releases.flatMap((r) => [`releases/v${r.shell}/gentle-shell-distribution.json`, `releases/v${r.shell}/gentle-shell-distribution-lock.yaml`]),
    ]) {
      expect((await stat(join(f.mirrorRoot, rel))).isFile(), rel).toBe(true);
    }
    const got = await rawGet(`${f.mirrorUrl}/${PNPM}`);
    expect(got.status).toBe(200);
    expect(got.body.equals(original)).toBe(true);
    expect((await rawGet(`${f.mirrorUrl}/nothing/here`)).status).toBe(404);
    expect((await rawGet(`${f.mirrorUrl}/${PNPM}`, { range: "bytes=10-19" })).body.equals(original.subarray(10, 20))).toBe(true);
  });

  it("injects each fault, per scope, and logs requests", async () => {
    const m = await mirrorClient(f.mirrorUrl).scope();
    const url = `${m.url}/${PNPM}`;

    await m.setFault(PNPM, { kind: "status", status: 503, times: 1 });
    expect((await rawGet(url)).status).toBe(503);
    expect((await rawGet(url)).status).toBe(200);

    await m.setFault(PNPM, { kind: "truncate", afterBytes: 1000 });
    const cut = await rawGet(url);
    expect(cut.body.length).toBe(1000);
    expect(cut.error).not.toBeNull();

    await m.setFault(PNPM, { kind: "wrong-length", delta: 7 });
    const wrong = await rawGet(url);
    expect(Number(wrong.headers["content-length"])).toBe(original.length + 7);
    expect(wrong.body.length).toBe(original.length);

    await m.setFault(PNPM, { kind: "gzip" });
    const gz = await rawGet(url, { "accept-encoding": "identity" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.body.equals(original)).toBe(false);

    await m.setFault(PNPM, { kind: "redirect" });
    const moved = await rawGet(url);
    expect(moved.status).toBe(302);
    const location = String(moved.headers.location);
    expect(new URL(location).origin).not.toBe(new URL(f.mirrorUrl).origin);
    expect((await rawGet(location)).body.equals(original)).toBe(true);

    await m.setFault(PNPM, { kind: "stall", ms: 600, afterBytes: 100 });
    const t = Date.now();
    expect((await rawGet(url)).body.equals(original)).toBe(true);
    expect(Date.now() - t).toBeGreaterThanOrEqual(550);

    await m.setFault(PNPM, { kind: "flip", offset: 5 });
    const flipped = await rawGet(url);
    expect(flipped.body.length).toBe(original.length);
    expect(flipped.body[5]).toBe(original[5]! ^ 0xff);
    expect(Buffer.compare(flipped.body.subarray(6), original.subarray(6))).toBe(0);

    await m.clearFaults();
    expect((await rawGet(url)).body.equals(original)).toBe(true);
    // Faults of one scope never reach another, nor the unscoped mirror.
    await m.setFault(PNPM, { kind: "status", status: 500 });
    expect((await rawGet(`${f.mirrorUrl}/${PNPM}`)).status).toBe(200);

    const log = await m.requests();
    expect(log.map((r) => r.fault)).toEqual(["status", null, "truncate", "wrong-length", "gzip", "redirect", null, "stall", "flip", null]);
    expect(log.find((r) => r.port === "alt")?.path).toBe(PNPM);
  });
});

describe("fixture Node archive", () => {
  it("is nodejs.org-shaped, reproducible, and matches the fixture pin", async () => {
    const rel = "node/v24.21.0/node-v24.21.0-linux-x64.tar.gz";
    const file = join(f.mirrorRoot, rel);
    const pin = f.pins.node.archives["linux-x64"]!;
    expect(pin.path).toBe(rel);
    expect(await sha256File(file)).toBe(pin.sha256);
    expect((await stat(file)).size).toBe(pin.size);

    const tc = await toolchain();
    const again = await buildNodeArchive(join(work, "node-again.tar.gz"), {
      nodeBinary: await tc.ensureNodeBinary(),
      npmTarball: await tc.ensurePackageTarball("npm", "11.19.0"),
    });
    expect(again.sha256).toBe(pin.sha256);

    const out = join(work, "node-x");
    await mkdir(out);
    await tar.x({ file, cwd: out });
    const top = join(out, "node-v24.21.0-linux-x64");
    expect(await readlink(join(top, "bin", "npm"))).toBe("../lib/node_modules/npm/bin/npm-cli.js");
    expect(await readlink(join(top, "bin", "npx"))).toBe("../lib/node_modules/npm/bin/npx-cli.js");
    expect(await readlink(join(top, "bin", "corepack"))).toBe("../lib/node_modules/corepack/dist/corepack.js");
    for (const p of ["include/node/node_version.h", "share/man/man1/node.1", "CHANGELOG.md", "LICENSE", "README.md"]) {
      expect((await stat(join(top, p))).isFile(), p).toBe(true);
    }
    const bin = join(top, "bin", "node");
    expect((await runChecked(bin, ["--version"])).stdout.trim()).toBe("v24.21.0");
    const npm = await runChecked(bin, [join(top, "bin", "npm"), "--version"], { env: homeEnv(work) });
    expect(npm.stdout.trim()).toBe("11.19.0");
  });
});

describe("fixture Engram", () => {
  it("the archive holds only engram, which prints its version and serves the ready contract", async () => {
    const file = join(f.mirrorRoot, ENGRAM_ARCHIVE_PATH);
    const pin = f.pins.engram.archives["linux-x64"]!;
    expect(await sha256File(file)).toBe(pin.sha256);
    const entries: string[] = [];
    await tar.t({ file, onReadEntry: (e) => entries.push(e.path) });
    expect(entries).toEqual(["engram"]);

    const dir = join(work, "engram-x");
    await mkdir(dir);
    await tar.x({ file, cwd: dir });
    const engram = join(dir, "engram");
    expect((await runChecked(engram, ["version"])).stdout).toBe(`engram ${ENGRAM_VERSION}\n`);

    const port = await freePort();
    const child = spawn(engram, ["serve"], {
      cwd: dir,
      env: { ...homeEnv(dir), ENGRAM_PORT: String(port), ENGRAM_NO_UPDATE_CHECK: "1" },
      stdio: "ignore",
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/health`, 10_000, () => (child.exitCode !== null ? `exit ${child.exitCode}` : null));
      const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
      expect(health).toMatchObject({ status: "ok", version: ENGRAM_VERSION });
      expect(health.instance_id).toMatch(/^[0-9a-f]{32}$/);
      const compat = await (await fetch(`http://127.0.0.1:${port}/compatibility`)).json();
      expect(compat).toEqual({
        status: "ready",
        active_reuse_authorized: true,
        capability: "startup-verified-store-v1",
        revision: 1,
        source: "active",
        instance_id: health.instance_id,
        runtime_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      const seen = await (await fetch(`http://127.0.0.1:${port}/__fixture`)).json();
      expect(seen).toMatchObject({ argv: ["serve"], cwd: dir });
      expect(seen.env.ENGRAM_NO_UPDATE_CHECK).toBe("1");
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("engram serve asks for the token when ENGRAM_HTTP_TOKEN is set", async () => {
    const engram = await engramProgramIn(join(work, "engram-token"));
    const port = await freePort();
    const child = spawn(engram, ["serve"], { env: { ...process.env, ENGRAM_PORT: String(port), ENGRAM_HTTP_TOKEN: "t0k" }, stdio: "ignore" });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/__fixture`, 10_000);
      expect((await fetch(`http://127.0.0.1:${port}/compatibility`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/compatibility`, { headers: { authorization: "Bearer t0k" } });
      expect(ok.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
  });

  const rows: [EngramVariant, number, number, (h: string, c: string) => void][] = [
    ["ready", 200, 200, (_h, c) => expect(JSON.parse(c).status).toBe("ready")],
    ["unauthorized", 401, 401, () => {}],
    ["not-found", 404, 404, () => {}],
    ["old", 200, 404, (h) => expect(JSON.parse(h).version).toBe("3.3.2")],
    [
      "malformed",
      200,
      200,
      (h, c) => {
        expect(() => JSON.parse(h)).toThrow();
        expect(() => JSON.parse(c)).toThrow();
      },
    ],
    ["not-ready", 200, 200, (_h, c) => expect(JSON.parse(c)).toMatchObject({ status: "starting", active_reuse_authorized: false })],
  ];
  for (const [variant, healthStatus, compatStatus, check] of rows) {
    it(`in-process variant ${variant}: /health ${healthStatus}, /compatibility ${compatStatus}`, async () => {
      const server = await startEngramServer({ variant });
      try {
        const h = await fetch(`${server.url}/health`);
        const c = await fetch(`${server.url}/compatibility`);
        expect([h.status, c.status]).toEqual([healthStatus, compatStatus]);
        check(await h.text(), await c.text());
        expect(server.requests.map((r) => r.path)).toEqual(["/health", "/compatibility"]);
      } finally {
        await server.stop();
      }
    });
  }

  it("in-process variant slow answers after the 1 s probe budget", async () => {
    const server = await startEngramServer({ variant: "slow", delayMs: 1500 });
    try {
      await expect(fetch(`${server.url}/compatibility`, { signal: AbortSignal.timeout(1000) })).rejects.toThrow();
    } finally {
      await server.stop();
    }
  });
});

describe("fixture pins and binary", () => {
  it("pins: kind fixture, our archives, production pnpm and Go", async () => {
    const pins = JSON.parse(await readFile(f.pinsFile, "utf8"));
    expect(pins).toEqual(f.pins);
    expect(pins.kind).toBe("fixture");
    expect(pins.pnpm).toEqual(productionPins.pnpm);
    expect(pins.go).toEqual(productionPins.go);
    expect(pins.engram.archives["linux-x64"].size).toBe((await stat(join(f.mirrorRoot, ENGRAM_ARCHIVE_PATH))).size);
    expect(pins.engram.archives["darwin-arm64"].sha256).toBeNull();
  });

  it("the fixture binary is built at dist/fixture with those pins", async () => {
    expect(f.binary, "built unless GSS_FIXTURES_SKIP_BUILD=1").toBe(FIXTURE_BINARY);
    await access(FIXTURE_BINARY, constants.X_OK);
    const result = await runCommand(FIXTURE_BINARY, ["--version"], { env: { PATH: "/nonexistent", HOME: work } });
    expect(result.stdout.trim()).toMatch(/^gentle-shell-setup \S+ \(pins: fixture\)$/);
  });
});
