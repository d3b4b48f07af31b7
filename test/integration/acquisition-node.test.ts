/**
 * Acquiring Node with npm, and pnpm (spec: "Ownership rules", Runtimes; "npm
 * for Pi"), from the artifact mirror with the real Node archive's shape and
 * the fixture pins: publish by one rename, reuse, Pi's npm entry, stale
 * staging, and faults that leave nothing published. Go and Engram:
 * acquisition-go-engram.test.ts; hostile archives: acquisition-hostile.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { ensureNpmShim, npmShimFiles } from "../../src/install/runtime/npm-shim";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { RUNTIME_FILES } from "../../src/install/runtime/marker";
import { checkFileRecord, RECORDED_LINE } from "../../src/install/runtime/file-record";
import { parseFileRecord } from "../../src/core/file-record";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { runCommand } from "../support/proc";
import { context, fast, runtimeEntries } from "../support/runtime-context";

const f = fixtures();
const NODE_PATH = f.pins.node.archives["linux-x64"]!.path;

describe("Node with npm and pnpm from the mirror", () => {
  let ctx: Awaited<ReturnType<typeof context>>;
  let first: Awaited<ReturnType<typeof ensureRuntimes>>;

  beforeAll(async () => {
    ctx = await context();
    first = await ensureRuntimes(ctx);
  });

  it("publishes both, marked, with nothing else left in runtime/", async () => {
    expect(first.node.status).toBe("installed");
    expect(first.pnpm.status).toBe("installed");
    expect(await runtimeEntries(ctx.layout)).toEqual(["node-24.21.0", "pnpm-11.1.1"]);
    expect(await fs.readFile(join(ctx.layout.nodeDir, RUNTIME_MARKER), "utf8")).toBe(
      `node 24.21.0 npm 11.19.0 sha256 ${f.pins.node.archives["linux-x64"]!.sha256}\n${RECORDED_LINE}\n`,
    );
    // The marker's last line says a record was written beside it: a record deleted later is a break, not an old install.
    expect(await fs.readFile(join(ctx.layout.pnpmDir, RUNTIME_MARKER), "utf8")).toBe(`pnpm 11.1.1 ${f.pins.pnpm.integrity}\n${RECORDED_LINE}\n`);
  });

  it("records each runtime's extracted files (size and sha256) beside the marker, which doctor then finds as published", async () => {
    const record = parseFileRecord(await fs.readFile(join(ctx.layout.nodeDir, RUNTIME_FILES), "utf8"));
    if (record.kind !== "record") throw new Error(`node's file record is ${record.kind}`);
    const node = record.entries.find((e) => e.path === "bin/node");
    const bytes = await fs.readFile(ctx.layout.node);
    // Its mode too (issue 47): chmod -x on node is a difference from the record.
    const mode = (await fs.stat(ctx.layout.node)).mode & 0o777;
    expect(mode & 0o111).not.toBe(0);
    expect(node).toEqual({ path: "bin/node", size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), mode });
    const paths = record.entries.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["LICENSE", "bin/npm", "bin/npx", "lib/node_modules/npm/bin/npm-cli.js"]));
    // Neither the marker, nor the record itself, nor Pi's npm entry (written after publishing) is in it.
    expect(paths.filter((p) => p.startsWith(".gentle-shell") || p.startsWith("gentle-shell/"))).toEqual([]);
    expect(await checkFileRecord(ctx.layout.nodeDir)).toEqual({ kind: "checked", files: paths.length, differences: [] });
    const pnpm = await checkFileRecord(ctx.layout.pnpmDir);
    expect(pnpm).toMatchObject({ kind: "checked", differences: [] });
    expect(pnpm.kind === "checked" && pnpm.files).toBeGreaterThan(1);
  });

  it("keeps node, npm and the licence only; links and Corepack skipped; our sh wrappers run our npm", async () => {
    expect((await fs.readdir(ctx.layout.nodeDir)).sort()).toEqual([RUNTIME_FILES, RUNTIME_MARKER, "LICENSE", "bin", "gentle-shell", "lib"]);
    expect((await fs.readdir(join(ctx.layout.nodeDir, "bin"))).sort()).toEqual(["node", "npm", "npx"]);
    expect(await fs.readdir(join(ctx.layout.nodeDir, "lib", "node_modules"))).toEqual(["npm"]);
    for (const bin of ["npm", "npx"]) {
      const st = await fs.lstat(join(ctx.layout.nodeDir, "bin", bin));
      expect(st.isFile()).toBe(true);
      expect(st.mode & 0o777).toBe(0o755);
    }
    const env = homeEnv(ctx.layout.home, { PATH: "/usr/bin:/bin" });
    const npm = await runCommand(join(ctx.layout.nodeDir, "bin", "npm"), ["--version"], { env, cwd: ctx.layout.home });
    expect(npm.stdout.trim()).toBe("11.19.0");
    const npx = await runCommand(join(ctx.layout.nodeDir, "bin", "npx"), ["--version"], { env, cwd: ctx.layout.home });
    expect(npx.stdout.trim()).toBe("11.19.0");
  });

  it("writes Pi's CommonJS npm entry, which runs our npm even under a package.json of type module", async () => {
    const files = npmShimFiles(false);
    expect(await fs.readFile(join(ctx.layout.nodeDir, "gentle-shell", "npm"), "utf8")).toBe(files.entry);
    expect(await fs.readFile(join(ctx.layout.nodeDir, "gentle-shell", "package.json"), "utf8")).toBe('{"type":"commonjs"}\n');
    await fs.writeFile(join(ctx.layout.prefix, "package.json"), '{"type":"module"}\n');
    try {
      const r = await runCommand(ctx.layout.node, [ctx.layout.npmEntry, "--version"], { env: homeEnv(ctx.layout.home), cwd: ctx.layout.prefix });
      expect(r.stdout.trim()).toBe("11.19.0");
    } finally {
      await fs.rm(join(ctx.layout.prefix, "package.json"));
    }
  });

  it("keeps pnpm's executable bits for the owner only", async () => {
    expect((await fs.stat(join(ctx.layout.pnpmDir, "package", "bin", "pnpm.mjs"))).mode & 0o777).toBe(0o744);
  });

  it("reuses both on the next run without a request", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const again = await ensureRuntimes({ ...ctx, source: { kind: "mirror", base: scope.url } });
    expect([again.node.status, again.pnpm.status]).toEqual(["reused", "reused"]);
    expect(await scope.requests()).toEqual([]);
  });

  it("with engram: true, adds the pinned Engram alongside, and reuses what is there", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const r = await ensureRuntimes({ ...ctx, source: { kind: "mirror", base: scope.url } }, { engram: true });
    expect([r.node.status, r.pnpm.status, r.engram?.status]).toEqual(["reused", "reused", "installed"]);
    expect((await scope.requests()).map((q) => q.path)).toEqual([f.pins.engram.archives["linux-x64"]!.path]);
    expect((await runCommand(ctx.layout.engram, ["version"])).stdout.trim()).toBe("engram 3.5.2");
    expect(await runtimeEntries(ctx.layout)).toEqual(["engram-3.5.2", "node-24.21.0", "pnpm-11.1.1"]);
  });

  it("rewrites the npm entry only when it differs, and never over a link", async () => {
    const entry = join(ctx.layout.nodeDir, "gentle-shell", "npm");
    const before = await fs.stat(entry);
    await ensureNpmShim(ctx.layout);
    expect((await fs.stat(entry)).ino).toBe(before.ino);
    await fs.writeFile(entry, "// changed\n");
    await ensureNpmShim(ctx.layout);
    expect(await fs.readFile(entry, "utf8")).toBe(npmShimFiles(false).entry);

    const target = join(ctx.layout.home, "elsewhere.js");
    await fs.writeFile(target, "// someone else's\n");
    await fs.rm(entry);
    await fs.symlink(target, entry);
    await expect(ensureNpmShim(ctx.layout)).rejects.toThrow(/is not a regular file; it was left alone/);
    expect(await fs.readFile(target, "utf8")).toBe("// someone else's\n");
    expect((await fs.lstat(entry)).isSymbolicLink()).toBe(true);

    const dir = join(ctx.layout.nodeDir, "gentle-shell");
    await fs.rm(dir, { recursive: true });
    await fs.symlink(ctx.layout.home, dir);
    await expect(ensureNpmShim(ctx.layout)).rejects.toThrow(`${dir} is a link, not a folder of Gentle Shell's; nothing was written through it`);
    await fs.rm(dir);
    await ensureNpmShim(ctx.layout);
    expect(await fs.readFile(entry, "utf8")).toBe(npmShimFiles(false).entry);
  });

  it("cleans stale staging of dead installers and keeps a live one's", async () => {
    const dead = join(ctx.layout.runtime, ".staging-node-24.21.0-999999-deadbeef");
    const deadDownload = join(ctx.layout.runtime, ".download-999999-deadbeef");
    const live = join(ctx.layout.runtime, `.staging-node-24.21.0-${process.ppid}-0badcafe`);
    await fs.mkdir(dead);
    await fs.writeFile(deadDownload, "partial");
    await fs.mkdir(live);
    await ensureRuntimes(ctx);
    const left = await runtimeEntries(ctx.layout);
    expect(left).not.toContain(".staging-node-24.21.0-999999-deadbeef");
    expect(left).not.toContain(".download-999999-deadbeef");
    expect(left).toContain(`.staging-node-24.21.0-${process.ppid}-0badcafe`);
    await fs.rm(live, { recursive: true });
  });
});

describe("faults while acquiring Node leave nothing published", () => {
  it.each([
    ["a 404", { kind: "status", status: 404 }, /^Node 24\.21\.0 \(linux-x64\): .* answered HTTP 404$/],
    ["one flipped byte", { kind: "flip" }, /^Node 24\.21\.0 \(linux-x64\) from .* does not match its pinned sha256; it was not used$/],
    ["a gzip-encoded body", { kind: "gzip" }, /^Node 24\.21\.0 \(linux-x64\): .* sent a gzip-encoded body/],
    ["a redirect to another host", { kind: "redirect" }, /not an allowed host for Node 24\.21\.0 \(linux-x64\)/],
    ["a truncated body", { kind: "truncate" }, /^Node 24\.21\.0 \(linux-x64\): .*gave up after 2 attempts/],
  ] as const)("%s", async (_name, fault, message) => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(NODE_PATH, fault);
    const ctx = await context({ base: scope.url });
    ctx.fetch = { download: { ...fast, attempts: 2 } };
    await expect(ensureRuntimes(ctx)).rejects.toThrow(message);
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });

  it("downloads pnpm at the same time as Node (Node's 404 does not stop pnpm's request), and leaves neither", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(NODE_PATH, { kind: "status", status: 404 });
    const ctx = await context({ base: scope.url });
    await expect(ensureRuntimes(ctx)).rejects.toThrow(/HTTP 404/);
    const paths = (await scope.requests()).map((r) => r.path).sort();
    expect(paths).toEqual([f.pins.pnpm.file.path, NODE_PATH].sort());
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });

  it("a pnpm tarball with one flipped byte publishes neither runtime, though Node's archive was sound (both are staged at once)", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(f.pins.pnpm.file.path, { kind: "flip" });
    const ctx = await context({ base: scope.url });
    ctx.fetch = { download: { ...fast, attempts: 2 } };
    await expect(ensureRuntimes(ctx)).rejects.toThrow(/^pnpm 11\.1\.1 from .* does not match its pinned sha512 integrity; it was not used$/);
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });

  it("a check that fails on one side stops both: nothing is published before every check passed", async () => {
    const ctx = await context();
    const seen: string[] = [];
    ctx.beforePublish = async (name) => {
      seen.push(name);
    };
    // pnpm's check fails (it prints 11.1.1, not the version these pins name) while Node's passes.
    const broken = { ...ctx, pins: { ...ctx.pins, pnpm: { ...ctx.pins.pnpm, version: "0.0.0-not-this" } } };
    await expect(ensureRuntimes(broken)).rejects.toThrow(/pnpm 0\.0\.0-not-this printed "11\.1\.1" for --version/);
    expect(seen).toEqual([]);
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });

  it("a check that must pass first (the release's manifest) and fails stops the downloads still running, and installs nothing", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    // Node's archive stalls for ten minutes after its first bytes: only a cancelled download ends before that.
    await scope.setFault(NODE_PATH, { kind: "stall", ms: 600_000, afterBytes: 65_536 });
    const ctx = await context({ base: scope.url });
    ctx.fetch = { download: { ...fast, attempts: 2, stallMs: 600_000, timeoutMs: 600_000 } };
    let fail!: (error: Error) => void;
    const before = new Promise<never>((_resolve, reject) => {
      fail = reject;
    });
    const running = ensureRuntimes(ctx, { before });
    // The check fails once Node's request is under way.
    while (!(await scope.requests()).some((r) => r.path === NODE_PATH)) await new Promise((r) => setTimeout(r, 20));
    fail(new Error("Gentle Shell 4.1.0's signed manifest does not verify"));
    await expect(running).rejects.toThrow(/^Gentle Shell 4\.1\.0's signed manifest does not verify$/);
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
    // Nor is the runtime folder left behind, which this run made.
    await expect(fs.lstat(ctx.layout.runtime)).rejects.toThrow(/ENOENT/);
    // Without the cancel, the stalled download would hold this test well past its time limit.
  }, 30_000);

  it("a pnpm that is not known yet (the official source asks our npm) waits for Node", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(NODE_PATH, { kind: "status", status: 404 });
    const ctx = await context({ base: scope.url });
    let asked = false;
    await expect(
      ensureRuntimes(ctx, {
        pnpmSource: async () => {
          asked = true;
          return ctx.source;
        },
      }),
    ).rejects.toThrow(/HTTP 404/);
    expect(asked).toBe(false);
    expect((await scope.requests()).map((r) => r.path)).toEqual([NODE_PATH]);
  });
});
