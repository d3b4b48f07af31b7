/**
 * A byte-exact picture of a folder tree, to prove a command left everything
 * outside the prefix alone: every entry's type and mode, a file's sha256, a
 * link's target. Links are recorded, never followed.
 *
 *   const before = await treeSnapshot(root, { skip: [prefix] });
 *   ...
 *   expect(await treeSnapshot(root, { skip: [prefix] })).toEqual(before);
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "node:path";

export type TreeEntry = { type: "dir"; mode: number } | { type: "file"; mode: number; sha256: string } | { type: "link"; target: string } | { type: "other" };

export async function treeSnapshot(root: string, options: { skip?: string[] } = {}): Promise<Record<string, TreeEntry>> {
  const skip = new Set(options.skip ?? []);
  const out: Record<string, TreeEntry> = {};
  async function walk(dir: string): Promise<void> {
    for (const name of (await fs.readdir(dir)).sort()) {
      const path = join(dir, name);
      if (skip.has(path)) continue;
      const stat = await fs.lstat(path);
      const rel = path.slice(root.length + 1);
      if (stat.isSymbolicLink()) out[rel] = { type: "link", target: await fs.readlink(path) };
      else if (stat.isDirectory()) {
        out[rel] = { type: "dir", mode: stat.mode & 0o7777 };
        await walk(path);
      } else if (stat.isFile()) {
        out[rel] = {
          type: "file",
          mode: stat.mode & 0o7777,
          sha256: createHash("sha256")
            .update(await fs.readFile(path))
            .digest("hex"),
        };
      } else out[rel] = { type: "other" };
    }
  }
  await walk(root);
  return out;
}

/** treeSnapshot with every entry's mtime as well: proves a command wrote nothing at all inside `root`, not even the same bytes. */
export async function treeWithTimes(root: string): Promise<Record<string, TreeEntry & { mtimeMs: number }>> {
  const entries = await treeSnapshot(root);
  const out: Record<string, TreeEntry & { mtimeMs: number }> = {};
  for (const [rel, entry] of Object.entries(entries)) out[rel] = { ...entry, mtimeMs: (await fs.lstat(join(root, rel))).mtimeMs };
  return out;
}
