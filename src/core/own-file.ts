/**
 * A file read as a regular file of its own, never through a link (spec:
 * "PATH", Safe appends; "Ownership rules"). Pure: whether the file a
 * descriptor opened is the one at the path. On POSIX the open itself refuses
 * a link (O_NOFOLLOW), so only the kind of file is left to check. Windows has
 * no O_NOFOLLOW (Node's constant is 0 there) and its open follows a symbolic
 * link, so after the open the path is looked at without following
 * (lstat): it must not be a link, and it must be the very file the
 * descriptor holds (the same dev and ino), or a link was put there, or the
 * file was swapped, around the open.
 */

/** What the rule reads of a stat: its kind and its identity (bigint, so Windows' 64-bit file ids compare exactly). */
export interface FileIdentity {
  isFile(): boolean;
  isSymbolicLink(): boolean;
  dev: bigint | number;
  ino: bigint | number;
}

export type OwnFileProblem = "not-a-file" | "link" | "replaced";

/** Whether `platform`'s open refuses a link by itself (O_NOFOLLOW), so the path needs no second look. */
export function openRefusesLinks(platform: string): boolean {
  return platform !== "win32";
}

/**
 * Why the opened file is not a regular file of its own at the path, or null.
 * `opened` is the descriptor's fstat; `atPath` the path's lstat after the open
 * (only needed where the open follows links; null when nothing is there now).
 */
export function ownFileProblem(platform: string, opened: FileIdentity, atPath: FileIdentity | null): OwnFileProblem | null {
  if (!opened.isFile()) return "not-a-file";
  if (openRefusesLinks(platform)) return null;
  if (atPath?.isSymbolicLink()) return "link";
  if (!atPath?.isFile() || BigInt(atPath.dev) !== BigInt(opened.dev) || BigInt(atPath.ino) !== BigInt(opened.ino)) return "replaced";
  return null;
}
