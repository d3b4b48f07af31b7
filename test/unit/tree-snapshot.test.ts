/** The tests' picture of a tree (test/support/tree.ts) sees every change, though it remembers the hashes of files it has read. */
import { createHash } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchDir } from "../support/scratch";
import { treeSnapshot } from "../support/tree";

/** Until the file's ctime is older than the picture's 200 ms, after which its hash is remembered. */
async function settled(path: string): Promise<void> {
  while (Date.now() - statSync(path).ctimeMs <= 300) await new Promise((r) => setTimeout(r, 50));
}

describe("treeSnapshot", () => {
  it("sees new bytes of the same size behind a restored mtime, in a file whose hash it remembered", async () => {
    const root = scratchDir("gss-tree-");
    const file = join(root, "a.txt");
    await fs.writeFile(file, "first\n");
    // A whole second, which utimes sets back exactly.
    const mtime = new Date(1_700_000_000_000);
    await fs.utimes(file, mtime, mtime);
    await settled(file);
    const before = await treeSnapshot(root);
    expect(await treeSnapshot(root)).toEqual(before);
    await fs.writeFile(file, "other\n");
    await fs.utimes(file, mtime, mtime);
    const after = await treeSnapshot(root);
    expect(after["a.txt"]).not.toEqual(before["a.txt"]);
    expect(after["a.txt"]).toEqual({ ...before["a.txt"], type: "file", sha256: createHash("sha256").update("other\n").digest("hex") });
  });
});
