/**
 * What an extraction wrote, hashed as it wrote it (issue 49, item 3): the file record of a runtime takes each
 * extracted file's size and sha256 from the extraction, not from a second read, so the hashes must be the files'
 * own, for tar and zip alike; a file that changed size since is read again; a cut gzip stream is named damaged.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, promises as fs, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { join } from "pathe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveError, extractTarGz } from "../../../src/io/archive";
import { treeEntries } from "../../../src/io/file-tree";
import { nodePolicy } from "../../../src/install/runtime/node";
import { rawTarGz } from "../../support/raw-tar";

const root = "node-v24.21.0-linux-x64";
const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
const members = [
  { path: `${root}/`, type: "Directory" as const },
  { path: `${root}/bin/node`, body: big.toString("latin1"), mode: 0o755 },
  { path: `${root}/lib/node_modules/npm/package.json`, body: '{"version":"11.19.0"}' },
  { path: `${root}/lib/node_modules/npm/empty.js`, body: "" },
  { path: `${root}/LICENSE`, body: "MIT" },
];
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let dir: string;
let dest: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "gss-archive-written-"));
  dest = join(dir, "out");
  await fs.mkdir(dest);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function extracted(whole?: (target: string) => void) {
  const file = join(dir, "node.tar.gz");
  await fs.writeFile(file, rawTarGz(members));
  return extractTarGz(file, dest, nodePolicy(root, false, 64 * 1024 * 1024), whole ? { whole } : {});
}

describe("an extraction's written files", () => {
  it("names every file it wrote with the size and sha256 of the bytes on disk", async () => {
    const { written } = await extracted();
    expect([...written.keys()].sort()).toEqual(["LICENSE", "bin/node", "lib/node_modules/npm/empty.js", "lib/node_modules/npm/package.json"]);
    for (const [path, entry] of written) {
      const bytes = await fs.readFile(join(dest, path));
      expect(entry, path).toEqual({ size: bytes.length, sha256: sha(bytes) });
    }
    expect(written.get("bin/node")?.size).toBe(big.length);
  });

  it("says each file is whole as soon as it is written, its mode set and closed, while later members are still to come", async () => {
    const heard: Array<{ target: string; size: number; mode: number; later: boolean }> = [];
    await extracted((target) => {
      // Synchronous on purpose: what is on disk at the moment the extraction says so.
      const st = statSync(join(dest, target));
      heard.push({ target, size: st.size, mode: st.mode & 0o777, later: existsSync(join(dest, "LICENSE")) });
    });
    expect(heard.map((h) => h.target)).toEqual(["bin/node", "lib/node_modules/npm/package.json", "lib/node_modules/npm/empty.js", "LICENSE"]);
    expect(heard[0]).toMatchObject({ target: "bin/node", size: big.length, later: false });
    // Windows keeps no POSIX mode bits: there the executable is only whole and closed.
    if (process.platform !== "win32") expect(heard[0]!.mode).toBe(0o755);
  });

  it("gives the record the same entries as reading every file again, and reads again a file whose size changed", async () => {
    const { written } = await extracted();
    const reread = await treeEntries(dest, [], { modes: true });
    expect(await treeEntries(dest, [], { modes: true, written })).toEqual(reread);
    await fs.appendFile(join(dest, "LICENSE"), " licence");
    const changed = await treeEntries(dest, [], { written });
    expect(changed.find((e) => e.path === "LICENSE")).toMatchObject({ size: 11, sha256: sha(Buffer.from("MIT licence")) });
  });

  it("names a gzip stream cut short as damaged, in one sentence", async () => {
    const whole = rawTarGz(members);
    const file = join(dir, "cut.tar.gz");
    await fs.writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
    const error = await extractTarGz(file, dest, nodePolicy(root, false, 64 * 1024 * 1024)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as Error).message).toMatch(/^node-v24\.21\.0-linux-x64 archive (is damaged|: )/);
    expect((error as Error).message).not.toMatch(/\n/);
  });

  it("refuses gzip that holds no tar", async () => {
    const file = join(dir, "notar.tar.gz");
    await fs.writeFile(file, gzipSync(Buffer.from("plain words, not a tar header at all")));
    await expect(extractTarGz(file, dest, nodePolicy(root, false, 1 << 20))).rejects.toBeInstanceOf(ArchiveError);
  });
});
