/**
 * Where the run's shared installs (./shared-install.ts) keep their records,
 * and their removal by the global teardown. No vitest import: the global
 * setup loads it outside any test file.
 */
import { promises as fs } from "node:fs";
import { join } from "node:path";

/** The scratch prefix of templates and copies alike: same length, so a home's path is replaced in place. */
export const SHARED_ROOT_PREFIX = "gss-installed-";

export const sharedInstallsFolder = (runDir: string) => join(runDir, "shared-installs");

/** Remove every template this run made (each left a `<name>.root` file naming its folder). */
export async function removeSharedInstalls(runDir: string): Promise<void> {
  const folder = sharedInstallsFolder(runDir);
  const entries = await fs.readdir(folder).catch(() => [] as string[]);
  for (const entry of entries.filter((e) => e.endsWith(".root"))) {
    const root = await fs.readFile(join(folder, entry), "utf8");
    await fs.rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}
