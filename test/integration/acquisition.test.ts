/**
 * Acquiring the runtimes (spec: "Ownership rules", Runtimes; "npm for Pi";
 * Isolation, Engram) from the artifact mirror, with the real Node archive's
 * shape and the fixture pins: publish by one rename, reuse, never replace,
 * faults that leave nothing published, npm's entry, Go and Engram.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { scratchDir } from "../support/scratch";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import type { Pins } from "../../src/pins/types";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { ensureEngram } from "../../src/install/runtime/engram";
import { acquireGo } from "../../src/install/runtime/go";
import { ensureNpmShim, npmShimFiles } from "../../src/install/runtime/npm-shim";
import { RUNTIME_MARKER, type RuntimeContext } from "../../src/install/runtime/recipe";
import { fixtures } from "../support/context";
import { engramScript } from "../support/engram";
import { homeEnv } from "../support/fixtures";
import { mirrorClient, startMirror, type Mirror } from "../support/mirror";
import { runCommand } from "../support/proc";
import { packDeterministic } from "../support/tarball";
import { productionPins } from "../../src/pins/production";
import { crc32, createGzip } from "node:zlib";
import { Header } from "tar";
import { rawTarGz, type RawMember } from "../support/raw-tar";

const f = fixtures();
const NODE_PATH = f.pins.node.archives["linux-x64"]!.path;
// The mirror gzips the whole archive before it answers: the stall timeout leaves room for that.
const fast = { backoffMs: 5, stallMs: 20_000 };

function newHome(): string {
  return scratchDir("gss-acq-");
}

async function context(options: { pins?: Pins; base?: string; home?: string } = {}): Promise<RuntimeContext & { layout: Layout }> {
  const home = options.home ?? newHome();
  const pins = options.pins ?? f.pins;
  const base = options.base ?? (await mirrorClient(f.mirrorUrl).scope()).url;
  return {
    layout: prefixLayout({ home, platform: "linux", pins }),
    pins,
    source: { kind: "mirror", base },
    target: "linux-x64",
    env: homeEnv(home),
    fetch: { download: fast },
  };
}

/** Everything in runtime/, with dot entries (staging folders, downloads). */
async function runtimeEntries(layout: Layout): Promise<string[]> {
  return (await fs.readdir(layout.runtime).catch(() => [] as string[])).sort();
}

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
      `node 24.21.0 npm 11.19.0 sha256 ${f.pins.node.archives["linux-x64"]!.sha256}\n`,
    );
    expect(await fs.readFile(join(ctx.layout.pnpmDir, RUNTIME_MARKER), "utf8")).toBe(`pnpm 11.1.1 ${f.pins.pnpm.integrity}\n`);
  });

  it("keeps node, npm and the licence only; links and Corepack skipped; our sh wrappers run our npm", async () => {
    expect((await fs.readdir(ctx.layout.nodeDir)).sort()).toEqual([RUNTIME_MARKER, "LICENSE", "bin", "gentle-shell", "lib"]);
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
    await expect(ensureNpmShim(ctx.layout)).rejects.toThrow(/is not a folder; Pi's npm entry was not written/);
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

// --- Go and Engram from a mirror of their own (fixture archives, fixture pins) ---

describe("Go and Engram", () => {
  let root: string;
  let mirror: Mirror;
  let pins: Pins;
  const GO_PATH = "go/go1.25.14.linux-amd64.tar.gz";
  const ENGRAM_PATH = "engram/v3.5.2/engram_3.5.2_linux_amd64.tar.gz";
  const ENGRAM_WRONG = "engram/v3.5.2/wrong-version.tar.gz";

  async function filePin(rel: string, maxBytes = 64 * 1024 * 1024) {
    const data = await fs.readFile(join(root, rel));
    return { path: rel, sha256: createHash("sha256").update(data).digest("hex"), size: data.length, maxBytes };
  }

  beforeAll(async () => {
    root = scratchDir("gss-acq-mirror-");
    // A Go-shaped archive: go/bin/go prints the pinned version; go/misc/link is a link (skipped).
    const stage = scratchDir("gss-go-");
    await fs.mkdir(join(stage, "go", "bin"), { recursive: true });
    await fs.mkdir(join(stage, "go", "src"), { recursive: true });
    await fs.mkdir(join(stage, "go", "misc"), { recursive: true });
    await fs.writeFile(
      join(stage, "go", "bin", "go"),
      '#!/bin/sh\n[ "$1" = version ] && echo "go version go1.25.14 linux/amd64 (test fixture)" && exit 0\nexit 2\n',
      { mode: 0o755 },
    );
    await fs.writeFile(join(stage, "go", "VERSION"), "go1.25.14\n");
    await fs.writeFile(join(stage, "go", "src", "fixture.go"), "package fixture\n");
    await fs.symlink("../VERSION", join(stage, "go", "misc", "link"));
    await fs.mkdir(join(root, "go"), { recursive: true });
    await packDeterministic(stage, "go", join(root, GO_PATH));
    // Engram: the fixture program with a README beside it, and one that prints another version.
    const e = scratchDir("gss-engram-");
    await fs.mkdir(join(e, "ok", "pkg"), { recursive: true });
    await fs.writeFile(join(e, "ok", "pkg", "engram"), engramScript(), { mode: 0o755 });
    await fs.writeFile(join(e, "ok", "pkg", "README.md"), "fixture\n");
    await fs.mkdir(join(e, "bad"), { recursive: true });
    await fs.writeFile(join(e, "bad", "engram"), "#!/bin/sh\necho engram 3.5.1\n", { mode: 0o755 });
    await fs.mkdir(join(root, "engram", "v3.5.2"), { recursive: true });
    await packFlat(join(e, "ok", "pkg"), ["README.md", "engram"], join(root, ENGRAM_PATH));
    await packDeterministic(join(e, "bad"), "engram", join(root, ENGRAM_WRONG));
    await fs.rm(stage, { recursive: true, force: true });
    await fs.rm(e, { recursive: true, force: true });
    mirror = await startMirror({ root });
    pins = {
      ...f.pins,
      go: { ...f.pins.go, source: "test fixture", archives: { "linux-x64": await filePin(GO_PATH) } },
      engram: { ...f.pins.engram, source: "test fixture", archives: { "linux-x64": await filePin(ENGRAM_PATH) } },
    };
  });
  afterAll(async () => {
    await mirror.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("acquireGo publishes runtime/go/1.25.14/go with its marker, links skipped, then reuses it", async () => {
    const ctx = await context({ pins, base: mirror.url });
    const r = await acquireGo(ctx);
    expect(r).toEqual({ name: "Go 1.25.14", path: ctx.layout.goDir, status: "installed" });
    expect(ctx.layout.goDir).toBe(join(ctx.layout.runtime, "go", "1.25.14", "go"));
    expect((await fs.readdir(join(ctx.layout.runtime, "go", "1.25.14"))).sort()).toEqual([RUNTIME_MARKER, "go"]);
    expect((await fs.readdir(join(ctx.layout.goDir))).sort()).toEqual(["VERSION", "bin", "misc", "src"]);
    expect(await fs.readdir(join(ctx.layout.goDir, "misc"))).toEqual([]);
    expect(await fs.readdir(join(ctx.layout.runtime, "go"))).toEqual(["1.25.14"]);
    expect((await acquireGo(ctx)).status).toBe("reused");
  });

  it("acquireGo refuses an archive other than the pinned size, and publishes nothing", async () => {
    const pin = pins.go.archives["linux-x64"]!;
    const ctx = await context({ pins: { ...pins, go: { ...pins.go, archives: { "linux-x64": { ...pin, size: pin.size! + 1 } } } }, base: mirror.url });
    await expect(acquireGo(ctx)).rejects.toThrow(/Go 1\.25\.14 \(linux-x64\) is exactly/);
    expect(await fs.readdir(join(ctx.layout.runtime, "go"))).toEqual([]);
  });

  it("ensureEngram writes only the engram file, checked with `engram version`", async () => {
    const ctx = await context({ pins, base: mirror.url });
    const r = await ensureEngram(ctx);
    expect(r).toMatchObject({ status: "installed", available: true, path: ctx.layout.engramDir });
    expect((await fs.readdir(ctx.layout.engramDir)).sort()).toEqual([RUNTIME_MARKER, "engram"]);
    expect((await fs.stat(ctx.layout.engram)).mode & 0o777).toBe(0o755);
    expect((await runCommand(ctx.layout.engram, ["version"])).stdout.trim()).toBe("engram 3.5.2");
    expect((await ensureEngram(ctx)).status).toBe("reused");
  });

  it("ensureEngram refuses a core that prints another version, and publishes nothing", async () => {
    const bad = await filePin(ENGRAM_WRONG);
    const ctx = await context({ pins: { ...pins, engram: { ...pins.engram, archives: { "linux-x64": bad } } }, base: mirror.url });
    await expect(ensureEngram(ctx)).rejects.toThrow('Engram 3.5.2 printed "engram 3.5.1" for engram version, expected "engram 3.5.2"');
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });

  it("the Windows archive path: Go and Engram from .zip archives, modes from their Unix attributes", async () => {
    await fs.mkdir(join(root, "zip"), { recursive: true });
    const goScript = '#!/bin/sh\necho "go version go1.25.14 linux/amd64 (zip fixture)"\n';
    await fs.writeFile(
      join(root, "zip", "go.zip"),
      storedZip([
        { name: "go/" },
        { name: "go/bin/" },
        { name: "go/bin/go", body: goScript, mode: 0o100755 },
        { name: "go/misc/l", body: "../bin/go", mode: 0o120777 },
      ]),
    );
    await fs.writeFile(
      join(root, "zip", "engram.zip"),
      storedZip([
        { name: "README.md", body: "x" },
        { name: "engram", body: engramScript(), mode: 0o100755 },
      ]),
    );
    const zipPins: Pins = {
      ...pins,
      go: { ...pins.go, archives: { "linux-x64": await filePin("zip/go.zip") } },
      engram: { ...pins.engram, archives: { "linux-x64": await filePin("zip/engram.zip") } },
    };
    const ctx = await context({ pins: zipPins, base: mirror.url });
    expect((await acquireGo(ctx)).status).toBe("installed");
    expect((await fs.stat(join(ctx.layout.goDir, "bin", "go"))).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(ctx.layout.goDir)).toEqual(["bin"]);
    expect((await ensureEngram(ctx)).status).toBe("installed");
    expect((await fs.readdir(ctx.layout.engramDir)).sort()).toEqual([RUNTIME_MARKER, "engram"]);
  });

  it("ensureEngram with the production pins (not recorded): unavailable, with the reason, and nothing asked", async () => {
    const ctx = await context({ pins: { ...pins, engram: productionPins.engram }, base: mirror.url });
    const before = mirror.requests.length;
    const r = await ensureEngram(ctx);
    expect(r).toEqual({
      name: "Engram 3.5.2",
      available: false,
      status: "unavailable",
      path: null,
      reason: "Engram 3.5.2 for linux-x64 has no pinned checksum in this build, so it is not downloaded; memory stays disabled (the bundled core is missing)",
    });
    expect(mirror.requests.length).toBe(before);
    expect(await runtimeEntries(ctx.layout)).toEqual([]);
  });
});

/** A .tar.gz of `names` directly at its root (the shape of Engram's release archives). */
async function packFlat(dir: string, names: string[], out: string): Promise<void> {
  const tar = await import("tar");
  await tar.c({ cwd: dir, file: out, gzip: true, portable: true, mtime: new Date(0) }, names);
}

// --- hostile archives at the runtime level -------------------------------------

type Member = RawMember;

/** Every member executable, as in the runtime archives these stand in for. */
function tarGz(members: Member[]): Buffer {
  return rawTarGz(members.map((m) => ({ mode: 0o755, ...m })));
}

describe("hostile archives publish nothing", () => {
  let root: string;
  let mirror: Mirror;
  const top = "node-v24.21.0-linux-x64";
  const nodeBase: Member[] = [
    { path: `${top}/`, type: "Directory" },
    { path: `${top}/bin/node`, body: "#!/bin/sh\necho v24.21.0\n" },
  ];

  beforeAll(async () => {
    root = scratchDir("gss-hostile-mirror-");
    mirror = await startMirror({ root });
  });
  afterAll(async () => {
    await mirror.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** Serve `data` as the Node archive (or the pnpm tarball), pinned, and run ensureRuntimes. */
  async function attempt(which: "node" | "pnpm", data: Buffer) {
    const rel = `${which}/${Math.random().toString(16).slice(2)}.tgz`;
    await fs.mkdir(join(root, which), { recursive: true });
    await fs.writeFile(join(root, rel), data);
    const file = { path: rel, sha256: createHash("sha256").update(data).digest("hex"), size: data.length, maxBytes: 64 * 1024 * 1024 };
    const pins: Pins =
      which === "node"
        ? { ...f.pins, node: { ...f.pins.node, archives: { "linux-x64": file } } }
        : { ...f.pins, pnpm: { ...f.pins.pnpm, integrity: null, file } };
    const ctx = await context({ pins, base: mirror.url });
    if (which === "pnpm") {
      // A marked Node stands in for ours: pnpm's archive is refused before anything runs.
      await fs.mkdir(ctx.layout.nodeDir, { recursive: true });
      await fs.writeFile(join(ctx.layout.nodeDir, RUNTIME_MARKER), "test\n");
    }
    const error = await ensureRuntimes(ctx).then(
      () => null,
      (e: Error) => e,
    );
    const left = (await runtimeEntries(ctx.layout)).filter((n) => n !== "node-24.21.0" || which === "node");
    return { error, left };
  }

  it.each([
    [
      "../x",
      "node",
      [...nodeBase, { path: `${top}/../x`, body: "x" }],
      /node-v24\.21\.0-linux-x64 archive holds a member outside its folder \(node-v24\.21\.0-linux-x64\/\.\.\/x\)/,
    ],
    [
      "an absolute member",
      "node",
      [...nodeBase, { path: "/tmp/gss-absolute-x", body: "x" }],
      /node-v24\.21\.0-linux-x64 archive holds a member outside its folder \(\/tmp\/gss-absolute-x\)/,
    ],
    [
      "a device member",
      "node",
      [...nodeBase, { path: `${top}/lib/node_modules/npm/dev`, type: "CharacterDevice" }],
      /node-v24\.21\.0-linux-x64 archive holds a CharacterDevice member/,
    ],
    [
      "a symbolic link (pnpm)",
      "pnpm",
      [
        { path: "package/bin/pnpm.mjs", body: "x" },
        { path: "package/l", type: "SymbolicLink", linkpath: "/etc/passwd" },
      ],
      /pnpm tarball holds a link \(package\/l\)/,
    ],
    [
      "a hard link (pnpm)",
      "pnpm",
      [
        { path: "package/a", body: "x" },
        { path: "package/h", type: "Link", linkpath: "package/a" },
      ],
      /pnpm tarball holds a link \(package\/h\)/,
    ],
  ] as Array<[string, "node" | "pnpm", Member[], RegExp]>)("%s", async (_name, which, members, message) => {
    const { error, left } = await attempt(which, tarGz(members));
    expect(error?.message).toMatch(message);
    expect(left).toEqual([]);
    await expect(fs.stat("/tmp/gss-absolute-x")).rejects.toThrow();
  });

  it("100,000 members", async () => {
    const many: Member[] = [...nodeBase];
    for (let i = 0; i < 100_000; i++) many.push({ path: `${top}/lib/node_modules/npm/f${i}` });
    const { error, left } = await attempt("node", tarGz(many));
    expect(error?.message).toMatch(/node-v24\.21\.0-linux-x64 archive has more than 20000 members; it was not extracted/);
    expect(left).toEqual([]);
  });

  it("an expansion bomb", async () => {
    // 401 MiB of zeros: past the 400 MiB the Node policy allows, a few hundred KiB compressed.
    const size = 401 * 1024 * 1024;
    const header = Buffer.alloc(512);
    new Header({ path: `${top}/bin/node`, type: "File", size, mode: 0o755, mtime: new Date(0) }).encode(header, 0);
    // Compressed as a stream, so the test never holds the expanded bytes.
    const gzip = createGzip({ level: 1 });
    const out: Buffer[] = [];
    gzip.on("data", (c: Buffer) => out.push(c));
    const ended = new Promise((r) => gzip.on("end", r));
    const mib = Buffer.alloc(1024 * 1024);
    gzip.write(header);
    for (let i = 0; i < size / mib.length; i++) if (!gzip.write(mib)) await new Promise((r) => gzip.once("drain", r));
    gzip.end(Buffer.alloc(1024));
    await ended;
    const data = Buffer.concat(out);
    const { error, left } = await attempt("node", data);
    expect(error?.message).toMatch(/node-v24\.21\.0-linux-x64 archive expands to more than 419430400 bytes; it was not extracted/);
    expect(left).toEqual([]);
  });
});

/** A stored (uncompressed) .zip made by "Unix", st_mode in the external attributes. */
function storedZip(members: { name: string; body?: string; mode?: number }[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const body = Buffer.from(m.body ?? "");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(crc32(body), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(body.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE((3 << 8) | 20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x800, 8);
    c.writeUInt32LE(crc32(body), 16);
    c.writeUInt32LE(body.length, 20);
    c.writeUInt32LE(body.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(((m.mode ?? (m.name.endsWith("/") ? 0o040755 : 0o100644)) << 16) >>> 0, 38);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}
