/**
 * The artifact fixtures, each doing what the other tests rely on: the
 * artifact mirror (source layout, faults per scope, request log), the
 * nodejs.org-shaped Node archive, the fixture Engram (archive, program,
 * in-process variants), and the fixture pins and binary. The registry, Pi,
 * the fixture release and the stub model: fixtures-packages.test.ts.
 */
import { spawn } from "node:child_process";
import { access, constants, mkdir, readFile, readlink, stat } from "node:fs/promises";
import { request } from "node:http";
import { basename, join } from "node:path";
import * as tar from "tar";
import { beforeAll, describe, expect, it } from "vitest";
import { productionPins } from "../../src/pins/production";
import { fixtures } from "../support/context";
import { FD_ARCHIVE_PATH, FD_RESULT, FD_VERSION, RG_RESULT, RIPGREP_ARCHIVE_PATH, RIPGREP_VERSION } from "../support/pi-tools";
import { ENGRAM_ARCHIVE_PATH, ENGRAM_VERSION, engramProgramIn, startEngramServer, type EngramVariant } from "../support/engram";
import { FIXTURE_BINARY, homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { buildNodeArchive, sha256File } from "../support/node-archive";
import { freePort, runChecked, runCommand, waitForHttp } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { toolchain } from "../support/toolchain";

const f = fixtures();
const work = scratchDir("gss-fixtures-test-");

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

describe("fixture fd and rg", () => {
  it("each archive holds the program in its release-shaped folder, which answers --version like the real tool and prints its result", async () => {
    for (const [tool, rel, exe, version, result] of [
      ["fd", FD_ARCHIVE_PATH, "fd", `fd ${FD_VERSION}\n`, `${FD_RESULT}\n`],
      ["ripgrep", RIPGREP_ARCHIVE_PATH, "rg", `ripgrep ${RIPGREP_VERSION}\n\nfeatures:+pcre2 (test fixture)\n`, `${RG_RESULT}\n`],
    ] as const) {
      const file = join(f.mirrorRoot, rel);
      const pin = f.pins.tools[tool].archives["linux-x64"]!;
      expect(pin.path).toBe(rel);
      expect([await sha256File(file), (await stat(file)).size]).toEqual([pin.sha256, pin.size]);
      expect(f.pins.tools[tool].archives["darwin-arm64"]!.sha256).toBeNull();
      const entries: string[] = [];
      await tar.t({ file, onReadEntry: (e) => entries.push(e.path) });
      const top = rel
        .split("/")
        .pop()!
        .replace(/\.tar\.gz$/, "");
      expect(entries.sort()).toEqual([`${top}/`, `${top}/LICENSE-MIT`, `${top}/README.md`, `${top}/${exe}`].sort());
      const dir = join(work, `tool-${exe}`);
      await mkdir(dir, { recursive: true });
      await tar.x({ file, cwd: dir });
      const program = join(dir, top, exe);
      expect((await runChecked(program, ["--version"])).stdout).toBe(version);
      expect((await runChecked(program, ["--type", "f", "x"])).stdout).toBe(result);
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

  it("the fixture binary is built at dist/fixture with those pins, and the run uses its own link to it", async () => {
    expect(f.binary, "built unless GSS_FIXTURES_SKIP_BUILD=1").toBe(join(f.runDir, basename(FIXTURE_BINARY)));
    await access(FIXTURE_BINARY, constants.X_OK);
    for (const binary of [FIXTURE_BINARY, f.binary!]) {
      const result = await runCommand(binary, ["--version"], { env: { PATH: "/nonexistent", HOME: work } });
      expect(result.stdout.trim()).toMatch(/^gentle-shell-setup \S+ \(pins: fixture\)$/);
    }
  });
});
