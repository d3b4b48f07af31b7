/**
 * One way to unpack a runtime's archive, whichever its format: a `.zip` (the Windows builds, some tools') through
 * yauzl, loaded only then, and anything else as a gzipped tar. The runtimes say which archive they hold and under
 * which policy; they no longer choose the reader themselves.
 */
import { extractTarGz, type ExtractHooks, type ExtractResult, type MemberPolicy } from "./archive";

/** Whether `name` (an archive's file name or pinned path) is read as a zip; else it is a gzipped tar. */
export function isZip(name: string): boolean {
  return name.toLowerCase().endsWith(".zip");
}

/**
 * Extract `file` into `dest` under `policy`, as a zip when `zip` says so, else as a gzipped tar.
 * `hooks.whole` is heard for a tar's members only: a zip's caller waits for the whole extraction.
 */
export async function extractArchive(file: string, dest: string, policy: MemberPolicy, zip: boolean, hooks: ExtractHooks = {}): Promise<ExtractResult> {
  if (!zip) return extractTarGz(file, dest, policy, hooks);
  const { extractZip } = await import("./zip");
  return extractZip(file, dest, policy);
}
