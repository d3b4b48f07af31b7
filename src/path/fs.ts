/**
 * The file-system seam the PATH entry's side effects share (spec: "PATH",
 * "Safe appends"): the injectable fs and registry. The open flags and the
 * whole reads and writes through one descriptor are io/safe-fs.ts's.
 */
import type * as nodeFs from "node:fs";
import type { UserIds } from "./entry-plan";
import type { RegistryAdapter } from "./windows-registry";

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
