#!/usr/bin/env node
/**
 * npm run fixtures: start the test fixtures (registry, artifact mirror, stub
 * model, fixture Engram, fixture pins and binary) and keep them serving
 * until Ctrl+C, so a person can point a built binary at them by hand.
 * Prints one JSON object with their URLs and paths on stdout; progress goes
 * to stderr. GSS_FIXTURES_SKIP_BUILD=1 skips building the binary;
 * GSS_FIXTURES_FROZEN=1 serves a fixed registry snapshot (no uplink
 * refresh), as the bench does, for timings taken by hand.
 *
 * Plain JS for the developer's Node 20: it bundles test/support/fixtures.ts
 * with esbuild into a temporary .mjs and runs that.
 */
import { loadFixturesModule } from "./load-support.mjs";

const { module: support, cleanup } = await loadFixturesModule();
const { startFixtures } = support;
let fixtures;
try {
  fixtures = await startFixtures({ frozenRegistry: process.env.GSS_FIXTURES_FROZEN === "1", log: (line) => process.stderr.write(`fixtures: ${line}\n`) });
} catch (error) {
  await cleanup();
  // One sentence (the uplink check says why the registry cannot be reached); no stack.
  process.stderr.write(`fixtures: could not start: ${error.message ?? error}\n`);
  process.exit(1);
}
const { registryUrl, mirrorUrl, mirrorRoot, modelUrl, engramUrl, pinsFile, binary, releases, node, pnpmEntry, timings } = fixtures;
process.stdout.write(JSON.stringify({ registryUrl, mirrorUrl, mirrorRoot, modelUrl, engramUrl, pinsFile, binary, releases, node, pnpmEntry, timings }) + "\n");
process.stderr.write("fixtures: serving; Ctrl+C to stop\n");

let stopping = false;
const stop = async (signal) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`fixtures: ${signal}, stopping\n`);
  await fixtures.stop();
  await cleanup();
  process.exit(0);
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGHUP", () => stop("SIGHUP"));
