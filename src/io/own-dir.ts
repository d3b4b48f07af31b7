/**
 * Folders of ours inside the prefix, and files read from a folder source,
 * never through a link (spec: "Ownership rules"; issue 14, Careful writes and
 * removals). Every folder we create or write through under the prefix is
 * checked with lstat, one component at a time from the prefix down, so a link
 * put at bin/, runtime/, pnpm/ or config/gentle-ai/ is refused with a
 * sentence, and its target is never written.
 */
import { errnoCode } from "../core/errno";
import { type BigIntStats, lstatSync, promises as fs, type Stats } from "node:fs";
import { isAbsolute, join, relative } from "../core/native-path";
import { openOwnFile } from "./safe-fs";
import { lstatOrNull, removeTree } from "./files";

/** A link or a non-folder where a folder of ours must be. */
export class NotOwnFolderError extends Error {
  constructor(
    readonly path: string,
    readonly why: "a link" | "not a folder" | "another user's",
  ) {
    const what = why === "another user's" ? "belongs to another user" : `is ${why}, not a folder of Gentle Shell's`;
    super(`${path} ${what}; nothing was written through it. Move it away, then run the installer again.`);
  }
}

const uid = typeof process.getuid === "function" ? process.getuid() : null;

/** Why a folder's lstat is not a real folder of ours, or null when it is. */
function folderProblem(stat: Stats | BigIntStats): NotOwnFolderError["why"] | null {
  if (stat.isSymbolicLink()) return "a link";
  if (!stat.isDirectory()) return "not a folder";
  if (uid !== null && process.platform !== "win32" && Number(stat.uid) !== uid) return "another user's";
  return null;
}

async function checkedFolder(path: string): Promise<boolean> {
  const stat = await lstatOrNull(path);
  if (!stat) return false;
  const problem = folderProblem(stat);
  if (problem) throw new NotOwnFolderError(path, problem);
  return true;
}

/**
 * Synchronously, whether the prefix and every folder below it down to `path`
 * are there as real folders of ours: what ensureOwnDir would leave as it is
 * (a launch asks this first; anything else goes to ensureOwnDir).
 */
export function ownDirInPlace(prefix: string, path: string): boolean {
  const rel = relative(prefix, path);
  if (rel.startsWith("..") || isAbsolute(rel)) return false;
  let current = prefix;
  for (const name of ["", ...rel.split("/").filter(Boolean)]) {
    current = name ? join(current, name) : current;
    try {
      if (folderProblem(lstatSync(current)) !== null) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * `path` (the prefix or a folder inside it) as a real folder of ours: the
 * prefix and each component below it lstat-checked (a link, a non-folder or
 * another user's folder is refused), and each missing one created with
 * `mode`, whatever the umask. Returns whether the last one was created.
 */
export async function ensureOwnDir(prefix: string, path: string, mode = 0o755): Promise<"created" | "present"> {
  const rel = relative(prefix, path);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`${path} is not inside ${prefix}`);
  let status: "created" | "present" = "present";
  // The prefix itself is normally claimed first (install/claim.ts); a missing one is made private, as there.
  if (!(await checkedFolder(prefix))) status = await makeFolder(prefix, 0o700);
  let current = prefix;
  for (const name of rel.split("/").filter(Boolean)) {
    current = join(current, name);
    if (await checkedFolder(current)) {
      status = "present";
      continue;
    }
    status = await makeFolder(current, mode);
  }
  return status;
}

/** mkdir with `mode` whatever the umask; one another process made meanwhile is checked instead. */
async function makeFolder(path: string, mode: number): Promise<"created" | "present"> {
  try {
    await fs.mkdir(path, { mode });
  } catch (error) {
    if (errnoCode(error) !== "EEXIST") throw error;
    await checkedFolder(path);
    return "present";
  }
  if (process.platform !== "win32") await fs.chmod(path, mode);
  return "created";
}

/**
 * Remove `path` (a folder of ours inside the prefix, such as tmp/) only when
 * it is a real folder of this user: a link or anything else there is kept,
 * and its target never touched. The removal itself never follows a link.
 */
export async function removeOwnFolder(path: string): Promise<"removed" | "absent" | "kept"> {
  const stat = await lstatOrNull(path);
  if (!stat) return "absent";
  if (stat.isSymbolicLink() || !stat.isDirectory()) return "kept";
  if (uid !== null && process.platform !== "win32" && stat.uid !== uid) return "kept";
  await removeTree(path, stat);
  return "removed";
}

/** Every folder between `root` and `path` (a file inside it) is a real folder, not a link. */
async function checkSourceFolders(root: string, path: string, name: string): Promise<void> {
  const rel = relative(root, path);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`${name} (${path}) is not inside ${root}`);
  const parts = rel.split("/").filter(Boolean);
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const stat = await lstatOrNull(current);
    if (stat?.isSymbolicLink()) throw new Error(`${current} in the source folder ${root} is a link; a folder source is read without following links`);
  }
}

/**
 * Open `path`, a file of the folder source `root`, without following a link (none between either). On Windows,
 * where the open cannot refuse a link, the path is looked at again after it (io/safe-fs.ts openOwnFile); `platform`
 * chooses that rule.
 */
export async function openSourceFile(root: string, path: string, name: string, maxBytes: number, platform: string = process.platform): Promise<fs.FileHandle> {
  await checkSourceFolders(root, path, name);
  let handle: fs.FileHandle;
  try {
    handle = await openOwnFile(path, { platform });
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") throw Object.assign(new Error(`${name} is not in ${root} (${relative(root, path)})`), { status: 404 });
    if (code === "ELOOP" || code === "EMLINK") throw new Error(`${name} in ${root} is a link; a folder source is read without following links`);
    if (code === "EFTYPE") throw new Error(`${name} in ${root} is not a regular file (${relative(root, path)})`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${name} in ${root} is not a regular file (${relative(root, path)})`);
    if (stat.size > maxBytes) throw new Error(`${name} in ${root} is larger than the ${maxBytes} bytes allowed`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The whole of a small text or JSON file of a folder source, read without following links. */
export async function readSourceFile(root: string, path: string, name: string, maxBytes: number): Promise<Buffer> {
  const handle = await openSourceFile(root, path, name, maxBytes);
  try {
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw new Error(`${name} in ${root} is larger than the ${maxBytes} bytes allowed`);
    return bytes;
  } finally {
    await handle.close();
  }
}
