/**
 * Claiming the prefix (spec: "Migration from a global install", The prefix
 * folder). ~/.gentle-shell and the agent home are created 0700 whatever the
 * umask. An existing prefix that is a real folder of this user but group- or
 * other-writable loses that write access through a descriptor that does not
 * follow links. A link, a non-folder or another owner's folder is refused.
 */
import { constants, promises as fs } from "node:fs";
import { NOFOLLOW } from "../io/safe-fs";
import type { Layout } from "../core/layout";
import { lstatOrNull } from "../io/files";

export async function claimPrivateFolder(path: string, what: string): Promise<"created" | "existing" | "tightened"> {
  const before = await lstatOrNull(path);
  if (!before) {
    try {
      await fs.mkdir(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const stat = await lstatOrNull(path);
  if (!stat) throw new Error(`${what} ${path} could not be created`);
  if (stat.isSymbolicLink()) throw new Error(`${what} ${path} is a link; it must be a real folder. Nothing was changed.`);
  if (!stat.isDirectory()) throw new Error(`${what} ${path} is not a folder. Nothing was changed.`);
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
    throw new Error(`${what} ${path} belongs to another user (uid ${stat.uid}). Nothing was changed.`);
  }
  if (process.platform === "win32") return before ? "existing" : "created";
  const handle = await fs.open(path, constants.O_RDONLY | constants.O_DIRECTORY | NOFOLLOW);
  try {
    const opened = await handle.stat();
    if (opened.ino !== stat.ino || opened.dev !== stat.dev) throw new Error(`${what} ${path} changed while it was being claimed`);
    if (!before) {
      await handle.chmod(0o700);
      return "created";
    }
    if (opened.mode & 0o022) {
      await handle.chmod(opened.mode & 0o755 & ~0o022);
      return "tightened";
    }
    return "existing";
  } finally {
    await handle.close();
  }
}

export async function claimPrefix(layout: Layout): Promise<string> {
  const prefix = await claimPrivateFolder(layout.prefix, "The Gentle Shell folder");
  await claimPrivateFolder(layout.agent, "The Gentle Shell agent home");
  return prefix === "created" ? "created" : prefix === "tightened" ? "group/other write access removed" : "already there";
}
