/**
 * Opening files without following links (spec: "PATH", Safe appends;
 * "Ownership rules"): the open flags every careful write or read here uses,
 * O_NOFOLLOW (a link put where our file should be is refused, not written
 * through) and O_NONBLOCK (a FIFO put there never blocks us), and whole reads
 * and writes through one descriptor. The descriptor calls go through a
 * small sync file-system seam, so the PATH code's tests can inject one.
 * O_NOFOLLOW is 0 on Windows: there openOwnFile and openOwnFileSync look at
 * the path again after the open (core/own-file.ts), under the platform they
 * are given, so that rule runs on Linux in the tests too.
 */
import { errnoCode } from "../core/errno";
import * as nodeFs from "node:fs";
import { openRefusesLinks, ownFileProblem, type OwnFileProblem } from "../core/own-file";

export const O = nodeFs.constants;
export const NOFOLLOW = O.O_NOFOLLOW ?? 0;
export const NONBLOCK = O.O_NONBLOCK ?? 0;
/** A new file of ours: created, never an existing one, never through a link (O_EXCL refuses a link's name too, on Windows as well). */
export const CREATE_NEW = O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW;

export type DescriptorFs = Pick<typeof nodeFs, "fstatSync" | "readSync" | "writeSync">;

/** Everything the descriptor's file holds. */
export function readAll(fs: DescriptorFs, fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = fs.readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** All of `data`, at `position` or at the descriptor's offset. */
export function writeAll(fs: DescriptorFs, fd: number, data: Buffer, position?: number): void {
  let off = 0;
  while (off < data.length) {
    off += fs.writeSync(fd, data, off, data.length - off, position === undefined ? null : position + off);
  }
}

/** Why a file was not opened as a regular file of its own: ELOOP for a link (as O_NOFOLLOW reports it), EFTYPE for anything else. */
export class OwnFileError extends Error {
  readonly code: "ELOOP" | "EFTYPE";
  constructor(
    readonly path: string,
    readonly problem: OwnFileProblem,
  ) {
    super(problem === "not-a-file" ? `${path} is not a regular file` : `${path} is a link or was replaced while it was opened`);
    this.code = problem === "not-a-file" ? "EFTYPE" : "ELOOP";
  }
}

/** The flags that open a file of its own to read on `platform`: O_NOFOLLOW where the open can refuse a link. */
export function readOwnFlags(platform: string): number {
  return O.O_RDONLY | NONBLOCK | (openRefusesLinks(platform) ? NOFOLLOW : 0);
}

export type OwnFileFs = Pick<typeof nodeFs, "openSync" | "fstatSync" | "lstatSync" | "closeSync">;

/** The path's lstat now, or null when nothing is there. */
function lstatNow(fs: OwnFileFs, path: string): nodeFs.BigIntStats | null {
  try {
    return fs.lstatSync(path, { bigint: true });
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return null;
    throw e;
  }
}

/**
 * Open `path` to read a regular file of its own, never through a link: the descriptor, or an
 * OwnFileError (nothing is left open). An error of the open itself (ENOENT, ELOOP) is thrown as is.
 */
export function openOwnFileSync(path: string, options: { platform: string; fs?: OwnFileFs }): number {
  const fs = options.fs ?? nodeFs;
  const fd = fs.openSync(path, readOwnFlags(options.platform));
  try {
    const opened = fs.fstatSync(fd, { bigint: true });
    const atPath = openRefusesLinks(options.platform) ? null : lstatNow(fs, path);
    const problem = ownFileProblem(options.platform, opened, atPath);
    if (problem) throw new OwnFileError(path, problem);
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** openOwnFileSync's rule through a FileHandle. */
export async function openOwnFile(path: string, options: { platform: string }): Promise<nodeFs.promises.FileHandle> {
  const handle = await nodeFs.promises.open(path, readOwnFlags(options.platform));
  try {
    const opened = await handle.stat({ bigint: true });
    const atPath = openRefusesLinks(options.platform)
      ? null
      : await nodeFs.promises.lstat(path, { bigint: true }).catch((e) => {
          if (errnoCode(e) === "ENOENT") return null;
          throw e;
        });
    const problem = ownFileProblem(options.platform, opened, atPath);
    if (problem) throw new OwnFileError(path, problem);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
