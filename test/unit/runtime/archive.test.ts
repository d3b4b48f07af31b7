import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { crc32, deflateRawSync } from "node:zlib";
import { join } from "pathe";
import { has, requires } from "../../support/capabilities";
import { rawTarGz, type RawMember } from "../../support/raw-tar";
import { extractTarGz, type MemberPolicy } from "../../../src/io/archive";
import { extractZip } from "../../../src/io/zip";
import { engramPolicy } from "../../../src/install/runtime/engram";
import { goPolicy } from "../../../src/install/runtime/go";
import { nodePolicy, npmWrappers } from "../../../src/install/runtime/node";
import { npmShimFiles } from "../../../src/install/runtime/npm-shim";
import { pnpmPolicy } from "../../../src/install/runtime/pnpm";

type Member = RawMember;
const tarGz = rawTarGz;

let dir: string;
let dest: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "gss-archive-"));
  dest = join(dir, "out");
  await fs.mkdir(dest);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function extract(members: Member[], policy = pnpmPolicy(10 * 1024 * 1024)) {
  const file = join(dir, "a.tgz");
  await fs.writeFile(file, tarGz(members));
  return extractTarGz(file, dest, policy);
}

const root = "node-v24.21.0-linux-x64";
const nodeMembers: Member[] = [
  { path: `${root}/`, type: "Directory" },
  { path: `${root}/bin/node`, body: "#!/bin/sh\n", mode: 0o755 },
  { path: `${root}/bin/npm`, type: "SymbolicLink", linkpath: "../lib/node_modules/npm/bin/npm-cli.js" },
  { path: `${root}/bin/corepack`, type: "SymbolicLink", linkpath: "../lib/node_modules/corepack/dist/corepack.js" },
  { path: `${root}/lib/node_modules/npm/package.json`, body: '{"version":"11.19.0"}' },
  { path: `${root}/lib/node_modules/npm/bin/npm-cli.js`, body: "//" },
  { path: `${root}/lib/node_modules/corepack/package.json`, body: "{}" },
  { path: `${root}/include/node/node.h`, body: "" },
  { path: `${root}/LICENSE`, body: "MIT" },
];

describe("the Node archive policy", () => {
  it("writes only node, npm and the licence, as regular files", async () => {
    const r = await extract(nodeMembers, nodePolicy(root, false, 1 << 20));
    expect(readdirSync(dest).sort()).toEqual(["LICENSE", "bin", "lib"]);
    expect(readdirSync(join(dest, "bin"))).toEqual(["node"]);
    expect(readdirSync(join(dest, "lib", "node_modules"))).toEqual(["npm"]);
    const node = await fs.lstat(join(dest, "bin", "node"));
    expect(node.isFile()).toBe(true);
    if (has("posix-modes")) expect(node.mode & 0o777).toBe(0o755);
    expect(r.skipped).toContain(`${root}/bin/npm`);
    expect(r.skipped).toContain(`${root}/lib/node_modules/corepack/package.json`);
  });

  it("skips links, Corepack and every other member", async () => {
    await extract(nodeMembers, nodePolicy(root, false, 1 << 20));
    const all = await fs.readdir(dest, { recursive: true });
    expect(all.filter((p) => /corepack|include/.test(String(p)))).toEqual([]);
    for (const p of all) expect((await fs.lstat(join(dest, String(p)))).isSymbolicLink()).toBe(false);
  });

  it("rejects a member outside the archive's top folder", async () => {
    await expect(extract([...nodeMembers, { path: "elsewhere/x", body: "x" }], nodePolicy(root, false, 1 << 20))).rejects.toThrow(/outside its top folder/);
  });
});

