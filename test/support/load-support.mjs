/**
 * Loads the TypeScript test support (fixtures.ts) from plain JS running on
 * the developer's Node 20: esbuild bundles it into a temporary .mjs, which is
 * imported. Used by `npm run fixtures`, `npm run demo` and the bench
 * (which also loads heavy-release.ts this way).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const supportDir = dirname(fileURLToPath(import.meta.url));

/** Returns the module's exports (of `entry`, a file in test/support) and a cleanup that removes the bundle. */
export async function loadFixturesModule(entry = "fixtures.ts") {
  const work = await mkdtemp(join(tmpdir(), "gss-support-"));
  const bundle = join(work, "fixtures.mjs");
  const cleanup = () => rm(work, { recursive: true, force: true });
  try {
    await build({
      entryPoints: [join(supportDir, entry)],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: bundle,
      logLevel: "warning",
      define: { __GSS_SUPPORT_DIR__: JSON.stringify(supportDir) },
      banner: { js: "import { createRequire as __gssRequire } from 'node:module'; const require = __gssRequire(import.meta.url);" },
    });
    return { module: await import(pathToFileURL(bundle).href), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
