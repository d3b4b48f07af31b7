/**
 * Acquiring Go and Engram (spec: "Ownership rules", Runtimes; Isolation,
 * Engram) from a mirror of their own with fixture archives and pins: the
 * published folder and its marker, reuse, a wrong size or version refused,
 * the Windows .zip path, and Engram left unavailable without a pinned
 * checksum. Node and pnpm: acquisition-node.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { scratchDir } from "../support/scratch";
import { join } from "pathe";
import type { Pins } from "../../src/pins/types";
import { ensureEngram } from "../../src/install/runtime/engram";
import { acquireGo } from "../../src/install/runtime/go";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { RUNTIME_FILES } from "../../src/install/runtime/marker";
import { checkFileRecord } from "../../src/install/runtime/file-record";
import { fixtures } from "../support/context";
import { engramScript } from "../support/engram";
import { startMirror, type Mirror } from "../support/mirror";
import { runCommand } from "../support/proc";
import { context, runtimeEntries } from "../support/runtime-context";
import { packDeterministic } from "../support/tarball";
import { productionPins } from "../../src/pins/production";
import { crc32 } from "node:zlib";

const f = fixtures();

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

  it("ensureEngram writes only the engram file, checked with `engram version`, and records it", async () => {
    const ctx = await context({ pins, base: mirror.url });
    const r = await ensureEngram(ctx);
    expect(r).toMatchObject({ status: "installed", available: true, path: ctx.layout.engramDir });
    expect((await fs.readdir(ctx.layout.engramDir)).sort()).toEqual([RUNTIME_FILES, RUNTIME_MARKER, "engram"]);
    expect((await fs.stat(ctx.layout.engram)).mode & 0o777).toBe(0o755);
    // Its file record holds the one file, as published.
    expect(await checkFileRecord(ctx.layout.engramDir)).toEqual({ kind: "checked", files: 1, differences: [] });
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
    expect((await fs.readdir(ctx.layout.engramDir)).sort()).toEqual([RUNTIME_FILES, RUNTIME_MARKER, "engram"]);
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
