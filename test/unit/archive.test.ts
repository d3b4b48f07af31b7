import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { join } from "pathe";
import { Header } from "tar";
import { extractTarGz } from "../../src/io/archive";
import { nodePolicy, pnpmPolicy } from "../../src/install/runtime";

interface Member {
  path: string;
  type?: "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "FIFO";
  body?: string;
  mode?: number;
  linkpath?: string;
}

/** A raw tar, member by member, so hostile shapes can be written exactly. */
function tarGz(members: Member[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const body = Buffer.from(m.body ?? "");
    const type = m.type ?? "File";
    const header = new Header({
      path: m.path,
      type,
      size: type === "File" ? body.length : 0,
      mode: m.mode ?? (type === "Directory" ? 0o755 : 0o644),
      mtime: new Date(0),
      uid: 0,
      gid: 0,
      linkpath: m.linkpath,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (type === "File" && body.length) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

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
    expect((await fs.stat(join(dest, "bin", "node"))).mode & 0o777).toBe(0o755);
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

  it("keeps executable bits for the owner only (pnpm)", async () => {
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
