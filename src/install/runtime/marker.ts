/**
 * A runtime folder's marker (spec: "Ownership rules", Runtimes): what makes
 * runtime/<name> ours. Apart from the install protocol (./recipe.ts), so a
 * launch that only asks whether a runtime is there loads no download code.
 */
import { join } from "../../core/native-path";
import { lstatOrNull } from "../../io/files";

export const RUNTIME_MARKER = ".gentle-shell-runtime";

/** Whether `dir` carries our runtime marker as a regular file (no questions asked of anything else there). */
export async function isMarkedRuntime(dir: string): Promise<boolean> {
  return Boolean((await lstatOrNull(join(dir, RUNTIME_MARKER)))?.isFile());
}

/** True for our marked runtime, false when nothing is there; throws for anything else. */
export async function existingRuntime(dir: string, label: string, runtimeRoot: string): Promise<boolean> {
  const stat = await lstatOrNull(dir);
  if (!stat) return false;
  const rel = `runtime/${dir.slice(runtimeRoot.length + 1)}`;
  if (!stat.isDirectory()) {
    throw new Error(`${rel} is not a folder made by gentle-shell-setup, so ${label} was not installed over it. Move it away, then run the installer again.`);
  }
  const marker = await lstatOrNull(join(dir, RUNTIME_MARKER));
  if (!marker?.isFile()) {
    throw new Error(
      `${rel} exists but carries no ${RUNTIME_MARKER} marker: it was not made by gentle-shell-setup, so ${label} was not installed over it. Move it away, then run the installer again.`,
    );
  }
  return true;
}

/** Beside the marker: the runtime's file record (./file-record.ts), written before the folder is published. */
export const RUNTIME_FILES = ".gentle-shell-files";
