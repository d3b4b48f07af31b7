/**
 * Opening files without following links (spec: "PATH", Safe appends;
 * "Ownership rules"): the open flags every careful write or read here uses,
 * O_NOFOLLOW (a link put where our file should be is refused, not written
 * through) and O_NONBLOCK (a FIFO put there never blocks us), and whole reads
 * and writes through one descriptor. The descriptor calls go through a
 * small sync file-system seam, so the PATH code's tests can inject one.
 */
import * as nodeFs from "node:fs";

export const O = nodeFs.constants;
export const NOFOLLOW = O.O_NOFOLLOW ?? 0;
export const NONBLOCK = O.O_NONBLOCK ?? 0;
/** A new file of ours: created, never an existing one, never through a link. */
export const CREATE_NEW = O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW;
/** Reading a file that must be a regular file of its own (not a link, not a FIFO that blocks). */
export const READ_OWN = O.O_RDONLY | NOFOLLOW | NONBLOCK;

export type DescriptorFs = Pick<typeof nodeFs, "fstatSync" | "readSync" | "writeSync">;

/** The error's code (ENOENT, ELOOP, ...), if it has one. */
export function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

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