describe("the member policy", () => {
  it.each([
    ["a member that leaves the folder", [{ path: "package/../../x", body: "x" }], /outside its folder/],
    ["an absolute member", [{ path: "/etc/x", body: "x" }], /outside its folder/],
    ["a symbolic link", [{ path: "package/l", type: "SymbolicLink", linkpath: "/etc/passwd" }], /holds a link/],
    ["a hard link", [{ path: "package/h", type: "Link", linkpath: "package/a" }], /holds a link/],
    ["a device", [{ path: "package/dev", type: "CharacterDevice" }], /CharacterDevice/],
    ["a FIFO", [{ path: "package/fifo", type: "FIFO" }], /FIFO/],
  ] as Array<[string, Member[], RegExp]>)("rejects %s and writes nothing outside", async (_name, members, error) => {
    await expect(extract([{ path: "package/a", body: "a" }, ...members])).rejects.toThrow(error);
    expect(await fs.readdir(dir)).toEqual(expect.arrayContaining(["out"]));
    await expect(fs.stat(join(dir, "x"))).rejects.toThrow();
  });

  it("stops at the member cap", async () => {
    const many: Member[] = Array.from({ length: 50 }, (_, i) => ({ path: `package/f${i}`, body: "" }));
    await expect(extract(many, { ...pnpmPolicy(1 << 20), maxMembers: 20 })).rejects.toThrow(/more than 20 members/);
  });

  it("stops an expansion bomb at the byte cap", async () => {
    const big = "0".repeat(4 * 1024 * 1024);
    await expect(extract([{ path: "package/big", body: big }], pnpmPolicy(1024 * 1024))).rejects.toThrow(/expands to more than/);
  });

  it("keeps executable bits for the owner only (pnpm)", async (ctx) => {
    requires(ctx, "posix-modes");
    await extract([
      { path: "package/bin/pnpm.mjs", body: "x", mode: 0o775 },
      { path: "package/README.md", body: "x", mode: 0o666 },
    ]);
    expect((await fs.stat(join(dest, "package/bin/pnpm.mjs"))).mode & 0o777).toBe(0o744);
    expect((await fs.stat(join(dest, "package/README.md"))).mode & 0o777).toBe(0o644);
  });

  it("rejects a damaged archive", async () => {
    const file = join(dir, "bad.tgz");
    const good = tarGz([{ path: "package/a", body: "a".repeat(2000) }]);
    await fs.writeFile(file, good.subarray(0, good.length - 30));
    await expect(extractTarGz(file, dest, pnpmPolicy(1 << 20))).rejects.toThrow();
  });
});

describe("a tar with 100,000 members", () => {
  // Every member counts, written or skipped: the first 19,990 files are ones the policy skips (include/), so the
  // members around the cap are ones it writes, and the test shows the exact member it stops at without making
  // 20,000 files (a cost that depends on the file system, not on the archive code).
  it("stops at the Node archive's member cap before writing them all", async () => {
    const many: Member[] = [{ path: `${root}/`, type: "Directory" }];
    for (let i = 0; i < 100_000; i++) {
      many.push({ path: i < 19_990 ? `${root}/include/node/h${i}.h` : `${root}/lib/node_modules/npm/f${i}`, body: "" });
    }
    await expect(extract(many, nodePolicy(root, false, 1 << 30))).rejects.toThrow(/more than 20000 members/);
    // Members 19,992 to 20,000 (the folder is the first) are written; the 20,001st and every one after it is not.
    const written = (await fs.readdir(join(dest, "lib", "node_modules", "npm"))).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    expect(written).toEqual(Array.from({ length: 9 }, (_, i) => `f${19_990 + i}`));
    expect(readdirSync(dest).sort()).toEqual(["lib"]);
  });
});

// --- zip ---------------------------------------------------------------

interface ZipMember {
  name: string;
  body?: Buffer | string;
  /** "unix" (made by 3, st_mode in the high bits) or "dos" (made by 0). */
  host?: "unix" | "dos";
  /** st_mode for unix members (type bits included), e.g. 0o100644. */
  mode?: number;
  /** DOS attributes for dos members (0x10 folder, 0x400 reparse point). */
  dos?: number;
  deflate?: boolean;
  /** Declared uncompressed size, when it should lie. */
  declaredSize?: number;
  encrypted?: boolean;
}

