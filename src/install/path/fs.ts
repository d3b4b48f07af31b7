/**
 * The file-system seam the PATH entry's side effects share (spec: "PATH",
 * "Safe appends"): the injectable fs and registry, the open flags
 * (O_NOFOLLOW, and O_NONBLOCK so a FIFO put there never blocks us), and
 * whole reads and writes through one descriptor.
 */
import * as nodeFs from "node:fs";
import type { UserIds } from "./plan";
import type { RegistryAdapter } from "./registry";

export type PathFs = Pick<
  typeof nodeFs,
  | "lstatSync"
  | "statSync"
  | "readFileSync"
  | "readlinkSync"
  | "openSync"
  | "closeSync"
  | "fstatSync"
  | "readSync"
  | "writeSync"
  | "ftruncateSync"
  | "fsyncSync"
  | "fchmodSync"
  | "renameSync"
  | "unlinkSync"
  | "mkdirSync"
  | "symlinkSync"
  | "accessSync"
  | "constants"
>;

export interface PathIoOptions {
  fs?: PathFs;
  registry?: RegistryAdapter;
  /** Whose writes count (defaults to this process). */
  user?: UserIds;
}

export const O = nodeFs.constants;
export const NOFOLLOW = O.O_NOFOLLOW ?? 0;
export const NONBLOCK = O.O_NONBLOCK ?? 0;

export function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

export function readAll(fs: PathFs, fd: number): Buffer {
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

export function writeAll(fs: PathFs, fd: number, data: Buffer, position?: number): void {
  let off = 0;
  while (off < data.length) {
    off += fs.writeSync(fd, data, off, data.length - off, position === undefined ? null : position + off);
  }
}
