/**
 * Whether a process id is running (signal 0): what a staging folder's or a
 * marker's pid is checked with. Apart from ./process.ts, so code that only
 * asks this loads no child_process.
 */
import { errnoCode } from "../core/errno";

/** Is process `pid` still running (ours to ask about or not)? Staging names and locks carry their owner's pid. */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}
