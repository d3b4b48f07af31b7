/**
 * Deterministic .tar.gz files for fixtures: the same inputs always give the
 * same bytes (so the same sha256), because entries are sorted, every mtime is
 * one fixed date, owners are omitted (portable) and modes are normalised.
 */
import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import * as tar from "tar";

/** Every entry's mtime: the same value npm uses for package tarballs. */
export const FIXED_MTIME = new Date("1985-10-26T08:15:00.000Z");

/** All paths below `root` (directories, files, symlinks), relative, sorted by code unit. */
export async function listTree(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  const names = (await readdir(join(root, rel))).sort();
  for (const name of names) {
    const path = rel ? `${rel}/${name}` : name;
    out.push(path);
    const st = await lstat(join(root, path));
    if (st.isDirectory()) out.push(...(await listTree(root, path)));
  }
  return out;
}

/** Directories 755, executables 755, other files 644; symlinks untouched. */
export async function normaliseModes(root: string): Promise<void> {
  for (const path of await listTree(root)) {
    const full = join(root, path);
    const st = await lstat(full);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) await chmod(full, 0o755);
    else await chmod(full, st.mode & 0o111 ? 0o755 : 0o644);
  }
}

/**
 * Write `outFile` (gzip) holding `top` (a folder or file directly in `cwd`)
 * and everything below it, in sorted order.
 */
export async function packDeterministic(cwd: string, top: string, outFile: string): Promise<void> {
  const st = await lstat(join(cwd, top));
  if (st.isDirectory()) await normaliseModes(join(cwd, top));
  else if (st.isFile()) await chmod(join(cwd, top), st.mode & 0o111 ? 0o755 : 0o644);
  const entries = st.isDirectory() ? [top, ...(await listTree(join(cwd, top))).map((p) => `${top}/${p}`)] : [top];
  await tar.c({ cwd, file: outFile, gzip: true, portable: true, mtime: FIXED_MTIME, noDirRecurse: true, follow: false }, entries);
}
