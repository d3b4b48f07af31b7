/**
 * A folder's files for a runtime's file record (../core/file-record.ts):
 * every regular file's size and sha256 and every link's target, read without
 * following a link, and what the recorded paths hold now. Files are hashed
 * a few at a time, each read in large chunks, so Node's folder (its ~120 MB
 * executable and npm's few thousand files) takes a fraction of a second.
 */
import { createHash } from "node:crypto";
import { lstatSync, promises as fs, readlinkSync, type Stats } from "node:fs";
import type { Observed, RecordedEntry } from "../core/file-record";
import { join } from "../core/native-path";

const AT_ONCE = 8;

/** A file as its writer hashed it while writing it. */
export interface WrittenFile {
  size: number;
  sha256: string;
}

/** Files a writer hashed as it wrote them, by path under a folder ("/"-separated). */
export type WrittenFiles = ReadonlyMap<string, WrittenFile>;
const CHUNK = 1024 * 1024;

/** A file's sha256, read in chunks (a runtime's executable, a bundle's archive). */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  const handle = await fs.open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}

/** Run `work` over `items`, at most AT_ONCE at a time, results in the items' order. */
async function eachAtOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
  return out;
}

/**
 * Every regular file and link under `dir`, paths relative with `/`; `skip`:
 * names at the top of `dir` left out (the record itself, the marker).
 * Anything else (a fifo, a socket) is left out too: no archive of ours has one.
 * `modes`: record each file's permission bits (not on Windows, whose file
 * systems keep none). `written`: files hashed as they were written into a
 * folder of ours (an extraction); one whose size is still the written one is
 * not read again.
 */
export async function treeEntries(
  dir: string,
  skip: readonly string[] = [],
  options: { modes?: boolean; written?: WrittenFiles | null } = {},
): Promise<RecordedEntry[]> {
  const files: string[] = [];
  const links: RecordedEntry[] = [];
  async function walk(rel: string): Promise<void> {
    for (const d of await fs.readdir(rel ? join(dir, ...rel.split("/")) : dir, { withFileTypes: true })) {
      if (!rel && skip.includes(d.name)) continue;
      const path = rel ? `${rel}/${d.name}` : d.name;
      if (d.isSymbolicLink()) links.push({ path, link: await fs.readlink(join(dir, ...path.split("/"))) });
      else if (d.isDirectory()) await walk(path);
      else if (d.isFile()) files.push(path);
    }
  }
  await walk("");
  const hashed = await eachAtOnce(files, async (path) => {
    const full = join(dir, ...path.split("/"));
    const known = options.written?.get(path);
    const stat = await fs.lstat(full);
    const sha256 = known && known.size === stat.size ? known.sha256 : await sha256OfFile(full);
    return { path, size: stat.size, sha256, ...(options.modes ? { mode: stat.mode & 0o777 } : {}) };
  });
  return [...hashed, ...links];
}

/**
 * What each recorded path under `dir` holds now; a file is read only when
 * its size is the recorded one, and only when `hash` (default true): without
 * it, sizes, types, modes and links are compared, and bytes are not.
 */
export async function observeEntries(dir: string, entries: readonly RecordedEntry[], options: { hash?: boolean } = {}): Promise<Map<string, Observed>> {
  // The stats first, with the synchronous calls: a runtime's record is thousands of paths, and Node's promise calls
  // take four times as long over them (Node 24's 1,949 files: 80 ms against 20). Only the reads that follow are async.
  const toRead: { at: number; size: number; mode: number }[] = [];
  const seen = entries.map((entry, at): Observed => {
    const full = join(dir, ...entry.path.split("/"));
    let stat: Stats;
    try {
      stat = lstatSync(full);
    } catch {
      return { kind: "missing" };
    }
    if (stat.isSymbolicLink()) {
      try {
        return { kind: "link", target: readlinkSync(full) };
      } catch {
        return { kind: "missing" };
      }
    }
    if (!stat.isFile()) return { kind: "other" };
    const wanted = "size" in entry ? entry.size : -1;
    const mode = stat.mode & 0o777;
    // Its bytes are read below; until then it stands as a file of unknown bytes.
    if (stat.size === wanted && options.hash !== false) toRead.push({ at, size: stat.size, mode });
    return { kind: "file", size: stat.size, sha256: null, mode };
  });
  await eachAtOnce(toRead, async ({ at, size, mode }) => {
    // A file that cannot be read (its permissions changed) is not what was extracted either.
    const sha256 = await sha256OfFile(join(dir, ...entries[at]!.path.split("/"))).catch(() => null);
    seen[at] = sha256 ? { kind: "file", size, sha256, mode } : { kind: "other" };
  });
  return new Map(entries.map((e, i) => [e.path, seen[i]!]));
}
