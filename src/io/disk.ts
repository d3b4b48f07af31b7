/** Free disk space, as the user may use it (statfs: available blocks × block size). */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { dirname } from "../core/native-path";

/** Bytes free to this user on the filesystem of `path` (or of its nearest existing folder above), or null when it cannot be read. */
export async function freeSpace(path: string): Promise<number | null> {
  let at = path;
  for (;;) {
    try {
      const s = await fs.statfs(at);
      return Number(s.bavail) * Number(s.bsize);
    } catch (error) {
      const code = errnoCode(error);
      const up = dirname(at);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || up === at) return null;
      at = up;
    }
  }
}