/** A raw zip, written field by field so hostile members can be made exactly (zip64 end records past 65,535 members). */
function zipOf(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, "utf8");
    const body = Buffer.from(m.body ?? "");
    const data = m.deflate ? deflateRawSync(body) : body;
    const method = m.deflate ? 8 : 0;
    const crc = crc32(body);
    const size = m.declaredSize ?? body.length;
    const flags = 0x800 | (m.encrypted ? 1 : 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const host = m.host ?? "unix";
    const attrs = host === "unix" ? ((m.mode ?? (m.name.endsWith("/") ? 0o040755 : 0o100644)) << 16) >>> 0 : (m.dos ?? (m.name.endsWith("/") ? 0x10 : 0x20));
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(((host === "unix" ? 3 : 0) << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(attrs, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  const count = members.length;
  if (count > 0xffff) {
    const z64 = Buffer.alloc(56);
    z64.writeUInt32LE(0x06064b50, 0);
    z64.writeBigUInt64LE(44n, 4);
    z64.writeUInt16LE(45, 12);
    z64.writeUInt16LE(45, 14);
    z64.writeBigUInt64LE(BigInt(count), 24);
    z64.writeBigUInt64LE(BigInt(count), 32);
    z64.writeBigUInt64LE(BigInt(cd.length), 40);
    z64.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(z64, locator);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Math.min(count, 0xffff), 8);
  eocd.writeUInt16LE(Math.min(count, 0xffff), 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, ...tail, eocd]);
}

async function unzip(members: ZipMember[], policy: MemberPolicy = pnpmPolicy(10 * 1024 * 1024)) {
  const file = join(dir, "a.zip");
  await fs.writeFile(file, zipOf(members));
  return extractZip(file, dest, policy);
}

const winRoot = "node-v24.21.0-win-x64";
const winMembers: ZipMember[] = [
  { name: `${winRoot}/`, host: "dos" },
  { name: `${winRoot}/node.exe`, body: "MZ fixture", host: "dos" },
  { name: `${winRoot}/npm.cmd`, body: "@ECHO OFF", host: "dos" },
  { name: `${winRoot}/node_modules/npm/package.json`, body: '{"version":"11.19.0"}', host: "dos", deflate: true },
  { name: `${winRoot}/node_modules/npm/bin/npm-cli.js`, body: "//", host: "dos" },
  { name: `${winRoot}/node_modules/corepack/package.json`, body: "{}", host: "dos" },
  { name: `${winRoot}/LICENSE`, body: "MIT", host: "dos" },
];

describe("the Node archive policy on a Windows .zip", () => {
  it("writes node.exe, npm and the licence only, and reads deflated members", async () => {
    const r = await unzip(winMembers, nodePolicy(winRoot, true, 1 << 20));
    expect(readdirSync(dest).sort()).toEqual(["LICENSE", "node.exe", "node_modules"]);
    expect(readdirSync(join(dest, "node_modules"))).toEqual(["npm"]);
    expect(await fs.readFile(join(dest, "node_modules/npm/package.json"), "utf8")).toBe('{"version":"11.19.0"}');
    expect(r.skipped).toEqual(expect.arrayContaining([`${winRoot}/npm.cmd`, `${winRoot}/node_modules/corepack/package.json`]));
  });

  it("skips a Windows link (reparse point) and a Unix symlink", async () => {
    const r = await unzip(
      [
        ...winMembers,
        { name: `${winRoot}/node_modules/npm/linked`, body: "C:\\Windows", host: "dos", dos: 0x420 },
        { name: `${winRoot}/node_modules/npm/sym`, body: "/etc/passwd", mode: 0o120777 },
      ],
      nodePolicy(winRoot, true, 1 << 20),
    );
    expect(r.skipped).toEqual(expect.arrayContaining([`${winRoot}/node_modules/npm/linked`, `${winRoot}/node_modules/npm/sym`]));
    expect(readdirSync(join(dest, "node_modules/npm")).sort()).toEqual(["bin", "package.json"]);
  });

  it("rejects a member outside the archive's top folder", async () => {
    await expect(unzip([...winMembers, { name: "elsewhere/x", body: "x" }], nodePolicy(winRoot, true, 1 << 20))).rejects.toThrow(/outside its top folder/);
  });
});

describe("the member policy on a .zip", () => {
  it.each([
    ["a member that leaves the folder", [{ name: "package/../../x", body: "x" }], /outside its folder/],
    ["a backslash member that leaves the folder", [{ name: "package\\..\\..\\x", body: "x" }], /outside its folder/],
    ["an absolute member", [{ name: "/etc/x", body: "x" }], /outside its folder/],
    ["a drive-letter member", [{ name: "C:/x", body: "x" }], /outside its folder/],
    ["a symbolic link (external attributes)", [{ name: "package/l", body: "/etc/passwd", mode: 0o120777 }], /holds a link/],
    ["a Windows reparse point", [{ name: "package/j", body: "C:\\", host: "dos", dos: 0x400 }], /holds a link/],
    ["a character device", [{ name: "package/dev", mode: 0o020644 }], /character device/],
    ["a block device", [{ name: "package/blk", mode: 0o060644 }], /block device/],
    ["a FIFO", [{ name: "package/fifo", mode: 0o010644 }], /FIFO/],
    ["an encrypted member", [{ name: "package/secret", body: "x", encrypted: true }], /encrypted|damaged/],
  ] as Array<[string, ZipMember[], RegExp]>)("rejects %s and writes nothing outside", async (_name, members, error) => {
    await expect(unzip([{ name: "package/a", body: "a" }, ...members])).rejects.toThrow(error);
    await expect(fs.stat(join(dir, "x"))).rejects.toThrow();
    await expect(fs.stat("/etc/x")).rejects.toThrow();
  });

  it("stops 100,000 members at the cap before reading any", async () => {
    const many: ZipMember[] = Array.from({ length: 100_000 }, (_, i) => ({ name: `${winRoot}/node_modules/npm/f${i}` }));
    await expect(unzip(many, nodePolicy(winRoot, true, 1 << 30))).rejects.toThrow(/more than 20000 members/);
    expect(readdirSync(dest)).toEqual([]);
  });

  it("stops an expansion bomb at the byte cap from its declared size", async () => {
    const big = Buffer.alloc(4 * 1024 * 1024);
    await expect(unzip([{ name: "package/big", body: big, deflate: true }], pnpmPolicy(1024 * 1024))).rejects.toThrow(/expands to more than/);
    expect(readdirSync(dest)).toEqual([]);
  });

  it("stops a member that inflates past the size it declares", async () => {
    const big = Buffer.alloc(4 * 1024 * 1024);
    await expect(unzip([{ name: "package/liar", body: big, deflate: true, declaredSize: 1000 }], pnpmPolicy(1024 * 1024))).rejects.toThrow(
      /liar|too many bytes|declared size/,
    );
  });

  it("keeps executable bits for the owner only (pnpm policy), from the Unix mode", async (ctx) => {
    requires(ctx, "posix-modes");
    await unzip([
      { name: "package/bin/pnpm.mjs", body: "x", mode: 0o100775 },
      { name: "package/README.md", body: "x", mode: 0o100666 },
    ]);
    expect((await fs.stat(join(dest, "package/bin/pnpm.mjs"))).mode & 0o777).toBe(0o744);
    expect((await fs.stat(join(dest, "package/README.md"))).mode & 0o777).toBe(0o644);
  });

  it("rejects a damaged zip", async () => {
    const file = join(dir, "bad.zip");
    const good = zipOf([{ name: "package/a", body: "a".repeat(2000) }]);
    await fs.writeFile(file, good.subarray(0, good.length - 30));
    await expect(extractZip(file, dest, pnpmPolicy(1 << 20))).rejects.toThrow(/pnpm tarball/);
  });
});

describe("npm for Pi: our wrappers and entry", () => {
  it("POSIX: sh wrappers that run this runtime's node with npm's own entries", () => {
    const w = npmWrappers(false);
    expect(Object.keys(w).sort()).toEqual(["bin/npm", "bin/npx"]);
    expect(w["bin/npm"]).toMatch(/^#!\/bin\/sh\n/);
    expect(w["bin/npm"]).toContain('exec "$dir/node" "$dir/../lib/node_modules/npm/bin/npm-cli.js" "$@"');
    expect(w["bin/npx"]).toContain('exec "$dir/node" "$dir/../lib/node_modules/npm/bin/npx-cli.js" "$@"');
  });

  it("Windows: npm.cmd and npx.cmd run the node.exe beside them, delayed expansion off, CRLF", () => {
    const w = npmWrappers(true);
    expect(Object.keys(w).sort()).toEqual(["npm.cmd", "npx.cmd"]);
    expect(w["npm.cmd"]).toBe('@ECHO OFF\r\nSETLOCAL DisableDelayedExpansion\r\n"%~dp0node.exe" "%~dp0node_modules\\npm\\bin\\npm-cli.js" %*\r\n');
    expect(w["npx.cmd"]).toContain('"%~dp0node_modules\\npm\\bin\\npx-cli.js" %*');
  });

  it("the gentle-shell/npm entry is CommonJS, with its package.json", () => {
    expect(npmShimFiles(false).entry).toContain('require("../lib/node_modules/npm/bin/npm-cli.js")');
    expect(npmShimFiles(true).entry).toContain('require("../node_modules/npm/bin/npm-cli.js")');
    expect(JSON.parse(npmShimFiles(false).packageJson)).toEqual({ type: "commonjs" });
  });
});

describe("the Go and Engram archive policies", () => {
  it("Go: everything under go/, links skipped, anything else outside rejected", async () => {
    await extract(
      [
        { path: "go/", type: "Directory" },
        { path: "go/bin/go", body: "#!/bin/sh\n", mode: 0o755 },
        { path: "go/misc/l", type: "SymbolicLink", linkpath: "../bin/go" },
      ],
      goPolicy(false),
    );
    expect(readdirSync(join(dest, "go")).sort()).toEqual(["bin"]);
    const go = await fs.lstat(join(dest, "go/bin/go"));
    expect(go.isFile()).toBe(true);
    if (has("posix-modes")) expect(go.mode & 0o777).toBe(0o755);
    await fs.rm(dest, { recursive: true });
    await fs.mkdir(dest);
    await expect(
      extract(
        [
          { path: "go/", type: "Directory" },
          { path: "other/x", body: "x" },
        ],
        goPolicy(false),
      ),
    ).rejects.toThrow(/outside its top folder/);
  });

  it("Engram: only the engram regular file is written", async () => {
    const r = await extract(
      [
        { path: "README.md", body: "x" },
        { path: "LICENSE", body: "x" },
        { path: "engram", body: "#!/bin/sh\n", mode: 0o755 },
        { path: "completions/engram.bash", body: "x" },
      ],
      engramPolicy(false),
    );
    expect(readdirSync(dest)).toEqual(["engram"]);
    expect(r.skipped.sort()).toEqual(["LICENSE", "README.md", "completions/engram.bash"]);
  });

  it("Engram: a link named engram is not taken for the program", async () => {
    const r = await extract([{ path: "engram", type: "SymbolicLink", linkpath: "/bin/sh" }], engramPolicy(false));
    expect(readdirSync(dest)).toEqual([]);
    expect(r.skipped).toEqual(["engram"]);
  });
});
