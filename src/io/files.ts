/** Small file helpers: writes that land with one rename, with the mode asked for. */
import { errnoCode } from "../core/errno";
import { lstatSync, promises as fs, readFileSync } from "node:fs";
import { type LockRules, machineRules, rename, rm } from "./locked-retry";
import { CREATE_NEW } from "./safe-fs";
import { stagingName } from "./staging";
import { dirname, basename, join } from "../core/native-path";

/** A staging name beside `path` for a write that lands with one rename: `.<name>.tmp-<pid>-<hex>`. */
export function tempSibling(path: string): string {
  return join(dirname(path), stagingName(`${basename(path)}.tmp`));
}

/**
 * Write `content` to `path` with one rename. Refuses when something that is
 * not a regular file (a link, a folder) stands at `path`. `rules` are the
 * rename's and the cleanup's (io/locked-retry.ts).
 */
export async function writeFileAtomic(path: string, content: string | Buffer, mode = 0o644, rules: LockRules = machineRules): Promise<void> {
  const existing = await lstatOrNull(path);
  if (existing && !existing.isFile()) {
    throw new Error(`${path} is not a regular file; it was left alone`);
  }
  const tmp = tempSibling(path);
  const handle = await fs.open(tmp, CREATE_NEW, mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path, rules);
  } catch (error) {
    await rm(tmp, { force: true }, rules);
    throw error;
  }
}

/** Write only when the content differs; returns whether it wrote. */
export async function writeIfChanged(path: string, content: string, mode = 0o644): Promise<boolean> {
  const existing = await lstatOrNull(path);
  if (existing && !existing.isFile()) throw new Error(`${path} is not a regular file; it was left alone`);
  if (existing) {
    const current = await fs.readFile(path, "utf8");
    if (current === content) {
      if ((existing.mode & 0o777) !== mode && process.platform !== "win32") await fs.chmod(path, mode);
      return false;
    }
  }
  await writeFileAtomic(path, content, mode);
  return true;
}

/**
 * Synchronously, whether `path` is a regular file holding exactly `content`
 * with `mode` (POSIX): what writeIfChanged would leave as it is. A launch asks
 * this first, as one sync read costs less than the thread pool's round trips.
 */
export function fileInPlace(path: string, content: string, mode = 0o644): boolean {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || (process.platform !== "win32" && (stat.mode & 0o777) !== mode)) return false;
    return readFileSync(path, "utf8") === content;
  } catch {
    return false;
  }
}

/** Nothing at the path: it, or a folder above it, is missing. */
function absent(error: unknown): boolean {
  return errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR";
}

export async function lstatOrNull(path: string) {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (absent(error)) return null;
    throw error;
  }
}

/** lstatOrNull, synchronously (for the few reads a launch makes). */
export function lstatSyncOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch (error) {
    if (absent(error)) return null;
    throw error;
  }
}

export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, "utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw error;
  }
}

/**
 * A folder of ours inside a folder already checked: created with `mode` when
 * absent (whatever the umask), refused when a link or anything else stands
 * there, or a folder of another user's (the claim refuses those first; this
 * is the second line), so nothing is ever written through it or read from it.
 */
export async function ensureRealFolder(path: string, mode = 0o700): Promise<"created" | "present"> {
  const stat = await lstatOrNull(path);
  if (stat) {
    if (stat.isSymbolicLink() || !stat.isDirectory())
      throw new Error(`${path} is not a folder of Gentle Shell's (${stat.isSymbolicLink() ? "a link" : "not a folder"}); it was left alone`);
    if (typeof process.getuid === "function" && stat.uid !== process.getuid())
      throw new Error(`${path} is not a folder of Gentle Shell's (it belongs to another user, uid ${stat.uid}); it was left alone`);
    return "present";
  }
  try {
    await fs.mkdir(path, { mode });
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return ensureRealFolder(path, mode);
    throw error;
  }
  if (process.platform !== "win32") await fs.chmod(path, mode);
  return "created";
}

// Removing a tree never follows a link at any depth, even against a racing swapper: its own file says how.
export { RemoveError, removeTree } from "./remove-tree";
