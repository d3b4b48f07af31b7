#!/usr/bin/env node
/**
 * npm run fixtures: start the test fixtures (registry, artifact mirror, stub
 * model, fixture Engram, fixture pins and binary) and keep them serving
 * until Ctrl+C, so a person can point a built binary at them by hand.
 * Prints one JSON object with their URLs and paths on stdout; progress goes
 * to stderr. GSS_FIXTURES_SKIP_BUILD=1 skips building the binary.
 *
 * Plain JS for the developer's Node 20: it bundles test/support/fixtures.ts
 * with esbuild into a temporary .mjs and runs that.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const supportDir = dirname(fileURLToPath(import.meta.url));
const work = await mkdtemp(join(tmpdir(), "gss-fixtures-cli-"));
const bundle = join(work, "fixtures.mjs");
try {
  await build({
    entryPoints: [join(supportDir, "fixtures.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
    define: { __GSS_SUPPORT_DIR__: JSON.stringify(supportDir) },
    banner: { js: "import { createRequire as __gssRequire } from 'node:module'; const require = __gssRequire(import.meta.url);" },
  });
} catch (error) {
  await rm(work, { recursive: true, force: true });
  throw error;
}

const { startFixtures } = await import(pathToFileURL(bundle).href);
let fixtures;
try {
  fixtures = await startFixtures({ log: (line) => process.stderr.write(`fixtures: ${line}\n`) });
} catch (error) {
  await rm(work, { recursive: true, force: true });
  process.stderr.write(`fixtures: could not start: ${error.stack ?? error}\n`);
  process.exit(1);
}
const { registryUrl, mirrorUrl, mirrorRoot, modelUrl, engramUrl, pinsFile, binary, releases, node, pnpmEntry, timings } = fixtures;
process.stdout.write(
  JSON.stringify({ registryUrl, mirrorUrl, mirrorRoot, modelUrl, engramUrl, pinsFile, binary, releases, node, pnpmEntry, timings }) + "\n",
);
process.stderr.write("fixtures: serving; Ctrl+C to stop\n");

let stopping = false;
const stop = async (signal) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`fixtures: ${signal}, stopping\n`);
  await fixtures.stop();
  await rm(work, { recursive: true, force: true });
  process.exit(0);
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGHUP", () => stop("SIGHUP"));
