/**
 * Files with an exact mode, and code run under a strict umask (issue 50).
 * `writeFile(path, text, { mode })` gives the mode minus the umask, so under
 * umask 077 a test's 0640 file is 0600 before the code under test has run;
 * `withMode` sets the mode itself. `underUmask` runs the code under test
 * with another umask (the unit project runs in forks, where Node allows it)
 * and puts the worker's back, so a product that left a mode to the umask
 * fails here whatever umask the machine runs the suite with.
 */
import { chmodSync, writeFileSync } from "node:fs";

/** Write `data` to `path` and give it exactly `mode`. */
export function withMode(path: string, data: string | Buffer, mode: number): void {
  writeFileSync(path, data);
  chmodSync(path, mode);
}

/** Run `fn` with the umask `mask` in force, then put the worker's back. */
export async function underUmask<T>(mask: number, fn: () => T | Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}
